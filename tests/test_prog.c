/*
 * test_prog.c: the programs' message line (tools/common/prog.c): the
 * "program: what: why" shape, WHAT left out when NULL or empty, the exit
 * code passed through, err->msg preferred to the code's message, the usage
 * hint, one line per message, and a message too long for the buffer cut
 * with "..." but still one line.  stderr is pointed at a temporary file
 * for each case and read back.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/error.h>

#include "prog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char got[16384];

/* Run the messages of one case with stderr in a temporary file: start. */
static int saved_fd = -1;
static FILE *tmp;

static void
capture_start(void)
{
    fflush(stderr);
    tmp = tmpfile();
    assert_non_null(tmp);
    saved_fd = dup(STDERR_FILENO);
    assert_true(saved_fd >= 0);
    assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
}

/* End: stderr back, and what was written in `got`. */
static const char *
capture_end(void)
{
    fflush(stderr);
    assert_true(dup2(saved_fd, STDERR_FILENO) >= 0);
    close(saved_fd);
    rewind(tmp);
    size_t n = fread(got, 1, sizeof got - 1, tmp);
    got[n] = '\0';
    fclose(tmp);
    return got;
}

static void
test_shape(void **state)
{
    (void)state;
    prog_init("gc-test");
    assert_string_equal(prog_name(), "gc-test");
    capture_start();
    prog_msg("plain %d", 1);
    prog_say("what", "said %s", "this");
    prog_say(NULL, "no what");
    prog_say("", "empty what");
    assert_int_equal(prog_fail(7, "cmd", "failed: %s", "why"), 7);
    assert_string_equal(capture_end(), "gc-test: plain 1\n"
                                       "gc-test: what: said this\n"
                                       "gc-test: no what\n"
                                       "gc-test: empty what\n"
                                       "gc-test: cmd: failed: why\n");
}

static void
test_fail_err(void **state)
{
    (void)state;
    prog_init("gc-test");
    gc_error err;
    gc_error_clear(&err);
    capture_start();
    /* An empty gc_error: the code's message, after WHAT. */
    assert_int_equal(prog_fail_err(3, GC_ENOMEM, &err, "x.map"), 3);
    assert_int_equal(prog_fail_err(2, GC_EIO, NULL, "y.map"), 2);
    /* A filled one names its file itself. */
    gc_error_set(&err, GC_EPARSE, "z.map", 4, 2, "bad cell");
    assert_int_equal(prog_fail_err(2, GC_EPARSE, &err, "ignored"), 2);
    assert_int_equal(prog_usage(2, "--x: '%s' is wrong", "y"), 2);
    assert_string_equal(capture_end(), "gc-test: x.map: out of memory\n"
                                       "gc-test: y.map: input/output error\n"
                                       "gc-test: z.map:4:2: bad cell\n"
                                       "gc-test: --x: 'y' is wrong (see "
                                       "gc-test --help)\n");
}

static void
test_long(void **state)
{
    (void)state;
    prog_init("gc-test");
    char *big = malloc(20000);
    assert_non_null(big);
    memset(big, 'a', 19999);
    big[19999] = '\0';
    capture_start();
    prog_say("what", "%s", big);
    prog_msg("next");
    const char *s = capture_end();
    free(big);
    /* Cut, marked, and still one line followed by the next message. */
    const char *nl = strchr(s, '\n');
    assert_non_null(nl);
    assert_true(nl - s > 4000);
    assert_memory_equal(nl - 3, "...", 3);
    assert_string_equal(nl + 1, "gc-test: next\n");
    assert_memory_equal(s, "gc-test: what: aaa", 18);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape),
        cmocka_unit_test(test_fail_err),
        cmocka_unit_test(test_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

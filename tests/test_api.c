/*
 * test_api.c: the library-wide API: the run-time version against the one
 * this test was compiled with and the one configure gave.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/version.h>

#include <stdio.h>
#include <string.h>

static void
test_version(void **state)
{
    (void)state;
    /* The library the test runs with is the one it was compiled against. */
    assert_string_equal(gc_version(), GC_VERSION_STRING);
    assert_int_equal(gc_version_number(), GC_VERSION_NUMBER);
    /* And both are what configure was given (AC_INIT). */
    assert_string_equal(gc_version(), PACKAGE_VERSION);
    char s[32];
    snprintf(s, sizeof s, "%d.%d.%d", GC_VERSION_MAJOR, GC_VERSION_MINOR,
             GC_VERSION_PATCH);
    assert_string_equal(s, GC_VERSION_STRING);
    assert_int_equal(gc_version_number(),
                     ((unsigned)GC_VERSION_MAJOR << 16) |
                         ((unsigned)GC_VERSION_MINOR << 8) |
                         (unsigned)GC_VERSION_PATCH);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests_name("api", tests, NULL, NULL);
}

/*
 * test_api.c: the library-wide API: the run-time version against the one
 * this test was compiled with and the one configure gave; the monotonic
 * clock; JSON strings, with invalid UTF-8 checked against the example
 * Unicode gives for its substitution rule; floats as their shortest text,
 * against hand-picked values and, on a million random bit patterns (50,000
 * in the quick form), the rule itself (reads back the same; one digit
 * fewer does not).
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/util.h>
#include <gridcrowd/version.h>

#include "quick.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static void
test_clock(void **state)
{
    (void)state;
    struct timespec ts, nap = {0, 2 * 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ref = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    uint64_t a = gc_clock_ns();
    /* The same clock as CLOCK_MONOTONIC (other processes compare its
     * readings with theirs): read just after it, within a second. */
    assert_true(a >= ref);
    assert_true(a - ref < 1000000000u);
    nanosleep(&nap, NULL);
    uint64_t b = gc_clock_ns();
    assert_true(b >= a + 2 * 1000 * 1000);
}

/* gc_json_escape of `in` as a string. */
static char *
json(const char *in)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(gc_json_escape(f, in), GC_OK);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void
expect_json(const char *in, const char *want)
{
    char *got = json(in);
    assert_string_equal(got, want);
    free(got);
}

static void
test_json_escape(void **state)
{
    (void)state;
    expect_json("", "\"\"");
    expect_json("den520d.map", "\"den520d.map\"");
    expect_json("a\"b\\c", "\"a\\\"b\\\\c\"");
    expect_json("\n\r\t\x01\x1f\x7f/", "\"\\n\\r\\t\\u0001\\u001f\\u007f/\"");
    /* Well-formed UTF-8 is copied: 2, 3 and 4 bytes, the extremes of each
     * range included. */
    expect_json("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                "\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
    expect_json("\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80"
                "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf",
                "\"\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80"
                "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"");
    /* Unicode 15, table 3-8: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64 is
     * a, FFFD (F1 80 80), FFFD (E1 80), FFFD (C2), b, FFFD, c, FFFD, FFFD,
     * d: one replacement per maximal subpart. */
    expect_json("\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64",
                "\"a\\ufffd\\ufffd\\ufffdb\\ufffdc\\ufffd\\ufffdd\"");
    /* Never-valid bytes, overlong forms, surrogates and code points past
     * U+10FFFF: the lead cannot be followed by that byte, so each byte is
     * a subpart of its own. */
    expect_json("\xc0\x80", "\"\\ufffd\\ufffd\"");
    expect_json("\xe0\x80\x80", "\"\\ufffd\\ufffd\\ufffd\"");
    expect_json("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
    expect_json("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
    expect_json("\xf5\xfe\xff", "\"\\ufffd\\ufffd\\ufffd\"");
    /* A sequence cut short, at the end of the string or by ASCII. */
    expect_json("x\xe2\x82", "\"x\\ufffd\"");
    expect_json("\xf0\x9f\x98!", "\"\\ufffd!\"");
}

static void
test_json_error(void **state)
{
    (void)state;
    /* A stream that cannot be written: the error is reported. */
    FILE *f = fopen("/dev/null", "r");
    assert_non_null(f);
    assert_int_equal(gc_json_escape(f, "x"), GC_EIO);
    fclose(f);
}

static void
expect_float(float v, const char *want)
{
    char t[GC_FLOAT_TEXT];
    assert_ptr_equal(gc_float_text(t, v), t);
    assert_string_equal(t, want);
}

/* Significant digits of %g text: those of its mantissa. */
static int
digits(const char *t)
{
    int n = 0;
    bool lead = true; /* zeros before the first other digit do not count */
    for (const char *p = t; *p && *p != 'e'; p++) {
        if (*p < '0' || *p > '9')
            continue;
        if (*p != '0')
            lead = false;
        n += !lead;
    }
    return n;
}

static void
test_float_text(void **state)
{
    (void)state;
    expect_float(0.3f, "0.3"); /* %.9g: 0.300000012 */
    expect_float(0.1f, "0.1");
    expect_float(2.5f, "2.5");
    expect_float(-1.75f, "-1.75");
    expect_float(0.0f, "0");
    expect_float(-0.0f, "-0");
    expect_float(123456.7f, "123456.7");
    expect_float(16777216.0f, "16777216");
    expect_float(1e-5f, "1e-05");
    expect_float(FLT_MAX, "3.4028235e+38");
    expect_float(FLT_TRUE_MIN, "1e-45");
    expect_float(NAN, "nan");
    expect_float(INFINITY, "inf");
    expect_float(-INFINITY, "-inf");
    /* Any finite float: the text reads back as it, in no more room than
     * GC_FLOAT_TEXT, and with one significant digit fewer it would not. */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int shorter = 0, n = gc_test_quick() ? 50000 : 1000000; /* (valgrind) */
    for (int i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t bits = (uint32_t)(x >> 32);
        float v;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v))
            continue;
        char t[GC_FLOAT_TEXT], fewer[320];
        gc_float_text(t, v);
        assert_true(strlen(t) < GC_FLOAT_TEXT);
        if (strtof(t, NULL) != v)
            fail_msg("%a: '%s' reads back as %a", (double)v, t,
                     (double)strtof(t, NULL));
        int d = digits(t);
        if (d > 1) {
            snprintf(fewer, sizeof fewer, "%.*g", d - 1, (double)v);
            if (strtof(fewer, NULL) == v)
                fail_msg("%a: '%s', where '%s' reads back too", (double)v, t,
                         fewer);
        }
        shorter += d < 9;
    }
    /* (Most floats need all nine digits; a good share need fewer.) */
    assert_true(shorter > n / 10);
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * gc_hist against the sorted samples themselves: each quantile is the
 * upper bound of the sample at its rank's bucket, so no lower than that
 * sample and at most a bucket above it (1 us below 1,024 us, 1/64 of an
 * octave's start above; everything past 2^20 us reads as 2^20).  Merged
 * halves are the whole, the mean the samples' own.
 */
static void
test_hist(void **state)
{
    (void)state;
    enum { N = 20000 };
    static double v[N];
    gc_hist all = {0}, lo = {0}, hi = {0};
    assert_true(gc_hist_quantile(&all, 0.5) == 0.0);
    assert_true(gc_hist_mean(&all) == 0.0);
    uint64_t x = 88172645463325252ull;
    double sum = 0.0;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* Log-uniform from 0.5 us to 4 s, so every region is hit. */
        v[i] = 0.5 * pow(8e6, (double)(x >> 11) / 9007199254740992.0);
        gc_hist_add(&all, v[i]);
        gc_hist_add(i % 2 ? &hi : &lo, v[i]);
        sum += v[i];
    }
    gc_hist_merge(&lo, &hi);
    assert_memory_equal(lo.b, all.b, sizeof all.b);
    assert_int_equal(lo.n, N);
    /* (The sums are added in another order: equal to rounding.) */
    assert_true(fabs(lo.sum_us - all.sum_us) <= 1e-9 * all.sum_us);
    assert_true(fabs(gc_hist_mean(&all) - sum / N) <= 1e-9 * sum / N);
    qsort(v, N, sizeof v[0], cmp_double);
    static const double qs[] = {0.01, 0.1, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0};
    for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
        size_t rank = (size_t)ceil(qs[k] * N);
        double want = v[rank - 1], got = gc_hist_quantile(&all, qs[k]);
        double top = 1024.0 * 1024.0;
        if (want >= top) {
            assert_true(got == top);
            continue;
        }
        double room = want < 1024.0 ? 1.0 : want / 64.0 * 1.0001;
        if (!(got > want && got <= want + room))
            fail_msg("q %g: %g from the histogram, %g the sample", qs[k], got,
                     want);
    }
    gc_hist neg = {0};
    gc_hist_add(&neg, -5.0);
    assert_true(gc_hist_quantile(&neg, 1.0) == 1.0); /* [0, 1) us */
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),     cmocka_unit_test(test_clock),
        cmocka_unit_test(test_json_escape), cmocka_unit_test(test_json_error),
        cmocka_unit_test(test_float_text),  cmocka_unit_test(test_hist),
    };
    return cmocka_run_group_tests_name("api", tests, NULL, NULL);
}

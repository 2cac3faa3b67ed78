/*
 * quick.h: whether the tests run in their quick form.  GC_TEST_QUICK set
 * to anything but empty or "0" (CI's valgrind stage sets 1) asks each
 * long test for a smaller share of its cases; every assertion stays.
 */
#ifndef GRIDCROWD_TESTS_QUICK_H
#define GRIDCROWD_TESTS_QUICK_H

#include <stdbool.h>
#include <stdlib.h>

static inline bool
gc_test_quick(void)
{
    const char *q = getenv("GC_TEST_QUICK");
    return q != NULL && *q != '\0' && *q != '0';
}

#endif

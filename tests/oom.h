/*
 * oom.h: allocations that fail on demand, for the tests that build the
 * library into themselves and link with -Wl,--wrap=malloc, calloc,
 * realloc and aligned_alloc (test_astar_oom, test_sim_oom).  Set
 * fail_after to k >= 0 and the next k allocations succeed, then every
 * one fails until it is set to -1 again.  allocs counts every allocation
 * asked for, failed or not: what a call makes with memory to spare is the
 * number of failure points a test must see it survive.  Atomic: the sim's
 * workers allocate too.
 */
#ifndef GRIDCROWD_TESTS_OOM_H
#define GRIDCROWD_TESTS_OOM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t a, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t a, size_t n);

/* -1: allocations succeed; k >= 0: the next k succeed, then all fail. */
static atomic_long fail_after = -1;
/* Allocations asked for since the program started, failed or not. */
static atomic_long allocs;

static bool
refuse(void)
{
    atomic_fetch_add(&allocs, 1);
    long k = atomic_load(&fail_after);
    while (k > 0 && !atomic_compare_exchange_weak(&fail_after, &k, k - 1))
        ;
    return k == 0;
}

void *
__wrap_malloc(size_t n)
{
    return refuse() ? NULL : __real_malloc(n);
}

void *
__wrap_calloc(size_t n, size_t m)
{
    return refuse() ? NULL : __real_calloc(n, m);
}

void *
__wrap_realloc(void *p, size_t n)
{
    return refuse() ? NULL : __real_realloc(p, n);
}

void *
__wrap_aligned_alloc(size_t a, size_t n)
{
    return refuse() ? NULL : __real_aligned_alloc(a, n);
}

#endif /* GRIDCROWD_TESTS_OOM_H */

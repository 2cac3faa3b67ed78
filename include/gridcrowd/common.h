/*
 * gridcrowd/common.h: what every public header shares: C linkage and the
 * library's export rule, in one place.
 *
 * libgridcrowd is built with -fvisibility=hidden, so a function is exported
 * only when it is declared between GC_BEGIN_DECLS and GC_END_DECLS in a
 * public header:
 *
 *     #include <gridcrowd/common.h>
 *     GC_BEGIN_DECLS
 *     int gc_thing_new(gc_thing **out);
 *     GC_END_DECLS
 *
 * The pair opens `extern "C"` under C++ and pushes default visibility, so
 * no declaration needs a prefix and a new one in a public header cannot be
 * forgotten; anything else in the library (src/<module>_int.h, static
 * helpers) stays hidden.  Keep #include lines outside the pair: a system
 * header's declarations must keep their own visibility.  The export list is
 * checked against the headers by tests/api-symbols.test.
 */
#ifndef GRIDCROWD_COMMON_H
#define GRIDCROWD_COMMON_H

#if defined(__GNUC__) || defined(__clang__)
#define GC_VISIBILITY_PUSH_ _Pragma("GCC visibility push(default)")
#define GC_VISIBILITY_POP_ _Pragma("GCC visibility pop")
#else
#define GC_VISIBILITY_PUSH_
#define GC_VISIBILITY_POP_
#endif

#ifdef __cplusplus
#define GC_BEGIN_DECLS                                                         \
    extern "C" {                                                               \
    GC_VISIBILITY_PUSH_
#define GC_END_DECLS                                                           \
    GC_VISIBILITY_POP_                                                         \
    }
#else
#define GC_BEGIN_DECLS GC_VISIBILITY_PUSH_
#define GC_END_DECLS GC_VISIBILITY_POP_
#endif

#endif

/*
 * gridcrowd/util.h: small rules that the library and every program share,
 * written once: the monotonic clock, JSON strings, floats as text and a
 * histogram of times.
 */
#ifndef GRIDCROWD_UTIL_H
#define GRIDCROWD_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include <gridcrowd/common.h>
#include <gridcrowd/error.h>

GC_BEGIN_DECLS

/*
 * CLOCK_MONOTONIC in nanoseconds: for intervals and deadlines, never for the
 * date.  It is the clock the shared-memory objects hold times in (an edit's
 * claim time), so its readings compare across the processes of one machine.
 */
uint64_t gc_clock_ns(void);

/*
 * Write `s` (NUL-terminated, any bytes) to `f` as a JSON string, quotes
 * included, so that the output is always valid JSON (RFC 8259) in UTF-8:
 *   - '"' and '\\' are escaped; control characters too: \n \r \t, and
 *     \u00XX for the others and for DEL (0x7f);
 *   - well-formed UTF-8 is copied as it is;
 *   - each ill-formed part becomes U+FFFD (written "\ufffd"), one for every
 *     maximal subpart as Unicode (chapter 3, "U+FFFD Substitution of
 *     Maximal Subparts") and the WHATWG decoder define it: a byte that
 *     cannot start a sequence is one, and so is a valid start with the
 *     continuation bytes that do follow it when the sequence breaks off.
 * A JSON escape names a character, not a byte, so an invalid byte cannot
 * be escaped as itself: writing it as \u00XX would silently turn it into a
 * different, valid character.  Replacing it is lossy, but visibly so.
 * Returns GC_OK, or GC_EIO when the stream reports an error.
 */
int gc_json_escape(FILE *f, const char *s);

/* Room for any text gc_float_text writes, its NUL included. */
#define GC_FLOAT_TEXT 24

/*
 * The float v as decimal text in the fewest significant digits that read
 * back (strtof) as the same float: 0.3, not %.9g's 0.300000012; %g's
 * form, so an exponent when it is shorter (1e-05).  "nan", "inf" or
 * "-inf" when not finite (JSON writes null for those).  buf has room for
 * GC_FLOAT_TEXT bytes.  Returns buf.
 */
char *gc_float_text(char *buf, float v);

/*
 * A histogram of times in microseconds, for percentiles of many samples in
 * fixed memory: one bucket a microsecond below GC_HIST_LINEAR (1,024 us),
 * then GC_HIST_SUB buckets an octave up to 2^20 us (about 1 s), each less
 * than 1.6% of its values wide; the last holds everything slower.  Zero
 * one to start (= {0}); adding and merging are exact counts.
 */
#define GC_HIST_LINEAR 1024
#define GC_HIST_SUB 64
#define GC_HIST_OCTAVES 10
#define GC_HIST_BUCKETS (GC_HIST_LINEAR + GC_HIST_SUB * GC_HIST_OCTAVES + 1)

typedef struct gc_hist {
    uint32_t b[GC_HIST_BUCKETS];
    uint64_t n;
    double sum_us;
} gc_hist;

/* One sample of `us` microseconds (below 0 counts as 0). */
void gc_hist_add(gc_hist *h, double us);

/* Add from's samples to into's. */
void gc_hist_merge(gc_hist *into, const gc_hist *from);

/* The q-quantile (0 < q <= 1) as its bucket's upper bound, us; 0 for no
 * samples. */
double gc_hist_quantile(const gc_hist *h, double q);

/* The samples' mean, us (exact); 0 for none. */
double gc_hist_mean(const gc_hist *h);

GC_END_DECLS
#endif

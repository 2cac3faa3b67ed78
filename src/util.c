/*
 * util.c: the monotonic clock, JSON strings, floats as text and the time
 * histogram, once for the whole project.
 *
 * Both used to be copied into every program that needed them, and the two
 * JSON copies disagreed on invalid UTF-8 (one passed the bytes through and
 * wrote invalid JSON).  The UTF-8 rule is Unicode's table of well-formed
 * byte sequences (chapter 3, table 3-7): the second byte's range depends on
 * the first (which is how overlong forms, surrogates and code points past
 * U+10FFFF are refused), every later byte is 80..BF.
 */
#include "config.h"

#include <gridcrowd/util.h>

#include <math.h>
#include <stdlib.h>
#include <time.h>

uint64_t
gc_clock_ns(void)
{
    struct timespec ts;
    /* Cannot fail for CLOCK_MONOTONIC with a valid pointer (POSIX). */
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Length of the well-formed UTF-8 sequence that starts with lead byte `c`,
 * and the range of its second byte; 0 when `c` cannot start one.
 */
static int
utf8_lead(unsigned c, unsigned *lo, unsigned *hi)
{
    *lo = 0x80;
    *hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
        return 2;
    if (c == 0xe0)
        *lo = 0xa0; /* no overlong forms */
    else if (c == 0xed)
        *hi = 0x9f; /* no surrogates */
    if (c >= 0xe0 && c <= 0xef)
        return 3;
    if (c == 0xf0)
        *lo = 0x90; /* no overlong forms */
    else if (c == 0xf4)
        *hi = 0x8f; /* nothing past U+10FFFF */
    if (c >= 0xf0 && c <= 0xf4)
        return 4;
    return 0;
}

int
gc_json_escape(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc((int)c, f);
            p++;
        } else if (c < 0x20 || c == 0x7f) {
            if (c == '\n')
                fputs("\\n", f);
            else if (c == '\r')
                fputs("\\r", f);
            else if (c == '\t')
                fputs("\\t", f);
            else
                fprintf(f, "\\u%04x", c);
            p++;
        } else if (c < 0x80) {
            fputc((int)c, f);
            p++;
        } else {
            unsigned lo, hi;
            int len = utf8_lead(c, &lo, &hi), k = 1;
            /* k: bytes of the maximal subpart.  The terminating NUL is
             * never a continuation byte, so this stops at the end. */
            for (; k < len; k++) {
                unsigned b = p[k];
                if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf))
                    break;
            }
            if (len > 0 && k == len)
                fwrite(p, 1, (size_t)len, f);
            else
                fputs("\\ufffd", f);
            p += k;
        }
    }
    fputc('"', f);
    return ferror(f) ? GC_EIO : GC_OK;
}

char *
gc_float_text(char *buf, float v)
{
    /* Nine significant digits always read back as the same float (its
     * FLT_DECIMAL_DIG); fewer often do. */
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(buf, GC_FLOAT_TEXT, "%.*g", prec, (double)v);
        if (!isfinite(v) || strtof(buf, NULL) == v)
            break;
    }
    return buf;
}

/* ---- the time histogram (gridcrowd/util.h) ---- */

static unsigned
hist_bucket(double us)
{
    if (us < GC_HIST_LINEAR)
        return us < 0 ? 0 : (unsigned)us;
    int e;
    double m =
        frexp(us / GC_HIST_LINEAR, &e); /* us / 1024 = m * 2^e, m in [.5,1) */
    if (e > GC_HIST_OCTAVES)
        return GC_HIST_BUCKETS - 1;
    unsigned sub = (unsigned)((m - 0.5) * 2.0 * GC_HIST_SUB);
    return GC_HIST_LINEAR + (unsigned)(e - 1) * GC_HIST_SUB +
           (sub < GC_HIST_SUB ? sub : GC_HIST_SUB - 1);
}

static double
hist_upper(unsigned i)
{
    if (i < GC_HIST_LINEAR)
        return i + 1;
    if (i >= GC_HIST_BUCKETS - 1)
        return ldexp(GC_HIST_LINEAR, GC_HIST_OCTAVES);
    unsigned o = (i - GC_HIST_LINEAR) / GC_HIST_SUB,
             sub = (i - GC_HIST_LINEAR) % GC_HIST_SUB;
    return ldexp(GC_HIST_LINEAR, (int)o) * (1.0 + (sub + 1.0) / GC_HIST_SUB);
}

void
gc_hist_add(gc_hist *h, double us)
{
    h->b[hist_bucket(us)]++;
    h->n++;
    h->sum_us += us;
}

void
gc_hist_merge(gc_hist *into, const gc_hist *from)
{
    for (unsigned i = 0; i < GC_HIST_BUCKETS; i++)
        into->b[i] += from->b[i];
    into->n += from->n;
    into->sum_us += from->sum_us;
}

double
gc_hist_quantile(const gc_hist *h, double q)
{
    if (h->n == 0)
        return 0.0;
    uint64_t rank = (uint64_t)ceil(q * (double)h->n), seen = 0;
    for (unsigned i = 0; i < GC_HIST_BUCKETS; i++) {
        seen += h->b[i];
        if (seen >= rank)
            return hist_upper(i);
    }
    return hist_upper(GC_HIST_BUCKETS - 1);
}

double
gc_hist_mean(const gc_hist *h)
{
    return h->n ? h->sum_us / (double)h->n : 0.0;
}

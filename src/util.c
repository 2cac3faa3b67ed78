/*
 * util.c: the monotonic clock, JSON strings and floats as text, once for
 * the whole project.
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

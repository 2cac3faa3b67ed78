/*
 * prog.c: the programs' message line, `program: what: why` (see prog.h).
 *
 * The line is formatted into a buffer and written with one fputs on an
 * unbuffered stderr, so two writers sharing stderr never cut into each
 * other's lines (the daemon's host reports from the simulation thread while
 * main may warn).  A message longer than the buffer is cut, with "..." at
 * its end: a message is a line for a person, never data.
 */
#include "config.h"

#include "prog.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Written once by prog_init before any thread starts; read-only after. */
static const char *name = "gridcrowd";

#define LINE_MAX_BYTES 8192 /* a PATH_MAX path and its message */

void
prog_init(const char *n)
{
    name = n;
}

const char *
prog_name(void)
{
    return name;
}

/* s[0 .. len) into out[size], `spare` bytes of it left over, with each
 * control byte (and, unless `high`, each byte past 0x7e) as \xNN; it stops
 * before a byte that would not fit.  Sets *m to the bytes written and
 * returns how many of s it took.  (emit's line and prog_escape.) */
static size_t
escape(char *out, size_t size, size_t spare, const char *s, size_t len,
       bool high, size_t *m)
{
    size_t i = 0, n = 0;
    for (; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        bool plain = c >= 0x20 && c != 0x7f && (high || c < 0x7f);
        if (n + (plain ? 1 : 4) + spare > size)
            break;
        if (plain)
            out[n++] = (char)c;
        else
            n += (size_t)snprintf(out + n, size - n, "\\x%02x", c);
    }
    *m = n;
    return i;
}

/* Format "NAME: [WHAT: ]FMT[TAIL]\n" into buf and write it. */
static void emit(const char *what, const char *tail, const char *fmt,
                 va_list ap) PROG_PRINTF(3, 0);

static void
emit(const char *what, const char *tail, const char *fmt, va_list ap)
{
    char buf[LINE_MAX_BYTES];
    size_t n = 0;
    int k;

    if (what != NULL && what[0] != '\0')
        k = snprintf(buf, sizeof buf, "%s: %s: ", name, what);
    else
        k = snprintf(buf, sizeof buf, "%s: ", name);
    if (k > 0)
        n = (size_t)k < sizeof buf ? (size_t)k : sizeof buf - 1;
    k = vsnprintf(buf + n, sizeof buf - n, fmt, ap);
    if (k > 0)
        n += (size_t)k < sizeof buf - n ? (size_t)k : sizeof buf - n - 1;
    if (tail != NULL) {
        k = snprintf(buf + n, sizeof buf - n, "%s", tail);
        if (k > 0)
            n += (size_t)k < sizeof buf - n ? (size_t)k : sizeof buf - n - 1;
    }
    /* One line whatever text it quotes (a newline in an argument, a
     * damaged file's bytes): control bytes as \xNN, UTF-8 as it is. */
    char line[LINE_MAX_BYTES];
    size_t m;
    bool cut = n > sizeof buf - 2;
    /* Room for the newline: cut the message, and say so, when it is full. */
    if (escape(line, sizeof line, 2, buf, n, true, &m) < n || cut) {
        memcpy(line + (m >= 3 ? m - 3 : 0), "...", 3);
        m = m >= 3 ? m : 3;
    }
    line[m++] = '\n';
    line[m] = '\0';
    fflush(stdout);
    fputs(line, stderr);
}

void
prog_vmsg(const char *what, const char *fmt, va_list ap)
{
    emit(what, NULL, fmt, ap);
}

void
prog_msg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(NULL, NULL, fmt, ap);
    va_end(ap);
}

void
prog_say(const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(what, NULL, fmt, ap);
    va_end(ap);
}

int
prog_fail(int code, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit(what, NULL, fmt, ap);
    va_end(ap);
    return code;
}

int
prog_fail_err(int code, int rc, const gc_error *err, const char *what)
{
    if (err != NULL && err->msg[0] != '\0')
        return prog_fail(code, NULL, "%s", err->msg);
    return prog_fail(code, what, "%s", gc_strerror(rc));
}

const char *
prog_s(unsigned long long n)
{
    return n == 1 ? "" : "s";
}

int
prog_usage(int code, const char *fmt, ...)
{
    char tail[128];
    va_list ap;
    snprintf(tail, sizeof tail, " (see %s --help)", name);
    va_start(ap, fmt);
    emit(NULL, tail, fmt, ap);
    va_end(ap);
    return code;
}

/* Whether "--WORD" (its first len bytes; getopt takes an abbreviation)
 * names a long option without a value whose val is `val`. */
static bool
names_flag(const struct option *longs, const char *word, size_t len, int val)
{
    for (const struct option *o = longs; o != NULL && o->name != NULL; o++)
        if (o->has_arg == no_argument && o->val == val &&
            strncmp(o->name, word, len) == 0)
            return true;
    return false;
}

int
prog_bad_option(int code, int c, char **argv, const struct option *longs)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    if (c == ':')
        return prog_usage(code, "%s needs a value", arg);
    /* A flag given a value ("--help=x"): getopt has passed the word and
     * set optopt to the flag's val. */
    const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    if (eq != NULL &&
        names_flag(longs, arg + 2, (size_t)(eq - arg - 2), optopt))
        return prog_usage(code, "%.*s takes no value", (int)(eq - arg), arg);
    /* An unknown short option: optopt is its letter, named alone.  The
     * word is not argv[optind - 1] when letters follow it ("-xh": getopt
     * has not left it, and the word before may be "--size=400"). */
    if (optopt != 0)
        return prog_usage(code, "unknown option '-%c'", optopt);
    /* An unknown long option, whose word getopt has just passed. */
    return prog_usage(code, "unknown option '%s'", arg);
}

bool
prog_number(const char *opt, const char *s, double lo, double hi, bool whole,
            double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!prog_decimal(s) || end == s || *end != '\0' || errno == ERANGE ||
        !isfinite(v) || !(v >= lo && v <= hi) || (whole && v != floor(v))) {
        /* Whole bounds in full ("9007199254740992", not "9.0e+15"). */
        if (whole)
            prog_usage(2, "%s: '%s' is not a whole number from %.0f to %.0f",
                       opt, s, lo, hi);
        else
            prog_usage(2, "%s: '%s' is not a number from %.10g to %.10g", opt,
                       s, lo, hi);
        return false;
    }
    *out = v;
    return true;
}

bool
prog_decimal(const char *s)
{
    const char *d = s + (s[0] == '-' || s[0] == '+');
    return strpbrk(s, "xX") == NULL &&
           ((d[0] >= '0' && d[0] <= '9') || d[0] == '.');
}

bool
prog_count(const char *s, unsigned long long max, unsigned long long *out)
{
    if (!(s[0] >= '0' && s[0] <= '9'))
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > max)
        return false;
    *out = v;
    return true;
}

void
prog_escape(char *out, size_t size, const char *s)
{
    size_t n;
    if (size == 0)
        return;
    escape(out, size, 1, s, strlen(s), false, &n);
    out[n] = '\0';
}

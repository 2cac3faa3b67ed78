/*
 * prog.h: how gridcrowd's programs speak to their user.
 *
 * Every program (gridcrowdd, gridcrowd-ctl, gridcrowd-bench, gridcrowd-view)
 * reports a problem as one line on stderr, `program: what: why`, and then
 * exits with a code it documents.  This is the one implementation of that
 * line.  It is program-side, not part of libgridcrowd: the library never
 * prints (it returns a code and fills a gc_error), so it is built as a
 * convenience library (libgcprog.la) that only the programs link.  Names
 * start with prog_, not gc_, for the same reason.
 */
#ifndef GRIDCROWD_PROG_H
#define GRIDCROWD_PROG_H

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>

#include <gridcrowd/error.h>

#if defined(__GNUC__)
#define PROG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PROG_PRINTF(f, a)
#endif

/*
 * Name the program for every message that follows; call it first in main.
 * `name` must outlive the program (a string literal).  Until it is called,
 * messages begin with "gridcrowd".
 */
void prog_init(const char *name);

/* The name given to prog_init. */
const char *prog_name(void);

/*
 * Write "NAME: WHAT: MESSAGE\n" to stderr, WHAT and its ": " only when it is
 * neither NULL nor empty.  stdout is flushed first, so that when both go to
 * one terminal or file the message stands after the output it follows.
 * The whole line goes out in one write, so that messages from two threads
 * or two processes sharing stderr do not interleave inside a line.
 */
void prog_vmsg(const char *what, const char *fmt, va_list ap) PROG_PRINTF(2, 0);

/* prog_vmsg with no WHAT: "NAME: MESSAGE\n". */
void prog_msg(const char *fmt, ...) PROG_PRINTF(1, 2);

/* prog_vmsg with a WHAT: "NAME: WHAT: MESSAGE\n". */
void prog_say(const char *what, const char *fmt, ...) PROG_PRINTF(2, 3);

/* prog_vmsg, then return `code` (an exit code): `return prog_fail(...)`. */
int prog_fail(int code, const char *what, const char *fmt, ...)
    PROG_PRINTF(3, 4);

/*
 * A library call failed with `rc`: print err->msg when the call filled the
 * gc_error (it names the file, line and column itself), else
 * "WHAT: gc_strerror(rc)"; return `code`.  `err` may be NULL.
 */
int prog_fail_err(int code, int rc, const gc_error *err, const char *what);

/* "s" unless n is 1, for a count in a line: "%llu agent%s", n, prog_s(n). */
const char *prog_s(unsigned long long n);

/* A bad command line: "NAME: MESSAGE (see NAME --help)"; returns `code`. */
int prog_usage(int code, const char *fmt, ...) PROG_PRINTF(2, 3);

/*
 * getopt_long returned ':' (an option without its value) or '?' (an
 * unknown option): say so in one prog_usage line naming the option as
 * typed, not getopt's two lines, and return `code`.  For it, set opterr to
 * 0 and start the option string with ':' (after a '+' if any).  `longs`
 * is the table given to getopt_long (for "--help=x": --help takes no
 * value).
 */
int prog_bad_option(int code, int c, char **argv, const struct option *longs);

/*
 * The number option `opt` ("--agents") was given as `s`: true with it in
 * *out when all of `s` is a finite number from lo to hi (and a whole one
 * when `whole`), else false after one prog_usage line naming the option,
 * the text and the range ("5x" is not 5).  Decimal only: no leading
 * blanks, no hex ("0x10"), no inf or nan.  Whole numbers are exact up to
 * 2^53: keep `hi` below that.
 */
bool prog_number(const char *opt, const char *s, double lo, double hi,
                 bool whole, double *out);

/* Whether s is written as a decimal number, as far as its start shows: a
 * sign at most, then a digit or '.', and no hex anywhere ("0x10", "0x1p3").
 * strtod alone would also skip leading blanks and take hex. */
bool prog_decimal(const char *s);

/* s as a count: digits only (no sign, no blanks), at most max, into *out;
 * false when it is not.  strtoull alone would skip blanks and take "-1"
 * as its unsigned wrap. */
bool prog_count(const char *s, unsigned long long max, unsigned long long *out);

/*
 * Copy `s` into out[size] (terminated, cut short to fit) with every byte
 * that is not printable ASCII shown as \xNN, so that text from a file (an
 * SQLite error quoting a damaged schema) stays one printable line.
 */
void prog_escape(char *out, size_t size, const char *s);

#endif

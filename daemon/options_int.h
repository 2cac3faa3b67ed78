/*
 * options_int.h: what options.c and options-parse.c share: the parsers
 * of option values (options-parse.c).
 */
#ifndef GRIDCROWD_OPTIONS_INT_H
#define GRIDCROWD_OPTIONS_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon.h"

/* A whole number from min to max, the whole string (opt names the option
 * in the message). */
bool opt_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
                   uint64_t *out);
/* A finite number from min to max, the whole string. */
bool opt_parse_num(const char *opt, const char *s, double min, double max,
                   double *out);

/* The options with parsers of their own: each sets its field of *o. */
bool opt_parse_goals(options *o, const char *s);
bool opt_parse_group(options *o, const char *s);
bool opt_parse_cost(options *o, const char *s);
bool opt_parse_shm_mode(options *o, const char *s);
bool opt_parse_diag(options *o, const char *s);
bool opt_parse_avoid(options *o, const char *s);

#endif

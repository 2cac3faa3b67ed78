/*
 * default_map.h: the demo map built into gridcrowdd, so that the daemon
 * runs anywhere with no files.  default_map.c is generated at build time
 * from maps/demo.map (see Makefile.am); never edit it by hand.
 */
#ifndef GRIDCROWD_DEFAULT_MAP_H
#define GRIDCROWD_DEFAULT_MAP_H

#include <stddef.h>

/* The file's bytes (NUL-terminated; the terminator is not counted). */
extern const char gc_default_map[];
extern const size_t gc_default_map_len;
/* Name used in messages: "maps/demo.map (built in)". */
extern const char gc_default_map_name[];

#endif

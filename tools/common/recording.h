/*
 * recording.h: what a recording (JuPedSim's trajectory format, as the
 * daemon writes it) may hold, for the programs that read one
 * (gridcrowd-report, gridcrowd-view --replay): beyond these it is damaged,
 * and both refuse it in one line.
 */
#ifndef GC_TOOLS_RECORDING_H
#define GC_TOOLS_RECORDING_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* Frame numbers, 0 to 2^53: exact as doubles, which the readers' clocks
 * and figures subtract and scale. */
#define REC_MAX_FRAME (INT64_C(1) << 53)

/* Coordinates within 1e12 world units of the origin (the largest map,
 * 65,536 cells of 1e6 units, reaches 6.6e10). */
#define REC_MAX_COORD 1e12

/* Whether bounds (x0, y0) to (x1, y1) lie within REC_MAX_COORD (false for
 * a NaN). */
static inline bool
rec_bounds_ok(double x0, double y0, double x1, double y1)
{
    return fabs(x0) <= REC_MAX_COORD && fabs(x1) <= REC_MAX_COORD &&
           fabs(y0) <= REC_MAX_COORD && fabs(y1) <= REC_MAX_COORD;
}

#endif

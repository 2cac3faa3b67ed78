/*
 * record_int.h: the recorder's test hooks (not exported; tests link
 * libgridcrowd_core.la).
 */
#ifndef GRIDCROWD_RECORD_INT_H
#define GRIDCROWD_RECORD_INT_H

#include <stdbool.h>

#include <gridcrowd/record.h>

/*
 * Stall the writer thread (true) or let it go on (false): while stalled it
 * takes no frame and no edit from the buffer, so a test can fill the
 * buffer and watch real-time mode drop frames.  gc_recorder_close lifts the
 * stall.  Any thread.
 */
void gc_recorder_test_stall(gc_recorder *r, bool stall);

#endif

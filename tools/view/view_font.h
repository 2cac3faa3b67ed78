/*
 * view_font.h: the viewer's overlay font, a fixed-width bitmap of printable
 * ASCII (see view_font.c), so that drawing text needs nothing beyond SDL2.
 */
#ifndef GRIDCROWD_VIEW_FONT_H
#define GRIDCROWD_VIEW_FONT_H

#define VIEW_FONT_W 6
#define VIEW_FONT_H 13
#define VIEW_FONT_FIRST 32 /* ' ' */
#define VIEW_FONT_COUNT 95 /* ' ' .. '~' */

/* Row r of character c (FIRST <= c < FIRST + COUNT): bit 7 is the leftmost
 * of the VIEW_FONT_W pixels. */
extern const unsigned char view_font_glyphs[VIEW_FONT_COUNT][VIEW_FONT_H];

#endif

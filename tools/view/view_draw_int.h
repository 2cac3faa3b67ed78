/*
 * view_draw_int.h: what the three files of the drawer share (view_draw.c:
 * the cell layer and the frame; view_agents.c: paths and agents, as
 * batches of triangles; view_overlay.c: the text overlay, the help and the
 * "waiting for daemon" screen).  The rest of the viewer sees only the
 * drawer's functions in view.h.
 */
#ifndef GRIDCROWD_VIEW_DRAW_INT_H
#define GRIDCROWD_VIEW_DRAW_INT_H

#include "view.h"

#define MAX_SEGS 48 /* most segments of a drawn circle */

struct view_draw {
    SDL_Renderer *r;
    int tile; /* cells per tile side */
    SDL_Texture **tiles;
    int ntx, nty;
    int32_t lw, lh;     /* layer size in cells; 0: none yet */
    uint32_t *pix;      /* lw * lh ARGB8888 */
    uint8_t *kind;      /* lw * lh trace kinds, when a trace is shown */
    bool layer_trace;   /* the layer shows a trace */
    uint64_t layer_seq; /* ... this one */
    SDL_Texture *font;

    SDL_Vertex *v; /* the triangle batch */
    int nv, capv;
    int *ix;
    int ni, capi;
    float ucos[MAX_SEGS + 1], usin[MAX_SEGS + 1];
    int useg; /* segments the unit circle is computed for */

    SDL_Texture *sprites; /* agent sprites for radius sprite_r, or NULL */
    float sprite_r;
    int sprite_size; /* pixels per side of one sprite */
};

/* Near black: the selected agent's ring and path, the heading needle's
 * neighbour in the palette. */
static const SDL_Color view_ink = {0x10, 0x10, 0x10, 0xff};

static inline SDL_Color
view_rgb(const uint8_t c[3], uint8_t a)
{
    return (SDL_Color){c[0], c[1], c[2], a};
}

/* Whether the trace in the copy belongs to the selected agent and is on
 * (view_draw.c). */
bool view_trace_visible(const view_state *s);

/* Layer 4, paths, and layer 5, agents (view_agents.c); `sel` is the
 * selected agent's index in the copy, or -1.  0, or -1 when SDL failed. */
int view_draw_paths(view_draw *d, const view_state *s, long sel);
int view_draw_agents(view_draw *d, const view_state *s, long sel);

/* Layer 6 (view_overlay.c): the font texture (NULL when SDL fails), the
 * overlay text and help, and the screen shown while detached. */
SDL_Texture *view_font_texture(SDL_Renderer *r);
void view_draw_overlay(view_draw *d, const view_state *s, long sel);
void view_draw_waiting(view_draw *d, const view_state *s);

#endif

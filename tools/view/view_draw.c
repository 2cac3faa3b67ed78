/*
 * view_draw.c: drawing the viewer's copy of the world into an SDL_Renderer:
 * the cell layer and the frame (paths and agents are view_agents.c's, the
 * text view_overlay.c's).
 *
 * Layers, bottom to top:
 *   1. the cell layer: one texel per cell (the trace of the selected agent
 *      composited in when shown), in textures of at most TILE x TILE cells
 *      so that any map fits the renderer's texture limit.  It is rebuilt only
 *      when the grid generation, the trace or the trace switch changes, and
 *      each frame only its visible part is scaled onto the window (nearest
 *      neighbour, so cells stay crisp);
 *   2. faint grid lines once cells are big enough to tell apart;
 *   3. cells this viewer painted that the daemon has not applied yet;
 *   4. paths (every agent's with `p`, the selected agent's always: its
 *      whole path once the daemon has published it for the viewer's
 *      request, until then the 8 waypoints of its record);
 *   5. agents: discs coloured by state with a dark heading needle, all in
 *      one SDL_RenderGeometry call, so that 10,000 agents cost one batch of
 *      triangles rather than 10,000 draw calls (and nothing is drawn for an
 *      agent outside the window);
 *   6. the overlay text (built-in bitmap font), the help and the "waiting
 *      for daemon" screen.
 *
 * The palette (RGB):
 *   cells    walkable e6e6e1 light grey, obstacle 7f1d1d dark red,
 *            high-cost e9c83b yellow, low-cost 84c26e green
 *   trace    open 00ffff cyan, closed 008b8b dark cyan, path 00ff00 green
 *   agents   idle 9e9e9e grey, waiting ffa000 amber, moving 1e66f5 blue,
 *            arrived 8839ef violet, stuck e4147c magenta, unreachable
 *            7f4f24 brown; heading needle 141414 near black
 *   selected a black ring round the agent, its path in near black
 */
#include "config.h"

#include "view_draw_int.h"
#include "view_replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const uint8_t view_cell_rgb[GC_CELL_NTYPES][3] = {
    [GC_CELL_WALKABLE] = {0xe6, 0xe6, 0xe1},
    [GC_CELL_OBSTACLE] = {0x7f, 0x1d, 0x1d},
    [GC_CELL_HIGH] = {0xe9, 0xc8, 0x3b},
    [GC_CELL_LOW] = {0x84, 0xc2, 0x6e},
};

const uint8_t view_agent_rgb[GC_AGENT_NSTATES][3] = {
    [GC_AGENT_IDLE] = {0x9e, 0x9e, 0x9e},
    [GC_AGENT_WAITING] = {0xff, 0xa0, 0x00},
    [GC_AGENT_MOVING] = {0x1e, 0x66, 0xf5},
    [GC_AGENT_ARRIVED] = {0x88, 0x39, 0xef},
    [GC_AGENT_STUCK] = {0xe4, 0x14, 0x7c},
    [GC_AGENT_UNREACHABLE] = {0x7f, 0x4f, 0x24},
};

const uint8_t view_trace_rgb[4][3] = {
    [GC_TRACE_OPEN] = {0x00, 0xff, 0xff},
    [GC_TRACE_CLOSE] = {0x00, 0x8b, 0x8b},
    [GC_TRACE_PATH] = {0x00, 0xff, 0x00},
};

const uint8_t view_heading_rgb[3] = {0x14, 0x14, 0x14};

static const SDL_Color background = {0x1e, 0x22, 0x27, 0xff};
static const SDL_Color unknown_cell = {0xff, 0x00, 0xff, 0xff};

#define TILE 2048

static uint32_t
argb(const uint8_t c[3])
{
    return 0xff000000u | (uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | c[2];
}

/* ---- Setup ----------------------------------------------------------------
 */

view_draw *
view_draw_new(SDL_Renderer *r)
{
    view_draw *d = calloc(1, sizeof *d);
    if (d == NULL) {
        SDL_OutOfMemory();
        return NULL;
    }
    d->r = r;
    SDL_RendererInfo info;
    d->tile = TILE;
    if (SDL_GetRendererInfo(r, &info) == 0) {
        /* 0 means no limit (the software renderer). */
        if (info.max_texture_width > 0 && info.max_texture_width < d->tile)
            d->tile = info.max_texture_width;
        if (info.max_texture_height > 0 && info.max_texture_height < d->tile)
            d->tile = info.max_texture_height;
    }
    if ((d->font = view_font_texture(r)) == NULL) {
        free(d);
        return NULL;
    }
    return d;
}

static void
free_tiles(view_draw *d)
{
    for (int i = 0; i < d->ntx * d->nty; i++)
        if (d->tiles[i] != NULL)
            SDL_DestroyTexture(d->tiles[i]);
    free(d->tiles);
    d->tiles = NULL;
    d->ntx = d->nty = 0;
}

void
view_draw_free(view_draw *d)
{
    if (d == NULL)
        return;
    free_tiles(d);
    if (d->font != NULL)
        SDL_DestroyTexture(d->font);
    if (d->sprites != NULL)
        SDL_DestroyTexture(d->sprites);
    free(d->pix);
    free(d->kind);
    free(d->v);
    free(d->ix);
    free(d);
}
/* ---- The cell layer --------------------------------------------------------
 */

static int
layer_resize(view_draw *d, int32_t w, int32_t h)
{
    free_tiles(d);
    free(d->pix);
    free(d->kind);
    d->kind = NULL;
    d->lw = d->lh = 0;
    if ((d->pix = malloc((size_t)w * (size_t)h * sizeof *d->pix)) == NULL)
        return SDL_OutOfMemory();
    d->ntx = (w + d->tile - 1) / d->tile;
    d->nty = (h + d->tile - 1) / d->tile;
    if ((d->tiles = calloc((size_t)(d->ntx * d->nty), sizeof *d->tiles)) ==
        NULL)
        return SDL_OutOfMemory();
    for (int ty = 0; ty < d->nty; ty++)
        for (int tx = 0; tx < d->ntx; tx++) {
            int tw = w - tx * d->tile < d->tile ? w - tx * d->tile : d->tile;
            int th = h - ty * d->tile < d->tile ? h - ty * d->tile : d->tile;
            SDL_Texture *t =
                SDL_CreateTexture(d->r, SDL_PIXELFORMAT_ARGB8888,
                                  SDL_TEXTUREACCESS_STATIC, tw, th);
            if (t == NULL)
                return -1;
            SDL_SetTextureScaleMode(t, SDL_ScaleModeNearest);
            d->tiles[ty * d->ntx + tx] = t;
        }
    d->lw = w;
    d->lh = h;
    return 0;
}

/* Whether the trace in the copy belongs to the selected agent and is on. */
bool
view_trace_visible(const view_state *s)
{
    const gc_world_trace_info *ti = &s->conn.trace_info;
    return s->show_trace && s->sel != GC_WORLD_NO_AGENT && ti->seq > 0 &&
           ti->agent == s->sel && ti->salt == s->sel_gen;
}

static int
layer_update(view_draw *d, view_state *s)
{
    view_conn *c = &s->conn;
    bool tv = view_trace_visible(s);
    bool resized = c->width != d->lw || c->height != d->lh;
    if (!resized && !c->cells_changed && tv == d->layer_trace &&
        (!tv || c->trace_info.seq == d->layer_seq))
        return 0;
    if (resized && layer_resize(d, c->width, c->height) != 0)
        return -1;
    size_t n = (size_t)d->lw * (size_t)d->lh;
    uint32_t pal[256];
    for (int i = 0; i < 256; i++)
        pal[i] = i < GC_CELL_NTYPES
                     ? argb(view_cell_rgb[i])
                     : argb((const uint8_t[3]){unknown_cell.r, unknown_cell.g,
                                               unknown_cell.b});
    for (size_t i = 0; i < n; i++)
        d->pix[i] = pal[c->cells[i]];
    if (tv) {
        if (d->kind == NULL && (d->kind = malloc(n)) == NULL)
            return SDL_OutOfMemory();
        memset(d->kind, 0, n);
        /* A cell opened, then closed, then on the path shows the last. */
        for (size_t i = 0; i < c->trace_info.count; i++) {
            uint32_t cell = c->trace[i].cell;
            uint8_t k = c->trace[i].kind;
            if (cell < n && k >= GC_TRACE_OPEN && k <= GC_TRACE_PATH &&
                d->kind[cell] < k)
                d->kind[cell] = k;
        }
        for (size_t i = 0; i < n; i++)
            if (d->kind[i] != 0)
                d->pix[i] = argb(view_trace_rgb[d->kind[i]]);
    }
    for (int ty = 0; ty < d->nty; ty++)
        for (int tx = 0; tx < d->ntx; tx++) {
            const uint32_t *p = d->pix +
                                (size_t)ty * (size_t)d->tile * (size_t)d->lw +
                                (size_t)tx * (size_t)d->tile;
            if (SDL_UpdateTexture(d->tiles[ty * d->ntx + tx], NULL, p,
                                  d->lw * (int)sizeof *p) != 0)
                return -1;
        }
    c->cells_changed = false;
    c->trace_changed = false;
    d->layer_trace = tv;
    d->layer_seq = c->trace_info.seq;
    return 0;
}

/* The cells [x0, x1) x [y0, y1) the window shows. */
static void
visible_cells(const view_state *s, int32_t w, int32_t h, int32_t *x0,
              int32_t *y0, int32_t *x1, int32_t *y1)
{
    const view_camera *k = &s->cam;
    double a = floor(-k->ox / k->zoom), b = ceil((s->win_w - k->ox) / k->zoom);
    double c = floor(-k->oy / k->zoom), e = ceil((s->win_h - k->oy) / k->zoom);
    *x0 = a < 0 ? 0 : a > w ? w : (int32_t)a;
    *x1 = b < 0 ? 0 : b > w ? w : (int32_t)b;
    *y0 = c < 0 ? 0 : c > h ? h : (int32_t)c;
    *y1 = e < 0 ? 0 : e > h ? h : (int32_t)e;
}

static int
draw_layer(view_draw *d, const view_state *s)
{
    const view_camera *k = &s->cam;
    int32_t vx0, vy0, vx1, vy1;
    visible_cells(s, d->lw, d->lh, &vx0, &vy0, &vx1, &vy1);
    for (int ty = 0; ty < d->nty; ty++)
        for (int tx = 0; tx < d->ntx; tx++) {
            int32_t x0 = tx * d->tile, y0 = ty * d->tile;
            int32_t x1 = x0 + d->tile > d->lw ? d->lw : x0 + d->tile;
            int32_t y1 = y0 + d->tile > d->lh ? d->lh : y0 + d->tile;
            x0 = x0 < vx0 ? vx0 : x0;
            y0 = y0 < vy0 ? vy0 : y0;
            x1 = x1 > vx1 ? vx1 : x1;
            y1 = y1 > vy1 ? vy1 : y1;
            if (x0 >= x1 || y0 >= y1)
                continue;
            SDL_Rect src = {x0 - tx * d->tile, y0 - ty * d->tile, x1 - x0,
                            y1 - y0};
            SDL_FRect dst = {
                (float)(k->ox + x0 * k->zoom), (float)(k->oy + y0 * k->zoom),
                (float)((x1 - x0) * k->zoom), (float)((y1 - y0) * k->zoom)};
            if (SDL_RenderCopyF(d->r, d->tiles[ty * d->ntx + tx], &src, &dst) !=
                0)
                return -1;
        }
    return 0;
}

static int
draw_grid_lines(view_draw *d, const view_state *s)
{
    const view_camera *k = &s->cam;
    if (k->zoom < 10)
        return 0;
    int32_t x0, y0, x1, y1;
    visible_cells(s, d->lw, d->lh, &x0, &y0, &x1, &y1);
    float top = (float)(k->oy + y0 * k->zoom),
          bot = (float)(k->oy + y1 * k->zoom);
    float lft = (float)(k->ox + x0 * k->zoom),
          rgt = (float)(k->ox + x1 * k->zoom);
    SDL_SetRenderDrawBlendMode(d->r, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(d->r, 0, 0, 0, 24);
    for (int32_t x = x0; x <= x1; x++) {
        float px = (float)(k->ox + x * k->zoom);
        SDL_RenderDrawLineF(d->r, px, top, px, bot);
    }
    for (int32_t y = y0; y <= y1; y++) {
        float py = (float)(k->oy + y * k->zoom);
        SDL_RenderDrawLineF(d->r, lft, py, rgt, py);
    }
    return 0;
}

static void
draw_paint(view_draw *d, const view_state *s)
{
    const view_camera *k = &s->cam;
    SDL_SetRenderDrawBlendMode(d->r, SDL_BLENDMODE_BLEND);
    for (size_t i = 0; i < s->npaint; i++) {
        const view_paint *p = &s->paint[i];
        const uint8_t *c = view_cell_rgb[p->type];
        SDL_SetRenderDrawColor(d->r, c[0], c[1], c[2], 190);
        SDL_FRect f = {(float)(k->ox + p->x * k->zoom),
                       (float)(k->oy + p->y * k->zoom), (float)k->zoom,
                       (float)k->zoom};
        if (f.w < 1)
            f.w = f.h = 1;
        SDL_RenderFillRectF(d->r, &f);
    }
}

/* ---- The frame -------------------------------------------------------------
 */

int
view_draw_frame(view_draw *d, view_state *s)
{
    SDL_SetRenderDrawBlendMode(d->r, SDL_BLENDMODE_NONE);
    SDL_SetRenderDrawColor(d->r, background.r, background.g, background.b,
                           0xff);
    if (SDL_RenderClear(d->r) != 0)
        return -1;
    if (s->conn.width > 0 && s->conn.cells != NULL &&
        (s->conn.cells_valid || d->lw > 0)) {
        if (s->conn.cells_valid && layer_update(d, s) != 0)
            return -1;
        if (draw_layer(d, s) != 0 || draw_grid_lines(d, s) != 0)
            return -1;
        draw_paint(d, s);
    }
    long sel =
        s->sel == GC_WORLD_NO_AGENT ? -1 : view_conn_find(&s->conn, s->sel);
    if (sel >= 0 && s->conn.agents[sel].salt != s->sel_gen)
        sel = -1;
    if (view_draw_paths(d, s, sel) != 0 ||
        (s->replay != NULL && view_replay_draw_track(d, s) != 0) ||
        view_draw_agents(d, s, sel) != 0)
        return -1;
    view_draw_overlay(d, s, sel);
    if (s->replay != NULL)
        view_replay_draw_bar(d, s);
    else if (s->conn.w == NULL)
        view_draw_waiting(d, s);
    return 0;
}

/*
 * view_draw.c: drawing the viewer's copy of the world into an SDL_Renderer.
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
 *   4. paths (every agent's with `p`, the selected agent's always);
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

#include "view.h"
#include "view_font.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
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
static const SDL_Color ink = {0x10, 0x10, 0x10, 0xff};

#define TILE 2048
#define MAX_SEGS 48
/* Agent sprites: one per heading step, SPRITE_COLS to a row of the atlas;
 * above SPRITE_MAX_R pixels agents are drawn as exact triangles instead. */
#define HEADINGS 32
#define SPRITE_COLS 8
#define SPRITE_MAX_R 40.0f
#define LINE 512 /* longest overlay line, bytes */

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

static SDL_Color
rgb(const uint8_t c[3], uint8_t a)
{
    return (SDL_Color){c[0], c[1], c[2], a};
}

static uint32_t
argb(const uint8_t c[3])
{
    return 0xff000000u | (uint32_t)c[0] << 16 | (uint32_t)c[1] << 8 | c[2];
}

/* ---- Setup ----------------------------------------------------------------
 */

static SDL_Texture *
make_font(SDL_Renderer *r)
{
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(
        0, VIEW_FONT_W * VIEW_FONT_COUNT, VIEW_FONT_H, 32,
        SDL_PIXELFORMAT_ARGB8888);
    if (s == NULL)
        return NULL;
    for (int c = 0; c < VIEW_FONT_COUNT; c++)
        for (int y = 0; y < VIEW_FONT_H; y++) {
            uint32_t *row =
                (uint32_t *)(void *)((uint8_t *)s->pixels + y * s->pitch);
            for (int x = 0; x < VIEW_FONT_W; x++)
                row[c * VIEW_FONT_W + x] =
                    view_font_glyphs[c][y] & (0x80 >> x) ? 0xffffffffu : 0;
        }
    SDL_Texture *t = SDL_CreateTextureFromSurface(r, s);
    SDL_FreeSurface(s);
    if (t != NULL)
        SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND);
    return t;
}

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
    if ((d->font = make_font(r)) == NULL) {
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
static bool
trace_visible(const view_state *s)
{
    const gc_world_trace_info *ti = &s->conn.trace_info;
    return s->show_trace && s->sel != GC_WORLD_NO_AGENT && ti->seq > 0 &&
           ti->agent == s->sel && ti->salt == s->sel_gen;
}

static int
layer_update(view_draw *d, view_state *s)
{
    view_conn *c = &s->conn;
    bool tv = trace_visible(s);
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

/* ---- The triangle batch ----------------------------------------------------
 */

static bool
reserve(view_draw *d, int nv, int ni)
{
    if (d->nv + nv > d->capv) {
        int cap = d->capv ? d->capv : 4096;
        while (cap < d->nv + nv)
            cap *= 2;
        SDL_Vertex *v = realloc(d->v, (size_t)cap * sizeof *v);
        if (v == NULL)
            return false;
        d->v = v;
        d->capv = cap;
    }
    if (d->ni + ni > d->capi) {
        int cap = d->capi ? d->capi : 8192;
        while (cap < d->ni + ni)
            cap *= 2;
        int *ix = realloc(d->ix, (size_t)cap * sizeof *ix);
        if (ix == NULL)
            return false;
        d->ix = ix;
        d->capi = cap;
    }
    return true;
}

static int
vert(view_draw *d, float x, float y, SDL_Color c)
{
    d->v[d->nv] = (SDL_Vertex){{x, y}, c, {0, 0}};
    return d->nv++;
}

static void
tri(view_draw *d, int a, int b, int c)
{
    d->ix[d->ni++] = a;
    d->ix[d->ni++] = b;
    d->ix[d->ni++] = c;
}

static int
flush(view_draw *d, SDL_BlendMode mode)
{
    int rc = 0;
    if (d->ni > 0) {
        SDL_SetRenderDrawBlendMode(d->r, mode);
        rc = SDL_RenderGeometry(d->r, NULL, d->v, d->nv, d->ix, d->ni);
    }
    d->nv = d->ni = 0;
    return rc;
}

/* Segments for a circle of r pixels: round enough to look round. */
static int
segments(float r)
{
    int n = r < 3 ? 6 : r < 6 ? 10 : r < 12 ? 16 : r < 24 ? 24 : 32;
    return n > MAX_SEGS ? MAX_SEGS : n;
}

static void
unit_circle(view_draw *d, int n)
{
    if (d->useg == n)
        return;
    for (int i = 0; i <= n; i++) {
        d->ucos[i] = cosf(2 * (float)M_PI * (float)i / (float)n);
        d->usin[i] = sinf(2 * (float)M_PI * (float)i / (float)n);
    }
    d->useg = n;
}

/* A filled disc; the unit circle must be set for n segments. */
static void
disc(view_draw *d, float x, float y, float r, SDL_Color c, int n)
{
    if (!reserve(d, n + 1, 3 * n))
        return;
    int o = vert(d, x, y, c);
    for (int i = 0; i < n; i++)
        vert(d, x + r * d->ucos[i], y + r * d->usin[i], c);
    for (int i = 0; i < n; i++)
        tri(d, o, o + 1 + i, o + 1 + (i + 1) % n);
}

static void
ring(view_draw *d, float x, float y, float r0, float r1, SDL_Color c, int n)
{
    if (!reserve(d, 2 * n, 6 * n))
        return;
    int o = d->nv;
    for (int i = 0; i < n; i++) {
        vert(d, x + r0 * d->ucos[i], y + r0 * d->usin[i], c);
        vert(d, x + r1 * d->ucos[i], y + r1 * d->usin[i], c);
    }
    for (int i = 0; i < n; i++) {
        int a = o + 2 * i, b = o + 2 * ((i + 1) % n);
        tri(d, a, a + 1, b + 1);
        tri(d, a, b + 1, b);
    }
}

/* A straight line w pixels wide, as a quad. */
static void
line(view_draw *d, float x0, float y0, float x1, float y1, float w, SDL_Color c)
{
    float dx = x1 - x0, dy = y1 - y0, len = sqrtf(dx * dx + dy * dy);
    if (len < 1e-3f || !reserve(d, 4, 6))
        return;
    float nx = -dy / len * w / 2, ny = dx / len * w / 2;
    int o = vert(d, x0 + nx, y0 + ny, c);
    vert(d, x1 + nx, y1 + ny, c);
    vert(d, x1 - nx, y1 - ny, c);
    vert(d, x0 - nx, y0 - ny, c);
    tri(d, o, o + 1, o + 2);
    tri(d, o, o + 2, o + 3);
}

/* ---- Agents and paths ------------------------------------------------------
 */

float
view_agent_radius(const view_state *s)
{
    float r = (float)(0.35 * s->cam.zoom);
    return r < 2 ? 2 : r;
}

static void
to_screen(const view_state *s, float wx, float wy, float *x, float *y)
{
    float cs = s->conn.cell_size > 0 ? s->conn.cell_size : 1;
    *x = (float)(s->cam.ox + wx / cs * s->cam.zoom);
    *y = (float)(s->cam.oy + wy / cs * s->cam.zoom);
}

static void
path_of(view_draw *d, const view_state *s, const gc_world_agent *a, float w,
        SDL_Color c, bool dots)
{
    float px, py;
    to_screen(s, a->x, a->y, &px, &py);
    uint32_t n =
        a->path_len < GC_WORLD_PATH_POINTS ? a->path_len : GC_WORLD_PATH_POINTS;
    for (uint32_t i = 0; i < n; i++) {
        float qx, qy;
        to_screen(s, a->path[i].x, a->path[i].y, &qx, &qy);
        line(d, px, py, qx, qy, w, c);
        if (dots)
            disc(d, qx, qy, w, c, d->useg);
        px = qx;
        py = qy;
    }
}

static int
draw_paths(view_draw *d, const view_state *s, long sel)
{
    const view_conn *c = &s->conn;
    unit_circle(d, 8);
    if (s->show_paths)
        for (size_t i = 0; i < c->nagents; i++) {
            const gc_world_agent *a = &c->agents[i];
            uint8_t st = a->state < GC_AGENT_NSTATES ? a->state : 0;
            path_of(d, s, a, 1.25f, rgb(view_agent_rgb[st], 120), false);
        }
    if (sel >= 0) {
        const gc_world_agent *a = &c->agents[sel];
        float w = (float)(s->cam.zoom * 0.06);
        path_of(d, s, a, w < 2.5f ? 2.5f : w > 5 ? 5 : w, ink, true);
        /* The goal: a ring and a dot in its cell, whether or not the known
         * waypoints reach it (the snapshot carries only the first few). */
        float gx, gy, cs = c->cell_size > 0 ? c->cell_size : 1;
        to_screen(s, ((float)a->goal_x + 0.5f) * cs,
                  ((float)a->goal_y + 0.5f) * cs, &gx, &gy);
        float r = view_agent_radius(s) + 2;
        unit_circle(d, segments(r));
        ring(d, gx, gy, r - 2, r, ink, d->useg);
        disc(d, gx, gy, r / 4 < 1.5f ? 1.5f : r / 4, ink, d->useg);
    }
    return flush(d, SDL_BLENDMODE_BLEND);
}

/* The heading needle of an agent of radius r at the origin facing (hx, hy):
 * a dark triangle from just behind the centre to the rim. */
static void
needle(float r, float hx, float hy, float p[6])
{
    float w = r * 0.32f < 0.9f ? 0.9f : r * 0.32f;
    p[0] = hx * r * 0.95f;
    p[1] = hy * r * 0.95f;
    p[2] = -hx * r * 0.15f - hy * w;
    p[3] = -hy * r * 0.15f + hx * w;
    p[4] = -hx * r * 0.15f + hy * w;
    p[5] = -hy * r * 0.15f - hx * w;
}

static bool
in_triangle(const float p[6], float x, float y)
{
    float d1 = (x - p[2]) * (p[1] - p[3]) - (p[0] - p[2]) * (y - p[3]);
    float d2 = (x - p[4]) * (p[3] - p[5]) - (p[2] - p[4]) * (y - p[5]);
    float d3 = (x - p[0]) * (p[5] - p[1]) - (p[4] - p[0]) * (y - p[1]);
    bool neg = d1 < 0 || d2 < 0 || d3<0, pos = d1> 0 || d2 > 0 || d3 > 0;
    return !(neg && pos);
}

/*
 * The agent sprites for radius r: HEADINGS discs, white with the dark
 * needle, anti-aliased by 4x4 supersampling.  Drawn with the state colour
 * as vertex colour, the white takes that colour and the needle stays dark.
 * Made again only when the radius changes (zooming).
 */
static int
make_sprites(view_draw *d, float r)
{
    int size = (int)ceilf(2 * r) + 2;
    int rows = HEADINGS / SPRITE_COLS;
    SDL_Surface *sf = SDL_CreateRGBSurfaceWithFormat(
        0, size * SPRITE_COLS, size * rows, 32, SDL_PIXELFORMAT_ARGB8888);
    if (sf == NULL)
        return -1;
    const uint8_t *hc = view_heading_rgb;
    float c = (float)size / 2;
    for (int k = 0; k < HEADINGS; k++) {
        float p[6], a = 2 * (float)M_PI * (float)k / HEADINGS;
        needle(r, cosf(a), sinf(a), p);
        int ox = (k % SPRITE_COLS) * size, oy = (k / SPRITE_COLS) * size;
        for (int y = 0; y < size; y++) {
            uint32_t *row = (uint32_t *)(void *)((uint8_t *)sf->pixels +
                                                 (oy + y) * sf->pitch) +
                            ox;
            for (int x = 0; x < size; x++) {
                int in = 0, dark = 0;
                for (int sy = 0; sy < 4; sy++)
                    for (int sx = 0; sx < 4; sx++) {
                        float px = (float)x + ((float)sx + 0.5f) / 4 - c;
                        float py = (float)y + ((float)sy + 0.5f) / 4 - c;
                        if (px * px + py * py > r * r)
                            continue;
                        in++;
                        dark += in_triangle(p, px, py);
                    }
                /* Straight alpha: the colour of the covered samples. */
                uint32_t cr =
                    in ? (uint32_t)(255 * (in - dark) + hc[0] * dark) /
                             (uint32_t)in
                       : 0;
                uint32_t cg =
                    in ? (uint32_t)(255 * (in - dark) + hc[1] * dark) /
                             (uint32_t)in
                       : 0;
                uint32_t cb =
                    in ? (uint32_t)(255 * (in - dark) + hc[2] * dark) /
                             (uint32_t)in
                       : 0;
                uint32_t al = (uint32_t)(255 * in / 16);
                row[x] = al << 24 | cr << 16 | cg << 8 | cb;
            }
        }
    }
    SDL_Texture *t = SDL_CreateTextureFromSurface(d->r, sf);
    SDL_FreeSurface(sf);
    if (t == NULL)
        return -1;
    SDL_SetTextureBlendMode(t, SDL_BLENDMODE_BLEND);
    SDL_SetTextureScaleMode(t, SDL_ScaleModeNearest);
    if (d->sprites != NULL)
        SDL_DestroyTexture(d->sprites);
    d->sprites = t;
    d->sprite_r = r;
    d->sprite_size = size;
    return 0;
}

/* Agents as textured quads, one sprite each.  The software renderer turns
 * each such quad into a plain blit; others draw the batch in one call. */
static int
agents_sprites(view_draw *d, const view_state *s, float r)
{
    const view_conn *c = &s->conn;
    if ((d->sprites == NULL || d->sprite_r != r) && make_sprites(d, r) != 0)
        return -1;
    if (!reserve(d, (int)c->nagents * 4, (int)c->nagents * 6))
        return SDL_OutOfMemory();
    float size = (float)d->sprite_size, half = size / 2;
    float tw = 1.0f / SPRITE_COLS, th = 1.0f / (HEADINGS / SPRITE_COLS);
    for (size_t i = 0; i < c->nagents; i++) {
        const gc_world_agent *a = &c->agents[i];
        float x, y;
        to_screen(s, a->x, a->y, &x, &y);
        if (x < -half || y < -half || x > (float)s->win_w + half ||
            y > (float)s->win_h + half)
            continue;
        /* Whole pixels, so that each sprite is copied unscaled. */
        x = floorf(x - half + 0.5f);
        y = floorf(y - half + 0.5f);
        float h = a->heading / (2 * (float)M_PI) * HEADINGS;
        int k = ((int)lroundf(h) % HEADINGS + HEADINGS) % HEADINGS;
        float u = (float)(k % SPRITE_COLS) * tw,
              v = (float)(k / SPRITE_COLS) * th;
        uint8_t st = a->state < GC_AGENT_NSTATES ? a->state : 0;
        SDL_Color col = rgb(view_agent_rgb[st], 0xff);
        int o = d->nv;
        d->v[d->nv++] = (SDL_Vertex){{x, y}, col, {u, v}};
        d->v[d->nv++] = (SDL_Vertex){{x + size, y}, col, {u + tw, v}};
        d->v[d->nv++] =
            (SDL_Vertex){{x + size, y + size}, col, {u + tw, v + th}};
        d->v[d->nv++] = (SDL_Vertex){{x, y + size}, col, {u, v + th}};
        tri(d, o, o + 1, o + 2);
        tri(d, o, o + 2, o + 3);
    }
    int rc = 0;
    if (d->ni > 0)
        rc = SDL_RenderGeometry(d->r, d->sprites, d->v, d->nv, d->ix, d->ni);
    d->nv = d->ni = 0;
    return rc;
}

/* Agents as exact triangles: for big discs, where sprites would be large
 * and few agents are in view. */
static int
agents_triangles(view_draw *d, const view_state *s, float r)
{
    const view_conn *c = &s->conn;
    int n = segments(r);
    unit_circle(d, n);
    SDL_Color head = rgb(view_heading_rgb, 0xff);
    for (size_t i = 0; i < c->nagents; i++) {
        const gc_world_agent *a = &c->agents[i];
        float x, y, p[6];
        to_screen(s, a->x, a->y, &x, &y);
        if (x < -r || y < -r || x > (float)s->win_w + r ||
            y > (float)s->win_h + r)
            continue;
        uint8_t st = a->state < GC_AGENT_NSTATES ? a->state : 0;
        disc(d, x, y, r, rgb(view_agent_rgb[st], 0xff), n);
        if (!reserve(d, 3, 3))
            return SDL_OutOfMemory();
        needle(r, cosf(a->heading), sinf(a->heading), p);
        int o = vert(d, x + p[0], y + p[1], head);
        vert(d, x + p[2], y + p[3], head);
        vert(d, x + p[4], y + p[5], head);
        tri(d, o, o + 1, o + 2);
    }
    return flush(d, SDL_BLENDMODE_NONE);
}

static int
draw_agents(view_draw *d, const view_state *s, long sel)
{
    float r = view_agent_radius(s);
    /* Sprites come in quarter-pixel radii so that zooming does not remake
     * them every frame. */
    float rq = floorf(r * 4) / 4;
    if ((r <= SPRITE_MAX_R ? agents_sprites(d, s, rq)
                           : agents_triangles(d, s, r)) != 0)
        return -1;
    if (sel >= 0) {
        float x, y;
        to_screen(s, s->conn.agents[sel].x, s->conn.agents[sel].y, &x, &y);
        unit_circle(d, segments(r + 4));
        ring(d, x, y, r + 1.5f, r + 3.5f, ink, d->useg);
        ring(d, x, y, r + 3.5f, r + 4.5f, (SDL_Color){0xff, 0xff, 0xff, 0xc0},
             d->useg);
        return flush(d, SDL_BLENDMODE_BLEND);
    }
    return 0;
}

/* ---- Text ------------------------------------------------------------------
 */

static void
text(view_draw *d, float x, float y, int scale, SDL_Color c, const char *str)
{
    SDL_SetTextureColorMod(d->font, c.r, c.g, c.b);
    SDL_SetTextureAlphaMod(d->font, c.a);
    for (; *str != '\0'; str++, x += VIEW_FONT_W * scale) {
        int ch = (unsigned char)*str;
        if (ch <= VIEW_FONT_FIRST || ch >= VIEW_FONT_FIRST + VIEW_FONT_COUNT)
            continue;
        SDL_Rect src = {(ch - VIEW_FONT_FIRST) * VIEW_FONT_W, 0, VIEW_FONT_W,
                        VIEW_FONT_H};
        SDL_FRect dst = {x, y, (float)(VIEW_FONT_W * scale),
                         (float)(VIEW_FONT_H * scale)};
        SDL_RenderCopyF(d->r, d->font, &src, &dst);
    }
}

/* Lines of text on a translucent box at (x, y); y < 0 counts from the
 * bottom of the window. */
static void
text_box(view_draw *d, const view_state *s, float x, float y, int nlines,
         char lines[][LINE])
{
    size_t wmax = 0;
    for (int i = 0; i < nlines; i++)
        if (strlen(lines[i]) > wmax)
            wmax = strlen(lines[i]);
    if (wmax == 0)
        return;
    float lh = VIEW_FONT_H + 2;
    SDL_FRect box = {x, y, (float)(wmax * VIEW_FONT_W) + 12,
                     lh * (float)nlines + 8};
    if (y < 0)
        box.y = (float)s->win_h + y - box.h;
    SDL_SetRenderDrawBlendMode(d->r, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(d->r, 0x10, 0x12, 0x16, 0xc8);
    SDL_RenderFillRectF(d->r, &box);
    for (int i = 0; i < nlines; i++)
        text(d, box.x + 6, box.y + 4 + lh * (float)i, 1,
             (SDL_Color){0xf0, 0xf0, 0xf0, 0xff}, lines[i]);
}

static void
draw_overlay(view_draw *d, const view_state *s, long sel)
{
    const view_conn *c = &s->conn;
    char l[6][LINE], fps[32] = "";
    int n = 0;
    if (s->fps > 0) /* none yet in the first second, or in a screenshot */
        snprintf(fps, sizeof fps, " | %.0f fps", s->fps);
    snprintf(l[n++], sizeof l[0],
             "%s pid %ld | tick %llu | %.1f ticks/s | %zu agents%s%s%s",
             c->shown, c->pid, (unsigned long long)c->tick,
             c->stats.ticks_per_s, c->nagents, fps,
             s->frozen ? " | frozen" : "",
             c->w != NULL && !c->can_edit ? " | read-only" : "");
    if (sel >= 0) {
        const gc_world_agent *a = &c->agents[sel];
        snprintf(l[n++], sizeof l[0],
                 "agent %u: %s at (%.2f, %.2f) heading %.0f deg, goal (%d, "
                 "%d), %u waypoints left",
                 a->id, gc_agent_state_name(a->state), (double)a->x,
                 (double)a->y, (double)(a->heading * 180.0f / (float)M_PI),
                 (int)a->goal_x, (int)a->goal_y, a->path_len);
    }
    if (s->show_trace) {
        const gc_world_trace_info *ti = &c->trace_info;
        if (s->sel == GC_WORLD_NO_AGENT)
            snprintf(l[n++], sizeof l[0], "trace: click an agent");
        else if (trace_visible(s))
            snprintf(l[n++], sizeof l[0],
                     "trace of agent %u: %zu events at tick %llu%s", ti->agent,
                     ti->count, (unsigned long long)ti->tick,
                     ti->truncated ? " (truncated)" : "");
        else
            snprintf(l[n++], sizeof l[0],
                     "trace: waiting for agent %u to search%s", s->sel,
                     c->w != NULL && !c->can_edit
                         ? " (read-only: cannot ask the daemon)"
                         : "");
    }
    if (s->msg[0] != '\0' && s->now < s->msg_until)
        snprintf(l[n++], sizeof l[0], "%s", s->msg);
    if (s->show_overlay)
        text_box(d, s, 4, 4, n, l);

    if (s->show_help) {
        static const char *help[] = {
            "wheel        zoom around the pointer",
            "drag         pan",
            "click        select the agent under the pointer",
            "shift-drag   paint obstacles",
            "ctrl-drag    paint walkable cells",
            "p            every agent's path",
            "t            trace of the selected agent's last search",
            "space        freeze the picture",
            "f            fit the map in the window",
            "o            overlay on/off",
            "s            save the window as gridcrowd-view-TICK.bmp",
            "h            this help",
            "q, Escape    quit",
        };
        enum { N = sizeof help / sizeof help[0] };
        char hl[N][LINE];
        for (int i = 0; i < N; i++)
            snprintf(hl[i], sizeof hl[0], "%s", help[i]);
        text_box(d, s, 4, -4, N, hl);
    } else if (s->show_overlay) {
        char hl[1][LINE] = {"h: help"};
        text_box(d, s, 4, -4, 1, hl);
    }
}

static void
draw_waiting(view_draw *d, const view_state *s)
{
    SDL_SetRenderDrawBlendMode(d->r, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(d->r, 0, 0, 0, 0xa0);
    SDL_RenderFillRect(d->r, NULL);
    char big[LINE], small[LINE];
    snprintf(big, sizeof big, "waiting for daemon %s", s->conn.shown);
    snprintf(small, sizeof small,
             "the picture comes back when it starts again; q quits");
    int scale = s->win_w >= (int)strlen(big) * VIEW_FONT_W * 2 + 20 ? 2 : 1;
    float bw = (float)(strlen(big) * VIEW_FONT_W * (size_t)scale);
    float sw = (float)(strlen(small) * VIEW_FONT_W);
    float y = (float)s->win_h / 2 - VIEW_FONT_H * scale;
    text(d, ((float)s->win_w - bw) / 2, y, scale,
         (SDL_Color){0xff, 0xff, 0xff, 0xff}, big);
    text(d, ((float)s->win_w - sw) / 2, y + VIEW_FONT_H * scale + 8, 1,
         (SDL_Color){0xd0, 0xd0, 0xd0, 0xff}, small);
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
    if (draw_paths(d, s, sel) != 0 || draw_agents(d, s, sel) != 0)
        return -1;
    draw_overlay(d, s, sel);
    if (s->conn.w == NULL)
        draw_waiting(d, s);
    return 0;
}

/*
 * report-draw.c: gridcrowd-report's pictures, drawn with cairo.
 *
 * cairo does the drawing and writes the PNG files; this file only decides
 * what goes where.  The maps are drawn as the viewer shows them: x to the
 * right, y downwards, walls grey (outside the walkable area), walkable
 * floor white, the walkable area's outline dark.  A heat layer is an
 * image of one pixel per bin, scaled up by cairo with the nearest filter
 * and clipped to the walkable area, so that bins that straddle a wall do
 * not paint the wall.
 *
 * Colour scales run from 0 to the 99th percentile of the bins that have a
 * value (the top label says "or more"): one crowded goal cell where
 * arrived agents stand for the whole run would otherwise wash out every
 * other bin.
 *
 * Sizes: every picture is o->size pixels wide.  Map pictures are as tall
 * as the map needs at that width (at most 1.25 times the width, at least
 * room for the legend); the histogram and the flow plot are 0.6 times as
 * tall as wide.  rep_draw_layout computes both, and report.json states
 * them.
 */
#include "config.h"

#include "report.h"

#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARGIN 12.0
#define TITLE_H 36.0
#define LEGEND_W 120.0
#define BOTTOM_H 14.0
#define MIN_MAP_H 220.0

/* Where the map goes in a map picture. */
typedef struct geom {
    double ox, oy, scale; /* pixel of (xmin, ymin); pixels per world unit */
    double mw, mh;        /* the map's size in pixels */
} geom;

static geom
map_geom(const rep_out *o)
{
    const rep_info *in = o->info;
    double ww = in->xmax - in->xmin, wh = in->ymax - in->ymin;
    double box = o->size - 2 * MARGIN - LEGEND_W;
    double s = box / ww;
    if (wh * s > 1.25 * o->size)
        s = 1.25 * o->size / wh;
    geom g = {.scale = s, .mw = ww * s, .mh = wh * s};
    double h = fmax(g.mh, MIN_MAP_H);
    g.ox = MARGIN + (box - g.mw) / 2;
    g.oy = TITLE_H + (h - g.mh) / 2;
    return g;
}

void
rep_draw_layout(rep_out *o)
{
    geom g = map_geom(o);
    o->map_w = o->size;
    o->map_h = (int)ceil(TITLE_H + fmax(g.mh, MIN_MAP_H) + BOTTOM_H);
    o->plot_w = o->size;
    o->plot_h = (int)lround(o->size * 0.6);
}

/* ---- colours and text
 * --------------------------------------------------------- */

typedef struct rgb {
    double r, g, b;
} rgb;

/* ColorBrewer's YlOrRd (density) and matplotlib's viridis (speed), as
 * stops to interpolate between. */
static const unsigned ylorrd[] = {0xffffcc, 0xffeda0, 0xfed976,
                                  0xfeb24c, 0xfd8d3c, 0xfc4e2a,
                                  0xe31a1c, 0xbd0026, 0x800026};
static const unsigned viridis[] = {0x440154, 0x482878, 0x3e4989, 0x31688e,
                                   0x26828e, 0x1f9e89, 0x35b779, 0x6ece58,
                                   0xb5de2b, 0xfde725};

typedef struct scale {
    const unsigned *stops;
    size_t n;
} scale;

static const scale density_scale = {ylorrd, sizeof ylorrd / sizeof *ylorrd};
static const scale speed_scale = {viridis, sizeof viridis / sizeof *viridis};

static rgb
hex(unsigned c)
{
    return (rgb){((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0,
                 (c & 255) / 255.0};
}

static rgb
colour_at(const scale *sc, double t)
{
    if (!(t > 0))
        t = 0;
    if (t > 1)
        t = 1;
    double p = t * (double)(sc->n - 1);
    size_t i = (size_t)p;
    if (i >= sc->n - 1)
        return hex(sc->stops[sc->n - 1]);
    double f = p - (double)i;
    rgb a = hex(sc->stops[i]), b = hex(sc->stops[i + 1]);
    return (rgb){a.r + f * (b.r - a.r), a.g + f * (b.g - a.g),
                 a.b + f * (b.b - a.b)};
}

enum { LEFT, CENTRE, RIGHT };

static void text(cairo_t *cr, double x, double y, double size, int align,
                 bool bold, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* Text with its baseline at y, aligned on x. */
static void
text(cairo_t *cr, double x, double y, double size, int align, bool bold,
     const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD
                                : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    cairo_text_extents_t e;
    cairo_text_extents(cr, buf, &e);
    double dx = align == LEFT     ? 0
                : align == CENTRE ? e.x_advance / 2
                                  : e.x_advance;
    cairo_move_to(cr, x - dx, y);
    cairo_show_text(cr, buf);
}

/* A "nice" step near `raw`: 1, 2 or 5 times a power of ten. */
static double
nice_step(double raw)
{
    if (!(raw > 0))
        return 1;
    double p = pow(10, floor(log10(raw)));
    double f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/* ---- output
 * ------------------------------------------------------------------- */

static int
write_png(cairo_surface_t *s, const char *dir, const char *name, gc_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    errno = 0;
    cairo_status_t st = cairo_surface_write_to_png(s, path);
    if (st != CAIRO_STATUS_SUCCESS) {
        gc_error_set(err, GC_EIO, NULL, 0, 0, "%s: %s", path,
                     errno ? strerror(errno) : cairo_status_to_string(st));
        return GC_EIO;
    }
    return GC_OK;
}

/* A new picture with a white background. */
static cairo_t *
canvas(int w, int h, cairo_surface_t **out)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    *out = s;
    return cr;
}

/* Draw, write and free: the status of the whole picture. */
static int
finish(cairo_t *cr, cairo_surface_t *s, const rep_out *o, const char *name,
       gc_error *err)
{
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    int rc;
    if (st != CAIRO_STATUS_SUCCESS)
        rc = gc_error_set(
            err, st == CAIRO_STATUS_NO_MEMORY ? GC_ENOMEM : GC_EIO, NULL, 0, 0,
            "%s: %s", name, cairo_status_to_string(st));
    else
        rc = write_png(s, o->dir, name, err);
    cairo_surface_destroy(s);
    return rc;
}

/* ---- maps
 * ------------------------------------------------------------------------ */

static void
area_path(cairo_t *cr, const rep_info *in, const geom *g)
{
    const double *p = in->area.xy;
    for (size_t r = 0; r < in->area.n_rings; r++) {
        size_t n = in->area.ring_len[r];
        for (size_t i = 0; i < n; i++, p += 2) {
            double x = g->ox + (p[0] - in->xmin) * g->scale;
            double y = g->oy + (p[1] - in->ymin) * g->scale;
            if (i == 0)
                cairo_move_to(cr, x, y);
            else
                cairo_line_to(cr, x, y);
        }
        cairo_close_path(cr);
    }
}

/* The floor: walls grey, walkable white (all white without walls). */
static void
draw_floor(cairo_t *cr, const rep_info *in, const geom *g)
{
    cairo_rectangle(cr, g->ox, g->oy, g->mw, g->mh);
    if (in->have_area)
        cairo_set_source_rgb(cr, 0.62, 0.62, 0.62);
    else
        cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
    cairo_fill(cr);
    if (in->have_area) {
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD);
        area_path(cr, in, g);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_fill(cr);
    }
}

/* Clip to the walkable area (or the map) for what is drawn on the floor. */
static void
clip_floor(cairo_t *cr, const rep_info *in, const geom *g)
{
    cairo_rectangle(cr, g->ox, g->oy, g->mw, g->mh);
    cairo_clip(cr);
    if (in->have_area) {
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD);
        area_path(cr, in, g);
        cairo_clip(cr);
    }
}

/* The walls' outline, the frame, and the --lines with their numbers. */
static void
draw_outline(cairo_t *cr, const rep_out *o, const geom *g)
{
    const rep_info *in = o->info;
    if (in->have_area) {
        area_path(cr, in, g);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        cairo_set_line_width(cr, 1.0);
        cairo_stroke(cr);
    }
    cairo_rectangle(cr, g->ox, g->oy, g->mw, g->mh);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 1.0);
    cairo_stroke(cr);
    const rep_acc *a = o->acc;
    cairo_save(cr);
    cairo_rectangle(cr, g->ox, g->oy, g->mw, g->mh);
    cairo_clip(cr);
    for (size_t i = 0; i < a->cfg.n_lines; i++) {
        const rep_line *l = &a->flows[i].line;
        double x0 = g->ox + (l->x0 - in->xmin) * g->scale;
        double y0 = g->oy + (l->y0 - in->ymin) * g->scale;
        double x1 = g->ox + (l->x1 - in->xmin) * g->scale;
        double y1 = g->oy + (l->y1 - in->ymin) * g->scale;
        double dash[] = {6, 3};
        cairo_set_dash(cr, dash, 2, 0);
        cairo_set_line_width(cr, 2.0);
        cairo_set_source_rgb(cr, 0.05, 0.3, 0.9);
        cairo_move_to(cr, x0, y0);
        cairo_line_to(cr, x1, y1);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        /* The number at the end that is on the map, or the first. */
        double lx = x0, ly = y0;
        if (lx < g->ox || lx > g->ox + g->mw || ly < g->oy ||
            ly > g->oy + g->mh)
            lx = x1, ly = y1;
        lx = fmin(fmax(lx, g->ox), g->ox + g->mw - 14);
        ly = fmin(fmax(ly, g->oy), g->oy + g->mh - 16);
        text(cr, lx + 4, ly + 14, 12, LEFT, true, "%zu", i + 1);
    }
    cairo_restore(cr);
}

static int
cmp_double(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

/* The value at fraction q of the sorted positive values (their top for
 * q = 1); 1 when there are none. */
static double
percentile(double *v, size_t n, double q)
{
    if (n == 0)
        return 1;
    qsort(v, n, sizeof *v, cmp_double);
    return v[(size_t)(q * (double)(n - 1))];
}

/* A vertical colour bar from 0 to top, with its unit above. */
static void
draw_legend(cairo_t *cr, const rep_out *o, const geom *g, const scale *sc,
            double top, bool clipped, const char *unit)
{
    double x = o->size - MARGIN - LEGEND_W + 18, w = 16;
    double y0 = TITLE_H + 22, h = fmin(fmax(g->mh, MIN_MAP_H) - 30, 320);
    cairo_pattern_t *p = cairo_pattern_create_linear(0, y0 + h, 0, y0);
    for (size_t i = 0; i < sc->n; i++) {
        rgb c = hex(sc->stops[i]);
        cairo_pattern_add_color_stop_rgb(p, (double)i / (double)(sc->n - 1),
                                         c.r, c.g, c.b);
    }
    cairo_rectangle(cr, x, y0, w, h);
    cairo_set_source(cr, p);
    cairo_fill_preserve(cr);
    cairo_pattern_destroy(p);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    text(cr, x - 4, TITLE_H + 10, 11, LEFT, false, "%s", unit);
    for (int i = 0; i <= 4; i++) {
        double v = top * i / 4.0, y = y0 + h - h * i / 4.0;
        cairo_move_to(cr, x + w, y);
        cairo_line_to(cr, x + w + 4, y);
        cairo_stroke(cr);
        text(cr, x + w + 7, y + 4, 11, LEFT, false, "%.3g%s", v,
             i == 4 && clipped ? "+" : "");
    }
}

typedef double (*bin_value)(const rep_acc *a, size_t i);

/* A heat map of one value per bin (negative: no value, left clear). */
static int
draw_heat(const rep_out *o, const char *name, const scale *sc, bin_value value,
          const char *title, const char *unit, gc_error *err)
{
    const rep_acc *a = o->acc;
    size_t nb = (size_t)a->nx * (size_t)a->ny;
    double *vals = malloc(nb * sizeof *vals);
    if (!vals)
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "%s: %s", name,
                            gc_strerror(GC_ENOMEM));
    size_t n = 0;
    for (size_t i = 0; i < nb; i++) {
        double v = value(a, i);
        if (v > 0)
            vals[n++] = v;
    }
    double top = percentile(vals, n, 0.99), max = n ? vals[n - 1] : 0;
    free(vals);

    cairo_surface_t *heat =
        cairo_image_surface_create(CAIRO_FORMAT_ARGB32, a->nx, a->ny);
    if (cairo_surface_status(heat) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(heat);
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "%s: %s", name,
                            gc_strerror(GC_ENOMEM));
    }
    cairo_surface_flush(heat);
    unsigned char *px = cairo_image_surface_get_data(heat);
    int stride = cairo_image_surface_get_stride(heat);
    for (int y = 0; y < a->ny; y++) {
        uint32_t *row = (uint32_t *)(void *)(px + (size_t)y * stride);
        for (int x = 0; x < a->nx; x++) {
            double v = value(a, (size_t)y * a->nx + x);
            /* Zero density is the floor's white; no speed is clear. */
            if (v < 0 || (v == 0 && sc == &density_scale)) {
                row[x] = 0;
                continue;
            }
            rgb c = colour_at(sc, v / top);
            row[x] = 0xff000000u | (uint32_t)lround(c.r * 255) << 16 |
                     (uint32_t)lround(c.g * 255) << 8 |
                     (uint32_t)lround(c.b * 255);
        }
    }
    cairo_surface_mark_dirty(heat);

    cairo_surface_t *s;
    cairo_t *cr = canvas(o->map_w, o->map_h, &s);
    geom g = map_geom(o);
    draw_floor(cr, o->info, &g);
    cairo_save(cr);
    clip_floor(cr, o->info, &g);
    cairo_translate(cr, g.ox, g.oy);
    cairo_scale(cr, g.scale * a->cfg.cell, g.scale * a->cfg.cell);
    cairo_set_source_surface(cr, heat, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(heat);
    draw_outline(cr, o, &g);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, MARGIN, 24, 15, LEFT, true, "%s", title);
    draw_legend(cr, o, &g, sc, top, max > top, unit);
    return finish(cr, s, o, name, err);
}

static int
draw_trajectories(const rep_out *o, gc_error *err)
{
    const rep_acc *a = o->acc;
    const rep_info *in = o->info;
    const rep_track **t;
    size_t n;
    if (rep_acc_tracks(a, &t, &n) != GC_OK)
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "trajectories.png: %s",
                            gc_strerror(GC_ENOMEM));
    cairo_surface_t *s;
    cairo_t *cr = canvas(o->map_w, o->map_h, &s);
    geom g = map_geom(o);
    draw_floor(cr, in, &g);
    cairo_save(cr);
    cairo_rectangle(cr, g.ox, g.oy, g.mw, g.mh);
    cairo_clip(cr);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_width(cr, 1.4);
    for (size_t k = 0; k < n; k++) {
        /* Hues a golden angle apart: neighbours in the list differ. */
        double h = fmod(k * 0.618033988749895, 1.0) * 6;
        int hi = (int)h;
        double f = h - hi, v = 0.85, lo = 0.15, up = lo + (v - lo) * f,
               dn = v - (v - lo) * f;
        rgb c = hi == 0   ? (rgb){v, up, lo}
                : hi == 1 ? (rgb){dn, v, lo}
                : hi == 2 ? (rgb){lo, v, up}
                : hi == 3 ? (rgb){lo, dn, v}
                : hi == 4 ? (rgb){up, lo, v}
                          : (rgb){v, lo, dn};
        const float *p = t[k]->xy;
        cairo_set_source_rgba(cr, c.r, c.g, c.b, 0.8);
        for (size_t i = 0; i < t[k]->n; i++) {
            double x = g.ox + (p[2 * i] - in->xmin) * g.scale;
            double y = g.oy + (p[2 * i + 1] - in->ymin) * g.scale;
            if (i == 0)
                cairo_move_to(cr, x, y);
            else
                cairo_line_to(cr, x, y);
        }
        cairo_stroke(cr);
        if (t[k]->n > 0) {
            cairo_arc(cr, g.ox + (p[0] - in->xmin) * g.scale,
                      g.oy + (p[1] - in->ymin) * g.scale, 2.5, 0, 2 * M_PI);
            cairo_fill(cr);
        }
    }
    cairo_restore(cr);
    draw_outline(cr, o, &g);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, MARGIN, 24, 15, LEFT, true, "Trajectories of %zu of %zu agents", n,
         a->n_agents);
    text(cr, o->size - MARGIN - LEGEND_W + 10, TITLE_H + 14, 11, LEFT, false,
         "dot: start");
    free(t);
    return finish(cr, s, o, "trajectories.png", err);
}

/* ---- plots
 * ---------------------------------------------------------------------- */

typedef struct plot {
    double x, y, w, h; /* the plotting box, pixels */
    double xmin, xmax, ymin, ymax;
} plot;

static double
plot_x(const plot *p, double v)
{
    return p->x + (v - p->xmin) / (p->xmax - p->xmin) * p->w;
}

static double
plot_y(const plot *p, double v)
{
    return p->y + p->h - (v - p->ymin) / (p->ymax - p->ymin) * p->h;
}

/* Axes with ticks at nice steps, labels, and a light grid. */
static void
draw_axes(cairo_t *cr, const plot *p, const char *xlabel, const char *ylabel)
{
    cairo_set_line_width(cr, 1);
    double xs = nice_step((p->xmax - p->xmin) / 8);
    double ys = nice_step((p->ymax - p->ymin) / 6);
    for (double v = ceil(p->ymin / ys) * ys; v <= p->ymax + ys * 1e-9;
         v += ys) {
        double y = plot_y(p, v);
        cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
        cairo_move_to(cr, p->x, y);
        cairo_line_to(cr, p->x + p->w, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        text(cr, p->x - 6, y + 4, 11, RIGHT, false, "%g", v);
    }
    for (double v = ceil(p->xmin / xs) * xs; v <= p->xmax + xs * 1e-9;
         v += xs) {
        double x = plot_x(p, v);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        cairo_move_to(cr, x, p->y + p->h);
        cairo_line_to(cr, x, p->y + p->h + 4);
        cairo_stroke(cr);
        text(cr, x, p->y + p->h + 17, 11, CENTRE, false, "%g", v);
    }
    cairo_rectangle(cr, p->x, p->y, p->w, p->h);
    cairo_stroke(cr);
    text(cr, p->x + p->w / 2, p->y + p->h + 38, 13, CENTRE, false, "%s",
         xlabel);
    cairo_save(cr);
    cairo_translate(cr, p->x - 48, p->y + p->h / 2);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, 0, 0, 13, CENTRE, false, "%s", ylabel);
    cairo_restore(cr);
}

/* Both axes of p from 0 (every plot counts up from nothing) to xmax and
 * ymax, drawn with their labels. */
static void
draw_axes_from_0(cairo_t *cr, plot *p, double xmax, double ymax,
                 const char *xlabel, const char *ylabel)
{
    p->xmin = 0;
    p->xmax = xmax;
    p->ymin = 0;
    p->ymax = ymax;
    draw_axes(cr, p, xlabel, ylabel);
}

static plot
plot_box(const rep_out *o)
{
    return (plot){
        .x = 70, .y = 48, .w = o->plot_w - 70 - 24, .h = o->plot_h - 48 - 58};
}

static int
draw_traveltime(const rep_out *o, gc_error *err)
{
    const rep_travel *tr = o->travel;
    cairo_surface_t *s;
    cairo_t *cr = canvas(o->plot_w, o->plot_h, &s);
    plot p = plot_box(o);
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (tr->n == 0) {
        text(cr, MARGIN, 24, 15, LEFT, true, "Travel time");
        draw_axes_from_0(cr, &p, 1, 1, "travel time (s)", "agents");
        text(cr, p.x + p.w / 2, p.y + p.h / 2, 14, CENTRE, false,
             "no agent arrived or left during the recording (%zu walking)",
             tr->unfinished);
        return finish(cr, s, o, "traveltime.png", err);
    }
    double tmax = tr->t[tr->n - 1];
    size_t k = (size_t)ceil(sqrt((double)tr->n));
    k = k < 5 ? 5 : k > 50 ? 50 : k;
    double bw = nice_step(fmax(tmax, 1e-9) / (double)k);
    size_t nbins = (size_t)floor(tmax / bw) + 1;
    size_t *h = calloc(nbins, sizeof *h), hmax = 0;
    if (!h) {
        cairo_destroy(cr);
        cairo_surface_destroy(s);
        return gc_error_set(err, GC_ENOMEM, NULL, 0, 0, "traveltime.png: %s",
                            gc_strerror(GC_ENOMEM));
    }
    double sum = 0;
    for (size_t i = 0; i < tr->n; i++) {
        size_t b = (size_t)(tr->t[i] / bw);
        h[b < nbins ? b : nbins - 1]++;
        sum += tr->t[i];
    }
    for (size_t b = 0; b < nbins; b++)
        if (h[b] > hmax)
            hmax = h[b];
    draw_axes_from_0(cr, &p, (double)nbins * bw, fmax(1, ceil(hmax * 1.1)),
                     "travel time (s)", "agents");
    for (size_t b = 0; b < nbins; b++) {
        double x0 = plot_x(&p, (double)b * bw), x1 = plot_x(&p, (b + 1) * bw);
        double y = plot_y(&p, (double)h[b]);
        cairo_rectangle(cr, x0 + 0.5, y, x1 - x0 - 1, p.y + p.h - y);
        cairo_set_source_rgb(cr, 0.27, 0.51, 0.71);
        cairo_fill(cr);
    }
    double mean = sum / (double)tr->n, median = tr->t[tr->n / 2];
    double dash[] = {5, 4};
    cairo_set_dash(cr, dash, 2, 0);
    cairo_set_source_rgb(cr, 0.8, 0.1, 0.1);
    cairo_move_to(cr, plot_x(&p, mean), p.y);
    cairo_line_to(cr, plot_x(&p, mean), p.y + p.h);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    text(cr, plot_x(&p, mean) + 4, p.y + 14, 11, LEFT, false, "mean %.1f s",
         mean);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, MARGIN, 24, 15, LEFT, true,
         "Travel time: %zu agents, mean %.1f s, median %.1f s", tr->n, mean,
         median);
    text(cr, p.x + p.w, 40, 11, RIGHT, false,
         "%zu arrived, %zu left, %zu still walking at the end; bins of %g s",
         tr->arrived, tr->left, tr->unfinished, bw);
    free(h);
    return finish(cr, s, o, "traveltime.png", err);
}

static const unsigned line_colours[] = {0x1f77b4, 0xd62728, 0x2ca02c, 0x9467bd,
                                        0xff7f0e, 0x8c564b, 0xe377c2, 0x17becf};

static int
draw_flow(const rep_out *o, gc_error *err)
{
    const rep_acc *a = o->acc;
    cairo_surface_t *s;
    cairo_t *cr = canvas(o->plot_w, o->plot_h, &s);
    plot p = plot_box(o);
    double bs = a->flow_bin_s, top = 0;
    for (size_t i = 0; i < a->cfg.n_lines; i++)
        for (size_t b = 0; b < a->n_flow_bins; b++)
            top = fmax(top, fmax(a->flows[i].fwd[b], a->flows[i].bwd[b]) / bs);
    draw_axes_from_0(cr, &p, (double)a->n_flow_bins * bs, fmax(1, top * 1.15),
                     "time (s)", "agents per second");
    cairo_save(cr);
    cairo_rectangle(cr, p.x, p.y, p.w, p.h);
    cairo_clip(cr);
    cairo_set_line_width(cr, 1.8);
    for (size_t i = 0; i < a->cfg.n_lines; i++) {
        rgb c = hex(line_colours[i % 8]);
        cairo_set_source_rgb(cr, c.r, c.g, c.b);
        for (int dir = 0; dir < 2; dir++) {
            const uint32_t *v = dir == 0 ? a->flows[i].fwd : a->flows[i].bwd;
            double dash[] = {6, 4};
            cairo_set_dash(cr, dash, dir ? 2 : 0, 0);
            cairo_move_to(cr, plot_x(&p, 0), plot_y(&p, v[0] / bs));
            for (size_t b = 0; b < a->n_flow_bins; b++) {
                double y = plot_y(&p, v[b] / bs);
                cairo_line_to(cr, plot_x(&p, (double)b * bs), y);
                cairo_line_to(cr, plot_x(&p, (b + 1) * bs), y);
            }
            cairo_stroke(cr);
        }
    }
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_restore(cr);
    /* The legend, top right inside the box. */
    for (size_t i = 0; i < a->cfg.n_lines; i++) {
        const rep_flow *f = &a->flows[i];
        const rep_line *l = &f->line;
        double len = hypot(l->x1 - l->x0, l->y1 - l->y0);
        double nx = (l->y1 - l->y0) / len, ny = (l->x0 - l->x1) / len;
        rgb c = hex(line_colours[i % 8]);
        double y = p.y + 16 + 30 * (double)i;
        double x = fmax(p.x + 8, p.x + p.w - 330);
        cairo_set_source_rgb(cr, c.r, c.g, c.b);
        text(cr, x, y, 11, LEFT, true, "%zu: (%g, %g) to (%g, %g)", i + 1,
             l->x0, l->y0, l->x1, l->y1);
        text(cr, x, y + 13, 11, LEFT, false,
             "solid: towards (%+.2f, %+.2f), %llu;  dashed: back, %llu", nx, ny,
             (unsigned long long)f->forward, (unsigned long long)f->backward);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, MARGIN, 24, 15, LEFT, true,
         "Flow through %zu line%s: agents per second, each direction",
         a->cfg.n_lines, a->cfg.n_lines == 1 ? "" : "s");
    text(cr, p.x + p.w, 40, 11, RIGHT, false, "bins of %g s", bs);
    return finish(cr, s, o, "flow.png", err);
}

int
rep_draw_all(rep_out *o, gc_error *err)
{
    rep_draw_layout(o);
    char title[160];
    snprintf(title, sizeof title,
             "Density: agents per square unit, averaged over %llu frames",
             (unsigned long long)o->acc->frames);
    int rc = draw_heat(o, "density.png", &density_scale, rep_acc_density, title,
                       "agents / unit\xc2\xb2", err);
    if (rc == GC_OK)
        rc =
            draw_heat(o, "speed.png", &speed_scale, rep_acc_speed,
                      "Mean speed of the agents in each bin", "units / s", err);
    if (rc == GC_OK)
        rc = draw_trajectories(o, err);
    if (rc == GC_OK)
        rc = draw_traveltime(o, err);
    if (rc == GC_OK && o->acc->cfg.n_lines > 0)
        rc = draw_flow(o, err);
    return rc;
}

void
rep_draw_cleanup(void)
{
    /* cairo keeps its fonts and fontconfig its configuration until told
     * to let go: without this, every run "leaks" them (valgrind, LSan). */
    cairo_debug_reset_static_data();
    FcFini();
}

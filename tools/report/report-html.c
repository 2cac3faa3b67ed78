/*
 * report-html.c: index.html, the page that shows the pictures with the
 * run's figures, and report.json, the same figures for programs (the
 * tests read it).
 *
 * Everything from the recording that lands in the page (the map's name,
 * the options) is escaped: a recording is input, and its text could hold
 * markup.  Figures that a file cannot give (arrivals in a plain JuPedSim
 * file, an evacuation time while agents still walk) are said to be
 * unknown, never shown as zero.
 */
#include "config.h"

#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
html_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static void
json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* A finite number, or null. */
static void
json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.10g", v);
    else
        fputs("null", f);
}

static FILE *
open_out(const rep_out *o, const char *name, char *path, size_t cap,
         gc_error *err)
{
    snprintf(path, cap, "%s/%s", o->dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        gc_error_set(err, GC_EIO, NULL, 0, 0, "%s: %s", path, strerror(errno));
    return f;
}

static int
close_out(FILE *f, const char *path, gc_error *err)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return gc_error_set(err, GC_EIO, NULL, 0, 0, "%s: %s", path,
                            errno ? strerror(errno) : "write error");
    return GC_OK;
}

static double
mean_speed(const rep_acc *a)
{
    return a->speed_count ? a->speed_total / (double)a->speed_count : NAN;
}

static double
density_integral(const rep_acc *a)
{
    double sum = 0, area = a->cfg.cell * a->cfg.cell;
    size_t nb = (size_t)a->nx * (size_t)a->ny;
    for (size_t i = 0; i < nb; i++)
        sum += rep_acc_density(a, i) * area;
    return sum;
}

static int
write_json(const rep_out *o, gc_error *err)
{
    const rep_acc *a = o->acc;
    const rep_info *in = o->info;
    const rep_travel *tr = o->travel;
    char path[4096];
    FILE *f = open_out(o, "report.json", path, sizeof path, err);
    if (!f)
        return GC_EIO;
    double dur = (double)(in->last_frame - in->first_frame) / in->fps;
    fputs("{\"file\": ", f);
    json_str(f, in->path);
    fprintf(f, ", \"format\": \"%s\", \"map\": ",
            in->gridcrowd ? "gridcrowd" : "jupedsim");
    json_str(f, in->map);
    fprintf(f,
            ",\n \"agents\": %zu, \"frames\": %llu, \"first_frame\": %lld, "
            "\"last_frame\": %lld, \"fps\": ",
            a->n_agents, (unsigned long long)a->frames,
            (long long)in->first_frame, (long long)in->last_frame);
    json_num(f, in->fps);
    fputs(", \"duration_s\": ", f);
    json_num(f, dur);
    fprintf(f, ",\n \"agent_frames\": %llu, \"outside\": %llu, ",
            (unsigned long long)a->agent_frames,
            (unsigned long long)a->outside);
    fputs("\"mean_agents\": ", f);
    json_num(f, a->frames ? (double)a->agent_frames / (double)a->frames : 0);
    fputs(", \"density_integral\": ", f);
    json_num(f, density_integral(a));
    fputs(", \"mean_speed\": ", f);
    json_num(f, mean_speed(a));
    fprintf(f,
            ",\n \"travel_times\": %zu, \"arrived\": %zu, \"left\": %zu, "
            "\"unfinished\": %zu, \"evacuation_s\": ",
            tr->n, tr->arrived, tr->left, tr->unfinished);
    json_num(f, tr->evacuation_s >= 0 ? tr->evacuation_s : NAN);
    fputs(", \"cell\": ", f);
    json_num(f, a->cfg.cell);
    fprintf(f, ", \"bins\": [%d, %d], \"sample\": %zu, \"walls\": %s", a->nx,
            a->ny, a->n_tracks, in->have_area ? "true" : "false");
    fprintf(f,
            ",\n \"images\": {\"density.png\": [%d, %d], \"speed.png\": "
            "[%d, %d], \"trajectories.png\": [%d, %d], \"traveltime.png\": "
            "[%d, %d]",
            o->map_w, o->map_h, o->map_w, o->map_h, o->map_w, o->map_h,
            o->plot_w, o->plot_h);
    if (a->cfg.n_lines)
        fprintf(f, ", \"flow.png\": [%d, %d]", o->plot_w, o->plot_h);
    fputs("},\n \"flow_bin_s\": ", f);
    json_num(f, a->flow_bin_s);
    fputs(", \"lines\": [", f);
    for (size_t i = 0; i < a->cfg.n_lines; i++) {
        const rep_flow *fl = &a->flows[i];
        fprintf(f, "%s{\"line\": [%.10g, %.10g, %.10g, %.10g], ", i ? ", " : "",
                fl->line.x0, fl->line.y0, fl->line.x1, fl->line.y1);
        fprintf(f, "\"forward\": %llu, \"backward\": %llu}",
                (unsigned long long)fl->forward,
                (unsigned long long)fl->backward);
    }
    fputs("]}\n", f);
    return close_out(f, path, err);
}

static void row(FILE *f, const char *k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
row(FILE *f, const char *k, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(f, "<tr><th>%s</th><td>", k);
    html_esc(f, buf);
    fputs("</td></tr>\n", f);
}

static int
write_html(const rep_out *o, gc_error *err)
{
    const rep_acc *a = o->acc;
    const rep_info *in = o->info;
    const rep_travel *tr = o->travel;
    char path[4096];
    FILE *f = open_out(o, "index.html", path, sizeof path, err);
    if (!f)
        return GC_EIO;
    const char *base = strrchr(in->path, '/');
    base = base ? base + 1 : in->path;
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "\n<title>",
          f);
    html_esc(f, base);
    fputs(" - gridcrowd report</title>\n<style>\n"
          "body{font-family:sans-serif;margin:2em;max-width:70em}\n"
          "table{border-collapse:collapse;margin:1em 0}\n"
          "th,td{text-align:left;padding:.2em .8em;border-bottom:1px solid "
          "#ddd}\nimg{max-width:100%;border:1px solid #ccc;margin:.5em 0}\n"
          "</style></head><body>\n<h1>",
          f);
    html_esc(f, base);
    fputs("</h1>\n<h2>The run</h2>\n<table>\n", f);
    double dur = (double)(in->last_frame - in->first_frame) / in->fps;
    row(f, "file", "%s (%s)", in->path,
        in->gridcrowd ? "gridcrowd recording" : "JuPedSim trajectory file");
    if (in->map)
        row(f, "map", "%s", in->map);
    row(f, "agents", "%zu", a->n_agents);
    row(f, "frames", "%llu (frames %lld to %lld)",
        (unsigned long long)a->frames, (long long)in->first_frame,
        (long long)in->last_frame);
    row(f, "frames per second", "%g", in->fps);
    row(f, "duration", "%.1f s", dur);
    row(f, "mean agents present", "%.1f",
        a->frames ? (double)a->agent_frames / (double)a->frames : 0);
    if (a->speed_count)
        row(f, "mean speed",
            "%.3f units/s (over agent-frames not yet "
            "arrived)",
            mean_speed(a));
    else
        row(f, "mean speed", "unknown (no agent seen in two frames)");
    if (in->gridcrowd)
        row(f, "arrived", "%zu of %zu", tr->arrived, a->n_agents);
    else
        row(f, "left the recording", "%zu of %zu", tr->left, a->n_agents);
    if (tr->evacuation_s >= 0)
        row(f, "evacuation time", "%.1f s (the last arrival)",
            tr->evacuation_s);
    else
        row(f, "evacuation time",
            "unknown: %zu agents still walking at "
            "the end",
            tr->unfinished);
    if (tr->n) {
        double sum = 0;
        for (size_t i = 0; i < tr->n; i++)
            sum += tr->t[i];
        row(f, "travel time", "mean %.1f s, median %.1f s, max %.1f s",
            sum / (double)tr->n, tr->t[tr->n / 2], tr->t[tr->n - 1]);
    }
    for (size_t i = 0; i < a->cfg.n_lines; i++) {
        char k[32];
        snprintf(k, sizeof k, "line %zu", i + 1);
        row(f, k, "(%g, %g) to (%g, %g): %llu forwards, %llu back",
            a->flows[i].line.x0, a->flows[i].line.y0, a->flows[i].line.x1,
            a->flows[i].line.y1, (unsigned long long)a->flows[i].forward,
            (unsigned long long)a->flows[i].backward);
    }
    if (in->dropped >= 0)
        row(f, "dropped frames", "%lld", (long long)in->dropped);
    if (in->edits >= 0)
        row(f, "edits", "%lld", (long long)in->edits);
    if (in->status)
        row(f, "recording", "%s", in->status);
    row(f, "bins", "%d x %d of %g units", a->nx, a->ny, a->cfg.cell);
    if (!in->have_area)
        row(f, "walls", "%s", in->area_note);
    fputs("</table>\n", f);
    if (in->n_options) {
        fputs("<h2>Options</h2>\n<table>\n", f);
        for (size_t i = 0; i < in->n_options; i++) {
            fputs("<tr><th>", f);
            html_esc(f, in->options[i].key);
            fputs("</th><td>", f);
            html_esc(f, in->options[i].value);
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    static const char *const pics[][2] = {
        {"density.png", "Density"},
        {"speed.png", "Mean speed"},
        {"trajectories.png", "Trajectories"},
        {"traveltime.png", "Travel time"},
        {"flow.png", "Flow"},
    };
    for (size_t i = 0; i < sizeof pics / sizeof *pics; i++) {
        if (i == 4 && a->cfg.n_lines == 0) {
            fputs("<h2>Flow</h2>\n<p>No line given: <code>--line "
                  "X0,Y0,X1,Y1</code> counts the agents crossing it.</p>\n",
                  f);
            continue;
        }
        fprintf(f, "<h2>%s</h2>\n<img src=\"%s\" alt=\"%s\">\n", pics[i][1],
                pics[i][0], pics[i][1]);
    }
    fputs("</body></html>\n", f);
    return close_out(f, path, err);
}

int
rep_html_write(const rep_out *o, gc_error *err)
{
    int rc = write_json(o, err);
    return rc == GC_OK ? write_html(o, err) : rc;
}

/*
 * sim-stats.c: the simulation's figures: a search-time histogram and the
 * gc_sim_counters each gc_sim_worker keeps.
 *
 * Each gc_sim_worker counts into its own window (gc_sim_counters and histogram)
 * during a tick, so the workers never share a cache line of statistics. Between
 * ticks the loop reads them: gc_sim_stats_window sums the windows, folds
 * them into each gc_sim_worker's totals and clears them; gc_sim_stats_total
 * sums totals and open windows without changing anything.  Percentiles come
 * from the histogram (gc_hist, gridcrowd/util.h: bucket upper bounds).
 */
#include "config.h"

#include "sim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Moving agents with no progress for 10 s, now; in *longest the longest
 * time any moving agent has now gone without progress, in seconds. */
static uint64_t
count_stalled(const gc_sim *s, double *longest)
{
    *longest = 0.0;
    if (s->body == NULL)
        return 0;
    uint64_t n = 0, lim = (uint64_t)ceil(10.0 * s->cfg.hz), most = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->agents[i].state != GC_AGENT_MOVING)
            continue;
        uint64_t since = s->ticks + 1 - s->body[i].progress_tick;
        if (since > lim)
            n++;
        if (since > most)
            most = since;
    }
    *longest = (double)most / s->cfg.hz;
    return n;
}

static void
fill_states(const gc_sim *s, gc_sim_stats *out)
{
    out->stalled = count_stalled(s, &out->stall_s_max);
    memset(out->by_state, 0, sizeof out->by_state);
    for (uint32_t i = 0; i < s->n; i++)
        if (gc_sim_alive(s, i))
            out->by_state[s->agents[i].state < GC_AGENT_NSTATES
                              ? s->agents[i].state
                              : GC_AGENT_IDLE]++;
    out->ticks = s->ticks;
    out->reorders = s->order.done;
    out->reorder_ms_max = (double)s->order.ns_max / 1e6;
}

static void
fill_counts(gc_sim_stats *out, const gc_sim_counters *c, const gc_hist *h,
            uint64_t ticks)
{
    out->overlaps_mean = ticks ? (double)c->overlaps / (double)ticks : 0.0;
    out->overlaps_max = c->overlaps_max;
    out->overlap_depth_max = c->depth_max;
    out->in_wall = c->in_wall;
    out->speed_ratio = c->pref_sum > 0.0 ? c->speed_sum / c->pref_sum : 0.0;
    out->avoid_ms_mean =
        ticks ? (double)c->avoid_ns / (double)ticks / 1e6 : 0.0;
    out->searches = c->searches;
    out->expanded = c->expanded;
    out->arrivals = c->arrivals;
    out->replans = c->replans;
    out->follow_reused = c->follow_reused;
    out->follow_full = c->follow_full;
    out->replan_delay_ticks_max = c->replan_ticks_max;
    out->replan_delay_ms_mean =
        c->replans ? (double)c->replan_ns_sum / (double)c->replans / 1e6 : 0.0;
    out->replan_delay_ms_max = (double)c->replan_ns_max / 1e6;
    out->search_us_mean = gc_hist_mean(h);
    out->search_us_p99 = gc_hist_quantile(h, 0.99);
    out->search_only_us_mean =
        c->searches ? (double)c->search_ns_sum / (double)c->searches / 1e3
                    : 0.0;
    out->smooth_us_mean =
        c->searches ? (double)c->smooth_ns_sum / (double)c->searches / 1e3
                    : 0.0;
}

static void
add_counters(gc_sim_counters *into, const gc_sim_counters *c)
{
    into->searches += c->searches;
    into->expanded += c->expanded;
    into->arrivals += c->arrivals;
    into->replans += c->replans;
    into->follow_reused += c->follow_reused;
    into->follow_full += c->follow_full;
    into->search_ns_sum += c->search_ns_sum;
    into->smooth_ns_sum += c->smooth_ns_sum;
    into->replan_ns_sum += c->replan_ns_sum;
    into->overlaps += c->overlaps;
    into->in_wall += c->in_wall;
    into->avoid_ns += c->avoid_ns;
    into->speed_sum += c->speed_sum;
    into->pref_sum += c->pref_sum;
    if (c->overlaps_max > into->overlaps_max)
        into->overlaps_max = c->overlaps_max;
    if (c->depth_max > into->depth_max)
        into->depth_max = c->depth_max;
    if (c->replan_ns_max > into->replan_ns_max)
        into->replan_ns_max = c->replan_ns_max;
    if (c->replan_ticks_max > into->replan_ticks_max)
        into->replan_ticks_max = c->replan_ticks_max;
}

void
gc_sim_stats_window(gc_sim *s, gc_sim_stats *out)
{
    gc_sim_counters c = {0};
    gc_hist *h = calloc(1, sizeof *h);
    for (int k = 0; k < s->nworkers; k++) {
        gc_sim_worker *w = &s->workers[k];
        add_counters(&c, &w->win);
        add_counters(&w->total, &w->win);
        memset(&w->win, 0, sizeof w->win);
        if (h != NULL)
            gc_hist_merge(h, &w->hwin);
        gc_hist_merge(&w->htotal, &w->hwin);
        memset(&w->hwin, 0, sizeof w->hwin);
    }
    fill_states(s, out);
    static const gc_hist empty;
    fill_counts(out, &c, h != NULL ? h : &empty, s->ticks - s->win_tick0);
    s->win_tick0 = s->ticks;
    free(h);
}

void
gc_sim_stats_total(const gc_sim *s, gc_sim_stats *out)
{
    gc_sim_counters c = {0};
    gc_hist *h = calloc(1, sizeof *h);
    for (int k = 0; k < s->nworkers; k++) {
        const gc_sim_worker *w = &s->workers[k];
        add_counters(&c, &w->total);
        add_counters(&c, &w->win);
        if (h != NULL) {
            gc_hist_merge(h, &w->htotal);
            gc_hist_merge(h, &w->hwin);
        }
    }
    fill_states(s, out);
    static const gc_hist empty;
    fill_counts(out, &c, h != NULL ? h : &empty, s->ticks);
    free(h);
}

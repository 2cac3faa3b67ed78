/*
 * sim-plan.c: the plan queues, one agent's search, and replanning after
 * the grid changed.
 *
 * Planning.  An agent that needs a path is put on its gc_sim_worker's FIFO
 * queue (at most once: the QUEUED flag); each tick at most `plan_budget`
 * of all the queues' requests are served, the first to come in
 * (gc_sim_plan_quotas shares them out to the workers whose queues hold
 * them, so which they are does not depend on the number of workers), and
 * with a time budget (real time) a worker stops when the tick's planning
 * time is spent, so a burst of requests is served fairly over the
 * following ticks and a tick's cost stays bounded.  An agent waiting for
 * a path does not move.
 *
 * Grid changes.  Between ticks the loop tells the sim which cells changed.
 * Every moving agent whose remaining walk touches one stops and goes on an
 * urgent queue, served first in the next tick regardless of the count
 * budget (in real time up to twice the time budget).  The remaining walk
 * starts where the agent actually is: the stretch from its position to its
 * next waypoint is walked exactly (a segment that starts anywhere in a
 * cell), the later segments between cell centres cell by cell with
 * gc_supercover, the same walk that prices smoothed segments.  An agent
 * standing in a new wall is moved to the centre of the nearest passable
 * cell, or marked STUCK when there is none.  Stuck and unreachable agents,
 * and agents still walking a partial path, try again after every change:
 * the change may have opened a way.
 *
 * Goals that moved out of reach.  A wander goal belongs to the agent's own
 * component; when an edit cuts the agent off from it, the planner draws a
 * new one in the agent's new component, in the tick that replans it.  A
 * goal someone else set (point, scen) that lies out of reach gets the
 * partial path to the cell nearest the goal, and the agent is counted
 * UNREACHABLE when it gets there; it never spins.
 *
 * Followers keep what is still good.  When a moving follower plans again
 * because its target moved (sim-agents.c marks it GC_SIM_F_REUSE and
 * leaves its waypoints in place), its remaining path is still valid: a
 * grid change stops every agent whose path it touches and drops the kept
 * path of one waiting.  So the plan keeps that path up to the kept cell
 * nearest the target's new cell and searches only from there
 * (gc_sim_join_path, sim_int.h states its cost bound), then smooths the
 * whole as any plan, which pulls the joint straight.  It searches in full
 * when the target is more than GC_SIM_JOIN_MAX_CELLS from the kept path's
 * last cells, when the joint search fails or hits its cap, when the
 * stretch from where the agent stands to its next waypoint is no longer
 * a valid walk (avoidance pushed it aside), and when it is traced.
 *
 * Bodies of another size.  An agent whose radius is not the sim's default
 * cannot use the planning grid inflated for the default: it is planned by
 * plain A* with its own clearance (opts.radius) on the real grid, always
 * allowing a partial path (the components are the default's), and it is
 * planned again after every grid change (a wall beside its path may now
 * be too near for its body).  The common case, one radius for all, pays
 * nothing for this.
 *
 * Goals in straight sight.  With smoothing on, a plan whose goal the
 * agent can walk to in a straight line over cells of the map's cheapest
 * type (gc_straight_best: open for its body all the way, no corner cut)
 * is that line, without a search: nothing can cost less, and smoothing
 * pulls most such paths straight anyway.  Most of a wanderer's goals
 * (within --wander-radius of it) are in sight on open ground, where the
 * jump point search's scans run to the map's edge: on a 1,024-cell open
 * map with 100,000 wanderers the searches were a fifth of the CPU.  It
 * is counted as a search that expanded nothing.  Without smoothing the
 * paths stay the grid's, as asked; a traced agent's plan is searched.
 */
#include "config.h"

#include <gridcrowd/util.h>

#include "astar_int.h"
#include "grid_int.h"
#include "sim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
gc_sim_enqueue_seq(gc_sim *s, uint32_t i, bool urgent, uint64_t seq)
{
    if (s->flags[i] & GC_SIM_F_QUEUED)
        return;
    gc_sim_worker *w = &s->workers[gc_sim_owner(s, i)];
    /* Capacity is the gc_sim_worker's agent count and an agent is queued at
     * most once (in one of the two rings), so neither ring can overflow. */
    if (urgent) {
        w->urgent[(w->uhead + w->ulen) % w->qcap] = i;
        w->ulen++;
    } else {
        uint32_t at = (w->qhead + w->qlen) % w->qcap;
        w->queue[at] = i;
        w->qseq[at] = seq;
        w->qlen++;
    }
    s->flags[i] |= GC_SIM_F_QUEUED;
}

void
gc_sim_enqueue(gc_sim *s, uint32_t i, bool urgent)
{
    if (s->flags[i] & GC_SIM_F_QUEUED)
        return;
    /* A worker's request in a tick is ordered by the agent's id among
     * the tick's, whoever makes it when.  (Urgent ones are all served:
     * they need no place.) */
    uint64_t seq = urgent       ? 0
                   : s->in_tick ? s->tick_seq + gc_sim_id_of(s, i)
                                : s->plan_seq++;
    gc_sim_enqueue_seq(s, i, urgent, seq);
}

void
gc_sim_plan_quotas(gc_sim *s)
{
    uint32_t left = s->cfg.plan_budget;
    for (int k = 0; k < s->nworkers; k++)
        s->workers[k].quota = 0;
    if (s->nworkers == 1) {
        gc_sim_worker *w = &s->workers[0];
        w->quota = w->qlen < left ? w->qlen : left;
        return;
    }
    /* Each queue is in the order its requests came in: merge their
     * heads. */
    for (; left > 0; left--) {
        gc_sim_worker *best = NULL;
        uint64_t first = UINT64_MAX;
        for (int k = 0; k < s->nworkers; k++) {
            gc_sim_worker *w = &s->workers[k];
            if (w->quota < w->qlen &&
                w->qseq[(w->qhead + w->quota) % w->qcap] < first) {
                first = w->qseq[(w->qhead + w->quota) % w->qcap];
                best = w;
            }
        }
        if (best == NULL)
            break;
        best->quota++;
    }
}

static void
enqueue(gc_sim *s, uint32_t i)
{
    gc_sim_enqueue(s, i, false);
}

/* A plan that failed for want of something other than a way (memory, a
 * path that could not be kept): the tick reports error e (the worker's
 * first), and agent i keeps what it had and asks again next tick. */
static void
plan_again(gc_sim *s, gc_sim_worker *w, uint32_t i, int e)
{
    if (w->error == 0)
        w->error = e;
    enqueue(s, i);
}

void
gc_sim_ask_plan(gc_sim *s, uint32_t i)
{
    if (!gc_sim_bodies(s)) {
        enqueue(s, i);
        return;
    }
    s->flags[i] |= GC_SIM_F_ASK;
    s->blk_ask[i / GC_SIM_HALF] = 1;
}

static uint32_t
ring_pop(uint32_t *ring, uint32_t cap, uint32_t *head, uint32_t *len)
{
    uint32_t i = ring[*head];
    *head = (*head + 1) % cap;
    (*len)--;
    return i;
}

/*
 * The passable cell the agent stands in.  An agent walks segments between
 * cell centres, so it may stand exactly on a cell border or corner beside a
 * wall; then it is in every cell whose closed square contains it, and any
 * passable one of those will do (the walk from there to that cell's centre
 * stays inside the cell).  False when all of them are impassable.
 */
bool
gc_sim_own_cell(const gc_grid *g, gc_vec2 p, gc_cell *out)
{
    gc_cell c = gc_grid_world_to_cell(g, p);
    *out = c;
    if (gc_grid_passable(g, c.x, c.y))
        return true;
    float fx = p.x / g->cell_size, fy = p.y / g->cell_size;
    bool bx = fx == floorf(fx), by = fy == floorf(fy);
    for (int dy = by ? -1 : 0; dy <= 0; dy++)
        for (int dx = bx ? -1 : 0; dx <= 0; dx++) {
            gc_cell n = {c.x + dx, c.y + dy};
            if (gc_grid_passable(g, n.x, n.y)) {
                *out = n;
                return true;
            }
        }
    return false;
}

/* ---- follow: joining onto the kept path ---------------------------------- */

static double
octile(gc_cell a, gc_cell b)
{
    double dx = fabs((double)a.x - b.x), dy = fabs((double)a.y - b.y);
    return dx > dy ? dx + (M_SQRT2 - 1.0) * dy : dy + (M_SQRT2 - 1.0) * dx;
}

int
gc_sim_join_path(gc_astar *astar, const gc_grid *g, const gc_astar_opts *o,
                 const gc_path *keep, gc_cell target, int32_t max_cells,
                 gc_path *scratch, gc_path *out, gc_astar_stats *st,
                 size_t *joint)
{
    if (keep->len < 2)
        return GC_EINVAL;
    /* The joint: the kept cell nearest the target, looking back from the
     * end no further than 2 * max_cells along the path (a target that
     * came back towards the follower is joined earlier on, not by
     * walking to the end and back). */
    size_t best = keep->len - 1;
    double bd = octile(keep->cells[best], target), back = 0.0;
    for (size_t k = keep->len - 1; k >= 2; k--) {
        back += octile(keep->cells[k], keep->cells[k - 1]);
        if (back > 2.0 * max_cells)
            break;
        double d = octile(keep->cells[k - 1], target);
        if (d < bd) {
            bd = d;
            best = k - 1;
        }
    }
    if (bd > (double)max_cells)
        return GC_ERANGE;
    gc_astar_opts jo = *o;
    jo.partial = false;
    jo.smooth = false;
    jo.trace = NULL;
    /* A joint search that wanders far (a wall between the joint and the
     * target) is no cheaper than a full one: cap it. */
    uint64_t side = 2 * (uint64_t)max_cells + 1;
    jo.max_expansions = 4 * side * side;
    int rc = gc_astar_find(astar, g, keep->cells[best], target, &jo, scratch,
                           st);
    if (rc != GC_OK)
        return rc;
    rc = gc_path_reserve(out, best + scratch->len);
    if (rc != GC_OK)
        return rc;
    memcpy(out->cells, keep->cells, (best + 1) * sizeof *out->cells);
    /* The search's path starts at the joint, already copied. */
    memcpy(out->cells + best + 1, scratch->cells + 1,
           (scratch->len - 1) * sizeof *out->cells);
    out->len = best + scratch->len;
    if (joint != NULL)
        *joint = best;
    return GC_OK;
}

/*
 * The cells a follower keeps: the one it plans from, then those of its
 * waypoints still ahead (equal neighbours dropped).  False when there is
 * nothing to keep or the stretch from its cell to the first waypoint is
 * not a valid straight walk (avoidance may have pushed it aside).
 */
static bool
kept_cells(const gc_sim *s, gc_sim_worker *w, const gc_agent *a, gc_cell start,
           const gc_grid *pg, const gc_nav *pn, float rad_cells)
{
    if (a->wp_next >= a->wp_len ||
        gc_path_reserve(&w->keep, 1 + (size_t)(a->wp_len - a->wp_next)) !=
            GC_OK)
        return false;
    gc_path *k = &w->keep;
    k->len = 0;
    k->cells[k->len++] = start;
    for (uint32_t j = a->wp_next; j < a->wp_len; j++) {
        gc_cell c = gc_grid_world_to_cell(s->pgrid, a->wp[j]);
        gc_cell p = k->cells[k->len - 1];
        if (c.x != p.x || c.y != p.y)
            k->cells[k->len++] = c;
    }
    if (k->len < 2)
        return false;
    gc_path first = {k->cells, 2, 2};
    return isfinite(gc_polyline_cost(pg, pn, rad_cells, s->cfg.diag, &first));
}

static void
plan(gc_sim *s, gc_sim_worker *w, uint32_t i)
{
    gc_agent *a = &s->agents[i];
    bool own = gc_sim_own_radius(s, i);
    /* Its own radius: plain A* with clearance on the real grid (see the
     * note at the top); else the shared planning grid. */
    const gc_grid *pg = own ? s->grid : s->pgrid;
    const gc_nav *pn = own ? (s->wnav != NULL ? s->wnav : s->nav) : s->nav;
    float rad_cells = own ? a->radius / s->grid->cell_size : 0.0f;
    bool wander = s->slot[i].goal_kind == GC_SIM_GOAL_WANDER;
    /* A goal someone set is aimed at again, not the end of the partial
     * path the last plan may have settled for. */
    bool asked = s->slot[i].goal_kind == GC_SIM_GOAL_POINT ||
                 s->slot[i].goal_kind == GC_SIM_GOAL_FOLLOW;
    if (asked)
        a->goal = s->slot[i].goal;
    gc_cell start, pstart; /* where it searches from; its planning cell */
    gc_sim_plan_cell(s, a->pos, &pstart);
    start = pstart;
    if (own)
        gc_sim_own_cell(s->grid, a->pos, &start);
    gc_astar_opts o;
    gc_astar_opts_init(&o);
    o.diag = s->cfg.diag;
    o.smooth = false; /* done below, so that it is timed apart */
    o.nav = pn;
    o.radius = own ? a->radius : 0.0f;
    /* A wander goal is a cell of the agent's own component by definition:
     * when an edit cut the agent off from it, draw a new one there now
     * (a search for the old one could only fail: issue 14). */
    if (wander && !gc_sim_same_component(s, pstart, a->goal))
        a->goal = gc_sim_random_goal(s, i, pstart);
    /* A wanderer goes round a jam when there is a way round (sim-jam.c);
     * not to a goal the way the crowd carries it: that goal lies in the
     * crowd's path, and drawn again beyond the jam it was a random one,
     * as often as not against the stream it was blocked in. */
    bool flow = (s->flags[i] & GC_SIM_F_FLOW) != 0;
    s->flags[i] &= (uint8_t)~GC_SIM_F_FLOW;
    if (!own && wander && !flow && gc_sim_jam_route(s, i, &start)) {
        pg = s->jgrid;
        pn = s->jnav;
        o.nav = pn;
    }
    /* Wander goals come from the agent's own component: no partial path is
     * ever needed, and without one the search takes its fastest form (jump
     * point search on a uniform-cost map).  Other goals need one only when
     * they lie in another component; in the agent's own the path is found
     * (there is no expansion cap), so ask for none there either. */
    o.partial = own || (!wander && gc_nav_component(s->nav, o.diag, start) !=
                                       gc_nav_component(s->nav, o.diag,
                                                        a->goal));
    bool traced = i == s->trace_agent && s->trace.events != NULL;
    if (traced)
        o.trace = &s->trace;
    gc_astar_stats st;
    int rc = GC_EINVAL;
    /* A follower whose target moved keeps the path it walks up to near its
     * end and searches only from there (gc_sim_join_path); a trace shows a
     * full search. */
    bool follow = s->slot[i].goal_kind == GC_SIM_GOAL_FOLLOW;
    bool joined = false;
    if ((s->flags[i] & GC_SIM_F_REUSE) && follow && !traced &&
        kept_cells(s, w, a, start, pg, pn, rad_cells)) {
        rc = gc_sim_join_path(w->astar, pg, &o, &w->keep, a->goal,
                              GC_SIM_JOIN_MAX_CELLS, &w->jpath, &w->path, &st,
                              NULL);
        joined = rc == GC_OK;
        if (!joined) { /* its figures count: it ran */
            w->win.searches++;
            w->win.expanded += st.expanded;
            w->win.search_ns_sum += st.ns;
        }
    }
    s->flags[i] &= (uint8_t)~GC_SIM_F_REUSE;
    if (follow)
        (joined ? &w->win.follow_reused : &w->win.follow_full)[0]++;
    if (!joined) {
        /* The goal in straight sight (see the top), the check's time
         * counted in the search's either way. */
        uint64_t t0 = gc_clock_ns();
        bool straight =
            s->cfg.smooth && !traced &&
            gc_straight_best(pg, pn, rad_cells, o.diag, start, a->goal) &&
            gc_path_reserve(&w->path, 2) == GC_OK;
        uint64_t seen = gc_clock_ns() - t0;
        if (straight) {
            w->path.cells[0] = start;
            w->path.cells[1] = a->goal;
            w->path.len = 2;
            st = (gc_astar_stats){.status = GC_OK, .found = true};
            rc = GC_OK;
        } else {
            rc = gc_astar_find(w->astar, pg, start, a->goal, &o, &w->path,
                               &st);
        }
        st.ns += seen;
    }
    /* What gc_astar_find does with o.smooth set, on the path it returns. */
    uint64_t smooth_ns = 0;
    if (s->cfg.smooth && w->path.len > 0) {
        uint64_t t0 = gc_clock_ns();
        gc_path_smooth(pg, pn, rad_cells, o.diag, &w->path);
        smooth_ns = gc_clock_ns() - t0;
    }
    if (traced) {
        /* The path found, after the search's own events. */
        for (size_t k = 0; k < w->path.len; k++) {
            if (s->trace.len == s->trace.cap) {
                s->trace.truncated = true;
                break;
            }
            gc_cell c = w->path.cells[k];
            s->trace.events[s->trace.len++] = (gc_trace_event){
                (uint32_t)gc_grid_index(s->pgrid, c.x, c.y), GC_TRACE_PATH};
        }
        s->trace_fresh = true;
    }

    w->win.searches++;
    w->win.expanded += st.expanded;
    w->win.search_ns_sum += st.ns;
    w->win.smooth_ns_sum += smooth_ns;
    if (s->flags[i] & GC_SIM_F_REPLAN) {
        /* s->ticks counts finished ticks: this is tick s->ticks + 1. */
        uint64_t dt = s->ticks + 1 - s->stop_tick[i];
        uint64_t dns = gc_clock_ns() - s->stop_ns[i];
        w->win.replans++;
        w->win.replan_ns_sum += dns;
        if (dns > w->win.replan_ns_max)
            w->win.replan_ns_max = dns;
        if (dt > w->win.replan_ticks_max)
            w->win.replan_ticks_max = dt;
    }
    gc_hist_add(&w->hwin, (double)(st.ns + smooth_ns) / 1000.0);
    s->flags[i] &= (uint8_t) ~(GC_SIM_F_REPLAN | GC_SIM_F_PARTIAL);

    if (rc == GC_OK || ((rc == GC_EUNREACHABLE || rc == GC_ELIMIT) &&
                        st.partial && w->path.len > 0)) {
        int e = gc_agent_set_path(a, s->pgrid, &w->path);
        if (e != GC_OK) {
            plan_again(s, w, i, e);
            return;
        }
        if (rc != GC_OK)
            s->flags[i] |= GC_SIM_F_PARTIAL;
        if (asked)
            a->goal = s->slot[i].goal; /* the goal, not the path's end */
        if (s->body != NULL)
            gc_sim_body_reset(s, i);
        return;
    }
    if (rc == GC_ENOMEM) { /* not the goal's fault (it was marked
                              unreachable for good, and stood still) */
        plan_again(s, w, i, rc);
        return;
    }
    gc_agent_clear_path(a);
    if (rc == GC_EBLOCKED && !gc_grid_passable(pg, start.x, start.y))
        a->state = GC_AGENT_STUCK;
    else
        a->state = GC_AGENT_UNREACHABLE;
}

void
gc_sim_on_arrival(gc_sim *s, gc_sim_worker *w, uint32_t i)
{
    gc_agent *a = &s->agents[i];
    if (s->flags[i] & GC_SIM_F_PARTIAL) {
        a->state = GC_AGENT_UNREACHABLE;
        s->flags[i] &= (uint8_t)~GC_SIM_F_PARTIAL;
        return;
    }
    w->win.arrivals++;
    if (s->slot[i].goal_kind == GC_SIM_GOAL_WANDER && s->cfg.wander_repeat) {
        gc_cell here;
        gc_sim_plan_cell(s, a->pos, &here);
        a->goal = gc_sim_random_goal(s, i, here);
        a->state = GC_AGENT_WAITING;
        gc_sim_ask_plan(s, i);
    }
}

/* ---- grid changes ----------------------------------------------------------
 */

static bool
changed_at(const gc_sim *s, gc_cell c)
{
    return gc_grid_in_bounds(s->grid, c.x, c.y) &&
           s->changed[gc_grid_index(s->grid, c.x, c.y)];
}

/*
 * Does the straight stretch from p to q (world positions; p anywhere, q a
 * waypoint) pass through a changed cell?  A grid traversal of the exact
 * segment (Amanatides and Woo) in cell coordinates, conservative where
 * float rounding could matter: through a corner, both cells beside it
 * count.
 */
static bool
stretch_touched(const gc_sim *s, gc_vec2 p, gc_vec2 q)
{
    gc_ray r;
    double cs = s->grid->cell_size;
    gc_ray_init(&r, cs, p, q);
    /* The segment's length in cells (gc_ray_init's own arithmetic). */
    double len = hypot(q.x / cs - p.x / cs, q.y / cs - p.y / cs);
    for (int64_t k = 0; k <= r.steps; k++) {
        if (changed_at(s, r.c))
            return true;
        if (gc_ray_done(&r))
            break;
        /* Through a corner, or within float noise (a ten-thousandth of a
         * cell) of one: the cells on both sides count. */
        bool corner = gc_ray_corner(&r, 1e-4 / len);
        if (corner && (changed_at(s, (gc_cell){r.c.x + r.sx, r.c.y}) ||
                       changed_at(s, (gc_cell){r.c.x, r.c.y + r.sy})))
            return true;
        gc_ray_advance(&r, corner);
    }
    return changed_at(s, r.end);
}

/*
 * Does the rest of the agent's walk touch a changed cell?  From where it
 * stands: its own cell, then the exact stretch from its position to the
 * waypoint it walks to (not from its cell's centre: mid-way along a long
 * smoothed segment the two lines can be half a cell apart, and a wall on
 * the real one was missed), then every later segment between cell centres
 * cell by cell along its supercover, so an edit beside a long smoothed
 * segment replans nobody.
 */
static bool
path_touched(const gc_sim *s, const gc_agent *a)
{
    const gc_grid *g = s->grid;
    gc_cell prev;
    if (!gc_sim_own_cell(g, a->pos, &prev) || changed_at(s, prev))
        return true;
    if (a->wp_next >= a->wp_len)
        return false;
    if (stretch_touched(s, a->pos, a->wp[a->wp_next]))
        return true;
    prev = gc_grid_world_to_cell(g, a->wp[a->wp_next]);
    for (uint32_t k = a->wp_next + 1; k < a->wp_len; k++) {
        gc_cell c = gc_grid_world_to_cell(g, a->wp[k]);
        gc_supercover it;
        gc_supercover_init(&it, prev, c);
        gc_cell t;
        bool entered;
        while (gc_supercover_next(&it, &t, &entered))
            if (changed_at(s, t))
                return true;
        prev = c;
    }
    return false;
}

/*
 * Move an agent whose cell became impassable to the centre of the nearest
 * passable cell (straight-line distance from where it stands), searching
 * rings of growing radius.  False when none lies within `max_r` cells.
 */
static bool
eject(gc_sim *s, gc_agent *a, int32_t max_r)
{
    const gc_grid *g = s->pgrid;
    gc_cell c = gc_grid_world_to_cell(g, a->pos);
    double best = INFINITY;
    gc_cell to = c;
    for (int32_t r = 1; r <= max_r && r - 1 <= best / g->cell_size; r++) {
        for (int32_t dy = -r; dy <= r; dy++)
            for (int32_t dx = -r; dx <= r; dx++) {
                if (abs(dx) != r && abs(dy) != r)
                    continue; /* ring only */
                gc_cell n = {c.x + dx, c.y + dy};
                if (!gc_grid_passable(g, n.x, n.y))
                    continue;
                gc_vec2 p = gc_grid_cell_center(g, n);
                double d = hypot(p.x - a->pos.x, p.y - a->pos.y);
                if (d < best) {
                    best = d;
                    to = n;
                }
            }
    }
    if (!isfinite(best))
        return false;
    a->pos = gc_grid_cell_center(g, to);
    a->travelled += best;
    return true;
}

static bool
standing_in_wall(const gc_sim *s, const gc_agent *a)
{
    gc_cell c;
    return !gc_sim_own_cell(s->grid, a->pos, &c);
}

int
gc_sim_grid_changed(gc_sim *s, const gc_cell *cells, size_t n)
{
    int rc = GC_OK;
    if (s->stop_ns == NULL) {
        s->stop_ns = calloc(s->cap ? s->cap : 1, sizeof *s->stop_ns);
        s->stop_tick = calloc(s->cap ? s->cap : 1, sizeof *s->stop_tick);
        if (s->stop_ns == NULL || s->stop_tick == NULL)
            rc = GC_ENOMEM;
    }
    uint64_t now = gc_clock_ns();
    if (rc == GC_OK && cells != NULL && s->changed == NULL) {
        s->changed =
            calloc((size_t)s->grid->width * (size_t)s->grid->height, 1);
        if (s->changed == NULL)
            rc = GC_ENOMEM;
    }
    if (rc != GC_OK)
        return rc;
    for (size_t k = 0; cells != NULL && k < n; k++)
        if (gc_grid_in_bounds(s->grid, cells[k].x, cells[k].y))
            s->changed[gc_grid_index(s->grid, cells[k].x, cells[k].y)] = 1;
    /* With bodies a wall also blocks the planning cells around it: the
     * inflation marks every planning cell it changed, and the clearing
     * below covers them. */
    gc_sim_jam_drop(s);
    /* Whatever follows changes, no clearance byte kept from before is
     * trusted again. */
    s->clear_gen = s->clear_gen + 1 != 0 ? s->clear_gen + 1 : 1;
    rc = gc_sim_inflate(s);
    if (rc == GC_OK && s->edges.hk != NULL)
        rc = gc_sim_edges_build(&s->edges, s->grid);
    if (rc == GC_OK)
        rc = gc_nav_update(s->nav, s->pgrid);
    if (rc == GC_OK)
        rc = gc_sim_build_components(s);
    if (rc != GC_OK)
        return rc;
    int32_t max_r =
        s->grid->width > s->grid->height ? s->grid->width : s->grid->height;
    for (uint32_t i = 0; i < s->n; i++) {
        if (!gc_sim_alive(s, i))
            continue;
        gc_agent *a = &s->agents[i];
        bool replan = false;
        if (s->flags[i] & GC_SIM_F_REUSE) {
            /* A follower's kept path was checked against no change: let
             * its waiting plan search in full. */
            gc_agent_clear_path(a);
            s->flags[i] &= (uint8_t)~GC_SIM_F_REUSE;
        }
        if (standing_in_wall(s, a)) {
            gc_agent_clear_path(a);
            if (!eject(s, a, max_r)) {
                a->state = GC_AGENT_STUCK;
                continue;
            }
            replan = a->state != GC_AGENT_IDLE;
        } else if (a->state == GC_AGENT_MOVING) {
            /* One walking a partial path is planned again after any
             * change: the change may have opened a way to its goal. */
            replan = cells == NULL || (s->flags[i] & GC_SIM_F_PARTIAL) ||
                     gc_sim_own_radius(s, i) || path_touched(s, a);
        } else if (a->state == GC_AGENT_STUCK ||
                   a->state == GC_AGENT_UNREACHABLE) {
            /* The change may have opened a way: try again. */
            replan = true;
        }
        if (!replan)
            continue;
        gc_agent_clear_path(a);
        a->state = GC_AGENT_WAITING;
        if (!(s->flags[i] & GC_SIM_F_REPLAN)) {
            s->stop_ns[i] = now;
            s->stop_tick[i] = s->ticks;
        }
        s->flags[i] |= GC_SIM_F_REPLAN;
        s->flags[i] &= (uint8_t)~GC_SIM_F_PARTIAL;
        gc_sim_enqueue(s, i, true);
    }
    if (s->changed != NULL)
        memset(s->changed, 0,
               (size_t)s->grid->width * (size_t)s->grid->height);
    return GC_OK;
}

/* ---- tracing ------------------------------------------------------------ */

int
gc_sim_trace_agent(gc_sim *s, uint32_t id, size_t cap)
{
    if (id >= s->n || !gc_sim_alive(s, gc_sim_slot_of(s, id))) {
        s->trace_agent = UINT32_MAX;
        return id == UINT32_MAX ? GC_OK : GC_ERANGE;
    }
    uint32_t agent = gc_sim_slot_of(s, id);
    if (s->trace.events == NULL || s->trace.cap < cap) {
        gc_trace_event *ev = realloc(s->trace.events, cap * sizeof *ev);
        if (ev == NULL)
            return GC_ENOMEM;
        s->trace.events = ev;
        s->trace.cap = cap;
    }
    s->trace_agent = agent;
    s->trace_fresh = false;
    /* Plan it again now, so the viewer sees a search without waiting for
     * the agent's next arrival. */
    gc_agent *a = &s->agents[agent];
    if (a->state == GC_AGENT_MOVING) {
        gc_agent_clear_path(a);
        a->state = GC_AGENT_WAITING;
        gc_sim_enqueue(s, agent, true);
    }
    return GC_OK;
}

const gc_trace *
gc_sim_take_trace(gc_sim *s, uint32_t *agent)
{
    if (!s->trace_fresh)
        return NULL;
    s->trace_fresh = false;
    *agent =
        s->trace_agent < s->n ? gc_sim_id_of(s, s->trace_agent) : UINT32_MAX;
    return &s->trace;
}

/* A queued slot may have been removed, reused or told to stop since it
 * was queued (it stays queued: an agent is on a queue at most once, so the
 * rings cannot overflow): only an agent still waiting for a path, or one
 * still moving, is planned.  A moving one is there on purpose: the crowd's
 * stall replan (sim-crowd.c, steer) queues a blocked agent and lets it walk
 * on until the new path lands, so that it keeps counting as stalled; drop
 * it here and a blocked agent never gets a new way round. */
static bool
wants_plan(const gc_sim *s, uint32_t i)
{
    return gc_sim_alive(s, i) && (s->agents[i].state == GC_AGENT_WAITING ||
                                  s->agents[i].state == GC_AGENT_MOVING);
}

void
gc_sim_plan_queued(gc_sim_worker *w)
{
    gc_sim *s = w->sim;
    uint64_t t0 = s->cfg.plan_time_ns ? gc_clock_ns() : 0;
    /* Agents stopped by a grid change go first and ignore the count
     * budget; in real time they too stop at twice the planning time (about
     * a tick), so an edit flood cannot stall the loop: the rest stay
     * stopped and go first next tick. */
    while (w->ulen > 0) {
        if (s->cfg.plan_time_ns &&
            gc_clock_ns() - t0 >= 2 * s->cfg.plan_time_ns)
            break;
        uint32_t i = ring_pop(w->urgent, w->qcap, &w->uhead, &w->ulen);
        s->flags[i] &= (uint8_t)~GC_SIM_F_QUEUED;
        if (wants_plan(s, i))
            plan(s, w, i);
    }
    for (uint32_t k = 0; k < w->quota && w->qlen > 0; k++) {
        if (s->cfg.plan_time_ns && gc_clock_ns() - t0 >= s->cfg.plan_time_ns)
            break;
        uint32_t i = ring_pop(w->queue, w->qcap, &w->qhead, &w->qlen);
        s->flags[i] &= (uint8_t)~GC_SIM_F_QUEUED;
        if (wants_plan(s, i))
            plan(s, w, i);
    }
}

/*
 * sim-crowd-grid.c: the ground under bodies: the ORCA set-up, the
 * inflated planning grid, and the wall geometry the tick asks of it
 * (the planning cell, visibility, wall segments, the clamp).  The tick
 * itself is in sim-crowd.c; its hottest helpers (gc_sim_open_cell,
 * gc_sim_wall_room) are inline in sim_int.h.
 *
 * Planning for a body.  With a radius, paths are planned on a copy of the
 * grid where every passable cell whose clearance (gc_nav_clearance: from
 * its centre to the nearest wall) is below the radius is blocked.  That
 * grid has uniform costs wherever the real one has, so jump point search
 * still runs (an A* search with opts.radius would be plain A*).  It is
 * rebuilt by the loop after every grid change; cells whose blocking
 * changed are marked changed, so agents whose paths cross them replan.
 *
 * Never in a wall.  The clamp is the last step: the body is pushed out of
 * every obstacle cell it overlaps (up to three rounds); the move stands
 * when afterwards the centre is in no wall cell and the body reaches at
 * most GC_SIM_WALL_TOL cells into one, else the move along x alone or
 * along y alone, else the agent stays where it is.
 */
#include "config.h"

#include "grid_int.h"
#include "sim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EDGE_PAD 8 /* bytes after each edge map (edge_runs) */

/* ---- set-up ---------------------------------------------------------- */

int
gc_sim_crowd_init(gc_sim *s)
{
    const gc_grid *g = s->grid;
    int rc;
    s->pgrid = s->grid;
    if (s->cfg.radius > 0.0f) {
        rc = gc_nav_new(&s->wnav, g);
        if (rc == GC_OK)
            rc = gc_grid_clone(&s->inflated, g);
        if (rc != GC_OK)
            return rc;
        s->pgrid = s->inflated;
        rc = gc_sim_inflate(s);
        if (rc != GC_OK)
            return rc;
    }
    rc = gc_nav_new(&s->nav, s->pgrid);
    if (rc != GC_OK)
        return rc;
    if (!gc_sim_bodies(s))
        return GC_OK;
    rc = gc_sim_edges_build(&s->edges, g);
    if (rc != GC_OK)
        return rc;

    gc_orca_params *p = &s->orca;
    gc_orca_params_default(p);
    float speed = s->cfg.motion.speed, cs = g->cell_size;
    p->dt = s->dt;
    p->radius = s->cfg.radius > 0.0f ? s->cfg.radius : 0.01f * cs;
    s->rmax = p->radius;
    p->max_speed = speed;
    p->max_neighbours = s->cfg.neighbours ? (int)s->cfg.neighbours : 10;
    p->time_horizon = s->cfg.horizon > 0.0f ? s->cfg.horizon : 2.0f;
    /* Walls are looked for within about 1.5 cells of the body: nearer
     * ones are what the next few ticks can reach, and the clamp keeps the
     * promise whatever ORCA chooses. */
    p->time_horizon_obst = 1.5f * cs / speed;
    /* Far enough to see who comes within a second, at least two bodies. */
    p->neighbour_dist = 2.0f * p->radius + speed * 1.0f;
    if (p->neighbour_dist < 4.0f * p->radius)
        p->neighbour_dist = 4.0f * p->radius;
    if (s->cfg.neighbour_dist > 0.0f)
        p->neighbour_dist = s->cfg.neighbour_dist;
    /* (Checked once here: the step's programs take them as valid,
     * gc_orca_program_walls.) */
    if (!params_valid(p))
        return GC_EINVAL;

    size_t n = s->cap ? s->cap : 1;
    rc = gc_orca_grid_new(&s->oidx);
    if (rc != GC_OK)
        return rc;
    s->now = calloc(n, sizeof *s->now);
    s->body = calloc(n, sizeof *s->body);
    s->walls = aligned_alloc(64, n * sizeof *s->walls);
    if (s->walls != NULL) /* gen 0: none kept */
        memset(s->walls, 0, n * sizeof *s->walls);
    s->spot_kept = calloc(n, sizeof *s->spot_kept); /* gen 0: none kept */
    s->clear_gen = 1;
    s->ix = calloc(n, sizeof *s->ix);
    s->iy = calloc(n, sizeof *s->iy);
    s->live_slot = calloc(n, sizeof *s->live_slot);
    s->slot_live = calloc(n, sizeof *s->slot_live);
    s->nbr = calloc(n * (size_t)p->max_neighbours, sizeof *s->nbr);
    s->nbr_n = calloc(n, sizeof *s->nbr_n);
    /* Candidate lists: twice the neighbours and a dozen more is about
     * what the skin adds (sim-crowd-near.c); the index returns at most
     * GC_ORCA_MAX_NEIGHBOURS. */
    s->near_cap = 2u * (uint32_t)p->max_neighbours + 12u;
    if (s->near_cap > GC_ORCA_MAX_NEIGHBOURS)
        s->near_cap = GC_ORCA_MAX_NEIGHBOURS;
    s->near = calloc(n * s->near_cap, sizeof *s->near);
    s->near_n = calloc(n, sizeof *s->near_n);
    s->near_r = calloc(n, sizeof *s->near_r); /* 0: none drawn */
    s->near_x = calloc(n, sizeof *s->near_x);
    s->near_y = calloc(n, sizeof *s->near_y);
    s->near_t = calloc(n, sizeof *s->near_t);
    size_t blocks = gc_sim_blocks(n);
    s->blk_speed = calloc(gc_sim_halves(n), sizeof *s->blk_speed);
    s->blk_pref = calloc(gc_sim_halves(n), sizeof *s->blk_pref);
    s->blk_ask = calloc(gc_sim_halves(n), sizeof *s->blk_ask);
    s->blk_plan = calloc(blocks, sizeof *s->blk_plan);
    s->blk_contact = calloc(gc_sim_halves(n), sizeof *s->blk_contact);
    s->contact_list = calloc(n, sizeof *s->contact_list);
    s->contact_next = calloc(n, sizeof *s->contact_next);
    s->contact_mark = calloc(n, sizeof *s->contact_mark);
    s->contact_slack = calloc(n, sizeof *s->contact_slack);
    /* (A chunk's each, or, fused, a worker's: gc_sim_crowd_prepare_fused.) */
    size_t preps = gc_sim_prep_chunks(n);
    if (preps < (size_t)s->nworkers)
        preps = (size_t)s->nworkers;
    s->prep = calloc(preps, sizeof *s->prep);
    if (!s->now || !s->body || !s->walls || !s->spot_kept || !s->ix || !s->iy ||
        !s->prep || !s->live_slot || !s->slot_live || !s->nbr || !s->nbr_n ||
        !s->near || !s->near_n || !s->near_r || !s->near_x || !s->near_y ||
        !s->near_t || !s->blk_speed || !s->blk_pref || !s->blk_ask ||
        !s->blk_plan || !s->blk_contact || !s->contact_list ||
        !s->contact_next || !s->contact_mark || !s->contact_slack)
        return GC_ENOMEM;
    /* Nobody has started a tick yet: the first prepare sees every agent
     * as added. */
    for (size_t i = 0; i < n; i++)
        s->now[i].st = GC_SIM_ST_FREE;
    return gc_sim_order_new(s);
}

void
gc_sim_crowd_free(gc_sim *s)
{
    /* First: it joins the jam thread, whose build may still be reading
     * s->nav and s->pgrid (s->inflated).  Freed before the join, they
     * crashed the daemon at exit, once in about twenty 5 s runs. */
    gc_sim_jam_free(s);
    gc_nav_free(s->nav);
    gc_nav_free(s->wnav);
    gc_grid_free(s->inflated);
    gc_sim_edges_free(&s->edges);
    gc_orca_grid_free(s->oidx);
    free(s->now);
    free(s->body);
    free(s->walls);
    free(s->spot_kept);
    free(s->ix);
    free(s->iy);
    free(s->live_slot);
    free(s->slot_live);
    free(s->nbr);
    free(s->nbr_n);
    free(s->near);
    free(s->near_n);
    free(s->near_r);
    free(s->near_x);
    free(s->near_y);
    free(s->near_t);
    free(s->blk_speed);
    free(s->blk_pref);
    free(s->blk_ask);
    free(s->blk_plan);
    free(s->blk_contact);
    free(s->contact_list);
    free(s->contact_next);
    free(s->contact_mark);
    free(s->contact_slack);
    free(s->prep);
}

int
gc_sim_inflate(gc_sim *s)
{
    if (s->inflated == NULL)
        return GC_OK;
    const gc_grid *g = s->grid;
    gc_grid *p = s->inflated;
    int rc = gc_nav_update(s->wnav, g);
    if (rc != GC_OK)
        return rc;
    memcpy(p->cost, g->cost, sizeof p->cost);
    p->cell_size = g->cell_size;
    float rc_cells = s->cfg.radius / g->cell_size;
    bool any = false;
    for (int32_t y = 0; y < g->height; y++)
        for (int32_t x = 0; x < g->width; x++) {
            size_t k = gc_grid_index(g, x, y);
            uint8_t t = g->cells[k];
            if (gc_grid_passable(g, x, y) &&
                gc_nav_clearance(s->wnav, (gc_cell){x, y}) < rc_cells)
                t = GC_CELL_OBSTACLE;
            if (p->cells[k] != t) {
                p->cells[k] = t;
                any = true;
                if (s->changed != NULL)
                    s->changed[k] = 1;
            }
        }
    if (any)
        p->generation++;
    return GC_OK;
}

/* ---- geometry ---------------------------------------------------------- */

bool
gc_sim_plan_cell(const gc_sim *s, gc_vec2 p, gc_cell *out)
{
    if (gc_sim_own_cell(s->pgrid, p, out))
        return true;
    /* A body pushed into the inflated band near a wall: the nearest open
     * planning cell (by centre), within two cells. */
    const gc_grid *g = s->pgrid;
    gc_cell c = gc_grid_world_to_cell(g, p);
    float best = INFINITY;
    for (int32_t dy = -2; dy <= 2; dy++)
        for (int32_t dx = -2; dx <= 2; dx++) {
            gc_cell n = {c.x + dx, c.y + dy};
            if (!gc_sim_open_cell(g, n.x, n.y))
                continue;
            gc_vec2 q = gc_grid_cell_center(g, n);
            float d = (q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y);
            if (d < best) {
                best = d;
                *out = n;
            }
        }
    return isfinite(best);
}

/*
 * How deep a body of radius r at p reaches into obstacle cells of g (0:
 * not at all; r or more: the centre is in one), and in *push the sum of
 * the moves that would take it out of each.
 */
static float
wall_depth(const gc_grid *g, gc_vec2 p, float r, gc_vec2 *push)
{
    float cs = g->cell_size;
    int32_t x0 = gc_ifloor((p.x - r) / cs);
    int32_t x1 = gc_ifloor((p.x + r) / cs);
    int32_t y0 = gc_ifloor((p.y - r) / cs);
    int32_t y1 = gc_ifloor((p.y + r) / cs);
    float deepest = 0.0f;
    gc_vec2 sum = {0.0f, 0.0f};
    for (int32_t y = y0; y <= y1; y++)
        for (int32_t x = x0; x <= x1; x++) {
            if (gc_sim_open_cell(g, x, y))
                continue;
            float lx = (float)x * cs, hx = lx + cs;
            float ly = (float)y * cs, hy = ly + cs;
            float qx = p.x < lx ? lx : (p.x > hx ? hx : p.x);
            float qy = p.y < ly ? ly : (p.y > hy ? hy : p.y);
            float dx = p.x - qx, dy = p.y - qy;
            float d = sqrtf(dx * dx + dy * dy);
            if (d >= r)
                continue;
            if (d == 0.0f) {
                deepest = INFINITY; /* the centre is in (or on) the cell */
                continue;
            }
            float pen = r - d;
            if (pen > deepest)
                deepest = pen;
            sum.x += dx / d * pen;
            sum.y += dy / d * pen;
        }
    if (push != NULL)
        *push = sum;
    return deepest;
}

static bool
centre_in_wall(const gc_grid *g, gc_vec2 p)
{
    gc_cell c = gc_grid_world_to_cell(g, p);
    return !gc_sim_open_cell(g, c.x, c.y);
}

/* Whether a body may stand at p: the centre out of every wall cell and the
 * body at most `tol` deep in any. */
bool
gc_sim_body_ok(const gc_grid *g, gc_vec2 p, float r, float tol)
{
    return !centre_in_wall(g, p) && wall_depth(g, p, r, NULL) <= tol;
}

/* The clamp: where a body at `from` ends up when it asks to go to `to`. */
gc_vec2
gc_sim_clamp_move(const gc_grid *g, gc_vec2 from, gc_vec2 to, float r,
                  float tol)
{
    gc_vec2 q = to;
    for (int k = 0; k < 3; k++) {
        gc_vec2 push;
        float d = wall_depth(g, q, r, &push);
        if (d <= 0.25f * tol) {
            /* Shallow enough: q's depth is known, and only its centre
             * is left to check (gc_sim_body_ok's answer, without its
             * second wall_depth at the same point: corridor 1,000's
             * step 1% less). */
            if (d <= tol && !centre_in_wall(g, q))
                return q;
            break;
        }
        if (!isfinite(d))
            break;
        q.x += push.x;
        q.y += push.y;
    }
    if (gc_sim_body_ok(g, q, r, tol))
        return q;
    gc_vec2 ax = {to.x, from.y}, ay = {from.x, to.y};
    if (gc_sim_body_ok(g, ax, r, tol))
        return ax;
    if (gc_sim_body_ok(g, ay, r, tol))
        return ay;
    return from;
}

/*
 * Can a body walk straight from a to b?  A grid traversal of the segment
 * (gc_ray) through the planning grid, whose open cells are at least a
 * radius from the walls, for at most max_steps cells from a; through an
 * exact corner both cells beside it count.  Cells blocked in the planning
 * grid at the start are skipped: a body pushed into the inflated band
 * walks out of it.
 */
bool
gc_sim_visible(const gc_grid *g, gc_vec2 a, gc_vec2 b, int64_t max_steps)
{
    gc_ray r;
    gc_ray_init(&r, g->cell_size, a, b);
    bool leaving = true; /* still in the blocked band it starts in */
    /* Past max_steps cells the planned path vouches for the rest. */
    int64_t steps = r.steps < max_steps ? r.steps : max_steps;
    for (int64_t k = 0; k <= steps; k++) {
        if (gc_sim_open_cell(g, r.c.x, r.c.y))
            leaving = false;
        else if (!leaving)
            return false;
        if (gc_ray_done(&r))
            break;
        bool corner = gc_ray_corner(&r, 1e-9);
        if (corner && !leaving &&
            (!gc_sim_open_cell(g, r.c.x + r.sx, r.c.y) ||
             !gc_sim_open_cell(g, r.c.x, r.c.y + r.sy)))
            return false;
        gc_ray_advance(&r, corner);
    }
    return !leaving;
}

/* The cell holding p, for cells 1 / inv wide: gc_grid_cell_of with a
 * product for its quotient (the march's division a step was on the
 * chain from one read of the map to the next). */
static inline gc_cell
cell_at(gc_vec2 p, float inv)
{
    return (gc_cell){gc_ifloor(p.x * inv), gc_ifloor(p.y * inv)};
}

/* How far a walk of max_steps cells can look (INFINITY: no limit). */
static float
walk_cap(float cs, int64_t max_steps)
{
    return max_steps < INT64_MAX / 2
               ? ((float)max_steps + 2.0f) * 1.4142136f * cs
               : INFINITY;
}

/*
 * The march from a along the unit vector u: 1 when its discs cover
 * [0, need], 2 when they also show sight from anywhere within `slack` of
 * a (gc_sim_visible_kept), else 0.  The discs narrowed by the slack still
 * cover the stretch while each is at least twice the slack wide: the
 * narrowed disc at t reaches t + room - slack, and the next, at t + room,
 * reaches back to t + room - room' + slack.  So while every disc is that
 * wide it goes on past `need` until the narrowed discs reach `reach`; its
 * steps are the plain march's (with slack 0 it is the plain march), and a
 * check that proves nothing costs what it did.
 */
static int
march(const gc_nav *n, float cs, gc_vec2 a, gc_vec2 u, float need, float reach,
      float slack, float room_low)
{
    /* A ray along a wall advances by the wall's distance each step:
     * 32 steps of at least a quarter cell cover the 16-cell check near
     * any wall a body can walk beside, for far less than the walk.  The
     * first disc, at a, is room_low wide when the caller knows it (it
     * read the bytes of a's cell: with 100,000 agents on a large map
     * each read of the map is a miss, and an agent beside a wall goes
     * to the walk without one). */
    /* The march's steps without a division: along the unit direction,
     * cells by the reciprocal of their size (three divisions a step, each
     * on the chain from one read to the next, were most of a corridor's
     * steering).  Rounding may put a point on a cell's edge in the cell
     * beside it, whose bound holds there as well (the edge is in both). */
    float inv = 1.0f / cs;
    float t = 0.0f;
    bool proof = slack > 0.0f; /* every disc so far 2 * slack wide */
    for (int k = 0; k < 32; k++) {
        gc_vec2 p = {a.x + u.x * t, a.y + u.y * t};
        float room = k == 0 && room_low > -INFINITY
                         ? room_low
                         : (gc_nav_clear_low(n, cell_at(p, inv)) - 0.92f) * cs;
        proof = proof && room >= 2.0f * slack;
        if (k > 0 && t >= need) {
            /* Covered; on only for the proof. */
            if (!proof || room <= 0.25f * cs)
                return 1;
        } else if (room <= 0.25f * cs) {
            break;
        }
        t += room;
        if (proof && t >= reach + slack)
            return 2;
        if (!proof && t >= need)
            return 1;
    }
    return t > 0.0f && t >= need;
}

/* gc_sim_visible's answer, the march's when it can give it; *got is the
 * march's (2: sight from anywhere within `slack` of a). */
static bool
visible(const gc_nav *n, const gc_grid *g, gc_vec2 a, gc_vec2 b,
        int64_t max_steps, float room_low, float slack, int *got)
{
    float cs = g->cell_size;
    float dx = b.x - a.x, dy = b.y - a.y;
    float len = sqrtf(dx * dx + dy * dy), cap = walk_cap(cs, max_steps);
    float need = len < cap ? len : cap, reach = cap + slack;
    reach = len < reach ? len : reach;
    gc_vec2 u = {len > 0.0f ? dx / len : 0.0f, len > 0.0f ? dy / len : 0.0f};
    *got = march(n, cs, a, u, need, reach, slack, room_low);
    return *got > 0 || gc_sim_visible(g, a, b, max_steps);
}

/*
 * Visibility by the clearance map first.  n's clearance bounds the distance
 * from a point to the nearest blocked cell of g (gc_sim_wall_room), so the
 * disc of that radius holds none: march along a->b from disc to disc
 * (sphere tracing).  When the discs cover the stretch gc_sim_visible would
 * walk (the whole segment, or the first max_steps cells of it: at most
 * sqrt 2 cells of length each, and the cell it enters next), no cell it
 * would look at is blocked, nor either cell beside a corner, and the
 * answer is its answer, true, at a few lookups instead of a cell-by-cell
 * walk.  Otherwise (near a wall, or starting in the blocked band) the walk
 * decides.  So the result is gc_sim_visible's, bit for bit; in open ground
 * the cost of steering falls to almost nothing.  The discs are the byte
 * map's (gc_nav_clear_low, at most a quarter cell smaller): a quarter of
 * the float map's memory, and on the generated 1,024-cell town with
 * 100,000 agents the float map's reads missed the caches (a third of
 * steering's time there); smaller discs only ever send more checks to
 * the walk.
 */
bool
gc_sim_visible_fast(const gc_nav *n, const gc_grid *g, gc_vec2 a, gc_vec2 b,
                    int64_t max_steps, float room_low)
{
    int got;
    return visible(n, g, a, b, max_steps, room_low, 0.0f, &got);
}

/*
 * Sight kept from tick to tick.  A waypoint b seen from a through discs
 * that still cover the stretch when narrowed by the slack (march) is
 * seen from any a2 within the slack of a, for the same step limit: the
 * point a fraction f along a2->b is within (1 - f) |a2 - a| of the point
 * f along a->b, which lies at most the slack past the stretch a2's check
 * needs (the two lengths differ by at most |a2 - a|), so inside a
 * narrowed disc, and the first point inside the whole one.  An agent
 * walks that far in several ticks; in between, its check is a
 * comparison.  The answer is gc_sim_visible's all the same.
 */
bool
gc_sim_visible_kept(const gc_nav *n, const gc_grid *g, gc_vec2 a, gc_vec2 b,
                    int64_t max_steps, float room_low, gc_sim_sight *kept,
                    uint32_t gen)
{
    float slack = GC_SIM_SIGHT_SLACK * g->cell_size;
    float cap = walk_cap(g->cell_size, max_steps);
    float ox = a.x - kept->at.x, oy = a.y - kept->at.y;
    /* (A hair inside the slack, for the rounding of the distances.) */
    if (kept->gen == gen && gen != 0 && kept->wp.x == b.x &&
        kept->wp.y == b.y && kept->cap == cap &&
        ox * ox + oy * oy <= 0.98f * slack * slack)
        return true;
    int got;
    bool seen = visible(n, g, a, b, max_steps, room_low, slack, &got);
    if (got == 2)
        *kept = (gc_sim_sight){a, b, cap, gen};
    return seen;
}

/*
 * The wall edges, by boundary: hk[y * w + x] is the boundary above cell
 * (x, y) (y from 0 to h), vk[x * h + y] the one left of it (x from 0 to
 * w; stored by column, so that a scan down a column reads in order); 0
 * where both sides are open or both are not, 1 where only the side
 * before it (above, left) is open, 2 where only the side after it is.
 * Outside the grid counts as not open.
 */
int
gc_sim_edges_build(gc_sim_edges *e, const gc_grid *g)
{
    int32_t w = g->width, h = g->height;
    size_t nh = (size_t)(h + 1) * (size_t)w, nv = (size_t)(w + 1) * (size_t)h;
    if (e->hk == NULL || e->w != w || e->h != h) {
        /* EDGE_PAD bytes past the end: edge_runs loads eight at a time. */
        uint8_t *hk = calloc(nh + EDGE_PAD, 1), *vk = calloc(nv + EDGE_PAD, 1);
        if (hk == NULL || vk == NULL) {
            free(hk);
            free(vk);
            return GC_ENOMEM;
        }
        gc_sim_edges_free(e);
        e->hk = hk;
        e->vk = vk;
        e->w = w;
        e->h = h;
    }
    /* Every segment kept from the last build is stale now (never 0: the
     * mark of none kept). */
    e->gen = e->gen + 1 != 0 ? e->gen + 1 : 1;
    for (int32_t y = 0; y <= h; y++)
        for (int32_t x = 0; x < w; x++) {
            bool a = gc_sim_open_cell(g, x, y - 1),
                 b = gc_sim_open_cell(g, x, y);
            e->hk[(size_t)y * (size_t)w + (size_t)x] = a == b ? 0 : (a ? 1 : 2);
        }
    for (int32_t x = 0; x <= w; x++)
        for (int32_t y = 0; y < h; y++) {
            bool a = gc_sim_open_cell(g, x - 1, y),
                 b = gc_sim_open_cell(g, x, y);
            e->vk[(size_t)x * (size_t)h + (size_t)y] = a == b ? 0 : (a ? 1 : 2);
        }
    return GC_OK;
}

void
gc_sim_edges_free(gc_sim_edges *e)
{
    free(e->hk);
    free(e->vk);
    /* The generation goes on: segments kept for a freed map must not
     * pass for the next one's. */
    *e = (gc_sim_edges){.gen = e->gen};
}

/* The mask of the first n (1 to 7) bytes of eight loaded from memory. */
static inline uint64_t
first_bytes(int32_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return ~(~UINT64_C(0) >> (8 * n));
#else
    return (UINT64_C(1) << (8 * n)) - 1;
#endif
}

/* The runs of equal non-zero kinds in k[lo .. hi] (inclusive), each as a
 * segment along the boundary at `at` (cells), appended to buf[m ..];
 * returns the new count.  Up to eight zero kinds at a time are skipped
 * with one load, masked to the range (which is often shorter than eight):
 * most boundaries near an agent are open on both sides.  The load may
 * read up to seven bytes past hi, into the next row or the padding. */
static size_t
edge_runs(const uint8_t *k, int32_t lo, int32_t hi, int32_t at, bool across,
          float cs, gc_orca_segment *buf, size_t m, size_t cap)
{
    int run = 0;
    int32_t from = lo;
    for (int32_t x = lo; x <= hi + 1 && m < cap;) {
        if (run == 0 && x <= hi) {
            uint64_t eight;
            memcpy(&eight, k + x, sizeof eight);
            int32_t left = hi + 1 - x;
            if (left < 8)
                eight &= first_bytes(left);
            if (eight == 0) {
                x += left < 8 ? left : 8;
                continue;
            }
        }
        int kind = x <= hi ? k[x] : 0;
        if (kind != run) {
            if (run != 0)
                buf[m++] =
                    across
                        ? (gc_orca_segment){{(float)from * cs, (float)at * cs},
                                            {(float)x * cs, (float)at * cs}}
                        : (gc_orca_segment){{(float)at * cs, (float)from * cs},
                                            {(float)at * cs, (float)x * cs}};
            run = kind;
            from = x;
        }
        x++;
    }
    return m;
}

/* The cells within `range` of p, a box [x0, x1] x [y0, y1]. */
struct box {
    int32_t x0, y0, x1, y1;
};

static inline struct box
box_of(float cs, gc_vec2 p, float range)
{
    struct box b = {gc_ifloor((p.x - range) / cs),
                    gc_ifloor((p.y - range) / cs),
                    gc_ifloor((p.x + range) / cs),
                    gc_ifloor((p.y + range) / cs)};
    return b;
}

/* The segments of the box of cells [x0, x1] x [y0, y1]. */
static size_t
box_segments(const gc_sim_edges *e, float cs, struct box b,
             gc_orca_segment *buf, size_t cap)
{
    int32_t x0 = b.x0, y0 = b.y0, x1 = b.x1, y1 = b.y1;
    /* Boundaries outside the grid have nothing open on either side. */
    int32_t cx0 = x0 > 0 ? x0 : 0, cx1 = x1 < e->w - 1 ? x1 : e->w - 1;
    int32_t cy0 = y0 > 0 ? y0 : 0, cy1 = y1 < e->h - 1 ? y1 : e->h - 1;
    size_t m = 0;
    /* Horizontal edges: the boundary above row y, between rows y-1, y. */
    int32_t ye = y1 + 1 < e->h ? y1 + 1 : e->h;
    for (int32_t y = cy0; y <= ye && m < cap; y++)
        m = edge_runs(e->hk + (size_t)y * (size_t)e->w, cx0, cx1, y, true, cs,
                      buf, m, cap);
    int32_t xe = x1 + 1 < e->w ? x1 + 1 : e->w;
    for (int32_t x = cx0; x <= xe && m < cap; x++)
        m = edge_runs(e->vk + (size_t)x * (size_t)e->h, cy0, cy1, x, false, cs,
                      buf, m, cap);
    return m;
}

/*
 * Wall segments within `range` of p: the edges between an obstacle cell
 * and an open cell, collinear neighbours merged into one segment (see
 * gc_orca_segment: separate pieces would hold an agent back at every
 * joint).  Clipped to the square of cells around p: rows of boundaries
 * top to bottom, each left to right, then columns left to right, each top
 * to bottom (tests/test_crowd.c holds the cell-by-cell scan this replaced
 * and compares the two).
 */
size_t
gc_sim_wall_segments(const gc_sim_edges *e, float cs, gc_vec2 p, float range,
                     gc_orca_segment *buf, size_t cap)
{
    return box_segments(e, cs, box_of(cs, p, range), buf, cap);
}

size_t
gc_sim_wall_segments_kept(const gc_sim_edges *e, float cs, gc_vec2 p,
                          float range, gc_orca_segment *buf, size_t cap,
                          gc_sim_walls *kept, const gc_orca_segment **out)
{
    struct box b = box_of(cs, p, range);
    if (kept->gen == e->gen && kept->x0 == b.x0 && kept->y0 == b.y0 &&
        kept->x1 == b.x1 && kept->y1 == b.y1 && kept->m <= cap) {
        *out = kept->seg;
        return kept->m;
    }
    size_t m = box_segments(e, cs, b, buf, cap);
    *out = buf;
    /* Only a list the cap did not cut (it holds every segment of the
     * box), so that a larger cap later still gets all of them. */
    if (m <= GC_SIM_WALLS_KEPT && m < cap) {
        kept->x0 = b.x0;
        kept->y0 = b.y0;
        kept->x1 = b.x1;
        kept->y1 = b.y1;
        kept->gen = e->gen;
        kept->m = (uint32_t)m;
        memcpy(kept->seg, buf, m * sizeof *buf);
    } else {
        kept->gen = 0;
    }
    return m;
}

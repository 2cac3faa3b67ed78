/*
 * sim-jam.c: planning around jams.
 *
 * ORCA and the deadlock rules in sim-crowd.c untangle a standoff of a few
 * agents.  They cannot untangle a passage one cell wide that two streams
 * keep filling from both ends: wanderers whose random goals lie beyond it
 * queue at both ends for minutes (den520d with 10,000 bodies: a quarter
 * stalled, the longest for 5 minutes), and every new goal beyond it sends
 * more.  Crowds avoid a jam they can see; so do these agents.
 *
 * Once a simulated second the loop (between ticks) copies the planning
 * grid into the jam grid and blocks in it every cell within JAM_ROOM cells
 * of a wall where a wandering agent has made no progress for JAM_TIME
 * seconds, or where a crowd stands: bodies (anyone's) covering JAM_PACKED
 * of the floor of the 3 x 3 cells around it; with navigation data of its
 * own (rebuilt only when the jam changed).  The crowd rule keeps
 * wanderers out of a crowd before it stalls (den520d, 10,000 bodies, 3
 * minutes: with a crowd at 1.5 bodies of radius 0.3 a cell, the longest
 * stall 44 s and 77 stalled at the end; at 1, JAM_PACKED, 36 s and 13, and
 * the mean speed 0.61 -> 0.69 of preferred; lower, 0.75 and 0.6, did
 * worse: 71 s and 53 s).  A wanderer's plan (sim-plan.c) then takes the
 * jam grid when its start and goal are joined there: the path goes round
 * the jam, or a
 * jammed passage is simply not chosen; a wanderer whose goal lies only
 * beyond a jam draws another on its own side (its goal is its own choice;
 * a few tries, else it plans as before).  One standing in a jammed cell
 * starts from the nearest free cell within JAM_OUT cells, so those at the
 * edge of a jam are routed away from it first.
 *
 * Wanderers only.  Agents with goals someone set have one way to them,
 * jam or not; routed round the agents stalled in a counterflow they cross
 * the other stream (corridor 1,000: all arrived after 270 s instead of
 * 183).  And in open ground a path round a stalled crowd is the line
 * beside it, so only jams near walls count: map-sized navigation data is
 * not rebuilt every second for a crowd in a field.

 * It is a congestion cost that is either nothing or a wall: jump point
 * search needs uniform costs, and the jam grid keeps them.  A grid change
 * drops it until the next second's rebuild, so no plan goes through a
 * wall the edit added.
 *
 * The jam grid's navigation data is derived from the planning grid's
 * (gc_nav_derive, nav-derive.c: a copy with local repairs, and no
 * clearance, as the jam grid is searched at radius 0).  From scratch it
 * took a twentieth of a core on a 1,024 x 1,024 map with a crowd by its
 * edge (100,000 wanderers), for a few dozen jammed cells; a jam that
 * cuts a passage still has the components labelled afresh.
 *
 * Off the tick's path.  The navigation data of a map-sized grid takes a
 * while (den520d from scratch: 4 ms, half a tick of 10,000 bodies), and
 * once a second in the loop it was the tick that overran in real time.
 * So the loop only scans the agents, from a tick T, a multiple of a
 * second, and after the step of the tick the scan ended in starts a
 * thread (at a lower priority; sim.c: gc_sim_jam_start) that builds the
 * next grid's data; the result takes effect half a second (JAM_DELAY)
 * after the scan ended, the loop joining the thread first (waiting, if
 * it is not done).  The scan itself is spread over ticks when the crowd
 * is large: at most JAM_SLICE agents, occupied cells or areas cleared a
 * tick (10,000 bodies take one tick, 100,000 about ten).  Whole, open
 * ground's 100,000 wanderers made every sixtieth tick 4 to 6 ms longer,
 * the one tick a second over the real-time budget, with the few after
 * it catching up.  Each agent is read once, at the tick its part is
 * scanned.  The jam in force is a function of the agents' states at the
 * scan's ticks alone, whatever the timing, so the run is still the same
 * for any number of threads.  Agents in a jam for JAM_TIME seconds are
 * routed round it half a second later: nobody notices.
 */
#include "config.h"

#include "sim_int.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define JAM_TIME 3.0f /* s without progress: the agent's cell is jammed */
/* Cells from a wall: only jams this near walls count.  In open ground a
 * path round a stalled crowd is the straight line beside it, and the
 * navigation data of a map-sized grid would be rebuilt every second for
 * nothing. */
#define JAM_ROOM 16.0f
#define JAM_OUT 3     /* cells: how far an agent in a jam looks for its edge */
#define JAM_DELAY 0.5 /* s from the scan to the jam taking effect */
#define JAM_NICE 10   /* the jam thread's nice value */
/* A crowd: bodies cover this share of the floor around a cell (one body
 * of radius 0.3 cell per cell). */
#define JAM_PACKED 0.28f

/* The scan reaches the per-cell arrays in no order of cells (agents by
 * slot, then their cells in that order): fetched this many agents or
 * cells ahead, as each was a miss (open ground, 100,000 wanderers: a scan
 * took 8.7 to 11 ms in the loop, once a second; fetched ahead, 5.3 to
 * 5.7). */
#define JAM_AHEAD 16

/* Agents, occupied cells or areas a tick's share of the scan takes at
 * most.  A crowd larger than that is scanned over a few ticks: open
 * ground's 100,000 wanderers took 4 to 6 ms in one tick, a second's
 * every sixtieth tick over the real-time budget. */
#define JAM_SLICE 32768u

/* Fetch the area of agent i's cell (near enough: its cell by position). */
static void
jam_fetch(const gc_sim *s, uint32_t i)
{
    const gc_grid *pg = s->pgrid;
    gc_cell f = gc_grid_world_to_cell(pg, s->agents[i].pos);
    if (gc_grid_in_bounds(pg, f.x, f.y))
        __builtin_prefetch(&s->jarea[gc_grid_index(pg, f.x, f.y)], 1);
}

/* The build: navigation data for jgrid2 (the jam thread, or the loop when
 * no thread could start). */
static void *
jam_build(void *arg)
{
    gc_sim *s = arg;
    s->jam_rc = gc_nav_derive(&s->jnav2, s->nav, s->pgrid, s->jgrid2, s->jlist,
                              s->jam_cells2, NULL);
    return NULL;
}

/* The jam thread: the build, at a lower priority (nice JAM_NICE, Linux's
 * per-thread nice), so that it mostly takes the cores while the loop
 * sleeps between real-time ticks, not from the agent threads during one
 * (at their priority it stretched the tick it started in).  Not
 * SCHED_IDLE: under another process's load an idle thread gets almost
 * no CPU, and an unprivileged loop could not raise it back when its
 * result is due; at nice 10 it still gets a tenth of a core. */
static void *
jam_thread_main(void *arg)
{
#ifdef __linux__
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), JAM_NICE);
#endif
    return jam_build(arg);
}

/* Wait for the build under way, if any; its result (GC_OK when none). */
static int
jam_join(gc_sim *s)
{
    if (!s->jam_busy)
        return GC_OK;
    if (s->jam_pending) { /* never started: built here */
        s->jam_pending = false;
        jam_build(s);
    } else if (s->jam_threaded) {
        pthread_join(s->jam_thread, NULL);
    }
    s->jam_busy = false;
    return s->jam_rc;
}

void
gc_sim_jam_drop(gc_sim *s)
{
    (void)jam_join(s); /* built for the old grid: dropped */
    s->jam_active = false;
    /* A scan under way read the old grid: dropped too, its areas zeroed
     * (zeroing one twice is harmless). */
    if (s->jam_phase != JAM_IDLE)
        for (uint32_t o = 0; o < s->jam_occupied; o++)
            s->jarea[s->jocc[o]] = 0.0f;
    s->jam_phase = JAM_IDLE;
}

void
gc_sim_jam_free(gc_sim *s)
{
    (void)jam_join(s);
    gc_nav_free(s->jnav);
    gc_nav_free(s->jnav2);
    gc_grid_free(s->jgrid);
    gc_grid_free(s->jgrid2);
    free(s->jcells);
    free(s->jlist);
    free(s->jocc);
    free(s->jarea);
}

/* The build started at the scan takes effect: the new grid and data are
 * swapped in. */
static int
jam_install(gc_sim *s)
{
    int rc = jam_join(s);
    if (rc != GC_OK)
        return rc;
    gc_grid *g = s->jgrid;
    gc_nav *n = s->jnav;
    s->jgrid = s->jgrid2;
    s->jnav = s->jnav2;
    s->jgrid2 = g;
    s->jnav2 = n;
    s->jam_active = true;
    s->jam_cells = s->jam_cells2;
    return GC_OK;
}

/* Ticks a simulated second. */
static uint64_t
jam_hz(const gc_sim *s)
{
    uint64_t hz = (uint64_t)lround(1.0 / (double)s->dt);
    return hz > 0 ? hz : 1;
}

/* The scan's first step, at a whole second: the buffers, and the
 * planning grid's cells copied.  False when no scan is wanted (or on
 * error, *rc set). */
static bool
jam_scan_begin(gc_sim *s, int *rc)
{
    const gc_grid *pg = s->pgrid;
    size_t cells = (size_t)pg->width * (size_t)pg->height;
    *rc = GC_OK;
    /* Only wanderers plan on the jam grid: without any, no scan (a crowd
     * of set goals would pay a map-sized pass a second for nothing). */
    bool wanderers = false;
    for (uint32_t i = 0; i < s->n && !wanderers; i++)
        wanderers =
            gc_sim_alive(s, i) && s->slot[i].goal_kind == GC_SIM_GOAL_WANDER;
    if (!wanderers) {
        s->jam_active = false;
        s->jam_cells = 0;
        return false;
    }
    if (s->jcells == NULL && (s->jcells = malloc(cells)) == NULL)
        *rc = GC_ENOMEM;
    /* jarea is all zero between scans: only the cells listed in jocc
     * are written, and they are zeroed again at the scan's end.  Both
     * lists hold cells with someone in them, distinct: at most an
     * agent's each (a slot is visited once a scan). */
    else if (s->jarea == NULL &&
             (s->jarea = calloc(cells, sizeof *s->jarea)) == NULL)
        *rc = GC_ENOMEM;
    else if (s->jocc == NULL &&
             (s->jocc = malloc(((size_t)s->cap + 1) * sizeof *s->jocc)) == NULL)
        *rc = GC_ENOMEM;
    else if (s->jlist == NULL && (s->jlist = malloc(((size_t)s->cap + 1) *
                                                    sizeof *s->jlist)) == NULL)
        *rc = GC_ENOMEM;
    if (*rc != GC_OK)
        return false;
    memcpy(s->jcells, pg->cells, cells);
    s->jam_phase = JAM_AGENTS;
    s->jam_next = 0;
    s->jam_occupied = 0;
    s->jam_marked = 0;
    return true;
}

/* The end of this call's share of a phase over [jam_next, total): at most
 * *budget items, taken from *budget. */
static uint32_t
jam_share(const gc_sim *s, uint32_t total, uint32_t *budget)
{
    uint32_t end =
        total - s->jam_next > *budget ? s->jam_next + *budget : total;
    *budget -= end - s->jam_next;
    return end;
}

/* The phase reached `at` of its `total` items: done, the next one begins. */
static void
jam_advance(gc_sim *s, uint32_t at, uint32_t total, int next)
{
    s->jam_next = at;
    if (at >= total) {
        s->jam_phase = next;
        s->jam_next = 0;
    }
}

/* Cell k blocked in the next jam grid (once). */
static void
jam_mark(gc_sim *s, size_t k)
{
    if (s->jcells[k] != GC_CELL_OBSTACLE) {
        s->jcells[k] = GC_CELL_OBSTACLE;
        s->jlist[s->jam_marked++] = (uint32_t)k;
    }
}

/* Agents [jam_next, jam_next + *budget) into the areas; an agent
 * wandering and stalled for JAM_TIME near a wall jams its cell. */
static void
jam_scan_agents(gc_sim *s, uint32_t *budget)
{
    const gc_grid *pg = s->pgrid;
    uint64_t jam = (uint64_t)lroundf(JAM_TIME * (float)jam_hz(s));
    uint32_t i = s->jam_next, end = jam_share(s, s->n, budget);
    for (; i < end; i++) {
        jam_fetch(s, i + JAM_AHEAD < s->n ? i + JAM_AHEAD : i);
        gc_cell c;
        if (!gc_sim_alive(s, i) || !gc_sim_plan_cell(s, s->agents[i].pos, &c))
            continue;
        size_t k = gc_grid_index(pg, c.x, c.y);
        float r = gc_sim_body_radius(s, i);
        if (s->jarea[k] == 0.0f)
            s->jocc[s->jam_occupied++] = (uint32_t)k;
        s->jarea[k] += (float)M_PI * r * r;
        if (s->slot[i].goal_kind != GC_SIM_GOAL_WANDER ||
            s->agents[i].state != GC_AGENT_MOVING ||
            s->ticks < s->body[i].progress_tick + jam ||
            gc_nav_clear_at(s->nav, c) >= JAM_ROOM)
            continue;
        jam_mark(s, k);
    }
    jam_advance(s, i, s->n, JAM_CROWDS);
}

/* Crowds, for the occupied cells [jam_next, jam_next + *budget): a cell
 * with someone in it whose 3 x 3 block of cells is covered by bodies for
 * JAM_PACKED of its area or more: the cells listed as the areas were
 * summed, not every cell of the map, nor the whole area map cleared each
 * scan.  (A cell's sum reads only the areas, complete by now, so the
 * order they are judged in changes nothing.) */
static void
jam_scan_crowds(gc_sim *s, uint32_t *budget)
{
    const gc_grid *pg = s->pgrid;
    size_t cells = (size_t)pg->width * (size_t)pg->height;
    float packed = 9.0f * JAM_PACKED * pg->cell_size * pg->cell_size;
    uint32_t o = s->jam_next, end = jam_share(s, s->jam_occupied, budget);
    for (; o < end; o++) {
        if (o + JAM_AHEAD < s->jam_occupied) {
            size_t f = s->jocc[o + JAM_AHEAD], w = (size_t)pg->width;
            __builtin_prefetch(&s->jarea[f >= w ? f - w : f]);
            __builtin_prefetch(&s->jarea[f]);
            __builtin_prefetch(&s->jarea[f + w < cells ? f + w : f]);
            __builtin_prefetch(&s->jcells[f]);
        }
        size_t k = s->jocc[o];
        int32_t x = (int32_t)(k % (size_t)pg->width),
                y = (int32_t)(k / (size_t)pg->width);
        if (s->jcells[k] == GC_CELL_OBSTACLE)
            continue;
        float sum = 0.0f;
        for (int32_t dy = -1; dy <= 1; dy++)
            for (int32_t dx = -1; dx <= 1; dx++)
                if (gc_grid_in_bounds(pg, x + dx, y + dy))
                    sum += s->jarea[gc_grid_index(pg, x + dx, y + dy)];
        if (sum >= packed &&
            gc_nav_clear_at(s->nav, (gc_cell){x, y}) < JAM_ROOM)
            jam_mark(s, k);
    }
    jam_advance(s, o, s->jam_occupied, JAM_CLEAR);
}

/* The areas of [jam_next, jam_next + *budget) back to zero. */
static void
jam_scan_clear(gc_sim *s, uint32_t *budget)
{
    uint32_t o = s->jam_next, end = jam_share(s, s->jam_occupied, budget);
    for (; o < end; o++)
        s->jarea[s->jocc[o]] = 0.0f;
    jam_advance(s, o, s->jam_occupied, JAM_IDLE);
}

/* The scan is complete: the jam it found starts building, unless it is
 * none or the one in force. */
static int
jam_scan_end(gc_sim *s)
{
    const gc_grid *pg = s->pgrid;
    size_t cells = (size_t)pg->width * (size_t)pg->height;
    uint32_t marked = s->jam_marked;
    if (marked == 0) {
        s->jam_active = false;
        s->jam_cells = 0;
        return GC_OK;
    }
    /* The same jam as a second ago (a queue that has not moved): the
     * grid and its navigation data stand. */
    if (s->jam_active && memcmp(s->jgrid->cells, s->jcells, cells) == 0)
        return GC_OK;
    if (s->jgrid2 == NULL) {
        int rc = gc_grid_clone(&s->jgrid2, pg);
        if (rc != GC_OK)
            return rc;
    }
    gc_grid *j = s->jgrid2;
    memcpy(j->cells, s->jcells, cells);
    memcpy(j->cost, pg->cost, sizeof pg->cost);
    j->cell_size = pg->cell_size;
    /* Newer than either grid's data, so the build recomputes it: jnav2
     * may describe this very grid's cells from a build dropped by a grid
     * change (gc_sim_jam_drop), and a generation it had seen would let
     * gc_nav_update keep that stale data. */
    uint64_t gen = j->generation;
    if (s->jgrid != NULL && s->jgrid->generation > gen)
        gen = s->jgrid->generation;
    j->generation = gen + 1;
    s->jam_cells2 = marked;
    uint64_t delay = (uint64_t)llround(JAM_DELAY * (double)jam_hz(s));
    s->jam_due = s->ticks + (delay > 0 ? delay : 1);
    s->jam_busy = true;
    s->jam_pending = true; /* started after this tick's step */
    s->jam_threaded = false;
    return GC_OK;
}

void
gc_sim_jam_start(gc_sim *s)
{
    if (!s->jam_pending)
        return;
    s->jam_pending = false;
    s->jam_threaded =
        pthread_create(&s->jam_thread, NULL, jam_thread_main, s) == 0;
    if (!s->jam_threaded)
        jam_build(s); /* no thread: built now */
}

int
gc_sim_jam_update(gc_sim *s)
{
    if (s->body == NULL || !gc_sim_bodies(s))
        return GC_OK;
    if (s->jam_busy && s->ticks >= s->jam_due) {
        int rc = jam_install(s);
        if (rc != GC_OK)
            return rc;
    }
    if (s->jam_phase == JAM_IDLE) {
        int rc = GC_OK;
        if (s->ticks % jam_hz(s) != 0 || s->jam_busy || !jam_scan_begin(s, &rc))
            return rc;
    }
    uint32_t budget = s->jam_slice > 0 ? s->jam_slice : JAM_SLICE;
    if (s->jam_phase == JAM_AGENTS)
        jam_scan_agents(s, &budget);
    if (s->jam_phase == JAM_CROWDS && budget > 0)
        jam_scan_crowds(s, &budget);
    if (s->jam_phase == JAM_CLEAR && budget > 0) {
        jam_scan_clear(s, &budget);
        if (s->jam_phase == JAM_IDLE)
            return jam_scan_end(s);
    }
    return GC_OK;
}

/* The cell to search from in the jam grid: start itself, or when a jam
 * covers it the nearest free cell within JAM_OUT cells (ring by ring,
 * each ring in a fixed order) that the body at pos can walk to in a
 * straight line, so that an agent inside a jam plans from its edge, not
 * through it.  Walkable, not merely near: the nearest free cell by
 * index can lie beyond a wall, and an agent in the end of a dead-end
 * pocket then pressed into the pocket's corner towards it,
 * for good (den520d seed 1, 10,000 bodies: three wanderers stalled
 * 25 s and more in one pocket). */
static bool
jam_start(const gc_sim *s, gc_cell start, gc_vec2 pos, gc_cell *out)
{
    if (gc_grid_passable(s->jgrid, start.x, start.y)) {
        *out = start;
        return true;
    }
    for (int32_t r = 1; r <= JAM_OUT; r++)
        for (int32_t dy = -r; dy <= r; dy++)
            for (int32_t dx = -r; dx <= r; dx++) {
                if (dx != -r && dx != r && dy != -r && dy != r)
                    continue; /* inside the ring: done already */
                gc_cell c = {start.x + dx, start.y + dy};
                if (gc_grid_passable(s->jgrid, c.x, c.y) &&
                    gc_sim_visible(s->pgrid, pos,
                                   gc_grid_cell_center(s->pgrid, c),
                                   INT64_MAX)) {
                    *out = c;
                    return true;
                }
            }
    return false;
}

bool
gc_sim_jam_route(gc_sim *s, uint32_t i, gc_cell *start)
{
    if (!s->jam_active)
        return false;
    gc_cell from;
    if (!jam_start(s, *start, s->agents[i].pos, &from))
        return false;
    gc_agent *a = &s->agents[i];
    gc_diag_rule d = s->cfg.diag;
    uint32_t l = gc_nav_component(s->jnav, d, from);
    if (l == 0)
        return false;
    if (gc_nav_component(s->jnav, d, a->goal) != l) {
        gc_cell goal = a->goal;
        bool found = false;
        for (int tries = 0; tries < 8 && !found; tries++) {
            goal = gc_sim_random_goal(s, i, *start);
            found = gc_nav_component(s->jnav, d, goal) == l;
        }
        if (!found)
            return false;
        a->goal = goal;
    }
    *start = from;
    return true;
}

/*
 * agent.c: one agent's motion along its waypoints.
 *
 * Rules kept here:
 * - Distance: a MOVING agent covers exactly speed * dt per step along its
 *   polyline (less only when it arrives).  Intermediate waypoints are passed
 *   exactly, never cut by the arrival radius: the segments between them come
 *   from a legal path, so walking them keeps the agent out of impassable
 *   cells by construction, where cutting inside a corner of a smoothed path
 *   could graze a wall.
 * - Arrival: within arrive_radius of the last waypoint, or on it.
 * - Heading: without a turn rate, atan2(dy, dx) of this step's last
 *   direction of travel (unchanged when the agent does not move).  With
 *   one, turn then go: the heading turns by at most turn_rate * dt per
 *   step towards the direction of travel, and the agent moves at speed
 *   scaled by the cosine of the angle still between them, never more than
 *   90 degrees off its heading (issue 15 item 6: before, only the drawn
 *   heading turned and agents slid sideways and backwards at full speed).
 * - Distance with a turn rate: at most speed * dt, less while turning.
 */
#include "config.h"

#include <gridcrowd/agent.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GC_PI_F 3.14159265358979323846f

const char *
gc_agent_state_name(int state)
{
    static const char *const names[GC_AGENT_NSTATES] = {
        "idle", "waiting", "moving", "arrived", "stuck", "unreachable"};
    return (state >= 0 && state < GC_AGENT_NSTATES) ? names[state] : "unknown";
}

void
gc_agent_init(gc_agent *a, gc_vec2 pos, float heading)
{
    memset(a, 0, sizeof *a);
    a->pos = pos;
    a->heading = heading;
    a->state = GC_AGENT_IDLE;
}

void
gc_agent_release(gc_agent *a)
{
    free(a->wp);
    a->wp = NULL;
    a->wp_len = a->wp_next = a->wp_cap = 0;
    a->state = GC_AGENT_IDLE;
}

void
gc_agent_clear_path(gc_agent *a)
{
    a->wp_len = a->wp_next = 0;
}

int
gc_agent_set_path(gc_agent *a, const gc_grid *g, const gc_path *p)
{
    if (p == NULL || p->len == 0 || p->len > UINT32_MAX)
        return GC_EINVAL;
    size_t first = 0;
    if (p->len > 1) {
        gc_vec2 c0 = gc_grid_cell_center(g, p->cells[0]);
        if (c0.x == a->pos.x && c0.y == a->pos.y)
            first = 1;
    }
    size_t n = p->len - first;
    if (n > a->wp_cap) {
        size_t cap = a->wp_cap ? a->wp_cap : 8;
        while (cap < n)
            cap *= 2;
        if (cap > UINT32_MAX)
            cap = UINT32_MAX;
        gc_vec2 *wp = realloc(a->wp, cap * sizeof *wp);
        if (wp == NULL)
            return GC_ENOMEM;
        a->wp = wp;
        a->wp_cap = (uint32_t)cap;
    }
    for (size_t i = 0; i < n; i++)
        a->wp[i] = gc_grid_cell_center(g, p->cells[first + i]);
    a->wp_len = (uint32_t)n;
    a->wp_next = 0;
    a->goal = p->cells[p->len - 1];
    a->state = GC_AGENT_MOVING;
    return GC_OK;
}

float
gc_heading_turn(float from, float to, float max_turn)
{
    float diff = remainderf(to - from, 2.0f * GC_PI_F); /* in [-pi, pi] */
    if (max_turn > 0.0f && fabsf(diff) > max_turn)
        diff = diff > 0.0f ? max_turn : -max_turn;
    float h = remainderf(from + diff, 2.0f * GC_PI_F);
    return h <= -GC_PI_F ? h + 2.0f * GC_PI_F : h;
}

/* The one "go" rule of turn then go, shared with the crowd (sim-crowd.c):
 * the cosine of the angle between heading and wanted direction, so motion
 * is never more than 90 degrees off the heading and slows in a turn. */
float
gc_heading_go(float heading, float want)
{
    float off = fabsf(remainderf(want - heading, 2.0f * GC_PI_F));
    return off < GC_PI_F / 2.0f ? cosf(off) : 0.0f;
}

/* Arrived: past the last waypoint, or on the way to it within the
 * arrival radius.  Then it stops where it is. */
static bool
check_arrival(gc_agent *a, const gc_agent_params *pr)
{
    bool arrived = false;
    if (a->wp_next >= a->wp_len) {
        arrived = true;
    } else if (a->wp_next + 1 == a->wp_len) {
        gc_vec2 w = a->wp[a->wp_next];
        float dx = w.x - a->pos.x, dy = w.y - a->pos.y;
        if (dx * dx + dy * dy <= pr->arrive_radius * pr->arrive_radius)
            arrived = true;
    }
    if (arrived) {
        a->wp_next = a->wp_len;
        a->state = GC_AGENT_ARRIVED;
    }
    return arrived;
}

/*
 * Turn, then go (a turn rate is set).  First turn the heading towards the
 * direction of the segment ahead by at most turn_rate * dt; then walk, at
 * speed * cos(angle between the heading and the segment), for the step's
 * time, onto later segments too while they are less than 90 degrees off
 * the heading.  So motion is never more than 90 degrees off the heading
 * (at 90 or more the agent turns in place), slows in a sharp turn and is
 * at full speed once the heading is on the path.  The agent still walks only the
 * segments of its path, so it stays out of impassable cells as before.
 */
static void
step_turning(gc_agent *a, float dt, const gc_agent_params *pr)
{
    float turn_left = pr->turn_rate * dt;
    float time_left = dt;
    while (time_left > 0.0f && a->wp_next < a->wp_len) {
        gc_vec2 w = a->wp[a->wp_next];
        float dx = w.x - a->pos.x, dy = w.y - a->pos.y;
        float d = sqrtf(dx * dx + dy * dy);
        if (d == 0.0f) {
            a->wp_next++;
            continue;
        }
        float want = atan2f(dy, dx);
        /* Turn only before moving: once it moved, the heading holds for
         * the rest of the step, so every piece of the step's motion, and
         * the whole of it, is within 90 degrees of the heading shown. */
        if (turn_left > 0.0f && time_left == dt) {
            float h = gc_heading_turn(a->heading, want, turn_left);
            turn_left -= fabsf(remainderf(h - a->heading, 2.0f * GC_PI_F));
            a->heading = h;
        }
        float f = gc_heading_go(a->heading, want);
        if (f <= 1e-6f)
            break; /* facing away: it turns in place until next step */
        float v = pr->speed * f;
        if (d <= v * time_left) {
            a->pos = w;
            a->travelled += d;
            time_left -= d / v;
            a->wp_next++;
            continue;
        }
        a->pos.x += dx / d * v * time_left;
        a->pos.y += dy / d * v * time_left;
        a->travelled += v * time_left;
        time_left = 0.0f;
    }
}

bool
gc_agent_step(gc_agent *a, float dt, const gc_agent_params *pr)
{
    if (a->state != GC_AGENT_MOVING || a->wp_next >= a->wp_len)
        return false;
    if (pr->turn_rate > 0.0f) {
        step_turning(a, dt, pr);
        return check_arrival(a, pr);
    }

    /* Turning at once: exactly speed * dt along the polyline. */
    float budget = pr->speed * dt;
    float dir_x = 0.0f, dir_y = 0.0f;
    while (budget > 0.0f && a->wp_next < a->wp_len) {
        gc_vec2 w = a->wp[a->wp_next];
        float dx = w.x - a->pos.x, dy = w.y - a->pos.y;
        float d = sqrtf(dx * dx + dy * dy);
        if (d > 0.0f) {
            dir_x = dx;
            dir_y = dy;
        }
        if (d <= budget) {
            a->pos = w;
            a->travelled += d;
            budget -= d;
            a->wp_next++;
            continue;
        }
        a->pos.x += dx / d * budget;
        a->pos.y += dy / d * budget;
        a->travelled += budget;
        budget = 0.0f;
    }
    bool arrived = check_arrival(a, pr);
    if (dir_x != 0.0f || dir_y != 0.0f)
        a->heading = gc_heading_turn(a->heading, atan2f(dir_y, dir_x), 0.0f);
    return arrived;
}

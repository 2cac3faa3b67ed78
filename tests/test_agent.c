/*
 * test_agent.c: motion over known waypoints: distance per tick, carrying
 * the remainder round corners, arrival, heading in each of the 8
 * directions, and the turn-rate limit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gridcrowd/agent.h>

#include <math.h>

#define PI 3.14159265358979323846
#define EPS 1e-5

static gc_grid *grid;

static int
setup(void **state)
{
    (void)state;
    return gc_grid_new(&grid, 16, 16);
}

static int
teardown(void **state)
{
    (void)state;
    gc_grid_free(grid);
    return 0;
}

static void
give_path(gc_agent *a, const gc_cell *cells, size_t n)
{
    gc_path p = {(gc_cell *)cells, n, n};
    assert_int_equal(gc_agent_set_path(a, grid, &p), GC_OK);
}

static void
assert_near(double got, double want)
{
    if (fabs(got - want) > EPS)
        fail_msg("got %.7f, want %.7f", got, want);
}

static void
test_distance_per_tick(void **state)
{
    (void)state;
    gc_agent a;
    gc_agent_init(&a, (gc_vec2){0.5f, 0.5f}, 0.0f);
    const gc_cell cells[] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}};
    give_path(&a, cells, 5);
    assert_int_equal(a.state, GC_AGENT_MOVING);
    assert_int_equal(gc_agent_remaining(&a), 4); /* start cell skipped */
    gc_agent_params pr = {2.0f, 0.0f, 0.0f};
    for (int t = 1; t <= 10; t++) {
        gc_vec2 before = a.pos;
        assert_false(gc_agent_step(&a, 0.1f, &pr));
        float dx = a.pos.x - before.x, dy = a.pos.y - before.y;
        assert_near(sqrt(dx * dx + dy * dy), 0.2);
        assert_near(a.pos.x, 0.5 + 0.2 * t);
        assert_near(a.pos.y, 0.5);
    }
    assert_near(a.travelled, 2.0);
    gc_agent_release(&a);
}

static void
test_corner_carry_and_arrival(void **state)
{
    (void)state;
    gc_agent a;
    gc_agent_init(&a, (gc_vec2){0.5f, 0.5f}, 0.0f);
    /* Smoothed path: two long segments with a right-angle turn. */
    const gc_cell cells[] = {{0, 0}, {2, 0}, {2, 2}};
    give_path(&a, cells, 3);
    gc_agent_params pr = {3.0f, 0.0f, 0.0f};
    assert_false(gc_agent_step(&a, 1.0f, &pr));
    /* 2 units east to the corner, the remaining 1 south. */
    assert_near(a.pos.x, 2.5);
    assert_near(a.pos.y, 1.5);
    assert_near(a.travelled, 3.0);
    assert_near(a.heading, PI / 2); /* facing south: world y down */
    assert_true(gc_agent_step(&a, 1.0f, &pr));
    assert_int_equal(a.state, GC_AGENT_ARRIVED);
    assert_near(a.pos.x, 2.5);
    assert_near(a.pos.y, 2.5);
    assert_near(a.travelled, 4.0); /* stops on arrival, no overshoot */
    /* An arrived agent stays put. */
    assert_false(gc_agent_step(&a, 1.0f, &pr));
    assert_near(a.pos.y, 2.5);
    gc_agent_release(&a);
}

static void
test_arrive_radius(void **state)
{
    (void)state;
    gc_agent a;
    gc_agent_init(&a, (gc_vec2){0.5f, 0.5f}, 0.0f);
    const gc_cell cells[] = {{0, 0}, {5, 0}};
    give_path(&a, cells, 2);
    gc_agent_params pr = {1.0f, 0.3f, 0.0f};
    int ticks = 0;
    while (!gc_agent_step(&a, 0.25f, &pr))
        ticks++;
    /* 5 units; within 0.3 after 4.75 units = 19 steps of 0.25. */
    assert_int_equal(ticks + 1, 19);
    assert_near(a.pos.x, 5.25);
    assert_int_equal(a.state, GC_AGENT_ARRIVED);
    gc_agent_release(&a);
}

static void
test_heading_8_directions(void **state)
{
    (void)state;
    static const struct {
        int dx, dy;
        double heading;
    } dirs[8] = {
        {1, 0, 0.0},         {1, 1, PI / 4},   {0, 1, PI / 2},
        {-1, 1, 3 * PI / 4}, {-1, 0, PI},      {-1, -1, -3 * PI / 4},
        {0, -1, -PI / 2},    {1, -1, -PI / 4},
    };
    gc_agent_params pr = {1.0f, 0.0f, 0.0f};
    for (int i = 0; i < 8; i++) {
        gc_agent a;
        gc_agent_init(&a, (gc_vec2){8.5f, 8.5f}, 1.0f);
        const gc_cell cells[] = {{8, 8},
                                 {8 + 3 * dirs[i].dx, 8 + 3 * dirs[i].dy}};
        give_path(&a, cells, 2);
        gc_agent_step(&a, 0.5f, &pr);
        double want = dirs[i].heading;
        double got = a.heading;
        /* pi and -pi are the same heading; the API returns (-pi, pi]. */
        assert_true(got > -PI && got <= PI + EPS);
        assert_near(got, want);
        gc_agent_release(&a);
    }
}

static void
test_turn_rate(void **state)
{
    (void)state;
    gc_agent a;
    gc_agent_init(&a, (gc_vec2){0.5f, 8.5f}, 0.0f); /* facing east */
    const gc_cell cells[] = {{0, 8}, {0, 0}};       /* path goes north */
    give_path(&a, cells, 2);
    gc_agent_params pr = {1.0f, 0.0f, (float)(PI / 2)}; /* 90 deg/s */
    gc_agent_step(&a, 0.25f, &pr);
    assert_near(a.heading, -PI / 8); /* turned 22.5 degrees */
    /* Movement stays on the path (x unchanged) but turns, then goes
     * (issue 15 item 6): still 67.5 degrees off, it covers only
     * cos(67.5 deg) of the 0.25 units it would at full speed.  (Before,
     * it covered all 0.25: y was 8.25.) */
    assert_near(a.pos.x, 0.5);
    assert_near(a.pos.y, 8.5 - 0.25 * cos(3 * PI / 8));
    for (int i = 0; i < 3; i++)
        gc_agent_step(&a, 0.25f, &pr);
    assert_near(a.heading, -PI / 2);
    gc_agent_step(&a, 0.25f, &pr);
    assert_near(a.heading, -PI / 2); /* no overshoot */
    gc_agent_release(&a);

    /* Turning across +-pi takes the short way round. */
    assert_near(gc_heading_turn(3.0f, -3.0f, 0.1f), 3.1);
    assert_near(gc_heading_turn(-3.1f, 3.1f, 0.05f), -3.15 + 2 * PI);
    assert_near(gc_heading_turn(0.0f, 2.0f, 0.0f), 2.0);
}

/*
 * Turn, then go (issue 15 item 6): an agent facing east on a path that
 * goes west, then north, then east again.  At every step its motion is
 * within 90 degrees of its heading, it does not move at all while facing
 * away, it is slower while turning than on a straight stretch, and it
 * still follows the path to the end.
 */
static void
test_turn_then_go(void **state)
{
    (void)state;
    gc_agent a;
    gc_agent_init(&a, (gc_vec2){8.5f, 8.5f}, 0.0f); /* facing east */
    const gc_cell cells[] = {{8, 8}, {3, 8}, {3, 3}, {9, 3}};
    give_path(&a, cells, 4);
    gc_agent_params pr = {2.0f, 0.0f, (float)(PI / 2)}; /* 90 deg/s */
    const float dt = 0.05f;
    int still = 0, steps = 0;
    bool arrived = false;
    while (!arrived && steps++ < 2000) {
        gc_vec2 p0 = a.pos;
        arrived = gc_agent_step(&a, dt, &pr);
        float dx = a.pos.x - p0.x, dy = a.pos.y - p0.y;
        float d = sqrtf(dx * dx + dy * dy);
        if (d == 0.0f) {
            still++;
            continue;
        }
        assert_true(d <= pr.speed * dt + 1e-5f);
        float dot = (dx * cosf(a.heading) + dy * sinf(a.heading)) / d;
        if (dot < -1e-4f)
            fail_msg("step %d moved %.1f degrees off its heading", steps,
                     acos(dot) * 180 / PI);
    }
    assert_true(arrived);
    assert_near(a.pos.x, 9.5);
    assert_near(a.pos.y, 3.5);
    /* Facing the wrong way (180 degrees) it first turned in place: 90
     * degrees at 90 deg/s is 1 s = 20 steps without moving. */
    assert_true(still >= 19);
    /* 5 + 5 + 6 = 16 units at 2 units/s is 160 steps at full speed;
     * turning costs time. */
    assert_true(steps > 160 + 19);
    gc_agent_release(&a);
}

static void
test_set_path_cases(void **state)
{
    (void)state;
    gc_agent a;
    gc_agent_init(&a, (gc_vec2){3.2f, 3.7f}, 0.0f);
    gc_path empty = {NULL, 0, 0};
    assert_int_equal(gc_agent_set_path(&a, grid, &empty), GC_EINVAL);
    assert_int_equal(a.state, GC_AGENT_IDLE);
    /* Not at the first cell's centre: it walks there first. */
    const gc_cell cells[] = {{3, 3}, {4, 3}};
    give_path(&a, cells, 2);
    assert_int_equal(gc_agent_remaining(&a), 2);
    assert_int_equal(a.goal.x, 4);
    assert_int_equal(a.goal.y, 3);
    /* One-cell path: one waypoint; arrival on reaching it. */
    const gc_cell one[] = {{3, 3}};
    give_path(&a, one, 1);
    assert_int_equal(gc_agent_remaining(&a), 1);
    gc_agent_params pr = {10.0f, 0.0f, 0.0f};
    assert_true(gc_agent_step(&a, 1.0f, &pr));
    assert_near(a.pos.x, 3.5);
    assert_near(a.pos.y, 3.5);
    /* A longer path reuses and grows the buffer. */
    gc_cell longp[100];
    for (int i = 0; i < 100; i++)
        longp[i] = (gc_cell){i % 16, i / 16};
    give_path(&a, longp, 100);
    assert_true(a.wp_cap >= 99);
    assert_string_equal(gc_agent_state_name(GC_AGENT_STUCK), "stuck");
    assert_string_equal(gc_agent_state_name(42), "unknown");
    gc_agent_release(&a);
    assert_null(a.wp);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance_per_tick),
        cmocka_unit_test(test_corner_carry_and_arrival),
        cmocka_unit_test(test_arrive_radius),
        cmocka_unit_test(test_heading_8_directions),
        cmocka_unit_test(test_turn_rate),
        cmocka_unit_test(test_turn_then_go),
        cmocka_unit_test(test_set_path_cases),
    };
    return cmocka_run_group_tests_name("agent", tests, setup, teardown);
}

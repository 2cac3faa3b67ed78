/*
 * rvo2-peer.cpp: same-machine peer benchmark of the RVO2 library (the
 * reference ORCA implementation) on the scenarios of gridcrowd's
 * tools/bench/bench-crowd.c (circle, corridor).  Measurement only.
 *
 * RVO2 is not a Debian package and is not copied here: tools/bench/rvo2-peer
 * builds this file against a checkout of its sources (snape/RVO2) with
 * its own Release flags.
 *
 * Usage: rvo2-bench --scenario circle|corridor --agents N --steps K [--check]
 * Prints: rvo2 SCEN N=.. threads=.. steps=.. step_ms mean X median Y
 * where the time is the wall clock of sim->doStep() alone (setting the
 * preferred velocities before each step is outside the timed region).
 * Threads: OMP_NUM_THREADS (RVO2's doStep uses #pragma omp parallel for).
 * --check also prints the mean distance to goal at the start and the end,
 * overlapping pairs at the end and (corridor) agents inside the walls.
 */
#include <RVO.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

struct Scenario {
    std::vector<RVO::Vector2> goals;
    int kind = 0;  /* 0 circle, 1 corridor */
    float dt = 0.0f;
    float radius = 0.0f;
    int h = 0;     /* corridor: grid height (walls are rows 0 and h-1) */
};

void usage(FILE *f)
{
    std::fprintf(f, "usage: rvo2-bench --scenario circle|corridor --agents N "
                    "--steps K [--check]\n");
}

/* RVO2's Circle example on gridcrowd's bench-crowd circle layout:
 * concentric rings of radius 200, 205, ..., each agent at a cell centre,
 * going to the antipodal cell. */
void setup_circle(RVO::RVOSimulator *sim, size_t n, Scenario *sc)
{
    sim->setTimeStep(0.25f);
    sim->setAgentDefaults(15.0f, 10, 10.0f, 10.0f, 1.5f, 2.0f,
                          RVO::Vector2(0.0f, 0.0f));
    sc->kind = 0;
    sc->dt = 0.25f;
    sc->radius = 1.5f;

    const double spacing = 2.0 * M_PI * 200.0 / 250.0;
    double rmax = 200.0;
    for (size_t k = 0, left = n; left > 0; k++) {
        rmax = 200.0 + 5.0 * (double)k;
        size_t on = (size_t)std::floor(2.0 * M_PI * rmax / spacing);
        left = left > on ? left - on : 0;
    }
    const long half = (long)std::ceil(rmax) + 5;
    size_t i = 0;
    for (size_t k = 0; i < n; k++) {
        double r = 200.0 + 5.0 * (double)k;
        size_t on = (size_t)std::floor(2.0 * M_PI * r / spacing);
        if (on > n - i)
            on = n - i; /* the last ring: what is left of N */
        for (size_t j = 0; j < on && i < n; j++, i++) {
            double a = 2.0 * M_PI * (double)j / (double)on;
            long sx = half + std::lround(r * std::cos(a));
            long sy = half + std::lround(r * std::sin(a));
            long gx = 2 * half - sx, gy = 2 * half - sy;
            sim->addAgent(RVO::Vector2((float)sx + 0.5f, (float)sy + 0.5f));
            sc->goals.push_back(RVO::Vector2((float)gx + 0.5f, (float)gy + 0.5f));
        }
    }
}

/* gridcrowd's bench-crowd corridor: 12 cells wide, walls as two RVO2
 * rectangles (counter-clockwise), N/2 agents at each end. */
void setup_corridor(RVO::RVOSimulator *sim, size_t n, Scenario *sc)
{
    const float dt = 1.0f / 60.0f, radius = 0.35f, speed = 4.0f;
    sim->setTimeStep(dt);
    sim->setAgentDefaults(2.0f * radius + speed, 10, 2.0f, 0.375f, radius,
                          speed, RVO::Vector2(0.0f, 0.0f));
    sc->kind = 1;
    sc->dt = dt;
    sc->radius = radius;

    const long wide = 12, depth = (long)((n / 2 + 9) / 10);
    const long len = 4 * depth + 40, h = wide + 2;
    sc->h = (int)h;
    const float x1 = (float)(len + 2);
    std::vector<RVO::Vector2> v;
    /* bottom wall [0, len+2] x [0, 1] */
    v.push_back(RVO::Vector2(0.0f, 0.0f));
    v.push_back(RVO::Vector2(x1, 0.0f));
    v.push_back(RVO::Vector2(x1, 1.0f));
    v.push_back(RVO::Vector2(0.0f, 1.0f));
    sim->addObstacle(v);
    v.clear();
    /* top wall [0, len+2] x [h-1, h] */
    v.push_back(RVO::Vector2(0.0f, (float)(h - 1)));
    v.push_back(RVO::Vector2(x1, (float)(h - 1)));
    v.push_back(RVO::Vector2(x1, (float)h));
    v.push_back(RVO::Vector2(0.0f, (float)h));
    sim->addObstacle(v);
    sim->processObstacles();

    for (size_t i = 0; i < n; i++) {
        size_t k = i / 2;
        long col = (long)(k / 10), row = 2 + (long)(k % 10);
        long sx, gx;
        if (i % 2 == 0) {
            sx = 1 + col;
            gx = len - 2 * depth + 1 + 2 * col;
        } else {
            sx = len - col;
            gx = 2 * depth - 2 * col;
        }
        sim->addAgent(RVO::Vector2((float)sx + 0.5f, (float)row + 0.5f));
        sc->goals.push_back(RVO::Vector2((float)gx + 0.5f, (float)row + 0.5f));
    }
}

void set_preferred_velocities(RVO::RVOSimulator *sim, const Scenario &sc)
{
    const size_t n = sim->getNumAgents();
    for (size_t i = 0; i < n; ++i) {
        RVO::Vector2 d = sc.goals[i] - sim->getAgentPosition(i);
        if (sc.kind == 0) {
            /* Circle.cpp: unit speed towards the goal, less when closer. */
            if (RVO::absSq(d) > 1.0f)
                d = RVO::normalize(d);
        } else {
            /* speed 4 towards the goal; the last bit in one step. */
            const float speed = 4.0f;
            if (RVO::abs(d) > speed * sc.dt)
                d = speed * RVO::normalize(d);
            else
                d = d / sc.dt;
        }
        sim->setAgentPrefVelocity(i, d);
    }
}

double mean_goal_dist(const RVO::RVOSimulator *sim, const Scenario &sc)
{
    const size_t n = sim->getNumAgents();
    double s = 0.0;
    for (size_t i = 0; i < n; ++i)
        s += RVO::abs(sc.goals[i] - sim->getAgentPosition(i));
    return n ? s / (double)n : 0.0;
}

/* Overlapping pairs (distance < 2r) and the deepest overlap (fraction of
 * 2r); O(N^2), --check only. */
void overlaps(const RVO::RVOSimulator *sim, const Scenario &sc, size_t *pairs,
              double *deepest)
{
    const size_t n = sim->getNumAgents();
    const double d2 = 2.0 * sc.radius;
    *pairs = 0;
    *deepest = 0.0;
    for (size_t i = 0; i < n; ++i) {
        RVO::Vector2 p = sim->getAgentPosition(i);
        for (size_t j = i + 1; j < n; ++j) {
            double d = RVO::abs(p - sim->getAgentPosition(j));
            if (d < d2) {
                ++*pairs;
                *deepest = std::max(*deepest, (d2 - d) / d2);
            }
        }
    }
}

size_t in_walls(const RVO::RVOSimulator *sim, const Scenario &sc)
{
    if (sc.kind != 1)
        return 0;
    size_t c = 0;
    for (size_t i = 0; i < sim->getNumAgents(); ++i) {
        float y = sim->getAgentPosition(i).y();
        if (y < 1.0f || y > (float)(sc.h - 1))
            ++c;
    }
    return c;
}

long parse_count(const char *name, const char *arg)
{
    char *end;
    long v = std::strtol(arg, &end, 10);
    if (end == arg || *end || v < 1) {
        std::fprintf(stderr, "rvo2-bench: --%s: '%s' is not a positive integer\n",
                     name, arg);
        std::exit(2);
    }
    return v;
}

} // namespace

int main(int argc, char **argv)
{
    std::string scen;
    long n = 0, steps = 0;
    bool check = false;
    for (int a = 1; a < argc; ++a) {
        std::string o = argv[a];
        if (o == "--check") {
            check = true;
        } else if (o == "--help" || o == "-h") {
            usage(stdout);
            return 0;
        } else if ((o == "--scenario" || o == "--agents" || o == "--steps") &&
                   a + 1 < argc) {
            const char *v = argv[++a];
            if (o == "--scenario")
                scen = v;
            else if (o == "--agents")
                n = parse_count("agents", v);
            else
                steps = parse_count("steps", v);
        } else {
            usage(stderr);
            return 2;
        }
    }
    if ((scen != "circle" && scen != "corridor") || n < 1 || steps < 1) {
        usage(stderr);
        return 2;
    }

    RVO::RVOSimulator *sim = new RVO::RVOSimulator();
    Scenario sc;
    if (scen == "circle")
        setup_circle(sim, (size_t)n, &sc);
    else
        setup_corridor(sim, (size_t)n, &sc);

    const double dist0 = check ? mean_goal_dist(sim, sc) : 0.0;
    std::vector<double> ms((size_t)steps);
    for (long k = 0; k < steps; ++k) {
        set_preferred_velocities(sim, sc); /* untimed */
        auto t0 = std::chrono::steady_clock::now();
        sim->doStep();
        auto t1 = std::chrono::steady_clock::now();
        ms[(size_t)k] = std::chrono::duration<double, std::milli>(t1 - t0).count();
    }

    double sum = 0.0;
    for (double x : ms)
        sum += x;
    std::vector<double> sorted(ms);
    std::sort(sorted.begin(), sorted.end());
    const size_t m = sorted.size();
    const double median =
        m % 2 ? sorted[m / 2] : 0.5 * (sorted[m / 2 - 1] + sorted[m / 2]);
#ifdef _OPENMP
    const int threads = omp_get_max_threads();
#else
    const int threads = 1;
#endif
    std::printf("rvo2 %s N=%zu threads=%d steps=%ld step_ms mean %.3f median %.3f\n",
                scen.c_str(), sim->getNumAgents(), threads, steps,
                sum / (double)m, median);
    if (check) {
        size_t pairs;
        double deepest;
        overlaps(sim, sc, &pairs, &deepest);
        std::printf("check: mean distance to goal start %.3f end %.3f "
                    "(simulated %.2f s)  overlapping pairs at end %zu "
                    "(deepest %.3f of 2r)  in walls %zu  first step %.3f ms  "
                    "max step %.3f ms\n",
                    dist0, mean_goal_dist(sim, sc), (double)sim->getGlobalTime(),
                    pairs, deepest, in_walls(sim, sc), ms[0], sorted[m - 1]);
    }
    delete sim;
    return 0;
}

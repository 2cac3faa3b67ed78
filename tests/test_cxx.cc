// test_cxx.cc: the public headers compile as C++ and link with C linkage.
//
// Every public header is included and a few functions are called: if a
// header lost its GC_BEGIN_DECLS, the C++ compiler would mangle the names
// and this program would not link.  The one header left out is
// world-layout.h, the raw _Atomic shared-memory layout, which is C only
// (it says so with #error under C++).
#include <gridcrowd/agent.h>
#include <gridcrowd/astar.h>
#include <gridcrowd/common.h>
#include <gridcrowd/error.h>
#include <gridcrowd/grid.h>
#include <gridcrowd/mapio.h>
#include <gridcrowd/orca.h>
#include <gridcrowd/sim.h>
#include <gridcrowd/util.h>
#include <gridcrowd/version.h>
#include <gridcrowd/edit-client.h>
#include <gridcrowd/edits.h>
#include <gridcrowd/host.h>
#include <gridcrowd/queue.h>
#include <gridcrowd/record.h>
#include <gridcrowd/scenario.h>
#include <gridcrowd/world.h>
#include <gridcrowd/query.h>

#include <cstdio>
#include <cstring>

static int checks = 0, failures = 0;

static void
check(bool ok, const char *what)
{
    std::printf("%s %d - %s\n", ok ? "ok" : "not ok", ++checks, what);
    if (!ok)
        failures++;
}

int
main()
{
    check(std::strcmp(gc_version(), GC_VERSION_STRING) == 0,
          "gc_version() is GC_VERSION_STRING");
    check(gc_version_number() == GC_VERSION_NUMBER,
          "gc_version_number() is GC_VERSION_NUMBER");
    check(std::strcmp(gc_strerror(GC_EUNREACHABLE), "goal is unreachable") ==
              0,
          "gc_strerror(GC_EUNREACHABLE)");

    gc_grid *g = nullptr;
    check(gc_grid_new(&g, 4, 3) == GC_OK && g != nullptr, "gc_grid_new");
    if (g != nullptr) {
        check(g->width == 4 && g->height == 3, "grid size");
        check(gc_grid_set(g, 1, 1, GC_CELL_OBSTACLE) == GC_OK, "gc_grid_set");
        check(!gc_grid_passable(g, 1, 1) && gc_grid_passable(g, 0, 0),
              "gc_grid_passable");
        check(gc_grid_get(g, 1, 1) == GC_CELL_OBSTACLE,
              "gc_grid_get (inline)");
        gc_grid_free(g);
    }
    check(gc_grid_new(&g, 0, 1) == GC_EINVAL && g == nullptr,
          "gc_grid_new refuses 0 x 1");

    check(gc_cost_passable(1.0f) && !gc_cost_passable(0.0f),
          "gc_cost_passable (inline)");
    check(gc_clock_ns() > 0, "gc_clock_ns");

    gc_astar_opts o;
    gc_astar_opts_init(&o);
    check(o.algo == GC_ALGO_AUTO, "gc_astar_opts_init");
    gc_sim_config c;
    gc_sim_config_init(&c);
    check(c.threads >= 1, "gc_sim_config_init");
    std::printf("1..%d\n", checks);
    return failures == 0 ? 0 : 1;
}

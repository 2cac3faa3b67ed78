# src/: libgridcrowd, the library (included from the top Makefile.am).
lib_LTLIBRARIES += libgridcrowd.la
gridcrowdincludedir = $(includedir)/gridcrowd
gridcrowdinclude_HEADERS = \
	include/gridcrowd/common.h \
	include/gridcrowd/error.h \
	include/gridcrowd/grid.h \
	include/gridcrowd/mapio.h \
	include/gridcrowd/astar.h \
	include/gridcrowd/agent.h \
	include/gridcrowd/sim.h \
	include/gridcrowd/util.h \
	include/gridcrowd/edits.h \
	include/gridcrowd/edit-client.h \
	include/gridcrowd/queue.h \
	include/gridcrowd/scenario.h \
	include/gridcrowd/world.h \
	include/gridcrowd/world-layout.h \
	include/gridcrowd/host.h \
	include/gridcrowd/orca.h \
	include/gridcrowd/record.h \
	include/gridcrowd/query.h
nodist_gridcrowdinclude_HEADERS = include/gridcrowd/version.h

# The library's objects are built once, with -fvisibility=hidden (when the
# compiler has it), into a convenience library; libgridcrowd.la is made of
# it and exports only what the public headers declare between
# GC_BEGIN_DECLS and GC_END_DECLS (include/gridcrowd/common.h).  Hidden
# symbols still link statically, so a test that needs an internal hook
# (src/*_int.h) links libgridcrowd_core.la instead of libgridcrowd.la.
noinst_LTLIBRARIES += libgridcrowd_core.la
libgridcrowd_core_la_CFLAGS = $(AM_CFLAGS) $(GC_VISIBILITY_CFLAGS)
# The recorder (record.c) writes SQLite files: the library links libsqlite3.
libgridcrowd_core_la_CFLAGS += $(SQLITE3_CFLAGS)
libgridcrowd_core_la_LIBADD = $(SQLITE3_LIBS)
libgridcrowd_core_la_SOURCES = \
	%reldir%/error.c \
	%reldir%/grid.c %reldir%/grid_int.h \
	%reldir%/mapio.c %reldir%/mapio_int.h %reldir%/scen.c \
	%reldir%/astar.c %reldir%/astar_int.h %reldir%/astar-heap.h \
	%reldir%/astar-search.c %reldir%/astar-path.c %reldir%/jps.h \
	%reldir%/nav.c \
	%reldir%/nav-derive.c \
	%reldir%/smooth.c \
	%reldir%/agent.c \
	%reldir%/sim.c %reldir%/sim-plan.c %reldir%/sim-goals.c \
	%reldir%/sim-stats.c %reldir%/sim_int.h %reldir%/sim_records_int.h %reldir%/sim-crowd.c %reldir%/sim-crowd-heading.c \
	%reldir%/sim-crowd-steer.c %reldir%/sim-crowd-near.c %reldir%/sim-crowd-grid.c %reldir%/sim_crowd_int.h \
	%reldir%/sim-crowd-contact.c %reldir%/sim-crowd-loop.c %reldir%/sim-crowd-share.c \
	%reldir%/sim-jam.c %reldir%/sim-order.c \
	%reldir%/sim-agents.c \
	%reldir%/shm.c %reldir%/world_int.h \
	%reldir%/world-layout.c \
	%reldir%/world.c \
	%reldir%/world-snapshot.c %reldir%/world-answers.c \
	%reldir%/queue.c \
	%reldir%/edits.c %reldir%/edits-check.c %reldir%/edits_int.h \
	%reldir%/scenario.c %reldir%/scenario-json.c %reldir%/scenario-crowd.c \
	%reldir%/scenario-raster.c %reldir%/scenario_int.h \
	%reldir%/scenario-run.c %reldir%/scenario-place.c \
	%reldir%/scenario-sim.c \
	%reldir%/edit-client.c %reldir%/edit-agents.c \
	%reldir%/query.c \
	%reldir%/version.c \
	%reldir%/util.c \
	%reldir%/host.c \
	%reldir%/orca.c %reldir%/orca-solve.c %reldir%/orca-index.c %reldir%/orca_int.h %reldir%/orca_lanes.h %reldir%/orca_lp_lanes.h %reldir%/orca_seg_lanes.h %reldir%/orca_width.h %reldir%/orca_simd.h %reldir%/knn_int.h
# The recorder: SQLite trajectories (JuPedSim's format) and their WKT.
libgridcrowd_core_la_SOURCES += %reldir%/record.c %reldir%/record_int.h \
	%reldir%/record-db.c %reldir%/record-geometry.c
libgridcrowd_la_SOURCES =
libgridcrowd_la_LDFLAGS = -version-info $(GC_LT_VERSION) $(AM_LDFLAGS)
libgridcrowd_la_LIBADD = libgridcrowd_core.la $(PTHREAD_LIBS) $(LIBS)

# Scenario files (src/scenario*.c) are JSON, read with jansson.  A program
# that links libgridcrowd_core.la and calls gc_scenario_* adds
# $(JANSSON_LIBS) itself.
libgridcrowd_core_la_CFLAGS += $(JANSSON_CFLAGS)
libgridcrowd_la_LIBADD += $(JANSSON_LIBS)

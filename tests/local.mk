# tests/: the CMocka unit tests, the shell integration tests, and what they
# share.  Tests find data through these variables so that `make distcheck` (a
# VPATH build) works too.
TESTS_ENVIRONMENT = \
	GC_SRCDIR='$(abs_top_srcdir)' \
	GC_VISIBILITY_CFLAGS='$(GC_VISIBILITY_CFLAGS)' \
	GC_BUILDDIR='$(abs_top_builddir)' \
	GC_SHARED_DIR='$(abs_top_srcdir)/../shared' \
	PYTHON='$(PYTHON)'
test_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
test_ldadd = libgridcrowd.la $(CMOCKA_LIBS) -lm

# ---- CMocka programs -----------------------------------------------------------
# Each links the library and cmocka, but for test_astar_oom and test_world,
# which build the library's sources into themselves so that -Wl,--wrap can
# make malloc, shm_open, mmap and ftruncate fail on demand.
if HAVE_CMOCKA
unit_tests = %reldir%/test_grid %reldir%/test_astar %reldir%/test_astar_props \
	%reldir%/test_astar_oom %reldir%/test_movingai %reldir%/test_agent \
	%reldir%/test_scenario \
	%reldir%/test_mapio %reldir%/test_sim %reldir%/test_world \
	%reldir%/test_edits %reldir%/test_api %reldir%/test_host \
	%reldir%/test_orca %reldir%/test_prog \
	%reldir%/test_crowd %reldir%/test_follow %reldir%/test_order %reldir%/test_sim_oom
# Path queries on a live world against the Dijkstra of dijkstra.h.
unit_tests += %reldir%/test_query
%canon_reldir%_test_query_SOURCES = %reldir%/test_query.c %reldir%/dijkstra.h \
	%reldir%/test_rng.h
%canon_reldir%_test_query_CFLAGS = $(test_cflags)
%canon_reldir%_test_query_LDADD = $(test_ldadd)
# Agents driven from outside: spawn, remove, goals, handles.
unit_tests += %reldir%/test_sim_agents
%canon_reldir%_test_sim_agents_SOURCES = %reldir%/test_sim_agents.c
%canon_reldir%_test_sim_agents_CFLAGS = $(test_cflags)
%canon_reldir%_test_sim_agents_LDADD = $(test_ldadd)
# ORCA's SSE2 paths against src/orca.c and src/orca-solve.c built scalar
# into the test.
unit_tests += %reldir%/test_orca_simd
%canon_reldir%_test_orca_simd_SOURCES = %reldir%/test_orca_simd.c
%canon_reldir%_test_orca_simd_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src
%canon_reldir%_test_orca_simd_CFLAGS = $(test_cflags)
%canon_reldir%_test_orca_simd_LDADD = libgridcrowd_core.la $(CMOCKA_LIBS) -lm
unit_tests += %reldir%/test_agent_cmds
%canon_reldir%_test_agent_cmds_SOURCES = %reldir%/test_agent_cmds.c
%canon_reldir%_test_agent_cmds_CFLAGS = $(test_cflags)
%canon_reldir%_test_agent_cmds_LDADD = $(test_ldadd)
check_PROGRAMS += $(unit_tests)
TESTS += $(unit_tests)

%canon_reldir%_test_grid_SOURCES = %reldir%/test_grid.c
%canon_reldir%_test_grid_CFLAGS = $(test_cflags)
%canon_reldir%_test_grid_LDADD = $(test_ldadd)

# test_astar calls the search's test hooks (src/astar_int.h), which the
# shared library does not export: it links the library's objects statically.
%canon_reldir%_test_astar_SOURCES = %reldir%/test_astar.c
%canon_reldir%_test_astar_CFLAGS = $(test_cflags)
%canon_reldir%_test_astar_LDADD = libgridcrowd_core.la $(CMOCKA_LIBS) -lm

# Plans without a search, against dijkstra.h (gc_straight_best is
# internal: the library's objects linked statically, as test_astar).
unit_tests += %reldir%/test_straight
%canon_reldir%_test_straight_SOURCES = %reldir%/test_straight.c \
	%reldir%/dijkstra.h %reldir%/test_rng.h
%canon_reldir%_test_straight_CFLAGS = $(test_cflags)
%canon_reldir%_test_straight_LDADD = libgridcrowd_core.la $(CMOCKA_LIBS) -lm

# Navigation data derived for a grid with cells blocked, against data
# made from scratch (gc_nav_derive is internal, as gc_straight_best).
unit_tests += %reldir%/test_nav_derive
%canon_reldir%_test_nav_derive_SOURCES = %reldir%/test_nav_derive.c \
	%reldir%/test_rng.h
%canon_reldir%_test_nav_derive_CFLAGS = $(test_cflags)
%canon_reldir%_test_nav_derive_LDADD = libgridcrowd_core.la $(CMOCKA_LIBS) -lm

%canon_reldir%_test_astar_props_SOURCES = %reldir%/test_astar_props.c \
	%reldir%/dijkstra.h %reldir%/test_rng.h
%canon_reldir%_test_astar_props_CFLAGS = $(test_cflags)
%canon_reldir%_test_astar_props_LDADD = $(test_ldadd)

%canon_reldir%_test_astar_oom_SOURCES = %reldir%/test_astar_oom.c %reldir%/oom.h src/astar.c \
	src/astar-search.c src/astar-path.c \
	src/nav.c src/smooth.c src/grid.c src/error.c src/util.c
%canon_reldir%_test_astar_oom_CFLAGS = $(test_cflags)
%canon_reldir%_test_astar_oom_LDADD = $(CMOCKA_LIBS) -lm
%canon_reldir%_test_astar_oom_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=malloc \
	-Wl,--wrap=calloc -Wl,--wrap=realloc -Wl,--wrap=aligned_alloc
# The sim's tick out of memory: the library's objects, wrapped alike.
%canon_reldir%_test_sim_oom_SOURCES = %reldir%/test_sim_oom.c %reldir%/oom.h
%canon_reldir%_test_sim_oom_CFLAGS = $(test_cflags)
%canon_reldir%_test_sim_oom_LDADD = libgridcrowd_core.la $(CMOCKA_LIBS) -lm
%canon_reldir%_test_sim_oom_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=malloc \
	-Wl,--wrap=calloc -Wl,--wrap=realloc -Wl,--wrap=aligned_alloc

%canon_reldir%_test_movingai_SOURCES = %reldir%/test_movingai.c
%canon_reldir%_test_movingai_CFLAGS = $(test_cflags)
%canon_reldir%_test_movingai_LDADD = $(test_ldadd)

%canon_reldir%_test_agent_SOURCES = %reldir%/test_agent.c
%canon_reldir%_test_agent_CFLAGS = $(test_cflags)
%canon_reldir%_test_agent_LDADD = $(test_ldadd)

%canon_reldir%_test_mapio_SOURCES = %reldir%/test_mapio.c
%canon_reldir%_test_mapio_CFLAGS = $(test_cflags)
%canon_reldir%_test_mapio_LDADD = $(test_ldadd)

%canon_reldir%_test_sim_SOURCES = %reldir%/test_sim.c
%canon_reldir%_test_sim_CFLAGS = $(test_cflags)
%canon_reldir%_test_sim_LDADD = $(test_ldadd)

%canon_reldir%_test_host_SOURCES = %reldir%/test_host.c
%canon_reldir%_test_host_CFLAGS = $(test_cflags)
%canon_reldir%_test_host_LDADD = $(test_ldadd)

%canon_reldir%_test_world_SOURCES = %reldir%/test_world.c src/world.c \
	src/shm.c src/world-layout.c src/world-snapshot.c src/world-answers.c \
	src/queue.c \
	src/grid.c src/agent.c src/error.c src/util.c
%canon_reldir%_test_world_CFLAGS = $(test_cflags)
%canon_reldir%_test_world_LDADD = $(CMOCKA_LIBS) -lm
%canon_reldir%_test_world_LDFLAGS = $(AM_LDFLAGS) -Wl,--wrap=shm_open \
	-Wl,--wrap=mmap -Wl,--wrap=ftruncate

%canon_reldir%_test_edits_SOURCES = %reldir%/test_edits.c
%canon_reldir%_test_edits_CFLAGS = $(test_cflags)
%canon_reldir%_test_edits_LDADD = $(test_ldadd)

%canon_reldir%_test_orca_SOURCES = %reldir%/test_orca.c
%canon_reldir%_test_orca_CFLAGS = $(test_cflags)
%canon_reldir%_test_orca_LDADD = $(test_ldadd)

# test_crowd looks at the planning grid (src/sim_int.h): the objects.
%canon_reldir%_test_crowd_SOURCES = %reldir%/test_crowd.c
%canon_reldir%_test_crowd_CFLAGS = $(test_cflags)
%canon_reldir%_test_crowd_LDADD = libgridcrowd_core.la $(CMOCKA_LIBS) -lm
# test_order looks at the slots behind the ids (src/sim_int.h): the objects.
%canon_reldir%_test_order_SOURCES = %reldir%/test_order.c
%canon_reldir%_test_order_CFLAGS = $(test_cflags)
%canon_reldir%_test_order_LDADD = libgridcrowd_core.la $(CMOCKA_LIBS) -lm
# test_follow calls the follower's path join (src/sim_int.h): the objects.
%canon_reldir%_test_follow_SOURCES = %reldir%/test_follow.c
%canon_reldir%_test_follow_CFLAGS = $(test_cflags)
%canon_reldir%_test_follow_LDADD = libgridcrowd_core.la $(CMOCKA_LIBS) -lm

%canon_reldir%_test_api_SOURCES = %reldir%/test_api.c
%canon_reldir%_test_api_CFLAGS = $(test_cflags)
%canon_reldir%_test_api_LDADD = $(test_ldadd)

# test_prog: the programs' message line (tools/common/prog.c).
%canon_reldir%_test_prog_SOURCES = %reldir%/test_prog.c
%canon_reldir%_test_prog_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/common
%canon_reldir%_test_prog_CFLAGS = $(test_cflags)
%canon_reldir%_test_prog_LDADD = tools/common/libgcprog.la $(test_ldadd)

%canon_reldir%_test_scenario_SOURCES = %reldir%/test_scenario.c
%canon_reldir%_test_scenario_CFLAGS = $(test_cflags)
%canon_reldir%_test_scenario_LDADD = $(test_ldadd)

# test_scenario_run drives the runner through its internal crowd interface
# (src/scenario_int.h): the objects.
unit_tests += %reldir%/test_scenario_run
%canon_reldir%_test_scenario_run_SOURCES = %reldir%/test_scenario_run.c
%canon_reldir%_test_scenario_run_CFLAGS = $(test_cflags) $(JANSSON_CFLAGS)
%canon_reldir%_test_scenario_run_LDADD = libgridcrowd_core.la \
	$(JANSSON_LIBS) $(PTHREAD_LIBS) $(CMOCKA_LIBS) -lm
endif
EXTRA_DIST += %reldir%/data/tiny.map %reldir%/data/tiny.scen
scenario_test_data = \
	%reldir%/data/scenario/bad-cell-size.json \
	%reldir%/data/scenario/bad-cell-type.json \
	%reldir%/data/scenario/bad-cells-fraction.json \
	%reldir%/data/scenario/bad-cells-range.json \
	%reldir%/data/scenario/bad-circle-radius.json \
	%reldir%/data/scenario/bad-coord.json \
	%reldir%/data/scenario/bad-count-fraction.json \
	%reldir%/data/scenario/bad-count.json \
	%reldir%/data/scenario/bad-duplicate.json \
	%reldir%/data/scenario/bad-escaped-key.json \
	%reldir%/data/scenario/bad-event-add-dup.json \
	%reldir%/data/scenario/bad-event-goal.json \
	%reldir%/data/scenario/bad-event-none.json \
	%reldir%/data/scenario/bad-event-notime.json \
	%reldir%/data/scenario/bad-event-remove.json \
	%reldir%/data/scenario/bad-event-source.json \
	%reldir%/data/scenario/bad-event-time.json \
	%reldir%/data/scenario/bad-event-two.json \
	%reldir%/data/scenario/bad-exit-dup.json \
	%reldir%/data/scenario/bad-goal-all.json \
	%reldir%/data/scenario/bad-goal-exit.json \
	%reldir%/data/scenario/bad-goal-follow-self.json \
	%reldir%/data/scenario/bad-goal-follow.json \
	%reldir%/data/scenario/bad-goal-none.json \
	%reldir%/data/scenario/bad-goal-point.json \
	%reldir%/data/scenario/bad-group-dup.json \
	%reldir%/data/scenario/bad-group-noname.json \
	%reldir%/data/scenario/bad-map-and-size.json \
	%reldir%/data/scenario/bad-map-missing.json \
	%reldir%/data/scenario/bad-missing-geometry.json \
	%reldir%/data/scenario/bad-name-empty.json \
	%reldir%/data/scenario/bad-no-size.json \
	%reldir%/data/scenario/bad-no-spawn.json \
	%reldir%/data/scenario/bad-point-type.json \
	%reldir%/data/scenario/bad-polygon-flat.json \
	%reldir%/data/scenario/bad-polygon-short.json \
	%reldir%/data/scenario/bad-radius-on-rect.json \
	%reldir%/data/scenario/bad-radius.json \
	%reldir%/data/scenario/bad-rect-empty.json \
	%reldir%/data/scenario/bad-root-type.json \
	%reldir%/data/scenario/bad-route-empty.json \
	%reldir%/data/scenario/bad-seed.json \
	%reldir%/data/scenario/bad-shape-id-dup.json \
	%reldir%/data/scenario/bad-shape-kind.json \
	%reldir%/data/scenario/bad-shape-two-kinds.json \
	%reldir%/data/scenario/bad-source-enabled.json \
	%reldir%/data/scenario/bad-source-end.json \
	%reldir%/data/scenario/bad-source-group.json \
	%reldir%/data/scenario/bad-source-norate.json \
	%reldir%/data/scenario/bad-source-rate.json \
	%reldir%/data/scenario/bad-source-total.json \
	%reldir%/data/scenario/bad-speed-max.json \
	%reldir%/data/scenario/bad-speed-mean.json \
	%reldir%/data/scenario/bad-speed-min.json \
	%reldir%/data/scenario/bad-speed-type.json \
	%reldir%/data/scenario/bad-speed.json \
	%reldir%/data/scenario/bad-stop-limit.json \
	%reldir%/data/scenario/bad-stop.json \
	%reldir%/data/scenario/bad-syntax.json \
	%reldir%/data/scenario/bad-thickness.json \
	%reldir%/data/scenario/bad-too-big.json \
	%reldir%/data/scenario/bad-turn.json \
	%reldir%/data/scenario/bad-unknown-nested.json \
	%reldir%/data/scenario/bad-unknown-root.json \
	%reldir%/data/scenario/bad-utf8-col.json \
	%reldir%/data/scenario/bad-version.json \
	%reldir%/data/scenario/bad-wall-area.json \
	%reldir%/data/scenario/bad-wall-repeat.json \
	%reldir%/data/scenario/bad-wander.json \
	%reldir%/data/scenario/good.json \
	%reldir%/data/scenario/map-shapes.json \
	%reldir%/data/scenario/room.map
EXTRA_DIST += $(scenario_test_data)

# test_record: the recorder, checked with SQL; it stalls the writer through
# a test hook (src/record_int.h), so it links the library's objects.
if HAVE_CMOCKA
check_PROGRAMS += %reldir%/test_record
TESTS += %reldir%/test_record
%canon_reldir%_test_record_SOURCES = %reldir%/test_record.c
%canon_reldir%_test_record_CFLAGS = $(test_cflags) $(SQLITE3_CFLAGS)
%canon_reldir%_test_record_LDADD = libgridcrowd_core.la $(SQLITE3_LIBS) \
	$(CMOCKA_LIBS) -lm
endif

# test_report: gridcrowd-report's figures (tools/report/report-calc.c, plain
# C built into the test), fed rows by hand.
if HAVE_CMOCKA
check_PROGRAMS += %reldir%/test_report
TESTS += %reldir%/test_report
%canon_reldir%_test_report_SOURCES = %reldir%/test_report.c \
	tools/report/report-calc.c tools/report/report.h
%canon_reldir%_test_report_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/report
%canon_reldir%_test_report_CFLAGS = $(test_cflags)
%canon_reldir%_test_report_LDADD = $(CMOCKA_LIBS) -lm
endif

# test_cxx: every public header compiles as C++ and links with C linkage.
if HAVE_CXX
check_PROGRAMS += %reldir%/test_cxx
TESTS += %reldir%/test_cxx
%canon_reldir%_test_cxx_SOURCES = %reldir%/test_cxx.cc
%canon_reldir%_test_cxx_CXXFLAGS = -std=c++11 $(GC_WARN_CXXFLAGS) \
	$(GC_SAN_CFLAGS)
%canon_reldir%_test_cxx_LDADD = libgridcrowd.la
endif

# ---- shell integration tests ---------------------------------------------------
# Real processes, unique shared-memory names, cleanup in a trap
# (tests/lib.sh).  Each prints TAP ("ok N - what"), which Automake's TAP
# driver reads, so every check is counted.  The viewer's tests
# (tests/view_lib.sh) skip when the viewer is not built.
TEST_EXTENSIONS = .test .sh
TEST_LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) \
	$(top_srcdir)/build-aux/tap-driver.sh
TEST_LOG_COMPILER = $(SHELL)
SH_LOG_DRIVER = $(TEST_LOG_DRIVER)
SH_LOG_COMPILER = $(SHELL)
shell_tests = \
	%reldir%/api-symbols.test \
	%reldir%/test_bench.sh \
	%reldir%/daemon.test \
	%reldir%/daemon-errors.test \
	%reldir%/bench-crowd.test %reldir%/bench-chase.test \
	%reldir%/rvo2-peer.test \
	%reldir%/compare-builds.test \
	%reldir%/replan-split.test \
	%reldir%/motion-units.test \
	%reldir%/edits-ctl.test \
	%reldir%/edits-concurrent.test \
	%reldir%/edits-dead-writer.test \
	%reldir%/ctl-clean.test \
	%reldir%/ctl-input.test \
	%reldir%/ctl-path.test %reldir%/ctl-agents.test \
	%reldir%/python.test %reldir%/python-agents.test \
	%reldir%/fault-queue.test \
	%reldir%/fault-kill9.test \
	%reldir%/fault-garbage.test \
	%reldir%/fault-flood.test %reldir%/fault-flood-agents.test \
	%reldir%/access.test \
	%reldir%/report.test \
	%reldir%/view-cli.test \
	%reldir%/view-pixels.test \
	%reldir%/view-bodies.test \
	%reldir%/view-path.test \
	%reldir%/view-reattach.test \
	%reldir%/view-kill.test \
	%reldir%/view-valgrind.test \
	%reldir%/view-daemon.test \
	%reldir%/view-paint.test %reldir%/view-agents.test \
	%reldir%/view-replay.test \
	%reldir%/view-replay-files.test \
	%reldir%/view-replay-valgrind.test \
	%reldir%/view-replay-keys.test \
	%reldir%/record-file.test \
	%reldir%/record-daemon.test
shell_tests += %reldir%/scenario-daemon.test %reldir%/lint-checks.test
TESTS += $(shell_tests)
EXTRA_DIST += $(shell_tests) %reldir%/lib.sh %reldir%/ctl-lib.sh %reldir%/quick.h %reldir%/brute_knn.h \
	%reldir%/world_unlink.h %reldir%/dijkstra.py %reldir%/gc_tap.py %reldir%/python_test.py \
	%reldir%/python_agents_test.py %reldir%/lint-checks.py \
	%reldir%/view_lib.sh %reldir%/lsan.supp %reldir%/valgrind-sdl.supp \
	%reldir%/data/bench/bench.map %reldir%/data/bench/bench.scen \
	%reldir%/data/bench/bench-wrong.scen %reldir%/data/bench/bench-bad.scen

# The soak test: 10 minutes under churn (SOAK_SECONDS to change it), run
# before a release, not by make check (tests/soak.sh says what it checks).
EXTRA_DIST += %reldir%/soak.sh
soak: all $(check_PROGRAMS)
	$(TESTS_ENVIRONMENT) $(SHELL) $(srcdir)/%reldir%/soak.sh
.PHONY: soak

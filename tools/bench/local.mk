# tools/bench/: gridcrowd-bench (the A* benchmark, with the libtcod peer when
# configure found it), the daemon's figures (bench-sim, bench-edits) and the
# map generator they use.
bin_PROGRAMS += %reldir%/gridcrowd-bench
%canon_reldir%_gridcrowd_bench_SOURCES = %reldir%/gridcrowd-bench.c \
	%reldir%/bench.h %reldir%/bench-run.c %reldir%/bench-report.c \
	%reldir%/bench_peer.h
%canon_reldir%_gridcrowd_bench_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/tools/common
%canon_reldir%_gridcrowd_bench_LDADD = tools/common/libgcprog.la \
	libgridcrowd.la -lm
if HAVE_LIBTCOD
%canon_reldir%_gridcrowd_bench_SOURCES += %reldir%/bench_peer_tcod.c
%canon_reldir%_gridcrowd_bench_CFLAGS = $(AM_CFLAGS) $(LIBTCOD_CFLAGS)
%canon_reldir%_gridcrowd_bench_LDADD += $(LIBTCOD_LIBS)
endif

noinst_PROGRAMS += %reldir%/gc-genmap
%canon_reldir%_gc_genmap_SOURCES = %reldir%/gc-genmap.c
%canon_reldir%_gc_genmap_LDADD = libgridcrowd.la
EXTRA_DIST += %reldir%/bench-sim %reldir%/bench-edits

# bench-orca: the avoidance step alone on circle and corridor crowds.
noinst_PROGRAMS += %reldir%/bench-orca
%canon_reldir%_bench_orca_SOURCES = %reldir%/bench-orca.c
%canon_reldir%_bench_orca_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/common
%canon_reldir%_bench_orca_LDADD = tools/common/libgcprog.la libgridcrowd.la -lm

# bench-record: the recorder's frames/s and bytes per agent-frame.
noinst_PROGRAMS += %reldir%/bench-record
%canon_reldir%_bench_record_SOURCES = %reldir%/bench-record.c
%canon_reldir%_bench_record_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/common
%canon_reldir%_bench_record_LDADD = tools/common/libgcprog.la libgridcrowd.la -lm

# bench-crowd: whole ticks of the simulation with bodies and ORCA on
# circle, corridor, bottleneck and den520d (issue 10).
noinst_PROGRAMS += %reldir%/bench-crowd
%canon_reldir%_bench_crowd_SOURCES = %reldir%/bench-crowd.c
%canon_reldir%_bench_crowd_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/common
%canon_reldir%_bench_crowd_LDADD = tools/common/libgcprog.la libgridcrowd.la -lm
# rvo2-peer: RVO2 beside bench-crowd on the same scenarios, built on demand
# from a checkout of RVO2 (not packaged by Debian, not in this tree).
EXTRA_DIST += %reldir%/rvo2-peer %reldir%/rvo2-peer.cpp %reldir%/bench-lib.sh
# compare-builds: two build trees run in turn on bench-crowd or the daemon
# (a change measured against the build before it).
EXTRA_DIST += %reldir%/compare-builds

# bench-agents: spawn --sync latency and agent commands absorbed per second,
# against a running daemon.
noinst_PROGRAMS += %reldir%/bench-agents
%canon_reldir%_bench_agents_SOURCES = %reldir%/bench-agents.c
%canon_reldir%_bench_agents_LDADD = libgridcrowd.la

# bench-chase: 1,000 agents chasing 10 moving targets, follow vs naive.
noinst_PROGRAMS += %reldir%/bench-chase
%canon_reldir%_bench_chase_SOURCES = %reldir%/bench-chase.c
%canon_reldir%_bench_chase_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/common
%canon_reldir%_bench_chase_LDADD = tools/common/libgcprog.la libgridcrowd.la -lm

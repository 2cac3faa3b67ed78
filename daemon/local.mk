# daemon/: gridcrowdd, the simulation daemon.
#
# The demo map is built into the binary so that the daemon runs anywhere:
# default_map.c is generated from maps/demo.map.
bin_PROGRAMS += %reldir%/gridcrowdd
%canon_reldir%_gridcrowdd_SOURCES = %reldir%/gridcrowdd.c %reldir%/daemon.h \
	%reldir%/options.c %reldir%/options-parse.c %reldir%/options_int.h %reldir%/report.c %reldir%/recording.c \
	%reldir%/default_map.h \
	%reldir%/scenario.c
nodist_%canon_reldir%_gridcrowdd_SOURCES = %reldir%/default_map.c
%canon_reldir%_gridcrowdd_LDADD = tools/common/libgcprog.la libgridcrowd.la -lm
# The generated default_map.c (in the build tree) includes default_map.h;
# tools/common has prog.h, the message line.
%canon_reldir%_gridcrowdd_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/%reldir% \
	-I$(top_srcdir)/tools/common
BUILT_SOURCES += %reldir%/default_map.c
CLEANFILES += %reldir%/default_map.c
%reldir%/default_map.c: $(top_srcdir)/maps/demo.map $(top_srcdir)/scripts/embed-map.sh
	$(AM_V_GEN)$(MKDIR_P) %reldir% && \
	$(SHELL) $(top_srcdir)/scripts/embed-map.sh $(top_srcdir)/maps/demo.map >$@-t && \
	mv $@-t $@

# tools/report/: gridcrowd-report, pictures of a recording (density, speed,
# trajectories, travel times, flow through lines) and a page showing them.
# It reads SQLite and draws with cairo; report-calc.c, the figures, is
# plain C that tests/test_report.c builds into itself.
bin_PROGRAMS += %reldir%/gridcrowd-report
%canon_reldir%_gridcrowd_report_SOURCES = %reldir%/gridcrowd-report.c \
	%reldir%/report.h %reldir%/report-calc.c %reldir%/report-read.c \
	%reldir%/report-draw.c %reldir%/report-html.c
%canon_reldir%_gridcrowd_report_CFLAGS = $(AM_CFLAGS) $(SQLITE3_CFLAGS) \
	$(CAIRO_CFLAGS)
%canon_reldir%_gridcrowd_report_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/tools/common
%canon_reldir%_gridcrowd_report_LDADD = tools/common/libgcprog.la \
	libgridcrowd.la $(SQLITE3_LIBS) $(CAIRO_LIBS) -lm

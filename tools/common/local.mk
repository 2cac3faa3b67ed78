# tools/common/: what the programs share and the library does not offer:
# the `program: what: why` message line (prog.h) and what a recording may
# hold (recording.h, for the report and the replay).  A convenience library,
# never installed; gridcrowdd, gridcrowd-ctl, gridcrowd-bench,
# gridcrowd-view, gridcrowd-report and the bench programs link it.
noinst_LTLIBRARIES += %reldir%/libgcprog.la
%canon_reldir%_libgcprog_la_SOURCES = %reldir%/prog.c %reldir%/prog.h \
	%reldir%/recording.h

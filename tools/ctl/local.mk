# tools/ctl/: gridcrowd-ctl, status, agents, cells, and edits through the queue.
# gridcrowd-ctl.c has main and the command table; ctl-*.c one group of
# commands each (ctl.h says which).
bin_PROGRAMS += %reldir%/gridcrowd-ctl
%canon_reldir%_gridcrowd_ctl_SOURCES = %reldir%/gridcrowd-ctl.c %reldir%/ctl.h \
	%reldir%/ctl-read.c %reldir%/ctl-edit.c %reldir%/ctl-batch.c \
	%reldir%/ctl-path.c %reldir%/ctl-path.h %reldir%/ctl-agent.c
%canon_reldir%_gridcrowd_ctl_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/common
%canon_reldir%_gridcrowd_ctl_LDADD = tools/common/libgcprog.la libgridcrowd.la

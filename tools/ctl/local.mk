# tools/ctl/: gridcrowd-ctl, status, agents, cells, and edits through the queue.
bin_PROGRAMS += %reldir%/gridcrowd-ctl
%canon_reldir%_gridcrowd_ctl_SOURCES = %reldir%/gridcrowd-ctl.c \
	%reldir%/ctl-path.c %reldir%/ctl-path.h
%canon_reldir%_gridcrowd_ctl_LDADD = libgridcrowd.la

# src/: libgridcrowd, the library (included from the top Makefile.am).
lib_LTLIBRARIES += libgridcrowd.la
gridcrowdincludedir = $(includedir)/gridcrowd
gridcrowdinclude_HEADERS = \
	include/gridcrowd/error.h \
	include/gridcrowd/grid.h \
	include/gridcrowd/mapio.h \
	include/gridcrowd/astar.h \
	include/gridcrowd/agent.h \
	include/gridcrowd/sim.h \
	include/gridcrowd/edits.h \
	include/gridcrowd/edit-client.h \
	include/gridcrowd/queue.h \
	include/gridcrowd/world.h \
	include/gridcrowd/world-layout.h

libgridcrowd_la_SOURCES = \
	%reldir%/error.c \
	%reldir%/grid.c %reldir%/grid_int.h \
	%reldir%/mapio.c \
	%reldir%/astar.c %reldir%/astar_int.h \
	%reldir%/nav.c \
	%reldir%/smooth.c \
	%reldir%/agent.c \
	%reldir%/sim.c \
	%reldir%/shm.c %reldir%/world_int.h \
	%reldir%/world-layout.c \
	%reldir%/world.c \
	%reldir%/world-snapshot.c \
	%reldir%/queue.c \
	%reldir%/edits.c \
	%reldir%/edit-client.c
libgridcrowd_la_LDFLAGS = -version-info $(GC_LT_VERSION) $(AM_LDFLAGS)
libgridcrowd_la_LIBADD = $(PTHREAD_LIBS) $(LIBS)

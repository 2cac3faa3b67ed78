# tools/view/: gridcrowd-view, the SDL2 viewer.  It is the only program that
# links SDL2; configure builds it when SDL2 is found.
if HAVE_SDL2
bin_PROGRAMS += %reldir%/gridcrowd-view
%canon_reldir%_gridcrowd_view_SOURCES = %reldir%/gridcrowd-view.c \
	%reldir%/view.h %reldir%/view_conn.c %reldir%/view_draw.c \
	%reldir%/view_draw_int.h %reldir%/view_agents.c %reldir%/view_overlay.c \
	%reldir%/view_input.c %reldir%/view_command.c %reldir%/view_font.c \
	%reldir%/view_font.h %reldir%/view_canvas.c \
	%reldir%/view_replay.h %reldir%/view_replay.c %reldir%/view_replay_db.c \
	%reldir%/view_replay_db-grid.c
%canon_reldir%_gridcrowd_view_CFLAGS = $(AM_CFLAGS) $(SDL2_CFLAGS) \
	$(SQLITE3_CFLAGS)
%canon_reldir%_gridcrowd_view_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/common
%canon_reldir%_gridcrowd_view_LDADD = tools/common/libgcprog.la libgridcrowd.la \
	$(SDL2_LIBS) $(SQLITE3_LIBS) -lm
endif
# view_font.c is generated from a font by scripts/mkfont.py (committed).

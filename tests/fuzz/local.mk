# tests/fuzz/: the libFuzzer targets, their replay programs, and the corpus.
#
# Each fuzz target (tests/fuzz/fuzz_*.c) defines LLVMFuzzerTestOneInput.
# With --enable-fuzzing (clang) it links with libFuzzer, which brings main:
# scripts/fuzz.sh builds and runs them.  In every build, replay.c provides a
# main that feeds the target each file of its committed corpus, so `make
# check` replays the seeds and every input the fuzzer ever crashed on
# (tests/fuzz/corpus/*/regress-*), without clang and without cmocka.
fuzz_common = %reldir%/fuzz.h
#
# Targets: fuzz_map (gc_map_parse), fuzz_scen (gc_scen_parse), fuzz_world
# (the world and queue header validators, then every reader on an attached
# copy), fuzz_edits (gc_edit_check against a reference, and the applier
# draining fuzzed queue entries against a reference applier),
# fuzz_recording (edits to a recording, then gridcrowd-report's reader and,
# with SDL2 for its headers, gridcrowd-view's replay reader on it).
if GC_FUZZING
noinst_PROGRAMS += %reldir%/fuzz_map %reldir%/fuzz_scen \
	%reldir%/fuzz_world %reldir%/fuzz_edits
%canon_reldir%_fuzz_map_SOURCES = %reldir%/fuzz_map.c $(fuzz_common)
%canon_reldir%_fuzz_map_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
%canon_reldir%_fuzz_map_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer -no-install
%canon_reldir%_fuzz_map_LDADD = libgridcrowd.la -lm
%canon_reldir%_fuzz_scen_SOURCES = %reldir%/fuzz_scen.c $(fuzz_common)
%canon_reldir%_fuzz_scen_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
%canon_reldir%_fuzz_scen_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer -no-install
%canon_reldir%_fuzz_scen_LDADD = libgridcrowd.la -lm
%canon_reldir%_fuzz_world_SOURCES = %reldir%/fuzz_world.c $(fuzz_common)
%canon_reldir%_fuzz_world_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
%canon_reldir%_fuzz_world_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer -no-install
%canon_reldir%_fuzz_world_LDADD = libgridcrowd.la -lm
%canon_reldir%_fuzz_edits_SOURCES = %reldir%/fuzz_edits.c $(fuzz_common)
%canon_reldir%_fuzz_edits_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer
%canon_reldir%_fuzz_edits_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer -no-install
%canon_reldir%_fuzz_edits_LDADD = libgridcrowd.la -lm
noinst_PROGRAMS += %reldir%/fuzz_recording
%canon_reldir%_fuzz_recording_SOURCES = %reldir%/fuzz_recording.c \
	$(fuzz_rec_sources) $(fuzz_common)
%canon_reldir%_fuzz_recording_CPPFLAGS = $(AM_CPPFLAGS) $(fuzz_rec_cppflags)
%canon_reldir%_fuzz_recording_CFLAGS = $(AM_CFLAGS) $(fuzz_rec_cflags) \
	-fsanitize=fuzzer
%canon_reldir%_fuzz_recording_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer \
	-no-install
%canon_reldir%_fuzz_recording_LDADD = tools/common/libgcprog.la \
	libgridcrowd.la $(SQLITE3_LIBS) $(CAIRO_LIBS) -lm
# fuzz_scenario drives the runner through its internal crowd interface
# (src/scenario_int.h): the library's objects.
noinst_PROGRAMS += %reldir%/fuzz_scenario
%canon_reldir%_fuzz_scenario_SOURCES = %reldir%/fuzz_scenario.c $(fuzz_common)
%canon_reldir%_fuzz_scenario_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) \
	-fsanitize=fuzzer
%canon_reldir%_fuzz_scenario_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer \
	-no-install
%canon_reldir%_fuzz_scenario_LDADD = libgridcrowd_core.la $(JANSSON_LIBS) \
	$(PTHREAD_LIBS) -lm
endif

# fuzz_recording links the readers' files themselves: the report's always
# (with its pictures and page),
# the viewer's only where SDL2's headers are (view.h includes SDL.h, though
# the reader calls nothing of SDL's).
fuzz_rec_sources = tools/report/report-read.c tools/report/report-calc.c \
	tools/report/report-draw.c tools/report/report-html.c \
	tools/report/report.h
fuzz_rec_cppflags = -I$(top_srcdir)/tools/report -I$(top_srcdir)/tools/common
fuzz_rec_cflags = $(SQLITE3_CFLAGS) $(CAIRO_CFLAGS)
if HAVE_SDL2
fuzz_rec_sources += tools/view/view_replay_db.c \
	tools/view/view_replay_db-grid.c tools/view/view_replay.h \
	tools/view/view.h
fuzz_rec_cppflags += -I$(top_srcdir)/tools/view -DGC_FUZZ_VIEW
fuzz_rec_cflags += $(SDL2_CFLAGS)
endif

fuzz_replays = tests/fuzz_replay_map tests/fuzz_replay_scen \
	tests/fuzz_replay_world tests/fuzz_replay_edits
fuzz_replays += tests/fuzz_replay_scenario
%canon_reldir%_replay_scenario_SOURCES = \
	%reldir%/fuzz_scenario.c %reldir%/replay.c $(fuzz_common)
%canon_reldir%_replay_scenario_CPPFLAGS = $(AM_CPPFLAGS) \
	-DFUZZ_CORPUS='"scenario"'
%canon_reldir%_replay_scenario_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_replay_scenario_LDFLAGS = $(AM_LDFLAGS) -no-install
%canon_reldir%_replay_scenario_LDADD = libgridcrowd_core.la $(JANSSON_LIBS) \
	$(PTHREAD_LIBS) -lm
fuzz_replays += tests/fuzz_replay_recording
%canon_reldir%_replay_recording_SOURCES = %reldir%/fuzz_recording.c \
	%reldir%/replay.c $(fuzz_rec_sources) $(fuzz_common)
%canon_reldir%_replay_recording_CPPFLAGS = $(AM_CPPFLAGS) \
	$(fuzz_rec_cppflags) -DFUZZ_CORPUS='"recording"'
%canon_reldir%_replay_recording_CFLAGS = $(AM_CFLAGS) $(fuzz_rec_cflags)
%canon_reldir%_replay_recording_LDFLAGS = $(AM_LDFLAGS) -no-install
%canon_reldir%_replay_recording_LDADD = tools/common/libgcprog.la \
	libgridcrowd.la $(SQLITE3_LIBS) $(CAIRO_LIBS) -lm
check_PROGRAMS += $(fuzz_replays)
TESTS += $(fuzz_replays)
%canon_reldir%_replay_map_SOURCES = \
	%reldir%/fuzz_map.c %reldir%/replay.c $(fuzz_common)
%canon_reldir%_replay_map_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CORPUS='"map"'
%canon_reldir%_replay_map_LDFLAGS = $(AM_LDFLAGS) -no-install
%canon_reldir%_replay_map_LDADD = libgridcrowd.la -lm
%canon_reldir%_replay_scen_SOURCES = \
	%reldir%/fuzz_scen.c %reldir%/replay.c $(fuzz_common)
%canon_reldir%_replay_scen_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CORPUS='"scen"'
%canon_reldir%_replay_scen_LDFLAGS = $(AM_LDFLAGS) -no-install
%canon_reldir%_replay_scen_LDADD = libgridcrowd.la -lm
%canon_reldir%_replay_world_SOURCES = \
	%reldir%/fuzz_world.c %reldir%/replay.c $(fuzz_common)
%canon_reldir%_replay_world_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CORPUS='"world"'
%canon_reldir%_replay_world_LDFLAGS = $(AM_LDFLAGS) -no-install
%canon_reldir%_replay_world_LDADD = libgridcrowd.la -lm
%canon_reldir%_replay_edits_SOURCES = \
	%reldir%/fuzz_edits.c %reldir%/replay.c $(fuzz_common)
%canon_reldir%_replay_edits_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_CORPUS='"edits"'
%canon_reldir%_replay_edits_LDFLAGS = $(AM_LDFLAGS) -no-install
%canon_reldir%_replay_edits_LDADD = libgridcrowd.la -lm

# The seeds of the world and edits corpora are written by a program (built
# only on request: make tests/fuzz/mkseeds; see its header).
EXTRA_PROGRAMS = %reldir%/mkseeds
%canon_reldir%_mkseeds_SOURCES = %reldir%/mkseeds.c
%canon_reldir%_mkseeds_LDADD = libgridcrowd.la -lm
CLEANFILES += %reldir%/mkseeds

# The committed corpus, file by file (a new regress-* file goes here too:
# `make dist` refuses a corpus file that is missing from this list).
fuzz_corpus = \
	%reldir%/corpus/map/bad-blank.map \
	%reldir%/corpus/map/bad-cr-only.map \
	%reldir%/corpus/map/bad-double-cr.map \
	%reldir%/corpus/map/bad-duplicate-height.map \
	%reldir%/corpus/map/bad-duplicate-width.map \
	%reldir%/corpus/map/bad-empty.map \
	%reldir%/corpus/map/bad-extra-after-blank.map \
	%reldir%/corpus/map/bad-extra-rows.map \
	%reldir%/corpus/map/bad-header-truncated.map \
	%reldir%/corpus/map/bad-height-digits.map \
	%reldir%/corpus/map/bad-height-negative.map \
	%reldir%/corpus/map/bad-height-novalue.map \
	%reldir%/corpus/map/bad-height-syntax.map \
	%reldir%/corpus/map/bad-height-zero.map \
	%reldir%/corpus/map/bad-high-bytes.map \
	%reldir%/corpus/map/bad-large-declared.map \
	%reldir%/corpus/map/bad-long-token.map \
	%reldir%/corpus/map/bad-map-extra.map \
	%reldir%/corpus/map/bad-map-keyword.map \
	%reldir%/corpus/map/bad-missing-width.map \
	%reldir%/corpus/map/bad-no-map-line.map \
	%reldir%/corpus/map/bad-nul-byte.map \
	%reldir%/corpus/map/bad-row-empty.map \
	%reldir%/corpus/map/bad-row-long.map \
	%reldir%/corpus/map/bad-row-short.map \
	%reldir%/corpus/map/bad-rows-truncated.map \
	%reldir%/corpus/map/bad-side-max.map \
	%reldir%/corpus/map/bad-space-in-row.map \
	%reldir%/corpus/map/bad-tab-in-row.map \
	%reldir%/corpus/map/bad-too-many-cells.map \
	%reldir%/corpus/map/bad-type-case.map \
	%reldir%/corpus/map/bad-type-missing.map \
	%reldir%/corpus/map/bad-type-novalue.map \
	%reldir%/corpus/map/bad-type-value.map \
	%reldir%/corpus/map/bad-unknown-cell.map \
	%reldir%/corpus/map/bad-utf8-bom.map \
	%reldir%/corpus/map/valid-1x1.map \
	%reldir%/corpus/map/valid-40x30.map \
	%reldir%/corpus/map/valid-all-glyphs.map \
	%reldir%/corpus/map/valid-column.map \
	%reldir%/corpus/map/valid-crlf.map \
	%reldir%/corpus/map/valid-header-spaces.map \
	%reldir%/corpus/map/valid-mixed-line-ends.map \
	%reldir%/corpus/map/valid-no-final-newline.map \
	%reldir%/corpus/map/valid-plus-sign.map \
	%reldir%/corpus/map/valid-row.map \
	%reldir%/corpus/map/valid-small.map \
	%reldir%/corpus/map/valid-tiny.map \
	%reldir%/corpus/map/valid-trailing-blank-lines.map \
	%reldir%/corpus/map/valid-width-first.map \
	%reldir%/corpus/scen/bad-blank.scen \
	%reldir%/corpus/scen/bad-bucket-digits.scen \
	%reldir%/corpus/scen/bad-bucket-negative.scen \
	%reldir%/corpus/scen/bad-bucket-syntax.scen \
	%reldir%/corpus/scen/bad-coord-negative.scen \
	%reldir%/corpus/scen/bad-empty.scen \
	%reldir%/corpus/scen/bad-extra-field.scen \
	%reldir%/corpus/scen/bad-goal-off-map.scen \
	%reldir%/corpus/scen/bad-height-huge.scen \
	%reldir%/corpus/scen/bad-mapname-256.scen \
	%reldir%/corpus/scen/bad-mapname-control.scen \
	%reldir%/corpus/scen/bad-missing-field.scen \
	%reldir%/corpus/scen/bad-nul-byte.scen \
	%reldir%/corpus/scen/bad-optimal-hex.scen \
	%reldir%/corpus/scen/bad-optimal-inf.scen \
	%reldir%/corpus/scen/bad-optimal-long.scen \
	%reldir%/corpus/scen/bad-optimal-nan.scen \
	%reldir%/corpus/scen/bad-optimal-negative.scen \
	%reldir%/corpus/scen/bad-optimal-syntax.scen \
	%reldir%/corpus/scen/bad-second-line.scen \
	%reldir%/corpus/scen/bad-single-slash.scen \
	%reldir%/corpus/scen/grid-size-mismatch.scen \
	%reldir%/corpus/scen/bad-start-off-map.scen \
	%reldir%/corpus/scen/bad-version-2.scen \
	%reldir%/corpus/scen/bad-version-missing.scen \
	%reldir%/corpus/scen/bad-version-novalue.scen \
	%reldir%/corpus/scen/bad-width-zero.scen \
	%reldir%/corpus/scen/valid-16.scen \
	%reldir%/corpus/scen/valid-blank-lines.scen \
	%reldir%/corpus/scen/valid-crlf.scen \
	%reldir%/corpus/scen/valid-demo-head.scen \
	%reldir%/corpus/scen/valid-empty.scen \
	%reldir%/corpus/scen/valid-exponent.scen \
	%reldir%/corpus/scen/valid-longest-mapname.scen \
	%reldir%/corpus/scen/valid-many-entries.scen \
	%reldir%/corpus/scen/valid-no-final-newline.scen \
	%reldir%/corpus/scen/valid-other-size.scen \
	%reldir%/corpus/scen/valid-spaces.scen \
	%reldir%/corpus/scen/valid-tiny.scen \
	%reldir%/corpus/scen/valid-trailer.scen \
	%reldir%/corpus/scen/valid-version-1.0.scen \
	%reldir%/corpus/world/bad-agent-count-huge.world \
	%reldir%/corpus/world/bad-agents-misaligned.world \
	%reldir%/corpus/world/bad-agents-size-huge.world \
	%reldir%/corpus/world/bad-capacity-bigger.world \
	%reldir%/corpus/world/bad-capacity-huge.world \
	%reldir%/corpus/world/bad-cell-size-nan.world \
	%reldir%/corpus/world/bad-cell-size-zero.world \
	%reldir%/corpus/world/bad-cells-offset-huge.world \
	%reldir%/corpus/world/bad-cells-past-end.world \
	%reldir%/corpus/world/bad-cells-size.world \
	%reldir%/corpus/world/bad-cells-too-many.world \
	%reldir%/corpus/world/bad-empty.world \
	%reldir%/corpus/world/bad-header-size.world \
	%reldir%/corpus/world/bad-magic-edits.world \
	%reldir%/corpus/world/bad-magic-zero.world \
	%reldir%/corpus/world/bad-magic.world \
	%reldir%/corpus/world/bad-path-capacity-bigger.world \
	%reldir%/corpus/world/bad-path-capacity-huge.world \
	%reldir%/corpus/world/bad-path-capacity-zero.world \
	%reldir%/corpus/world/bad-path-count-huge.world \
	%reldir%/corpus/world/bad-path-count-past-length.world \
	%reldir%/corpus/world/bad-path-in-header.world \
	%reldir%/corpus/world/bad-path-overlaps-trace.world \
	%reldir%/corpus/world/bad-path-past-end.world \
	%reldir%/corpus/world/bad-pid-zero.world \
	%reldir%/corpus/world/bad-queue-capacity.edits \
	%reldir%/corpus/world/bad-queue-claim-timeout.edits \
	%reldir%/corpus/world/bad-queue-truncated.edits \
	%reldir%/corpus/world/bad-record-size.world \
	%reldir%/corpus/world/bad-sections-overlap.world \
	%reldir%/corpus/world/bad-snapshot-count-huge.world \
	%reldir%/corpus/world/bad-state.world \
	%reldir%/corpus/world/bad-stats-in-header.world \
	%reldir%/corpus/world/bad-total-size.world \
	%reldir%/corpus/world/bad-trace-capacity-huge.world \
	%reldir%/corpus/world/bad-trace-capacity-zero.world \
	%reldir%/corpus/world/bad-trace-count-huge.world \
	%reldir%/corpus/world/bad-trace-runs-past-end.world \
	%reldir%/corpus/world/bad-truncated-12.world \
	%reldir%/corpus/world/bad-truncated-200.world \
	%reldir%/corpus/world/bad-truncated-7.world \
	%reldir%/corpus/world/bad-truncated-half.world \
	%reldir%/corpus/world/bad-version-1.world \
	%reldir%/corpus/world/bad-version.world \
	%reldir%/corpus/world/bad-width-huge.world \
	%reldir%/corpus/world/bad-width-negative.world \
	%reldir%/corpus/world/bad-width-zero.world \
	%reldir%/corpus/world/busy-cells-seq-odd.world \
	%reldir%/corpus/world/busy-path-seq-odd.world \
	%reldir%/corpus/world/valid-1x1-no-agents.world \
	%reldir%/corpus/world/valid-4x4.world \
	%reldir%/corpus/world/valid-7x5.world \
	%reldir%/corpus/world/valid-cap2.edits \
	%reldir%/corpus/world/valid-cap4.edits \
	%reldir%/corpus/edits/agent-commands \
	%reldir%/corpus/edits/bad-op-type-field \
	%reldir%/corpus/edits/batch-complete \
	%reldir%/corpus/edits/batch-count-wrong \
	%reldir%/corpus/edits/batch-empty-end \
	%reldir%/corpus/edits/batch-end-huge-count \
	%reldir%/corpus/edits/batch-end-zero-id \
	%reldir%/corpus/edits/batch-never-ended \
	%reldir%/corpus/edits/batch-poisoned \
	%reldir%/corpus/edits/batch-small-ids \
	%reldir%/corpus/edits/corrupt-batch-member \
	%reldir%/corpus/edits/corrupt-payload \
	%reldir%/corpus/edits/corrupt-seq \
	%reldir%/corpus/edits/empty \
	%reldir%/corpus/edits/many-across-drains \
	%reldir%/corpus/edits/out-of-bounds \
	%reldir%/corpus/edits/scribbled-header \
	%reldir%/corpus/edits/small-coords \
	%reldir%/corpus/edits/too-big \
	%reldir%/corpus/edits/trace \
	%reldir%/corpus/edits/valid-rect-line \
	%reldir%/corpus/edits/valid-sets \
	%reldir%/corpus/recording/cut-4096 \
	%reldir%/corpus/recording/drop-agent-data \
	%reldir%/corpus/recording/flip-header \
	%reldir%/corpus/recording/frame-min \
	%reldir%/corpus/recording/jupedsim \
	%reldir%/corpus/recording/jupedsim-draw \
	%reldir%/corpus/recording/loose-null \
	%reldir%/corpus/recording/many-rows \
	%reldir%/corpus/recording/meta-fps-nan \
	%reldir%/corpus/recording/pos-huge \
	%reldir%/corpus/recording/regress-cell-size-huge \
	%reldir%/corpus/recording/regress-dropped-huge \
	%reldir%/corpus/recording/regress-fps-denormal \
	%reldir%/corpus/recording/regress-schema-control-byte \
	%reldir%/corpus/recording/regress-table-doubling \
	%reldir%/corpus/recording/regress-view-text-frame \
	%reldir%/corpus/recording/valid-both \
	%reldir%/corpus/recording/valid-draw \
	%reldir%/corpus/recording/valid-report \
	%reldir%/corpus/recording/valid-view \
	%reldir%/corpus/recording/valid-wal \
	%reldir%/corpus/recording/wkt-long \
	%reldir%/corpus/recording/wkt-zigzag-view \
	%reldir%/corpus/scenario/bad-remove-unknown.json \
	%reldir%/corpus/scenario/bad-speed-range.json \
	%reldir%/corpus/scenario/bad-truncated.json \
	%reldir%/corpus/scenario/bad-unknown-key.json \
	%reldir%/corpus/scenario/regress-raster-no-crossing.json \
	%reldir%/corpus/scenario/valid-bottleneck.json \
	%reldir%/corpus/scenario/valid-corridor.json \
	%reldir%/corpus/scenario/valid-crossing.json \
	%reldir%/corpus/scenario/valid-events.json \
	%reldir%/corpus/scenario/valid-rimea-01-corridor.json \
	%reldir%/corpus/scenario/valid-rimea-06-corner.json \
	%reldir%/corpus/scenario/valid-rimea-12-bottleneck.json \
	%reldir%/corpus/scenario/valid-speed-tail.json \
	%reldir%/corpus/scenario/valid-station.json \
	%reldir%/corpus/scenario/valid-too-many.json
EXTRA_DIST += $(fuzz_corpus) scripts/fuzz.sh

dist-hook: fuzz-corpus-listed
fuzz-corpus-listed:
	@for f in $(srcdir)/%reldir%/corpus/*/*; do \
	    case " $(fuzz_corpus) " in \
	    *" $${f#$(srcdir)/} "*) ;; \
	    *) echo "$$f: add it to fuzz_corpus in %reldir%/local.mk" >&2; exit 1 ;; \
	    esac; \
	done
.PHONY: fuzz-corpus-listed


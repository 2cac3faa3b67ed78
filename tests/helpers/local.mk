# tests/helpers/: programs only the tests run (built by make check).
#   gc-test-reader      prints a world's header and agents as text
#   gc-test-edit-crash  an edit-queue producer that dies between claim and
#                       publish, or pushes raw entries no tool would send
#   gc-test-world       a stand-in for the daemon that puts agents exactly
#                       where a test says (the viewer's tests)
#   gc-test-bmp         reads a pixel of a BMP
check_PROGRAMS += %reldir%/gc-test-reader %reldir%/gc-test-edit-crash \
	%reldir%/gc-test-world %reldir%/gc-test-bmp
%canon_reldir%_gc_test_reader_SOURCES = %reldir%/gc-test-reader.c
%canon_reldir%_gc_test_reader_LDADD = libgridcrowd.la
%canon_reldir%_gc_test_edit_crash_SOURCES = %reldir%/gc-test-edit-crash.c
%canon_reldir%_gc_test_edit_crash_LDADD = libgridcrowd.la
%canon_reldir%_gc_test_world_SOURCES = %reldir%/gc-test-world.c
%canon_reldir%_gc_test_world_LDADD = libgridcrowd.la -lm
%canon_reldir%_gc_test_bmp_SOURCES = %reldir%/gc-test-bmp.c

# gc-test-record prints walkable-area WKT and records short runs for
# tests/record-file.test.
check_PROGRAMS += %reldir%/gc-test-record
%canon_reldir%_gc_test_record_SOURCES = %reldir%/gc-test-record.c
%canon_reldir%_gc_test_record_LDADD = libgridcrowd.la

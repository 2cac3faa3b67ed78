#!/bin/sh
# scripts/embed-map.sh MAP > default_map.c: turn a map file into C source for
# gridcrowdd's built-in demo map (see daemon/default_map.h).  Map files hold
# only printable ASCII, but quotes and backslashes are escaped anyway.
set -eu
map=$1
printf '/* Generated from %s by scripts/embed-map.sh: do not edit. */\n' \
    "$(basename "$map")"
printf '#include "default_map.h"\n\n'
printf 'const char gc_default_map_name[] = "maps/%s (built in)";\n' \
    "$(basename "$map")"
printf 'const char gc_default_map[] =\n'
sed -e 's/\r$//' -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' \
    -e 's/$/\\n"/' "$map"
printf '    ;\nconst size_t gc_default_map_len = sizeof gc_default_map - 1;\n'

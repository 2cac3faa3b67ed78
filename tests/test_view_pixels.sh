#!/bin/sh
# The viewer draws what the world holds, where it is: cell colours, agent
# discs coloured by state with the heading mark on the side they face, the
# selected agent's path, and the trace of its search.
#
# gc-test-world puts agents exactly where we say; --screenshot renders one
# frame at 40 pixels a cell, so cell (x, y) covers pixels [40x, 40x + 40) x
# [40y, 40y + 40) and an agent at world (x, y) is centred on (40x, 40y).
# Agent discs have radius 0.35 cell = 14 px; we look 8 px either side of the
# centre.  The overlay covers the top rows and the bottom-left corner: no
# pixel checked is under it.
. "$(dirname "$0")/view_lib.sh"

# tests/data/tiny.map:       ..RR..@.
#                            .@RR..@.
#                            .@RR.SS.
#                            RRRRRRRR
#                            ..RR.SS.
#                            @.RR..@@
start_world --map "$srcdir/tests/data/tiny.map" \
    --agent 4.5,1.5,0,moving,7,1 --waypoint 5.5,2.5 --waypoint 7.5,2.5 \
    --agent 7.5,4.5,90,stuck \
    --agent 0.5,4.5,180,waiting \
    --agent 4.5,4.5,270,arrived
shot=$TMP/cells.bmp
# Without SDL_VIDEODRIVER, as a user would run it: --screenshot picks
# SDL's offscreen driver itself.
env -u SDL_VIDEODRIVER "$VIEW" --shm "$NAME" --scale 40 --select 0 \
    --screenshot "$shot" ||
    fail "screenshot exited $?"
[ "$("$BMP" "$shot")" = "320 240" ] || fail "size $("$BMP" "$shot")"

walkable=e6e6e1 obstacle=7f1d1d high=e9c83b low=84c26e
moving=1e66f5 waiting=ffa000 arrived=8839ef stuck=e4147c
expect_pixel "obstacle (1, 1)" "$shot" 60 60 $obstacle
expect_pixel "high-cost (5, 4)" "$shot" 220 180 $high
expect_pixel "low-cost (2, 3)" "$shot" 100 140 $low
expect_pixel "walkable (0, 2)" "$shot" 20 100 $walkable
expect_pixel "walkable (4, 5)" "$shot" 180 220 $walkable

# Agent 0 at (180, 60) faces east: its mark is east of the centre.
expect_pixel "agent 0 west" "$shot" 172 60 $moving
expect_pixel "agent 0 north" "$shot" 180 52 $moving
expect_dark "agent 0 heading east" "$shot" 188 60
# Agent 1 at (300, 180) faces south (world y grows downwards).
expect_pixel "agent 1 north" "$shot" 300 172 $stuck
expect_dark "agent 1 heading south" "$shot" 300 188
# Agent 2 at (20, 180) faces west.
expect_pixel "agent 2 east" "$shot" 28 180 $waiting
expect_dark "agent 2 heading west" "$shot" 12 180
# Agent 3 at (180, 180) faces north.
expect_pixel "agent 3 south" "$shot" 180 188 $arrived
expect_dark "agent 3 heading north" "$shot" 180 172

# Agent 0 is selected: its path runs (180, 60) -> (220, 100) -> (300, 100).
expect_dark "path, first leg" "$shot" 200 80
expect_dark "path, second leg" "$shot" 260 100
expect_pixel "no path elsewhere (5, 1)" "$shot" 220 60 $walkable
stop_world

# The trace: on an open 10x8 field, agent 0 at (2.5, 3.5) searched towards
# (7, 3).  The made-up trace marks row 3 from x 2 to 7 as the path, the
# cells next to it closed and the ring beyond them open.
start_world --size 10x8 --agent 2.5,3.5,0,moving,7,3 --trace 0
shot=$TMP/trace.bmp
"$VIEW" --shm "$NAME" --scale 40 --trace 0 --screenshot "$shot" ||
    fail "screenshot exited $?"
expect_pixel "trace path (5, 3)" "$shot" 220 140 00ff00
expect_pixel "trace closed (5, 4)" "$shot" 220 180 008b8b
expect_pixel "trace open (5, 5)" "$shot" 220 220 00ffff
expect_pixel "beyond the trace (5, 6)" "$shot" 220 260 $walkable
stop_world

# Without --trace the same world shows no trace.
start_world --size 10x8 --agent 2.5,3.5,0,moving,7,3 --trace 0
"$VIEW" --shm "$NAME" --scale 40 --screenshot "$shot" ||
    fail "screenshot exited $?"
expect_pixel "no trace unless asked (5, 3)" "$shot" 220 140 $walkable
stop_world

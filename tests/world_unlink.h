/*
 * world_unlink.h: remove a test's shared-memory world by name.  A test
 * that creates a world and fails an assert never reaches its own
 * gc_world_destroy(); its objects would stay in /dev/shm, and the next
 * test to create a world under the same name would fail for that alone.
 * The tests' CMocka teardowns call this after every test (when the test
 * destroyed its world, both unlinks find nothing, which is fine).
 */
#ifndef GRIDCROWD_TESTS_WORLD_UNLINK_H
#define GRIDCROWD_TESTS_WORLD_UNLINK_H

#include <stdio.h>
#include <sys/mman.h>

/* Unlinks the world `name` (without its leading slash) and its edit
 * queue, name.edits. */
static inline void
gc_test_world_unlink(const char *name)
{
    char path[96];
    snprintf(path, sizeof path, "/%s", name);
    shm_unlink(path);
    snprintf(path, sizeof path, "/%s.edits", name);
    shm_unlink(path);
}

#endif

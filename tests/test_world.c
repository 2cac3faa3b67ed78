/*
 * test_world.c: the shared-memory world and edit-queue objects.
 *
 * Every test works on objects named after the test process's pid (and a
 * counter), so parallel runs never collide, and its teardown unlinks them
 * even when an assertion failed.  Children made with fork() never use the
 * CMocka assertions (a failure would return into the child's copy of the
 * test runner); they report through their exit status or a pipe.
 *
 * Failure paths use -Wl,--wrap: while `wrap_on` is set, each call of
 * shm_open, mmap or ftruncate takes one value queued with will_return, 0
 * to pass through or an errno to fail with.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "quick.h"
#include "world_unlink.h"

#include <gridcrowd/world-layout.h>
#include <gridcrowd/util.h>
#include <gridcrowd/world.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- System-call wrappers ------------------------------------------------ */

static bool wrap_on;

int __real_shm_open(const char *name, int oflag, mode_t mode);
int __wrap_shm_open(const char *name, int oflag, mode_t mode);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd,
                  off_t off);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
                  off_t off);
int __real_ftruncate(int fd, off_t len);
int __wrap_ftruncate(int fd, off_t len);

int
__wrap_shm_open(const char *name, int oflag, mode_t mode)
{
    if (wrap_on) {
        int e = mock_type(int);
        if (e != 0) {
            errno = e;
            return -1;
        }
    }
    return __real_shm_open(name, oflag, mode);
}

void *
__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (wrap_on) {
        int e = mock_type(int);
        if (e != 0) {
            errno = e;
            return MAP_FAILED;
        }
    }
    return __real_mmap(addr, len, prot, flags, fd, off);
}

int
__wrap_ftruncate(int fd, off_t len)
{
    if (wrap_on) {
        int e = mock_type(int);
        if (e != 0) {
            errno = e;
            return -1;
        }
    }
    return __real_ftruncate(fd, len);
}

/* ---- Fixture ------------------------------------------------------------- */

typedef struct fixture {
    char name[64];   /* without '/' */
    char shm[2][96]; /* /dev/shm paths of the world and the queue */
    gc_world *owner;
    gc_world *reader;
    gc_world_config cfg;
} fixture;

static int
setup(void **state)
{
    static int counter;
    fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    snprintf(f->name, sizeof f->name, "gc-test-world-%ld-%d", (long)getpid(),
             counter++);
    snprintf(f->shm[0], sizeof f->shm[0], "/dev/shm/%s", f->name);
    snprintf(f->shm[1], sizeof f->shm[1], "/dev/shm/%s.edits", f->name);
    f->cfg = (gc_world_config){.name = f->name,
                               .width = 7,
                               .height = 5,
                               .cell_size = 2.5f,
                               .agent_capacity = 16};
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    fixture *f = *state;
    wrap_on = false;
    gc_world_close(f->reader);
    gc_world_destroy(f->owner);
    gc_test_world_unlink(f->name);
    free(f);
    return 0;
}

static bool
exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void
create_owner(fixture *f)
{
    gc_error err;
    gc_world_takeover took;
    int rc = gc_world_create(&f->owner, &f->cfg, &took, &err);
    if (rc != GC_OK)
        fail_msg("create: %s", err.msg);
    assert_false(took.world);
    assert_false(took.edits);
}

static void
attach_reader(fixture *f, unsigned flags)
{
    gc_error err;
    int rc = gc_world_attach(&f->reader, f->name, flags, &err);
    if (rc != GC_OK)
        fail_msg("attach: %s", err.msg);
}

/* A writable mapping of the world object, independent of any handle. */
static uint8_t *
map_rw(const char *name, size_t *size)
{
    char n[80];
    snprintf(n, sizeof n, "/%s", name);
    int fd = shm_open(n, O_RDWR, 0);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    *size = (size_t)st.st_size;
    void *p = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    assert_true(p != MAP_FAILED);
    close(fd);
    return p;
}

/* Expect attach to fail with `code` and exactly `msg`. */
static void
expect_attach_error(fixture *f, int code, const char *msg)
{
    gc_world *w = (gc_world *)1;
    gc_error err;
    gc_error_clear(&err);
    int rc = gc_world_attach(&w, f->name, 0, &err);
    assert_null(w);
    assert_string_equal(gc_err_name(rc), gc_err_name(code));
    assert_int_equal(err.code, code);
    assert_string_equal(err.msg, msg);
}

/* ---- Names and creation -------------------------------------------------- */

static void
test_names(void **state)
{
    fixture *f = *state;
    gc_error err;
    gc_world *w = (gc_world *)1;
    char longname[300];

    f->cfg.name = "";
    assert_int_equal(gc_world_create(&w, &f->cfg, NULL, &err), GC_EINVAL);
    assert_null(w);
    assert_string_equal(err.msg, "shared-memory name '' is empty");
    assert_int_equal(gc_world_attach(&w, "/", 0, &err), GC_EINVAL);
    assert_string_equal(err.msg, "shared-memory name '/' is empty");
    assert_int_equal(gc_world_attach(&w, "a/b", 0, &err), GC_EINVAL);
    assert_string_equal(err.msg, "shared-memory name 'a/b' contains '/' "
                                 "after its first character");
    assert_int_equal(gc_world_attach(&w, "..", 0, &err), GC_EINVAL);
    assert_string_equal(err.msg, "shared-memory name '..' is not allowed");
    memset(longname, 'x', 250);
    longname[250] = '\0';
    assert_int_equal(gc_world_attach(&w, longname, 0, &err), GC_EINVAL);
    assert_string_equal(err.msg, "shared-memory name is 250 characters, "
                                 "longer than the limit of 249");

    /* The longest name works: 249 + ".edits" is NAME_MAX. */
    int n = snprintf(longname, sizeof longname, "/%s-", f->name);
    memset(longname + n, 'y', (size_t)(250 - n));
    longname[250] = '\0';
    f->cfg.name = longname;
    int rc = gc_world_create(&w, &f->cfg, NULL, &err);
    if (rc != GC_OK)
        fail_msg("create: %s", err.msg);
    assert_string_equal(gc_world_name(w), longname);
    char edits[320];
    snprintf(edits, sizeof edits, "%s.edits", longname);
    assert_string_equal(gc_queue_name(gc_world_queue(w)), edits);
    gc_world_destroy(w);

    /* With or without the leading '/': the same object. */
    f->cfg.name = f->name;
    create_owner(f);
    char slashed[80];
    snprintf(slashed, sizeof slashed, "/%s", f->name);
    assert_int_equal(gc_world_attach(&f->reader, slashed, 0, &err), GC_OK);
    assert_string_equal(gc_world_name(f->reader), gc_world_name(f->owner));
}

static void
test_bad_config(void **state)
{
    fixture *f = *state;
    gc_error err;
    gc_world *w;

    f->cfg.width = 0;
    assert_int_equal(gc_world_create(&w, &f->cfg, NULL, &err), GC_EINVAL);
    f->cfg.width = 65536;
    f->cfg.height = 65536;
    assert_int_equal(gc_world_create(&w, &f->cfg, NULL, &err), GC_ETOOBIG);
    f->cfg.width = f->cfg.height = 4;
    f->cfg.cell_size = -1;
    assert_int_equal(gc_world_create(&w, &f->cfg, NULL, &err), GC_EINVAL);
    assert_string_equal(err.msg, "cell size -1 is not a positive number");
    f->cfg.cell_size = 1;
    f->cfg.edits_capacity = 1000;
    assert_int_equal(gc_world_create(&w, &f->cfg, NULL, &err), GC_EINVAL);
    assert_string_equal(err.msg, "edit queue capacity 1000 is not a power of "
                                 "two in 2..1048576");
    f->cfg.edits_capacity = 0;
    f->cfg.agent_capacity = GC_WORLD_MAX_AGENTS + 1;
    assert_int_equal(gc_world_create(&w, &f->cfg, NULL, &err), GC_ETOOBIG);
    assert_false(exists(f->shm[0]));
    assert_false(exists(f->shm[1]));
}

static void
test_create_attach(void **state)
{
    fixture *f = *state;
    mode_t old = umask(077);
    f->cfg.world_mode = 0644;
    f->cfg.edits_mode = 0662;
    create_owner(f);
    umask(old);

    /* Modes are exact, whatever the umask. */
    struct stat st;
    assert_int_equal(stat(f->shm[0], &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    assert_int_equal(stat(f->shm[1], &st), 0);
    assert_int_equal(st.st_mode & 07777, 0662);

    attach_reader(f, 0);
    const gc_world_header *h = gc_world_hdr(f->reader);
    assert_int_equal(atomic_load(&h->magic), GC_WORLD_MAGIC);
    assert_int_equal(h->version, GC_WORLD_VERSION);
    assert_int_equal(h->header_size, sizeof(gc_world_header));
    assert_int_equal(h->total_size, gc_world_size(f->reader));
    assert_int_equal(h->total_size % GC_WORLD_ALIGN, 0);
    assert_int_equal(h->width, 7);
    assert_int_equal(h->height, 5);
    assert_true(h->cell_size == 2.5f);
    assert_int_equal(h->pid, getpid());
    assert_int_equal(h->agent_capacity, 16);
    assert_int_equal(h->agent_record_size, 128);
    assert_int_equal(h->trace_capacity, 70); /* 2 * cells */
    assert_int_equal(h->cells.offset, 256);
    assert_int_equal(h->cells.size, 35);
    assert_int_equal(h->agents.offset, 320);
    assert_int_equal(h->agents.size, 64 + 2 * 16 * 128);
    assert_int_equal(h->stats.size, 320);
    assert_int_equal(h->trace.size, 64 + 70 * 8);
    assert_int_equal(h->path_capacity, 35); /* a waypoint a cell */
    assert_int_equal(h->path.size, 64 + 35 * 8);
    assert_int_equal(h->path.offset, h->trace.offset + 640); /* aligned */
    assert_int_equal(gc_world_width(f->reader), 7);
    assert_int_equal(gc_world_height(f->reader), 5);
    assert_true(gc_world_cell_size(f->reader) == 2.5f);
    assert_int_equal(gc_world_agent_capacity(f->reader), 16);
    assert_int_equal(gc_world_trace_capacity(f->reader), 70);
    assert_int_equal(gc_world_path_capacity(f->reader), 35);
    assert_int_equal(gc_world_pid(f->reader), getpid());
    assert_int_equal(gc_world_state(f->reader), GC_WORLD_STARTING);
    assert_int_equal(gc_world_tick(f->reader), 0);
    assert_int_equal(gc_world_generation(f->reader), 0);
    assert_true(gc_world_is_owner(f->owner));
    assert_false(gc_world_is_owner(f->reader));
    assert_true(gc_world_owner_alive(f->reader));
    assert_null(gc_queue_hdr(gc_world_queue(f->reader)));

    /* Sections by their validated offsets. */
    const uint8_t *base = gc_world_base(f->reader);
    const gc_world_section *secs[6] = {&h->cells, &h->agents, &h->stats,
                                       &h->trace, &h->path, &h->answers};
    for (int i = 0; i < 6; i++) {
        size_t sz = 0;
        assert_ptr_equal(gc_world_section_at(f->reader, i, &sz),
                         base + secs[i]->offset);
        assert_int_equal(sz, secs[i]->size);
    }
    assert_int_equal(h->answer_capacity, GC_WORLD_ANSWERS_DEFAULT);
    assert_int_equal(gc_world_answer_capacity(f->reader),
                     GC_WORLD_ANSWERS_DEFAULT);
    size_t sz = 1;
    assert_null(gc_world_section_at(f->reader, 6, &sz));
    assert_int_equal(sz, 0);

    /* Live fields written by the owner are seen by the reader. */
    assert_int_equal(gc_world_set_state(f->owner, GC_WORLD_RUNNING), GC_OK);
    assert_int_equal(gc_world_set_tick(f->owner, 42), GC_OK);
    assert_int_equal(gc_world_set_state(f->owner, 9), GC_EINVAL);
    assert_int_equal(gc_world_state(f->reader), GC_WORLD_RUNNING);
    assert_string_equal(gc_world_state_name(gc_world_state(f->reader)),
                        "running");
    assert_int_equal(gc_world_tick(f->reader), 42);
    assert_int_equal(gc_world_set_edit_counts(f->owner, 5, 2, 1), GC_OK);
    assert_int_equal(atomic_load(&h->edits_accepted), 5);
    assert_int_equal(atomic_load(&h->edits_rejected), 2);
    assert_int_equal(atomic_load(&h->edits_pending), 1);
    assert_int_equal(gc_world_edits_applied(f->reader), 0);
    assert_int_equal(gc_world_set_edits_applied(f->owner, 7), GC_OK);
    assert_int_equal(gc_world_set_edits_applied(f->reader, 8), GC_EPERM);
    assert_int_equal(gc_world_edits_applied(f->reader), 7);
    assert_int_equal(gc_queue_tail(gc_world_queue(f->reader)), 0); /* no queue attached */

    /* Cells: the daemon edits through a gc_grid on the section. */
    gc_grid *g;
    assert_int_equal(gc_world_grid(f->owner, &g), GC_OK);
    assert_true(g->cell_size == 2.5f);
    assert_int_equal(gc_world_cells_begin(f->owner), GC_OK);
    assert_int_equal(gc_world_cells_begin(f->owner), GC_EINVAL);
    assert_int_equal(gc_grid_set(g, 3, 2, GC_CELL_OBSTACLE), GC_OK);
    assert_int_equal(gc_grid_set(g, 6, 4, GC_CELL_LOW), GC_OK);
    assert_int_equal(gc_world_cells_end(f->owner), GC_OK);
    assert_int_equal(gc_world_cells_end(f->owner), GC_EINVAL);
    gc_grid_free(g);
    uint8_t cells[35];
    uint64_t gen = 99;
    assert_int_equal(gc_world_read_cells(f->reader, cells, &gen), GC_OK);
    assert_int_equal(gen, 1);
    assert_int_equal(gc_world_generation(f->reader), 1);
    for (int i = 0; i < 35; i++) {
        int want = i == 2 * 7 + 3   ? GC_CELL_OBSTACLE
                   : i == 4 * 7 + 6 ? GC_CELL_LOW
                                    : GC_CELL_WALKABLE;
        assert_int_equal(cells[i], want);
    }

    /* A reader cannot write through the API. */
    gc_world *r = f->reader;
    assert_null(gc_world_cells(r));
    assert_null(gc_world_agents_begin(r));
    assert_int_equal(gc_world_grid(r, &g), GC_EPERM);
    assert_int_equal(gc_world_set_state(r, GC_WORLD_STOPPING), GC_EPERM);
    assert_int_equal(gc_world_set_tick(r, 1), GC_EPERM);
    assert_int_equal(gc_world_set_edit_counts(r, 1, 1, 1), GC_EPERM);
    assert_int_equal(gc_world_cells_begin(r), GC_EPERM);
    assert_int_equal(gc_world_cells_end(r), GC_EPERM);
    assert_int_equal(gc_world_agents_publish(r, 0), GC_EPERM);
    gc_world_stats st0 = {0};
    assert_int_equal(gc_world_stats_publish(r, &st0), GC_EPERM);
    assert_int_equal(gc_world_trace_publish(r, 0, 0, 0, NULL, 0), GC_EPERM);
    assert_int_equal(gc_world_set_trace_request(r, 0, 0), GC_EPERM);
    assert_int_equal(gc_world_path_publish(r, 0, 0, 0, NULL, 0), GC_EPERM);
}

static void
test_readonly_mapping(void **state)
{
    fixture *f = *state;
    create_owner(f);
    attach_reader(f, 0);
    const uint8_t *base = gc_world_base(f->reader);

    /* /proc/self/maps shows the mapping read-only and shared. */
    FILE *maps = fopen("/proc/self/maps", "r");
    assert_non_null(maps);
    char line[512], perms[8] = "";
    unsigned long lo, hi;
    while (fgets(line, sizeof line, maps) != NULL)
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 &&
            lo == (unsigned long)base)
            break;
        else
            perms[0] = '\0';
    fclose(maps);
    assert_string_equal(perms, "r--s");

    /* It can never be made writable: the descriptor was O_RDONLY. */
    errno = 0;
    assert_int_equal(mprotect((void *)base, gc_world_size(f->reader),
                              PROT_READ | PROT_WRITE),
                     -1);
    assert_int_equal(errno, EACCES);

    /* And a write through it faults. */
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL); /* not a sanitizer's handler */
        signal(SIGBUS, SIG_DFL);
        *(volatile uint8_t *)(base + 300) = 1;
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
}

static void
test_attach_edits(void **state)
{
    fixture *f = *state;
    f->cfg.edits_capacity = 64;
    create_owner(f);
    attach_reader(f, GC_WORLD_ATTACH_QUEUE);
    gc_queue_header *e = gc_queue_hdr(gc_world_queue(f->reader));
    assert_non_null(e);
    assert_int_equal(atomic_load(&e->magic), GC_QUEUE_MAGIC);
    assert_int_equal(e->version, GC_QUEUE_VERSION);
    assert_int_equal(e->capacity, 64);
    assert_int_equal(e->entry_size, sizeof(gc_queue_entry));
    assert_int_equal(e->total_size, 256 + 64 * 128);
    assert_int_equal(gc_queue_size(gc_world_queue(f->reader)), 256 + 64 * 128);
    assert_int_equal(e->pid, getpid());
    assert_int_equal(atomic_load(&e->head), 0);
    assert_int_equal(atomic_load(&e->tail), 0);
    gc_queue_entry *ent = (gc_queue_entry *)(void *)((uint8_t *)e + 256);
    for (uint64_t i = 0; i < 64; i++)
        assert_int_equal(atomic_load(&ent[i].seq), i);
    /* The queue is writable by whoever may open it. */
    atomic_store(&e->tail, 1);
    assert_int_equal(atomic_load(&gc_queue_hdr(gc_world_queue(f->owner))->tail), 1);
    assert_int_equal(gc_queue_validate(e, gc_queue_size(gc_world_queue(f->reader)), NULL),
                     GC_OK);

    /* The default capacity. */
    gc_world_destroy(f->owner);
    gc_world_close(f->reader);
    f->reader = NULL;
    f->cfg.edits_capacity = 0;
    create_owner(f);
    assert_int_equal(gc_queue_hdr(gc_world_queue(f->owner))->capacity,
                     GC_QUEUE_DEFAULT_CAPACITY);
}

static void
test_attach_missing(void **state)
{
    fixture *f = *state;
    char msg[200];
    snprintf(msg, sizeof msg,
             "no daemon: shared-memory object /%s does not exist", f->name);
    expect_attach_error(f, GC_ENOENT, msg);

    /* A world without its queue, when the queue is asked for. */
    create_owner(f);
    assert_int_equal(shm_unlink(gc_queue_name(gc_world_queue(f->owner))), 0);
    gc_error err;
    gc_world *w;
    assert_int_equal(gc_world_attach(&w, f->name, GC_WORLD_ATTACH_QUEUE, &err),
                     GC_ENOENT);
    snprintf(msg, sizeof msg,
             "no daemon: shared-memory object /%s.edits does not exist",
             f->name);
    assert_string_equal(err.msg, msg);
}

/*
 * A reader racing a daemon that is starting: once it can attach the world it
 * can attach the queue too (the world's magic is published last), so a
 * viewer or editor never finds a world whose queue is missing or half made.
 * The creator bumps a phase before each create (odd: made or being made)
 * and before each destroy (even); a queue failure (its message names the
 * .edits object, so the world was found) that began and ended in one odd
 * phase is the bug.  (A count of cycles with a "destroying" flag was not
 * enough: an attach could start in a cycle and end after its destroy but
 * before the next create.)
 */
typedef struct start_race {
    const fixture *f;
    atomic_uint phase; /* bumped before each create and each destroy */
    atomic_bool done;
    unsigned found, tries; /* the reader's: queue failures seen, attaches */
    char msg[sizeof(((gc_error *)0)->msg)];
} start_race;

static void *
start_race_reader(void *arg)
{
    start_race *r = arg;
    while (!atomic_load(&r->done)) {
        unsigned phase = atomic_load(&r->phase);
        gc_world *w;
        gc_error err;
        int rc = gc_world_attach(&w, r->f->name, GC_WORLD_ATTACH_QUEUE, &err);
        r->tries++;
        if (rc == GC_OK) {
            gc_world_close(w);
            continue;
        }
        bool made = phase % 2 == 1 && atomic_load(&r->phase) == phase;
        if (made && strstr(err.msg, ".edits") != NULL && r->found++ == 0)
            snprintf(r->msg, sizeof r->msg, "%s", err.msg);
    }
    return NULL;
}

static void
test_attach_while_created(void **state)
{
    fixture *f = *state;
    start_race r = {.f = f};
    /* A queue of many pages, as the daemon's: making it takes a while. */
    f->cfg.edits_capacity = 4096;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, start_race_reader, &r), 0);
    unsigned cycles = gc_test_quick() ? 100 : 400;
    int rc = GC_OK;
    gc_error err;
    /* (No assertion while the reader runs: it would be left spinning.) */
    for (unsigned i = 0; i < cycles && rc == GC_OK; i++) {
        atomic_fetch_add(&r.phase, 1);
        rc = gc_world_create(&f->owner, &f->cfg, NULL, &err);
        atomic_fetch_add(&r.phase, 1);
        gc_world_destroy(f->owner);
        f->owner = NULL;
    }
    atomic_store(&r.done, true);
    assert_int_equal(pthread_join(t, NULL), 0);
    if (rc != GC_OK)
        fail_msg("create: %s", err.msg);
    if (r.found > 0)
        fail_msg("%u of %u attaches found the world without its queue: %s",
                 r.found, r.tries, r.msg);
}

/* ---- Refusals ------------------------------------------------------------ */

static void
test_refuse_corrupt_objects(void **state)
{
    fixture *f = *state;
    char msg[300];
    size_t size;
    create_owner(f);
    uint8_t *p = map_rw(f->name, &size);
    gc_world_header *h = (gc_world_header *)(void *)p;
    gc_world_header saved;
    memcpy(&saved, h, sizeof saved);
    attach_reader(f, 0); /* valid as created */
    gc_world_close(f->reader);
    f->reader = NULL;

    atomic_store(&h->magic, UINT64_C(0x1122334455667788));
    snprintf(msg, sizeof msg,
             "/%s: bad magic 0x1122334455667788 (expected 0x31444c524f574347, "
             "\"GCWORLD1\"): not a gridcrowd world",
             f->name);
    expect_attach_error(f, GC_EBADMAGIC, msg);
    atomic_store(&h->magic, GC_QUEUE_MAGIC);
    snprintf(msg, sizeof msg,
             "/%s: this is a gridcrowd edit queue, not a world", f->name);
    expect_attach_error(f, GC_EBADMAGIC, msg);
    atomic_store(&h->magic, 0);
    snprintf(msg, sizeof msg,
             "/%s: no magic number (zero): not a gridcrowd world, or its "
             "daemon is still starting",
             f->name);
    expect_attach_error(f, GC_EBADMAGIC, msg);
    memcpy(h, &saved, sizeof saved);

    h->version = 7;
    snprintf(msg, sizeof msg,
             "/%s: world layout version 7, but this program reads version %u",
             f->name, GC_WORLD_VERSION);
    expect_attach_error(f, GC_EVERSION, msg);
    memcpy(h, &saved, sizeof saved);

    h->agents.offset = size + 64;
    snprintf(msg, sizeof msg,
             "/%s: agents section offset %zu is past the end of the object "
             "(%zu bytes)",
             f->name, size + 64, size);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    h->trace.size = UINT64_MAX - 8; /* offset + size would wrap */
    snprintf(msg, sizeof msg,
             "/%s: trace section of %llu bytes at offset %llu runs past the "
             "end of the object (%zu bytes)",
             f->name, (unsigned long long)(UINT64_MAX - 8),
             (unsigned long long)saved.trace.offset, size);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    atomic_store(&h->agent_count, 17);
    snprintf(msg, sizeof msg, "/%s: agent count 17 exceeds capacity 16",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    h->agents.offset = 64;
    snprintf(msg, sizeof msg,
             "/%s: agents section at offset 64 overlaps the header (256 "
             "bytes)",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    h->stats.offset = h->agents.offset;
    snprintf(msg, sizeof msg, "/%s: agents and stats sections overlap",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    h->agents.offset += 8;
    snprintf(msg, sizeof msg,
             "/%s: agents section offset %llu is not 64-byte aligned", f->name,
             (unsigned long long)h->agents.offset);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    h->width = 8;
    snprintf(msg, sizeof msg,
             "/%s: cells section is 35 bytes, but the grid is 8x5 = 40 cells",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    h->width = 0;
    snprintf(msg, sizeof msg,
             "/%s: grid size 0x5 is out of range (1..65536 a side, at most "
             "268435456 cells)",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    h->agent_capacity = 15;
    snprintf(msg, sizeof msg,
             "/%s: agents section is 4160 bytes, expected 3904", f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    h->cell_size = -0.0f;
    snprintf(msg, sizeof msg, "/%s: cell size -0 is not a positive number",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    atomic_store(&h->state, 0);
    snprintf(msg, sizeof msg, "/%s: daemon state 0 is not a known state",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    h->agent_record_size = 64;
    snprintf(msg, sizeof msg, "/%s: agent record is 64 bytes, expected 128",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    h->header_size = 128;
    snprintf(msg, sizeof msg, "/%s: header size is 128 bytes, expected 256",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    h->pid = -1;
    snprintf(msg, sizeof msg, "/%s: owner pid -1 is not a valid pid", f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    /* The path section's fields (layout version 2). */
    h->path_capacity = 0;
    snprintf(msg, sizeof msg,
             "/%s: path capacity 0 is out of range (1..4194304)", f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    h->path_capacity = GC_WORLD_PATH_MAX + 1;
    snprintf(msg, sizeof msg,
             "/%s: path capacity 4194305 is out of range (1..4194304)",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    h->path_capacity = 34;
    snprintf(msg, sizeof msg,
             "/%s: path section is %llu bytes, expected %llu", f->name,
             (unsigned long long)saved.path.size,
             (unsigned long long)(64 + 34 * 8));
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    h->path.offset = size + 64;
    snprintf(msg, sizeof msg,
             "/%s: path section offset %zu is past the end of the object "
             "(%zu bytes)",
             f->name, size + 64, size);
    expect_attach_error(f, GC_ECORRUPT, msg);
    h->path.offset = saved.path.offset + 8;
    snprintf(msg, sizeof msg,
             "/%s: path section offset %llu is not 64-byte aligned", f->name,
             (unsigned long long)h->path.offset);
    expect_attach_error(f, GC_ECORRUPT, msg);
    /* The answers section comes after the path since version 3. */
    h->path.offset = saved.path.offset + 64;
    snprintf(msg, sizeof msg, "/%s: path and answers sections overlap",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    h->path.offset = saved.path.offset;
    h->answers.offset = saved.answers.offset + 64;
    snprintf(msg, sizeof msg,
             "/%s: answers section of %llu bytes at offset %llu runs past "
             "the end of the object (%zu bytes)",
             f->name, (unsigned long long)saved.answers.size,
             (unsigned long long)h->answers.offset, size);
    expect_attach_error(f, GC_ECORRUPT, msg);
    h->answers.offset = saved.answers.offset;
    /* The answers section's fields (layout version 3). */
    h->answer_capacity = 0;
    snprintf(msg, sizeof msg,
             "/%s: answer capacity 0 is out of range (1..65536)", f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    h->answer_capacity = GC_WORLD_ANSWERS_MAX + 1;
    snprintf(msg, sizeof msg,
             "/%s: answer capacity 65537 is out of range (1..65536)",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    h->answer_capacity = saved.answer_capacity - 1;
    snprintf(msg, sizeof msg,
             "/%s: answers section is %llu bytes, expected %llu", f->name,
             (unsigned long long)saved.answers.size,
             (unsigned long long)(64 + (saved.answer_capacity - 1) * 64ull));
    expect_attach_error(f, GC_ECORRUPT, msg);
    h->answer_capacity = saved.answer_capacity;
    h->path.offset = 192;
    snprintf(msg, sizeof msg,
             "/%s: path section at offset 192 overlaps the header (256 "
             "bytes)",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    h->path.offset = saved.trace.offset;
    h->path_capacity = saved.trace_capacity;
    h->path.size = saved.trace.size;
    snprintf(msg, sizeof msg, "/%s: trace and path sections overlap",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    memcpy(h, &saved, sizeof saved);

    /* Truncated: the header still claims the old size. */
    munmap(p, size);
    assert_int_equal(truncate(f->shm[0], 1000), 0);
    snprintf(msg, sizeof msg, "/%s: object is 1000 bytes, header says %zu",
             f->name, size);
    expect_attach_error(f, GC_ECORRUPT, msg);
    /* Truncated below a header: read without mapping past the end. */
    assert_int_equal(truncate(f->shm[0], 100), 0);
    snprintf(msg, sizeof msg,
             "/%s: object is 100 bytes, too small for a world header (256 "
             "bytes)",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
    assert_int_equal(truncate(f->shm[0], 0), 0);
    snprintf(msg, sizeof msg,
             "/%s: object is 0 bytes, too small for a world header (256 "
             "bytes); is a daemon still starting?",
             f->name);
    expect_attach_error(f, GC_ECORRUPT, msg);
}

static void
test_refuse_corrupt_edits(void **state)
{
    fixture *f = *state;
    create_owner(f);
    gc_queue_header *e = gc_queue_hdr(gc_world_queue(f->owner));
    gc_queue_header saved;
    memcpy(&saved, e, sizeof saved);
    char msg[300];
    gc_error err;
    gc_world *w;

    e->capacity = 100;
    assert_int_equal(gc_world_attach(&w, f->name, GC_WORLD_ATTACH_QUEUE, &err),
                     GC_ECORRUPT);
    snprintf(msg, sizeof msg,
             "/%s.edits: queue capacity 100 is not a power of two in "
             "2..1048576",
             f->name);
    assert_string_equal(err.msg, msg);
    memcpy(e, &saved, sizeof saved);

    e->pid = getpid() + 1;
    assert_int_equal(gc_world_attach(&w, f->name, GC_WORLD_ATTACH_QUEUE, &err),
                     GC_ECORRUPT);
    snprintf(msg, sizeof msg,
             "/%s.edits: edit queue belongs to pid %ld, the world /%s to pid "
             "%ld",
             f->name, (long)getpid() + 1, f->name, (long)getpid());
    assert_string_equal(err.msg, msg);
    memcpy(e, &saved, sizeof saved);

    e->version = GC_QUEUE_VERSION + 1;
    assert_int_equal(gc_world_attach(&w, f->name, GC_WORLD_ATTACH_QUEUE, &err),
                     GC_EVERSION);
    snprintf(msg, sizeof msg,
             "/%s.edits: edit queue layout version %u, but this program "
             "reads version %u",
             f->name, GC_QUEUE_VERSION + 1, GC_QUEUE_VERSION);
    assert_string_equal(err.msg, msg);
    memcpy(e, &saved, sizeof saved);

    atomic_store(&e->magic, GC_WORLD_MAGIC);
    assert_int_equal(gc_world_attach(&w, f->name, GC_WORLD_ATTACH_QUEUE, &err),
                     GC_EBADMAGIC);
    snprintf(msg, sizeof msg,
             "/%s.edits: this is a gridcrowd world, not an edit queue",
             f->name);
    assert_string_equal(err.msg, msg);
    memcpy(e, &saved, sizeof saved);

    e->total_size += 64;
    assert_int_equal(gc_queue_validate(e, gc_queue_size(gc_world_queue(f->owner)), &err),
                     GC_ECORRUPT);
    snprintf(msg, sizeof msg, "object is %zu bytes, header says %zu",
             gc_queue_size(gc_world_queue(f->owner)), gc_queue_size(gc_world_queue(f->owner)) + 64);
    assert_string_equal(err.msg, msg);
    memcpy(e, &saved, sizeof saved);

    /* A world is not a queue, and the other way round. */
    assert_int_equal(gc_queue_validate(gc_world_base(f->owner),
                                       gc_world_size(f->owner), NULL),
                     GC_EBADMAGIC);
    assert_int_equal(gc_world_validate(e, gc_queue_size(gc_world_queue(f->owner)), NULL),
                     GC_EBADMAGIC);
}

/* Validation never reads outside the bytes it is given, whatever they are:
 * every prefix of a valid world, and random damage to its header, in
 * exactly sized heap copies (ASan and valgrind catch any over-read). */
static void
test_validate_any_bytes(void **state)
{
    fixture *f = *state;
    create_owner(f);
    const uint8_t *src = gc_world_base(f->owner);
    size_t size = gc_world_size(f->owner);
    gc_error err;

    assert_int_equal(gc_world_validate(src, size, &err), GC_OK);
    /* Every prefix of the first 4 KiB (the header is 256 bytes and the
     * only part read), then every 61st and the last 61: every prefix
     * would be quadratic in the object's size (115 s under ASan, for
     * prefixes that all take one path, shorter than the object says).
     * Under valgrind (GC_TEST_QUICK=1) every 509th and the last 509. */
    size_t stride = gc_test_quick() ? 509 : 61;
    for (size_t n = 0; n < size;
         n = n < 4096 || n + stride >= size ? n + 1 : n + stride) {
        uint8_t *copy = malloc(n ? n : 1);
        assert_non_null(copy);
        memcpy(copy, src, n);
        /* Magic and version are intact: only the size is wrong. */
        assert_int_equal(gc_world_validate(copy, n, &err), GC_ECORRUPT);
        free(copy);
    }
    uint8_t *copy = malloc(size);
    assert_non_null(copy);
    uint64_t rng = 0x9e3779b97f4a7c15u;
    int ok = 0;
    for (int round = 0; round < 20000; round++) {
        memcpy(copy, src, size);
        int flips = 1 + round % 4;
        for (int k = 0; k < flips; k++) {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            copy[(rng >> 8) % 256] = (uint8_t)rng;
        }
        /* Cleared, so that a message is this round's, not a stale one. */
        gc_error_clear(&err);
        int rc = gc_world_validate(copy, size, &err);
        if (rc == GC_OK) {
            ok++;
        } else {
            assert_int_equal(err.code, rc);
            assert_true(err.msg[0] != '\0');
        }
    }
    free(copy);
    /* Damage to reserved words and live counters is not detectable. */
    assert_true(ok < 20000);

    /* A misaligned base is refused rather than read. */
    uint64_t aligned[40] = {0};
    assert_int_equal(gc_world_validate((uint8_t *)aligned + 1, 256, &err),
                     GC_EINVAL);
    assert_string_equal(err.msg, "mapping is not 8-byte aligned");
    assert_int_equal(gc_world_validate(NULL, 0, &err), GC_ECORRUPT);
}

/* ---- Ownership ----------------------------------------------------------- */

/* In a child: the handle stays reachable so a leak checker has nothing to
 * say about the _exit(). */
static gc_world *child_world;

static void
test_takeover_dead_owner(void **state)
{
    fixture *f = *state;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int rc = gc_world_create(&child_world, &f->cfg, NULL, NULL);
        _exit(rc == GC_OK ? 0 : 1); /* dies holding both objects */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(exists(f->shm[0]));
    assert_true(exists(f->shm[1]));

    gc_world_takeover took;
    gc_error err;
    int rc = gc_world_create(&f->owner, &f->cfg, &took, &err);
    if (rc != GC_OK)
        fail_msg("create: %s", err.msg);
    assert_true(took.world);
    assert_true(took.edits);
    assert_int_equal(took.world_pid, pid);
    assert_int_equal(took.edits_pid, pid);
    attach_reader(f, GC_WORLD_ATTACH_QUEUE);
    assert_int_equal(gc_world_pid(f->reader), getpid());
}

/* An object with a valid-looking header naming `pid` and nobody's lock. */
static void
make_stale(const fixture *f, int which, pid_t pid, size_t size)
{
    char n[80];
    snprintf(n, sizeof n, which ? "/%s.edits" : "/%s", f->name);
    int fd = shm_open(n, O_RDWR | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)size), 0);
    uint8_t buf[256] = {0};
    uint64_t magic = which ? GC_QUEUE_MAGIC : GC_WORLD_MAGIC;
    int32_t p = (int32_t)pid;
    memcpy(buf, &magic, sizeof magic);
    memcpy(buf + (which ? offsetof(gc_queue_header, pid)
                        : offsetof(gc_world_header, pid)),
           &p, sizeof p);
    size_t n_write = size < sizeof buf ? size : sizeof buf;
    assert_int_equal(pwrite(fd, buf, n_write, 0), (ssize_t)n_write);
    close(fd);
}

static void
test_takeover_stale_header(void **state)
{
    fixture *f = *state;
    fflush(NULL);
    pid_t dead = fork();
    assert_true(dead >= 0);
    if (dead == 0)
        _exit(0);
    assert_int_equal(waitpid(dead, NULL, 0), dead);
    make_stale(f, 0, dead, 4096);

    gc_world_takeover took;
    gc_error err;
    assert_int_equal(gc_world_create(&f->owner, &f->cfg, &took, &err), GC_OK);
    assert_true(took.world);
    assert_int_equal(took.world_pid, dead);
    assert_false(took.edits); /* there was no queue */
    assert_int_equal(took.edits_pid, 0);
    gc_world_destroy(f->owner);
    f->owner = NULL;

    /* Garbage too small for a header (a daemon that died before writing
     * one), for the queue this time: taken over, no pid to report. */
    make_stale(f, 1, dead, 10);
    assert_int_equal(gc_world_create(&f->owner, &f->cfg, &took, &err), GC_OK);
    assert_false(took.world);
    assert_true(took.edits);
    assert_int_equal(took.edits_pid, 0);
    gc_world_destroy(f->owner);
    f->owner = NULL;

    /* A header naming a live process that does not hold the lock (a reused
     * pid): the lock decides, so it is taken over. */
    make_stale(f, 0, getppid(), 4096);
    assert_int_equal(gc_world_create(&f->owner, &f->cfg, &took, &err), GC_OK);
    assert_true(took.world);
    assert_int_equal(took.world_pid, getppid());
}

static void
test_refuse_live_owner(void **state)
{
    fixture *f = *state;
    create_owner(f);
    gc_world_set_state(f->owner, GC_WORLD_RUNNING);
    char msg[200];
    snprintf(msg, sizeof msg,
             "shared-memory object /%s is held by live process %ld", f->name,
             (long)getpid());

    /* The owner itself is alive. */
    gc_world *w = (gc_world *)1;
    gc_world_takeover took;
    gc_error err;
    assert_int_equal(gc_world_create(&w, &f->cfg, &took, &err), GC_EBUSY);
    assert_null(w);
    assert_string_equal(err.msg, msg);
    assert_false(took.world);

    /* Another process. */
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        gc_error e;
        gc_world *cw = NULL;
        int rc = gc_world_create(&cw, &f->cfg, NULL, &e);
        ssize_t n = write(pfd[1], e.msg, strlen(e.msg) + 1);
        _exit(rc == GC_EBUSY && cw == NULL && n > 0 ? 0 : 1);
    }
    close(pfd[1]);
    char got[sizeof err.msg] = "";
    ssize_t n = read(pfd[0], got, sizeof got - 1);
    close(pfd[0]);
    assert_true(n > 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_string_equal(got, msg);

    /* The live world is untouched. */
    attach_reader(f, GC_WORLD_ATTACH_QUEUE);
    assert_int_equal(gc_world_state(f->reader), GC_WORLD_RUNNING);
}

static void
test_refuse_live_queue_leaves_nothing(void **state)
{
    fixture *f = *state;
    /* Someone alive holds the queue but has not written a header. */
    char n[80];
    snprintf(n, sizeof n, "/%s.edits", f->name);
    int fd = shm_open(n, O_RDWR | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX), 0);

    gc_world *w = (gc_world *)1;
    gc_error err;
    assert_int_equal(gc_world_create(&w, &f->cfg, NULL, &err), GC_EBUSY);
    assert_null(w);
    char msg[200];
    snprintf(msg, sizeof msg,
             "shared-memory object /%s.edits is held by a live process that "
             "has not written its pid yet",
             f->name);
    assert_string_equal(err.msg, msg);
    /* The world it had created is gone again; the queue is not ours. */
    assert_false(exists(f->shm[0]));
    assert_true(exists(f->shm[1]));
    close(fd);
}

static void
test_destroy_unlinks(void **state)
{
    fixture *f = *state;
    create_owner(f);
    attach_reader(f, 0);
    assert_true(exists(f->shm[0]));
    assert_true(exists(f->shm[1]));

    /* close leaves the objects (and drops the ownership lock). */
    gc_world_close(f->owner);
    f->owner = NULL;
    assert_true(exists(f->shm[0]));
    assert_true(exists(f->shm[1]));
    gc_world_takeover took;
    assert_int_equal(gc_world_create(&f->owner, &f->cfg, &took, NULL), GC_OK);
    assert_true(took.world && took.edits);
    assert_false(gc_world_owner_alive(f->reader)); /* replaced */

    gc_world_destroy(f->owner);
    f->owner = NULL;
    assert_false(exists(f->shm[0]));
    assert_false(exists(f->shm[1]));
    /* A reader's destroy only closes. */
    gc_world_destroy(f->reader);
    f->reader = NULL;
    gc_world_close(NULL);
    gc_world_destroy(NULL);
}

/* ---- Agent snapshot ------------------------------------------------------ */

static gc_world_agent
agent_rec(uint32_t i, uint64_t n)
{
    gc_world_agent a;
    memset(&a, 0, sizeof a);
    a.id = i;
    a.salt = (uint32_t)n;
    a.x = (float)n;
    a.y = (float)n + 0.5f;
    a.heading = -(float)n;
    a.speed = (float)(n % 1000);
    a.goal_x = (int32_t)n;
    a.goal_y = -(int32_t)n;
    a.path_len = (uint32_t)n;
    a.state = (uint8_t)(n % GC_AGENT_NSTATES);
    for (int k = 0; k < GC_WORLD_PATH_POINTS; k++)
        a.path[k] = (gc_vec2){(float)n, (float)k};
    return a;
}

static void
publish(gc_world *w, uint64_t n, uint32_t count)
{
    gc_world_snap *s = gc_world_agents_begin(w);
    assert_non_null(s);
    for (uint32_t i = 0; i < count; i++) {
        gc_world_agent a = agent_rec(i, n);
        assert_int_equal(gc_world_agent_store(s, i, &a), GC_OK);
    }
    assert_int_equal(gc_world_agents_publish(w, count), GC_OK);
}

static void
test_snapshot_roundtrip(void **state)
{
    fixture *f = *state;
    create_owner(f);
    attach_reader(f, 0);
    gc_world_agent out[20];
    size_t count = 99;
    uint64_t seq = 99;

    assert_int_equal(gc_world_read_agents(f->reader, out, 20, &count, &seq),
                     GC_OK);
    assert_int_equal(count, 0);
    assert_int_equal(seq, 0);

    publish(f->owner, 1, 3);
    assert_int_equal(gc_world_agent_count(f->reader), 3);
    assert_int_equal(gc_world_read_agents(f->reader, out, 20, &count, &seq),
                     GC_OK);
    assert_int_equal(count, 3);
    assert_int_equal(seq, 1);
    for (uint32_t i = 0; i < 3; i++) {
        gc_world_agent a = agent_rec(i, 1);
        assert_memory_equal(&out[i], &a, sizeof a);
    }

    /* The next snapshot goes to the other buffer; the one after that back
     * to the first.  Counts may shrink and grow. */
    publish(f->owner, 2, 16);
    /* Each snapshot keeps the tick it was published at, whatever the
     * header's tick says later. */
    assert_int_equal(gc_world_set_tick(f->owner, 41), GC_OK);
    publish(f->owner, 3, 2);
    assert_int_equal(gc_world_set_tick(f->owner, 42), GC_OK);
    assert_int_equal(gc_world_read_agents(f->reader, out, 20, &count, &seq),
                     GC_OK);
    assert_int_equal(count, 2);
    assert_int_equal(seq, 3);
    uint64_t tick = 0;
    assert_int_equal(
        gc_world_read_agents_at(f->reader, out, 20, &count, &seq, &tick),
        GC_OK);
    assert_int_equal(tick, 41);
    assert_int_equal(count, 2);
    gc_world_agent a = agent_rec(1, 3);
    assert_memory_equal(&out[1], &a, sizeof a);
    assert_string_equal(gc_agent_state_name(out[1].state), "arrived");
    assert_string_equal(gc_agent_state_name(GC_AGENT_UNREACHABLE),
                        "unreachable");
    assert_string_equal(gc_agent_state_name(99), "unknown");

    /* A smaller output array gets the first records. */
    publish(f->owner, 4, 16);
    assert_int_equal(gc_world_read_agents(f->reader, out, 5, &count, NULL),
                     GC_OK);
    assert_int_equal(count, 5);
    a = agent_rec(4, 4);
    assert_memory_equal(&out[4], &a, sizeof a);

    /* A block of records at once (gc_world_agents_store): records 3 to 9
     * of snapshot 6, the rest as they were stored one by one. */
    gc_world_agent block[7];
    for (uint32_t i = 0; i < 7; i++)
        block[i] = agent_rec(3 + i, 6);
    gc_world_snap *s = gc_world_agents_begin(f->owner);
    for (uint32_t i = 0; i < 16; i++) {
        a = agent_rec(i, 5);
        assert_int_equal(gc_world_agent_store(s, i, &a), GC_OK);
    }
    assert_int_equal(gc_world_agents_store(s, 3, block, 7), GC_OK);
    assert_int_equal(gc_world_agents_store(s, 16, block, 0), GC_OK);
    /* Past capacity: refused whole, nothing stored. */
    assert_int_equal(gc_world_agents_store(s, 10, block, 7), GC_ERANGE);
    assert_int_equal(gc_world_agents_store(s, 17, block, 0), GC_ERANGE);
    assert_int_equal(gc_world_agents_store(s, UINT32_MAX, block, 2), GC_ERANGE);
    assert_int_equal(gc_world_agents_publish(f->owner, 16), GC_OK);
    assert_int_equal(gc_world_read_agents(f->reader, out, 20, &count, NULL),
                     GC_OK);
    assert_int_equal(count, 16);
    for (uint32_t i = 0; i < 16; i++) {
        a = agent_rec(i, i >= 3 && i < 10 ? 6 : 5);
        assert_memory_equal(&out[i], &a, sizeof a);
    }

    /* Misuse. */
    s = gc_world_agents_begin(f->owner);
    assert_int_equal(gc_world_agent_store(s, 16, &a), GC_ERANGE);
    assert_int_equal(gc_world_agents_publish(f->owner, 17), GC_ERANGE);
    assert_int_equal(gc_world_agents_begin(f->owner), s); /* still open */
    assert_int_equal(gc_world_agents_publish(f->owner, 0), GC_OK);
    assert_int_equal(gc_world_agents_publish(f->owner, 0), GC_EINVAL);
    assert_int_equal(gc_world_agent_store(s, 0, &a), GC_EINVAL);
    assert_int_equal(gc_world_agents_store(s, 0, block, 1), GC_EINVAL);
    assert_int_equal(gc_world_read_agents(f->reader, out, 20, &count, &seq),
                     GC_OK);
    assert_int_equal(count, 0);
    assert_int_equal(seq, 6);

    /* A count in shared memory beyond capacity is refused, not followed. */
    size_t size;
    uint8_t *p = map_rw(f->name, &size);
    gc_world_agents_hdr *ah =
        (gc_world_agents_hdr *)(void *)(p +
                                        gc_world_hdr(f->owner)->agents.offset);
    atomic_store(&ah->count[0], 1000); /* (either buffer's) */
    atomic_store(&ah->count[1], 1000);
    assert_int_equal(gc_world_read_agents(f->reader, out, 20, &count, &seq),
                     GC_ECORRUPT);
    munmap(p, size);
}

#define SNAPSHOTS 10000
#define SNAP_CAP 48

typedef struct race {
    gc_world *writer;
    const gc_world *reader;
    atomic_bool done;
    /* Results of a reader thread. */
    unsigned long reads, torn, busy, backwards;
    uint64_t last_seq;
} race;

/* Snapshot n holds snap_count(n) records: one record and a full buffer in
 * turn, the full ones stored from the last record down.  So the writer races
 * through the short snapshot and then sweeps towards a reader copying the
 * buffer upwards: a copy that overlaps a rewrite is very likely to see it. */
static uint32_t
snap_count(uint64_t n)
{
    return n % 2 ? 1 : SNAP_CAP;
}

static void *
writer_main(void *arg)
{
    race *r = arg;
    for (uint64_t n = 1; n <= SNAPSHOTS; n++) {
        gc_world_snap *s = gc_world_agents_begin(r->writer);
        uint32_t count = snap_count(n);
        for (uint32_t i = count; i-- > 0;) {
            gc_world_agent a = agent_rec(i, n);
            gc_world_agent_store(s, i, &a);
        }
        gc_world_agents_publish(r->writer, count);
        if (n % 64 == 0)
            sched_yield();
    }
    atomic_store(&r->done, true);
    return NULL;
}

/* A snapshot is whole when it has the count and contents of snapshot seq. */
static bool
snapshot_whole(const gc_world_agent *out, size_t count, uint64_t seq)
{
    if (seq == 0)
        return count == 0;
    if (count != snap_count(seq))
        return false;
    for (size_t i = 0; i < count; i++) {
        gc_world_agent a = agent_rec((uint32_t)i, seq);
        if (memcmp(&out[i], &a, sizeof a) != 0)
            return false;
    }
    return true;
}

static void *
reader_main(void *arg)
{
    race *r = arg;
    gc_world_agent out[SNAP_CAP];
    bool last = false;
    while (!last) {
        last = atomic_load(&r->done); /* one more read after the writer */
        size_t count;
        uint64_t seq;
        int rc = gc_world_read_agents(r->reader, out, SNAP_CAP, &count, &seq);
        if (rc == GC_EBUSY) {
            r->busy++;
            last = false; /* the read after the writer must succeed */
            continue;
        }
        r->reads++;
        if (rc != GC_OK || !snapshot_whole(out, count, seq))
            r->torn++;
        if (seq < r->last_seq)
            r->backwards++;
        r->last_seq = seq;
    }
    return NULL;
}

static void
test_snapshot_concurrent(void **state)
{
    fixture *f = *state;
    f->cfg.agent_capacity = SNAP_CAP;
    create_owner(f);
    attach_reader(f, 0);

    /* One reader through the owner's own mapping (so ThreadSanitizer sees
     * every access), one through a read-only attach. */
    race r1 = {.writer = f->owner, .reader = f->owner};
    race r2 = {.writer = f->owner, .reader = f->reader};
    pthread_t tw, t1, t2;
    assert_int_equal(pthread_create(&t1, NULL, reader_main, &r1), 0);
    assert_int_equal(pthread_create(&t2, NULL, reader_main, &r2), 0);
    assert_int_equal(pthread_create(&tw, NULL, writer_main, &r1), 0);
    assert_int_equal(pthread_join(tw, NULL), 0);
    atomic_store(&r2.done, true);
    assert_int_equal(pthread_join(t1, NULL), 0);
    assert_int_equal(pthread_join(t2, NULL), 0);

    print_message("snapshot race: reader 1 %lu reads (%lu busy), reader 2 "
                  "%lu reads (%lu busy)\n",
                  r1.reads, r1.busy, r2.reads, r2.busy);
    assert_int_equal(r1.torn, 0);
    assert_int_equal(r2.torn, 0);
    assert_int_equal(r1.backwards, 0);
    assert_int_equal(r2.backwards, 0);
    assert_true(r1.reads > 0 && r2.reads > 0);
    assert_int_equal(r1.last_seq, SNAPSHOTS); /* read after the last one */
    assert_int_equal(r2.last_seq, SNAPSHOTS);
}

/* ---- Stats, trace, cells ------------------------------------------------- */

static void
test_stats_trace(void **state)
{
    fixture *f = *state;
    create_owner(f);
    attach_reader(f, 0);

    gc_world_stats st, got;
    assert_int_equal(gc_world_read_stats(f->reader, &got), GC_OK);
    assert_int_equal(got.tick, 0);
    memset(&st, 0, sizeof st);
    st.tick = 600;
    st.ticks_per_s = 59.94;
    st.agents[GC_AGENT_MOVING] = 10;
    st.agents[GC_AGENT_STUCK] = 1;
    st.searches_total = 1234;
    st.search_us_p99 = 812.5;
    st.edits_rejected = 3;
    assert_int_equal(gc_world_stats_publish(f->owner, &st), GC_OK);
    assert_int_equal(gc_world_read_stats(f->reader, &got), GC_OK);
    assert_memory_equal(&got, &st, sizeof st);

    /* Trace: nothing yet. */
    gc_world_trace_info info;
    gc_world_trace_event ev[100], out[100];
    assert_int_equal(gc_world_read_trace(f->reader, &info, out, 100), GC_OK);
    assert_int_equal(info.seq, 0);
    assert_int_equal(info.count, 0);
    assert_int_equal(info.agent, GC_WORLD_NO_AGENT);
    uint32_t ra, rg;
    gc_world_trace_request(f->reader, &ra, &rg);
    assert_int_equal(ra, GC_WORLD_NO_AGENT);
    assert_int_equal(gc_world_set_trace_request(f->owner, 4, 2), GC_OK);
    gc_world_trace_request(f->reader, &ra, &rg);
    assert_int_equal(ra, 4);
    assert_int_equal(rg, 2);

    for (int i = 0; i < 100; i++)
        ev[i] = (gc_world_trace_event){
            (uint32_t)(i % 35), (uint8_t)(1 + i % 3), {0, 0, 0}};
    assert_int_equal(gc_world_trace_publish(f->owner, 4, 2, 77, ev, 10), GC_OK);
    assert_int_equal(gc_world_read_trace(f->reader, &info, out, 100), GC_OK);
    assert_int_equal(info.seq, 1);
    assert_int_equal(info.tick, 77);
    assert_int_equal(info.agent, 4);
    assert_int_equal(info.salt, 2);
    assert_int_equal(info.count, 10);
    assert_false(info.truncated);
    assert_memory_equal(out, ev, 10 * sizeof ev[0]);

    /* More events than the section holds (70): truncated. */
    assert_int_equal(gc_world_trace_publish(f->owner, 5, 0, 78, ev, 100),
                     GC_OK);
    assert_int_equal(gc_world_read_trace(f->reader, &info, out, 100), GC_OK);
    assert_int_equal(info.seq, 2);
    assert_int_equal(info.count, 70);
    assert_true(info.truncated);
    assert_memory_equal(out, ev, 70 * sizeof ev[0]);
    /* ... or than the caller's array. */
    assert_int_equal(gc_world_trace_publish(f->owner, 5, 0, 79, ev, 20), GC_OK);
    assert_int_equal(gc_world_read_trace(f->reader, &info, out, 8), GC_OK);
    assert_int_equal(info.count, 8);
    assert_true(info.truncated);
    assert_int_equal(gc_world_read_trace(f->reader, &info, NULL, 0), GC_OK);
    assert_int_equal(info.count, 0);
}

typedef struct seqrace {
    gc_world *w;
    atomic_bool done;
    unsigned long reads, treads, torn; /* stats reads, trace reads */
    unsigned long failed;              /* reads that failed but for GC_EBUSY */
} seqrace;

#define TRACE_N 64

static void *
stats_writer_main(void *arg)
{
    seqrace *r = arg;
    gc_world_trace_event ev[TRACE_N];
    for (uint64_t n = 1; n <= 50000; n++) {
        gc_world_stats st;
        uint64_t *words = (uint64_t *)(void *)&st;
        for (size_t k = 0; k < GC_WORLD_STATS_WORDS; k++)
            words[k] = n;
        gc_world_stats_publish(r->w, &st);
    }
    for (uint64_t n = 1; n <= 20000; n++) {
        for (int i = 0; i < TRACE_N; i++)
            ev[i] = (gc_world_trace_event){(uint32_t)n, (uint8_t)n, {0}};
        gc_world_trace_publish(r->w, (uint32_t)n, (uint32_t)n, n, ev,
                               n % TRACE_N);
    }
    atomic_store(&r->done, true);
    return NULL;
}

static void *
stats_reader_main(void *arg)
{
    seqrace *r = arg;
    gc_world_trace_event ev[TRACE_N];
    bool last = false;
    while (!last) {
        last = atomic_load(&r->done); /* one more read after the writer */
        gc_world_stats st;
        gc_world_trace_info info;
        /* GC_EBUSY is the only failure allowed: no trace the writer
         * publishes has a count past the capacity (GC_ECORRUPT). */
        int rc = gc_world_read_stats(r->w, &st);
        if (rc != GC_OK && rc != GC_EBUSY)
            r->failed++;
        if (rc == GC_OK) {
            r->reads++;
            const uint64_t *words = (const uint64_t *)(const void *)&st;
            for (size_t k = 0; k < GC_WORLD_STATS_WORDS; k++)
                if (words[k] != words[0])
                    r->torn++;
        }
        rc = gc_world_read_trace(r->w, &info, ev, TRACE_N);
        if (rc != GC_OK && rc != GC_EBUSY)
            r->failed++;
        if (rc == GC_OK && info.seq > 0) {
            r->treads++;
            if (info.tick != info.agent || info.salt != info.agent ||
                info.count != info.tick % TRACE_N)
                r->torn++;
            for (size_t i = 0; i < info.count; i++)
                if (ev[i].cell != info.agent ||
                    ev[i].kind != (uint8_t)info.agent)
                    r->torn++;
        }
    }
    return NULL;
}

/* Statistics and the trace are never seen half written. */
static void
test_stats_trace_concurrent(void **state)
{
    fixture *f = *state;
    f->cfg.trace_capacity = TRACE_N;
    create_owner(f);
    seqrace r = {.w = f->owner};
    pthread_t tw, tr;
    assert_int_equal(pthread_create(&tr, NULL, stats_reader_main, &r), 0);
    assert_int_equal(pthread_create(&tw, NULL, stats_writer_main, &r), 0);
    assert_int_equal(pthread_join(tw, NULL), 0);
    assert_int_equal(pthread_join(tr, NULL), 0);
    assert_int_equal(r.torn, 0);
    assert_int_equal(r.failed, 0);
    assert_true(r.reads > 0 && r.treads > 0); /* something was checked */
    assert_int_equal(gc_world_trace_capacity(f->owner), TRACE_N);
}

/* ---- The whole path of one agent ----------------------------------------- */

static void
test_path_roundtrip(void **state)
{
    fixture *f = *state;
    f->cfg.path_capacity = 20;
    create_owner(f);
    attach_reader(f, 0);
    assert_int_equal(gc_world_path_capacity(f->reader), 20);

    /* Nothing yet: nobody's path. */
    gc_world_path_info info;
    gc_vec2 pts[30], out[30];
    assert_int_equal(gc_world_read_path(f->reader, &info, out, 30), GC_OK);
    assert_int_equal(info.seq, 0);
    assert_int_equal(info.agent, GC_WORLD_NO_AGENT);
    assert_int_equal(info.count, 0);
    assert_false(info.truncated);

    /* More than a snapshot record's 8 waypoints, whole. */
    for (int i = 0; i < 30; i++)
        pts[i] = (gc_vec2){0.5f + (float)i, 100.25f - (float)i};
    assert_int_equal(gc_world_path_publish(f->owner, 3, 1, 55, pts, 12), GC_OK);
    memset(out, 0, sizeof out);
    assert_int_equal(gc_world_read_path(f->reader, &info, out, 30), GC_OK);
    assert_int_equal(info.seq, 1);
    assert_int_equal(info.tick, 55);
    assert_int_equal(info.agent, 3);
    assert_int_equal(info.salt, 1);
    assert_int_equal(info.count, 12);
    assert_int_equal(info.path_len, 12);
    assert_false(info.truncated);
    assert_memory_equal(out, pts, 12 * sizeof pts[0]);

    /* Longer than the section: the first 20, and the length says 30. */
    assert_int_equal(gc_world_path_publish(f->owner, 4, 0, 56, pts, 30), GC_OK);
    assert_int_equal(gc_world_read_path(f->reader, &info, out, 30), GC_OK);
    assert_int_equal(info.seq, 2);
    assert_int_equal(info.count, 20);
    assert_int_equal(info.path_len, 30);
    assert_true(info.truncated);
    assert_memory_equal(out, pts, 20 * sizeof pts[0]);
    /* ... or than the caller's array; none at all. */
    assert_int_equal(gc_world_read_path(f->reader, &info, out, 5), GC_OK);
    assert_int_equal(info.count, 5);
    assert_true(info.truncated);
    assert_int_equal(gc_world_read_path(f->reader, &info, NULL, 0), GC_OK);
    assert_int_equal(info.count, 0);
    assert_int_equal(info.path_len, 30);

    /* Nobody's path; no waypoints without an array. */
    assert_int_equal(
        gc_world_path_publish(f->owner, GC_WORLD_NO_AGENT, 0, 57, NULL, 0),
        GC_OK);
    assert_int_equal(gc_world_read_path(f->reader, &info, out, 30), GC_OK);
    assert_int_equal(info.agent, GC_WORLD_NO_AGENT);
    assert_int_equal(info.count, 0);
    assert_int_equal(gc_world_path_publish(f->owner, 1, 0, 58, NULL, 3),
                     GC_EINVAL);

    /* A count in shared memory past the capacity or the length is refused,
     * not copied; a write that never ends is busy, not torn. */
    size_t size;
    uint8_t *p = map_rw(f->name, &size);
    gc_world_path_hdr *ph = (gc_world_path_hdr *)(void *)(
        p + gc_world_hdr(f->reader)->path.offset);
    atomic_store(&ph->count, 21);
    atomic_store(&ph->path_len, 21);
    assert_int_equal(gc_world_read_path(f->reader, &info, out, 30),
                     GC_ECORRUPT);
    atomic_store(&ph->count, 10);
    atomic_store(&ph->path_len, 9);
    assert_int_equal(gc_world_read_path(f->reader, &info, out, 30),
                     GC_ECORRUPT);
    atomic_store(&ph->path_len, 10);
    assert_int_equal(gc_world_read_path(f->reader, &info, out, 30), GC_OK);
    assert_int_equal(info.count, 10);
    uint64_t sq = atomic_load(&ph->seq);
    atomic_store(&ph->seq, sq | 1);
    assert_int_equal(gc_world_read_path(f->reader, &info, out, 30), GC_EBUSY);
    atomic_store(&ph->seq, sq);
    munmap(p, size);

    /* Too big a capacity is refused at creation. */
    gc_world_destroy(f->owner);
    f->owner = NULL;
    gc_world_close(f->reader);
    f->reader = NULL;
    f->cfg.path_capacity = GC_WORLD_PATH_MAX + 1;
    gc_world *w = (gc_world *)1;
    gc_error err;
    assert_int_equal(gc_world_create(&w, &f->cfg, NULL, &err), GC_ETOOBIG);
    assert_null(w);
    assert_string_equal(err.msg, "path capacity 4194305 exceeds the limit "
                                 "4194304");
}

#define PATH_N 40

typedef struct pathrace {
    gc_world *writer, *reader; /* the owner's handle, an attached one */
    atomic_bool done;
    unsigned long reads, torn;
    unsigned long failed; /* reads that failed but for GC_EBUSY */
} pathrace;

/* Paths whose every waypoint and every field derive from the publish
 * number n, so that a reader can tell a copy mixed from two publishes. */
static void *
path_writer_main(void *arg)
{
    pathrace *r = arg;
    gc_vec2 pts[PATH_N];
    for (uint64_t n = 1; n <= 30000; n++) {
        for (int i = 0; i < PATH_N; i++)
            pts[i] = (gc_vec2){(float)n, (float)i};
        gc_world_path_publish(r->writer, (uint32_t)n, (uint32_t)n * 3, n, pts,
                              n % PATH_N + 9);
    }
    atomic_store(&r->done, true);
    return NULL;
}

static void *
path_reader_main(void *arg)
{
    pathrace *r = arg;
    gc_vec2 pts[PATH_N];
    bool last = false;
    while (!last) {
        last = atomic_load(&r->done); /* one more read after the writer */
        gc_world_path_info info;
        int rc = gc_world_read_path(r->reader, &info, pts, PATH_N);
        /* GC_EBUSY is the only failure allowed: no publish has a count
         * past the capacity or the length (GC_ECORRUPT). */
        if (rc != GC_OK && rc != GC_EBUSY)
            r->failed++;
        if (rc != GC_OK || info.seq == 0)
            continue;
        r->reads++;
        if (info.tick != info.agent || info.salt != info.agent * 3 ||
            info.path_len != info.tick % PATH_N + 9 ||
            info.count != (info.path_len < PATH_N ? info.path_len : PATH_N))
            r->torn++;
        for (size_t i = 0; i < info.count; i++)
            if (pts[i].x != (float)info.agent || pts[i].y != (float)i)
                r->torn++;
    }
    return NULL;
}

/* A path is never seen half written: a reader (through its own handle, as
 * the viewer reads) that overlaps a publish retries, and every copy it
 * returns is one publish, whole. */
static void
test_path_concurrent(void **state)
{
    fixture *f = *state;
    f->cfg.path_capacity = PATH_N;
    create_owner(f);
    attach_reader(f, 0);
    pathrace r = {.writer = f->owner, .reader = f->reader};
    pthread_t tw, tr;
    assert_int_equal(pthread_create(&tr, NULL, path_reader_main, &r), 0);
    assert_int_equal(pthread_create(&tw, NULL, path_writer_main, &r), 0);
    assert_int_equal(pthread_join(tw, NULL), 0);
    assert_int_equal(pthread_join(tr, NULL), 0);
    assert_int_equal(r.torn, 0);
    assert_int_equal(r.failed, 0);
    /* No torn copies among no copies would prove nothing. */
    assert_true(r.reads > 0);
}

static void
test_cells_busy_while_written(void **state)
{
    fixture *f = *state;
    create_owner(f);
    attach_reader(f, 0);
    uint8_t cells[35];
    uint64_t gen;

    /* A reader never waits for the daemon: mid-edit it gives up. */
    assert_int_equal(gc_world_cells_begin(f->owner), GC_OK);
    gc_world_cells(f->owner)[0] = GC_CELL_HIGH;
    assert_int_equal(gc_world_read_cells(f->reader, cells, &gen), GC_EBUSY);
    assert_int_equal(gc_world_cells_end(f->owner), GC_OK);
    assert_int_equal(gc_world_read_cells(f->reader, cells, &gen), GC_OK);
    assert_int_equal(gen, 1);
    assert_int_equal(cells[0], GC_CELL_HIGH);
    assert_int_equal(gc_world_read_cells(f->reader, cells, NULL), GC_OK);
}

static void
test_owner_alive(void **state)
{
    fixture *f = *state;
    create_owner(f);
    attach_reader(f, 0);
    assert_true(gc_world_owner_alive(f->reader));
    gc_world_destroy(f->owner);
    f->owner = NULL;
    assert_false(gc_world_owner_alive(f->reader)); /* unlinked */
    /* The mapping stays readable after the daemon is gone. */
    assert_int_equal(gc_world_state(f->reader), GC_WORLD_STARTING);
}

/* The owner sees its readers: each attached handle, until it is closed
 * or its process dies (the kernel drops the lock with the descriptor). */
static void
test_watched(void **state)
{
    fixture *f = *state;
    create_owner(f);
    assert_false(gc_world_watched(f->owner));
    attach_reader(f, 0);
    assert_true(gc_world_watched(f->owner));
    gc_world *second = NULL;
    gc_error err;
    assert_int_equal(gc_world_attach(&second, f->name, 0, &err), GC_OK);
    gc_world_close(f->reader);
    f->reader = NULL;
    assert_true(gc_world_watched(f->owner)); /* the second still reads */
    gc_world_close(second);
    assert_false(gc_world_watched(f->owner));

    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        gc_world *w = NULL;
        if (gc_world_attach(&w, f->name, 0, &err) != GC_OK)
            _exit(1);
        char c = 'r';
        if (write(ready[1], &c, 1) != 1)
            _exit(1);
        for (;;)
            pause(); /* killed, never closed */
    }
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    assert_true(gc_world_watched(f->owner));
    assert_int_equal(kill(child, SIGKILL), 0);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_false(gc_world_watched(f->owner));
}

/* ---- Edit queue ---------------------------------------------------------- */

static gc_edit
edit_for(uint64_t token)
{
    gc_edit e;
    memset(&e, 0, sizeof e);
    e.op = (uint32_t)(token % 7);
    e.type = (uint32_t)(token % GC_CELL_NTYPES);
    e.x0 = (int32_t)token;
    e.y0 = -(int32_t)token;
    e.x1 = (int32_t)(token * 3);
    e.y1 = (int32_t)(token >> 3);
    e.batch = (uint32_t)(token / 10);
    e.client_token = token;
    return e;
}

static bool
edit_matches(const gc_edit *got, uint64_t token)
{
    gc_edit want = edit_for(token);
    return got->op == want.op && got->type == want.type && got->x0 == want.x0 &&
           got->y0 == want.y0 && got->x1 == want.x1 && got->y1 == want.y1 &&
           got->batch == want.batch && got->client_token == token;
}

static void
test_edits_push_pop(void **state)
{
    fixture *f = *state;
    f->cfg.edits_capacity = 4;
    create_owner(f);
    attach_reader(f, GC_WORLD_ATTACH_QUEUE);
    gc_edit e, got;

    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_EAGAIN);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->reader), &got), GC_EPERM);
    for (uint64_t t = 1; t <= 3; t++) {
        e = edit_for(t);
        assert_int_equal(gc_queue_push(gc_world_queue(f->reader), &e, 0), GC_OK);
        assert_int_equal(e.position, t - 1);
        assert_int_equal(e.sender_pid, getpid());
    }
    assert_int_equal(gc_queue_pending(gc_world_queue(f->owner)), 3);
    assert_int_equal(gc_queue_tail(gc_world_queue(f->owner)), 3);
    for (uint64_t t = 1; t <= 3; t++) {
        assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_OK);
        assert_true(edit_matches(&got, t));
        assert_int_equal(got.position, t - 1);
        assert_int_equal(got.sender_pid, getpid());
        assert_true(got.claim_ns > 0);
    }
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_EAGAIN);
    assert_int_equal(gc_queue_pending(gc_world_queue(f->reader)), 0);

    /* Many laps round a ring of 4. */
    for (uint64_t t = 100; t < 200; t++) {
        e = edit_for(t);
        assert_int_equal(gc_queue_push(gc_world_queue(f->reader), &e, 0), GC_OK);
        if (t % 3 == 0)
            continue;
        while (gc_queue_pending(gc_world_queue(f->owner)) > 0) {
            assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_OK);
            assert_int_equal(got.position + 97, got.client_token);
        }
    }

    /* Without the queue mapped there is nothing to push to. */
    gc_world *plain;
    assert_int_equal(gc_world_attach(&plain, f->name, 0, NULL), GC_OK);
    assert_int_equal(gc_queue_push(gc_world_queue(plain), &e, 0), GC_EINVAL);
    assert_int_equal(gc_queue_pending(gc_world_queue(plain)), 0);
    gc_world_close(plain);
}

static void
test_edits_full(void **state)
{
    fixture *f = *state;
    f->cfg.edits_capacity = 4;
    create_owner(f);
    gc_edit e, got;
    for (uint64_t t = 0; t < 4; t++) {
        e = edit_for(t);
        assert_int_equal(gc_queue_push(gc_world_queue(f->owner), &e, 0), GC_OK);
    }
    /* Timed with clock_gettime itself, not with gc_clock_ns: the test
     * checks how long the library waited, by a clock it does not read. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    e = edit_for(4);
    assert_int_equal(gc_queue_push(gc_world_queue(f->owner), &e, 20 * 1000 * 1000), GC_EFULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double waited = (double)(t1.tv_sec - t0.tv_sec) +
                    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    assert_true(waited >= 0.019);
    assert_int_equal(gc_queue_push(gc_world_queue(f->owner), &e, 0), GC_EFULL);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_OK);
    assert_int_equal(gc_queue_push(gc_world_queue(f->owner), &e, 0), GC_OK);
    assert_int_equal(e.position, 4);
}

/* Claim position `pos` the way gc_queue_push does, and stop there. */
static bool
claim_only(gc_queue_header *h, uint64_t *posp)
{
    gc_queue_entry *ent = (gc_queue_entry *)(void *)((uint8_t *)h + 256);
    uint64_t pos = atomic_load(&h->tail);
    gc_queue_entry *slot = &ent[pos & (h->capacity - 1)];
    if (atomic_load(&slot->seq) != pos ||
        !atomic_compare_exchange_strong(&h->tail, &pos, pos + 1))
        return false;
    *posp = pos;
    return true;
}

static void
test_edits_dead_producer(void **state)
{
    fixture *f = *state;
    f->cfg.edits_capacity = 4;
    f->cfg.claim_timeout_ms = 50;
    create_owner(f);
    gc_edit e, got;

    /* A producer claims position 0 and is killed before publishing. */
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        gc_world *w;
        uint64_t pos;
        char ok = 1;
        close(pfd[0]);
        if (gc_world_attach(&w, f->name, GC_WORLD_ATTACH_QUEUE, NULL) !=
                GC_OK ||
            !claim_only(gc_queue_hdr(gc_world_queue(w)), &pos) || pos != 0)
            ok = 0;
        if (write(pfd[1], &ok, 1) != 1)
            _exit(1);
        for (;;)
            pause(); /* holding the claim until killed */
    }
    close(pfd[1]);
    char ok = 0;
    assert_int_equal(read(pfd[0], &ok, 1), 1);
    close(pfd[0]);
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(ok, 1);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);

    /* Others go on pushing behind it. */
    e = edit_for(11);
    assert_int_equal(gc_queue_push(gc_world_queue(f->owner), &e, 0), GC_OK);
    assert_int_equal(e.position, 1);
    assert_int_equal(gc_queue_pending(gc_world_queue(f->owner)), 2);

    /* The daemon waits the claim timeout, then skips the dead entry. */
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_EAGAIN);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_EAGAIN);
    struct timespec nap = {0, 60 * 1000 * 1000};
    nanosleep(&nap, NULL);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_ETIMEOUT);
    assert_int_equal(got.position, 0);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_OK);
    assert_true(edit_matches(&got, 11));
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_EAGAIN);

    /* A producer that only stalled finds its late publish refused, so the
     * entry it thought it was adding is never applied, even once the slot
     * has gone round to a later lap. */
    uint64_t pos;
    gc_queue_header *h = gc_queue_hdr(gc_world_queue(f->owner));
    assert_true(claim_only(h, &pos));
    assert_int_equal(pos, 2);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_EAGAIN);
    nanosleep(&nap, NULL);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_ETIMEOUT);
    assert_int_equal(got.position, 2);
    gc_queue_entry *slot = (gc_queue_entry *)(void *)((uint8_t *)h + 256) + 2;
    uint64_t expect = pos;
    assert_false(atomic_compare_exchange_strong(&slot->seq, &expect, pos + 1));
    assert_int_equal(expect, pos + 4);

    /* And the ring is whole: every slot is used again. */
    for (uint64_t t = 20; t < 30; t++) {
        e = edit_for(t);
        assert_int_equal(gc_queue_push(gc_world_queue(f->owner), &e, 0), GC_OK);
        assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_OK);
        assert_true(edit_matches(&got, t));
    }
}

static void
test_edits_corrupt_entries(void **state)
{
    fixture *f = *state;
    f->cfg.edits_capacity = 4;
    create_owner(f);
    gc_queue_header *h = gc_queue_hdr(gc_world_queue(f->owner));
    gc_queue_entry *ent = (gc_queue_entry *)(void *)((uint8_t *)h + 256);
    gc_edit e = edit_for(5), got;

    /* A published entry changed afterwards fails its check. */
    assert_int_equal(gc_queue_push(gc_world_queue(f->owner), &e, 0), GC_OK);
    ent[0].x0 ^= 1;
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_ECORRUPT);
    assert_int_equal(got.position, 0);
    /* A slot in no legal state is reclaimed, not waited on. */
    atomic_store(&ent[1].seq, 12345);
    atomic_store(&h->tail, 2);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_ECORRUPT);
    assert_int_equal(got.position, 1);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_EAGAIN);
    e = edit_for(6);
    assert_int_equal(gc_queue_push(gc_world_queue(f->owner), &e, 0), GC_OK);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_OK);
    assert_true(edit_matches(&got, 6));

    /* A tail behind a published slot: producers say so, never spin. */
    e = edit_for(7);
    assert_int_equal(gc_queue_push(gc_world_queue(f->owner), &e, 0), GC_OK); /* pos 3 */
    atomic_store(&h->tail, 3);
    assert_int_equal(gc_queue_push(gc_world_queue(f->owner), &e, 0), GC_ECORRUPT);

    /* A header with a bad claim timeout is refused. */
    h->claim_timeout_ns = 0;
    gc_error err;
    assert_int_equal(gc_queue_validate(h, gc_queue_size(gc_world_queue(f->owner)), &err),
                     GC_ECORRUPT);
    assert_string_equal(err.msg,
                        "claim timeout 0 ns is out of range (1 ms..1 h)");
}

#define PRODUCERS 3
#define PER_PRODUCER 3000

typedef struct qrace {
    gc_world *w;
    int id;
    unsigned long full;
} qrace;

static void *
producer_main(void *arg)
{
    qrace *q = arg;
    for (uint64_t i = 0; i < PER_PRODUCER; i++) {
        gc_edit e = edit_for((uint64_t)q->id << 32 | i);
        int rc;
        while ((rc = gc_queue_push(gc_world_queue(q->w), &e, 1000 * 1000)) == GC_EFULL)
            q->full++;
        if (rc != GC_OK)
            return (void *)1;
    }
    return NULL;
}

/* Pop until `total` entries came, checking them against the model: every
 * token exactly once, each producer's in the order it pushed them. */
static void
consume_and_check(gc_world *w, int producers, uint64_t per)
{
    uint64_t next[8] = {0};
    uint64_t total = (uint64_t)producers * per, got_n = 0;
    const uint64_t t0 = gc_clock_ns();
    while (got_n < total) {
        gc_edit got;
        int rc = gc_queue_pop(gc_world_queue(w), &got);
        if (rc == GC_EAGAIN) {
            if (gc_clock_ns() - t0 > UINT64_C(60000000000))
                fail_msg("queue stalled after %llu entries",
                         (unsigned long long)got_n);
            sched_yield();
            continue;
        }
        assert_int_equal(rc, GC_OK);
        uint64_t id = got.client_token >> 32,
                 i = got.client_token & 0xffffffffu;
        assert_true(id < (uint64_t)producers);
        assert_int_equal(i, next[id]); /* exactly once, in order */
        assert_true(edit_matches(&got, got.client_token));
        assert_int_equal(got.position, got_n);
        next[id]++;
        got_n++;
    }
    gc_edit got;
    assert_int_equal(gc_queue_pop(gc_world_queue(w), &got), GC_EAGAIN);
}

static void
test_edits_concurrent_model(void **state)
{
    fixture *f = *state;
    f->cfg.edits_capacity = 64;
    create_owner(f);
    qrace q[PRODUCERS];
    pthread_t t[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) {
        q[i] = (qrace){.w = f->owner, .id = i};
        assert_int_equal(pthread_create(&t[i], NULL, producer_main, &q[i]), 0);
    }
    consume_and_check(f->owner, PRODUCERS, PER_PRODUCER);
    for (int i = 0; i < PRODUCERS; i++) {
        void *ret;
        assert_int_equal(pthread_join(t[i], &ret), 0);
        assert_null(ret);
    }
}

static void
test_edits_processes(void **state)
{
    fixture *f = *state;
    f->cfg.edits_capacity = 16;
    create_owner(f);
    pid_t pids[2];
    fflush(NULL);
    for (int i = 0; i < 2; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            gc_world *w;
            if (gc_world_attach(&w, f->name, GC_WORLD_ATTACH_QUEUE, NULL) !=
                GC_OK)
                _exit(1);
            qrace q = {.w = w, .id = i};
            void *ret = producer_main(&q);
            gc_world_close(w);
            _exit(ret == NULL ? 0 : 2);
        }
    }
    consume_and_check(f->owner, 2, PER_PRODUCER);
    for (int i = 0; i < 2; i++) {
        int status;
        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
}

/* ---- Failure paths ------------------------------------------------------- */

static void
expect_create_fails(fixture *f, int code, const char *msg)
{
    gc_world *w = (gc_world *)1;
    gc_error err;
    wrap_on = true;
    int rc = gc_world_create(&w, &f->cfg, NULL, &err);
    wrap_on = false;
    assert_string_equal(gc_err_name(rc), gc_err_name(code));
    assert_null(w);
    assert_string_equal(err.msg, msg);
    assert_false(exists(f->shm[0]));
    assert_false(exists(f->shm[1]));
}

static void
test_create_syscall_failures(void **state)
{
    fixture *f = *state;
    char msg[300];

    /* The sizes the objects are made with, for the messages. */
    create_owner(f);
    size_t wsize = gc_world_size(f->owner);
    size_t qsize = gc_queue_size(gc_world_queue(f->owner));
    gc_world_destroy(f->owner);
    f->owner = NULL;

    /* shm_open of the world. */
    will_return(__wrap_shm_open, EMFILE);
    snprintf(msg, sizeof msg, "creating /%s: %s", f->name, strerror(EMFILE));
    expect_create_fails(f, GC_ESYS, msg);
    will_return(__wrap_shm_open, EACCES);
    snprintf(msg, sizeof msg, "permission denied creating /%s", f->name);
    expect_create_fails(f, GC_EPERM, msg);

    /* ftruncate of the world. */
    will_return(__wrap_shm_open, 0);
    will_return(__wrap_ftruncate, ENOSPC);
    snprintf(msg, sizeof msg, "sizing /%s to %zu bytes: %s", f->name, wsize,
             strerror(ENOSPC));
    expect_create_fails(f, GC_ESYS, msg);

    /* shm_open of the queue: the world must go again. */
    will_return(__wrap_shm_open, 0);
    will_return(__wrap_ftruncate, 0);
    will_return(__wrap_shm_open, ENFILE);
    snprintf(msg, sizeof msg, "creating /%s.edits: %s", f->name,
             strerror(ENFILE));
    expect_create_fails(f, GC_ESYS, msg);

    /* ftruncate of the queue. */
    will_return(__wrap_shm_open, 0);
    will_return(__wrap_ftruncate, 0);
    will_return(__wrap_shm_open, 0);
    will_return(__wrap_ftruncate, ENOSPC);
    snprintf(msg, sizeof msg, "sizing /%s.edits to %zu bytes: %s", f->name,
             qsize, strerror(ENOSPC));
    expect_create_fails(f, GC_ESYS, msg);

    /* mmap of the world, then of the queue. */
    will_return_count(__wrap_shm_open, 0, 2);
    will_return_count(__wrap_ftruncate, 0, 2);
    will_return(__wrap_mmap, ENOMEM);
    snprintf(msg, sizeof msg, "mapping /%s: %s", f->name, strerror(ENOMEM));
    expect_create_fails(f, GC_ESYS, msg);
    will_return_count(__wrap_shm_open, 0, 2);
    will_return_count(__wrap_ftruncate, 0, 2);
    will_return(__wrap_mmap, 0);
    will_return(__wrap_mmap, ENOMEM);
    snprintf(msg, sizeof msg, "mapping /%s.edits: %s", f->name,
             strerror(ENOMEM));
    expect_create_fails(f, GC_ESYS, msg);

    /* And after all that, a create works. */
    create_owner(f);
}

static void
test_attach_syscall_failures(void **state)
{
    fixture *f = *state;
    create_owner(f);
    char msg[300];
    gc_world *w = (gc_world *)1;
    gc_error err;

    /* Root can open anything, so permission errors are simulated. */
    wrap_on = true;
    will_return(__wrap_shm_open, EACCES);
    assert_int_equal(gc_world_attach(&w, f->name, 0, &err), GC_EPERM);
    snprintf(msg, sizeof msg, "permission denied opening /%s", f->name);
    assert_string_equal(err.msg, msg);
    assert_null(w);

    will_return(__wrap_shm_open, 0);
    will_return(__wrap_mmap, ENOMEM);
    assert_int_equal(gc_world_attach(&w, f->name, 0, &err), GC_ESYS);
    snprintf(msg, sizeof msg, "mapping /%s: %s", f->name, strerror(ENOMEM));
    assert_string_equal(err.msg, msg);

    will_return_count(__wrap_shm_open, 0, 2);
    will_return(__wrap_mmap, 0);
    will_return(__wrap_mmap, ENOMEM);
    assert_int_equal(gc_world_attach(&w, f->name, GC_WORLD_ATTACH_QUEUE, &err),
                     GC_ESYS);
    snprintf(msg, sizeof msg, "mapping /%s.edits: %s", f->name,
             strerror(ENOMEM));
    assert_string_equal(err.msg, msg);

    will_return(__wrap_shm_open, 0);
    will_return(__wrap_mmap, 0);
    will_return(__wrap_shm_open, EACCES);
    assert_int_equal(gc_world_attach(&w, f->name, GC_WORLD_ATTACH_QUEUE, &err),
                     GC_EPERM);
    snprintf(msg, sizeof msg, "permission denied opening /%s.edits", f->name);
    assert_string_equal(err.msg, msg);
    wrap_on = false;
    assert_null(w);

    /* Failures left the owner's objects alone. */
    assert_true(exists(f->shm[0]));
    assert_true(exists(f->shm[1]));
    attach_reader(f, GC_WORLD_ATTACH_QUEUE);
}

/* ---- Access: default modes and groups ------------------------------------ */

static void
test_default_modes(void **state)
{
    fixture *f = *state;
    mode_t old = umask(0); /* a lax umask must not widen them */
    create_owner(f);
    umask(old);
    struct stat st;
    assert_int_equal(stat(f->shm[0], &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_int_equal(stat(f->shm[1], &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
}

/* A group this process may give that new objects do not get anyway: any
 * other as root, else a supplementary group; our own when we have no
 * other (then the group seen proves nothing, and the test says so). */
static gid_t
group_to_give(void)
{
    gid_t own = getegid();
    if (geteuid() == 0)
        return own == 65534 ? 65533 : 65534;
    gid_t gs[256];
    int n = getgroups(256, gs);
    for (int k = 0; k < n; k++)
        if (gs[k] != own)
            return gs[k];
    print_message("no group but our own to give: the group set is not "
                  "told from the one an object gets anyway\n");
    return own;
}

static void
test_create_group(void **state)
{
    fixture *f = *state;
    f->cfg.world_mode = 0640;
    f->cfg.edits_mode = 0660;
    f->cfg.set_group = true;
    f->cfg.group = group_to_give();
    create_owner(f);
    struct stat st;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(stat(f->shm[i], &st), 0);
        assert_int_equal(st.st_gid, f->cfg.group);
        assert_int_equal(st.st_mode & 07777, i ? 0660 : 0640);
    }
    gc_world_destroy(f->owner);
    f->owner = NULL;

    /* A group the process may not give: EPERM for the world, made first,
     * and nothing is left.  As root, a child that drops to nobody tries
     * it (with group 0); it sends back its message. */
    gid_t target = 0;
    if (geteuid() != 0) {
        /* The first of 0..1000 we are not a member of. */
        gid_t gs[256];
        int n = getgroups(256, gs);
        for (target = 0; target < 1000; target++) {
            bool member = target == getegid();
            for (int k = 0; k < n; k++)
                member = member || gs[k] == target;
            if (!member)
                break;
        }
    }
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 ||
                               setuid(65534) != 0))
            _exit(3);
        gc_world_config cfg = f->cfg;
        cfg.group = target;
        gc_error err;
        gc_error_clear(&err);
        gc_world *w = NULL;
        int rc = gc_world_create(&w, &cfg, NULL, &err);
        ssize_t n = write(pfd[1], err.msg, strlen(err.msg) + 1);
        _exit(rc == GC_EPERM && w == NULL && n > 0 ? 0 : 1);
    }
    close(pfd[1]);
    char got[sizeof(((gc_error *)0)->msg)] = "";
    ssize_t n = read(pfd[0], got, sizeof got - 1);
    close(pfd[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_true(n > 0);
    char msg[300];
    snprintf(msg, sizeof msg,
             "setting the group of /%s to gid %ld: %s (the daemon must be "
             "root or a member of that group)",
             f->name, (long)target, strerror(EPERM));
    assert_string_equal(got, msg);
    assert_false(exists(f->shm[0]));
    assert_false(exists(f->shm[1]));
}

/* An object someone else made, with their magic and no lock held. */
static void
make_foreign(const fixture *f, int which, const void *bytes, size_t n)
{
    char name[80];
    snprintf(name, sizeof name, which ? "/%s.edits" : "/%s", f->name);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 4096), 0);
    assert_int_equal(pwrite(fd, bytes, n, 0), (ssize_t)n);
    close(fd);
}

static void
test_takeover_refuses_foreign(void **state)
{
    fixture *f = *state;
    /* Not ours: refused, named with its magic, and left alone. */
    make_foreign(f, 0, "NOTOURS!data", 12);
    gc_world *w = (gc_world *)1;
    gc_world_takeover took;
    gc_error err;
    assert_int_equal(gc_world_create(&w, &f->cfg, &took, &err), GC_EEXIST);
    assert_null(w);
    assert_false(took.world);
    char msg[300];
    snprintf(msg, sizeof msg,
             "shared-memory object /%s exists and is not a gridcrowd world "
             "(magic 0x215352554f544f4e): not taking it over; remove it or "
             "choose another name",
             f->name);
    assert_string_equal(err.msg, msg);
    assert_true(exists(f->shm[0]));
    assert_false(exists(f->shm[1]));
    char back[12];
    int fd = open(f->shm[0], O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(read(fd, back, sizeof back), (ssize_t)sizeof back);
    close(fd);
    assert_memory_equal(back, "NOTOURS!data", sizeof back);
    unlink(f->shm[0]);

    /* A world where the queue should be is not a queue either; the world
     * made before it is removed again. */
    uint64_t m = GC_WORLD_MAGIC;
    make_foreign(f, 1, &m, sizeof m);
    assert_int_equal(gc_world_create(&w, &f->cfg, NULL, &err), GC_EEXIST);
    snprintf(msg, sizeof msg,
             "shared-memory object /%s.edits exists and is not a gridcrowd "
             "edit queue (magic 0x31444c524f574347): not taking it over; "
             "remove it or choose another name",
             f->name);
    assert_string_equal(err.msg, msg);
    assert_false(exists(f->shm[0]));
    assert_true(exists(f->shm[1]));
    unlink(f->shm[1]);

    /* All zero (a daemon that died before writing its magic): ours. */
    uint8_t zero[64] = {0};
    make_foreign(f, 0, zero, sizeof zero);
    assert_int_equal(gc_world_create(&f->owner, &f->cfg, &took, &err), GC_OK);
    assert_true(took.world);
    assert_int_equal(took.world_pid, 0);
}

/* ---- The daemon never trusts the queue object ---------------------------- */

static void
test_edits_scribbled_head_tail(void **state)
{
    fixture *f = *state;
    f->cfg.edits_capacity = 8;
    create_owner(f);
    attach_reader(f, GC_WORLD_ATTACH_QUEUE);
    gc_queue_header *h = gc_queue_hdr(gc_world_queue(f->reader));
    gc_edit e, got;
    for (uint64_t t = 1; t <= 5; t++) {
        e = edit_for(t);
        assert_int_equal(gc_queue_push(gc_world_queue(f->reader), &e, 0), GC_OK);
    }
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_OK);
    assert_true(edit_matches(&got, 1));
    assert_int_equal(gc_queue_head(gc_world_queue(f->reader)), 1);

    /* A producer moves the published head back, or far ahead: the daemon
     * goes on from its own, each entry once, in order. */
    atomic_store(&h->head, 0);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_OK);
    assert_true(edit_matches(&got, 2));
    atomic_store(&h->head, UINT64_C(1) << 40);
    for (uint64_t t = 3; t <= 5; t++) {
        assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_OK);
        assert_true(edit_matches(&got, t));
        assert_int_equal(got.position, t - 1);
    }
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_EAGAIN);
    assert_int_equal(gc_queue_head(gc_world_queue(f->owner)), 5);
    assert_int_equal(atomic_load(&h->head), 5); /* republished */

    /* A tail far ahead: pending is capped at the ring's capacity. */
    atomic_store(&h->tail, UINT64_C(1) << 50);
    assert_int_equal(gc_queue_pending(gc_world_queue(f->owner)), 8);
    assert_int_equal(gc_queue_pending(gc_world_queue(f->reader)), 8);

    /* A tail behind the head: the daemon puts it back, and producers push
     * at once instead of finding the ring "full". */
    atomic_store(&h->tail, 2);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_EAGAIN);
    assert_int_equal(atomic_load(&h->tail), 5);
    e = edit_for(6);
    assert_int_equal(gc_queue_push(gc_world_queue(f->reader), &e, 0), GC_OK);
    assert_int_equal(e.position, 5);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_OK);
    assert_true(edit_matches(&got, 6));
}

static void
test_edits_damaged_queue(void **state)
{
    fixture *f = *state;
    f->cfg.edits_capacity = 4;
    f->cfg.edits_mode = 0620;
    create_owner(f);
    gc_error err;
    gc_edit e, got;
    assert_int_equal(gc_queue_intact(gc_world_queue(f->owner), &err), GC_OK);
    for (uint64_t t = 1; t <= 6; t++) { /* more than a lap */
        e = edit_for(t);
        assert_int_equal(gc_queue_push(gc_world_queue(f->owner), &e, 0), GC_OK);
        assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_OK);
    }

    /* A field scribbled on. */
    attach_reader(f, GC_WORLD_ATTACH_QUEUE);
    gc_queue_header *h = gc_queue_hdr(gc_world_queue(f->reader));
    h->claim_timeout_ns = 1;
    char msg[300];
    snprintf(msg, sizeof msg,
             "/%s.edits: header overwritten by another process", f->name);
    assert_int_equal(gc_queue_intact(gc_world_queue(f->owner), &err), GC_ECORRUPT);
    assert_string_equal(err.msg, msg);
    h->claim_timeout_ns = 2000000000;
    assert_int_equal(gc_queue_intact(gc_world_queue(f->owner), &err), GC_OK);

    /* The magic scribbled on: the daemon takes nothing. */
    e = edit_for(7);
    assert_int_equal(gc_queue_push(gc_world_queue(f->reader), &e, 0), GC_OK);
    atomic_store(&h->magic, 0);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_EBADMAGIC);
    assert_int_equal(gc_queue_intact(gc_world_queue(f->owner), &err), GC_ECORRUPT);
    gc_world_close(f->reader);
    f->reader = NULL;

    /* Made again: same name, mode, empty, positions going on from 6. */
    assert_int_equal(gc_queue_reset(gc_world_queue(f->owner), &err), GC_OK);
    assert_int_equal(gc_queue_intact(gc_world_queue(f->owner), &err), GC_OK);
    struct stat st;
    assert_int_equal(stat(f->shm[1], &st), 0);
    assert_int_equal(st.st_mode & 07777, 0620);
    assert_int_equal(gc_queue_pending(gc_world_queue(f->owner)), 0);
    assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_EAGAIN);
    attach_reader(f, GC_WORLD_ATTACH_QUEUE);
    for (uint64_t t = 8; t <= 13; t++) {
        e = edit_for(t);
        assert_int_equal(gc_queue_push(gc_world_queue(f->reader), &e, 0), GC_OK);
        assert_int_equal(e.position, t - 2);
        assert_int_equal(gc_queue_pop(gc_world_queue(f->owner), &got), GC_OK);
        assert_true(edit_matches(&got, t));
    }
    gc_world_close(f->reader);
    f->reader = NULL;

    /* Truncated by a producer (it needs only write access): the size
     * says so before anything touches the mapping. */
    char n[80];
    snprintf(n, sizeof n, "/%s.edits", f->name);
    int fd = shm_open(n, O_RDWR, 0);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 0), 0);
    close(fd);
    snprintf(msg, sizeof msg,
             "/%s.edits: resized to 0 bytes by another process (it was "
             "%zu)",
             f->name, gc_queue_size(gc_world_queue(f->owner)));
    assert_int_equal(gc_queue_intact(gc_world_queue(f->owner), &err), GC_ECORRUPT);
    assert_string_equal(err.msg, msg);
    assert_int_equal(gc_queue_reset(gc_world_queue(f->owner), &err), GC_OK);
    assert_int_equal(gc_queue_intact(gc_world_queue(f->owner), &err), GC_OK);
    e = edit_for(14);
    assert_int_equal(gc_queue_push(gc_world_queue(f->owner), &e, 0), GC_OK);
    assert_int_equal(e.position, 12);

    /* Readers may not remake it. */
    attach_reader(f, GC_WORLD_ATTACH_QUEUE);
    assert_int_equal(gc_queue_reset(gc_world_queue(f->reader), &err), GC_EPERM);
    assert_int_equal(gc_queue_intact(gc_world_queue(f->reader), &err), GC_EPERM);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
        T(test_names),
        T(test_bad_config),
        T(test_create_attach),
        T(test_readonly_mapping),
        T(test_attach_edits),
        T(test_attach_missing),
        T(test_attach_while_created),
        T(test_refuse_corrupt_objects),
        T(test_refuse_corrupt_edits),
        T(test_validate_any_bytes),
        T(test_takeover_dead_owner),
        T(test_takeover_stale_header),
        T(test_refuse_live_owner),
        T(test_refuse_live_queue_leaves_nothing),
        T(test_destroy_unlinks),
        T(test_snapshot_roundtrip),
        T(test_snapshot_concurrent),
        T(test_stats_trace),
        T(test_stats_trace_concurrent),
        T(test_path_roundtrip),
        T(test_path_concurrent),
        T(test_cells_busy_while_written),
        T(test_owner_alive),
        T(test_watched),
        T(test_edits_push_pop),
        T(test_edits_full),
        T(test_edits_dead_producer),
        T(test_edits_corrupt_entries),
        T(test_edits_concurrent_model),
        T(test_edits_processes),
        T(test_create_syscall_failures),
        T(test_attach_syscall_failures),
        T(test_default_modes),
        T(test_create_group),
        T(test_takeover_refuses_foreign),
        T(test_edits_scribbled_head_tail),
        T(test_edits_damaged_queue),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

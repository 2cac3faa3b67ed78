/*
 * shm.c: a named shared-memory object's ownership, and its takeover from a
 * dead owner.  Both objects (the world and its edit queue) are made here.
 *
 * - Ownership is an flock.  The creator takes LOCK_EX on each object's fd and
 *   holds it until it closes the fd, so the kernel drops it the moment the
 *   daemon dies, however it dies.  A new daemon that finds an object tries
 *   LOCK_EX|LOCK_NB: if someone holds it, a live process owns the object and
 *   we refuse, naming the pid from the header when there is a valid one; if
 *   we get it, the owner is gone and we unlink and recreate.  This is
 *   stronger than kill(pid, 0) on the recorded pid, which says "alive" when
 *   the pid has been reused by an unrelated process, and says nothing about
 *   a daemon that died (or is still starting) before it wrote its header.
 *   The pid is used only for messages and gc_world_owner_alive.
 * - Races between daemons starting at once are settled by the lock: after
 *   locking, an object whose link count is 0 has been replaced under us and
 *   we start again; a holder of the lock is the only one allowed to unlink.
 *   A bounded loop gives up with GC_EBUSY.
 * - Creation: O_CREAT|O_EXCL, lock, fchmod (the mode is applied exactly, not
 *   filtered by the umask), ftruncate (so every byte starts zero).  The
 *   caller maps it, fills its header and publishes the magic last with a
 *   release store, so a reader that sees the magic sees a complete header.
 * - Taking over: only objects a gridcrowd daemon left behind (our magic, or
 *   none yet) are unlinked and remade; anything else under the name is
 *   someone else's, and creating refuses it (GC_EEXIST) rather than
 *   destroying it.
 */
#include "config.h"

#include "world_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- System-call errors -------------------------------------------------- */

int
gc_shm_open_error(int e, const char *name, const char *doing, gc_error *err)
{
    switch (e) {
    case EACCES:
    case EPERM:
        return gc_error_set(err, GC_EPERM, NULL, 0, 0,
                            "permission denied %s %s", doing, name);
    case ENOENT:
        return gc_error_set(err, GC_ENOENT, NULL, 0, 0,
                            "no daemon: shared-memory object %s does not "
                            "exist",
                            name);
    case EINVAL:
    case ENAMETOOLONG:
        return gc_error_set(err, GC_EINVAL, NULL, 0, 0,
                            "%s %s: invalid name: %s", doing, name,
                            strerror(e));
    }
    return gc_error_set(err, GC_ESYS, NULL, 0, 0, "%s %s: %s", doing, name,
                        strerror(e));
}

int
gc_shm_sys_error(int e, const char *name, const char *doing, gc_error *err)
{
    return gc_error_set(err, GC_ESYS, NULL, 0, 0, "%s %s: %s", doing, name,
                        strerror(e));
}

/* ---- Ownership: create, or take over from a dead owner ------------------- */

/* The pid in the header of an existing object, or 0 when it has none: too
 * small, wrong magic, or not yet written. */
static pid_t
recorded_pid(int fd, uint64_t magic, size_t pid_off)
{
    uint8_t buf[64];
    ssize_t n = pread(fd, buf, sizeof buf, 0);
    if (n < 0 || (size_t)n < pid_off + sizeof(int32_t))
        return 0;
    uint64_t m;
    int32_t pid;
    memcpy(&m, buf, sizeof m);
    memcpy(&pid, buf + pid_off, sizeof pid);
    return m == magic && pid > 0 ? (pid_t)pid : 0;
}

/*
 * Whether an existing object nobody holds may be taken over: only what a
 * gridcrowd daemon of this kind leaves behind, i.e. our magic, or no magic
 * yet (zero, or too short to hold one: a daemon that died while starting).
 * Anything else belongs to someone else, and unlinking it would destroy
 * their data; the caller refuses with GC_EEXIST.  Fills *found.
 */
static bool
ours_to_take(int fd, uint64_t magic, uint64_t *found)
{
    uint64_t m = 0;
    ssize_t n = pread(fd, &m, sizeof m, 0);
    *found = m;
    return n < (ssize_t)sizeof m || m == 0 || m == magic;
}

/* What settle_fresh returns when the object was replaced under us. */
#define RETRY 1

/*
 * Our O_EXCL open of spec->name gave fd: lock it, make sure it is still the
 * object under the name, give it its group, mode and size.  GC_OK (fd is
 * ours), RETRY (fd closed: another daemon replaced it, look again), or an
 * error (fd closed, the object unlinked).
 */
static int
settle_fresh(const gc_shm_spec *spec, int fd, gc_error *err)
{
    const char *name = spec->name;
    struct stat st;
    int e;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        /* Another daemon found our fresh, empty object and is
         * replacing it; what it makes we will find next round. */
        e = errno;
        close(fd);
        if (e == EWOULDBLOCK)
            return RETRY;
        return gc_shm_sys_error(e, name, "locking", err);
    }
    if (fstat(fd, &st) != 0) {
        e = errno;
        shm_unlink(name);
        close(fd);
        return gc_shm_sys_error(e, name, "fstat of", err);
    }
    if (st.st_nlink == 0) { /* replaced before we locked it */
        close(fd);
        return RETRY;
    }
    /* The group first: fchmod then gives the group its bits. */
    if (spec->set_group && fchown(fd, (uid_t)-1, spec->group) != 0) {
        e = errno;
        shm_unlink(name);
        close(fd);
        if (e == EPERM || e == EACCES)
            return gc_error_set(
                err, GC_EPERM, NULL, 0, 0,
                "setting the group of %s to gid %ld: %s (the "
                "daemon must be root or a member of that group)",
                name, (long)spec->group, strerror(e));
        return gc_error_set(err, GC_ESYS, NULL, 0, 0,
                            "setting the group of %s to gid %ld: %s", name,
                            (long)spec->group, strerror(e));
    }
    if (fchmod(fd, spec->mode) != 0) {
        e = errno;
        shm_unlink(name);
        close(fd);
        return gc_shm_sys_error(e, name, "setting the mode of", err);
    }
    if (ftruncate(fd, (off_t)spec->size) != 0) {
        e = errno;
        shm_unlink(name);
        close(fd);
        return gc_error_set(err, GC_ESYS, NULL, 0, 0,
                            "sizing %s to %" PRIu64 " bytes: %s", name,
                            spec->size, strerror(e));
    }
    return GC_OK;
}

/*
 * Make `spec->name` ours: a new, locked, sized object.  Existing objects are
 * taken over when nobody holds their lock (*took, *stale_pid).  Returns the
 * descriptor in *fdp.  On error, nothing we created remains.
 */
int
gc_shm_own(const gc_shm_spec *spec, int *fdp, bool *took, pid_t *stale_pid,
           gc_error *err)
{
    const char *name = spec->name;
    for (int attempt = 0; attempt < 8; attempt++) {
        int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, spec->mode);
        if (fd >= 0) {
            int rc = settle_fresh(spec, fd, err);
            if (rc == RETRY)
                continue;
            if (rc == GC_OK)
                *fdp = fd;
            return rc;
        }
        if (errno != EEXIST)
            return gc_shm_open_error(errno, name, "creating", err);

        /* It exists.  Reading it and locking it need no write access. */
        fd = shm_open(name, O_RDONLY, 0);
        if (fd < 0) {
            if (errno == ENOENT) /* gone meanwhile: try again */
                continue;
            return gc_shm_open_error(errno, name, "opening existing", err);
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            pid_t pid = recorded_pid(fd, spec->magic, spec->pid_off);
            close(fd);
            if (e != EWOULDBLOCK)
                return gc_shm_sys_error(e, name, "locking", err);
            if (pid > 0)
                return gc_error_set(err, GC_EBUSY, NULL, 0, 0,
                                    "shared-memory object %s is held by live "
                                    "process %ld",
                                    name, (long)pid);
            return gc_error_set(err, GC_EBUSY, NULL, 0, 0,
                                "shared-memory object %s is held by a live "
                                "process that has not written its pid yet",
                                name);
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
            int e = errno;
            close(fd);
            return gc_shm_sys_error(e, name, "fstat of", err);
        }
        if (st.st_nlink == 0) { /* someone replaced it first */
            close(fd);
            continue;
        }
        /* Nobody holds it: its owner is dead, if it ever was ours. */
        uint64_t found;
        if (!ours_to_take(fd, spec->magic, &found)) {
            close(fd);
            return gc_error_set(err, GC_EEXIST, NULL, 0, 0,
                                "shared-memory object %s exists and is not a "
                                "gridcrowd %s (magic 0x%016" PRIx64
                                "): not taking it over; remove it or choose "
                                "another name",
                                name, spec->kind, found);
        }
        /* We hold the lock, so the name still refers to this object while
         * we unlink it. */
        pid_t pid = recorded_pid(fd, spec->magic, spec->pid_off);
        if (shm_unlink(name) != 0 && errno != ENOENT) {
            int e = errno;
            close(fd);
            if (e == EACCES || e == EPERM)
                return gc_error_set(err, GC_EPERM, NULL, 0, 0,
                                    "cannot take over stale %s: permission "
                                    "denied",
                                    name);
            return gc_shm_sys_error(e, name, "unlinking stale", err);
        }
        close(fd);
        *took = true;
        *stale_pid = pid;
    }
    return gc_error_set(err, GC_EBUSY, NULL, 0, 0,
                        "shared-memory object %s: gave up after repeated "
                        "races with another process creating it",
                        name);
}

int
gc_shm_map(int fd, size_t size, int prot, const char *name, uint8_t **out,
           gc_error *err)
{
    void *p = mmap(NULL, size, prot, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return gc_shm_sys_error(errno, name, "mapping", err);
    *out = p;
    return GC_OK;
}

/* ---- Attaching ----------------------------------------------------------- */

int
gc_shm_attach(const char *name, bool writable, int *fdp, uint8_t **basep,
              size_t *sizep, gc_shm_check check, void *arg, gc_error *err)
{
    int fd = shm_open(name, writable ? O_RDWR : O_RDONLY, 0);
    if (fd < 0)
        return gc_shm_open_error(errno, name, "opening", err);
    *fdp = fd;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return gc_shm_sys_error(errno, name, "fstat of", err);
    if (st.st_size < 0 || (uint64_t)st.st_size > SIZE_MAX)
        return gc_error_set(err, GC_ECORRUPT, name, 0, 0,
                            "object size %lld cannot be mapped",
                            (long long)st.st_size);
    size_t size = (size_t)st.st_size;
    if (size < 256) {
        /* Too small to be anything: validate a copy so that the message is
         * the same as for any other short object (mmap of 0 bytes fails). */
        uint64_t buf[32] = {0};
        ssize_t n = size > 0 ? pread(fd, buf, size, 0) : 0;
        if (n < 0)
            return gc_shm_sys_error(errno, name, "reading", err);
        int rc = check((uint8_t *)buf, (size_t)n, name, NULL, err);
        if (rc == GC_OK) /* cannot happen: a header is 256 bytes */
            rc = gc_error_set(err, GC_ECORRUPT, name, 0, 0, "object too small");
        return rc;
    }
    int rc = gc_shm_map(fd, size, writable ? PROT_READ | PROT_WRITE : PROT_READ,
                        name, basep, err);
    if (rc != GC_OK)
        return rc;
    *sizep = size;
    return check(*basep, size, name, arg, err);
}

/* ---- Removing what a dead owner left ------------------------------------- */

int
gc_shm_lock_stale(const gc_shm_spec *spec, int *fdp, pid_t *pid, gc_error *err)
{
    const char *name = spec->name;
    *fdp = -1;
    *pid = 0;
    int fd = shm_open(name, O_RDONLY, 0);
    if (fd < 0)
        return errno == ENOENT ? GC_OK
                               : gc_shm_open_error(errno, name, "opening", err);
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        pid_t live = recorded_pid(fd, spec->magic, spec->pid_off);
        close(fd);
        if (e != EWOULDBLOCK)
            return gc_shm_sys_error(e, name, "locking", err);
        *pid = live;
        if (live > 0)
            return gc_error_set(err, GC_EBUSY, NULL, 0, 0,
                                "shared-memory object %s is held by live "
                                "process %ld: not removing it",
                                name, (long)live);
        return gc_error_set(err, GC_EBUSY, NULL, 0, 0,
                            "shared-memory object %s is held by a live "
                            "process that has not written its pid yet: not "
                            "removing it",
                            name);
    }
    uint64_t found;
    if (!ours_to_take(fd, spec->magic, &found)) {
        close(fd);
        return gc_error_set(err, GC_EEXIST, NULL, 0, 0,
                            "shared-memory object %s is not a gridcrowd %s "
                            "(magic 0x%016" PRIx64 "): not removing it",
                            name, spec->kind, found);
    }
    *pid = recorded_pid(fd, spec->magic, spec->pid_off);
    *fdp = fd;
    return GC_OK;
}

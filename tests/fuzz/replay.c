/*
 * replay.c: main() for a fuzz target in the ordinary build, without
 * libFuzzer: feeds it every file named on the command line, or every file
 * in a named directory, each in a buffer of exactly its size (so that
 * AddressSanitizer or valgrind see a read past the end).
 *
 *   fuzz_replay_map [FILE|DIR]...
 *
 * With no argument it replays $GC_SRCDIR/tests/fuzz/corpus/FUZZ_CORPUS
 * (GC_SRCDIR defaults to "."), which is what `make check` runs.  It prints
 * how many inputs it replayed and fails when there were none, so that a
 * wrong path cannot pass silently.  A broken invariant aborts in the target.
 *
 * Exit codes: 0 replayed at least one input; 1 none, or a file or directory
 * could not be read.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#ifndef FUZZ_CORPUS
#error "define FUZZ_CORPUS, the corpus directory under tests/fuzz/corpus"
#endif

static const char *progname = "fuzz_replay";

/* Replay one file; 0 or -1 after printing why. */
static int
replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "%s: %s: %s\n", progname, path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    int rc = 0;
    for (;;) {
        if (buf == NULL) {
            fprintf(stderr, "%s: %s: out of memory\n", progname, path);
            rc = -1;
            break;
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *nb = realloc(buf, cap * 2);
        if (nb == NULL)
            free(buf);
        buf = nb;
        cap *= 2;
    }
    if (rc == 0 && ferror(f)) {
        fprintf(stderr, "%s: %s: read error\n", progname, path);
        rc = -1;
    }
    fclose(f);
    if (rc == 0) {
        /* Exactly n bytes, nothing after them. */
        uint8_t *exact = malloc(n > 0 ? n : 1);
        if (exact == NULL) {
            fprintf(stderr, "%s: %s: out of memory\n", progname, path);
            rc = -1;
        } else {
            memcpy(exact, buf, n);
            LLVMFuzzerTestOneInput(exact, n);
            free(exact);
        }
    }
    free(buf);
    return rc;
}

static int
skip_name(const struct dirent *d)
{
    return d->d_name[0] != '.';
}

/* Replay every regular file in dir, in name order, adding them to *count;
 * 0, or -1 when one could not be read. */
static int
replay_dir(const char *dir, long *count)
{
    struct dirent **names;
    int n = scandir(dir, &names, skip_name, alphasort);
    if (n < 0) {
        fprintf(stderr, "%s: %s: %s\n", progname, dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        struct stat st;
        int len = snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (len < 0 || (size_t)len >= sizeof path) {
            fprintf(stderr, "%s: %s/%s: path too long\n", progname, dir,
                    names[i]->d_name);
            rc = -1;
        } else if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(path) == 0)
                (*count)++;
            else
                rc = -1;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

/* Replay a file or a directory, adding to *count; 0 or -1. */
static int
replay(const char *path, long *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: %s: %s\n", progname, path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode))
        return replay_dir(path, count);
    if (replay_file(path) != 0)
        return -1;
    (*count)++;
    return 0;
}

int
main(int argc, char **argv)
{
    const char *slash = strrchr(argv[0], '/');
    progname = slash != NULL ? slash + 1 : argv[0];

    char def[4096];
    char *def_argv[] = {def, NULL};
    if (argc < 2) {
        const char *src = getenv("GC_SRCDIR");
        if (src == NULL || *src == '\0')
            src = ".";
        int len = snprintf(def, sizeof def, "%s/tests/fuzz/corpus/%s", src,
                           FUZZ_CORPUS);
        if (len < 0 || (size_t)len >= sizeof def) {
            fprintf(stderr, "%s: GC_SRCDIR is too long\n", progname);
            return 1;
        }
        argv = def_argv;
        argc = 1;
    } else {
        argv++;
        argc--;
    }

    long total = 0;
    int failed = 0;
    for (int i = 0; i < argc; i++) {
        long n = 0;
        if (replay(argv[i], &n) != 0)
            failed = 1;
        printf("%s: %s: %ld input%s replayed\n", progname, argv[i], n,
               n == 1 ? "" : "s");
        total += n;
    }
    if (total == 0) {
        fprintf(stderr, "%s: no inputs found\n", progname);
        return 1;
    }
    printf("%s: %ld input%s replayed, every check passed\n", progname, total,
           total == 1 ? "" : "s");
    return failed;
}

/*
 * gridcrowd-report: pictures of a recorded run.
 *
 *   gridcrowd-report FILE.sqlite -o DIR [--line X0,Y0,X1,Y1]...
 *                    [--sample N] [--cell S] [--size PX] [--quiet]
 *
 * Reads a recording (gridcrowdd --record, or any JuPedSim trajectory
 * file) in one pass over its frames and writes into DIR density.png,
 * speed.png, trajectories.png, traveltime.png, flow.png (with --line),
 * index.html and report.json.  main only parses the command line and
 * calls the parts in report.h, in this order: open and check the
 * recording (bad input is exit 3 before DIR is touched), make DIR (exit
 * 4), stream the frames, draw, write the page.
 *
 * Progress goes to stderr, a line per 10% of the frames, once the pass
 * has taken a second: a small run prints nothing but its errors.
 */
#include "config.h"

#include "report.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "prog.h"

enum {
    EXIT_RUN = 1,    /* failure while running */
    EXIT_USAGE = 2,  /* bad command line */
    EXIT_INPUT = 3,  /* not a recording */
    EXIT_OUTPUT = 4, /* DIR cannot be made or written */
};

static void
usage(void)
{
    printf(
        "Usage: gridcrowd-report FILE.sqlite -o DIR [OPTIONS]\n"
        "Draw pictures of a recorded run (gridcrowdd --record, or a JuPedSim\n"
        "trajectory file) into DIR (made if absent): density.png, speed.png,\n"
        "trajectories.png, traveltime.png, flow.png (with --line), index.html\n"
        "showing them with the run's figures, and report.json.\n"
        "\n"
        "  -o, --output DIR      where the pictures go (required)\n"
        "  --line X0,Y0,X1,Y1    count agents crossing this segment (world\n"
        "                        units), each direction, per second; up to %d\n"
        "                        times; forwards is towards (Y1-Y0, X0-X1)\n"
        "  --sample N            trajectories drawn, 0 to 100000 (default "
        "200;\n"
        "                        the same agents every time)\n"
        "  --cell S              bin side for density and speed, world units\n"
        "                        (default: the map's cell, or 1/100 of the\n"
        "                        larger side of a plain JuPedSim file)\n"
        "  --size PX             width of the pictures, 320 to 8192 (default "
        "960)\n"
        "  --quiet               no progress lines\n"
        "  -h, --help            this text\n"
        "\n"
        "Exit codes:\n"
        "  0  the report was written\n"
        "  1  failure while running (out of memory, a read or write error)\n"
        "  2  bad command line (unknown option, a bad number or --line)\n"
        "  3  bad input: FILE is missing, not a regular file, not SQLite,\n"
        "     not a trajectory recording (no metadata or trajectory_data, no\n"
        "     fps, no rows) or damaged (a malformed page met while reading)\n"
        "  4  DIR cannot be created or written\n",
        REP_MAX_LINES);
}

/* mkdir -p DIR, then prove it is writable by making a file in it. */
static int
make_dir(const char *dir)
{
    char path[4096];
    if (strlen(dir) >= sizeof path - 40)
        return prog_fail(EXIT_OUTPUT, dir, "the name is too long");
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST)
                return prog_fail(EXIT_OUTPUT, dir, "%s", strerror(errno));
            *p = c;
            if (c == '\0')
                break;
        }
    }
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return prog_fail(EXIT_OUTPUT, dir, "%s", strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return prog_fail(EXIT_OUTPUT, dir, "not a directory");
    snprintf(path, sizeof path, "%s/.gridcrowd-report-XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0)
        return prog_fail(EXIT_OUTPUT, dir, "%s", strerror(errno));
    close(fd);
    unlink(path);
    return 0;
}

typedef struct progress {
    bool quiet;
    struct timespec t0;
    int64_t first, last;
    int next; /* the next tenth to report */
} progress;

static void
on_frame(int64_t frame, void *ud)
{
    progress *p = ud;
    if (p->quiet || p->last <= p->first)
        return;
    int tenth = (int)((frame - p->first) * 10 / (p->last - p->first + 1));
    if (tenth < p->next)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double dt = (double)(now.tv_sec - p->t0.tv_sec) +
                (double)(now.tv_nsec - p->t0.tv_nsec) * 1e-9;
    if (dt < 1.0)
        return;
    p->next = tenth + 1;
    prog_say("reading", "%d%% (frame %lld of %lld), %.1f s", tenth * 10,
             (long long)frame, (long long)p->last, dt);
}

int
main(int argc, char **argv)
{
    prog_init("gridcrowd-report");
    static const struct option longs[] = {
        {"output", required_argument, NULL, 'o'},
        {"line", required_argument, NULL, 'l'},
        {"sample", required_argument, NULL, 's'},
        {"cell", required_argument, NULL, 'c'},
        {"size", required_argument, NULL, 'z'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *dir = NULL;
    rep_line lines[REP_MAX_LINES];
    size_t n_lines = 0;
    double sample = 200, cell = 0, size = 960;
    bool quiet = false;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:h", longs, NULL)) != -1) {
        switch (c) {
        case 'o':
            dir = optarg;
            break;
        case 'l':
            if (n_lines == REP_MAX_LINES)
                return prog_usage(EXIT_USAGE, "--line: at most %d lines",
                                  REP_MAX_LINES);
            if (rep_line_parse(optarg, &lines[n_lines]) != GC_OK)
                return prog_usage(EXIT_USAGE,
                                  "--line: '%s' is not X0,Y0,X1,Y1 (four "
                                  "numbers, two distinct ends)",
                                  optarg);
            n_lines++;
            break;
        case 's':
            if (!prog_number("--sample", optarg, 0, 100000, true, &sample))
                return EXIT_USAGE;
            break;
        case 'c':
            if (!prog_number("--cell", optarg, 1e-6, 1e9, false, &cell))
                return EXIT_USAGE;
            break;
        case 'z':
            if (!prog_number("--size", optarg, 320, 8192, false, &size))
                return EXIT_USAGE;
            break;
        case 'q':
            quiet = true;
            break;
        case 'h':
            usage();
            return 0;
        default:
            return prog_bad_option(EXIT_USAGE, c, argv, longs);
        }
    }
    if (optind >= argc)
        return prog_usage(EXIT_USAGE, "no recording given");
    if (optind + 1 < argc)
        return prog_usage(EXIT_USAGE, "one recording only ('%s' too)",
                          argv[optind + 1]);
    if (!dir)
        return prog_usage(EXIT_USAGE, "no output directory: -o DIR");
    const char *file = argv[optind];

    gc_error err;
    gc_error_clear(&err);
    rep_read rd;
    int rc = rep_read_open(&rd, file, &err);
    if (rc != GC_OK) {
        rep_read_close(&rd);
        prog_msg("%s", err.msg);
        return rc == GC_ENOMEM ? EXIT_RUN : EXIT_INPUT;
    }
    int code = make_dir(dir);
    if (code != 0) {
        rep_read_close(&rd);
        return code;
    }
    const rep_info *in = &rd.info;
    rep_acc_config cfg;
    rep_acc_config_for(&cfg, in, cell, lines, n_lines, (size_t)sample);
    rep_acc acc;
    rc = rep_acc_init(&acc, &cfg);
    if (rc == GC_EINVAL) {
        rep_read_close(&rd);
        return prog_usage(EXIT_USAGE,
                          "--cell %g: too many bins over %g x %g units (at "
                          "most %u, %d a side)",
                          cfg.cell, in->xmax - in->xmin, in->ymax - in->ymin,
                          REP_MAX_BINS, REP_MAX_SIDE);
    }
    if (rc != GC_OK) {
        rep_read_close(&rd);
        return prog_fail(EXIT_RUN, NULL, "%s", gc_strerror(rc));
    }
    progress pg = {
        .quiet = quiet, .first = in->first_frame, .last = in->last_frame};
    clock_gettime(CLOCK_MONOTONIC, &pg.t0);
    rc = rep_read_frames(&rd, &acc, on_frame, &pg, &err);
    rep_travel tr = {.evacuation_s = -1};
    if (rc == GC_OK)
        rc = rep_acc_travel(&acc, &tr);
    if (rc != GC_OK)
        code = rc == GC_EPARSE ? EXIT_INPUT : EXIT_RUN;
    rep_out out = {
        .dir = dir, .size = (int)size, .info = in, .acc = &acc, .travel = &tr};
    if (rc == GC_OK)
        rc = rep_draw_all(&out, &err);
    if (rc == GC_OK)
        rc = rep_html_write(&out, &err);
    if (rc != GC_OK) {
        /* A write that fails after DIR was proved writable (a full disk)
         * is still DIR's fault. */
        if (code == 0)
            code = rc == GC_EIO ? EXIT_OUTPUT : EXIT_RUN;
        if (err.msg[0])
            prog_msg("%s", err.msg);
        else
            prog_msg("%s", gc_strerror(rc));
    }
    /* Said once the report is made, so that a failure stays one line. */
    if (code == 0 && !in->have_area && !quiet)
        prog_say("warning", "%s: %s", file, in->area_note);
    free(tr.t);
    rep_acc_free(&acc);
    rep_read_close(&rd);
    rep_draw_cleanup();
    return code;
}

/*
 * report.c: what gridcrowdd tells: the per-second line, the falling-behind
 * warning, the batch progress line, the summary (a line on stderr, and
 * JSON in the --stats-json file) and that file itself.
 *
 * The per-second line and the summary are figures, not messages: each is
 * written whole with fprintf, in a format that is this file's alone (the
 * tests and README.md read it).  Warnings and errors are messages (prog.h).
 */
#include "config.h"

#include <gridcrowd/util.h>
#include <gridcrowd/agent.h>
#include <gridcrowd/edits.h>
#include <gridcrowd/sim.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"

/* What a file that is not a regular one is, for messages. */
const char *
file_kind(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISSOCK(m) ? "a socket"
                         : "not a file";
}

/* ---- the stats file ---------------------------------------------------------
 *
 * Opened at start, so that a path that cannot be written fails before the
 * run, and written at the end.  How depends on what the path is (stat
 * follows symbolic links):
 *   absent, or a regular file: a temporary file beside it, renamed over it
 *     at the end, so a reader never sees half a summary and a failed run
 *     leaves nothing behind; a replaced file keeps its permission bits;
 *   a symbolic link to a regular file: the same at the link's target, so
 *     the link stays a link;
 *   a FIFO or a character device (a pipe from >(jq .), /dev/stdout,
 *     /dev/null): opened at start and written in place; a FIFO that nobody
 *     reads is refused rather than waited for;
 *   anything else (a directory, a block device, a socket, a link to
 *     nothing): refused.
 * Every refusal and write error is exit 5.  (It used to be the temporary
 * file and rename for every path, which replaced a link, a FIFO or a
 * device node by a regular 0600 file: as root, /dev/full was destroyed.)
 */

static bool
stats_file_in_place(stats_file *sf, const char *path, const struct stat *st)
{
    /* O_NONBLOCK: a FIFO with no reader fails with ENXIO instead of
     * blocking the daemon before it starts. */
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENXIO && S_ISFIFO(st->st_mode))
            prog_msg("--stats-json: %s: a FIFO that nobody reads", path);
        else
            prog_msg("--stats-json: %s: cannot write: %s", path,
                     strerror(errno));
        return false;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl == -1 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1 ||
        (sf->f = fdopen(fd, "w")) == NULL) {
        prog_msg("--stats-json: %s: %s", path, strerror(errno));
        close(fd);
        return false;
    }
    return true;
}

bool
stats_file_open(stats_file *sf, const char *path)
{
    sf->path = path;
    sf->tmp[0] = '\0';
    sf->f = NULL;
    if (path == NULL)
        return true;
    struct stat st, lst;
    bool exists = stat(path, &st) == 0;
    if (!exists && errno == ENOENT && lstat(path, &lst) == 0) {
        prog_msg("--stats-json: %s: a symbolic link to nothing", path);
        return false;
    }
    if (exists && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
        return stats_file_in_place(sf, path, &st);
    if (exists && !S_ISREG(st.st_mode)) {
        prog_msg(
            "--stats-json: %s: not a regular file, FIFO or character device "
            "(%s)",
            path, file_kind(st.st_mode));
        return false;
    }
    int n = snprintf(sf->dest, sizeof sf->dest, "%s", path);
    if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) &&
        realpath(path, sf->dest) == NULL) {
        prog_msg("--stats-json: %s: %s", path, strerror(errno));
        return false;
    }
    n = snprintf(sf->tmp, sizeof sf->tmp, "%s.XXXXXX", sf->dest);
    if (n < 0 || (size_t)n >= sizeof sf->tmp) {
        prog_msg("--stats-json: %s: path too long", path);
        return false;
    }
    int fd = mkstemp(sf->tmp);
    if (fd < 0) {
        prog_msg("--stats-json: %s: cannot write: %s", path, strerror(errno));
        return false;
    }
    if (exists)
        (void)fchmod(fd, st.st_mode & 07777); /* best effort */
    sf->f = fdopen(fd, "w");
    if (sf->f == NULL) {
        prog_msg("--stats-json: %s: %s", path, strerror(errno));
        close(fd);
        unlink(sf->tmp);
        return false;
    }
    return true;
}

void
stats_file_abort(stats_file *sf)
{
    if (sf->f == NULL)
        return;
    fclose(sf->f);
    if (sf->tmp[0] != '\0')
        unlink(sf->tmp);
    sf->f = NULL;
}

bool
stats_file_commit(stats_file *sf)
{
    if (sf->f == NULL)
        return true;
    errno = 0;
    bool ok = fflush(sf->f) == 0 && !ferror(sf->f);
    int e = errno;
    if (fclose(sf->f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    sf->f = NULL;
    if (ok && sf->tmp[0] == '\0')
        return true;
    if (ok && rename(sf->tmp, sf->dest) == 0)
        return true;
    if (ok)
        e = errno;
    prog_msg("--stats-json: %s: %s", sf->path, strerror(e != 0 ? e : EIO));
    if (sf->tmp[0] != '\0')
        unlink(sf->tmp);
    return false;
}

/*
 * A real-time run that cannot keep its tick rate says so, once, with the
 * figures of the window that showed it (it used to say nothing: only the
 * per-second lines, hidden by --quiet, showed the rate).  Not for the
 * first window, which the first plans of every agent may fill, nor for a
 * last window under half a second.  Shown with --quiet too: a warning is
 * not a figure.
 */
void
warn_behind(const options *o, run_figures *fig, double secs,
            uint64_t ticks_in_window, bool first_window)
{
    uint64_t over = fig->overruns - fig->overruns_before;
    fig->overruns_before = fig->overruns;
    if (o->batch || first_window || fig->said_behind || secs < 0.5)
        return;
    double rate = (double)ticks_in_window / secs;
    if (rate >= 0.95 * o->sim.hz)
        return;
    fig->said_behind = true;
    char span[32] = "second";
    if (secs >= 1.5)
        snprintf(span, sizeof span, "%.1f s", secs);
    prog_msg("warning: falling behind real time: %.1f ticks/s of %g over the "
             "last %s, %llu overruns",
             rate, o->sim.hz, span, (unsigned long long)over);
}

/* ---- tick times --------------------------------------------------------
 *
 * The loop's work per tick, as a user of a real-time run asks of it: how
 * long the ticks take, the slowest ones and how late the latest one
 * finished.  The p99 is a bucket's upper bound (gc_hist), no more than
 * the longest; the mean and the longest are exact.  The first second is
 * left out, as the overruns after it are: it holds the first plan of
 * every agent. */

void
tick_time_add(run_figures *fig, uint64_t work_ns, uint64_t late_ns)
{
    double ms = (double)work_ns / 1e6;
    gc_hist_add(&fig->tick_us, ms * 1e3);
    if (ms > fig->tick_ms_max)
        fig->tick_ms_max = ms;
    if ((double)late_ns / 1e6 > fig->late_ms_max)
        fig->late_ms_max = (double)late_ns / 1e6;
}

/* The ticks' work at the 99th percentile, ms. */
static double
tick_ms_p99(const run_figures *fig)
{
    double ms = gc_hist_quantile(&fig->tick_us, 0.99) / 1e3;
    return ms < fig->tick_ms_max ? ms : fig->tick_ms_max;
}

/* The figures of bodies (avoid ORCA): a tail for the per-second line, or
 * JSON keys; "" without avoidance.  A static buffer: loop thread only. */
static const char *
bodies_text(const options *o, const gc_sim_stats *st, bool json)
{
    static char buf[512];
    if (o->sim.avoid == GC_AVOID_NONE)
        return "";
    int k = json ? snprintf(buf, sizeof buf,
                            ", \"avoid\": \"%s\", \"time_gap_s\": %g",
                            gc_avoid_name(o->sim.avoid), o->sim.time_gap)
                 : 0;
    snprintf(buf + k, sizeof buf - (size_t)k,
             json ? ", \"radius\": %.4f, "
                    "\"overlaps_mean\": %.4f, \"overlaps_max\": %llu, "
                    "\"overlap_depth_max\": %.4f, \"in_wall\": %llu, "
                    "\"stalled\": %llu, \"speed_ratio\": %.4f, "
                    "\"avoid_ms_mean\": %.4f"
                  : "  bodies r %.2f: %.2f overlaps/tick (max %llu, deepest "
                    "%.3f of 2r) %llu in walls %llu stalled  speed %.2f of "
                    "preferred  avoid %.2f ms/tick",
             o->sim.radius, st->overlaps_mean,
             (unsigned long long)st->overlaps_max, st->overlap_depth_max,
             (unsigned long long)st->in_wall, (unsigned long long)st->stalled,
             st->speed_ratio, st->avoid_ms_mean);
    if (json) {
        size_t used = strlen(buf);
        snprintf(buf + used, sizeof buf - used,
                 ", \"reorders\": %llu, \"reorder_ms_max\": %.3f",
                 (unsigned long long)st->reorders, st->reorder_ms_max);
    }
    return buf;
}

void
print_second(const options *o, const gc_sim_stats *st, double secs,
             uint64_t ticks_in_window, const gc_record_stats *rec,
             const char *extra)
{
    if (o->quiet)
        return;
    double per_s = secs > 0 ? 1.0 / secs : 0.0;
    fprintf(stderr,
            "%s: tick %llu  %.1f ticks/s  agents: %llu moving %llu waiting "
            "%llu arrived %llu stuck %llu unreachable  %.0f arrivals/s  "
            "%.0f paths/s  path %.1f us mean (search %.1f + smooth %.1f) "
            "%.1f us p99  %.0f expanded/path%s",
            prog_name(), (unsigned long long)st->ticks,
            (double)ticks_in_window * per_s,
            (unsigned long long)st->by_state[GC_AGENT_MOVING],
            (unsigned long long)st->by_state[GC_AGENT_WAITING],
            (unsigned long long)st->by_state[GC_AGENT_ARRIVED],
            (unsigned long long)st->by_state[GC_AGENT_STUCK],
            (unsigned long long)st->by_state[GC_AGENT_UNREACHABLE],
            (double)st->arrivals * per_s, (double)st->searches * per_s,
            st->search_us_mean, st->search_only_us_mean, st->smooth_us_mean,
            st->search_us_p99,
            st->searches ? (double)st->expanded / (double)st->searches : 0.0,
            bodies_text(o, st, false));
    if (rec != NULL)
        fprintf(stderr, "  record: %llu frames written %llu dropped%s",
                (unsigned long long)rec->written,
                (unsigned long long)rec->dropped,
                rec->status != GC_OK ? " (stopped)" : "");
    if (extra != NULL)
        fputs(extra, stderr);
    fputc('\n', stderr);
}

void
progress(const options *o, uint64_t tick, bool done)
{
    if (done) {
        fprintf(stderr, "\r\033[K");
        return;
    }
    if (o->ticks)
        fprintf(stderr, "\r%s: tick %llu/%llu (%.0f%%)\033[K", prog_name(),
                (unsigned long long)tick, (unsigned long long)o->ticks,
                100.0 * (double)tick / (double)o->ticks);
    else
        fprintf(stderr, "\r%s: tick %llu\033[K", prog_name(),
                (unsigned long long)tick);
}

void
write_edit_summary(FILE *f, const gc_edit_applier *ed)
{
    gc_edit_counts c;
    gc_edit_applier_counts(ed, &c);
    if (c.accepted + c.rejected + c.pending == 0)
        return;
    fprintf(f, "%s: edits: %llu accepted, %llu rejected, %llu pending",
            prog_name(), (unsigned long long)c.accepted,
            (unsigned long long)c.rejected, (unsigned long long)c.pending);
    const char *sep = " (";
    for (int r = 0; r < GC_EDIT_NREASONS; r++)
        if (c.by_reason[r] > 0) {
            fprintf(f, "%s%s %llu", sep, gc_edit_reason_name(r),
                    (unsigned long long)c.by_reason[r]);
            sep = ", ";
        }
    fprintf(f, "%s; %llu cells changed\n", sep[0] == ',' ? ")" : "",
            (unsigned long long)c.cells_changed);
}

static long
max_rss_kb(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
}

void
write_summary(FILE *f, bool json, const options *o, const run_figures *fig,
              size_t agents)
{
    const gc_sim_stats *t = &fig->total;
    double tps = fig->wall_s > 0 ? (double)fig->ticks / fig->wall_s : 0.0;
    double sps = fig->wall_s > 0 ? (double)t->searches / fig->wall_s : 0.0;
    double tick_mean = gc_hist_mean(&fig->tick_us) / 1e3;
    if (json) {
        fprintf(f,
                "{\"ticks\": %llu, \"wall_s\": %.6f, \"ticks_per_s\": %.3f, "
                "\"agents\": %zu, \"arrived\": %llu, \"unreachable\": %llu, "
                "\"stuck\": %llu, \"moving\": %llu, \"waiting\": %llu, "
                "\"arrivals\": %llu, \"searches\": %llu, "
                "\"searches_per_s\": %.3f, \"search_us_mean\": %.3f, "
                "\"search_us_p99\": %.3f, \"search_only_us_mean\": %.3f, "
                "\"smooth_us_mean\": %.3f, \"expanded_mean\": %.3f, "
                "\"replans\": %llu, \"overruns\": %llu, "
                "\"overruns_after_1s\": %llu, \"edit_batches\": %llu, "
                "\"snapshots\": %llu, "
                "\"replan_delay_ticks_max\": %llu, "
                "\"replan_delay_ms_mean\": %.3f, "
                "\"replan_delay_ms_max\": %.3f, \"threads\": %d, "
                "\"batch\": %s, \"hz\": %.3f, \"max_rss_kb\": %ld, "
                "\"tick_ms_mean\": %.3f, \"tick_ms_p99\": %.3f, "
                "\"tick_ms_max\": %.3f, \"late_ms_max\": %.3f%s",
                (unsigned long long)fig->ticks, fig->wall_s, tps, agents,
                (unsigned long long)t->by_state[GC_AGENT_ARRIVED],
                (unsigned long long)t->by_state[GC_AGENT_UNREACHABLE],
                (unsigned long long)t->by_state[GC_AGENT_STUCK],
                (unsigned long long)t->by_state[GC_AGENT_MOVING],
                (unsigned long long)t->by_state[GC_AGENT_WAITING],
                (unsigned long long)t->arrivals,
                (unsigned long long)t->searches, sps, t->search_us_mean,
                t->search_us_p99, t->search_only_us_mean, t->smooth_us_mean,
                t->searches ? (double)t->expanded / (double)t->searches : 0.0,
                (unsigned long long)t->replans,
                (unsigned long long)fig->overruns,
                (unsigned long long)fig->overruns_after_1s,
                (unsigned long long)fig->edit_batches,
                (unsigned long long)fig->snapshots,
                (unsigned long long)t->replan_delay_ticks_max,
                t->replan_delay_ms_mean, t->replan_delay_ms_max, o->sim.threads,
                o->batch ? "true" : "false", o->sim.hz, max_rss_kb(), tick_mean,
                tick_ms_p99(fig), fig->tick_ms_max, fig->late_ms_max,
                bodies_text(o, t, true));
        if (fig->recording) {
            fprintf(f,
                    ", \"record\": {\"frames\": %llu, \"dropped\": %llu, "
                    "\"bytes\": %llu, \"stopped\": ",
                    (unsigned long long)fig->rec.written,
                    (unsigned long long)fig->rec.dropped,
                    (unsigned long long)fig->rec_bytes);
            if (fig->rec.status == GC_OK)
                fputs("null", f);
            else
                gc_json_escape(f, fig->rec.msg); /* the reason names a path */
            fputc('}', f);
        }
        if (fig->scenario != NULL) {
            fputs(", \"scenario\": ", f);
            scenario_summary(f, true, fig->scenario);
        }
        fputs("}\n", f);
        return;
    }
    fprintf(f,
            "%s: summary: %llu tick%s in %.2f s (%.1f ticks/s), %zu agent%s: "
            "%llu arrived, %llu unreachable, %llu stuck, %llu moving, %llu "
            "waiting; %llu arrivals; %llu searches (%.0f/s, %.1f us mean: "
            "%.1f search + %.1f smoothing, %.1f us p99); %llu overruns; "
            "after the first second a tick took %.2f ms mean, %.2f p99, %.2f "
            "max; max RSS %ld KiB\n",
            prog_name(), (unsigned long long)fig->ticks, prog_s(fig->ticks),
            fig->wall_s, tps, agents, prog_s(agents),
            (unsigned long long)t->by_state[GC_AGENT_ARRIVED],
            (unsigned long long)t->by_state[GC_AGENT_UNREACHABLE],
            (unsigned long long)t->by_state[GC_AGENT_STUCK],
            (unsigned long long)t->by_state[GC_AGENT_MOVING],
            (unsigned long long)t->by_state[GC_AGENT_WAITING],
            (unsigned long long)t->arrivals, (unsigned long long)t->searches,
            sps, t->search_us_mean, t->search_only_us_mean, t->smooth_us_mean,
            t->search_us_p99, (unsigned long long)fig->overruns, tick_mean,
            tick_ms_p99(fig), fig->tick_ms_max, max_rss_kb());
    if (fig->recording) {
        fprintf(f, "%s: record: %s: %llu frame%s, %llu dropped, %llu bytes",
                prog_name(), o->record, (unsigned long long)fig->rec.written,
                prog_s(fig->rec.written), (unsigned long long)fig->rec.dropped,
                (unsigned long long)fig->rec_bytes);
        if (fig->rec.status != GC_OK)
            fprintf(f, "; the recording stopped: %s", fig->rec.msg);
        fputc('\n', f);
    }
    if (fig->scenario != NULL)
        scenario_summary(f, false, fig->scenario);
}

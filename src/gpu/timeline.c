/* The rebuild timeline of timeline.h: timed events and host clock readings, printed as a table of
   when each stage ended on the device and when the host queued it (each row names its rank: the
   ranks' rows may interleave). */
#include "timeline.h"

#include "gpu.h"

#include "../util/util.h"

#include <stdio.h>
#include <stdlib.h>

enum { TIMELINE_MARKS = 96, REFRESH_TIMED = 3, TIMING = -1, DONE = -2 }; /* a plain step's refresh: the 3rd */

struct gpu_timeline {
    int rank, which;     /* the rebuild to time (1: the loop's first) */
    int seen, active, n; /* rebuilds so far; timing now; marks taken */
    int refresh;         /* refreshes to the timed one (0: rebuild not timed yet), then TIMING, DONE */
    void *zero;          /* the decision's event */
    double host_zero;
    void *ev[TIMELINE_MARKS];
    double host[TIMELINE_MARKS];
    const char *what[TIMELINE_MARKS];
};

int timeline_create(gpu_timeline **out, int rank, int which)
{
    *out = NULL;
    if (which < 1)
        return MDL_OK;
    gpu_timeline *t = calloc(1, sizeof *t);
    if (!t) {
        mdl_error("out of memory for the rebuild timeline");
        return MDL_ERUN;
    }
    *out = t;
    t->rank = rank, t->which = (int)which;
    if (gpu_event_create_timed(&t->zero))
        return MDL_ERUN;
    for (int k = 0; k < TIMELINE_MARKS; k++)
        if (gpu_event_create_timed(&t->ev[k]))
            return MDL_ERUN;
    return MDL_OK;
}

void timeline_destroy(gpu_timeline *t)
{
    if (!t)
        return;
    gpu_event_destroy(t->zero);
    for (int k = 0; k < TIMELINE_MARKS; k++)
        gpu_event_destroy(t->ev[k]);
    free(t);
}

void timeline_decision_queued(gpu_timeline *t)
{
    if (t && t->seen < t->which)
        gpu_event_record(t->zero, NULL);
}

void timeline_decision_read(gpu_timeline *t, int rebuild)
{
    if (!t || t->seen >= t->which || !rebuild)
        return;
    t->seen++;
    t->active = t->seen == t->which;
    t->host_zero = mdl_wtime();
}

void timeline_mark(gpu_timeline *t, const char *what)
{
    if (!t || !t->active || t->n == TIMELINE_MARKS)
        return;
    t->host[t->n] = mdl_wtime() - t->host_zero;
    t->what[t->n] = what;
    gpu_event_record(t->ev[t->n++], NULL);
}

static void print_table(gpu_timeline *t, const char *title)
{
    t->active = 0;
    fprintf(stderr, "timeline, rank %d, %s %d (us from %s; host: when queued)\n", t->rank, title, t->which,
            t->refresh == TIMING ? "its start" : "the decision");
    fprintf(stderr, "  [rank %d] %-28s %10s %10s %10s\n", t->rank, "stage ended", "device", "stage", "host");
    double last = 0;
    for (int k = 0; k < t->n; k++) {
        double s = 0;
        if (gpu_event_seconds(t->zero, t->ev[k], &s))
            return;
        fprintf(stderr, "  [rank %d] %-28s %10.1f %10.1f %10.1f\n", t->rank, t->what[k], 1e6 * s, 1e6 * (s - last),
                1e6 * t->host[k]);
        last = s;
    }
}

void timeline_finish(gpu_timeline *t)
{
    if (!t || !t->active || t->refresh)
        return;
    print_table(t, "rebuild");
    t->refresh = REFRESH_TIMED;
}

void timeline_refresh_begin(gpu_timeline *t)
{
    if (!t || t->refresh <= 0 || --t->refresh > 0)
        return;
    t->refresh = TIMING, t->active = 1, t->n = 0;
    t->host_zero = mdl_wtime();
    gpu_event_record(t->zero, NULL);
}

void timeline_refresh_end(gpu_timeline *t)
{
    if (!t || t->refresh != TIMING)
        return;
    print_table(t, "the third refresh after rebuild");
    t->refresh = DONE;
}

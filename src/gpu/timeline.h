/* A diagnostic timeline of one rebuild on a rank ([output] rebuild_timeline = K: the K-th rebuild
   of the loop), then of the third refresh after it (a plain step's): at each mark, an event on the stream and the host's
   clock, both from the moment the host learnt of the ranks' decision (the refresh: from its
   start); each printed to stderr once its last stage has been queued. */
#ifndef MDL_GPU_TIMELINE_H
#define MDL_GPU_TIMELINE_H

typedef struct gpu_timeline gpu_timeline;

/* NULL (nothing to do, every call below a no-op) unless `which` (the rebuild to time) is 1 or more. */
int timeline_create(gpu_timeline **t, int rank, int which);
void timeline_destroy(gpu_timeline *t);
/* An event where the device makes the decision known (the zero of the device's clock). */
void timeline_decision_queued(gpu_timeline *t);
/* The host has the decision (the zero of its clock); `rebuild`: it is a rebuild. */
void timeline_decision_read(gpu_timeline *t, int rebuild);
/* A named point of the timed rebuild: queued on the stream, the host's time noted. */
void timeline_mark(gpu_timeline *t, const char *what);
/* The last mark: waits for the device and prints the table. */
void timeline_finish(gpu_timeline *t);
/* A refresh begins (the third after the timed rebuild: its zero), and ends (waits, prints). */
void timeline_refresh_begin(gpu_timeline *t);
void timeline_refresh_end(gpu_timeline *t);

#endif

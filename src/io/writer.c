/* The writer thread, its slots and the queue between them. The main thread snapshots a frame
   into the lowest free slot (backend snapshot_start) and queues the slot; the writer thread takes
   the queue in order, lets the backend finish the slot (GPU: wait for its copy) and writes the
   frame straight from it. Frames are never dropped or reordered: the main thread waits only when
   every slot is in flight. Without a thread (async = no) one slot is finished and written at once. */
#define _POSIX_C_SOURCE 200809L
#include "writer.h"

#include "../util/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SLOT_FREE, SLOT_QUEUED };

typedef struct {
    int state;
    mdl_frame frame; /* step, time, checkpoint, flush */
    double copy_start;
} slot;

struct mdl_writer {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int nslots;
    slot *slots;
    int *queue;      /* slot indices in the order submitted: a ring of nslots */
    long head, tail; /* queue positions: submitted, written */
    int stop, error, started, threaded;
    mdl_traj *traj;
    const mdl_backend_ops *ops;
    void *ctx;
    mdl_system meta; /* a copy of the caller's: species, masses, box, type and id arrays */
    int throttle_ms;
    mdl_profile *prof;
};

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int write_slot(mdl_writer *w, slot *s, int index)
{
    double t0 = mdl_wtime();
    mdl_system frame = w->meta; /* a view: per-atom arrays are pointed into the slot */
    mdl_observables obs;
    int rc = w->ops->snapshot_finish(w->ctx, index, &frame, &obs);
    if (w->prof)
        profile_add(w->prof, MDL_LANE_COPY, s->frame.step, s->copy_start - w->prof->t0, mdl_wtime() - w->prof->t0);
    if (w->throttle_ms > 0)
        sleep_ms(w->throttle_ms);
    if (rc == MDL_OK) {
        for (int d = 0; d < 3 && obs.volume > 0; d++) /* the box at this frame (a barostat moves it) */
            frame.box.lo[d] = obs.box_lo[d], frame.box.len[d] = obs.box_len[d], frame.box.tilt[d] = obs.box_tilt[d];
        mdl_frame f = s->frame;
        f.s = &frame;
        f.obs = &obs;
        rc = traj_write(w->traj, &f);
    }
    analysis_checkpoint_free(s->frame.analysis);
    analysis_results_free(s->frame.results);
    s->frame.analysis = NULL, s->frame.results = NULL;
    if (w->prof)
        profile_add(w->prof, MDL_LANE_WRITE, s->frame.step, t0 - w->prof->t0, mdl_wtime() - w->prof->t0);
    return rc;
}

static void *writer_main(void *arg)
{
    mdl_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->tail == w->head && !w->stop)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->tail == w->head)
            break;
        int index = w->queue[w->tail % w->nslots];
        pthread_mutex_unlock(&w->mu);
        int rc = w->error ? MDL_ERUN : write_slot(w, &w->slots[index], index); /* after a failure: drain only */
        pthread_mutex_lock(&w->mu);
        if (rc != MDL_OK && !w->error)
            w->error = rc;
        w->slots[index].state = SLOT_FREE;
        w->tail++;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int writer_start(mdl_writer **out, mdl_traj *traj, const mdl_backend_ops *ops, void *ctx, const mdl_system *meta,
                 int nslots, int max_fields, int throttle_ms, mdl_profile *prof)
{
    mdl_writer *w = calloc(1, sizeof *w);
    *out = w;
    if (!w)
        return MDL_ERUN;
    w->threaded = nslots > 0;
    nslots = w->threaded ? nslots : 1;
    w->nslots = nslots;
    w->traj = traj;
    w->ops = ops;
    w->ctx = ctx;
    w->meta = *meta;
    system_point_fields(&w->meta, NULL, MDL_DUMP_ALL | MDL_DUMP_BUILD); /* a frame's arrays come from its slot */
    w->throttle_ms = throttle_ms;
    w->prof = prof;
    w->slots = calloc((size_t)nslots, sizeof *w->slots);
    w->queue = calloc((size_t)nslots, sizeof *w->queue);
    /* one slot more than the writer's: writer_spare_slot's */
    if (!w->slots || !w->queue || ops->snapshot_alloc(ctx, nslots + 1, max_fields) != MDL_OK)
        return MDL_ERUN;
    if (!w->threaded)
        return MDL_OK;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        mdl_error("cannot start the writer thread");
        return MDL_ERUN;
    }
    w->started = 1;
    return MDL_OK;
}

/* The lowest free slot, waiting while every slot is queued; -1 after a write error. */
static int take_free_slot(mdl_writer *w)
{
    pthread_mutex_lock(&w->mu);
    int index = -1;
    while (!w->error) {
        for (int k = 0; k < w->nslots && index < 0; k++)
            if (w->slots[k].state == SLOT_FREE)
                index = k;
        if (index >= 0)
            break;
        pthread_cond_wait(&w->cv, &w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return index;
}

int writer_submit(mdl_writer *w, const mdl_frame *f, int fields)
{
    int index = w->threaded ? take_free_slot(w) : 0;
    if (index < 0)
        return w->error;
    slot *s = &w->slots[index];
    s->frame = *f;
    s->frame.s = NULL;
    s->frame.obs = NULL;
    s->copy_start = mdl_wtime();
    int rc = w->ops->snapshot_start(w->ctx, index, fields);
    if (rc != MDL_OK) {
        analysis_checkpoint_free(s->frame.analysis);
        analysis_results_free(s->frame.results);
        s->frame.analysis = NULL, s->frame.results = NULL;
        return rc;
    }
    if (!w->threaded)
        return write_slot(w, s, index);
    pthread_mutex_lock(&w->mu);
    s->state = SLOT_QUEUED;
    w->queue[w->head % w->nslots] = index;
    w->head++;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return MDL_OK;
}

int writer_stop(mdl_writer *w)
{
    if (!w)
        return MDL_OK;
    int rc = MDL_OK;
    if (w->started) {
        pthread_mutex_lock(&w->mu);
        w->stop = 1;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thread, NULL);
        rc = w->error;
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
    }
    free(w->queue);
    free(w->slots);
    free(w);
    return rc;
}

int writer_spare_slot(const mdl_writer *w)
{
    return w->nslots;
}

/* The writer thread and its ring of slots. The main thread fills slot (head % K) through the
   backend's snapshot_start; the writer takes slots in order, lets the backend finish them
   (GPU: wait for the copy, un-permute) and writes the frame. Frames are never dropped or
   reordered: the main thread waits when the next slot is still busy. */
#define _POSIX_C_SOURCE 200809L
#include "writer.h"

#include "util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SLOT_FREE, SLOT_READY, SLOT_WRITING };

typedef struct {
    int state;
    long step;
    double time;
    mdl_observables obs;
    int has_obs, checkpoint;
    double copy_start;
    mdl_system sys; /* the frame in id order, filled by the writer thread */
} slot;

struct mdl_writer {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int nslots;
    slot *slots;
    long head, tail;
    int stop, error, started;
    mdl_traj *traj;
    const mdl_backend_ops *ops;
    void *ctx;
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
    int rc = w->ops->snapshot_finish(w->ctx, index, &s->sys);
    if (w->prof)
        profile_add(w->prof, MDL_LANE_COPY, s->step, s->copy_start - w->prof->t0, mdl_wtime() - w->prof->t0);
    if (w->throttle_ms > 0)
        sleep_ms(w->throttle_ms);
    if (rc == MDL_OK) {
        mdl_frame f = {s->step, s->time, &s->sys, s->has_obs ? &s->obs : NULL, s->checkpoint};
        rc = traj_write(w->traj, &f);
    }
    if (w->prof)
        profile_add(w->prof, MDL_LANE_WRITE, s->step, t0 - w->prof->t0, mdl_wtime() - w->prof->t0);
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
        int index = (int)(w->tail % w->nslots);
        slot *s = &w->slots[index];
        s->state = SLOT_WRITING;
        pthread_mutex_unlock(&w->mu);
        int rc = w->error ? MDL_ERUN : write_slot(w, s, index); /* after a failure: drain, write no more */
        pthread_mutex_lock(&w->mu);
        if (rc != MDL_OK && !w->error)
            w->error = rc;
        s->state = SLOT_FREE;
        w->tail++;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static int slot_system(mdl_system *d, const mdl_system *meta)
{
    if (system_init(d, meta->n) != MDL_OK)
        return MDL_ERUN;
    d->n = meta->n;
    d->ntypes = meta->ntypes;
    memcpy(d->species, meta->species, sizeof d->species);
    memcpy(d->mass, meta->mass, sizeof d->mass);
    d->box = meta->box;
    for (size_t i = 0; i < meta->n; i++)
        d->type[i] = meta->type[i], d->id[i] = (int64_t)i;
    return MDL_OK;
}

int writer_start(mdl_writer **out, mdl_traj *traj, const mdl_backend_ops *ops, void *ctx, const mdl_system *meta,
                 int nslots, int throttle_ms, mdl_profile *prof)
{
    mdl_writer *w = calloc(1, sizeof *w);
    *out = w;
    if (!w)
        return MDL_ERUN;
    w->nslots = nslots;
    w->traj = traj;
    w->ops = ops;
    w->ctx = ctx;
    w->throttle_ms = throttle_ms;
    w->prof = prof;
    w->slots = calloc((size_t)nslots, sizeof *w->slots);
    if (!w->slots || ops->snapshot_alloc(ctx, nslots) != MDL_OK)
        return MDL_ERUN;
    for (int k = 0; k < nslots; k++)
        if (slot_system(&w->slots[k].sys, meta) != MDL_OK)
            return MDL_ERUN;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        mdl_error("cannot start the writer thread");
        return MDL_ERUN;
    }
    w->started = 1;
    return MDL_OK;
}

int writer_submit(mdl_writer *w, long step, double time, const mdl_observables *obs, int fields, int checkpoint)
{
    int index = (int)(w->head % w->nslots);
    slot *s = &w->slots[index];
    pthread_mutex_lock(&w->mu);
    while (s->state != SLOT_FREE && !w->error) /* every slot in flight: wait for the writer */
        pthread_cond_wait(&w->cv, &w->mu);
    int err = w->error;
    pthread_mutex_unlock(&w->mu);
    if (err)
        return err;
    s->step = step;
    s->time = time;
    s->has_obs = obs != NULL;
    if (obs)
        s->obs = *obs;
    s->checkpoint = checkpoint;
    s->copy_start = mdl_wtime();
    int rc = w->ops->snapshot_start(w->ctx, index, fields);
    if (rc != MDL_OK)
        return rc;
    pthread_mutex_lock(&w->mu);
    s->state = SLOT_READY;
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
    for (int k = 0; w->slots && k < w->nslots; k++)
        system_destroy(&w->slots[k].sys);
    free(w->slots);
    free(w);
    return rc;
}

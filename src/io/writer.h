/* Trajectory output through backend snapshots: slots, a queue and a writer thread, so the step
   loop waits for the disk only when every slot is still in flight (or, without the thread, each
   frame written at once). Shared by both backends. */
#ifndef MDL_WRITER_H
#define MDL_WRITER_H

#include "../core/backend.h"
#include "profile.h"
#include "trajectory.h"

typedef struct mdl_writer mdl_writer;

/* Starts the writer thread over up to nslots slots, each holding up to max_fields (the backend
   allocates a slot when it is first used); nslots = 0: no thread, each frame written at once. meta gives the frames their species, masses, box,
   types and ids (id order); its type and id arrays must outlive the writer, its other per-atom
   arrays are not used. throttle_ms delays every write (tests of
   a writer that cannot keep up). */
int writer_start(mdl_writer **w, mdl_traj *traj, const mdl_backend_ops *ops, void *ctx, const mdl_system *meta,
                 int nslots, int max_fields, int throttle_ms, mdl_profile *prof);
/* Queues a frame of the current state with f's step, time, checkpoint and flush (f->s and f->obs
   are not used: the snapshot captures the state and its observables) and the fields asked for:
   takes the lowest free slot -- so a writer that keeps up needs one -- and waits only when all
   nslots are in flight, then snapshots the state into it (GPU: queued, no wait) and returns.
   Frames are written in the order submitted. Returns the writer's error, if it failed. */
int writer_submit(mdl_writer *w, const mdl_frame *f, int fields);
/* A snapshot slot the writer never takes (a backend slot allocated with the writer's, with room
   for max_fields): the caller's own snapshots (a data file's) go there. */
int writer_spare_slot(const mdl_writer *w);
/* Writes every queued frame and stops the thread; returns the first write error. (The backend
   keeps the slots' memory until it is destroyed.) */
int writer_stop(mdl_writer *w);

#endif

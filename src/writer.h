/* Asynchronous trajectory output: a ring of snapshot slots and a writer thread, so the step loop
   waits for the disk only when every slot is still in flight. Shared by both backends. */
#ifndef MDL_WRITER_H
#define MDL_WRITER_H

#include "backend.h"
#include "profile.h"
#include "trajectory.h"

typedef struct mdl_writer mdl_writer;

/* Starts the writer thread over nslots slots (the backend allocates their buffers).
   throttle_ms delays every write (tests of a writer that cannot keep up). */
int writer_start(mdl_writer **w, mdl_traj *traj, const mdl_backend_ops *ops, void *ctx, const mdl_system *meta,
                 int nslots, int throttle_ms, mdl_profile *prof);
/* Queues a frame: waits only while the next slot is still being written, then snapshots the state
   into it (GPU: queued on the copy stream) and returns. Returns the writer's error, if it failed. */
int writer_submit(mdl_writer *w, long step, double time, const mdl_observables *obs, int fields, int checkpoint);
/* Writes every queued frame, stops the thread, frees the slots; returns the first write error. */
int writer_stop(mdl_writer *w);

#endif

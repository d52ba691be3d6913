// Nose-Hoover's half steps on the device in one thread (the chains, the barostat's box moved in
// place): nose_hoover.cu's kernels and the persistent step (force.cu) share them.
#ifndef MDL_GPU_NOSE_HOOVER_CUH
#define MDL_GPU_NOSE_HOOVER_CUH

#include "../physics/nose_hoover.h"
#include "common.cuh"

/* The box scaled twice by e about its centre (the remap before and after the drift), the remap's
   three boxes kept for kick_drift, and the skin test's thresholds from the faces' motion since the
   list's build (cpu_update_neighbors' rule). Returns whether the box ran away, after either half
   (as the CPU backend checks each remap), the box left at the one that did. */
static __device__ bool move_box(gpu_box_state *bx, double e)
{
    mdl_box *b = &bx->grid.region;
    double lo[3], len[3];
    for (int d = 0; d < 3; d++)
        bx->lo0[d] = lo[d] = b->lo[d], bx->inv0[d] = 1.0 / b->len[d];
    nh_scale_box(lo, bx->hi, len, bx->centre, e);
    const bool half_away = nh_box_unfit(len, bx->volume0, bx->rlist, bx->ghosted) != 0;
    for (int d = 0; d < 3; d++)
        bx->lo1[d] = lo[d], bx->len1[d] = len[d], bx->inv1[d] = 1.0 / len[d];
    nh_scale_tilts(b->tilt, e); /* a triclinic box's, with each half (iso: the drift's remap per axis is the same map) */
    if (!half_away)
        nh_scale_box(lo, bx->hi, len, bx->centre, e), nh_scale_tilts(b->tilt, e);
    for (int d = 0; d < 3; d++)
        b->lo[d] = lo[d], b->len[d] = len[d];
    const double bd = box_faces_moved(b, &bx->built), unsafe = bx->unsafe_skin - 0.5 * bd,
                 rebuild = 0.5 * (bx->skin - bd);
    bx->half2 = rebuild > 0 ? rebuild * rebuild : -1.0;
    bx->skin2 = unsafe > 0 ? unsafe * unsafe : -1.0;
    gpu_grid_set_box(&bx->grid, b); /* the minimum image's lengths */
    return half_away || nh_box_unfit(len, bx->volume0, bx->rlist, bx->ghosted) != 0;
}

/* The half steps of `mode` on sum m v^2 and the virial (GPU_NH_END; then GPU_NH_START, which with
   a barostat moves the box); factor[0]: their velocity factors' product, factor[1]: the box's. A
   runaway box halts the step and reports its step. One thread. */
static __device__ void nh_steps(mdl_nh *nh, int mode, double sum, double virial, double mvv2e, gpu_box_state *bx,
                         double *factor, gpu_nb_state *st, long long *report)
{
    double f = 1.0, box = 1.0;
    const double volume = box_volume(&bx->grid.region);
    if (mode & GPU_NH_END) {
        const double kinetic = 0.5 * mvv2e * sum;
        if (nh->barostat)
            nh->virial = virial;
        f = nh_end_of_step(nh, nh->tdof > 0 ? 2.0 * kinetic / (nh->tdof * nh->boltz) : 0.0, volume).vscale;
    }
    if (mode & GPU_NH_START) {
        const mdl_nh_factors g = nh_start_of_step(nh, volume, (uint64_t)(st->step + 1)); /* the next step's */
        f *= g.vscale;
        box = g.boxscale;
        if (nh->barostat && move_box(bx, box)) {
            bx->runaway = GPU_BOX_RUNAWAY;
            st->halt = 1;
            if (!st->reported) { /* the step this start belongs to: the rebuild test counts it next */
                st->reported = 1;
                report[0] = st->step + 1;
                __threadfence_system();
            }
        }
    }
    factor[0] = f;
    factor[1] = box;
}

#endif

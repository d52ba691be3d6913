// Nose-Hoover's chains and the MTK barostat on the device: physics/nose_hoover.h's half steps in
// one thread (after the temperature's and virial's partial sums, added in a fixed order), the
// factors left in device memory for the kicks or a scaling pass, the barostat's box moved in
// place; the chains' energy for thermo rows. Nothing waits for the host, so a step records as a
// graph.
#include "../physics/nose_hoover.h"
#include "common.cuh"

/* The box scaled twice by e about its centre (the remap before and after the drift), the remap's
   three boxes kept for kick_drift, and the skin test's thresholds from the faces' motion since the
   list's build (cpu_update_neighbors' rule). Returns whether the box ran away, after either half
   (as the CPU backend checks each remap), the box left at the one that did. */
__device__ bool move_box(gpu_box_state *bx, double e)
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
__device__ void nh_steps(mdl_nh *nh, int mode, double sum, double virial, double mvv2e, gpu_box_state *bx,
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

/* The half steps of `mode`, the end's sums from mv2[0] and mv2[2]. Nothing when the step is halted. */
__global__ void nh_kernel(mdl_nh *nh, int mode, const double *mv2, double mvv2e, gpu_box_state *bx, double *factor,
                          gpu_nb_state *st, long long *report)
{
    if (!st->halt)
        nh_steps(nh, mode, mode & GPU_NH_END ? mv2[0] : 0.0, mode & GPU_NH_END ? mv2[2] : 0.0, mvv2e, bx, factor,
                 st, report);
}

/* The chained step's chains in one pass: each block's sums of m (v + a f)^2 over the velocities a
   half kick would make (a = dtf / m, as kick_drift's; not written) and of the virial w; the last
   block to finish (its ticket) adds the blocks' sums in block order and takes the chains' end and
   the next start: one kernel between the force pass and the kicks where a sum and the chains took
   two (2,048,000 atoms, H200, from an equilibrated state: nvt-nose-hoover 0.9674 -> 0.9681 of
   NVE, npt-nose-hoover 0.9136 -> 0.9172); the atoms taken last to first, 0.9625 -> 0.9642 (H100).
   SINGLE: one species (no species read). */
template <bool SINGLE>
__global__ void __launch_bounds__(RED_BLOCK) nh_kicked_kernel(int n, double dtf, const double *vx, const double *vy,
                                                              const double *vz, const mdl_real *fx,
                                                              const mdl_real *fy, const mdl_real *fz,
                                                              const int *type, gpu_masses ms, const mdl_real *w,
                                                              double *partials, unsigned *ticket, mdl_nh *nh,
                                                              double mvv2e, gpu_box_state *bx, double *factor,
                                                              gpu_nb_state *st, long long *report)
{
    double ke = 0, vir = 0;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
        const int i = n - 1 - k; /* last to first: the kick+drift pass after it finds its first atoms in L2 */
        const int t = SINGLE ? 0 : type[i];
        const double a = dtf * ms.inv[t];
        const double u = vx[i] + a * fx[i], v = vy[i] + a * fy[i], s = vz[i] + a * fz[i];
        ke += ms.mass[t] * (u * u + v * v + s * s);
        if (w)
            vir += (double)w[i];
    }
    const double3 r = block_sum3(ke, 0.0, vir);
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[3 * blockIdx.x] = r.x, partials[3 * blockIdx.x + 2] = r.z;
        __threadfence(); /* the sums before the ticket */
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    double a = 0, v = 0;
    for (int k = threadIdx.x; k < (int)gridDim.x; k += blockDim.x) /* past L1: other SMs wrote them */
        a += __ldcg(&partials[3 * k]), v += __ldcg(&partials[3 * k + 2]);
    const double3 sum = block_sum3(a, 0.0, v);
    if (threadIdx.x != 0)
        return;
    *ticket = 0;
    if (!st->halt)
        nh_steps(nh, GPU_NH_END | GPU_NH_START, sum.x, sum.z, mvv2e, bx, factor, st, report);
}

__global__ void scale_by_kernel(int n, double *vx, double *vy, double *vz, const double *factor, const int *halt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || *halt)
        return;
    const double f = factor[0];
    vx[i] *= f;
    vy[i] *= f;
    vz[i] *= f;
}

__global__ void nh_energy_kernel(const mdl_nh *nh, const mdl_box *box, double *out)
{
    *out = nh_energy(nh, box_volume(box));
}

extern "C" int gpu_nose_hoover(mdl_nh *nh, int mode, const double *mv2, double mvv2e, gpu_box_state *bx,
                               double *factor, gpu_nb_state *st, long long *report)
{
    nh_kernel<<<1, 1, 0, g_mdl_stream>>>(nh, mode, mv2, mvv2e, bx, factor, st, report);
    MDL_LAUNCHED("nose_hoover");
    return 0;
}

extern "C" int gpu_nose_hoover_kicked(size_t n, double dtf, const double *vx, const double *vy, const double *vz,
                                      const mdl_real *fx, const mdl_real *fy, const mdl_real *fz, const int *type,
                                      int ntypes, const gpu_masses *ms, const mdl_real *w, double *partials,
                                      unsigned *ticket, mdl_nh *nh, double mvv2e, gpu_box_state *bx, double *factor,
                                      gpu_nb_state *st, long long *report)
{
    auto kernel = ntypes == 1 ? nh_kicked_kernel<true> : nh_kicked_kernel<false>;
    kernel<<<(int)gpu_reduce_blocks(n), RED_BLOCK, 0, g_mdl_stream>>>((int)n, dtf, vx, vy, vz, fx, fy, fz, type, *ms,
                                                                     w, partials, ticket, nh, mvv2e, bx, factor, st,
                                                                     report);
    MDL_LAUNCHED("nose_hoover_kicked");
    return 0;
}

extern "C" int gpu_scale_by(size_t n, double *vx, double *vy, double *vz, const double *factor, const int *halt)
{
    scale_by_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, vx, vy, vz, factor, halt);
    MDL_LAUNCHED("scale_by");
    return 0;
}

extern "C" int gpu_nose_hoover_energy(const mdl_nh *nh, const mdl_box *box, double *out)
{
    nh_energy_kernel<<<1, 1, 0, g_mdl_stream>>>(nh, box, out);
    MDL_LAUNCHED("nose_hoover_energy");
    return 0;
}

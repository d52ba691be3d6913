// Nose-Hoover's chains and the MTK barostat on the device: physics/nose_hoover.h's half steps in
// one thread (after the temperature's and virial's partial sums, added in a fixed order), the
// factors left in device memory for the kicks or a scaling pass, the barostat's box moved in
// place; the chains' energy for thermo rows. Nothing waits for the host, so a step records as a
// graph.
#include "nose_hoover.cuh"

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

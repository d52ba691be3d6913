// Nose-Hoover's chains on the device: physics/nose_hoover.h's half steps in one block (the
// temperature's partial sums added in a fixed order, the chains in one thread), the factors left
// in device memory for the kicks or a scaling pass; the chains' energy for thermo rows. Nothing
// waits for the host, so a step records as a graph.
#include "../physics/nose_hoover.h"
#include "common.cuh"

/* The half steps of `mode` (GPU_NH_END on sum m v^2: the partials of nblocks blocks when given,
   else mv2[0]; then GPU_NH_START); factor[0]: their velocity factors' product, factor[1]: the
   box's. Nothing when the step is halted. One block of RED_BLOCK threads. */
__global__ void nh_kernel(mdl_nh *nh, int mode, const double *partials, int nblocks, const double *mv2, double mvv2e,
                          double volume, double *factor, const int *halt)
{
    if (*halt)
        return;
    double sum = 0;
    if ((mode & GPU_NH_END) && partials) {
        double a = 0;
        for (int k = threadIdx.x; k < nblocks; k += blockDim.x)
            a += partials[3 * k];
        sum = block_sum3(a, 0.0, 0.0).x;
    } else if (mode & GPU_NH_END) {
        sum = mv2[0];
    }
    if (threadIdx.x != 0)
        return;
    double f = 1.0, box = 1.0;
    if (mode & GPU_NH_END) {
        const double kinetic = 0.5 * mvv2e * sum;
        f = nh_end_of_step(nh, nh->tdof > 0 ? 2.0 * kinetic / (nh->tdof * nh->boltz) : 0.0, volume).vscale;
    }
    if (mode & GPU_NH_START) {
        const mdl_nh_factors g = nh_start_of_step(nh, volume);
        f *= g.vscale;
        box = g.boxscale;
    }
    factor[0] = f;
    factor[1] = box;
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

__global__ void nh_energy_kernel(const mdl_nh *nh, double volume, double *out)
{
    *out = nh_energy(nh, volume);
}

extern "C" int gpu_nose_hoover(mdl_nh *nh, int mode, const double *partials, size_t nblocks, const double *mv2,
                               double mvv2e, double volume, double *factor, const int *halt)
{
    nh_kernel<<<1, RED_BLOCK, 0, g_mdl_stream>>>(nh, mode, partials, (int)nblocks, mv2, mvv2e, volume, factor, halt);
    MDL_LAUNCHED("nose_hoover");
    return 0;
}

extern "C" int gpu_scale_by(size_t n, double *vx, double *vy, double *vz, const double *factor, const int *halt)
{
    scale_by_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, vx, vy, vz, factor, halt);
    MDL_LAUNCHED("scale_by");
    return 0;
}

extern "C" int gpu_nose_hoover_energy(const mdl_nh *nh, double volume, double *out)
{
    nh_energy_kernel<<<1, 1, 0, g_mdl_stream>>>(nh, volume, out);
    MDL_LAUNCHED("nose_hoover_energy");
    return 0;
}

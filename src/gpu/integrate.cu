// GPU velocity Verlet, thermostats and the fused deterministic reduction (warp shuffles, a block
// pass, a second one-block launch; no floating-point atomics).
#include "../physics/rng.h"
#include "../physics/thermostat.h"
#include "../physics/species.h"
#include "common.cuh"

#include <curand_kernel.h>

#define MAXT MDL_MAX_SPECIES
__constant__ double c_inv_mass[MAXT], c_mass[MAXT];

extern "C" int gpu_set_masses(int ntypes, const double *mass)
{
    double inv[MAXT];
    for (int t = 0; t < ntypes; t++)
        inv[t] = 1.0 / mass[t];
    MDL_CUDA(cudaMemcpyToSymbol(c_mass, mass, ntypes * sizeof(double)));
    MDL_CUDA(cudaMemcpyToSymbol(c_inv_mass, inv, ntypes * sizeof(double)));
    return 0;
}

/* A barostat's step: atom i's kicks as kick_drift_of's, then its drift between the box's two
   remaps (bx; LAMMPS's remap, x += dt v, remap, in the CPU backend's arithmetic). */
template <int KICKS>
__device__ __forceinline__ real4 kick_remap_drift(int i, double a, double dt, mdl_real fx, mdl_real fy, mdl_real fz,
                                                  mdl_real w, double *const x[3], double *const v[3], double scale,
                                                  const gpu_box_state *bx)
{
    const mdl_real f[3] = {fx, fy, fz};
    double r[3];
    for (int d = 0; d < 3; d++) {
        double u = v[d][i];
        if (KICKS == 2)
            u = u + a * f[d];
        u *= scale;
        u = u + a * f[d];
        v[d][i] = u;
        double p = nh_remap(x[d][i], bx->lo0[d], bx->inv0[d], bx->lo1[d], bx->len1[d]);
        p = p + dt * u;
        r[d] = x[d][i] = nh_remap(p, bx->lo1[d], bx->inv1[d], bx->grid.region.lo[d], bx->grid.region.len[d]);
    }
    real4 p;
    p.x = (mdl_real)r[0], p.y = (mdl_real)r[1], p.z = (mdl_real)r[2], p.w = w;
    return p;
}

/* v += dtf f/m (KICKS times), x += dt v, pos4 written (w from the species: its old value need
   not be read), and the skin test against pos0 (far and unsafe in st); with outer_half (pruned
   lists; 0: none), the outer list's test too (far_outer). SCALED: Nose-Hoover's factor scale[0]
   (device memory) before this step's kick; REMAP (a barostat, bx): the drift between the box's
   remaps, and bx's skin thresholds, which count the faces' motion. */
template <int KICKS, bool SCALED, bool REMAP>
__global__ void kick_drift_kernel(int n, double dtf, double dt, double *x, double *y, double *z, double *vx,
                                  double *vy, double *vz, const mdl_real *fx, const mdl_real *fy, const mdl_real *fz,
                                  const int *type, pos_t *pos, const pos_t *pos0, mdl_real half2, mdl_real skin2,
                                  mdl_real outer_half, gpu_nb_state *st, const double *scale,
                                  const gpu_box_state *bx)
{
    if (st->halt)
        return;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    mdl_real d2 = 0;
    real4 q = {};
    if (REMAP)
        half2 = (mdl_real)bx->half2, skin2 = (mdl_real)bx->skin2;
    if (i < n) {
        const int t = type[i];
        real4 p;
        if (REMAP) {
            double *const r[3] = {x, y, z}, *const v[3] = {vx, vy, vz};
            p = kick_remap_drift<KICKS>(i, dtf * c_inv_mass[t], dt, fx[i], fy[i], fz[i], type_to_real(t), r, v,
                                        scale[0], bx);
        } else {
            p = kick_drift_of<KICKS, SCALED>(i, dtf * c_inv_mass[t], dt, fx[i], fy[i], fz[i], type_to_real(t), x, y,
                                             z, vx, vy, vz, SCALED ? scale[0] : 1.0);
        }
        pos_put(pos, i, p);
        q = pos_at(pos0, i);
        d2 = displacement2(p, q);
    }
    /* far stays set until the next build clears it, unsafe for good */
    skin_flags(0xffffffffu, d2, half2, skin2, &st->far, &st->unsafe);
    if (outer_half > 0)
        outer_flag(0xffffffffu, q, d2, outer_half, &st->far_outer);
}

/* kick_drift's skin test alone, at the positions in pos (a restart's, against its build's). */
__global__ void skin_test_kernel(int n, const pos_t *pos, const pos_t *pos0, mdl_real half2, mdl_real skin2,
                                 gpu_nb_state *st)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const mdl_real d2 = i < n ? displacement2(pos_at(pos, i), pos_at(pos0, i)) : 0;
    skin_flags(0xffffffffu, d2, half2, skin2, &st->far, &st->unsafe);
}

extern "C" int gpu_skin_test(size_t n, const mdl_real *pos4, const mdl_real *pos0, double skin, double unsafe_skin,
                             gpu_nb_state *st)
{
    skin_test_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>(
        (int)n, (const pos_t *)pos4, (const pos_t *)pos0, (mdl_real)(0.25 * skin * skin),
        (mdl_real)(unsafe_skin * unsafe_skin), st);
    MDL_LAUNCHED("skin_test");
    return 0;
}

template <int KICKS, bool SCALED, bool REMAP>
static void launch_kick_drift(size_t n, double dtf, double dt, double *x, double *y, double *z, double *vx, double *vy,
                              double *vz, const mdl_real *fx, const mdl_real *fy, const mdl_real *fz, const int *type,
                              mdl_real *pos4, const mdl_real *pos0, mdl_real half2, mdl_real skin2,
                              mdl_real outer_half, gpu_nb_state *st, const double *scale, const gpu_box_state *bx)
{
    kick_drift_kernel<KICKS, SCALED, REMAP><<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>(
        (int)n, dtf, dt, x, y, z, vx, vy, vz, fx, fy, fz, type, (pos_t *)pos4, (const pos_t *)pos0, half2, skin2,
        outer_half, st, scale, bx);
}

extern "C" int gpu_kick_drift(size_t n, double dtf, double dt, double *x, double *y, double *z, double *vx, double *vy,
                              double *vz, const mdl_real *fx, const mdl_real *fy, const mdl_real *fz, const int *type,
                              mdl_real *pos4, const mdl_real *pos0, double skin, double unsafe_skin, double outer_skin,
                              int kicks, gpu_nb_state *st, const double *scale, const gpu_box_state *bx)
{
    mdl_real half2 = (mdl_real)(0.25 * skin * skin), skin2 = (mdl_real)(unsafe_skin * unsafe_skin);
    mdl_real outer_half = (mdl_real)(0.5 * outer_skin);
    auto launch = bx && scale ? (kicks == 2 ? launch_kick_drift<2, true, true> : launch_kick_drift<1, true, true>)
                  : kicks == 2 ? (scale ? launch_kick_drift<2, true, false> : launch_kick_drift<2, false, false>)
                               : (scale ? launch_kick_drift<1, true, false> : launch_kick_drift<1, false, false>);
    launch(n, dtf, dt, x, y, z, vx, vy, vz, fx, fy, fz, type, pos4, pos0, half2, skin2, outer_half, st, scale, bx);
    MDL_LAUNCHED("kick_drift");
    return 0;
}

__global__ void kick_kernel(int n, double dtf, double *vx, double *vy, double *vz, const mdl_real *fx,
                            const mdl_real *fy, const mdl_real *fz, const int *type, const int *halt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || *halt)
        return;
    double a = dtf * c_inv_mass[type[i]];
    vx[i] += a * fx[i];
    vy[i] += a * fy[i];
    vz[i] += a * fz[i];
}

extern "C" int gpu_kick(size_t n, double dtf, double *vx, double *vy, double *vz, const mdl_real *fx,
                        const mdl_real *fy, const mdl_real *fz, const int *type, const int *halt)
{
    kick_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, dtf, vx, vy, vz, fx, fy, fz, type,
        halt);
    MDL_LAUNCHED("kick");
    return 0;
}

/* LAMMPS fix langevin's force; the noise from cuRAND's Philox4_32_10 subsequence `id`, block
   `step` (the words the CPU backend computes with mdl_random_block). */
__global__ void langevin_kernel(int n, const double *vx, const double *vy, const double *vz, mdl_real *fx,
                                mdl_real *fy, mdl_real *fz, const int *type, const int64_t *id, mdl_langevin p,
                                uint64_t seed, uint64_t step, const long long *dev_step, const int *halt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || *halt)
        return;
    if (dev_step)
        step = (uint64_t)*dev_step;
    curandStatePhilox4_32_10_t st;
    curand_init(mdl_rng_key(seed, MDL_STREAM_LANGEVIN), (unsigned long long)id[i], 4ull * step, &st);
    uint4 r = curand4(&st);
    const uint32_t words[3] = {r.x, r.y, r.z};
    double f[3];
    langevin_force(&p, step, c_mass[type[i]], vx[i], vy[i], vz[i], words, f);
    fx[i] += (mdl_real)f[0];
    fy[i] += (mdl_real)f[1];
    fz[i] += (mdl_real)f[2];
}

extern "C" int gpu_langevin(size_t n, const double *vx, const double *vy, const double *vz, mdl_real *fx,
                            mdl_real *fy, mdl_real *fz, const int *type, const int64_t *id, mdl_langevin p,
                            uint64_t seed, uint64_t step, const long long *dev_step, const int *halt)
{
    langevin_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, vx, vy, vz, fx, fy, fz, type, id,
        p, seed, step, dev_step, halt);
    MDL_LAUNCHED("langevin");
    return 0;
}

/* Initial velocities' normal deviates (rng.h's mdl_normals_fn) with cuRAND's device API. */
__global__ void velocity_normals_kernel(int n, unsigned long long key, const int64_t *id, double *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    curandStatePhilox4_32_10_t st;
    curand_init(key, (unsigned long long)id[i], 0, &st);
    double2 a = curand_normal2_double(&st), b = curand_normal2_double(&st);
    out[3 * i] = a.x;
    out[3 * i + 1] = a.y;
    out[3 * i + 2] = b.x;
}

extern "C" int gpu_velocity_normals(uint64_t key, size_t n, const int64_t *id, double *out)
{
    /* transient scratch, freed before the run: cudaMalloc directly, so that the summary's device
       memory (gpu_malloc's count) is what the run holds */
    int64_t *d_id = NULL;
    double *d_out = NULL;
    cudaError_t e = cudaMalloc((void **)&d_id, n * sizeof *d_id);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&d_out, 3 * n * sizeof *d_out);
    if (e == cudaSuccess)
        e = cudaMemcpy(d_id, id, n * sizeof *d_id, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        velocity_normals_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, key, d_id, d_out);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cudaMemcpy(out, d_out, 3 * n * sizeof *d_out, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        mdl_error("CUDA: drawing the initial velocities (%zu atoms): %s", n,
                cudaGetErrorString(e));
    cudaFree(d_id);
    cudaFree(d_out);
    return e == cudaSuccess ? 0 : 1;
}

// ---- reductions -------------------------------------------------------------------------------

__global__ void reduce_atoms_kernel(int n, const double *vx, const double *vy, const double *vz, const int *type,
                                    const mdl_real *pe, const mdl_real *w, double *partials)
{
    double ke = 0, e = 0, v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        ke += c_mass[type[i]] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
        if (pe) {
            e += (double)pe[i];
            v += (double)w[i];
        }
    }
    double3 r = block_sum3(ke, e, v);
    if (threadIdx.x == 0) {
        partials[3 * blockIdx.x] = r.x;
        partials[3 * blockIdx.x + 1] = r.y;
        partials[3 * blockIdx.x + 2] = r.z;
    }
}

__global__ void reduce_partials_kernel(int nblocks, const double *partials, double *out)
{
    double a = 0, b = 0, c = 0;
    for (int k = threadIdx.x; k < nblocks; k += blockDim.x) {
        a += partials[3 * k];
        b += partials[3 * k + 1];
        c += partials[3 * k + 2];
    }
    double3 r = block_sum3(a, b, c);
    if (threadIdx.x == 0)
        out[0] = r.x, out[1] = r.y, out[2] = r.z;
}

extern "C" size_t gpu_reduce_blocks(size_t n)
{
    size_t b = (n + RED_BLOCK - 1) / RED_BLOCK;
    return b < 1 ? 1 : b > RED_MAX_BLOCKS ? RED_MAX_BLOCKS : b;
}

extern "C" int gpu_reduce(size_t n, const double *vx, const double *vy, const double *vz, const int *type,
                          const mdl_real *pe, const mdl_real *w, double *partials, double *out)
{
    int nb = (int)gpu_reduce_blocks(n);
    reduce_atoms_kernel<<<nb, RED_BLOCK, 0, g_mdl_stream>>>((int)n, vx, vy, vz, type, pe, w, partials);
    MDL_LAUNCHED("reduce_atoms");
    reduce_partials_kernel<<<1, RED_BLOCK, 0, g_mdl_stream>>>(nb, partials, out);
    MDL_LAUNCHED("reduce_partials");
    return 0;
}

__global__ void scale_kernel(int n, double *vx, double *vy, double *vz, const double *mv2, mdl_scaling rule,
                             double mvv2e, double boltz, double dof, uint64_t step, const long long *dev_step,
                             const int *halt)
{
    /* one thread of each block draws the factor (csvr: its noise, the same in every block) */
    __shared__ double factor;
    if (threadIdx.x == 0)
        factor = thermostat_factor(&rule, mvv2e * mv2[0] / (dof * boltz), dof, dev_step ? (uint64_t)*dev_step : step);
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || *halt)
        return;
    const double f = factor;
    vx[i] *= f;
    vy[i] *= f;
    vz[i] *= f;
}

extern "C" int gpu_scale_to_temperature(size_t n, double *vx, double *vy, double *vz, const double *mv2,
                                        mdl_scaling rule, double mvv2e, double boltz, double dof, uint64_t step,
                                        const long long *dev_step, const int *halt)
{
    scale_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, vx, vy, vz, mv2, rule, mvv2e, boltz,
        dof, step, dev_step, halt);
    MDL_LAUNCHED("scale_velocities");
    return 0;
}

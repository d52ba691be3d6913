// GPU Lennard-Jones forces: one thread per atom over its full list (no atomics), the species
// table in constant memory, pair arithmetic in mdl_real (float in mixed precision).
#include "../physics/lj.h"
#include "../physics/species.h"
#include "common.cuh"

#define MAXT MDL_MAX_SPECIES
__constant__ mdl_real c_lj1[MAXT * MAXT], c_lj2[MAXT * MAXT], c_lj3[MAXT * MAXT], c_lj4[MAXT * MAXT];
__constant__ mdl_real c_offset[MAXT * MAXT], c_cutsq[MAXT * MAXT];
__constant__ int c_ntypes;

extern "C" int gpu_set_lj_table(int ntypes, const double *lj1, const double *lj2, const double *lj3,
                                const double *lj4, const double *offset, const double *cutsq)
{
    mdl_real t[6][MAXT * MAXT];
    for (int k = 0; k < ntypes * ntypes; k++) {
        t[0][k] = (mdl_real)lj1[k], t[1][k] = (mdl_real)lj2[k], t[2][k] = (mdl_real)lj3[k];
        t[3][k] = (mdl_real)lj4[k], t[4][k] = (mdl_real)offset[k], t[5][k] = (mdl_real)cutsq[k];
    }
    size_t bytes = (size_t)ntypes * ntypes * sizeof(mdl_real);
    MDL_CUDA(cudaMemcpyToSymbol(c_lj1, t[0], bytes));
    MDL_CUDA(cudaMemcpyToSymbol(c_lj2, t[1], bytes));
    MDL_CUDA(cudaMemcpyToSymbol(c_lj3, t[2], bytes));
    MDL_CUDA(cudaMemcpyToSymbol(c_lj4, t[3], bytes));
    MDL_CUDA(cudaMemcpyToSymbol(c_offset, t[4], bytes));
    MDL_CUDA(cudaMemcpyToSymbol(c_cutsq, t[5], bytes));
    MDL_CUDA(cudaMemcpyToSymbol(c_ntypes, &ntypes, sizeof(int)));
    return 0;
}

MDL_LJ_PAIR(mdl_real, _real)

template <bool EV, bool SINGLE>
__global__ void __launch_bounds__(MDL_BLOCK) lj_kernel(int n, image_lengths m, const real4 *__restrict__ pos,
                                                       const int *__restrict__ nl, const int *__restrict__ count,
                                                       int si, int sk, mdl_real *fx, mdl_real *fy, mdl_real *fz,
                                                       mdl_real *pe, mdl_real *w)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const real4 pi = pos[i];
    const int row = SINGLE ? 0 : real_to_type(pi.w) * c_ntypes;
    const mdl_real cut2 = c_cutsq[0];
    mdl_real fxi = 0, fyi = 0, fzi = 0, e = 0, v = 0;
    const int cnt = count[i];
    const int *list = nl + (size_t)i * si;
    for (int k = 0; k < cnt; k++) {
        const int j = __ldg(&list[(size_t)k * sk]);
        const real4 pj = load4(&pos[j]);
        const mdl_real dx = min_image_real(pi.x - pj.x, m.len[0], m.inv[0]);
        const mdl_real dy = min_image_real(pi.y - pj.y, m.len[1], m.inv[1]);
        const mdl_real dz = min_image_real(pi.z - pj.z, m.len[2], m.inv[2]);
        const mdl_real r2 = dx * dx + dy * dy + dz * dz;
        const int c = SINGLE ? 0 : row + real_to_type(pj.w);
        if (r2 < (SINGLE ? cut2 : c_cutsq[c])) {
            const mdl_real r2inv = (mdl_real)1 / r2;
            const mdl_real fp = lj_fpair_real(r2inv, c_lj1[c], c_lj2[c]);
            fxi += dx * fp;
            fyi += dy * fp;
            fzi += dz * fp;
            if (EV) {
                e += lj_energy_real(r2inv, c_lj3[c], c_lj4[c], c_offset[c]);
                v += r2 * fp;
            }
        }
    }
    if (fx) { // NULL: energy and virial only
        fx[i] = fxi;
        fy[i] = fyi;
        fz[i] = fzi;
    }
    if (EV) { // each pair is seen from both atoms: half to each
        pe[i] = (mdl_real)0.5 * e;
        w[i] = (mdl_real)0.5 * v;
    }
}

extern "C" int gpu_lj_forces(size_t n, int ntypes, mdl_box box, const mdl_real *pos4, const int *nl, const int *count, int si,
                             int sk, mdl_real *fx, mdl_real *fy, mdl_real *fz, int energy_virial, mdl_real *pe,
                             mdl_real *w)
{
    image_lengths m = make_image_lengths(box);
    unsigned g = grid_for(n, MDL_BLOCK);
    const real4 *p = (const real4 *)pos4;
    if (ntypes == 1) {
        if (energy_virial)
            lj_kernel<true, true><<<g, MDL_BLOCK>>>((int)n, m, p, nl, count, si, sk, fx, fy, fz, pe, w);
        else
            lj_kernel<false, true><<<g, MDL_BLOCK>>>((int)n, m, p, nl, count, si, sk, fx, fy, fz, pe, w);
    } else {
        if (energy_virial)
            lj_kernel<true, false><<<g, MDL_BLOCK>>>((int)n, m, p, nl, count, si, sk, fx, fy, fz, pe, w);
        else
            lj_kernel<false, false><<<g, MDL_BLOCK>>>((int)n, m, p, nl, count, si, sk, fx, fy, fz, pe, w);
    }
    MDL_LAUNCHED("lj_forces");
    return 0;
}

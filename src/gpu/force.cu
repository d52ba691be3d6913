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

/* Adds the pair (i, j) to i's sums. */
template <bool EV, bool SINGLE>
__device__ __forceinline__ void add_pair(real4 pi, real4 pj, int row, mdl_real cut2, const image_lengths &m,
                                         mdl_real &fxi, mdl_real &fyi, mdl_real &fzi, mdl_real &e, mdl_real &v)
{
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

/* A row the list could not hold (until the host grows it): every atom is a candidate. Kept out of
   line so that the list loop compiles as if it were alone. */
template <bool EV, bool SINGLE>
__device__ __noinline__ void add_all_pairs(int i, int n, const real4 *__restrict__ pos, int row, mdl_real cut2,
                                           image_lengths m, mdl_real *sums)
{
    const real4 pi = pos[i];
    for (int j = 0; j < n; j++)
        if (j != i)
            add_pair<EV, SINGLE>(pi, load4(&pos[j]), row, cut2, m, sums[0], sums[1], sums[2], sums[3], sums[4]);
}

template <bool EV, bool SINGLE>
__global__ void __launch_bounds__(MDL_BLOCK) lj_kernel(int n, image_lengths m, const real4 *__restrict__ pos,
                                                       const int *__restrict__ nl, const int *__restrict__ count,
                                                       int si, int sk, int capacity, mdl_real *fx, mdl_real *fy,
                                                       mdl_real *fz, mdl_real *pe, mdl_real *w, const int *halt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || *halt)
        return;
    const real4 pi = pos[i];
    const int row = SINGLE ? 0 : real_to_type(pi.w) * c_ntypes;
    const mdl_real cut2 = c_cutsq[0];
    mdl_real fxi = 0, fyi = 0, fzi = 0, e = 0, v = 0;
    const int cnt = count[i];
    const int *list = nl + (size_t)i * si;
    if (cnt > capacity) {
        mdl_real s[5] = {0, 0, 0, 0, 0};
        add_all_pairs<EV, SINGLE>(i, n, pos, row, cut2, m, s);
        fxi = s[0], fyi = s[1], fzi = s[2], e = s[3], v = s[4];
    } else {
        for (int k = 0; k < cnt; k++) {
            const int j = __ldg(&list[(size_t)k * sk]);
            add_pair<EV, SINGLE>(pi, load4(&pos[j]), row, cut2, m, fxi, fyi, fzi, e, v);
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

extern "C" int gpu_lj_forces(size_t n, int ntypes, mdl_box box, const mdl_real *pos4, const int *nl, const int *count,
                             int si, int sk, int capacity, mdl_real *fx, mdl_real *fy, mdl_real *fz,
                             int energy_virial, mdl_real *pe, mdl_real *w, const int *halt)
{
    image_lengths m = make_image_lengths(box);
    unsigned g = grid_for(n, MDL_BLOCK);
    const real4 *p = (const real4 *)pos4;
#define LJ_LAUNCH(EV, SINGLE)                                                                                     \
    lj_kernel<EV, SINGLE><<<g, MDL_BLOCK, 0, g_mdl_stream>>>((int)n, m, p, nl, count, si, sk, capacity, fx, fy, fz, \
                                                             pe, w, halt)
    if (ntypes == 1 && energy_virial)
        LJ_LAUNCH(true, true);
    else if (ntypes == 1)
        LJ_LAUNCH(false, true);
    else if (energy_virial)
        LJ_LAUNCH(true, false);
    else
        LJ_LAUNCH(false, false);
#undef LJ_LAUNCH
    MDL_LAUNCHED("lj_forces");
    return 0;
}

// On-the-fly analysis on the device: the RDF's pairs counted from the current full list (each
// block into its own histogram in shared memory, then added to the run's), the MSD's sums by
// species from unwrapped positions; positions in double in both precisions (physics/analysis.h).
#include "../physics/analysis.h"
#include "../physics/box.h"
#include "common.cuh"

/* The box now: a barostat's from device memory, else the fixed one. */
__device__ __forceinline__ mdl_box box_now(const mdl_box &fixed, const mdl_box *moving)
{
    return moving ? *moving : fixed;
}

__global__ void msd_origin_kernel(int n, const double *x, const double *y, const double *z, const int *ix,
                                  const int *iy, const int *iz, const int64_t *id, mdl_box fixed,
                                  const mdl_box *moving, double *origin)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const mdl_box b = box_now(fixed, moving);
    const double p[3] = {x[i], y[i], z[i]};
    const int32_t im[3] = {ix[i], iy[i], iz[i]};
    box_unwrap(&b, p, im, origin + 3 * id[i]);
}

__global__ void msd_kernel(int n, const double *x, const double *y, const double *z, const int *ix, const int *iy,
                           const int *iz, const int *type, const int64_t *id, mdl_box fixed, const mdl_box *moving,
                           const double *origin, int ntypes, double *row)
{
    __shared__ double sums[MDL_MAX_SPECIES];
    if (threadIdx.x < ntypes)
        sums[threadIdx.x] = 0;
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    double d2 = 0;
    int t = -1;
    if (i < n) {
        const mdl_box b = box_now(fixed, moving);
        const double *o = origin + 3 * id[i], p[3] = {x[i], y[i], z[i]};
        const int32_t im[3] = {ix[i], iy[i], iz[i]};
        double u[3];
        box_unwrap(&b, p, im, u);
        const double dx = u[0] - o[0], dy = u[1] - o[1], dz = u[2] - o[2];
        d2 = dx * dx + dy * dy + dz * dz, t = type[i];
    }
    for (int s = 0; s < ntypes; s++) { /* each species' sum by warp, then one shared add per warp */
        double v = t == s ? d2 : 0.0;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, o);
        if ((threadIdx.x & 31) == 0)
            atomicAdd(&sums[s], v);
    }
    __syncthreads();
    if (threadIdx.x < ntypes)
        atomicAdd(&row[threadIdx.x], sums[threadIdx.x]);
}

/* Where the kernel reads positions: x, y, z in double; with several ranks in mixed precision the
   ghosts [n, nall) from the packed positions, which each step's refresh keeps (their doubles are
   the last rebuild's). */
struct rdf_positions {
    const double *x, *y, *z;
    const pos_t *ghosts; /* NULL: every atom's doubles are current */
    int n;
};

__device__ __forceinline__ double3 position(const rdf_positions &p, int j)
{
    if (p.ghosts && j >= p.n) {
        const real4 q = pos_at(p.ghosts, j);
        return make_double3(q.x, q.y, q.z);
    }
    return make_double3(p.x[j], p.y[j], p.z[j]);
}

/* Atom j's pair with i (types a, b) into the histogram h (shared or global): a full list, every
   pair seen from both atoms (a ghost's from the rank that owns it too); the minimum image by the
   lengths len (0: none), or with `tri` a triclinic box's. */
__device__ __forceinline__ void rdf_add(double3 pi, int j, int a, const rdf_positions &p, const int *type,
                                        const double len[3], const double inv[3], const mdl_box *tri, double rmax,
                                        int nbins, int ntypes, unsigned *sh, unsigned long long *hist)
{
    const int b = type[j];
    if (!rdf_pair_weight(a, b, 1, 0))
        return;
    const double3 pj = position(p, j);
    double d[3] = {min_image(pi.x - pj.x, len[0], inv[0]), min_image(pi.y - pj.y, len[1], inv[1]),
                   min_image(pi.z - pj.z, len[2], inv[2])};
    if (tri)
        box_min_image_triclinic(tri, d);
    const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (r2 > 1.0000001 * rmax * rmax) /* far past the range: no square root (rdf_bin decides the rest) */
        return;
    const int bin = rdf_bin(sqrt(r2), rmax, nbins);
    if (bin < 0)
        return;
    const int k = rdf_pair_index(a, b, ntypes) * nbins + bin;
    if (sh)
        atomicAdd(&sh[k], 1u);
    else
        atomicAdd(&hist[k], 1ull);
}

/* One thread per atom over its row of the list in the form the builders wrote it (gpu.h): atom
   indices, or 16-bit entries through the warp's table or relative to the row's atom; a row past
   the capacity (until the list grows) takes every atom and ghost as a candidate, and a capacity of
   -1 (one rank, rdf_max past the list) every atom with the whole box's minimum image. Along the
   ghosted axes (bit d of `ghosted`) the list's pairs take no minimum image: ghosts are the images. */
__global__ void rdf_kernel(int n, int nall, rdf_positions p, const int *type, const int *nl, gpu_rows form, const int *table, const int *count, int si, int sk,
                           int capacity, mdl_box fixed, const mdl_box *moving, int ghosted, double rmax, int nbins,
                           int ntypes, int shared, unsigned long long *hist, double *volume)
{
    extern __shared__ unsigned sh[];
    const int nh = ntypes * (ntypes + 1) / 2 * nbins;
    if (shared) {
        for (int k = threadIdx.x; k < nh; k += blockDim.x)
            sh[k] = 0;
        __syncthreads();
    }
    const mdl_box b = box_now(fixed, moving);
    double len[3], inv[3], box_len[3], box_inv[3];
    box_image_lengths(&b, box_len, box_inv);
    for (int d = 0; d < 3; d++)
        len[d] = ghosted >> d & 1 ? 0.0 : box_len[d], inv[d] = ghosted >> d & 1 ? 0.0 : box_inv[d];
    const mdl_box *tri = box_is_triclinic(&b) ? &b : NULL;
    if (tri)
        box_len[0] = box_len[1] = box_len[2] = box_inv[0] = box_inv[1] = box_inv[2] = 0.0;
    unsigned *h = shared ? sh : NULL;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0)
        *volume += box_volume(&b);
    if (i < n) {
        const int a = type[i], cnt = count[i];
        const double3 pi = position(p, i);
        const int *tw = form == GPU_ROWS_TABLE ? table + (size_t)(i / 32) * GPU_LIST_TABLE : NULL;
        const bool packed = form == GPU_ROWS_RELATIVE || (tw && tw[GPU_LIST_TABLE - 1] == GPU_LIST_PACKED);
        if (capacity < 0) {
            for (int j = 0; j < n; j++)
                if (j != i)
                    rdf_add(pi, j, a, p, type, box_len, box_inv, tri, rmax, nbins, ntypes, h, hist);
        } else if (cnt > (packed ? 2 * capacity : capacity)) {
            for (int j = 0; j < nall; j++)
                if (j != i)
                    rdf_add(pi, j, a, p, type, len, inv, NULL, rmax, nbins, ntypes, h, hist);
        } else if (packed) {
            const unsigned *words = (const unsigned *)nl + i;
            for (int e = 0; e < cnt; e++) {
                const unsigned word = words[(size_t)(e >> 1) * sk], low = (e & 1 ? word >> 16 : word) & 0xffffu;
                const int j = form == GPU_ROWS_RELATIVE ? gpu_list_relative(i, low, nall) : gpu_list_unpack(tw, low);
                rdf_add(pi, j, a, p, type, len, inv, NULL, rmax, nbins, ntypes, h, hist);
            }
        } else {
            const int *list = nl + (size_t)i * si;
            for (int e = 0; e < cnt; e++)
                rdf_add(pi, list[(size_t)e * sk], a, p, type, len, inv, NULL, rmax, nbins, ntypes, h, hist);
        }
    }
    if (shared) {
        __syncthreads();
        for (int k = threadIdx.x; k < nh; k += blockDim.x)
            if (sh[k])
                atomicAdd(&hist[k], (unsigned long long)sh[k]);
    }
}

extern "C" int gpu_msd_origin(size_t n, const double *x, const double *y, const double *z, const int *ix,
                              const int *iy, const int *iz, const int64_t *id, mdl_box box, const mdl_box *moving,
                              double *origin)
{
    msd_origin_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, x, y, z, ix, iy, iz, id, box,
                                                                              moving, origin);
    MDL_LAUNCHED("msd_origin");
    return 0;
}

extern "C" int gpu_msd_sample(size_t n, const double *x, const double *y, const double *z, const int *ix,
                              const int *iy, const int *iz, const int *type, const int64_t *id, mdl_box box,
                              const mdl_box *moving, const double *origin, int ntypes, double *row)
{
    msd_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, x, y, z, ix, iy, iz, type, id, box,
                                                                       moving, origin, ntypes, row);
    MDL_LAUNCHED("msd_sample");
    return 0;
}

extern "C" int gpu_rdf_sample(size_t n, size_t nall, const double *x, const double *y, const double *z,
                              const mdl_real *ghosts, const int *type, const int *nl, gpu_rows form,
                              const int *table, const int *count, int si, int sk, int capacity, mdl_box box,
                              const mdl_box *moving, int ghosted, double rmax, int nbins, int ntypes,
                              unsigned long long *hist, double *volume)
{
    const rdf_positions p = {x, y, z, (const pos_t *)ghosts, (int)n};
    const size_t bytes = (size_t)ntypes * (ntypes + 1) / 2 * nbins * sizeof(unsigned);
    const int shared = bytes <= 32768; /* else straight into the run's histogram */
    rdf_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, shared ? bytes : 0, g_mdl_stream>>>(
        (int)n, (int)nall, p, type, nl, form, table, count, si, sk, capacity, box, moving, ghosted, rmax, nbins, ntypes, shared,
        hist, volume);
    MDL_LAUNCHED("rdf_sample");
    return 0;
}

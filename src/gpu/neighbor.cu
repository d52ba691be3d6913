// GPU neighbor lists: wrap and pack, cell binning (sorted through the Thrust shim), and three
// full-list builders -- cell (O(N), 27 cells), brute (O(N^2), no atomics), brute-atomic (half
// pairs appended to both rows with atomicAdd) -- written NL[i * si + k * sk].
#include "../physics/cells.h"
#include "common.cuh"

// ---- wrap, pack, cells ----------------------------------------------------------------------

__global__ void wrap_pack_kernel(int n, mdl_box b, double *x, double *y, double *z, int *ix, int *iy, int *iz,
                                 const int *type, real4 *pos)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double *c[3] = {x, y, z};
    int *im[3] = {ix, iy, iz};
    double r[3];
    for (int d = 0; d < 3; d++) {
        double v = c[d][i];
        if (b.periodic[d]) {
            int32_t image = im[d][i];
            double w = box_wrap(v, b.lo[d], b.len[d], &image);
            if (w != v)
                c[d][i] = w, im[d][i] = image;
            v = w;
        }
        r[d] = v;
    }
    real4 p;
    p.x = (mdl_real)r[0];
    p.y = (mdl_real)r[1];
    p.z = (mdl_real)r[2];
    p.w = type_to_real(type[i]);
    pos[i] = p;
}

extern "C" int gpu_wrap_and_pack(size_t n, mdl_box box, double *x, double *y, double *z, int *ix, int *iy, int *iz,
                                 const int *type, mdl_real *pos4)
{
    wrap_pack_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, box, x, y, z, ix, iy, iz, type,
        (real4 *)pos4);
    MDL_LAUNCHED("wrap_pack");
    return 0;
}

__device__ __forceinline__ int cell_coord(mdl_real v, double lo, double len, int nc)
{
    int c = (int)((v - (mdl_real)lo) * (mdl_real)(nc / len));
    return c < 0 ? 0 : c >= nc ? nc - 1 : c;
}

__global__ void cell_index_kernel(int n, mdl_box b, int3 nc, const real4 *pos, int *cell, int *perm)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    real4 p = pos[i];
    int cx = cell_coord(p.x, b.lo[0], b.len[0] > 0 ? b.len[0] : 1, nc.x);
    int cy = cell_coord(p.y, b.lo[1], b.len[1] > 0 ? b.len[1] : 1, nc.y);
    int cz = cell_coord(p.z, b.lo[2], b.len[2] > 0 ? b.len[2] : 1, nc.z);
    cell[i] = (cz * nc.y + cy) * nc.x + cx;
    perm[i] = i;
}

extern "C" int gpu_cell_index(size_t n, mdl_box box, const int nc[3], const mdl_real *pos4, int *cell, int *perm)
{
    cell_index_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, box, make_int3(nc[0], nc[1],
        nc[2]),
                                                             (const real4 *)pos4, cell, perm);
    MDL_LAUNCHED("cell_index");
    return 0;
}

__global__ void cell_bounds_kernel(int n, const int *cell, int *start, int *end)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int c = cell[i];
    if (i == 0 || cell[i - 1] != c)
        start[c] = i;
    if (i == n - 1 || cell[i + 1] != c)
        end[c] = i + 1;
}

extern "C" int gpu_cell_bounds(size_t n, size_t ncells, const int *sorted_cell, int *cell_start, int *cell_end)
{
    MDL_CUDA(cudaMemsetAsync(cell_start, 0, ncells * sizeof(int), g_mdl_stream));
    MDL_CUDA(cudaMemsetAsync(cell_end, 0, ncells * sizeof(int), g_mdl_stream));
    cell_bounds_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, sorted_cell, cell_start,
        cell_end);
    MDL_LAUNCHED("cell_bounds");
    return 0;
}

/* Staging layout per array k: n values from byte offset k * n * 8 (ints and reals fit in 8). */
__global__ void gather_to_staging_kernel(int n, const int *perm, gpu_atom_arrays a, char *staging)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int j = perm[i];
    size_t stride = (size_t)n * 8;
    for (int k = 0; k < 6; k++)
        ((double *)(staging + k * stride))[i] = a.d[k][j];
    ((int64_t *)(staging + 6 * stride))[i] = a.id[j];
    for (int k = 0; k < 4; k++)
        ((int *)(staging + (7 + k) * stride))[i] = a.i[k][j];
    for (int k = 0; k < 3 && a.f[0]; k++)
        ((mdl_real *)(staging + (11 + k) * stride))[i] = a.f[k][j];
}

__global__ void copy_from_staging_kernel(int n, gpu_atom_arrays a, const char *staging, real4 *pos)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    size_t stride = (size_t)n * 8;
    for (int k = 0; k < 6; k++)
        a.d[k][i] = ((const double *)(staging + k * stride))[i];
    a.id[i] = ((const int64_t *)(staging + 6 * stride))[i];
    for (int k = 0; k < 4; k++)
        a.i[k][i] = ((const int *)(staging + (7 + k) * stride))[i];
    for (int k = 0; k < 3 && a.f[0]; k++)
        a.f[k][i] = ((const mdl_real *)(staging + (11 + k) * stride))[i];
    real4 p;
    p.x = (mdl_real)a.d[0][i], p.y = (mdl_real)a.d[1][i], p.z = (mdl_real)a.d[2][i];
    p.w = type_to_real(a.i[3][i]);
    pos[i] = p;
}

extern "C" int gpu_permute_atoms(size_t n, const int *perm, gpu_atom_arrays a, void *staging, mdl_real *pos4)
{
    gather_to_staging_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, perm, a,
                                                                                    (char *)staging);
    MDL_LAUNCHED("gather_to_staging");
    copy_from_staging_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, a, (const char *)staging,
                                                                                    (real4 *)pos4);
    MDL_LAUNCHED("copy_from_staging");
    return 0;
}

// ---- builders -----------------------------------------------------------------------------------

__device__ __forceinline__ mdl_real distance2(real4 a, real4 b, const image_lengths &m)
{
    mdl_real dx = min_image_real(a.x - b.x, m.len[0], m.inv[0]);
    mdl_real dy = min_image_real(a.y - b.y, m.len[1], m.inv[1]);
    mdl_real dz = min_image_real(a.z - b.z, m.len[2], m.inv[2]);
    return dx * dx + dy * dy + dz * dz;
}

/* Appends j at slot k of row i when it fits; the count goes on regardless (overflow detection). */
__device__ __forceinline__ void put(int *nl, int i, int k, int j, int capacity, int si, int sk)
{
    if (k < capacity)
        nl[(size_t)i * si + (size_t)k * sk] = j;
}

__device__ __forceinline__ void finish_row(int *count, int *flags, int i, int k, int capacity)
{
    count[i] = k;
    if (k > capacity)
        atomicMax(&flags[1], k);
}

/* The 27 cells around i's cell, calling emit(k, j) for the k-th neighbor j; returns the count.
   With at least 3 cells along every periodic dimension (SHIFTED), each neighbor cell is one
   periodic image: its shift is applied to i once per cell and the candidate loop needs no
   minimum image. Otherwise (2 or 1 cells, where +1 and -1 are the same cell) the distinct cells
   are scanned with the minimum image per pair. */
template <bool SHIFTED, typename Emit>
__device__ __forceinline__ int scan_cells(int i, real4 pi, const mdl_box &b, const image_lengths &m, int3 nc,
                                          const int *start, const int *end, const real4 *__restrict__ pos,
                                          mdl_real rlist2, Emit emit)
{
    int cx = cell_coord(pi.x, b.lo[0], b.len[0] > 0 ? b.len[0] : 1, nc.x);
    int cy = cell_coord(pi.y, b.lo[1], b.len[1] > 0 ? b.len[1] : 1, nc.y);
    int cz = cell_coord(pi.z, b.lo[2], b.len[2] > 0 ? b.len[2] : 1, nc.z);
    int k = 0;
    if (SHIFTED) {
        for (int oz = -1; oz <= 1; oz++) {
            int z = cz + oz;
            mdl_real sz = 0;
            if (z < 0 || z >= nc.z) {
                if (!b.periodic[2])
                    continue;
                sz = z < 0 ? -m.len[2] : m.len[2];
                z = z < 0 ? z + nc.z : z - nc.z;
            }
            for (int oy = -1; oy <= 1; oy++) {
                int y = cy + oy;
                mdl_real sy = 0;
                if (y < 0 || y >= nc.y) {
                    if (!b.periodic[1])
                        continue;
                    sy = y < 0 ? -m.len[1] : m.len[1];
                    y = y < 0 ? y + nc.y : y - nc.y;
                }
                for (int ox = -1; ox <= 1; ox++) {
                    int x = cx + ox;
                    mdl_real sx = 0;
                    if (x < 0 || x >= nc.x) {
                        if (!b.periodic[0])
                            continue;
                        sx = x < 0 ? -m.len[0] : m.len[0];
                        x = x < 0 ? x + nc.x : x - nc.x;
                    }
                    int c = (z * nc.y + y) * nc.x + x;
                    /* j's image sits at pj + s: compare with i moved by -s */
                    const mdl_real xi = pi.x - sx, yi = pi.y - sy, zi = pi.z - sz;
                    int je = end[c];
                    for (int j = start[c]; j < je; j++) {
                        real4 pj = load4(&pos[j]);
                        mdl_real dx = xi - pj.x, dy = yi - pj.y, dz = zi - pj.z;
                        if (dx * dx + dy * dy + dz * dz < rlist2 && j != i)
                            emit(k++, j);
                    }
                }
            }
        }
    } else {
        int sx[3], sy[3], sz[3];
        int w[3]; /* which cells are reached through the boundary: not needed here */
        int mx = cell_stencil_1d(cx, nc.x, b.periodic[0], sx, w);
        int my = cell_stencil_1d(cy, nc.y, b.periodic[1], sy, w);
        int mz = cell_stencil_1d(cz, nc.z, b.periodic[2], sz, w);
        for (int a = 0; a < mz; a++)
            for (int bb = 0; bb < my; bb++)
                for (int d = 0; d < mx; d++) {
                    int c = (sz[a] * nc.y + sy[bb]) * nc.x + sx[d];
                    int je = end[c];
                    for (int j = start[c]; j < je; j++) {
                        if (j != i && distance2(pi, load4(&pos[j]), m) < rlist2)
                            emit(k++, j);
                    }
                }
    }
    return k;
}

/* One thread per atom, writing its row as it goes (used when the staging would not fit). */
template <bool SHIFTED>
__global__ void build_cell_kernel(int n, mdl_box b, image_lengths m, int3 nc, const int *start, const int *end,
                                  const real4 *__restrict__ pos, mdl_real rlist2, int *nl, int *count, int capacity,
                                  int si, int sk, int *flags)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int k = scan_cells<SHIFTED>(i, pos[i], b, m, nc, start, end, pos, rlist2,
                                [&](int kk, int j) { put(nl, i, kk, j, capacity, si, sk); });
    finish_row(count, flags, i, k, capacity);
}

#define STAGE_BLOCK 64

/* The same scan, rows staged in shared memory (k-major: conflict-free whatever k each thread is
   at), then written out by the whole block so that consecutive threads store consecutive
   addresses: NL[k*N + i] along i (transposed) or NL[i*M + k] along k (row). */
template <bool SHIFTED>
__global__ void __launch_bounds__(STAGE_BLOCK) build_cell_staged_kernel(
    int n, mdl_box b, image_lengths m, int3 nc, const int *start, const int *end, const real4 *__restrict__ pos,
    mdl_real rlist2, int *nl, int *count, int capacity, int si, int sk, int *flags)
{
    extern __shared__ int stage[];
    __shared__ int kept[STAGE_BLOCK];
    __shared__ int kmax;
    const int t = threadIdx.x, base = blockIdx.x * STAGE_BLOCK, i = base + t;
    if (t == 0)
        kmax = 0;
    __syncthreads();
    int k = 0;
    if (i < n) {
        k = scan_cells<SHIFTED>(i, pos[i], b, m, nc, start, end, pos, rlist2, [&](int kk, int j) {
            if (kk < capacity)
                stage[kk * STAGE_BLOCK + t] = j;
        });
        finish_row(count, flags, i, k, capacity);
        atomicMax(&kmax, min(k, capacity));
    }
    kept[t] = min(k, capacity);
    __syncthreads();
    const int rows = min(STAGE_BLOCK, n - base), K = kmax;
    if (si == 1) {
        for (int f = t; f < K * STAGE_BLOCK; f += STAGE_BLOCK) {
            int kk = f / STAGE_BLOCK, tt = f % STAGE_BLOCK;
            if (tt < rows && kk < kept[tt])
                nl[(size_t)kk * sk + base + tt] = stage[f];
        }
    } else {
        for (int f = t; f < rows * K; f += STAGE_BLOCK) {
            int tt = f / K, kk = f % K;
            if (kk < kept[tt])
                nl[(size_t)(base + tt) * si + kk] = stage[kk * STAGE_BLOCK + tt];
        }
    }
}

extern "C" int gpu_build_cell(size_t n, mdl_box box, const int nc[3], const int *cell_start, const int *cell_end,
                              const mdl_real *pos4, double rlist, int *nl, int *count, int capacity, int si, int sk,
                              int *flags)
{
    bool shifted = true;
    for (int d = 0; d < 3; d++)
        shifted &= !box.periodic[d] || nc[d] >= 3;
    image_lengths m = make_image_lengths(box);
    int3 c3 = make_int3(nc[0], nc[1], nc[2]);
    mdl_real r2 = (mdl_real)(rlist * rlist);
    const real4 *p = (const real4 *)pos4;
    size_t smem = (size_t)STAGE_BLOCK * capacity * sizeof(int);
    if (smem <= 160 * 1024) {
        unsigned g = grid_for(n, STAGE_BLOCK);
        if (smem > 48 * 1024) {
            MDL_CUDA(cudaFuncSetAttribute(build_cell_staged_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          (int)smem));
            MDL_CUDA(cudaFuncSetAttribute(build_cell_staged_kernel<false>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        }
        if (shifted)
            build_cell_staged_kernel<true><<<g, STAGE_BLOCK, smem, g_mdl_stream>>>((int)n, box, m, c3, cell_start,
                cell_end, p, r2,
                                                                     nl, count, capacity, si, sk, flags);
        else
            build_cell_staged_kernel<false><<<g, STAGE_BLOCK, smem, g_mdl_stream>>>((int)n, box, m, c3, cell_start,
                cell_end, p, r2,
                                                                      nl, count, capacity, si, sk, flags);
    } else {
        unsigned g = grid_for(n, MDL_BLOCK);
        if (shifted)
            build_cell_kernel<true><<<g, MDL_BLOCK, 0, g_mdl_stream>>>((int)n, box, m, c3, cell_start, cell_end, p,
                r2, nl, count,
                                                      capacity, si, sk, flags);
        else
            build_cell_kernel<false><<<g, MDL_BLOCK, 0, g_mdl_stream>>>((int)n, box, m, c3, cell_start, cell_end, p,
                r2, nl, count,
                                                       capacity, si, sk, flags);
    }
    MDL_LAUNCHED("build_cell");
    return 0;
}

/* Full list by brute force: thread i scans every j != i; the count stays in a register. */
__global__ void build_brute_kernel(int n, image_lengths m, const real4 *__restrict__ pos, mdl_real rlist2, int *nl,
                                   int *count, int capacity, int si, int sk, int *flags)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    real4 pi = pos[i];
    int k = 0;
    for (int j = 0; j < n; j++) {
        if (j != i && distance2(pi, load4(&pos[j]), m) < rlist2)
            put(nl, i, k++, j, capacity, si, sk);
    }
    finish_row(count, flags, i, k, capacity);
}

extern "C" int gpu_build_brute(size_t n, mdl_box box, const mdl_real *pos4, double rlist, int *nl, int *count,
                               int capacity, int si, int sk, int *flags)
{
    build_brute_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, make_image_lengths(box),
        (const real4 *)pos4,
                                                              (mdl_real)(rlist * rlist), nl, count, capacity, si, sk,
                                                              flags);
    MDL_LAUNCHED("build_brute");
    return 0;
}

/* Half pairs (j > i), each appended to both rows: the slot is the value atomicAdd returns. */
__global__ void build_brute_atomic_kernel(int n, image_lengths m, const real4 *__restrict__ pos, mdl_real rlist2,
                                          int *nl, int *count, int capacity, int si, int sk, int *flags)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    real4 pi = pos[i];
    for (int j = i + 1; j < n; j++) {
        if (distance2(pi, load4(&pos[j]), m) < rlist2) {
            int ki = atomicAdd(&count[i], 1);
            int kj = atomicAdd(&count[j], 1);
            put(nl, i, ki, j, capacity, si, sk);
            put(nl, j, kj, i, capacity, si, sk);
            if (ki >= capacity || kj >= capacity)
                atomicMax(&flags[1], max(ki, kj) + 1);
        }
    }
}

extern "C" int gpu_build_brute_atomic(size_t n, mdl_box box, const mdl_real *pos4, double rlist, int *nl, int *count,
                                      int capacity, int si, int sk, int *flags)
{
    MDL_CUDA(cudaMemsetAsync(count, 0, n * sizeof(int), g_mdl_stream));
    build_brute_atomic_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, make_image_lengths(box),
                                                                     (const real4 *)pos4, (mdl_real)(rlist * rlist), nl,
                                                                     count, capacity, si, sk, flags);
    MDL_LAUNCHED("build_brute_atomic");
    return 0;
}

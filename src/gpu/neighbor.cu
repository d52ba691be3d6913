// GPU neighbor lists: three full-list builders -- cell (O(N), 27 cells: a thread or 8 lanes per
// atom staging rows in shared memory; from 65,536 atoms the warp builder of warp_builder.cu),
// brute (O(N^2), no atomics), brute-atomic (half pairs appended to both rows with atomicAdd) --
// written NL[i * si + k * sk]. The atoms they read are binned and sorted by cells.cu; pruned
// lists are prune.cu's.
#include "../physics/cells.h"
#include "neighbor.cuh"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

// ---- builders -----------------------------------------------------------------------------------

/* Row i's 16-bit entry for atom j, with one rank (gpu.h's GPU_ROWS_RELATIVE). */
__device__ __forceinline__ int relative_entry(int i, int j, int n)
{
    return j >= i ? j - i : j - i + n;
}

/* The candidates j0 .. j1 - 1 of one cell, emit(k, j) for the k-th neighbor j in candidate order;
   returns the count so far. T > 1 lanes per atom (lane s of the group that starts at lane `base`)
   test every T-th candidate from j0 + s and a ballot places each round's kept ones; the whole warp
   runs the same rounds (its longest range), so that its groups stay converged. */
template <int T, typename Test, typename Emit>
__device__ __forceinline__ int scan_range(int j0, int j1, int k, int s, int base, Test test, Emit emit)
{
    if (T == 1) {
        for (int j = j0; j < j1; j++)
            if (test(j))
                emit(k++, j);
        return k;
    }
    const int rounds = __reduce_max_sync(0xffffffffu, (j1 - j0 + T - 1) / T);
    for (int r = 0; r < rounds; r++) {
        const int j = j0 + r * T + s;
        const bool keep = j < j1 && test(j);
        const unsigned bits = (__ballot_sync(0xffffffffu, keep) >> base) & ((1u << T) - 1);
        if (keep)
            emit(k + __popc(bits & ((1u << s) - 1)), j);
        k += __popc(bits);
    }
    return k;
}

/* The 27 cells around i's cell, calling emit(k, j) for the k-th neighbor j; returns the count.
   With at least 3 cells along every periodic dimension (SHIFTED), each neighbor cell is one
   periodic image: its shift is applied to i once per cell and the candidate loop needs no
   minimum image. Otherwise (2 or 1 cells, where +1 and -1 are the same cell) the distinct cells
   are scanned with the minimum image per pair. T > 1 lanes per atom share each cell's candidates
   (scan_range): every lane of the warp goes through the same cells, a cell that does not exist
   or an atom that is not `live` (past the last) with an empty range. */
template <bool SHIFTED, int T = 1, typename Emit>
__device__ __forceinline__ int scan_cells(int i, bool live, real4 pi, const mdl_box &b, const image_lengths &m,
                                          int3 nc, const int *start, const int *end, const int *gstart,
                                          const int *gend, const pos_t *__restrict__ pos, mdl_real rlist2, Emit emit)
{
    const int s = (int)(threadIdx.x % T), base = (int)(threadIdx.x & 31) & ~(T - 1);
    const int3 ci = cell_coords(pi, b, nc);
    const int cx = ci.x, cy = ci.y, cz = ci.z;
    int k = 0;
    /* the atoms of cell c (then its ghosts), or none */
    const auto scan_cell = [&](bool in, int c, auto test) {
        for (int part = 0; part < (gstart ? 2 : 1); part++)
            k = scan_range<T>(in ? (part ? gstart[c] : start[c]) : 0, in ? (part ? gend[c] : end[c]) : 0, k, s, base,
                              test, emit);
    };
    if (SHIFTED) {
        for (int oz = -1; oz <= 1; oz++) {
            int z = cz + oz;
            mdl_real sz = 0;
            bool in = live;
            if (z < 0 || z >= nc.z) {
                if (!b.periodic[2] && T == 1)
                    continue;
                in = in && b.periodic[2];
                sz = z < 0 ? -m.len[2] : m.len[2];
                z = z < 0 ? z + nc.z : z - nc.z;
            }
            for (int oy = -1; oy <= 1; oy++) {
                int y = cy + oy;
                mdl_real sy = 0;
                bool iny = in;
                if (y < 0 || y >= nc.y) {
                    if (!b.periodic[1] && T == 1)
                        continue;
                    iny = iny && b.periodic[1];
                    sy = y < 0 ? -m.len[1] : m.len[1];
                    y = y < 0 ? y + nc.y : y - nc.y;
                }
                for (int ox = -1; ox <= 1; ox++) {
                    int x = cx + ox;
                    mdl_real sx = 0;
                    bool inx = iny;
                    if (x < 0 || x >= nc.x) {
                        if (!b.periodic[0] && T == 1)
                            continue;
                        inx = inx && b.periodic[0];
                        sx = x < 0 ? -m.len[0] : m.len[0];
                        x = x < 0 ? x + nc.x : x - nc.x;
                    }
                    /* j's image sits at pj + s: compare with i moved by -s */
                    const mdl_real xi = pi.x - sx, yi = pi.y - sy, zi = pi.z - sz;
                    scan_cell(inx, (z * nc.y + y) * nc.x + x, [&](int j) {
                        real4 pj = load4(pos, j);
                        mdl_real dx = xi - pj.x, dy = yi - pj.y, dz = zi - pj.z;
                        return dx * dx + dy * dy + dz * dz < rlist2 && j != i;
                    });
                }
            }
        }
    } else {
        int sx[3], sy[3], sz[3];
        int w[3]; /* which cells are reached through the boundary: not needed here */
        int mx = cell_stencil_1d(cx, nc.x, b.periodic[0], sx, w);
        int my = cell_stencil_1d(cy, nc.y, b.periodic[1], sy, w);
        int mz = cell_stencil_1d(cz, nc.z, b.periodic[2], sz, w);
        for (int a = 0; a < (T == 1 ? mz : 3); a++)
            for (int bb = 0; bb < (T == 1 ? my : 3); bb++)
                for (int d = 0; d < (T == 1 ? mx : 3); d++) {
                    const bool in = live && a < mz && bb < my && d < mx;
                    scan_cell(in, in ? (sz[a] * nc.y + sy[bb]) * nc.x + sx[d] : 0,
                              [&](int j) { return j != i && distance2(pi, load4(pos, j), m) < rlist2; });
                }
    }
    return k;
}

/* Cell q (0..26: z, then y, then x offset, ascending) of the 27 around cell ci for scan_cells_shared:
   its atoms j0 .. j1 - 1 (none where it does not exist, for q past 26, or where not `live`), and
   where the cell was reached through a periodic face, its image's shift as two bits per dimension
   (bit 2d: -len, bit 2d + 1: +len). */
__device__ __forceinline__ void cell_range_of(int q, bool live, int3 ci, const mdl_box &b, int3 nc, const int *start,
                                              const int *end, int &j0, int &j1, int &shift)
{
    const int o[3] = {q % 3 - 1, q / 3 % 3 - 1, q / 9 - 1}, c[3] = {ci.x, ci.y, ci.z}, len[3] = {nc.x, nc.y, nc.z};
    int at[3];
    bool in = live && q < 27;
    shift = 0;
    for (int d = 0; d < 3; d++) {
        at[d] = c[d] + o[d];
        if (at[d] < 0 || at[d] >= len[d]) {
            in = in && b.periodic[d];
            shift |= (at[d] < 0 ? 1 : 2) << (2 * d);
            at[d] = at[d] < 0 ? at[d] + len[d] : at[d] - len[d];
        }
    }
    const int cell = (at[2] * nc.y + at[1]) * nc.x + at[0];
    j0 = in ? start[cell] : 0;
    j1 = in ? end[cell] : 0;
}

/* The image shift of dimension d from cell_range_of's bits. */
__device__ __forceinline__ mdl_real image_shift(int shift, int d, const image_lengths &m)
{
    return shift >> (2 * d) & 1 ? -m.len[d] : shift >> (2 * d) & 2 ? m.len[d] : (mdl_real)0;
}

/* scan_cells for T > 1 lanes per atom with one rank (no ghosts) and at least 3 cells along every
   periodic dimension: the same cells, candidates, tests and order. The lanes of an atom's group
   share its cells' set-up: lane s finds cells s, s + T, ... (their ranges and shifts) before the
   scan, and the group's lanes take each cell's from it by shuffles, where each lane used to work
   out every cell. */
template <int T, typename Emit>
__device__ __forceinline__ int scan_cells_shared(int i, bool live, real4 pi, const mdl_box &b, const image_lengths &m,
                                                 int3 nc, const int *start, const int *end,
                                                 const pos_t *__restrict__ pos, mdl_real rlist2, Emit emit)
{
    constexpr int U = (27 + T - 1) / T;
    const unsigned all = 0xffffffffu;
    const int s = (int)(threadIdx.x % T), base = (int)(threadIdx.x & 31) & ~(T - 1);
    const int3 ci = cell_coords(pi, b, nc);
    int j0[U], j1[U], shift[U];
#pragma unroll
    for (int u = 0; u < U; u++)
        cell_range_of(s + u * T, live, ci, b, nc, start, end, j0[u], j1[u], shift[u]);
    int k = 0;
#pragma unroll
    for (int u = 0; u < U; u++)
        for (int t = 0; t < T && u * T + t < 27; t++) {
            const int a0 = __shfl_sync(all, j0[u], t, T), a1 = __shfl_sync(all, j1[u], t, T);
            const int sh = __shfl_sync(all, shift[u], t, T);
            /* j's image sits at pj + shift: compare with i moved by -shift */
            const mdl_real xi = pi.x - image_shift(sh, 0, m), yi = pi.y - image_shift(sh, 1, m),
                           zi = pi.z - image_shift(sh, 2, m);
            k = scan_range<T>(a0, a1, k, s, base,
                              [&](int j) {
                                  const real4 pj = load4(pos, j);
                                  const mdl_real dx = xi - pj.x, dy = yi - pj.y, dz = zi - pj.z;
                                  return dx * dx + dy * dy + dz * dz < rlist2 && j != i;
                              },
                              emit);
        }
    return k;
}


/* One thread per atom, writing its row as it goes (used when the staging would not fit); rel:
   16-bit entries (GPU_ROWS_RELATIVE). */
template <bool SHIFTED, bool MOVING>
__global__ void build_cell_kernel(int n, const __grid_constant__ gpu_grid grid, const gpu_grid *moving, const int *start,
                                  const int *end, const int *gstart, const int *gend, const pos_t *__restrict__ pos,
                                  mdl_real rlist2, int *nl, int *count, int capacity, int si, int sk, int *flags,
                                  bool rel)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    KERNEL_GRID(MOVING, grid, moving);
    const real4 pi = pos_at(pos, i);
    int k = scan_cells<SHIFTED>(i, true, pi, b, m, nc, start, end, gstart, gend, pos, rlist2, [&](int kk, int j) {
        if (!rel)
            put(nl, i, kk, j, capacity, si, sk);
        else if (kk < 2 * capacity)
            put_packed(nl, i, kk, sk, relative_entry(i, j, n));
    });
    finish_row(count, flags, i, k, capacity, rel ? 2 : 1);
}

#define STAGE_BLOCK 64

/* The same scan, rows staged in shared memory (k-major: a thread per atom stores without bank
   conflicts whatever k it is at), then written out by the whole block so that consecutive threads store consecutive
   addresses: NL[k*N + i] along i (transposed) or NL[i*M + k] along k (row); rel: 16-bit entries
   (GPU_ROWS_RELATIVE), two to an int. T lanes per atom (STAGE_BLOCK threads, STAGE_BLOCK / T atoms
   per block) share each cell's candidates; without ghosts (GHOSTS false: one rank) and with 3 or
   more cells along periodic dimensions, also the cells' set-up (scan_cells_shared: 8 lanes at
   32,000 atoms, H100: 71.4 -> 61.8 us, 46.0 -> 39.8 M warp instructions). */
template <bool SHIFTED, int T, bool GHOSTS, bool MOVING>
__global__ void __launch_bounds__(STAGE_BLOCK) build_cell_staged_kernel(
    int n, const __grid_constant__ gpu_grid grid, const gpu_grid *moving, const int *start, const int *end,
    const int *gstart, const int *gend, const pos_t *__restrict__ pos, mdl_real rlist2, int *nl, int *count,
    int capacity, int si, int sk, int *flags, bool rel)
{
    KERNEL_GRID(MOVING, grid, moving);
    constexpr int ATOMS = STAGE_BLOCK / T;
    const int holds = rel ? 2 * capacity : capacity; /* the entries a row holds */
    extern __shared__ int stage[];
    __shared__ int kept[ATOMS];
    __shared__ int kmax;
    const int t = threadIdx.x, a = t / T, base = blockIdx.x * ATOMS, i = base + a;
    if (t == 0)
        kmax = 0;
    __syncthreads();
    int k = 0;
    const bool live = i < n;
    if (T > 1 || live) { /* with lanes, whole warps (scan_cells) */
        const auto emit = [&](int kk, int j) {
            if (kk < holds)
                stage[kk * ATOMS + a] = rel ? relative_entry(i, j, n) : j;
        };
        const real4 pi = pos_at(pos, live ? i : 0);
        if (SHIFTED && T > 1 && !GHOSTS)
            k = scan_cells_shared<T>(i, live, pi, b, m, nc, start, end, pos, rlist2, emit);
        else
            k = scan_cells<SHIFTED, T>(i, live, pi, b, m, nc, start, end, gstart, gend, pos, rlist2, emit);
        if (live && t % T == 0) {
            finish_row(count, flags, i, k, capacity, rel ? 2 : 1);
            atomicMax(&kmax, min(k, holds));
        }
    }
    if (t % T == 0)
        kept[a] = min(k, holds);
    __syncthreads();
    const int rows = min(ATOMS, n - base), K = kmax;
    if (rel) { /* transposed: int q of a row holds its entries 2q (low half) and 2q + 1 */
        for (int f = t; f < (K + 1) / 2 * ATOMS; f += STAGE_BLOCK) {
            const int q = f / ATOMS, tt = f % ATOMS, e = 2 * q;
            if (tt < rows && e < kept[tt]) {
                const unsigned hi = e + 1 < kept[tt] ? (unsigned)stage[(e + 1) * ATOMS + tt] << 16 : 0u;
                nl[(size_t)q * sk + base + tt] = (int)((unsigned)stage[e * ATOMS + tt] | hi);
            }
        }
    } else if (si == 1) {
        for (int f = t; f < K * ATOMS; f += STAGE_BLOCK) {
            int kk = f / ATOMS, tt = f % ATOMS;
            if (tt < rows && kk < kept[tt])
                nl[(size_t)kk * sk + base + tt] = stage[f];
        }
    } else {
        for (int f = t; f < rows * K; f += STAGE_BLOCK) {
            int tt = f / K, kk = f % K;
            if (kk < kept[tt])
                nl[(size_t)(base + tt) * si + kk] = stage[kk * ATOMS + tt];
        }
    }
}

/* Lanes per atom in the staged builder. A thread per atom leaves the GPU waiting on each thread's
   ~500 candidates in turn: the kernel takes ~82 us from 4,000 to 32,000 atoms (H100). 8 lanes (the
   warp's groups kept converged) take 37 us at 4,000 atoms and 69 us at 32,000; whole runs 1.26x at
   4,000, 1.05x at 32,000, 1.00x at 37,044, 0.97x at 42,592, where their ballots cost more than
   they hide. Where the lanes share the cells' set-up too (`shared`: one rank, 3 or more cells along
   periodic dimensions), 8 lanes win up to the warp builder's size: 1.235x at 37,044 atoms, 1.135x
   at 62,500. */
static int staged_lanes(size_t n, bool shared)
{
    return shared || n < 36000 ? 8 : 1;
}

template <bool SHIFTED, int T, bool GHOSTS, bool MOVING>
static int launch_staged(size_t n, const gpu_grid &grid, const gpu_grid *moving, const int *cell_start,
                         const int *cell_end, const int *gstart, const int *gend, const pos_t *p, mdl_real r2, int *nl,
                         int *count, int capacity, int si, int sk, int *flags, bool rel)
{
    const size_t smem = (size_t)(STAGE_BLOCK / T) * (rel ? 2 : 1) * capacity * sizeof(int);
    if (smem > 48 * 1024)
        MDL_CUDA(cudaFuncSetAttribute(build_cell_staged_kernel<SHIFTED, T, GHOSTS, MOVING>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    build_cell_staged_kernel<SHIFTED, T, GHOSTS, MOVING>
        <<<grid_for(n * T, STAGE_BLOCK), STAGE_BLOCK, smem, g_mdl_stream>>>(
            (int)n, grid, moving, cell_start, cell_end, gstart, gend, p, r2, nl, count, capacity, si, sk, flags, rel);
    return 0;
}

template <bool SHIFTED, bool MOVING>
static int launch_staged_lanes(int lanes, size_t n, const gpu_grid &grid, const gpu_grid *moving,
                               const int *cell_start, const int *cell_end, const int *gstart, const int *gend,
                               const pos_t *p, mdl_real r2, int *nl, int *count, int capacity, int si, int sk,
                               int *flags, bool rel)
{
    if (lanes == 8 && SHIFTED && !gstart) /* one rank: the group's lanes share the cells' set-up */
        return launch_staged<SHIFTED, 8, !SHIFTED, MOVING>(n, grid, moving, cell_start, cell_end, gstart, gend, p,
                                                           r2, nl, count, capacity, si, sk, flags, rel);
    if (lanes == 8)
        return launch_staged<SHIFTED, 8, true, MOVING>(n, grid, moving, cell_start, cell_end, gstart, gend, p, r2,
                                                       nl, count, capacity, si, sk, flags, rel);
    return launch_staged<SHIFTED, 1, true, MOVING>(n, grid, moving, cell_start, cell_end, gstart, gend, p, r2, nl,
                                                   count, capacity, si, sk, flags, rel);
}

template <bool MOVING>
static int launch_staged_any(bool shifted, int lanes, size_t n, const gpu_grid &grid, const gpu_grid *moving,
                             const int *cell_start, const int *cell_end, const int *gstart, const int *gend,
                             const pos_t *p, mdl_real r2, int *nl, int *count, int capacity, int si, int sk,
                             int *flags, bool rel)
{
    return shifted ? launch_staged_lanes<true, MOVING>(lanes, n, grid, moving, cell_start, cell_end, gstart, gend, p,
                                                       r2, nl, count, capacity, si, sk, flags, rel)
                   : launch_staged_lanes<false, MOVING>(lanes, n, grid, moving, cell_start, cell_end, gstart, gend,
                                                        p, r2, nl, count, capacity, si, sk, flags, rel);
}

/* The warp builder from 65,536 atoms (the force kernel's switch to one lane per atom too), where it
   pays. Below, whole runs of in.lj on an H200 with it at every size: at 32,000 atoms mixed precision
   the same (0.979e9 and 0.970e9 atom-steps/s against 0.973e9 and 0.967e9), double 10% slower (0.784e9
   and 0.793e9 against 0.873e9 and 0.882e9, its rows packed through tables instead of relative to
   each row's atom); at 55,296 mixed 2.5% faster. */
static bool use_warp_builder(size_t n, bool shifted)
{
    return shifted && n >= 65536;
}

static bool shifted_cells(const mdl_box &box, const int nc[3])
{
    bool shifted = true;
    for (int d = 0; d < 3; d++)
        shifted &= !box.periodic[d] || nc[d] >= 3;
    return shifted;
}

/* Packed lists where the warp builder writes the transposed layout, in double precision: there
   they pay (2,048,000 atoms, H100: 1.539e9 -> 1.651e9 atom-steps/s). In mixed precision the force
   kernel is bound by L1 throughput (the neighbors' positions gathered: 81% of peak), not by DRAM,
   and the decoding costs more than the halved list reads save (2.54e9 -> 2.41e9). A packed row
   holds two entries per int of the capacity, so the list is allocated at half the ints (double,
   2M atoms: 661 -> 453 bytes/atom). Up to 65,536 atoms the staged builders pack them too, as
   distances in index (gpu.h). [neighbor] list = plain|packed chooses (memory against speed). */
extern "C" gpu_rows gpu_list_form(size_t n, mdl_box box, const int nc[3], int si, enum gpu_list_want want)
{
#ifdef MDLITE_GPU_DOUBLE
    const bool wanted = want != GPU_LIST_WANT_PLAIN;
#else
    const bool wanted = want == GPU_LIST_WANT_PACKED;
#endif
    if (!wanted || si != 1)
        return GPU_ROWS_PLAIN;
    return use_warp_builder(n, shifted_cells(box, nc)) ? GPU_ROWS_TABLE
                                                        : n <= 65536 ? GPU_ROWS_RELATIVE : GPU_ROWS_PLAIN;
}

extern "C" int gpu_build_cell(size_t n, gpu_grid grid, const gpu_grid *moving, const int *cell_start,
                              const int *cell_end, const gpu_ghost_cells *ghosts, const mdl_real *pos4, double rlist,
                              int *nl, int *count, int capacity, int si, int sk, int *flags, gpu_rows form, int *table)
{
    const int *gstart = ghosts ? ghosts->start : NULL, *gend = ghosts ? ghosts->end : NULL, *nc = grid.nc;
    const bool shifted = shifted_cells(grid.region, nc), rel = form == GPU_ROWS_RELATIVE;
    if (form != GPU_ROWS_TABLE)
        table = NULL;
    mdl_real r2 = (mdl_real)(rlist * rlist);
    const pos_t *p = (const pos_t *)pos4;
    const int lanes = staged_lanes(n, shifted && !gstart);
    const size_t smem = (size_t)(STAGE_BLOCK / lanes) * (rel ? 2 : 1) * capacity * sizeof(int);
    if (use_warp_builder(n, shifted)) {
        const int *lo = ghosts ? ghosts->lo : nc, *hi = ghosts ? ghosts->hi : nc; /* no ghosts: unused */
        const int3 free_lo = make_int3(lo[0], lo[1], lo[2]), free_hi = make_int3(hi[0], hi[1], hi[2]);
        launch_warp_builder(n, grid, moving, cell_start, cell_end, gstart, gend, free_lo, free_hi, p, r2, nl, count,
                            capacity, si, sk, flags, table);
    } else if (smem <= 160 * 1024) {
        if ((moving ? launch_staged_any<true>(shifted, lanes, n, grid, moving, cell_start, cell_end, gstart, gend, p,
                                              r2, nl, count, capacity, si, sk, flags, rel)
                    : launch_staged_any<false>(shifted, lanes, n, grid, moving, cell_start, cell_end, gstart, gend, p,
                                               r2, nl, count, capacity, si, sk, flags, rel)) != 0)
            return 1;
    } else {
        unsigned g = grid_for(n, MDL_BLOCK);
#define BUILD_CELL(SHIFTED, MOVING)                                                                            \
    build_cell_kernel<SHIFTED, MOVING><<<g, MDL_BLOCK, 0, g_mdl_stream>>>(                                      \
        (int)n, grid, moving, cell_start, cell_end, gstart, gend, p, r2, nl, count, capacity, si, sk, flags, rel)
        if (shifted && moving)
            BUILD_CELL(true, true);
        else if (shifted)
            BUILD_CELL(true, false);
        else if (moving)
            BUILD_CELL(false, true);
        else
            BUILD_CELL(false, false);
#undef BUILD_CELL
    }
    MDL_LAUNCHED("build_cell");
    return 0;
}

/* Full list by brute force: thread i scans every j != i; the count stays in a register. */
__global__ void build_brute_kernel(int n, const gpu_grid *grid, const pos_t *__restrict__ pos, mdl_real rlist2, int *nl,
                                   int *count, int capacity, int si, int sk, int *flags)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const image_lengths m = {{grid->len[0], grid->len[1], grid->len[2]}, {grid->inv[0], grid->inv[1], grid->inv[2]}};
    const real4 pi = pos_at(pos, i);
    int k = 0;
    for (int j = 0; j < n; j++) {
        if (j != i && distance2(pi, load4(pos, j), m) < rlist2)
            put(nl, i, k++, j, capacity, si, sk);
    }
    finish_row(count, flags, i, k, capacity);
}

extern "C" int gpu_build_brute(size_t n, const gpu_grid *grid, const mdl_real *pos4, double rlist, int *nl, int *count,
                               int capacity, int si, int sk, int *flags)
{
    build_brute_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>(
        (int)n, grid, (const pos_t *)pos4, (mdl_real)(rlist * rlist), nl, count, capacity, si, sk, flags);
    MDL_LAUNCHED("build_brute");
    return 0;
}

/* Half pairs (j > i), each appended to both rows: the slot is the value atomicAdd returns. */
__global__ void build_brute_atomic_kernel(int n, const gpu_grid *grid, const pos_t *__restrict__ pos, mdl_real rlist2,
                                          int *nl, int *count, int capacity, int si, int sk, int *flags)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const image_lengths m = {{grid->len[0], grid->len[1], grid->len[2]}, {grid->inv[0], grid->inv[1], grid->inv[2]}};
    const real4 pi = pos_at(pos, i);
    for (int j = i + 1; j < n; j++) {
        if (distance2(pi, load4(pos, j), m) < rlist2) {
            int ki = atomicAdd(&count[i], 1);
            int kj = atomicAdd(&count[j], 1);
            put(nl, i, ki, j, capacity, si, sk);
            put(nl, j, kj, i, capacity, si, sk);
            if (ki >= capacity || kj >= capacity)
                atomicMax(&flags[1], max(ki, kj) + 1);
        }
    }
}

extern "C" int gpu_build_brute_atomic(size_t n, const gpu_grid *grid, const mdl_real *pos4, double rlist, int *nl,
                                      int *count, int capacity, int si, int sk, int *flags)
{
    MDL_CUDA(cudaMemsetAsync(count, 0, n * sizeof(int), g_mdl_stream));
    build_brute_atomic_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>(
        (int)n, grid, (const pos_t *)pos4, (mdl_real)(rlist * rlist), nl, count, capacity, si, sk, flags);
    MDL_LAUNCHED("build_brute_atomic");
    return 0;
}

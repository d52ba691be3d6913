// GPU neighbor lists: three full-list builders -- cell (O(N), 27 cells; by warps from 65,536
// atoms), brute (O(N^2), no atomics), brute-atomic (half pairs appended to both rows with
// atomicAdd) -- written NL[i * si + k * sk]; and the prune of an outer list into the list the
// forces read. The atoms they read are binned and sorted by cells.cu.
#include "../physics/cells.h"
#include "common.cuh"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

/* Entry k of packed row i (transposed: half k % 2 of int k / 2, the low half for even k). */
__device__ __forceinline__ void put_packed(int *nl, int i, int k, int sk, int e)
{
    ((unsigned short *)nl)[((size_t)(k >> 1) * sk + i) * 2 + (k & 1)] = (unsigned short)e;
}

/* Row i has k entries; past what it holds (capacity ints, per_int entries to an int) it asks for
   the ints it needs. */
__device__ __forceinline__ void finish_row(int *count, int *flags, int i, int k, int capacity, int per_int = 1)
{
    count[i] = k;
    if (k > capacity * per_int)
        atomicMax(&flags[1], (k + per_int - 1) / per_int);
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

/* Row i's 16-bit entry for atom j, with one rank (gpu.h's GPU_ROWS_RELATIVE). */
__device__ __forceinline__ int relative_entry(int i, int j, int n)
{
    return j >= i ? j - i : j - i + n;
}

/* One thread per atom, writing its row as it goes (used when the staging would not fit); rel:
   16-bit entries (GPU_ROWS_RELATIVE). */
template <bool SHIFTED>
__global__ void build_cell_kernel(int n, mdl_box b, image_lengths m, int3 nc, const int *start, const int *end,
                                  const int *gstart, const int *gend, const pos_t *__restrict__ pos, mdl_real rlist2,
                                  int *nl, int *count, int capacity, int si, int sk, int *flags, bool rel)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
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
template <bool SHIFTED, int T, bool GHOSTS>
__global__ void __launch_bounds__(STAGE_BLOCK) build_cell_staged_kernel(
    int n, mdl_box b, image_lengths m, int3 nc, const int *start, const int *end, const int *gstart,
    const int *gend, const pos_t *__restrict__ pos, mdl_real rlist2, int *nl, int *count, int capacity, int si,
    int sk, int *flags, bool rel)
{
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

template <bool SHIFTED, int T, bool GHOSTS = true>
static int launch_staged(size_t n, const mdl_box &box, const image_lengths &m, int3 c3, const int *cell_start,
                         const int *cell_end, const int *gstart, const int *gend, const pos_t *p, mdl_real r2, int *nl,
                         int *count, int capacity, int si, int sk, int *flags, bool rel)
{
    const size_t smem = (size_t)(STAGE_BLOCK / T) * (rel ? 2 : 1) * capacity * sizeof(int);
    if (smem > 48 * 1024)
        MDL_CUDA(cudaFuncSetAttribute(build_cell_staged_kernel<SHIFTED, T, GHOSTS>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    build_cell_staged_kernel<SHIFTED, T, GHOSTS><<<grid_for(n * T, STAGE_BLOCK), STAGE_BLOCK, smem, g_mdl_stream>>>(
        (int)n, box, m, c3, cell_start, cell_end, gstart, gend, p, r2, nl, count, capacity, si, sk, flags, rel);
    return 0;
}

template <bool SHIFTED>
static int launch_staged_lanes(int lanes, size_t n, const mdl_box &box, const image_lengths &m, int3 c3,
                               const int *cell_start, const int *cell_end, const int *gstart, const int *gend,
                               const pos_t *p, mdl_real r2, int *nl, int *count, int capacity, int si, int sk,
                               int *flags, bool rel)
{
    if (lanes == 8 && SHIFTED && !gstart) /* one rank: the group's lanes share the cells' set-up */
        return launch_staged<SHIFTED, 8, !SHIFTED>(n, box, m, c3, cell_start, cell_end, gstart, gend, p, r2, nl,
                                                   count, capacity, si, sk, flags, rel);
    if (lanes == 8)
        return launch_staged<SHIFTED, 8>(n, box, m, c3, cell_start, cell_end, gstart, gend, p, r2, nl, count,
                                         capacity, si, sk, flags, rel);
    return launch_staged<SHIFTED, 1>(n, box, m, c3, cell_start, cell_end, gstart, gend, p, r2, nl, count, capacity,
                                     si, sk, flags, rel);
}

/* ---- the warp builder (at least 3 cells along every periodic dimension) ----
   The 32 atoms of a warp are consecutive in cell order, so they lie in one or a few rows of cells
   (cells along x with the same y and z). For the atoms of one row, the union of their 27
   neighbor cells is, in each of the 9 rows around it, the cells x_lo - 1 .. x_hi + 1: one run of
   atoms (they are sorted by cell), plus a wrapped cell at an end that crosses a periodic face (its image
   shifted by the box length; with 3 or more cells, at most one image of an atom is in range). The
   warp reads a range 32 candidates at a time into shared memory and every lane tests each of them
   against its own atom, all lanes reading the same one at once (a broadcast), so the loop waits on
   neither a global load per thread nor divergent cells. A tile's 32 tests set bits of a mask, with
   no dependence between them; the kept candidates are written after the tile. Rows of the list
   come out in the order of the 27 cells (z, then y, then x, ascending; images as reached), as a
   thread per atom would.
   Each lane keeps its newest RING_SLOTS entries in a ring in shared memory; the warp writes them
   out together when a lane's ring could overflow, and at the end, consecutive lanes to consecutive
   addresses in the transposed layout. The ring, not the row, is what sits in shared memory, so
   occupancy does not fall as the list grows. */
#define WARP_BUILD_BLOCK 128
#ifndef RING_SLOTS
#define RING_SLOTS 64 /* a power of 2 */
#endif

struct warp_rows {
    int *nl, *ring; /* ring: RING_SLOTS x 32 ints, this warp's; entry k at slot k % RING_SLOTS */
    int i, lane, capacity, si, sk;
    bool active; /* the lane has an atom */
    bool packed; /* 16-bit entries, two to an int (gpu.h); else one atom index per int */
    int k, written, at; /* entries found; entries already out of the ring; 32 x the slot of entry k */

    /* The tile's candidates whose bits are set (bit q: entry + q) go to the next slots, in order. */
    __device__ __forceinline__ void keep(int entry, unsigned bits)
    {
        for (; bits; bits &= bits - 1) {
            ring[at + lane] = entry + __ffs(bits) - 1;
            at = (at + 32) & (RING_SLOTS * 32 - 1);
            k++;
        }
    }
    /* Every lane's entries written .. k - 1 leave the ring: those the row holds (capacity ints, two
       entries to an int when packed) go to nl, row by row across the warp; the others are only
       counted. Each lane walks its address along its row rather than working it out per slot (the
       flush was a quarter of the builder's instructions). CAN_PACK: the kernel may pack rows; its
       rare warps of atom indices keep the per-slot form (the walk made that kernel slower there). */
    template <bool CAN_PACK>
    __device__ void flush()
    {
        const unsigned all = 0xffffffffu;
        const int holds = packed ? 2 * capacity : capacity;
        int to = active ? min(k, holds) : 0, from = active ? min(written, holds) : 0;
        int lo = __reduce_min_sync(all, from), hi = __reduce_max_sync(all, to);
        if (!CAN_PACK) {
            int *out = nl + (size_t)i * si + (size_t)lo * sk;
            for (int s = lo; s < hi; s++, out += sk)
                if (s >= from && s < to)
                    *out = ring[(s % RING_SLOTS) * 32 + lane];
        } else if (packed) { /* entry s: half s % 2 of int s / 2; the next int is sk further */
            unsigned short *out = (unsigned short *)nl + ((size_t)(lo >> 1) * sk + i) * 2 + (lo & 1);
            for (int s = lo; s < hi; s++) {
                if (s >= from && s < to)
                    *out = (unsigned short)ring[(s % RING_SLOTS) * 32 + lane];
                out += s & 1 ? 2 * sk - 1 : 1;
            }
        } else {
            for (int s = lo; s < hi; s++)
                if (s >= from && s < to)
                    nl[(size_t)i * si + (size_t)s * sk] = ring[(s % RING_SLOTS) * 32 + lane];
        }
        written = k;
    }
    /* Before up to 32 more entries: make room if a lane's ring could fill (the slot being offered
       must never hold an entry still in the ring). */
    template <bool CAN_PACK>
    __device__ void make_room()
    {
        if (__any_sync(0xffffffffu, k - written > RING_SLOTS - 33))
            flush<CAN_PACK>();
    }
};

/* Bit q set when candidate q of a tile (its position pj) is within the list radius of the lane's
   atom at (xi, yi, zi); r2 is negative for lanes not in this pass. */
__device__ __forceinline__ unsigned in_range(mdl_real xi, mdl_real yi, mdl_real zi, real4 pj, int q, mdl_real r2)
{
    mdl_real dx = xi - pj.x, dy = yi - pj.y, dz = zi - pj.z;
    return dx * dx + dy * dy + dz * dz < r2 ? 1u << q : 0u;
}

/* One range of candidates: atoms j0 .. j1 - 1, their image at shift (sx, sy, sz). */
struct candidates {
    int j0, j1;
    mdl_real sx, sy, sz;
};

/* Range number s (0..26) of a pass for the warp's atoms in the row of cells (y0, z0), whose cells
   along x are xlo + 1 .. xhi - 1: row s / 3 of the 9 rows around it (z, then y, ascending), and in
   it part s % 3: the wrapped cell before (the last one, through a periodic face), the cells xlo ..
   xhi inside the box, the wrapped cell after (the first one). Empty where there is nothing. */
__device__ candidates range_of_row(int s, const mdl_box &b, const image_lengths &m, int3 nc, int y0, int z0, int xlo,
                                   int xhi, const int *start, const int *end)
{
    candidates c = {0, 0, 0, 0, 0};
    int z = z0 + s / 9 - 1, y = y0 + s / 3 % 3 - 1, part = s % 3;
    if (z < 0 || z >= nc.z) {
        if (!b.periodic[2])
            return c;
        c.sz = z < 0 ? -m.len[2] : m.len[2];
        z = z < 0 ? z + nc.z : z - nc.z;
    }
    if (y < 0 || y >= nc.y) {
        if (!b.periodic[1])
            return c;
        c.sy = y < 0 ? -m.len[1] : m.len[1];
        y = y < 0 ? y + nc.y : y - nc.y;
    }
    const int row = (z * nc.y + y) * nc.x;
    int c0 = max(xlo, 0), c1 = min(xhi, nc.x - 1);
    if (part != 1) {
        if (!b.periodic[0] || (part == 0 ? xlo >= 0 : xhi < nc.x))
            return c;
        c0 = c1 = part == 0 ? nc.x - 1 : 0;
        c.sx = part == 0 ? -m.len[0] : m.len[0];
    }
    /* the atoms of cells c0 .. c1 are one run: from the first non-empty cell's start to the last's end */
    c.j0 = INT_MAX;
    for (int x = c0; x <= c1; x++)
        if (end[row + x] > start[row + x]) {
            c.j0 = min(c.j0, start[row + x]);
            c.j1 = end[row + x];
        }
    if (c.j1 == 0)
        c.j0 = 0;
    return c;
}

/* Where a pass is: range s, tile jb .. jb + 31 of it (ending at j1), ranges still to read. */
struct tile_cursor {
    int s, jb, j1;
    unsigned left;

    /* To the next tile, in this range or the next non-empty one; false past the last. */
    __device__ bool advance(const candidates &lane_range)
    {
        jb += 32;
        if (jb < j1)
            return true;
        if (!left)
            return false;
        s = __ffs(left) - 1;
        left &= left - 1;
        jb = __shfl_sync(0xffffffffu, lane_range.j0, s);
        j1 = __shfl_sync(0xffffffffu, lane_range.j1, s);
        return true;
    }
};

/* Chunks of GPU_LIST_CHUNK atoms that the lane's range needs in the table. */
__device__ __forceinline__ int chunks_of(const candidates &c)
{
    return (c.j1 - c.j0 + GPU_LIST_CHUNK - 1) >> GPU_LIST_OFFSET_BITS;
}

/* Packed lists: the lane's range gets the table's next chunks, in lane order, from `slots` on (the
   warp's count so far, advanced past them); each chunk's first atom goes into its slot. Returns the
   range's first slot. */
__device__ __forceinline__ int table_chunks(const candidates &c, int *table, int &slots)
{
    const unsigned all = 0xffffffffu;
    const int lane = threadIdx.x % 32, mine = chunks_of(c);
    int upto = mine; /* inclusive scan over the lanes */
    for (int o = 1; o < 32; o <<= 1) {
        const int v = __shfl_up_sync(all, upto, o);
        upto += lane >= o ? v : 0;
    }
    const int first = slots + upto - mine;
    for (int k = 0; k < mine; k++)
        table[first + k] = c.j0 + k * GPU_LIST_CHUNK;
    slots += __shfl_sync(all, upto, 31);
    return first;
}

/* A pass over the row of cells (y0, z0): lane s finds range s (range_of_row), all at once; the warp
   then reads the ranges in order, 32 candidates at a time into shared memory, loading the next 32
   while these are tested, and every lane tests each candidate against its own atom where mine.
   PACKED: entries are packed codes where table is not NULL (the plain kernel has no such test). */
template <bool PACKED>
__device__ void scan_row_by_warp(warp_rows &r, bool mine, real4 pi, const mdl_box &b, const image_lengths &m,
                                 int3 nc, int y0, int z0, int xlo, int xhi, const int *start, const int *end,
                                 const pos_t *__restrict__ pos, mdl_real rlist2, real4 *tile, int *table,
                                 int &slots)
{
    const unsigned all = 0xffffffffu;
    const int lane = r.lane;
    const candidates lane_range = lane < 27 ? range_of_row(lane, b, m, nc, y0, z0, xlo, xhi, start, end)
                                            : candidates{0, 0, 0, 0, 0};
    const int first_slot = PACKED && table ? table_chunks(lane_range, table, slots) : 0;
    tile_cursor at = {0, -32, 0, __ballot_sync(all, lane_range.j0 < lane_range.j1)};
    if (!at.advance(lane_range))
        return;
    const mdl_real r2 = mine ? rlist2 : (mdl_real)-1;
    real4 next = at.jb + lane < at.j1 ? load4(pos, at.jb + lane) : pi;
    for (bool more = true; more;) {
        const tile_cursor now = at;
        r.make_room<PACKED>();
        tile[lane] = next;
        __syncwarp();
        more = at.advance(lane_range);
        if (more && at.jb + lane < at.j1)
            next = load4(pos, at.jb + lane);
        const mdl_real xi = pi.x - __shfl_sync(all, lane_range.sx, now.s);
        const mdl_real yi = pi.y - __shfl_sync(all, lane_range.sy, now.s);
        const mdl_real zi = pi.z - __shfl_sync(all, lane_range.sz, now.s);
        const int self = r.i - now.jb;
        int entry = now.jb;
        if (PACKED && table) { /* tiles start 32k atoms into their range: a tile lies in one chunk */
            const int off = now.jb - __shfl_sync(all, lane_range.j0, now.s);
            entry = (__shfl_sync(all, first_slot, now.s) + (off >> GPU_LIST_OFFSET_BITS)) << GPU_LIST_OFFSET_BITS |
                    (off & (GPU_LIST_CHUNK - 1));
        }
        unsigned bits = 0; /* the tests are independent: no chain through the ring in this loop */
        if (now.j1 - now.jb >= 32) {
#pragma unroll
            for (int q = 0; q < 32; q++)
                bits |= in_range(xi, yi, zi, tile[q], q, r2);
        } else {
            for (int q = 0; q < now.j1 - now.jb; q++)
                bits |= in_range(xi, yi, zi, tile[q], q, r2);
        }
        if ((unsigned)self < 32u) /* the lane's own atom */
            bits &= ~(1u << self);
        r.keep(entry, bits);
        __syncwarp();
    }
}

/* One pass of a warp: the row of cells (y0, z0) of some of its atoms (mine), and the cells xlo + 1
   .. xhi - 1 along it that they are in; the passes' rows are taken off todo. */
struct row_pass {
    int y0, z0, xlo, xhi;
    bool mine;
};

__device__ __forceinline__ row_pass next_pass(unsigned &todo, bool active, int cx, int cy, int cz)
{
    const unsigned all = 0xffffffffu;
    const int leader = __ffs(todo) - 1;
    row_pass p;
    p.y0 = __shfl_sync(all, cy, leader), p.z0 = __shfl_sync(all, cz, leader);
    p.mine = active && cy == p.y0 && cz == p.z0;
    todo &= ~__ballot_sync(all, p.mine);
    p.xlo = __reduce_min_sync(all, p.mine ? cx : INT_MAX) - 1;
    p.xhi = __reduce_max_sync(all, p.mine ? cx : INT_MIN) + 1;
    return p;
}

/* Whether the pass must scan the ghosts as well (several ranks: the cells free_lo .. free_hi hold
   none near them). */
__device__ __forceinline__ bool pass_sees_ghosts(const row_pass &p, const int *gstart, int3 free_lo, int3 free_hi)
{
    return gstart && !(p.xlo >= free_lo.x && p.xhi <= free_hi.x && p.y0 > free_lo.y && p.y0 < free_hi.y &&
                       p.z0 > free_lo.z && p.z0 < free_hi.z);
}

/* The table slots a pass's ranges need (the warp's sum). */
__device__ __forceinline__ int pass_chunks(const row_pass &p, const mdl_box &b, const image_lengths &m, int3 nc,
                                           const int *start, const int *end)
{
    const int lane = threadIdx.x % 32;
    const int mine = lane < 27 ? chunks_of(range_of_row(lane, b, m, nc, p.y0, p.z0, p.xlo, p.xhi, start, end)) : 0;
    return __reduce_add_sync(0xffffffffu, mine);
}

/* The rows of atoms first .. first + 31 (those below n), built by their warp. With a table (packed
   lists), the warp first counts the chunks its ranges need: if they fit, its rows are written
   packed, else as atom indices, and the table's last word says which (gpu.h). */
template <bool PACKED>
__device__ void build_rows_of_warp(int n, int first, const mdl_box &b, const image_lengths &m, int3 nc,
                                   const int *start, const int *end, const int *gstart, const int *gend,
                                   int3 free_lo, int3 free_hi, const pos_t *__restrict__ pos, mdl_real rlist2,
                                   int *nl, int *count, int capacity, int si, int sk, int *flags, int *ring,
                                   real4 *tile, int *table)
{
    const unsigned all = 0xffffffffu;
    const int lane = threadIdx.x % 32, i = first + lane;
    const bool active = i < n;
    const real4 pi = load4(pos, active ? i : first);
    const int3 ci = cell_coords(pi, b, nc);
    const int cx = ci.x, cy = ci.y, cz = ci.z;
    if (PACKED) {
        table += (size_t)(first / 32) * GPU_LIST_TABLE;
        int need = 0;
        for (unsigned todo = __ballot_sync(all, active); todo;) {
            const row_pass p = next_pass(todo, active, cx, cy, cz);
            need += pass_chunks(p, b, m, nc, start, end);
            if (pass_sees_ghosts(p, gstart, free_lo, free_hi))
                need += pass_chunks(p, b, m, nc, gstart, gend);
        }
        const bool fits = need < GPU_LIST_TABLE;
        if (lane == 0)
            table[GPU_LIST_TABLE - 1] = fits ? GPU_LIST_PACKED : GPU_LIST_PLAIN;
        table = fits ? table : NULL;
    }
    warp_rows r = {nl, ring, i, lane, capacity, si, sk, active, PACKED && table, 0, 0, 0};
    int slots = 0;
    /* one pass per row of cells among the warp's atoms (one, sometimes two) */
    for (unsigned todo = __ballot_sync(all, active); todo;) {
        const row_pass p = next_pass(todo, active, cx, cy, cz);
        scan_row_by_warp<PACKED>(r, p.mine, pi, b, m, nc, p.y0, p.z0, p.xlo, p.xhi, start, end, pos, rlist2, tile,
                                 table, slots);
        if (pass_sees_ghosts(p, gstart, free_lo, free_hi)) /* the ghosts: sorted by cell after the atoms */
            scan_row_by_warp<PACKED>(r, p.mine, pi, b, m, nc, p.y0, p.z0, p.xlo, p.xhi, gstart, gend, pos, rlist2,
                                     tile, table, slots);
    }
    r.flush<PACKED>();
    if (active)
        finish_row(count, flags, i, r.k, capacity, r.packed ? 2 : 1);
}

/* Warps are independent; the block barrier at the end is for compute-sanitizer's synccheck (without
   it, synccheck reports the first barrier of the next rebuild's CUB sort as divergent, as it does
   after the per-thread build_cell_kernel: see gpu_build_cell). PACKED: rows packed where they fit
   (table, gpu.h); else the kernel is the plain one, with no trace of packing. */
template <bool PACKED>
__global__ void __launch_bounds__(WARP_BUILD_BLOCK) build_cell_warp_kernel(
    int n, mdl_box b, image_lengths m, int3 nc, const int *start, const int *end, const int *gstart,
    const int *gend, int3 free_lo, int3 free_hi, const pos_t *__restrict__ pos, mdl_real rlist2, int *nl, int *count,
    int capacity, int si, int sk, int *flags, int *table)
{
    __shared__ real4 tiles[WARP_BUILD_BLOCK];
    __shared__ int rings[WARP_BUILD_BLOCK * RING_SLOTS];
    const int warp = threadIdx.x / 32, first = blockIdx.x * WARP_BUILD_BLOCK + warp * 32;
    if (first < n)
        build_rows_of_warp<PACKED>(n, first, b, m, nc, start, end, gstart, gend, free_lo, free_hi, pos, rlist2, nl,
                                   count, capacity, si, sk, flags, rings + warp * 32 * RING_SLOTS, tiles + warp * 32,
                                   table);
    __syncthreads();
}

/* The warp builder from 65,536 atoms (the force kernel's switch to one lane per atom too), where it
   pays: builder 2.18 -> 1.56 ms at 2,048,000 atoms, 307 -> 248 us at 256,000 (H100); at 32,000 it
   gains 6% (83.8 -> 78.7 us) and the whole run nothing (0.994). */
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

extern "C" int gpu_build_cell(size_t n, mdl_box box, const int nc[3], const int *cell_start, const int *cell_end,
                              const gpu_ghost_cells *ghosts, const mdl_real *pos4, double rlist, int *nl,
                              int *count, int capacity, int si, int sk, int *flags, gpu_rows form, int *table)
{
    const int *gstart = ghosts ? ghosts->start : NULL, *gend = ghosts ? ghosts->end : NULL;
    const bool shifted = shifted_cells(box, nc), rel = form == GPU_ROWS_RELATIVE;
    if (form != GPU_ROWS_TABLE)
        table = NULL;
    image_lengths m = make_image_lengths(box);
    int3 c3 = make_int3(nc[0], nc[1], nc[2]);
    mdl_real r2 = (mdl_real)(rlist * rlist);
    const pos_t *p = (const pos_t *)pos4;
    const int lanes = staged_lanes(n, shifted && !gstart);
    const size_t smem = (size_t)(STAGE_BLOCK / lanes) * (rel ? 2 : 1) * capacity * sizeof(int);
    if (use_warp_builder(n, shifted)) {
        const int *lo = ghosts ? ghosts->lo : nc, *hi = ghosts ? ghosts->hi : nc; /* no ghosts: unused */
        const int3 free_lo = make_int3(lo[0], lo[1], lo[2]), free_hi = make_int3(hi[0], hi[1], hi[2]);
        const unsigned g = grid_for(n, WARP_BUILD_BLOCK);
        if (table)
            build_cell_warp_kernel<true><<<g, WARP_BUILD_BLOCK, 0, g_mdl_stream>>>(
                (int)n, box, m, c3, cell_start, cell_end, gstart, gend, free_lo, free_hi, p, r2, nl, count, capacity,
                si, sk, flags, table);
        else
            build_cell_warp_kernel<false><<<g, WARP_BUILD_BLOCK, 0, g_mdl_stream>>>(
                (int)n, box, m, c3, cell_start, cell_end, gstart, gend, free_lo, free_hi, p, r2, nl, count, capacity,
                si, sk, flags, NULL);
    } else if (smem <= 160 * 1024) {
        if ((shifted ? launch_staged_lanes<true>(lanes, n, box, m, c3, cell_start, cell_end, gstart, gend, p, r2, nl,
                                                 count, capacity, si, sk, flags, rel)
                     : launch_staged_lanes<false>(lanes, n, box, m, c3, cell_start, cell_end, gstart, gend, p, r2,
                                                  nl, count, capacity, si, sk, flags, rel)) != 0)
            return 1;
    } else {
        unsigned g = grid_for(n, MDL_BLOCK);
        if (shifted)
            build_cell_kernel<true><<<g, MDL_BLOCK, 0, g_mdl_stream>>>(
                (int)n, box, m, c3, cell_start, cell_end, gstart, gend, p, r2, nl, count, capacity, si, sk, flags,
                rel);
        else
            build_cell_kernel<false><<<g, MDL_BLOCK, 0, g_mdl_stream>>>(
                (int)n, box, m, c3, cell_start, cell_end, gstart, gend, p, r2, nl, count, capacity, si, sk, flags,
                rel);
    }
    MDL_LAUNCHED("build_cell");
    return 0;
}

/* Full list by brute force: thread i scans every j != i; the count stays in a register. */
__global__ void build_brute_kernel(int n, image_lengths m, const pos_t *__restrict__ pos, mdl_real rlist2, int *nl,
                                   int *count, int capacity, int si, int sk, int *flags)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const real4 pi = pos_at(pos, i);
    int k = 0;
    for (int j = 0; j < n; j++) {
        if (j != i && distance2(pi, load4(pos, j), m) < rlist2)
            put(nl, i, k++, j, capacity, si, sk);
    }
    finish_row(count, flags, i, k, capacity);
}

extern "C" int gpu_build_brute(size_t n, mdl_box box, const mdl_real *pos4, double rlist, int *nl, int *count,
                               int capacity, int si, int sk, int *flags)
{
    build_brute_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, make_image_lengths(box),
        (const pos_t *)pos4,
                                                              (mdl_real)(rlist * rlist), nl, count, capacity, si, sk,
                                                              flags);
    MDL_LAUNCHED("build_brute");
    return 0;
}

/* Half pairs (j > i), each appended to both rows: the slot is the value atomicAdd returns. */
__global__ void build_brute_atomic_kernel(int n, image_lengths m, const pos_t *__restrict__ pos, mdl_real rlist2,
                                          int *nl, int *count, int capacity, int si, int sk, int *flags)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
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

extern "C" int gpu_build_brute_atomic(size_t n, mdl_box box, const mdl_real *pos4, double rlist, int *nl, int *count,
                                      int capacity, int si, int sk, int *flags)
{
    MDL_CUDA(cudaMemsetAsync(count, 0, n * sizeof(int), g_mdl_stream));
    build_brute_atomic_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, make_image_lengths(box),
                                                                     (const pos_t *)pos4, (mdl_real)(rlist * rlist), nl,
                                                                     count, capacity, si, sk, flags);
    MDL_LAUNCHED("build_brute_atomic");
    return 0;
}

// ---- dynamic pruning: the inner list from the outer one -----------------------------------------

/* pos0[i]: the prune's position of atom i (p), its w the distance from the outer list's (q). */
__device__ __forceinline__ void keep_prune_position(pos_t *pos0, int i, real4 p, real4 q)
{
    p.w = sqrt(displacement2(p, q));
    pos_put(pos0, i, p);
}

#define PRUNE_CHUNK 16 /* outer entries per lane between two writes of the warp's kept entries */

/* One lane per row, a warp's 32 rows together: each lane tests PRUNE_CHUNK entries of its outer
   row and keeps the near ones in its column of the warp's ring (shared memory); then the warp
   writes the kept entries slot by slot, so that the 32 rows' slot s go out in one store (transposed
   rows are columns: a lane writing its own row alone would touch a line per entry). Packed rows
   (the warp's table says so) keep their 16-bit entries. */
__global__ void __launch_bounds__(MDL_BLOCK) prune_rows_kernel(int n, image_lengths m, const pos_t *__restrict__ pos,
                                                               const pos_t *__restrict__ pos_outer, mdl_real rlist2,
                                                               const int *__restrict__ onl,
                                                               const int *__restrict__ ocount,
                                                               const int *__restrict__ table, int *nl, int *count,
                                                               int si, int sk, int capacity, pos_t *pos0,
                                                               const int *halt)
{
    __shared__ int rings[MDL_BLOCK / 32][PRUNE_CHUNK][32];
    const unsigned all = 0xffffffffu;
    const int i = blockIdx.x * blockDim.x + threadIdx.x, lane = (int)(threadIdx.x & 31);
    if (*halt || i - lane >= n) /* whole warps: the writes below need all 32 lanes */
        return;
    int (*ring)[32] = rings[threadIdx.x >> 5];
    const int *tw = table ? table + (size_t)(i / 32) * GPU_LIST_TABLE : NULL;
    const bool packed = tw && tw[GPU_LIST_TABLE - 1] == GPU_LIST_PACKED;
    int cnt = i < n ? ocount[i] : 0;
    const bool over = cnt > (packed ? 2 * capacity : capacity); /* a packed row holds two entries per int */
    if (over) { /* the outer row did not fit: the inner one is a row past the capacity too */
        count[i] = cnt;
        cnt = 0;
    }
    const real4 pi = i < n ? pos_at(pos, i) : real4{};
    if (i < n)
        keep_prune_position(pos0, i, pi, pos_at(pos_outer, i));
    const int *in = onl + (size_t)(i < n ? i : 0) * si;
    const int last = __reduce_max_sync(all, cnt);
    int kept = 0, written = 0;
    for (int k0 = 0; k0 < last; k0 += PRUNE_CHUNK) {
        for (int k = k0; k < min(k0 + PRUNE_CHUNK, cnt); k++) {
            unsigned e = (unsigned)__ldg(&in[(size_t)(packed ? k >> 1 : k) * sk]);
            e = packed ? (e >> (16 * (k & 1))) & 0xffffu : e;
            const int j = packed ? gpu_list_unpack(tw, e) : (int)e;
            if (distance2(pi, load4(pos, j), m) < rlist2)
                ring[kept++ % PRUNE_CHUNK][lane] = (int)e;
        }
        __syncwarp();
        const int lo = __reduce_min_sync(all, written), hi = __reduce_max_sync(all, kept);
        for (int s = lo; s < hi; s++) {
            if (s < written || s >= kept)
                continue;
            const int e = ring[s % PRUNE_CHUNK][lane];
            if (packed)
                put_packed(nl, i, s, sk, e);
            else
                nl[(size_t)i * si + (size_t)s * sk] = e;
        }
        __syncwarp();
        written = kept;
    }
    if (i < n && !over)
        count[i] = kept;
}

/* T = 8 lanes per atom (few atoms; rows unpacked): lane s tests the outer row's entries s, s + 8,
   ..., and a ballot over the atom's lanes places each round's kept entries in order. */
template <int T>
__global__ void prune_kernel(int n, image_lengths m, const pos_t *__restrict__ pos,
                             const pos_t *__restrict__ pos_outer, mdl_real rlist2, const int *__restrict__ onl,
                             const int *__restrict__ ocount, int *nl, int *count, int si, int sk, int capacity,
                             pos_t *pos0, const int *halt)
{
    const int g = blockIdx.x * blockDim.x + threadIdx.x, i = g / T, s = g % T;
    if (i >= n || *halt) /* whole groups leave together */
        return;
    const real4 pi = pos_at(pos, i);
    if (s == 0)
        keep_prune_position(pos0, i, pi, pos_at(pos_outer, i));
    const int cnt = ocount[i];
    if (cnt > capacity) { /* as prune_rows_kernel */
        if (s == 0)
            count[i] = cnt;
        return;
    }
    const int *in = onl + (size_t)i * si;
    int *out = nl + (size_t)i * si;
    const int base = (int)(threadIdx.x & 31) & ~(T - 1);
    const unsigned group = ((1u << T) - 1) << base;
    int kept = 0;
    for (int k0 = 0; k0 < cnt; k0 += T) {
        const int k = k0 + s;
        int j = 0;
        bool keep = false;
        if (k < cnt) {
            j = __ldg(&in[(size_t)k * sk]);
            keep = distance2(pi, load4(pos, j), m) < rlist2;
        }
        const unsigned bits = __ballot_sync(group, keep) >> base;
        if (keep)
            out[(size_t)(kept + __popc(bits & ((1u << s) - 1))) * sk] = j;
        kept += __popc(bits);
    }
    if (s == 0)
        count[i] = kept;
}

extern "C" int gpu_prune_list(size_t n, mdl_box box, const mdl_real *pos4, const mdl_real *pos_outer, double rlist,
                              const int *onl, const int *ocount, const int *table, int *nl, int *count, int si, int sk,
                              int capacity, mdl_real *pos0, const int *halt)
{
    const image_lengths m = make_image_lengths(box);
    const pos_t *p = (const pos_t *)pos4, *po = (const pos_t *)pos_outer;
    pos_t *p0 = (pos_t *)pos0;
    const mdl_real r2 = (mdl_real)(rlist * rlist);
    if (n < 65536 && !table) /* few atoms: 8 lanes each keep the GPU busy, as in the force kernel (32,000
                                   atoms: 32 lanes 8.35e8 atom-steps/s, 8 lanes 9.46e8, 1 lane 7.69e8) */
        prune_kernel<8><<<grid_for(n * 8, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, m, p, po, r2, onl, ocount,
                                                                                    nl, count, si, sk, capacity, p0,
                                                                                    halt);
    else
        prune_rows_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, m, p, po, r2, onl, ocount,
                                                                                 table, nl, count, si, sk, capacity,
                                                                                 p0, halt);
    MDL_LAUNCHED("prune_list");
    return 0;
}

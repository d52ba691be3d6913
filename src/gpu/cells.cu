// GPU cell binning: wrap and pack, each atom's cell, a small system's sort by cell in two kernels
// (larger ones use CUB's radix sort: sort.cu), the cell bounds, and the permutation of every
// per-atom array through staging memory.
#include "common.cuh"

// ---- wrap, pack, bounds, permutation -------------------------------------------------------

/* Atom i wrapped into the box (coordinates and image counters updated where it left) and packed. */
__device__ __forceinline__ real4 wrap_pack_atom(int i, const mdl_box &b, double *const c[3], int *const im[3],
                                                const int *type)
{
    double r[3];
    if (box_is_triclinic(&b)) { /* through fractional coordinates; an atom inside stays as it is */
        r[0] = c[0][i], r[1] = c[1][i], r[2] = c[2][i];
        int32_t image[3] = {im[0][i], im[1][i], im[2][i]};
        box_wrap_triclinic(&b, r, image);
        if (image[0] != im[0][i] || image[1] != im[1][i] || image[2] != im[2][i]) /* it left the box */
            for (int d = 0; d < 3; d++)
                c[d][i] = r[d], im[d][i] = image[d];
    }
    for (int d = 0; d < 3 && !box_is_triclinic(&b); d++) {
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
    return p;
}

/* Wrap and pack into pos; with cell given, each atom's cell in the grid and perm = i instead.
   MOVING: the box and grid are a barostat's (moving; one rank: the box is the grid's region). */
template <bool MOVING>
__global__ void wrap_pack_kernel(int n, mdl_box box, double *x, double *y, double *z, int *ix, int *iy, int *iz,
                                 const int *type, pos_t *pos, const __grid_constant__ gpu_grid grid,
                                 const gpu_grid *moving, int *cell, int *perm)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const mdl_box &b = MOVING ? moving->region : box;
    const gpu_grid &g = MOVING ? *moving : grid;
    double *const c[3] = {x, y, z};
    int *const im[3] = {ix, iy, iz};
    const real4 p = wrap_pack_atom(i, b, c, im, type);
    if (cell) {
        cell[i] = cell_of(p, g.region, make_int3(g.nc[0], g.nc[1], g.nc[2]));
        perm[i] = i;
    } else {
        pos_put(pos, i, p);
    }
}

extern "C" int gpu_wrap_and_pack(size_t n, mdl_box box, const gpu_grid *moving, double *x, double *y, double *z,
                                 int *ix, int *iy, int *iz, const int *type, mdl_real *pos4, const gpu_cell_keys *keys)
{
    const gpu_grid none = {};
    auto kernel = moving ? wrap_pack_kernel<true> : wrap_pack_kernel<false>;
    kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, box, x, y, z, ix, iy, iz, type,
                                                                  (pos_t *)pos4, keys ? keys->grid : none, moving,
                                                                  keys ? keys->cell : NULL, keys ? keys->perm : NULL);
    MDL_LAUNCHED("wrap_pack");
    return 0;
}

/* x, y, z packed as they are (no wrap: a restart's, packed as the build or step that made them
   packed them); with cell, each atom's cell in the grid too. */
__global__ void pack_kernel(int n, const double *x, const double *y, const double *z, const int *type, pos_t *pos,
                            const __grid_constant__ gpu_grid grid, int *cell)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    real4 p;
    p.x = (mdl_real)x[i], p.y = (mdl_real)y[i], p.z = (mdl_real)z[i];
    p.w = type_to_real(type[i]);
    pos_put(pos, i, p);
    if (cell)
        cell[i] = cell_of(p, grid.region, make_int3(grid.nc[0], grid.nc[1], grid.nc[2]));
}

extern "C" int gpu_pack_unwrapped(size_t n, const double *x, const double *y, const double *z, const int *type,
                                  mdl_real *pos4, gpu_grid grid, int *cell)
{
    pack_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, x, y, z, type, (pos_t *)pos4, grid,
                                                                       cell);
    MDL_LAUNCHED("pack");
    return 0;
}

/* Atom i's part of the cell bounds from the sorted cells: where its cell starts or ends. */
__device__ __forceinline__ void note_cell_bounds(int i, int n, const int *cell, int *start, int *end)
{
    const int c = cell[i];
    if (i == 0 || cell[i - 1] != c)
        start[c] = i;
    if (i == n - 1 || cell[i + 1] != c)
        end[c] = i + 1;
}

__global__ void cell_bounds_kernel(int n, const int *cell, int *start, int *end)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        note_cell_bounds(i, n, cell, start, end);
}

static int clear_cell_bounds(size_t ncells, int *cell_start, int *cell_end)
{
    MDL_CUDA(cudaMemsetAsync(cell_start, 0, ncells * sizeof(int), g_mdl_stream));
    MDL_CUDA(cudaMemsetAsync(cell_end, 0, ncells * sizeof(int), g_mdl_stream));
    return 0;
}

extern "C" int gpu_cell_bounds(size_t n, size_t ncells, const int *sorted_cell, int *cell_start, int *cell_end)
{
    if (clear_cell_bounds(ncells, cell_start, cell_end))
        return 1;
    cell_bounds_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, sorted_cell, cell_start,
        cell_end);
    MDL_LAUNCHED("cell_bounds");
    return 0;
}

/* Atom j's values into slot i of the staging area: per array k, n values from byte offset
   k * n * 8 (ints and reals fit in 8). */
__device__ __forceinline__ void stage_atom(int n, int i, int j, const gpu_atom_arrays &a, char *staging)
{
    const size_t stride = (size_t)n * 8;
    for (int k = 0; k < 6; k++)
        ((double *)(staging + k * stride))[i] = a.d[k][j];
    ((int64_t *)(staging + 6 * stride))[i] = a.id[j];
    for (int k = 0; k < 4; k++)
        ((int *)(staging + (7 + k) * stride))[i] = a.i[k][j];
    for (int k = 0; k < 3 && a.f[0]; k++)
        ((mdl_real *)(staging + (11 + k) * stride))[i] = a.f[k][j];
}

__global__ void gather_to_staging_kernel(int n, const int *perm, gpu_atom_arrays a, char *staging)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        stage_atom(n, i, perm[i], a, staging);
}

/* The staged arrays back in place, pos repacked; what `also` names written on the way. */
__global__ void copy_from_staging_kernel(int n, gpu_atom_arrays a, const char *staging, pos_t *pos,
                                         gpu_permute_also also)
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
    pos_put(pos, i, p);
    if (also.pos4_copy)
        pos_put((pos_t *)also.pos4_copy, i, p);
    if (also.sorted_cell)
        note_cell_bounds(i, n, also.sorted_cell, also.cell_start, also.cell_end);
}

extern "C" int gpu_permute_atoms(size_t n, const int *perm, gpu_atom_arrays a, void *staging, mdl_real *pos4,
                                 const gpu_permute_also *also)
{
    gather_to_staging_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, perm, a,
                                                                                    (char *)staging);
    MDL_LAUNCHED("gather_to_staging");
    return gpu_unstage_atoms(n, a, staging, pos4, also);
}

extern "C" int gpu_unstage_atoms(size_t n, gpu_atom_arrays a, const void *staging, mdl_real *pos4,
                                 const gpu_permute_also *also)
{
    const gpu_permute_also none = {NULL, NULL, NULL, 0, NULL}, w = also ? *also : none;
    if (w.sorted_cell && clear_cell_bounds(w.ncells, w.cell_start, w.cell_end))
        return 1;
    copy_from_staging_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, a, (const char *)staging,
                                                                                    (pos_t *)pos4, w);
    MDL_LAUNCHED("copy_from_staging");
    return 0;
}

// ---- a small system's sort by cell, in two kernels ----------------------------------------------
/* With one rank, up to COUNT_SORT_ATOMS atoms in up to COUNT_SORT_CELLS cells (and at most
   COUNT_SORT_BYTES of storage per atom), atoms are sorted by cell without CUB's radix sort, whose
   kernels (at 32,000 atoms a histogram, a scan and two passes) are each short and bound by
   latency. The wrap counts each block's atoms per cell; a second kernel places every atom after
   the atoms of the cells before its own, those of its cell in the blocks before its own, and
   those of its cell before it in its block: CUB's stable order (by cell, then index). It writes
   each atom straight to its place in the staging area, and the cell bounds, so neither a gather
   pass nor the bounds' memsets are needed. H100, 32,000 atoms: 14.6 us for the placement against
   29.2 us for CUB's sort and 8.8 us for the gather; whole runs 1.089x at 32,000 atoms, 1.047x at
   131,072, 1.031x at 143,748, 1.025x at 186,624 and 1.020x at 256,000 (the counts' storage, a row
   per block, grows as the square of the atoms). The storage (temp): ncells totals, a row of ncells
   counts per block, ~ncells / 256 bytes per atom, then each block's range of cells: the atoms of a
   block, consecutive in the last build's cell order, lie in few cells (those of a periodic face's
   blocks excepted), and only that range of its row is cleared, written and read (at 256,000 atoms
   1.008x against whole rows). Past PREFIX_LOOP_BLOCKS blocks, each cell's count in the blocks
   before a block is summed by its own kernel (prefix_over_blocks) rather than by the placement's
   loop over those blocks, which grows with them: at 32,000 atoms (32 blocks) the kernel costs
   whole runs 1.2%. */
#define COUNT_BLOCK 1024
#define COUNT_SORT_ATOMS 262144
#define COUNT_SORT_CELLS 16384 /* a block's counts fit in 64 KB of shared memory */
#define COUNT_SORT_BYTES 64    /* per atom; 256,000 atoms of in.lj take 48 (CUB's storage: ~8-12) */
#define PREFIX_LOOP_BLOCKS 128

/* Where the counts' storage (temp) keeps the nb blocks' ranges of cells, in ints: after the totals
   and the rows, at the next 8 bytes. */
static size_t ranges_at(size_t nb, size_t ncells)
{
    return ((nb + 1) * ncells + 1) & ~(size_t)1;
}

extern "C" size_t gpu_count_sort_bytes(size_t n, size_t ncells)
{
    const size_t nb = grid_for(n, COUNT_BLOCK);
    return ranges_at(nb, ncells) * sizeof(int) + nb * sizeof(int2);
}

static int2 *block_ranges(int *temp, size_t n, size_t ncells)
{
    return (int2 *)(temp + ranges_at(grid_for(n, COUNT_BLOCK), ncells));
}

/* Whether block e's row of counts holds cell c (the rest of the row is not written). */
__device__ __forceinline__ bool range_holds(int2 r, int c)
{
    return c >= r.x && c <= r.y;
}

extern "C" int gpu_count_sort_fits(size_t n, size_t ncells)
{
    return n <= COUNT_SORT_ATOMS && ncells <= COUNT_SORT_CELLS &&
           gpu_count_sort_bytes(n, ncells) <= COUNT_SORT_BYTES * n;
}

template <bool MOVING>
__global__ void __launch_bounds__(COUNT_BLOCK) wrap_count_kernel(int n, mdl_box box, double *x, double *y, double *z,
                                                                 int *ix, int *iy, int *iz, const int *type,
                                                                 const __grid_constant__ gpu_grid grid,
                                                                 const gpu_grid *moving, int ncells, int *cell,
                                                                 int *totals, int *hist, int2 *ranges)
{
    const mdl_box &b = MOVING ? moving->region : box;
    const gpu_grid &g = MOVING ? *moving : grid;
    extern __shared__ int counts[];
    __shared__ int lo, hi;
    if (threadIdx.x == 0)
        lo = INT_MAX, hi = -1;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = -1;
    if (i < n) {
        double *const r[3] = {x, y, z};
        int *const im[3] = {ix, iy, iz};
        const int3 nc = make_int3(g.nc[0], g.nc[1], g.nc[2]);
        k = cell_of(wrap_pack_atom(i, b, r, im, type), g.region, nc);
        cell[i] = k;
    }
    __syncthreads();
    /* the block's cells lie in lo .. hi: only those counts are cleared, kept and written */
    const int kmin = __reduce_min_sync(0xffffffffu, k < 0 ? INT_MAX : k), kmax = __reduce_max_sync(0xffffffffu, k);
    if (threadIdx.x % 32 == 0 && kmax >= 0)
        atomicMin(&lo, kmin), atomicMax(&hi, kmax);
    __syncthreads();
    const int c0 = lo, c1 = hi;
    for (int c = c0 + (int)threadIdx.x; c <= c1; c += blockDim.x)
        counts[c] = 0;
    __syncthreads();
    if (k >= 0)
        atomicAdd(&counts[k], 1);
    __syncthreads();
    for (int c = c0 + (int)threadIdx.x; c <= c1; c += blockDim.x) {
        const int h = counts[c];
        hist[(size_t)blockIdx.x * ncells + c] = h;
        if (h)
            atomicAdd(&totals[c], h);
    }
    if (threadIdx.x == 0)
        ranges[blockIdx.x] = make_int2(c0, c1);
}

/* first[c] = totals[0] + ... + totals[c - 1] for every c < ncells, by the whole block. */
__device__ void scan_totals(const int *totals, int ncells, int *first)
{
    const unsigned all = 0xffffffffu;
    __shared__ int warp_sums[COUNT_BLOCK / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int per = (ncells + COUNT_BLOCK - 1) / COUNT_BLOCK, c0 = threadIdx.x * per, c1 = min(c0 + per, ncells);
    int sum = 0;
    for (int c = c0; c < c1; c++)
        sum += totals[c];
    int upto = sum; /* inclusive scan over the warp */
    for (int o = 1; o < 32; o <<= 1) {
        const int v = __shfl_up_sync(all, upto, o);
        upto += lane >= o ? v : 0;
    }
    if (lane == 31)
        warp_sums[warp] = upto;
    __syncthreads();
    if (warp == 0) { /* the warps' sums, scanned: exclusive */
        const int mine = lane < COUNT_BLOCK / 32 ? warp_sums[lane] : 0;
        int before = mine;
        for (int o = 1; o < 32; o <<= 1) {
            const int v = __shfl_up_sync(all, before, o);
            before += lane >= o ? v : 0;
        }
        if (lane < COUNT_BLOCK / 32)
            warp_sums[lane] = before - mine;
    }
    __syncthreads();
    int at = warp_sums[warp] + upto - sum;
    for (int c = c0; c < c1; c++) {
        first[c] = at;
        at += totals[c];
    }
    __syncthreads();
}

/* Each cell's counts over the blocks (a column of hist: nb rows of ncells) replaced by their
   exclusive prefix, the cell's atoms in the blocks before (in place). A block takes 32 cells, a
   lane each; its PREFIX_WARPS warps take consecutive runs of the rows, sum them, then write the
   prefix (256,000 atoms, H100: 7.1 us a build; with 32 warps 8.5). */
#define PREFIX_WARPS 8
__global__ void __launch_bounds__(32 * PREFIX_WARPS) prefix_over_blocks_kernel(int nb, int ncells, int *hist,
                                                                               const int2 *ranges)
{
    __shared__ int part[PREFIX_WARPS][32];
    __shared__ int2 range[COUNT_SORT_ATOMS / COUNT_BLOCK];
    for (int b = threadIdx.x; b < nb; b += blockDim.x)
        range[b] = ranges[b];
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, c = blockIdx.x * 32 + lane;
    const int per = (nb + PREFIX_WARPS - 1) / PREFIX_WARPS, b0 = warp * per, b1 = min(b0 + per, nb);
    int sum = 0;
    if (c < ncells)
        for (int b = b0; b < b1; b++)
            if (range_holds(range[b], c))
                sum += hist[(size_t)b * ncells + c];
    part[warp][lane] = sum;
    __syncthreads();
    int at = 0;
    for (int w = 0; w < warp; w++)
        at += part[w][lane];
    if (c < ncells)
        for (int b = b0; b < b1; b++)
            if (range_holds(range[b], c)) {
                int *h = hist + (size_t)b * ncells + c;
                const int v = *h;
                *h = at;
                at += v;
            }
}

__global__ void __launch_bounds__(COUNT_BLOCK) place_by_cell_kernel(int n, int ncells, const int *cell,
                                                                    const int *totals, const int *hist,
                                                                    const int2 *ranges, int *cell_start,
                                                                    int *cell_end, gpu_atom_arrays a, char *staging)
{
    extern __shared__ int next[]; /* per cell: the place of this block's next atom in it */
    const unsigned all = 0xffffffffu;
    const int b = blockIdx.x, nb = gridDim.x, i = b * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
    scan_totals(totals, ncells, next);
    if (b == 0)
        for (int c = threadIdx.x; c < ncells; c += blockDim.x)
            cell_start[c] = next[c], cell_end[c] = next[c] + totals[c];
    const int2 mine = b > 0 ? ranges[b] : make_int2(0, -1); /* block 0: no blocks before */
    for (int c = mine.x + (int)threadIdx.x; c <= mine.y; c += blockDim.x) {
        if (nb > PREFIX_LOOP_BLOCKS) /* after the cell's atoms in earlier blocks: hist holds them */
            next[c] += hist[(size_t)b * ncells + c];
        else if (hist[(size_t)b * ncells + c] > 0) { /* the same, summed here */
            int before = 0;
            for (int e = 0; e < b; e++)
                before += range_holds(ranges[e], c) ? hist[(size_t)e * ncells + c] : 0;
            next[c] += before;
        }
    }
    __syncthreads();
    const int key = i < n ? cell[i] : -1 - lane; /* lanes past n: alone, and nothing to place */
    const unsigned peers = __match_any_sync(all, key);
    const int leader = __ffs(peers) - 1;
    int to = __popc(peers & ((1u << lane) - 1)); /* after the cell's atoms before it in its warp */
    for (int w = 0; w < COUNT_BLOCK / 32; w++) { /* the warps in order, so the sort is stable */
        if (threadIdx.x / 32 == w) {
            int at = 0;
            if (lane == leader && key >= 0) {
                at = next[key];
                next[key] = at + __popc(peers);
            }
            to += __shfl_sync(all, at, leader);
        }
        __syncthreads();
    }
    if (i < n)
        stage_atom(n, to, i, a, staging);
}

/* The shared memory the two kernels take for ncells counts, allowed before any recording where it
   passes the 48 KB a kernel may take without asking. */
extern "C" int gpu_count_sort_setup(size_t ncells)
{
    const int bytes = (int)(ncells * sizeof(int));
    if (bytes <= 48 * 1024)
        return 0;
    MDL_CUDA(cudaFuncSetAttribute(wrap_count_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    MDL_CUDA(cudaFuncSetAttribute(wrap_count_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    MDL_CUDA(cudaFuncSetAttribute(place_by_cell_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    return 0;
}

extern "C" int gpu_wrap_and_count(size_t n, mdl_box box, const gpu_grid *moving, double *x, double *y, double *z,
                                  int *ix, int *iy, int *iz, const int *type, const gpu_cell_keys *keys, void *temp)
{
    const int *nc = keys->grid.nc, ncells = nc[0] * nc[1] * nc[2];
    auto kernel = moving ? wrap_count_kernel<true> : wrap_count_kernel<false>;
    int *totals = (int *)temp;
    MDL_CUDA(cudaMemsetAsync(totals, 0, ncells * sizeof(int), g_mdl_stream));
    kernel<<<grid_for(n, COUNT_BLOCK), COUNT_BLOCK, ncells * sizeof(int), g_mdl_stream>>>(
        (int)n, box, x, y, z, ix, iy, iz, type, keys->grid, moving, ncells, keys->cell, totals, totals + ncells,
        block_ranges(totals, n, ncells));
    MDL_LAUNCHED("wrap_count");
    return 0;
}

extern "C" int gpu_place_by_cell(size_t n, const gpu_cell_keys *keys, void *temp, gpu_atom_arrays a,
                                 void *staging, int *cell_start, int *cell_end)
{
    const int ncells = keys->grid.nc[0] * keys->grid.nc[1] * keys->grid.nc[2];
    int *totals = (int *)temp;
    const int nb = (int)grid_for(n, COUNT_BLOCK);
    const int2 *ranges = block_ranges(totals, n, ncells);
    if (nb > PREFIX_LOOP_BLOCKS) {
        prefix_over_blocks_kernel<<<(ncells + 31) / 32, 32 * PREFIX_WARPS, 0, g_mdl_stream>>>(
            nb, ncells, totals + ncells, ranges);
        MDL_LAUNCHED("prefix_over_blocks");
    }
    place_by_cell_kernel<<<grid_for(n, COUNT_BLOCK), COUNT_BLOCK, ncells * sizeof(int), g_mdl_stream>>>(
        (int)n, ncells, keys->cell, totals, totals + ncells, ranges, cell_start, cell_end, a, (char *)staging);
    MDL_LAUNCHED("place_by_cell");
    return 0;
}

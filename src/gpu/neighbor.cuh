// The neighbor builders' shared device code (neighbor.cu, warp_builder.cu, prune.cu): distances in
// the minimum image, writing an entry or a packed entry of a row, closing a row (its count, and
// the room asked for past the capacity); and the warp builder's launch, which neighbor.cu chooses.
#ifndef MDL_GPU_NEIGHBOR_CUH
#define MDL_GPU_NEIGHBOR_CUH

#include "common.cuh"

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

/* The warp builder (warp_builder.cu): a warp per 32 consecutive atoms over the union of their
   cells; table non-NULL: packed rows through each warp's table of chunk starts. free_lo/free_hi:
   the cells that hold no ghosts (ranks; nc without them). The grid: gpu_build_cell's. */
void launch_warp_builder(size_t n, const gpu_grid &grid, const gpu_grid *moving, const int *cell_start,
                         const int *cell_end, const int *gstart, const int *gend, int3 free_lo, int3 free_hi,
                         const pos_t *p, mdl_real r2, int *nl, int *count, int capacity, int si, int sk, int *flags,
                         int *table);

#endif

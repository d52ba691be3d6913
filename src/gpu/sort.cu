// Sorting atoms by cell, and selecting the atoms that leave a brick or are a neighbor's ghosts,
// with CUB: C-callable, the only C++ library code in mdlite.
// The temporary storage is allocated once, so a sort can be recorded in a CUDA graph.
#include "common.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>

/* Bits that hold every cell index below ncells. */
static int key_bits(size_t ncells)
{
    int b = 1;
    while (b < 31 && ((size_t)1 << b) < ncells)
        b++;
    return b;
}

extern "C" size_t gpu_sort_temp_bytes(size_t n, size_t ncells)
{
    size_t bytes = 0;
    cub::DeviceRadixSort::SortPairs(NULL, bytes, (const int *)NULL, (int *)NULL, (const int *)NULL, (int *)NULL,
                                    (int)n, 0, key_bits(ncells), g_mdl_stream);
    return bytes;
}

extern "C" int gpu_sort_by_cell(const int *cell_in, int *cell_out, const int *perm_in, int *perm_out, size_t n,
                                size_t ncells, void *temp, size_t temp_bytes)
{
    MDL_CUDA(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, cell_in, cell_out, perm_in, perm_out, (int)n, 0,
                                             key_bits(ncells), g_mdl_stream));
    return 0;
}

/* Live atom i is in brick `target` along the migration's dimension (not this rank's brick). */
struct leaver_test {
    gpu_brick b;
    int target;
    const double *c;
    const int *gone;
    __device__ bool operator()(int i) const
    {
        const int k = box_brick(c[i], b.box_lo, b.box_len, b.grid);
        return !gone[i] && k != b.mine && k == target;
    }
};

/* Live candidate i is below limit (dir 0) or at or above it (dir 1) along the stage's dimension. */
struct ghost_test {
    double limit;
    int dir;
    const double *c;
    const int *gone;
    __device__ bool operator()(int i) const { return !gone[i] && (dir == 0 ? c[i] < limit : c[i] >= limit); }
};

template <typename Test>
static size_t select_bytes(size_t n)
{
    size_t bytes = 0;
    cub::DeviceSelect::If(NULL, bytes, thrust::counting_iterator<int>(0), (int *)NULL, (int *)NULL, (int)n, Test{},
                          g_mdl_stream);
    return bytes;
}

static size_t partition_bytes(size_t n)
{
    size_t bytes = 0;
    cub::DevicePartition::If(NULL, bytes, thrust::counting_iterator<int>(0), (int *)NULL, (int *)NULL,
                             thrust::make_discard_iterator(), (int *)NULL, (int)n, ghost_test{}, ghost_test{},
                             g_mdl_stream);
    return bytes;
}

static size_t scan_bytes(size_t n)
{
    size_t bytes = 0;
    cub::DeviceScan::InclusiveSum(NULL, bytes, (const int *)NULL, (int *)NULL, (int)n, g_mdl_stream);
    return bytes;
}

extern "C" size_t gpu_select_temp_bytes(size_t n)
{
    size_t a = select_bytes<leaver_test>(n), b = select_bytes<ghost_test>(n), c = partition_bytes(n),
           d = scan_bytes(n);
    size_t m = a > b ? (a > c ? a : c) : (b > c ? b : c);
    return m > d ? m : d;
}

extern "C" int gpu_inclusive_sum(size_t n, const int *count, int *end, void *temp, size_t temp_bytes)
{
    MDL_CUDA(cub::DeviceScan::InclusiveSum(temp, temp_bytes, count, end, (int)n, g_mdl_stream));
    return 0;
}

/* The indices i < n that pass `test`, in order (stable), into out, their count into *count. */
template <typename Test>
static int select_if(size_t n, Test test, int *out, int *count, void *temp, size_t temp_bytes)
{
    MDL_CUDA(cub::DeviceSelect::If(temp, temp_bytes, thrust::counting_iterator<int>(0), out, count, (int)n, test,
                                   g_mdl_stream));
    return 0;
}

extern "C" int gpu_select_leavers(size_t n, gpu_brick b, int target, const double *c, const int *gone, int *out,
                                  int *count, void *temp, size_t temp_bytes)
{
    return select_if(n, leaver_test{b, target, c, gone}, out, count, temp, temp_bytes);
}

extern "C" int gpu_select_ghosts(size_t first, size_t n, double limit, int dir, const double *c, const int *gone,
                                 int *out, int *count, void *temp, size_t temp_bytes)
{
    MDL_CUDA(cub::DeviceSelect::If(temp, temp_bytes, thrust::counting_iterator<int>((int)first), out, count, (int)n,
                                   ghost_test{limit, dir, c, gone}, g_mdl_stream));
    return 0;
}

/* A three-way partition whose third part (neither) is dropped; its first two parts keep index
   order (CUB's DevicePartition), so they are the two selections' lists. */
extern "C" int gpu_select_ghosts_both(size_t n, double below, double above, const double *c, const int *gone,
                                      int *const out[2], int *count, void *temp, size_t temp_bytes)
{
    MDL_CUDA(cub::DevicePartition::If(temp, temp_bytes, thrust::counting_iterator<int>(0), out[0], out[1],
                                      thrust::make_discard_iterator(), count, (int)n, ghost_test{below, 0, c, gone},
                                      ghost_test{above, 1, c, gone}, g_mdl_stream));
    return 0;
}

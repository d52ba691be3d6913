// Sorting atoms by cell, and selecting flagged indices, with CUB: C-callable, the only C++ library
// code in mdlite.
// The temporary storage is allocated once, so a sort can be recorded in a CUDA graph.
#include "common.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

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

/* The indices i < n with flag[i] != 0, in order (stable), into out; their count into *count
   (device memory). iota holds 0..n-1. */
extern "C" size_t gpu_select_temp_bytes(size_t n)
{
    size_t bytes = 0;
    cub::DeviceSelect::Flagged(NULL, bytes, (const int *)NULL, (const int *)NULL, (int *)NULL, (int *)NULL, (int)n,
                               g_mdl_stream);
    return bytes;
}

extern "C" int gpu_select_flagged(size_t n, const int *iota, const int *flag, int *out, int *count, void *temp,
                                  size_t temp_bytes)
{
    MDL_CUDA(cub::DeviceSelect::Flagged(temp, temp_bytes, iota, flag, out, count, (int)n, g_mdl_stream));
    return 0;
}

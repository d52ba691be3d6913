// The Thrust shim: C-callable sort-by-key, the only C++ library code in mdlite (cell ranges come
// from the sorted keys through a boundary kernel, so no scan is needed).
#include "../util.h"
#include "gpu.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <thrust/device_ptr.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>

#include <new>
#include <stdexcept>

/* Thrust asks for temporary storage at every sort; cudaMalloc/cudaFree there would synchronise
   the device at every neighbor-list build. This allocator keeps one growing block instead. */
struct cached_allocator {
    typedef char value_type;
    char *block = nullptr;
    size_t size = 0;
    bool busy = false;
    char *allocate(std::ptrdiff_t n)
    {
        if (busy || (size_t)n > size) {
            if (busy)
                throw std::runtime_error("cached_allocator: nested allocation");
            if (block)
                cudaFree(block);
            size = (size_t)n + (size_t)n / 4;
            if (cudaMalloc(&block, size) != cudaSuccess) {
                block = nullptr;
                size = 0;
                throw std::bad_alloc();
            }
        }
        busy = true;
        return block;
    }
    void deallocate(char *, size_t)
    {
        busy = false;
    }
};

static cached_allocator g_alloc;

extern "C" int mdl_sort_by_key_int(int *keys, int *values, size_t n)
{
    try {
        thrust::device_ptr<int> k(keys), v(values);
        thrust::sort_by_key(thrust::cuda::par(g_alloc), k, k + n, v);
    } catch (const std::exception &e) {
        mdl_error("CUDA: thrust::sort_by_key: %s", e.what());
        return 1;
    }
    return 0;
}

// The Thrust shim: C-callable sort-by-key and iota, the only C++ library code in mdlite.
#include "gpu.h"

#include <stdio.h>
#include <thrust/device_ptr.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/execution_policy.h>

extern "C" int mdl_sort_by_key_int(int *keys, int *values, size_t n)
{
    try {
        thrust::device_ptr<int> k(keys), v(values);
        thrust::sort_by_key(thrust::cuda::par, k, k + n, v);
    } catch (const std::exception &e) {
        fprintf(stderr, "mdlite: error: CUDA: thrust::sort_by_key: %s\n", e.what());
        return 1;
    }
    return 0;
}

extern "C" int mdl_iota_int(int *values, size_t n)
{
    try {
        thrust::device_ptr<int> v(values);
        thrust::sequence(thrust::cuda::par, v, v + n);
    } catch (const std::exception &e) {
        fprintf(stderr, "mdlite: error: CUDA: thrust::sequence: %s\n", e.what());
        return 1;
    }
    return 0;
}

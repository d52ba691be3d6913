/* Shared CUDA helpers for the .cu files of src/gpu: checked calls, launch shapes, real-typed vectors. */
#ifndef MDL_GPU_COMMON_CUH
#define MDL_GPU_COMMON_CUH

#include "../util.h"
#include "gpu.h"

#include <cuda_runtime.h>
#include <stdio.h>

#define MDL_CUDA(call)                                                                          \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            mdl_error("CUDA: %s at %s:%d: %s", #call, __FILE__, __LINE__, \
                    cudaGetErrorString(err_));                                                  \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

#define MDL_LAUNCHED(name)                     \
    do {                                       \
        if (gpu_check_launch(name) != 0)       \
            return 1;                          \
    } while (0)

#define MDL_BLOCK 128

/* The stream every launch and asynchronous copy of src/gpu goes to: the legacy default stream,
   or the capture stream while a graph is being recorded (graph.cu). */
extern cudaStream_t g_mdl_stream;

static inline unsigned grid_for(size_t n, unsigned block)
{
    return (unsigned)((n + block - 1) / block);
}

#ifdef MDLITE_GPU_DOUBLE
struct __align__(32) real4 {
    double x, y, z, w;
};
__device__ __forceinline__ real4 load4(const real4 *p) { return *p; }
__device__ __forceinline__ mdl_real type_to_real(int t) { return (mdl_real)t; }
__device__ __forceinline__ int real_to_type(mdl_real r) { return (int)r; }
#else
typedef float4 real4;
__device__ __forceinline__ real4 load4(const real4 *p) { return __ldg(p); }
__device__ __forceinline__ mdl_real type_to_real(int t) { return __int_as_float(t); }
__device__ __forceinline__ int real_to_type(mdl_real r) { return __float_as_int(r); }
#endif

/* The cell of coordinate v along a dimension of nc cells over [lo, lo + len), in the pair
   kernels' precision (clamped to the grid): the sort's keys and the builders must agree. */
__device__ __forceinline__ int cell_coord(mdl_real v, double lo, double len, int nc)
{
    int c = (int)((v - (mdl_real)lo) * (mdl_real)(nc / len));
    return c < 0 ? 0 : c >= nc ? nc - 1 : c;
}

/* The minimum image (physics/box.h) in the pair kernels' precision (len = inv = 0 on open
   dimensions). */
MDL_MIN_IMAGE(mdl_real, _real)

struct image_lengths {
    mdl_real len[3], inv[3];
};

static inline image_lengths make_image_lengths(mdl_box b)
{
    double len[3], inv[3];
    box_image_lengths(&b, len, inv);
    image_lengths m;
    for (int d = 0; d < 3; d++)
        m.len[d] = (mdl_real)len[d], m.inv[d] = (mdl_real)inv[d];
    return m;
}

#endif

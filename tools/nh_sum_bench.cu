// Stand-alone measurement: the chained Nose-Hoover step's sum of m (v + a f)^2 at 2,048,000 atoms
// (velocities double, forces float, one array per component: 36 bytes per atom, as mixed precision
// stores them) in the order and grid of src/gpu/nose_hoover.cu and in others, against a plain
// streaming read of the same bytes, and from float velocities (24 bytes per atom); each after a
// 256 MiB write that leaves L2 cold, median of 41. Built by hand (not part of the engine):
//   nvcc -O3 -arch=sm_90 -o nh_sum_bench tools/nh_sum_bench.cu && ./nh_sum_bench
#include <algorithm>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e = (x);                                                               \
        if (e != cudaSuccess) {                                                            \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static const int N = 2048000, FLUSH = 256 << 20;

__device__ __forceinline__ double warp_sum(double v)
{
    for (int o = 16; o; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

/* The block's sum into part[block] (kept, so that the loads are not optimised away). */
__device__ __forceinline__ void block_out(double v, double *part)
{
    __shared__ double s[32];
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0)
        s[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = warp_sum(threadIdx.x < blockDim.x / 32 ? s[threadIdx.x] : 0.0);
        if (threadIdx.x == 0)
            part[blockIdx.x] = v;
    }
}

/* The sum over velocities of type V, grid-stride, atoms last to first (REV) or first to last,
   UNROLL atoms' loads issued together. */
template <typename V, bool REV, int UNROLL>
__global__ void __launch_bounds__(256) sum_kernel(int n, double a, const V *vx, const V *vy, const V *vz,
                                                  const float *fx, const float *fy, const float *fz, double *part)
{
    double ke = 0;
    const int stride = gridDim.x * blockDim.x;
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    for (; k + (UNROLL - 1) * stride < n; k += UNROLL * stride) {
        double u[UNROLL][3];
#pragma unroll
        for (int q = 0; q < UNROLL; q++) {
            const int i = REV ? n - 1 - (k + q * stride) : k + q * stride;
            u[q][0] = vx[i] + a * fx[i], u[q][1] = vy[i] + a * fy[i], u[q][2] = vz[i] + a * fz[i];
        }
#pragma unroll
        for (int q = 0; q < UNROLL; q++)
            ke += u[q][0] * u[q][0] + u[q][1] * u[q][1] + u[q][2] * u[q][2];
    }
    for (; k < n; k += stride) {
        const int i = REV ? n - 1 - k : k;
        const double u = vx[i] + a * fx[i], v = vy[i] + a * fy[i], s = vz[i] + a * fz[i];
        ke += u * u + v * v + s * s;
    }
    block_out(ke, part);
}

__global__ void read_kernel(int n4, const float4 *p, double *part)
{
    double sum = 0;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n4; k += gridDim.x * blockDim.x) {
        const float4 x = p[k];
        sum += x.x + x.y + x.z + x.w;
    }
    block_out(sum, part);
}

template <class L>
static float median_us(L launch)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int r = 0; r < 41; r++) {
        CK(cudaEventRecord(a));
        launch();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(1e3f * ms);
    }
    CK(cudaGetLastError());
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

/* A kernel's time after a write of FLUSH bytes (L2 cold), less that write's own time; printed
   with the bandwidth its bytes make. */
template <class L>
static void report(const char *what, int blocks, double bytes, char *flush, L kernel)
{
    const float both = median_us([&] {
        CK(cudaMemsetAsync(flush, 1, FLUSH));
        kernel();
    });
    const float alone = median_us([&] { CK(cudaMemsetAsync(flush, 1, FLUSH)); });
    printf("%-34s blocks %5d: %.1f us (%.2f TB/s)\n", what, blocks, both - alone, bytes / 1e6 / (both - alone));
}

int main()
{
    double *v[3], *part;
    float *f[3], *h[3];
    char *flush;
    float4 *big;
    for (int d = 0; d < 3; d++) {
        CK(cudaMalloc(&v[d], N * sizeof(double)));
        CK(cudaMalloc(&f[d], N * sizeof(float)));
        CK(cudaMalloc(&h[d], N * sizeof(float)));
        CK(cudaMemset(v[d], 0, N * sizeof(double)));
        CK(cudaMemset(f[d], 0, N * sizeof(float)));
        CK(cudaMemset(h[d], 0, N * sizeof(float)));
    }
    CK(cudaMalloc(&part, 1 << 20));
    CK(cudaMalloc(&flush, FLUSH));
    CK(cudaMalloc(&big, (size_t)N * 36));
    CK(cudaMemset(big, 0, (size_t)N * 36));
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const double bytes = 36.0 * N, a = 0.0025;
    const auto sum = [&](const char *what, auto kern, int blocks) {
        report(what, blocks, bytes, flush, [&] { kern<<<blocks, 256>>>(N, a, v[0], v[1], v[2], f[0], f[1], f[2], part); });
    };
    sum("reversed, 1 per iter (the engine's)", sum_kernel<double, true, 1>, 1024);
    sum("forward, 1 per iter", sum_kernel<double, false, 1>, 1024);
    sum("reversed, unroll 2", sum_kernel<double, true, 2>, 1024);
    sum("reversed, unroll 4", sum_kernel<double, true, 4>, 1024);
    sum("reversed, 1 per iter", sum_kernel<double, true, 1>, 8 * sms);
    sum("reversed, unroll 4", sum_kernel<double, true, 4>, 8 * sms);
    sum("reversed, one atom per thread", sum_kernel<double, true, 1>, (N + 255) / 256);
    sum("reversed, 1 per iter", sum_kernel<double, true, 1>, 2048);
    for (int blocks : {1024, 2048, 8 * sms})
        report("plain read of the same bytes", blocks, bytes, flush,
               [&] { read_kernel<<<blocks, 256>>>(N * 36 / 16, big, part); });
    report("float velocities (24 bytes/atom)", 1024, 24.0 * N, flush,
           [&] { sum_kernel<float, true, 1><<<1024, 256>>>(N, a, h[0], h[1], h[2], f[0], f[1], f[2], part); });
    const float warm = median_us([&] {
        sum_kernel<double, true, 1><<<1024, 256>>>(N, a, v[0], v[1], v[2], f[0], f[1], f[2], part);
    });
    printf("the engine's, back to back (L2 warm): %.1f us\n", warm);
    return 0;
}

// Stand-alone measurement: the chained Nose-Hoover step's sum of m (v + a f)^2 at 2,048,000 atoms
// (velocities double, forces float, one array per component: 36 bytes per atom, as mixed precision
// stores them) in the order and grid of src/gpu/nose_hoover.cu and in others, against a plain
// streaming read of the same bytes, and from float velocities (24 bytes per atom); each after a
// 256 MiB write that leaves L2 cold, median of 41.
// Built by hand (not part of the engine):
//   nvcc -O3 -arch=sm_90 -o nh_sum_bench tools/nh_sum_bench.cu && ./nh_sum_bench
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)
__device__ __forceinline__ double warp_sum(double v) { for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o); return v; }
__device__ __forceinline__ void block_out(double ke, double *part) {
    __shared__ double s[32];
    ke = warp_sum(ke);
    if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = ke;
    __syncthreads();
    if (threadIdx.x < 32) { double a = threadIdx.x < blockDim.x / 32 ? s[threadIdx.x] : 0; a = warp_sum(a); if (threadIdx.x == 0) part[blockIdx.x] = a; }
}
template <bool REV, int UNROLL>
__global__ void __launch_bounds__(256) sum_kernel(int n, double dtf, const double *vx, const double *vy, const double *vz, const float *fx, const float *fy, const float *fz, double *part)
{
    double ke = 0;
    const int stride = gridDim.x * blockDim.x;
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    for (; k + (UNROLL - 1) * stride < n; k += UNROLL * stride) {
        double u[UNROLL], v[UNROLL], s[UNROLL];
#pragma unroll
        for (int q = 0; q < UNROLL; q++) {
            const int i = REV ? n - 1 - (k + q * stride) : k + q * stride;
            u[q] = vx[i] + dtf * fx[i]; v[q] = vy[i] + dtf * fy[i]; s[q] = vz[i] + dtf * fz[i];
        }
#pragma unroll
        for (int q = 0; q < UNROLL; q++) ke += u[q] * u[q] + v[q] * v[q] + s[q] * s[q];
    }
    for (; k < n; k += stride) {
        const int i = REV ? n - 1 - k : k;
        const double u = vx[i] + dtf * fx[i], v = vy[i] + dtf * fy[i], s = vz[i] + dtf * fz[i];
        ke += u * u + v * v + s * s;
    }
    block_out(ke, part);
}
/* The same sum from float velocities: what it would read if mixed precision kept each velocity
   as a float pair (high, low) in separate arrays and summed the high halves. */
__global__ void __launch_bounds__(256) sum_high_kernel(int n, double dtf, const float *vx, const float *vy,
                                                      const float *vz, const float *fx, const float *fy,
                                                      const float *fz, double *part)
{
    double ke = 0;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
        const int i = n - 1 - k;
        const double u = vx[i] + dtf * fx[i], v = vy[i] + dtf * fy[i], s = vz[i] + dtf * fz[i];
        ke += u * u + v * v + s * s;
    }
    block_out(ke, part);
}

__global__ void read_kernel(int n4, const float4 *a, double *part)
{
    double ke = 0;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n4; k += gridDim.x * blockDim.x) { const float4 x = a[k]; ke += x.x + x.y + x.z + x.w; }
    block_out(ke, part);
}
template <class L> float timeit(L launch) {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> t;
    for (int r = 0; r < 41; r++) { cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1000); }
    std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
int main() {
    const int n = 2048000;
    double *v[3]; float *f[3]; double *part; char *flush;
    for (int d = 0; d < 3; d++) { CK(cudaMalloc(&v[d], n * 8)); CK(cudaMalloc(&f[d], n * 4)); cudaMemset(v[d], 0, n * 8); cudaMemset(f[d], 0, n * 4); }
    CK(cudaMalloc(&part, 1 << 20)); CK(cudaMalloc(&flush, 256 << 20));
    const double mb = n * 36.0 / 1e6;
    auto run = [&](const char *name, auto kern, int blocks) {
        float t = timeit([&] { cudaMemsetAsync(flush, blocks & 1, 256 << 20); kern<<<blocks, 256>>>(n, 0.0025, v[0], v[1], v[2], f[0], f[1], f[2], part); });
        float tf = timeit([&] { cudaMemsetAsync(flush, blocks & 1, 256 << 20); });
        printf("%-34s blocks %5d: %.1f us (%.2f TB/s)\n", name, blocks, t - tf, mb / (t - tf));
    };
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    run("reversed, 1 per iter (current)", sum_kernel<true, 1>, 1024);
    run("forward, 1 per iter", sum_kernel<false, 1>, 1024);
    run("reversed, unroll 2", sum_kernel<true, 2>, 1024);
    run("reversed, unroll 4", sum_kernel<true, 4>, 1024);
    run("reversed, 1 per iter", sum_kernel<true, 1>, 8 * sms);
    run("reversed, unroll 4", sum_kernel<true, 4>, 8 * sms);
    run("reversed, one atom per thread", sum_kernel<true, 1>, (n + 255) / 256);
    run("reversed, 1 per iter", sum_kernel<true, 1>, 2048);
    float4 *big; CK(cudaMalloc(&big, (size_t)n * 36));
    cudaMemset(big, 0, (size_t)n * 36);
    for (int blocks : {1024, 2048, 8 * sms}) {
        float t = timeit([&] { cudaMemsetAsync(flush, 1, 256 << 20); read_kernel<<<blocks, 256>>>(n * 36 / 16, big, part); });
        float tf = timeit([&] { cudaMemsetAsync(flush, 1, 256 << 20); });
        printf("%-34s blocks %5d: %.1f us (%.2f TB/s)\n", "plain read of the same bytes", blocks, t - tf, mb / (t - tf));
    }
    {
        float *h[3];
        for (int d = 0; d < 3; d++) { CK(cudaMalloc(&h[d], n * 4)); cudaMemset(h[d], 0, n * 4); }
        float t = timeit([&] { cudaMemsetAsync(flush, 1, 256 << 20); sum_high_kernel<<<1024, 256>>>(n, 0.0025, h[0], h[1], h[2], f[0], f[1], f[2], part); });
        float tf = timeit([&] { cudaMemsetAsync(flush, 1, 256 << 20); });
        printf("%-34s blocks %5d: %.1f us (%.2f TB/s)\n", "float velocities (24 bytes/atom)", 1024, t - tf, n * 24.0 / 1e6 / (t - tf));
    }
    float t0 = timeit([&] { sum_kernel<true, 1><<<1024, 256>>>(n, 0.0025, v[0], v[1], v[2], f[0], f[1], f[2], part); });
    printf("current, back to back (warm L2): %.1f us\n", t0);
    return 0;
}

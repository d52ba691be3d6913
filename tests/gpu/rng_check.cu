// GPU test: cuRAND's Philox4_32_10 device API and mdlite's host replica (src/physics/rng.h) give the same
// raw words bit for bit and the same normal deviates to 1e-12, for random keys, subsequences and
// offsets; and the GPU backend's initial-velocity draw equals the host's. Exit 77 without a GPU.
#include "../../src/gpu/gpu.h"
#include "../../src/physics/rng.h"
#include "../unit/splitmix.h"
extern "C" {
#include "../../src/cpu/integrate.h"
}

#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct triple {
    unsigned long long key, sub, block;
};

__global__ void draw(int n, const triple *t, uint4 *raw, double2 *normal)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    curandStatePhilox4_32_10_t st;
    curand_init(t[i].key, t[i].sub, 4ull * t[i].block, &st);
    raw[i] = curand4(&st);
    curand_init(t[i].key, t[i].sub, 4ull * t[i].block, &st);
    normal[i] = curand_normal2_double(&st);
}

int main(void)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("no GPU: skipped\n");
        return 77;
    }
    const int n = 1 << 16;
    triple *t = (triple *)malloc(n * sizeof *t);
    uint4 *raw = (uint4 *)malloc(n * sizeof *raw);
    double2 *normal = (double2 *)malloc(n * sizeof *normal);
    unsigned long long seed = 20261122;
    for (int i = 0; i < n; i++) { /* every width: small ids and steps as the runs use, and huge ones */
        unsigned long long a = splitmix64(&seed), b = splitmix64(&seed), c = splitmix64(&seed);
        t[i].key = i % 4 ? mdl_rng_key(a, 1 + i % 3) : a;
        t[i].sub = i % 2 ? b % 100000000 : b;
        t[i].block = i % 3 ? c % 10000000 : c >> 2;
    }
    triple *dt;
    uint4 *draw_raw;
    double2 *draw_normal;
    cudaMalloc(&dt, n * sizeof *dt);
    cudaMalloc(&draw_raw, n * sizeof *draw_raw);
    cudaMalloc(&draw_normal, n * sizeof *draw_normal);
    cudaMemcpy(dt, t, n * sizeof *t, cudaMemcpyHostToDevice);
    draw<<<(n + 127) / 128, 128>>>(n, dt, draw_raw, draw_normal);
    if (cudaMemcpy(raw, draw_raw, n * sizeof *raw, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(normal, draw_normal, n * sizeof *normal, cudaMemcpyDeviceToHost) != cudaSuccess) {
        printf("FAIL: CUDA error %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    int raw_bad = 0;
    double worst = 0;
    for (int i = 0; i < n; i++) {
        mdl_u32x4 h = mdl_random_block(t[i].key, t[i].sub, t[i].block);
        raw_bad += h.v[0] != raw[i].x || h.v[1] != raw[i].y || h.v[2] != raw[i].z || h.v[3] != raw[i].w;
        double a, b;
        mdl_normal2(h, &a, &b);
        worst = fmax(worst, fmax(fabs(a - normal[i].x), fabs(b - normal[i].y)));
    }
    /* the backend's draw of initial velocities against the host's */
    const size_t m = 100000;
    int64_t *id = (int64_t *)malloc(m * sizeof *id);
    double *g = (double *)malloc(3 * m * sizeof *g), *h = (double *)malloc(3 * m * sizeof *h);
    for (size_t i = 0; i < m; i++)
        id[i] = (int64_t)((i * 7919) % m);
    double worst_v = 0;
    if (gpu_velocity_normals(mdl_rng_key(87287, MDL_STREAM_VELOCITY), m, id, g) != 0 ||
        cpu_velocity_normals(mdl_rng_key(87287, MDL_STREAM_VELOCITY), m, id, h) != 0) {
        printf("FAIL: drawing the velocities' normals\n");
        return 1;
    }
    for (size_t i = 0; i < 3 * m; i++)
        worst_v = fmax(worst_v, fabs(g[i] - h[i]));
    printf("cuRAND Philox4_32_10 vs host: %d of %d blocks differ in their raw words; normal deviates differ "
           "by at most %.3g; initial-velocity normals (%zu atoms) by at most %.3g\n",
           raw_bad, n, worst, m, worst_v);
    int ok = raw_bad == 0 && worst <= 1e-12 && worst_v <= 1e-12;
    printf("%s\n", ok ? "rng_check: OK" : "FAIL: rng_check");
    return ok ? 0 : 1;
}

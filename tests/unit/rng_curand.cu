// Unit test (no GPU needed): cuRAND's own Philox4_32_10 code, compiled for the host, against
// mdlite's replica in src/physics/rng.h: raw words bit for bit, Box-Muller normals bit for bit (both use
// sin and cos on the host), over keys, subsequences and offsets of every width.
#define QUALIFIERS static __forceinline__ __host__ __device__ /* cuRAND's device API, on the host */
#include <curand_kernel.h>

#include "../../src/physics/rng.h"
#include "splitmix.h"

#include <stdio.h>

int main(void)
{
    unsigned long long seed = 87287;
    int raw_bad = 0, normal_bad = 0, n = 200000;
    for (int i = 0; i < n; i++) {
        unsigned long long a = splitmix64(&seed), b = splitmix64(&seed), c = splitmix64(&seed);
        unsigned long long key = i % 4 ? mdl_rng_key(a, 1 + i % 3) : a;
        unsigned long long sub = i % 2 ? b % 100000000 : b, block = i % 3 ? c % 10000000 : c >> 2;
        curandStatePhilox4_32_10_t st;
        curand_init(key, sub, 4 * block, &st);
        uint4 r = curand4(&st);
        mdl_u32x4 h = mdl_random_block(key, sub, block);
        raw_bad += r.x != h.v[0] || r.y != h.v[1] || r.z != h.v[2] || r.w != h.v[3];
        curand_init(key, sub, 4 * block, &st);
        double2 g = curand_normal2_double(&st);
        double x, y;
        mdl_normal2(h, &x, &y);
        normal_bad += g.x != x || g.y != y;
    }
    printf("cuRAND Philox4_32_10 (host-compiled) vs src/physics/rng.h: %d of %d blocks differ, %d normal pairs differ\n",
           raw_bad, n, normal_bad);
    printf("%d passed, %d failed\n", raw_bad == 0 && normal_bad == 0, raw_bad != 0 || normal_bad != 0);
    return raw_bad == 0 && normal_bad == 0 ? 0 : 1;
}

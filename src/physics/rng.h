/* Counter-based random numbers: cuRAND's Philox4_32_10 stream, reproduced on the host bit for bit,
   so that an atom id and step draw the same numbers on any thread count, launch shape or backend.
   The GPU draws through cuRAND's device API (curand_init(key, id, 4 * block) then curand4); the
   host (the CPU backend, and builds without CUDA) computes the same blocks here. */
#ifndef MDL_RNG_H
#define MDL_RNG_H

#include "hd.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Independent streams: each is its own cuRAND key (mdl_rng_key). */
enum { MDL_STREAM_VELOCITY = 1, MDL_STREAM_LANGEVIN = 2, MDL_STREAM_SPECIES = 3, MDL_STREAM_CSVR = 4 };

typedef struct {
    uint32_t v[4];
} mdl_u32x4;

static inline MDL_HD void mdl_mulhilo32(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo)
{
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    *lo = (uint32_t)p;
}

/* Philox4x32 with 10 rounds (Salmon et al., SC'11), as cuRAND's curand_Philox4x32_10. */
static inline MDL_HD mdl_u32x4 mdl_philox(mdl_u32x4 c, uint32_t k0, uint32_t k1)
{
    for (int r = 0; r < 10; r++) {
        uint32_t hi0, lo0, hi1, lo1;
        mdl_mulhilo32(0xD2511F53u, c.v[0], &hi0, &lo0);
        mdl_mulhilo32(0xCD9E8D57u, c.v[2], &hi1, &lo1);
        mdl_u32x4 n = {{hi1 ^ c.v[1] ^ k0, lo1, hi0 ^ c.v[3] ^ k1, lo0}};
        c = n;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return c;
}

/* The cuRAND seed of a stream: the run's seed (32 bits) with the stream in the high word. */
static inline MDL_HD uint64_t mdl_rng_key(uint64_t seed, uint32_t stream)
{
    return (seed & 0xFFFFFFFFu) | ((uint64_t)stream << 32);
}

/* Raw words 4 * block .. 4 * block + 3 of cuRAND Philox4_32_10 subsequence `subsequence` under
   `key`: what curand4 returns after curand_init(key, subsequence, 4 * block, &state). */
static inline MDL_HD mdl_u32x4 mdl_random_block(uint64_t key, uint64_t subsequence, uint64_t block)
{
    mdl_u32x4 c = {{(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)subsequence, (uint32_t)(subsequence >> 32)}};
    return mdl_philox(c, (uint32_t)key, (uint32_t)(key >> 32));
}

/* Uniform in (0, 1], 32-bit resolution, from one raw word (the Langevin noise). */
static inline MDL_HD double mdl_u01(uint32_t w)
{
    return ((double)w + 1.0) * (1.0 / 4294967296.0);
}

/* Standard normal deviates for the initial velocities: out[3i], out[3i+1], out[3i+2] for atom
   id[i], from subsequence id[i] under `key` (block 0 gives x and y, block 1 gives z, by
   mdl_normal2). Returns MDL_OK or MDL_ERUN. The host's is velocity_normals_host (lattice.c); the
   GPU backend's draws them with cuRAND's device API (curand_normal2_double). */
typedef int (*mdl_normals_fn)(uint64_t key, size_t n, const int64_t *id, double *out);

/* Two normal deviates from one block, by cuRAND's Box-Muller (curand_normal2_double): u from words
   0-1 and v from words 2-3 at 53 bits, sqrt(-2 ln u) (sin, cos)(pi v). The device computes
   sin and cos with sincospi, the host with sin and cos: they agree to ~1e-15. */
static inline void mdl_normal2(mdl_u32x4 r, double *a, double *b)
{
    const double inv53 = 1.1102230246251565e-16; /* 2^-53 */
    uint64_t zx = (uint64_t)r.v[0] ^ ((uint64_t)r.v[1] << 21), zy = (uint64_t)r.v[2] ^ ((uint64_t)r.v[3] << 21);
    double u = (double)zx * inv53 + inv53 / 2.0, v = (double)zy * (inv53 * 2.0) + inv53;
    double s = sqrt(-2.0 * log(u));
    *a = s * sin(v * 3.1415926535897932);
    *b = s * cos(v * 3.1415926535897932);
}

#endif

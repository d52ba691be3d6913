/* Counter-based random numbers (Philox4x32-10): the same stream for an atom id and step on any
   thread count, launch shape or backend. */
#ifndef MDL_RNG_H
#define MDL_RNG_H

#include "hd.h"

#include <stdint.h>

enum { MDL_STREAM_VELOCITY = 0x5eed0001u, MDL_STREAM_LANGEVIN = 0x5eed0002u, MDL_STREAM_SPECIES = 0x5eed0003u };

typedef struct {
    uint32_t v[4];
} mdl_u32x4;

static inline MDL_HD void mdl_mulhilo32(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo)
{
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    *lo = (uint32_t)p;
}

/* Philox4x32 with 10 rounds (Salmon et al., SC'11). */
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

/* Four 32-bit words for (seed, stream, id, n). */
static inline MDL_HD mdl_u32x4 mdl_random4(uint64_t seed, uint32_t stream, uint64_t id, uint64_t n)
{
    mdl_u32x4 c = {{(uint32_t)id, (uint32_t)(id >> 32), (uint32_t)n, (uint32_t)(n >> 32)}};
    return mdl_philox(c, (uint32_t)seed ^ stream, (uint32_t)(seed >> 32) + stream * 0x2545F491u);
}

/* Uniform in (0, 1], 32-bit resolution. */
static inline MDL_HD double mdl_u01(uint32_t w)
{
    return ((double)w + 1.0) * (1.0 / 4294967296.0);
}

#endif

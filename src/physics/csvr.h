/* Bussi, Donadio and Parrinello's stochastic velocity rescaling (LAMMPS's fix temp/csvr), written
   once for host C and CUDA: the factor every velocity is scaled by at the end of a step, LAMMPS's
   resamplekin, its noise from a counter-based stream keyed by the seed and the step (the same
   numbers on either backend, any thread count, and after a restart). */
#ifndef MDL_PHYSICS_CSVR_H
#define MDL_PHYSICS_CSVR_H

#include "hd.h"
#include "rng.h"
#include "scaling.h"

#include <math.h>
#include <stdint.h>

typedef struct {
    uint64_t key, step, block;
    mdl_u32x4 words;
    int used; /* of words (4: none left) */
} csvr_stream;

/* A uniform deviate in (0, 1]: the step's subsequence, block after block. */
static inline MDL_HD double csvr_uniform(csvr_stream *s)
{
    if (s->used == 4)
        s->words = mdl_random_block(s->key, s->step, s->block++), s->used = 0;
    return mdl_u01(s->words.v[s->used++]);
}

/* A standard normal deviate (Marsaglia's polar method, as LAMMPS's RanMars::gaussian). */
static inline MDL_HD double csvr_gaussian(csvr_stream *s)
{
    double v1, v2, rsq;
    do {
        v1 = 2.0 * csvr_uniform(s) - 1.0;
        v2 = 2.0 * csvr_uniform(s) - 1.0;
        rsq = v1 * v1 + v2 * v2;
    } while (rsq >= 1.0 || rsq == 0.0);
    return v2 * sqrt(-2.0 * log(rsq) / rsq);
}

/* A Gamma(ia) deviate: LAMMPS's gamdev (a product of uniforms below 6, else rejection). */
static inline MDL_HD double csvr_gamma(long ia, csvr_stream *s)
{
    if (ia < 1)
        return 0.0;
    if (ia < 6) {
        double x = 1.0;
        for (long j = 1; j <= ia; j++)
            x *= csvr_uniform(s);
        return -log(x);
    }
    const double am = (double)(ia - 1), sd = sqrt(2.0 * am + 1.0);
    for (;;) {
        double v1, v2, y, x;
        do {
            do {
                v1 = csvr_uniform(s);
                v2 = 2.0 * csvr_uniform(s) - 1.0;
            } while (v1 * v1 + v2 * v2 > 1.0);
            y = v2 / v1;
            x = sd * y + am;
        } while (x <= 0.0);
        if (am * log(x / am) - sd * y < -700 || v1 < 0.00001)
            continue;
        if (csvr_uniform(s) <= (1.0 + y * y) * exp(am * log(x / am) - sd * y))
            return x;
    }
}

/* The sum of nn squared standard normal deviates (LAMMPS's sumnoises). */
static inline MDL_HD double csvr_sum_noises(long nn, csvr_stream *s)
{
    if (nn <= 0)
        return 0.0;
    if (nn == 1) {
        const double r = csvr_gaussian(s);
        return r * r;
    }
    if (nn % 2 == 0)
        return 2.0 * csvr_gamma(nn / 2, s);
    const double r = csvr_gaussian(s);
    return 2.0 * csvr_gamma((nn - 1) / 2, s) + r * r;
}

/* The velocity factor at the end of step `step`: the kinetic energy at temperature T resampled
   toward the target's with c1 = exp(-dt / tau), over dof degrees of freedom (LAMMPS's resamplekin). */
static inline MDL_HD double csvr_factor(const mdl_scaling *p, double T, double dof, uint64_t step)
{
    if (!(T > 0) || !(dof > 0))
        return 1.0;
    const double c1 = p->c1;
    csvr_stream s = {p->key, step, 0, {{0, 0, 0, 0}}, 4};
    const double c2 = (1.0 - c1) * (ramp_value(&p->target, step) / T) / dof;
    const double r1 = csvr_gaussian(&s);
    const double r2 = csvr_sum_noises((long)dof - 1, &s);
    return sqrt(c1 + c2 * (r1 * r1 + r2) + 2.0 * r1 * sqrt(c1 * c2));
}

/* Its constants: c1 = exp(-dt / tau), the stream keyed by the seed (as Langevin's, its own stream). */
static inline void csvr_setup(mdl_scaling *s, double dt, double tau, uint64_t seed)
{
    s->c1 = tau > 0 ? exp(-dt / tau) : 0.0;
    s->key = mdl_rng_key(seed, MDL_STREAM_CSVR);
}

#endif

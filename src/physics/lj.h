/* Lennard-Jones pair arithmetic, written once for the CPU and the GPU (MDL_HD). */
#ifndef MDL_LJ_H
#define MDL_LJ_H

#include "hd.h"

/* Coefficients of one species pair, in LAMMPS's lj/cut form:
   F(r)/r = r^-2 r^-6 (lj1 r^-6 - lj2),  E(r) = r^-6 (lj3 r^-6 - lj4) - offset. */
typedef struct {
    double lj1, lj2, lj3, lj4, offset, cutsq;
} mdl_lj_coeff;

/* Force over distance, F(r)/r, for 1/r^2 = r2inv. */
static inline MDL_HD double lj_fpair(double r2inv, double lj1, double lj2)
{
    double r6inv = r2inv * r2inv * r2inv;
    return r6inv * (lj1 * r6inv - lj2) * r2inv;
}

static inline MDL_HD double lj_energy(double r2inv, double lj3, double lj4, double offset)
{
    double r6inv = r2inv * r2inv * r2inv;
    return r6inv * (lj3 * r6inv - lj4) - offset;
}

static inline MDL_HD float lj_fpair_f(float r2inv, float lj1, float lj2)
{
    float r6inv = r2inv * r2inv * r2inv;
    return r6inv * (lj1 * r6inv - lj2) * r2inv;
}

static inline MDL_HD float lj_energy_f(float r2inv, float lj3, float lj4, float offset)
{
    float r6inv = r2inv * r2inv * r2inv;
    return r6inv * (lj3 * r6inv - lj4) - offset;
}

/* Coefficients from epsilon, sigma and cutoff; shift = 1 makes E(cutoff) = 0. */
static inline mdl_lj_coeff lj_coeff(double epsilon, double sigma, double cutoff, int shift)
{
    double s6 = sigma * sigma * sigma * sigma * sigma * sigma;
    mdl_lj_coeff c;
    c.lj1 = 48.0 * epsilon * s6 * s6;
    c.lj2 = 24.0 * epsilon * s6;
    c.lj3 = 4.0 * epsilon * s6 * s6;
    c.lj4 = 4.0 * epsilon * s6;
    c.cutsq = cutoff * cutoff;
    c.offset = 0.0;
    if (shift) {
        double rc2inv = 1.0 / c.cutsq;
        c.offset = lj_energy(rc2inv, c.lj3, c.lj4, 0.0);
    }
    return c;
}

#endif

/* Lennard-Jones pair arithmetic, written once for the CPU and the GPU (MDL_HD). */
#ifndef MDL_LJ_H
#define MDL_LJ_H

#include "hd.h"

/* Coefficients of one species pair, in LAMMPS's lj/cut form:
   F(r)/r = r^-2 r^-6 (lj1 r^-6 - lj2),  E(r) = r^-6 (lj3 r^-6 - lj4) - offset. */
typedef struct {
    double lj1, lj2, lj3, lj4, offset, cutsq;
} mdl_lj_coeff;

/* Force over distance F(r)/r, lj_fpair##S, and energy, lj_energy##S, for 1/r^2 = r2inv in type T:
   written once, made for double here and for the GPU's mdl_real (float in mixed precision) in
   gpu/force.cu. */
#define MDL_LJ_PAIR(T, S)                                                      \
    static inline MDL_HD T lj_fpair##S(T r2inv, T lj1, T lj2)                  \
    {                                                                          \
        T r6inv = r2inv * r2inv * r2inv;                                       \
        return r6inv * (lj1 * r6inv - lj2) * r2inv;                            \
    }                                                                          \
    static inline MDL_HD T lj_energy##S(T r2inv, T lj3, T lj4, T offset)       \
    {                                                                          \
        T r6inv = r2inv * r2inv * r2inv;                                       \
        return r6inv * (lj3 * r6inv - lj4) - offset;                           \
    }
MDL_LJ_PAIR(double, )

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

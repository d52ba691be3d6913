/* The Lennard-Jones pair potential (LAMMPS lj/cut) as a unit: its keys, its coefficients' layout,
   their builder and mixing, and its pair arithmetic written once for the CPU and the GPU (MDL_HD). */
#ifndef MDL_LJ_H
#define MDL_LJ_H

#include "hd.h"

#include <math.h>

/* Its keys, X(STYLE, key, index, lowest, highest, positive, default in lj units) (no default in
   metal units): pair.A.B = epsilon sigma [cutoff]. */
#define MDL_LJ_PARAMS(X, STYLE)                                                                    \
    X(STYLE, epsilon, 0, 0, 1e30, 0, 1.0)                                                           \
    X(STYLE, sigma, 1, 0, 1e30, 1, 1.0)
enum { LJ_EPSILON, LJ_SIGMA, LJ_NPARAM };

/* Its coefficients, in LAMMPS's lj/cut form:
   F(r)/r = r^-2 r^-6 (lj1 r^-6 - lj2),  E(r) = r^-6 (lj3 r^-6 - lj4) - offset. */
enum { LJ_LJ1, LJ_LJ2, LJ_LJ3, LJ_LJ4, LJ_OFFSET, LJ_NCOEFF };

/* Force over distance F(r)/r, lj_fpair##S, and energy, lj_energy##S, at r^2 = r2 from the pair's
   coefficients (in the layout's order, as every style's arithmetic takes them: MDL_PAIR_MAX_COEFF
   values, scalars so that vectorised loops keep them in registers) in type T: made for double here
   and for the GPU's mdl_real (float in mixed precision) in gpu/force.cu. */
#define MDL_LJ_PAIR(T, S)                                                                      \
    static inline MDL_HD T lj_fpair##S(T r2, T lj1, T lj2, T lj3, T lj4, T offset)              \
    {                                                                                          \
        (void)lj3, (void)lj4, (void)offset;                                                    \
        const T r2inv = (T)1 / r2, r6inv = r2inv * r2inv * r2inv;                              \
        return r6inv * (lj1 * r6inv - lj2) * r2inv;                                            \
    }                                                                                          \
    static inline MDL_HD T lj_energy##S(T r2, T lj1, T lj2, T lj3, T lj4, T offset)             \
    {                                                                                          \
        (void)lj1, (void)lj2;                                                                  \
        const T r2inv = (T)1 / r2, r6inv = r2inv * r2inv * r2inv;                              \
        return r6inv * (lj3 * r6inv - lj4) - offset;                                           \
    }
MDL_LJ_PAIR(double, )

/* The coefficients from epsilon and sigma (p) and the cutoff; shift makes E(cutoff) = 0. */
static inline void lj_coeff(const double *p, double cutoff, int shift, double *c)
{
    const double s6 = p[LJ_SIGMA] * p[LJ_SIGMA] * p[LJ_SIGMA] * p[LJ_SIGMA] * p[LJ_SIGMA] * p[LJ_SIGMA];
    c[LJ_LJ1] = 48.0 * p[LJ_EPSILON] * s6 * s6;
    c[LJ_LJ2] = 24.0 * p[LJ_EPSILON] * s6;
    c[LJ_LJ3] = 4.0 * p[LJ_EPSILON] * s6 * s6;
    c[LJ_LJ4] = 4.0 * p[LJ_EPSILON] * s6;
    c[LJ_OFFSET] = 0.0;
    if (shift)
        c[LJ_OFFSET] = lj_energy(cutoff * cutoff, c[LJ_LJ1], c[LJ_LJ2], c[LJ_LJ3], c[LJ_LJ4], 0.0);
}

/* An unlisted cross pair from its two species' own, by Lorentz-Berthelot: sqrt(eA eB), (sA + sB) / 2,
   the cutoff (rcA + rcB) / 2 (LAMMPS's pair_modify mix arithmetic; lj/cut's default is geometric,
   sqrt(sA sB)). Returns 1: LJ mixes. */
static inline int lj_mix(const double *a, const double *b, double *out)
{
    out[LJ_EPSILON] = sqrt(a[LJ_EPSILON] * b[LJ_EPSILON]);
    out[LJ_SIGMA] = 0.5 * (a[LJ_SIGMA] + b[LJ_SIGMA]);
    return 1;
}

/* LAMMPS's tail correction (pair_modify tail yes) for one ordered species pair, per pair of atoms
   (the table multiplies by the two species' counts): the energy *e and the pressure term *w, which
   come to E += sum e / V and P += sum w / V^2 (in pressure units: times nktv2p). Returns 1. */
static inline int lj_tail(const double *p, double rc, double *e, double *w)
{
    const double sig2 = p[LJ_SIGMA] * p[LJ_SIGMA], sig6 = sig2 * sig2 * sig2;
    const double rc3 = rc * rc * rc, rc6 = rc3 * rc3, rc9 = rc3 * rc6;
    const double prefactor = 8.0 * 3.14159265358979323846 * p[LJ_EPSILON] * sig6 / (9.0 * rc9);
    *e = prefactor * (sig6 - 3.0 * rc6);
    *w = 2.0 * prefactor * (2.0 * sig6 - 3.0 * rc6);
    return 1;
}

/* A force of the pair's scale (compare's unit): epsilon / sigma. */
static inline double lj_force_scale(const double *p)
{
    return p[LJ_EPSILON] / p[LJ_SIGMA];
}

#endif

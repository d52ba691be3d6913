/* The Morse pair potential (LAMMPS morse) as a unit: its keys, its coefficients' layout, their
   builder, and its pair arithmetic written once for the CPU and the GPU (MDL_HD). */
#ifndef MDL_MORSE_H
#define MDL_MORSE_H

#include "hd.h"

#include <math.h>

/* Its keys, X(STYLE, key, index, lowest, highest, positive, default in lj units): pair.A.B =
   d0 alpha r0 [cutoff]; no defaults (LAMMPS has none). */
#define MDL_MORSE_PARAMS(X, STYLE)                                                                 \
    X(STYLE, d0, 0, 0, 1e30, 0, NAN)                                                                \
    X(STYLE, alpha, 1, 0, 1e30, 1, NAN)                                                             \
    X(STYLE, r0, 2, 0, 1e30, 0, NAN)
enum { MORSE_D0, MORSE_ALPHA, MORSE_R0, MORSE_NPARAM };

/* Its coefficients: E(r) = d0 (e^{-2 alpha (r - r0)} - 2 e^{-alpha (r - r0)}) - offset,
   F(r)/r = morse1 (e^{-2 alpha (r - r0)} - e^{-alpha (r - r0)}) / r, morse1 = 2 d0 alpha. */
enum { MORSE_C_D0, MORSE_C_ALPHA, MORSE_C_R0, MORSE_MORSE1, MORSE_OFFSET, MORSE_NCOEFF };

/* F(r)/r, morse_fpair##S, and the energy, morse_energy##S, at r^2 = r2 from the pair's coefficients
   in the layout's order, in type T (LAMMPS's arithmetic), for double here and the GPU's mdl_real in
   gpu/force.cu. */
#define MDL_MORSE_PAIR(T, S)                                                                       \
    static inline MDL_HD T morse_fpair##S(T r2, T d0, T alpha, T r0, T morse1, T offset)           \
    {                                                                                              \
        (void)d0, (void)offset;                                                                    \
        const T r = sqrt(r2), dexp = exp(-alpha * (r - r0));                                       \
        return morse1 * (dexp * dexp - dexp) / r;                                                  \
    }                                                                                              \
    static inline MDL_HD T morse_energy##S(T r2, T d0, T alpha, T r0, T morse1, T offset)          \
    {                                                                                              \
        (void)morse1;                                                                              \
        const T r = sqrt(r2), dexp = exp(-alpha * (r - r0));                                       \
        return d0 * (dexp * dexp - (T)2 * dexp) - offset;                                          \
    }
MDL_MORSE_PAIR(double, )

/* The coefficients from d0, alpha, r0 (p) and the cutoff; shift makes E(cutoff) = 0 (LAMMPS's
   offset). */
static inline void morse_coeff(const double *p, double cutoff, int shift, double *c)
{
    c[MORSE_C_D0] = p[MORSE_D0];
    c[MORSE_C_ALPHA] = p[MORSE_ALPHA];
    c[MORSE_C_R0] = p[MORSE_R0];
    c[MORSE_MORSE1] = 2.0 * p[MORSE_D0] * p[MORSE_ALPHA];
    c[MORSE_OFFSET] = 0.0;
    if (shift) {
        const double alpha_dr = -p[MORSE_ALPHA] * (cutoff - p[MORSE_R0]);
        c[MORSE_OFFSET] = p[MORSE_D0] * (exp(2.0 * alpha_dr) - 2.0 * exp(alpha_dr));
    }
}

/* No mixing (LAMMPS's morse has none): an unlisted cross pair takes the global keys. */
static inline int morse_mix(const double *a, const double *b, double *out)
{
    (void)a, (void)b, (void)out;
    return 0;
}

/* No tail correction: LAMMPS's morse has none (its pair_modify tail adds nothing). Returns 0. */
static inline int morse_tail(const double *p, double rc, double *e, double *w)
{
    (void)p, (void)rc;
    *e = *w = 0.0;
    return 0;
}

/* A force of the pair's scale (compare's unit): d0 alpha, the force's size at r0 +- 1/alpha. */
static inline double morse_force_scale(const double *p)
{
    return p[MORSE_D0] * p[MORSE_ALPHA];
}

#endif

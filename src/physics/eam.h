/* EAM's tabulated functions (LAMMPS pair eam, eam/alloy, eam/fs), written once for the CPU and the
   GPU (MDL_HD): each table is LAMMPS's cubic spline, 7 coefficients per grid point m (1-based, as
   LAMMPS stores them): value ((c3 p + c4) p + c5) p + c6 and derivative (c0 p + c1) p + c2 over
   the grid's spacing, p the fraction past point m. */
#ifndef MDL_EAM_H
#define MDL_EAM_H

#include "hd.h"

#define MDL_EAM_COEFF 7

/* eam_point##S: point m and fraction *p of x on a grid of n points with inverse spacing rdx,
   clamped as LAMMPS clamps (m at most n - 1, at least `lowest`; p at most 1); eam_value##S and
   eam_slope##S: a spline's value and derivative there. In type T: double here, the GPU's mdl_real
   in gpu/force.cu. */
#define MDL_EAM_SPLINE(T, S)                                                                        \
    static inline MDL_HD int eam_point##S(T x, T rdx, int n, int lowest, T *p)                      \
    {                                                                                               \
        T q = x * rdx + (T)1;                                                                       \
        if (!(q < (T)n)) /* past the table (and NaN): its last point; the cast stays defined */      \
            q = (T)n;                                                                               \
        int m = (int)q;                                                                             \
        m = m < n - 1 ? m : n - 1;                                                                  \
        m = m > lowest ? m : lowest;                                                                \
        q -= (T)m;                                                                                  \
        *p = q < (T)1 ? q : (T)1;                                                                   \
        return m;                                                                                   \
    }                                                                                               \
    static inline MDL_HD T eam_value##S(const T *c, T p)                                            \
    {                                                                                               \
        return ((c[3] * p + c[4]) * p + c[5]) * p + c[6];                                           \
    }                                                                                               \
    static inline MDL_HD T eam_slope##S(const T *c, T p)                                            \
    {                                                                                               \
        return (c[0] * p + c[1]) * p + c[2];                                                        \
    }
MDL_EAM_SPLINE(double, )

#endif

/* `mdlite compare`: one initial state on the CPU and GPU backends, side by side. */
#ifndef MDL_COMPARE_H
#define MDL_COMPARE_H

#include "../config/config.h"

#include <stddef.h>

int compare_main(int argc, char **argv);

/* The system's force scale: the larger of the reference's rms force and the pairs' largest force
   scale (the style's: LJ epsilon / sigma, Morse d0 alpha; EAM 1 eV/A). On a perfect lattice the forces vanish
   by symmetry (~1e-14): measured against them, rounding noise would read as a difference of 1e+8
   or more. */
double compare_force_scale(const mdl_config *cfg, const double *fx, const double *fy, const double *fz, size_t n);
/* Differences of forces b from forces a over n atoms, against the scale f0: the rms |b - a| / f0
   (*rms) and the largest per-atom |b - a| / f0 (*worst). */
void compare_forces(const double *const a[3], const double *const b[3], size_t n, double f0, double *rms,
                    double *worst);

#endif

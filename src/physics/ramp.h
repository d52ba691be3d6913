/* A thermostat's target moving linearly over a run (LAMMPS's Tstart Tstop), written once for host C
   and CUDA: at step s of the run from `begin` to `end`, start + (s - begin) / (end - begin) (stop -
   start) in LAMMPS's order of operations (FixLangevin::compute_target, FixTempBerendsen, ...), so a
   target that does not move (start = stop) is start at every step, bit for bit; stop past the end. */
#ifndef MDL_PHYSICS_RAMP_H
#define MDL_PHYSICS_RAMP_H

#include "hd.h"

#include <stdint.h>

typedef struct {
    double start, stop;
    int64_t begin, end; /* the run's first and last step */
} mdl_ramp;

static inline MDL_HD double ramp_value(const mdl_ramp *r, uint64_t step)
{
    double delta = (double)((int64_t)step - r->begin);
    if (delta != 0.0 && r->end != r->begin)
        delta /= (double)(r->end - r->begin);
    if (delta > 1.0) /* past the run's end (a library caller's further steps): its last target */
        delta = 1.0;
    return r->start + delta * (r->stop - r->start);
}

#endif

/* The thermodynamic observables (kinetic and potential energy, virial, temperature, pressure),
   computed from the backends' sums by one formula, as LAMMPS has them. */
#ifndef MDL_PHYSICS_OBSERVABLES_H
#define MDL_PHYSICS_OBSERVABLES_H

#include "box.h"
#include "units.h"

#include <stddef.h>

/* Totals (not per atom) in the run's energy units; virial W = sum over pairs r_ij . f_ij; the
   box (it moves under a barostat), its volume; ecouple, the energy Nose-Hoover's chains and
   barostat hold (LAMMPS's ecouple; 0 for the other ensembles). */
typedef struct {
    double kinetic, potential, virial;
    double temperature, pressure;
    double volume, ecouple;
    double etail, ptail; /* the tail correction's shares of the potential energy (LAMMPS's etail) and the
                            pressure (0: none) */
    double fix_energy;   /* the energy of the fixes whose energy counts in pe and etotal (fix indent with
                            fix_modify energy yes; not in potential, LAMMPS's evdwl and epair) */
    double box_lo[3], box_len[3], box_tilt[3];
} mdl_observables;

/* The degrees of freedom LAMMPS's compute temp counts: dim N - dim (dim 3, or 2 in 2-d). */
static inline MDL_HD double mdl_dof(size_t n, int dim)
{
    double dof = (double)dim * (double)n;
    return dof - (double)dim;
}

/* How many of the velocity components in comp (bits 1 x, 2 y, 4 z: LAMMPS's compute temp/partial
   flags) a temperature counts in dimension dim (z never in 2-d); mdl_temperature with that count for
   dim gives LAMMPS's temp/partial, its nper N - nper degrees of freedom. */
static inline int mdl_component_count(int comp, int dim)
{
    return (comp & 1) + ((comp >> 1) & 1) + (dim == 3 ? (comp >> 2) & 1 : 0);
}

/* Temperature with dim N - dim degrees of freedom, and pressure P = (2 KE + W) / (dim V) (V the area
   in 2-d, where W's z part is 0: every atom lies in one plane). */
static inline double mdl_temperature(double kinetic, size_t n, int dim, const mdl_units *u)
{
    double dof = mdl_dof(n, dim);
    return dof > 0 ? 2.0 * kinetic / (dof * u->boltz) : 0.0;
}

/* tail: the pair potential's tail correction (LAMMPS's pair_modify tail: E += tail[0] / V, P +=
   tail[1] / V^2; zeros: none). */
static inline void mdl_finish_observables(mdl_observables *o, size_t n, const mdl_box *b, const mdl_units *u,
                                          const double tail[2])
{
    const double volume = box_volume(b);
    const int dim = box_dimension(b);
    o->temperature = mdl_temperature(o->kinetic, n, dim, u);
    o->fix_energy = 0.0;
    o->etail = tail[0] / volume;
    o->potential += o->etail;
    o->ptail = tail[1] / (volume * volume) * u->nktv2p;
    o->pressure = ((2.0 * o->kinetic + o->virial) / (dim * volume) + tail[1] / (volume * volume)) * u->nktv2p;
    o->volume = volume;
    for (int d = 0; d < 3; d++)
        o->box_lo[d] = b->lo[d], o->box_len[d] = b->len[d], o->box_tilt[d] = b->tilt[d];
}

#endif

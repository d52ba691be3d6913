/* The engine behind libmdlite's handles: a configured system on a backend that a caller moves,
   evaluates, steps and minimises between calls; the state in the caller's frame (positions
   unwrapped, by atom), the backend's in LAMMPS's restricted cell. */
#ifndef MDL_API_ENGINE_H
#define MDL_API_ENGINE_H

#include "../config/config.h"
#include "../core/stepper.h"
#include "../physics/units.h"
#include "../system/potential.h"
#include "../system/system.h"

#include <stddef.h>

/* What the host's copy holds that the backend has not been given yet. */
enum { ENGINE_IN_STEP, ENGINE_MOVED /* positions only */, ENGINE_REMADE /* cell, species, velocities */ };

typedef struct {
    mdl_config cfg;        /* its own (a copy the engine may change: minimisation's keys) */
    int from_atoms;        /* made from arrays (mdlite_load_atoms), else from a config */
    mdl_units u;
    mdl_system s;          /* species, masses, ids 0..n-1 and the box; the backend is made from it */
    mdl_pair_table pt;
    const mdl_backend_ops *ops;
    void *ctx;             /* NULL until made */
    mdl_stepper st;
    int stepper_ready;     /* st set up on the backend's state (forces with the thermostat's) */
    double nh_state[MDL_NH_STATE]; /* Nose-Hoover's chains carried over a remade backend */
    int nh_n;
    double rot[3][3];      /* a vector of the caller's frame into the box's (rows) */
    double cell[9];        /* the caller's cell: edge vectors a, b, c */
    double *pos, *vel, *force; /* n x 3 each, by atom, in the caller's frame (positions unwrapped) */
    int pending;           /* ENGINE_IN_STEP, _MOVED or _REMADE */
    int host_stale;        /* the backend moved the atoms since pos and vel were read */
    int evaluated;         /* the backend's forces, energy and virial are of its positions now */
    int forces_read;       /* force holds them */
    mdl_observables obs;   /* of the last evaluation or step */
    long step;
} mdl_engine;

/* The given atoms (in the caller's frame, cell rows a b c; velocities NULL: at rest; masses NULL:
   the species' from the configuration or potential) set into e before engine_start. */
typedef struct {
    size_t n;
    int nspecies;
    const char *const *species;
    const double *masses;
    const int *types;
    const double *positions, *cell, *velocities;
} engine_atoms;

/* The system of e->cfg (a lattice or file), or the given atoms; its potential; the backend made
   and its first forces computed. MDL_OK, MDL_EINPUT (what is wrong said), MDL_ERUN. */
int engine_start(mdl_engine *e, const engine_atoms *given);
void engine_destroy(mdl_engine *e);

/* The caller's state, read from the backend where it moved them (n x 3, by atom). */
int engine_positions(mdl_engine *e, double *out);
int engine_velocities(mdl_engine *e, double *out);
int engine_cell(mdl_engine *e, double cell[9]);
/* Changes: positions (kept lists where atoms moved little), velocities, the cell (scale: the atoms
   keep their fractional coordinates) or species (types[i] < s.ntypes), given to the backend at
   the next call that needs it. Arrays are checked before: finite, in range. */
int engine_set_positions(mdl_engine *e, const double *xyz);
int engine_set_velocities(mdl_engine *e, const double *v);
int engine_set_cell(mdl_engine *e, const double cell[9], int scale);
int engine_set_types(mdl_engine *e, const int *types);
/* The potential energy (tail included), forces (caller's frame), the virial tensor sum r_a f_b
   (xx yy zz xy xz yz, caller's frame) and per-atom energies of the positions now. */
int engine_energy(mdl_engine *e, double *energy);
int engine_forces(mdl_engine *e, double *f);
int engine_virial(mdl_engine *e, double w[6]);
int engine_atom_energies(mdl_engine *e, double *out);
/* nsteps of the configured ensemble from the state now (a Nose-Hoover chain goes on from the last
   call's); the observables of the last step into e->obs. */
int engine_step(mdl_engine *e, long nsteps);
/* LAMMPS's minimize with min_style (0 cg, 1 fire), its tolerances and limits, at fixed cell. */
int engine_minimize(mdl_engine *e, int style, double etol, double ftol, long maxiter, long maxeval);
/* The observables now (an evaluation first where none is of the positions now). */
int engine_observe(mdl_engine *e, mdl_observables *o);
/* The state as a LAMMPS data file (box frame). */
int engine_write_data(mdl_engine *e, const char *path);

#endif

/* The thermostat policy, decided in the core: which primitive of the backend to call at which
   stage of which step, and how strongly. The backends only execute (Langevin force, scaling). */
#ifndef MDL_THERMOSTAT_H
#define MDL_THERMOSTAT_H

#include "backend.h"
#include "../config/config.h"
#include "../physics/units.h"

/* A Nose-Hoover chain as LAMMPS's fix nvt has it (tchain M, tloop 1, drag 0): thermostat
   positions eta, velocities eta_dot (eta_dot[M] = 0) and forces eta_dotdot, masses from the
   target, tau and the degrees of freedom. */
typedef struct {
    int chain;                  /* M */
    double tdof, boltz, t_freq; /* 3N - 3; Boltzmann's constant; 1 / tau */
    double dt;
    double t_current;           /* the temperature the chain last saw, scaled with the velocities */
    double eta[MDL_MAX_CHAIN], eta_dot[MDL_MAX_CHAIN + 1], eta_dotdot[MDL_MAX_CHAIN], eta_mass[MDL_MAX_CHAIN];
} mdl_nose_hoover;

typedef struct {
    int ensemble;          /* MDL_NVE, MDL_NVT_* */
    double target;         /* temperature */
    double coupling;       /* rescale: 1; Berendsen: dt / tau */
    int every;             /* rescale every N steps */
    unsigned long seed;
    mdl_langevin langevin; /* Langevin's constants */
    mdl_nose_hoover nh;    /* Nose-Hoover's chain */
} mdl_thermostat;

/* The values a checkpoint keeps of a thermostat: M, then eta[M], then eta_dot[M] (Nose-Hoover);
   none for the others. */
#define MDL_THERMOSTAT_STATE (1 + 2 * MDL_MAX_CHAIN)

void thermostat_init(mdl_thermostat *t, const mdl_config *cfg, const mdl_units *u, size_t natoms);
/* At the set-up, after the first forces: Nose-Hoover takes the temperature and its masses, and
   `state` (a checkpoint's, thermostat_state's layout; NULL or another chain's: a chain at rest). */
int thermostat_setup(mdl_thermostat *t, const mdl_backend_ops *ops, void *ctx, const double *state, int nstate);
/* The stage of a step (MDL_THERMOSTAT_START_OF_STEP, _POST_FORCE or _END_OF_STEP): Nose-Hoover's
   chain scales velocities before the first half kick and after the second; Langevin adds its force
   after the force call; rescaling (every N steps) and Berendsen scale velocities at the end. */
int thermostat_apply(mdl_thermostat *t, const mdl_backend_ops *ops, void *ctx, long step, int stage);
/* Whether thermostat_apply calls a primitive at this step and stage. */
int thermostat_acts(const mdl_thermostat *t, long step, int stage);
/* The energy the thermostat holds (LAMMPS's ecouple: Nose-Hoover's chain; 0 for the others), a
   total in energy units. */
double thermostat_energy(const mdl_thermostat *t);
/* The state a checkpoint keeps (MDL_THERMOSTAT_STATE values at most); returns how many. */
int thermostat_state(const mdl_thermostat *t, double *out);

#endif

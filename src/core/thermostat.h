/* The thermostat policy, decided in the core: which primitive of the backend to call at which
   stage of which step, and how strongly. The backends only execute (Langevin force, scaling). */
#ifndef MDL_THERMOSTAT_H
#define MDL_THERMOSTAT_H

#include "backend.h"
#include "../config/config.h"
#include "../physics/units.h"

typedef struct {
    int ensemble;          /* ensembles.h's id */
    int action;            /* its MDL_ACT_* */
    mdl_scaling scaling;   /* a scaling thermostat's constants (its unit's, physics/thermostat.h) */
    int every;             /* scale every N steps (1 unless the ensemble reads [run] every) */
    unsigned long seed;
    mdl_langevin langevin; /* Langevin's constants */
    mdl_nh nh;             /* Nose-Hoover's chains and barostat: constants and the state to start from
                              (the backend owns the running state) */
} mdl_thermostat;


/* The configured ensemble's constants; a target that moves does so from step begin to step end. */
void thermostat_init(mdl_thermostat *t, const mdl_config *cfg, const mdl_units *u, size_t natoms, long begin, long end);
/* At the set-up of step `step`, after the first forces: Nose-Hoover's chains start in the backend
   from `state` (a checkpoint's, nh_pack's layout; NULL or other chains: at rest), at that step's target. */
int thermostat_setup(mdl_thermostat *t, const mdl_backend_ops *ops, void *ctx, const double *state, int nstate,
                     long step);
/* A restart whose Nose-Hoover chains are not its checkpoint's state (another `chain` or
   `pressure_chain`, or a barostat the checkpoint has none of): says so on stderr, since they start
   at rest (nh_unpack). */
void thermostat_say_restart(const mdl_config *cfg, const double *state, int nstate, const char *restart, long step);
/* The stage of a step (MDL_THERMOSTAT_POST_FORCE or _END_OF_STEP), by the ensemble's action
   (ensembles.h): a force thermostat (Langevin) adds its force after the force call; a scaling one
   (rescale every N steps, Berendsen, csvr) scales velocities at the end. (Nose-Hoover's half steps
   are the backend's integrator's, before the first half kick and after the second.) */
int thermostat_apply(mdl_thermostat *t, const mdl_backend_ops *ops, void *ctx, long step, int stage);
/* Whether thermostat_apply calls a primitive at this step and stage. */
int thermostat_acts(const mdl_thermostat *t, long step, int stage);
/* Whether the ensemble moves the box (a barostat: forces with virial at every step). */
int thermostat_barostat(const mdl_thermostat *t);
/* The state a checkpoint keeps now (nh_pack's layout, MDL_NH_STATE values at most; the backend's,
   waited for) and *n, how many (0: no Nose-Hoover). */
int thermostat_state(const mdl_thermostat *t, const mdl_backend_ops *ops, void *ctx, double *out, int *n);

#endif

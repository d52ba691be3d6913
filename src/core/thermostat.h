/* The thermostat policy, decided in the core: which primitive of the backend to call at which
   stage of which step, and how strongly. The backends only execute (Langevin force, scaling). */
#ifndef MDL_THERMOSTAT_H
#define MDL_THERMOSTAT_H

#include "backend.h"
#include "../config/config.h"
#include "../physics/units.h"

typedef struct {
    int ensemble;          /* MDL_NVE, MDL_NVT_* */
    double target;         /* temperature */
    double coupling;       /* rescale: 1; Berendsen: dt / tau */
    int every;             /* rescale every N steps */
    unsigned long seed;
    mdl_langevin langevin; /* Langevin's constants */
} mdl_thermostat;

void thermostat_init(mdl_thermostat *t, const mdl_config *cfg, const mdl_units *u);
/* The stage of a step (MDL_THERMOSTAT_POST_FORCE or _END_OF_STEP): Langevin adds its force after
   the force call; rescaling (every N steps) and Berendsen scale velocities at the end. */
int thermostat_apply(const mdl_thermostat *t, const mdl_backend_ops *ops, void *ctx, long step, int stage);
/* Whether thermostat_apply calls a primitive at this step and stage. */
int thermostat_acts(const mdl_thermostat *t, long step, int stage);

#endif

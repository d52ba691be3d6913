/* A run's decisions before its backend starts (plan.c): the processor grid, the GPU keys' use. */
#ifndef MDL_CORE_PLAN_H
#define MDL_CORE_PLAN_H

#include "backend.h"

/* The processor grid ([run] processors, or the fewest ghosts) into setup->grid and the ghost
   cutoff into setup->rghost: the largest list cutoff of the run (skin = auto tries up to
   skin_tuner_largest). A grid that does not fit, or a GPU method ranks cannot use: MDL_EINPUT,
   naming the key. */
int run_choose_grid(const mdl_config *cfg, const char *backend, int nranks, const mdl_system *s,
                    const mdl_pair_table *pt, mdl_setup *setup);
/* The GPU's keys where they cannot act: refused (MDL_EINPUT) where the run would be wrong to go
   on, else a warning that names the key; and an ensemble the GPU backend does not run (npt-nose-hoover)
   refused there. */
int run_check_gpu_keys(const mdl_config *cfg, const char *backend, int nranks, const mdl_system *s,
                       const mdl_pair_table *pt);

#endif

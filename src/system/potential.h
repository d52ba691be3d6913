/* The pair table: LJ coefficients for every species pair, from [potential] keys. */
#ifndef MDL_POTENTIAL_H
#define MDL_POTENTIAL_H

#include "../config/config.h"
#include "../physics/lj.h"
#include "system.h"

typedef struct {
    int ntypes;
    mdl_lj_coeff c[MDL_MAX_SPECIES * MDL_MAX_SPECIES]; /* c[ti * ntypes + tj], symmetric */
    double cutmax;                                     /* largest pair cutoff */
    char cutmax_key[2 * MDL_NAME_LEN + 8];             /* the [potential] key it comes from: cutoff, pair.A.B */
} mdl_pair_table;

/* Self pairs take pair.A.A or the global epsilon/sigma/cutoff; unlisted cross pairs mix by
   Lorentz-Berthelot (geometric epsilon, arithmetic sigma and cutoff). Errors name the key. */
int potential_build(const mdl_config *cfg, const mdl_system *s, mdl_pair_table *pt);

#endif

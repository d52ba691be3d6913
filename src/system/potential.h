/* The pair table: the configured style's coefficients for every species pair, from [potential]. */
#ifndef MDL_POTENTIAL_H
#define MDL_POTENTIAL_H

#include "../config/config.h"
#include "../physics/pair_styles.h"
#include "eam.h"
#include "system.h"

typedef struct {
    int ntypes;
    int style;                                                      /* enum mdl_pair_style */
    double coeff[MDL_PAIR_MAX_COEFF][MDL_MAX_SPECIES * MDL_MAX_SPECIES]; /* [k][ti * ntypes + tj], symmetric */
    double cutsq[MDL_MAX_SPECIES * MDL_MAX_SPECIES];
    double cutmax;                         /* largest pair cutoff */
    char cutmax_key[2 * MDL_NAME_LEN + 8]; /* the [potential] key it comes from: cutoff, pair.A.B, file */
    mdl_eam *eam;                          /* an EAM style's tables (NULL: a pair style) */
    double tail[2];                        /* [potential] tail: E += tail[0] / V, P += tail[1] / V^2 (0: none) */
} mdl_pair_table;

/* Self pairs take pair.A.A or the style's global keys and cutoff; unlisted cross pairs mix where
   the style mixes (LJ: Lorentz-Berthelot, the cutoff arithmetic), else take the global keys.
   Errors name the key (a global key a pair needs and the units give no default for, too).
   An EAM style reads its file(s) (system/eam.h); potential_destroy frees its tables. */
int potential_build(const mdl_config *cfg, const mdl_system *s, mdl_pair_table *pt);
void potential_destroy(mdl_pair_table *pt);
/* The largest force scale of the pairs the configuration gives (compare's unit: LJ epsilon/sigma;
   EAM: 1 eV/A). */
double potential_force_scale(const mdl_config *cfg);

#endif

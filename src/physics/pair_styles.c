/* The pair styles' descriptions, generated from MDL_PAIR_STYLES. */
#include "pair_styles.h"

#include <stddef.h>

#define KEY_NAME(STYLE, key, k, lo, hi, positive, dflt) [k] = #key,
#define KEY_DEFAULT(STYLE, key, k, lo, hi, positive, dflt) [k] = dflt,
#define STYLE_INFO(ID, name)                                                                            \
    {#name, ID##_NPARAM, ID##_NCOEFF, {MDL_##ID##_PARAMS(KEY_NAME, ID)}, {MDL_##ID##_PARAMS(KEY_DEFAULT, ID)}, \
     name##_coeff, name##_mix, name##_force_scale, name##_tail},
static const mdl_pair_style_info STYLES[] = {MDL_PAIR_STYLES(STYLE_INFO)};

#define STYLE_FITS(ID, name)                                                                            \
    _Static_assert(ID##_NPARAM <= MDL_PAIR_MAX_PARAMS && ID##_NCOEFF <= MDL_PAIR_MAX_COEFF,             \
                   #name ": more keys or coefficients than MDL_PAIR_MAX_PARAMS or MDL_PAIR_MAX_COEFF");
MDL_PAIR_STYLES(STYLE_FITS)

const mdl_pair_style_info *pair_style_info(int style)
{
    return style >= 0 && style < MDL_PAIR_NSTYLES ? &STYLES[style] : NULL;
}

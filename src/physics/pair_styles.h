/* The pair potentials, one line each in MDL_PAIR_STYLES: everything that knows the styles (the
   config's keys and choices, the force origin of a checkpoint, the tables, both backends' kernels)
   is generated from it. A style NAME with id ID is the unit physics/NAME.h, which defines
   MDL_ID_PARAMS (its keys), ID_NPARAM, ID_NCOEFF (its coefficients' layout), MDL_ID_PAIR(T, S)
   (NAME_fpair##S and NAME_energy##S: the pair arithmetic for the CPU and the GPU, from r^2 and the
   pair's MDL_PAIR_MAX_COEFF coefficients as scalars), NAME_coeff, NAME_mix, NAME_force_scale and
   NAME_tail (host). */
#ifndef MDL_PAIR_STYLES_H
#define MDL_PAIR_STYLES_H

#include "lj.h"
#include "morse.h"

#define MDL_PAIR_STYLES(X) \
    X(LJ, lj)              \
    X(MORSE, morse)

enum mdl_pair_style {
#define MDL_STYLE_ENUM(ID, name) MDL_PAIR_##ID,
    MDL_PAIR_STYLES(MDL_STYLE_ENUM)
#undef MDL_STYLE_ENUM
    MDL_PAIR_NSTYLES
};

/* The many-body styles after the pair styles, X(ID, "name"): EAM (LAMMPS eam, eam/alloy, eam/fs;
   system/eam.h). */
#define MDL_EAM_STYLES(X)     \
    X(EAM_FUNCFL, "eam")      \
    X(EAM_ALLOY, "eam/alloy") \
    X(EAM_FS, "eam/fs")
enum {
    MDL_EAM_BEFORE_FIRST = MDL_PAIR_NSTYLES - 1,
#define MDL_MANY_ENUM(ID, name) MDL_##ID,
    MDL_EAM_STYLES(MDL_MANY_ENUM)
#undef MDL_MANY_ENUM
    MDL_NSTYLES
};

/* "lj|morse|eam|eam/alloy|eam/fs": [potential] style's choices, in the enums' order */
#define MDL_STYLE_CHOICE(ID, name) "|" #name
#define MDL_MANY_CHOICE(ID, name) "|" name
#define MDL_POTENTIAL_STYLE_CHOICES ((MDL_PAIR_STYLES(MDL_STYLE_CHOICE) MDL_EAM_STYLES(MDL_MANY_CHOICE)) + 1)

#define MDL_PAIR_MAX_PARAMS 3 /* a style's keys (besides cutoff) */
#define MDL_PAIR_MAX_COEFF 5  /* a style's coefficients per species pair (besides cutsq) */

/* What a force pass sums besides the forces: nothing; the energy and the virial; the virial
   alone (a barostat's steps). */
enum mdl_ev { MDL_EV_NONE, MDL_EV_ENERGY, MDL_EV_VIRIAL };

/* A style as the host sees it: its name and keys, and its unit's functions. */
typedef struct {
    const char *name;
    int nparam, ncoeff;
    const char *key[MDL_PAIR_MAX_PARAMS];
    double lj_default[MDL_PAIR_MAX_PARAMS]; /* in lj units (NaN: none); metal units have none */
    void (*coeff)(const double *param, double cutoff, int shift, double *coeff);
    int (*mix)(const double *a, const double *b, double *out); /* 0: the style does not mix */
    double (*force_scale)(const double *param);
    int (*tail)(const double *param, double cutoff, double *e, double *w); /* 0: the style has none */
} mdl_pair_style_info;

/* The style's description (NULL for an index out of range). */
const mdl_pair_style_info *pair_style_info(int style);

#endif

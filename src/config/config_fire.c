/* [run] fire: LAMMPS's min_modify keywords of FIRE, read into the parameters min_style fire runs
   with (LAMMPS's defaults where not given; a keyword given twice: the last wins, as in LAMMPS). */
#define _POSIX_C_SOURCE 200809L
#include "config_schema.h"

#include "../util/util.h"

#include <stdlib.h>
#include <string.h>

static const mdl_fire_params DEFAULTS = {20, 2000, 1.1, 0.5, 0.25, 0.99, 10.0, 0.02, MDL_FIRE_EULER_IMPLICIT, 1, 1};

/* One keyword and its value into f: 1, or 0 when it is not one of FIRE's or its value is not. */
static int fire_keyword(mdl_fire_params *f, const char *k, const char *v)
{
    static const char *const integrators[] = {"eulerimplicit", "verlet", "leapfrog", "eulerexplicit"};
    long n;
    double x;
    for (int i = 0; i < 4; i++)
        if (!strcmp(k, "integrator") && !strcmp(v, integrators[i]))
            return f->integrator = i, 1;
    if (!strcmp(k, "halfstepback") || !strcmp(k, "initialdelay")) {
        const int yes = !strcmp(v, "yes");
        if (!yes && strcmp(v, "no"))
            return 0;
        *(k[0] == 'h' ? &f->halfstepback : &f->initialdelay) = yes;
        return 1;
    }
    if (!strcmp(k, "delaystep") || !strcmp(k, "vdfmax"))
        return mdl_parse_long(v, &n) == 0 && n >= 0 && (*(k[0] == 'd' ? &f->delaystep : &f->vdfmax) = n, 1);
    static const char *const reals[] = {"dtgrow", "dtshrink", "alpha0", "alphashrink", "tmax", "tmin"};
    double *field[] = {&f->dtgrow, &f->dtshrink, &f->alpha0, &f->alphashrink, &f->tmax, &f->tmin};
    for (int i = 0; i < 6; i++)
        if (!strcmp(k, reals[i]))
            return mdl_parse_double(v, &x) == 0 && x >= 0 && x <= 1e30 && (*field[i] = x, 1);
    return 0;
}

int config_read_fire(mdl_config *cfg)
{
    cfg->fire = DEFAULTS;
    char *copy = mdl_strdup(cfg->fire_keys), *save = NULL;
    if (!copy)
        return 0;
    int ok = 1;
    for (char *k = strtok_r(copy, " \t", &save); k && ok; k = strtok_r(NULL, " \t", &save)) {
        const char *v = strtok_r(NULL, " \t", &save);
        if (!v || !fire_keyword(&cfg->fire, k, v)) {
            config_fail(config_find_entry(cfg, "run", "fire"), "'%s %s': FIRE's keys are delaystep, dtgrow, dtshrink, "
                        "alpha0, alphashrink, tmax, tmin, vdfmax (numbers of 0 or more), integrator eulerimplicit|"
                        "verlet|leapfrog|eulerexplicit, halfstepback and initialdelay yes|no", k, v ? v : "");
            ok = 0;
        }
    }
    free(copy);
    return ok;
}

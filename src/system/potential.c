/* Builds the species pair table from [potential] through the style's unit (physics/pair_styles.h), or
   an EAM style's tables from its files (system/eam.c). */
#define _POSIX_C_SOURCE 200809L
#include "potential.h"

#include "../util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pair entry of species a and b (by name, or by type number: system_species_matches). */
static const mdl_pair_coeff *find_pair(const mdl_config *cfg, const mdl_system *s, int a, int b)
{
    for (int i = 0; i < cfg->npair; i++) {
        const mdl_pair_coeff *p = &cfg->pair[i];
        if ((system_species_matches(s, a, p->a) && system_species_matches(s, b, p->b)) ||
            (system_species_matches(s, b, p->a) && system_species_matches(s, a, p->b)))
            return p;
    }
    return NULL;
}

/* The global keys for a pair that takes them (A.B, unlisted; a listed one without its cutoff takes
   the global cutoff alone): each must have a value. */
static int take_globals(const mdl_config *cfg, const char *a, const char *b, int listed, double *param, double *cutoff)
{
    const mdl_pair_style_info *st = pair_style_info(cfg->style);
    for (int k = listed ? st->nparam : 0; k <= st->nparam; k++) {
        const double v = k < st->nparam ? cfg->param[cfg->style][k] : cfg->cutoff;
        const char *key = k < st->nparam ? st->key[k] : "cutoff";
        if (isnan(v)) {
            mdl_error("%s: [potential] %s: missing (%s units have no default), and pair %s-%s, not listed as pair.%s.%s, "
                      "takes it", cfg->path, key, cfg->units, a, b, a, b);
            return MDL_EINPUT;
        }
        if (k < st->nparam)
            param[k] = v;
        else
            *cutoff = v;
    }
    return MDL_OK;
}

static int check_species(const mdl_config *cfg, const mdl_system *s)
{
    for (int i = 0; i < cfg->npair; i++) {
        const mdl_pair_coeff *p = &cfg->pair[i];
        if (system_species_index((mdl_system *)s, p->a, 0) < 0 || system_species_index((mdl_system *)s, p->b, 0) < 0) {
            char key[64];
            snprintf(key, sizeof key, "pair.%s.%s", p->a, p->b);
            mdl_error("%s: [potential] %s: no species '%s' in the system", config_origin(cfg, "potential", key), key,
                      system_species_index((mdl_system *)s, p->a, 0) < 0 ? p->a : p->b);
            return MDL_EINPUT;
        }
    }
    return MDL_OK;
}

/* A cross pair (a, b)'s keys and cutoff: its keys listed, else mixed from the self pairs where the
   style mixes, else the globals; its cutoff listed, else (rcA + rcB) / 2 where the style mixes,
   else the global. *from: the listed entry whose cutoff it is (NULL: the global key's). */
static int cross_values(const mdl_config *cfg, const mdl_system *s, int a, int b,
                        const double self[][MDL_PAIR_MAX_PARAMS], const double *cut,
                        const mdl_pair_coeff *const *self_entry, double *param, double *rc,
                        const mdl_pair_coeff **from)
{
    const mdl_pair_style_info *st = pair_style_info(cfg->style);
    const mdl_pair_coeff *p = find_pair(cfg, s, a, b);
    double mixed[MDL_PAIR_MAX_PARAMS] = {0}, globals[MDL_PAIR_MAX_PARAMS] = {0}, global_cut = 0;
    const int mixes = st->mix(self[a], self[b], mixed);
    const int need_globals = (!p && !mixes) || (!(p && p->cutoff > 0) && !mixes);
    if (need_globals)
        MDL_TRY(take_globals(cfg, s->species[a], s->species[b], p != NULL, globals, &global_cut));
    memcpy(param, p ? p->param : mixes ? mixed : globals, MDL_PAIR_MAX_PARAMS * sizeof *param);
    *from = NULL;
    if (p && p->cutoff > 0) {
        *rc = p->cutoff, *from = p;
    } else if (mixes) { /* the longer of the two it mixes names the key */
        const mdl_pair_coeff *sa = self_entry[a], *sb = self_entry[b], *w = cut[a] >= cut[b] ? sa : sb;
        *rc = 0.5 * (cut[a] + cut[b]);
        *from = w && w->cutoff > 0 ? w : NULL;
    } else {
        *rc = global_cut;
    }
    return MDL_OK;
}

static int build_eam(const mdl_config *cfg, const mdl_system *s, mdl_pair_table *pt)
{
    if (!(pt->eam = calloc(1, sizeof *pt->eam))) {
        mdl_error("out of memory for the EAM tables");
        return MDL_ERUN;
    }
    MDL_TRY(eam_build(cfg, s, pt->eam));
    pt->cutmax = pt->eam->cut;
    snprintf(pt->cutmax_key, sizeof pt->cutmax_key, "%s", pt->eam->cut_key);
    return MDL_OK;
}

void potential_destroy(mdl_pair_table *pt)
{
    if (pt->eam)
        eam_free(pt->eam);
    free(pt->eam);
    pt->eam = NULL;
}

/* [potential] exclude: each pair of species named has no force and no energy (coefficients and
   cutoff 0: never within its cutoff), as LAMMPS's neigh_modify exclude type leaves it out of the
   list. */
static int exclude_pairs(const mdl_config *cfg, const mdl_system *s, mdl_pair_table *pt)
{
    char text[MDL_PATH_LEN], *save = NULL;
    mdl_copy(text, sizeof text, cfg->exclude);
    for (char *d = strtok_r(text, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
        char a[MDL_NAME_LEN + 2], b[MDL_NAME_LEN + 2];
        int ta = -1, tb = -1;
        if (sscanf(d, " %17s %17s %c", a, b, &(char){0}) == 2)
            ta = system_species_index((mdl_system *)s, a, 0), tb = system_species_index((mdl_system *)s, b, 0);
        if (ta < 0 || tb < 0 || cfg->tail) {
            mdl_error("%s: [potential] exclude: '%s': %s", config_origin(cfg, "potential", "exclude"), d,
                      cfg->tail ? "not with tail = yes" : "expected pairs of the system's species, 'A B, C D'");
            return MDL_EINPUT;
        }
        for (int k = 0; k < MDL_PAIR_MAX_COEFF; k++)
            pt->coeff[k][ta * pt->ntypes + tb] = pt->coeff[k][tb * pt->ntypes + ta] = 0.0;
        pt->cutsq[ta * pt->ntypes + tb] = pt->cutsq[tb * pt->ntypes + ta] = 0.0;
    }
    return MDL_OK;
}

int potential_build(const mdl_config *cfg, const mdl_system *s, mdl_pair_table *pt)
{
    const int nt = s->ntypes;
    const mdl_pair_style_info *st = pair_style_info(cfg->style);
    if (!st) {
        memset(pt, 0, sizeof *pt);
        pt->ntypes = nt, pt->style = cfg->style;
        if (cfg->tail) {
            mdl_error("%s: [potential] tail = yes: style %s has no tail correction (EAM's functions end at the "
                      "cutoff)", config_origin(cfg, "potential", "tail"), config_style_name(cfg->style));
            return MDL_EINPUT;
        }
        if (cfg->exclude[0]) {
            mdl_error("%s: [potential] exclude: not with an EAM style (mdlite excludes the pairs of pair styles)",
                      config_origin(cfg, "potential", "exclude"));
            return MDL_EINPUT;
        }
        return build_eam(cfg, s, pt);
    }
    double self[MDL_MAX_SPECIES][MDL_PAIR_MAX_PARAMS] = {{0}}, cut[MDL_MAX_SPECIES];
    const mdl_pair_coeff *self_entry[MDL_MAX_SPECIES];
    memset(pt, 0, sizeof *pt);
    pt->ntypes = nt, pt->style = cfg->style;
    MDL_TRY(check_species(cfg, s));
    double count[MDL_MAX_SPECIES] = {0}, e, w;
    for (size_t i = 0; i < s->n; i++)
        count[s->type[i]] += 1.0;
    if (cfg->tail && !st->tail(self[0], 1.0, &e, &w)) {
        mdl_error("%s: [potential] tail = yes: style %s has no tail correction (LAMMPS's has none either)",
                  config_origin(cfg, "potential", "tail"), st->name);
        return MDL_EINPUT;
    }
    for (int t = 0; t < nt; t++) {
        const mdl_pair_coeff *p = self_entry[t] = find_pair(cfg, s, t, t);
        if (!p || !(p->cutoff > 0)) /* a global key it takes */
            MDL_TRY(take_globals(cfg, s->species[t], s->species[t], p != NULL, self[t], &cut[t]));
        if (p) {
            memcpy(self[t], p->param, sizeof p->param);
            if (p->cutoff > 0)
                cut[t] = p->cutoff;
        }
    }
    snprintf(pt->cutmax_key, sizeof pt->cutmax_key, "cutoff");
    for (int a = 0; a < nt; a++)
        for (int b = 0; b < nt; b++) {
            double param[MDL_PAIR_MAX_PARAMS] = {0}, rc = cut[a], c[MDL_PAIR_MAX_COEFF] = {0};
            const mdl_pair_coeff *from = a == b && self_entry[a] && self_entry[a]->cutoff > 0 ? self_entry[a] : NULL;
            if (a == b)
                memcpy(param, self[a], sizeof param);
            else
                MDL_TRY(cross_values(cfg, s, a, b, self, cut, self_entry, param, &rc, &from));
            st->coeff(param, rc, cfg->shift, c);
            for (int k = 0; k < st->ncoeff; k++)
                pt->coeff[k][a * nt + b] = c[k];
            double e, w; /* the tail over the ordered pair's N_a N_b pairs of atoms (LAMMPS's etail, ptail) */
            if (cfg->tail && st->tail(param, rc, &e, &w))
                pt->tail[0] += count[a] * count[b] * e, pt->tail[1] += count[a] * count[b] * w;
            pt->cutsq[a * nt + b] = rc * rc;
            if (rc > pt->cutmax) { /* whose cutoff: this pair's own, or the longer of the two it mixes */
                pt->cutmax = rc;
                if (from)
                    snprintf(pt->cutmax_key, sizeof pt->cutmax_key, "pair.%s.%s", from->a, from->b);
                else
                    snprintf(pt->cutmax_key, sizeof pt->cutmax_key, "cutoff");
            }
        }
    return exclude_pairs(cfg, s, pt);
}

double potential_force_scale(const mdl_config *cfg)
{
    const mdl_pair_style_info *st = pair_style_info(cfg->style);
    if (!st) /* EAM (metal units): 1 eV/A, the size of a metal's forces near melting */
        return 1.0;
    double scale = isnan(cfg->param[cfg->style][0]) ? 0 : st->force_scale(cfg->param[cfg->style]);
    for (int k = 0; k < cfg->npair; k++)
        scale = fmax(scale, st->force_scale(cfg->pair[k].param));
    return scale;
}

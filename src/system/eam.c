/* EAM files read and checked value by value, converted to LAMMPS's grids and splined as LAMMPS
   splines them (pair_eam's file2array and interpolate, one grid for every funcfl file). */
#include "eam.h"
#include "eam_files.h"

#include "../util/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- LAMMPS's grids and splines ---------------------------------------------------------------- */

/* LAMMPS's interpolate: the spline of f[1..n] (spacing delta) into s (point m at m * 7). */
static void spline(int n, double delta, const double *f, double *s)
{
#define S(m, k) s[(size_t)(m) * MDL_EAM_COEFF + (k)]
    for (int m = 1; m <= n; m++)
        S(m, 6) = f[m];
    S(1, 5) = S(2, 6) - S(1, 6);
    S(2, 5) = 0.5 * (S(3, 6) - S(1, 6));
    S(n - 1, 5) = 0.5 * (S(n, 6) - S(n - 2, 6));
    S(n, 5) = S(n, 6) - S(n - 1, 6);
    for (int m = 3; m <= n - 2; m++)
        S(m, 5) = ((S(m - 2, 6) - S(m + 2, 6)) + 8.0 * (S(m + 1, 6) - S(m - 1, 6))) / 12.0;
    for (int m = 1; m <= n - 1; m++) {
        S(m, 4) = 3.0 * (S(m + 1, 6) - S(m, 6)) - 2.0 * S(m, 5) - S(m + 1, 5);
        S(m, 3) = S(m, 5) + S(m + 1, 5) - 2.0 * (S(m + 1, 6) - S(m, 6));
    }
    S(n, 4) = 0.0;
    S(n, 3) = 0.0;
    for (int m = 1; m <= n; m++) {
        S(m, 2) = S(m, 5) / delta;
        S(m, 1) = 2.0 * S(m, 4) / delta;
        S(m, 0) = 3.0 * S(m, 3) / delta;
    }
#undef S
}

/* A funcfl table a[1..n] (spacing d) at x, by LAMMPS's four-point interpolation onto one grid. */
static double regrid(const double *a, int n, double d, double x)
{
    const double sixth = 1.0 / 6.0;
    double p = x / d + 1.0;
    int k = (int)p;
    k = k < n - 2 ? k : n - 2;
    k = k > 2 ? k : 2;
    p -= k;
    p = p < 2.0 ? p : 2.0;
    const double cof1 = -sixth * p * (p - 1.0) * (p - 2.0), cof2 = 0.5 * (p * p - 1.0) * (p - 2.0);
    const double cof3 = -0.5 * p * (p + 1.0) * (p - 2.0), cof4 = sixth * p * (p * p - 1.0);
    return cof1 * a[k - 1] + cof2 * a[k] + cof3 * a[k + 1] + cof4 * a[k + 2];
}

static int alloc_splines(mdl_eam *e)
{
    const size_t c = MDL_EAM_COEFF;
    e->frho = calloc((size_t)e->nfrho * (e->nrho + 1) * c, sizeof(double));
    e->rhor = calloc((size_t)e->nrhor * (e->nr + 1) * c, sizeof(double));
    e->z2r = calloc((size_t)e->nz2r * (e->nr + 1) * c, sizeof(double));
    if (e->frho && e->rhor && e->z2r)
        return MDL_OK;
    mdl_error("out of memory for the EAM tables");
    return MDL_ERUN;
}

static double *spline_of(double *base, int k, int n)
{
    return base + (size_t)k * (n + 1) * MDL_EAM_COEFF;
}

/* Pairs (i >= j) of nelem tables in LAMMPS's lower-triangular order. */
static int z2r_index(int a, int b)
{
    const int row = a > b ? a : b, col = a > b ? b : a;
    return row * (row + 1) / 2 + col;
}

static void map_types(mdl_eam *e, int ntypes, const int *map, int fs, int nelem)
{
    for (int i = 0; i < ntypes; i++) {
        e->type2frho[i] = map[i];
        for (int j = 0; j < ntypes; j++) {
            e->type2rhor[i][j] = fs ? map[i] * nelem + map[j] : map[i];
            e->type2z2r[i][j] = z2r_index(map[i], map[j]);
        }
    }
}

/* funcfl files (one per distinct file, map: each type's) onto one grid: LAMMPS's file2array. */
static int funcfl_tables(const eam_element *f, int nf, int ntypes, const int *map, mdl_eam *e)
{
    double rmax = 0, rhomax = 0;
    e->dr = e->drho = e->cut = 0;
    for (int i = 0; i < nf; i++) {
        e->dr = fmax(e->dr, f[i].g.dr);
        e->drho = fmax(e->drho, f[i].g.drho);
        rmax = fmax(rmax, (f[i].g.nr - 1) * f[i].g.dr);
        rhomax = fmax(rhomax, (f[i].g.nrho - 1) * f[i].g.drho);
        e->cut = fmax(e->cut, f[i].g.cut);
    }
    e->nr = (int)(rmax / e->dr + 0.5);
    e->nrho = (int)(rhomax / e->drho + 0.5);
    e->rhomax = rhomax;
    e->nfrho = e->nrhor = nf;
    e->nz2r = nf * (nf + 1) / 2;
    MDL_TRY(alloc_splines(e));
    double *a = eam_table(e->nr > e->nrho ? e->nr : e->nrho);
    if (!a)
        return MDL_ERUN;
    for (int i = 0; i < nf; i++) {
        for (int m = 1; m <= e->nrho; m++)
            a[m] = regrid(f[i].frho, f[i].g.nrho, f[i].g.drho, (m - 1) * e->drho);
        spline(e->nrho, e->drho, a, spline_of(e->frho, i, e->nrho));
        for (int m = 1; m <= e->nr; m++)
            a[m] = regrid(f[i].rhor, f[i].g.nr, f[i].g.dr, (m - 1) * e->dr);
        spline(e->nr, e->dr, a, spline_of(e->rhor, i, e->nr));
    }
    for (int i = 0; i < nf; i++)
        for (int j = 0; j <= i; j++) {
            for (int m = 1; m <= e->nr; m++) {
                const double r = (m - 1) * e->dr;
                const double zri = regrid(f[i].zr, f[i].g.nr, f[i].g.dr, r), zrj = regrid(f[j].zr, f[j].g.nr, f[j].g.dr, r);
                a[m] = 27.2 * 0.529 * zri * zrj; /* Hartree x Bohr: Z in e, r phi in eV A */
            }
            spline(e->nr, e->dr, a, spline_of(e->z2r, z2r_index(i, j), e->nr));
        }
    free(a);
    map_types(e, ntypes, map, 0, nf);
    return MDL_OK;
}

/* A setfl or fs file's tables as they are (its one grid). */
static int setfl_tables(const eam_file *f, int fs, int ntypes, const int *map, mdl_eam *e)
{
    const int n = f->nelem;
    e->nrho = f->g.nrho, e->nr = f->g.nr, e->drho = f->g.drho, e->dr = f->g.dr, e->cut = f->g.cut;
    e->rhomax = (e->nrho - 1) * e->drho;
    e->nfrho = n, e->nrhor = fs ? n * n : n, e->nz2r = n * (n + 1) / 2;
    MDL_TRY(alloc_splines(e));
    for (int i = 0; i < n; i++) {
        spline(e->nrho, e->drho, f->el[i].frho, spline_of(e->frho, i, e->nrho));
        for (int j = 0; j < (fs ? n : 1); j++)
            spline(e->nr, e->dr, f->el[i].rhor + (size_t)j * (e->nr + 1), spline_of(e->rhor, fs ? i * n + j : i, e->nr));
        for (int j = 0; j <= i; j++)
            spline(e->nr, e->dr, f->z2r[i][j], spline_of(e->z2r, z2r_index(i, j), e->nr));
    }
    map_types(e, ntypes, map, fs, n);
    return MDL_OK;
}

/* ---- the configuration's files and species --------------------------------------------------- */

int eam_style(const mdl_config *cfg)
{
    return cfg->style >= MDL_EAM_FUNCFL;
}

/* [potential] file.X of species X (eam), or NULL with a message naming the key. */
static int species_file(const mdl_config *cfg, const mdl_system *s, int t)
{
    for (int k = 0; k < cfg->nfile; k++)
        if (system_species_matches(s, t, cfg->file_species[k]))
            return k;
    mdl_error("%s: [potential] file.%s: missing: style eam takes one DYNAMO funcfl file per species", cfg->path,
              s->species[t]);
    return -1;
}

/* The element species X stands for: element.X, else its own name. */
static const char *species_element(const mdl_config *cfg, const mdl_system *s, int t)
{
    for (int k = 0; k < cfg->nelement; k++)
        if (system_species_matches(s, t, cfg->element_species[k]))
            return cfg->element_name[k];
    return s->species[t];
}

static int check_keys_species(const mdl_config *cfg, const mdl_system *s)
{
    for (int k = 0; k < cfg->nfile + cfg->nelement; k++) {
        const int file = k < cfg->nfile;
        const char *sp = file ? cfg->file_species[k] : cfg->element_species[k - cfg->nfile];
        char key[64];
        snprintf(key, sizeof key, "%s.%s", file ? "file" : "element", sp);
        if (system_species_index((mdl_system *)s, sp, 0) < 0) {
            mdl_error("%s: [potential] %s: no species '%s' in the system", config_origin(cfg, "potential", key), key,
                      sp);
            return MDL_EINPUT;
        }
        if (file != (cfg->style == MDL_EAM_FUNCFL)) {
            mdl_error("%s: [potential] %s: not a key of style %s (%s)", config_origin(cfg, "potential", key), key,
                      config_style_name(cfg->style),
                      file ? "its one file is [potential] file" : "each species' element is its funcfl file's");
            return MDL_EINPUT;
        }
    }
    return MDL_OK;
}

/* eam: each species' funcfl file, read once per distinct path; with `tables`, the splines too. */
static int build_funcfl(const mdl_config *cfg, const mdl_system *s, int tables, mdl_eam *e)
{
    eam_element f[MDL_MAX_SPECIES];
    const char *paths[MDL_MAX_SPECIES];
    int nf = 0, map[MDL_MAX_SPECIES], rc = MDL_OK;
    memset(f, 0, sizeof f);
    snprintf(e->cut_key, sizeof e->cut_key, "file.%s", s->species[0]);
    for (int t = 0; t < s->ntypes && rc == MDL_OK; t++) {
        const int given = species_file(cfg, s, t);
        const char *path = given < 0 ? NULL : cfg->file_path[given], *other = path ? eam_kind_mismatch(path, 0) : NULL;
        if (other) { /* named with the key that gave it, as the config spells it */
            char key[MDL_NAME_LEN + 8];
            snprintf(key, sizeof key, "file.%s", cfg->file_species[given]);
            mdl_error("%s: [potential] file: %s: %s", config_origin(cfg, "potential", key), path, other);
        }
        if (!path || other) {
            rc = MDL_EINPUT;
            break;
        }
        int k = 0;
        while (k < nf && strcmp(paths[k], path) != 0)
            k++;
        if (k == nf) {
            paths[nf] = path;
            rc = eam_read_funcfl(path, &f[nf++]);
        }
        map[t] = k;
        e->mass[t] = f[k].mass;
        mdl_copy(e->element[t], MDL_NAME_LEN, f[k].name);
        if (rc == MDL_OK && f[k].g.cut > f[map[0]].g.cut * (1 + 1e-15)) /* the file whose cutoff the run's is */
            snprintf(e->cut_key, sizeof e->cut_key, "file.%s", s->species[t]);
    }
    if (rc == MDL_OK && tables)
        rc = funcfl_tables(f, nf, s->ntypes, map, e);
    for (int k = 0; k < nf; k++)
        free(f[k].frho), free(f[k].rhor), free(f[k].zr);
    return rc;
}

/* eam/alloy, eam/fs: one file, each species mapped to an element of it by name; with `tables`, the
   splines too. */
static int build_setfl(const mdl_config *cfg, const mdl_system *s, int tables, mdl_eam *e)
{
    eam_file f;
    memset(&f, 0, sizeof f);
    snprintf(e->cut_key, sizeof e->cut_key, "file");
    if (!cfg->eam_file[0]) {
        mdl_error("%s: [potential] file: missing: style %s reads one file", cfg->path, config_style_name(cfg->style));
        return MDL_EINPUT;
    }
    const char *other = eam_kind_mismatch(cfg->eam_file, 1);
    if (other) {
        mdl_error("%s: [potential] file: %s: %s", config_origin(cfg, "potential", "file"), cfg->eam_file, other);
        return MDL_EINPUT;
    }
    int rc = eam_read_setfl(cfg->eam_file, cfg->style == MDL_EAM_FS, &f), map[MDL_MAX_SPECIES];
    for (int t = 0; t < s->ntypes && rc == MDL_OK; t++) {
        const char *el = species_element(cfg, s, t);
        map[t] = -1;
        for (int k = 0; k < f.nelem && map[t] < 0; k++) /* the first of that name, as LAMMPS's pair_coeff maps it */
            if (strcmp(f.el[k].name, el) == 0)
                map[t] = k;
        if (map[t] < 0) {
            mdl_error("%s: species %s: no element %s in the file (it has %d; map a species with [potential] "
                      "element.%s = NAME)", cfg->eam_file, s->species[t], el, f.nelem, s->species[t]);
            rc = MDL_EINPUT;
        } else {
            e->mass[t] = f.el[map[t]].mass;
            mdl_copy(e->element[t], MDL_NAME_LEN, f.el[map[t]].name);
        }
    }
    if (rc == MDL_OK && tables)
        rc = setfl_tables(&f, cfg->style == MDL_EAM_FS, s->ntypes, map, e);
    eam_file_free(&f);
    return rc;
}

/* The files read and checked, the masses taken; with `tables`, the splines built. */
static int build(const mdl_config *cfg, const mdl_system *s, int tables, mdl_eam *out)
{
    memset(out, 0, sizeof *out);
    MDL_TRY(check_keys_species(cfg, s));
    int rc = cfg->style == MDL_EAM_FUNCFL ? build_funcfl(cfg, s, tables, out) : build_setfl(cfg, s, tables, out);
    if (rc != MDL_OK) {
        eam_free(out);
        return rc;
    }
    if (tables)
        out->rdr = 1.0 / out->dr, out->rdrho = 1.0 / out->drho;
    return MDL_OK;
}

int eam_build(const mdl_config *cfg, const mdl_system *s, mdl_eam *out)
{
    return build(cfg, s, 1, out);
}

void eam_free(mdl_eam *e)
{
    free(e->frho), free(e->rhor), free(e->z2r);
    e->frho = e->rhor = e->z2r = NULL;
}

int eam_masses(const mdl_config *cfg, mdl_system *s)
{
    if (config_has(cfg, "system", "mass") || cfg->nmass > 0) {
        char key[MDL_NAME_LEN + 8] = "mass";
        if (cfg->nmass > 0)
            snprintf(key, sizeof key, "mass.%s", cfg->mass_species[0]);
        mdl_error("%s: [system] %s: style %s takes the masses from its file(s)", config_origin(cfg, "system", key),
                  key, config_style_name(cfg->style));
        return MDL_EINPUT;
    }
    mdl_eam e;
    MDL_TRY(build(cfg, s, 0, &e)); /* the files alone: the run's potential_build makes the tables */
    memcpy(s->mass, e.mass, sizeof e.mass);
    for (int t = 0; t < s->ntypes; t++) {
        const int numbered = s->species[t][strspn(s->species[t], "0123456789")] == '\0';
        if (numbered && e.element[t][0] && system_species_index(s, e.element[t], 0) < 0)
            mdl_copy(s->species[t], MDL_NAME_LEN, e.element[t]);
    }
    eam_free(&e);
    return MDL_OK;
}

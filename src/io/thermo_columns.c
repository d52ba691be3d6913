/* LAMMPS's thermo keywords that mdlite prints, each as LAMMPS computes it for an atomic system: the
   energies of other kinds (bonds, charges, long-range) are 0, evdwl and epair are the potential
   energy (the tail included, as LAMMPS's are), the cell of an orthogonal box has right angles. */
#include "thermo_columns.h"

#include "../config/lammps_expr.h"
#include "../util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { C_STEP, C_ELAPSED, C_ELAPLONG, C_DT, C_TIME, C_CPU, C_TPCPU, C_SPCPU, C_ATOMS, C_TEMP, C_PRESS, C_PE, C_KE,
       C_ETOTAL, C_ENTHALPY, C_EVDWL, C_ECOUL, C_EPAIR, C_EBOND, C_EANGLE, C_EDIHED, C_EIMP, C_EMOL, C_ELONG, C_ETAIL,
       C_VOL, C_DENSITY, C_LX, C_LY, C_LZ, C_XLO, C_XHI, C_YLO, C_YHI, C_ZLO, C_ZHI, C_XY, C_XZ, C_YZ, C_PXX, C_PYY,
       C_PZZ, C_PXY, C_PXZ, C_PYZ, C_FMAX, C_FNORM, C_NBUILD, C_NDANGER, C_CELLA, C_CELLB, C_CELLC, C_CELLALPHA,
       C_CELLBETA, C_CELLGAMMA, C_ECOUPLE, C_ECONSERVE, C_BONDS, C_ANGLES, C_DIHEDRALS, C_IMPROPERS, C_COUNT };

enum { F = MDL_THERMO_NEEDS_FORCES, T = MDL_THERMO_NEEDS_TENSOR, S = MDL_THERMO_NEEDS_STATS, K = MDL_THERMO_NEEDS_CLOCK };

static const thermo_column COLUMNS[C_COUNT] = {
    {"step", "Step", 1, 0, 0},          {"elapsed", "Elapsed", 1, 0, 0},   {"elaplong", "Elaplong", 1, 0, 0},
    {"dt", "Dt", 0, 0, 0},              {"time", "Time", 0, 0, 0},         {"cpu", "CPU", 0, 0, K},
    {"tpcpu", "T/CPU", 0, 0, K},        {"spcpu", "S/CPU", 0, 0, K},       {"atoms", "Atoms", 1, 0, 0},
    {"temp", "Temp", 0, 0, 0},          {"press", "Press", 0, 0, 0},       {"pe", "PotEng", 0, 1, 0},
    {"ke", "KinEng", 0, 1, 0},          {"etotal", "TotEng", 0, 1, 0},     {"enthalpy", "Enthalpy", 0, 1, 0},
    {"evdwl", "E_vdwl", 0, 1, 0},       {"ecoul", "E_coul", 0, 1, 0},      {"epair", "E_pair", 0, 1, 0},
    {"ebond", "E_bond", 0, 1, 0},       {"eangle", "E_angle", 0, 1, 0},    {"edihed", "E_dihed", 0, 1, 0},
    {"eimp", "E_impro", 0, 1, 0},       {"emol", "E_mol", 0, 1, 0},        {"elong", "E_long", 0, 1, 0},
    {"etail", "E_tail", 0, 1, 0},       {"vol", "Volume", 0, 0, 0},        {"density", "Density", 0, 0, 0},
    {"lx", "Lx", 0, 0, 0},              {"ly", "Ly", 0, 0, 0},             {"lz", "Lz", 0, 0, 0},
    {"xlo", "Xlo", 0, 0, 0},            {"xhi", "Xhi", 0, 0, 0},           {"ylo", "Ylo", 0, 0, 0},
    {"yhi", "Yhi", 0, 0, 0},            {"zlo", "Zlo", 0, 0, 0},           {"zhi", "Zhi", 0, 0, 0},
    {"xy", "Xy", 0, 0, 0},              {"xz", "Xz", 0, 0, 0},             {"yz", "Yz", 0, 0, 0},
    {"pxx", "Pxx", 0, 0, T},            {"pyy", "Pyy", 0, 0, T},           {"pzz", "Pzz", 0, 0, T},
    {"pxy", "Pxy", 0, 0, T},            {"pxz", "Pxz", 0, 0, T},           {"pyz", "Pyz", 0, 0, T},
    {"fmax", "Fmax", 0, 0, F},          {"fnorm", "Fnorm", 0, 0, F},       {"nbuild", "Nbuild", 1, 0, S},
    {"ndanger", "Ndanger", 1, 0, S},    {"cella", "Cella", 0, 0, 0},       {"cellb", "Cellb", 0, 0, 0},
    {"cellc", "Cellc", 0, 0, 0},        {"cellalpha", "CellAlpha", 0, 0, 0}, {"cellbeta", "CellBeta", 0, 0, 0},
    {"cellgamma", "CellGamma", 0, 0, 0}, {"ecouple", "Ecouple", 0, 0, 0},  {"econserve", "Econserve", 0, 1, 0},
    {"bonds", "Bonds", 1, 0, 0},        {"angles", "Angles", 1, 0, 0},     {"dihedrals", "Diheds", 1, 0, 0},
    {"impropers", "Impros", 1, 0, 0}};

int thermo_column_index(const char *name)
{
    for (int c = 0; c < C_COUNT; c++)
        if (!strcmp(COLUMNS[c].name, name))
            return c;
    return -1;
}

const thermo_column *thermo_column_at(int c)
{
    return &COLUMNS[c];
}

const char *thermo_column_names(void)
{
    static char names[1024];
    if (!names[0])
        for (int c = 0; c < C_COUNT; c++)
            strcat(strcat(names, c ? " " : ""), COLUMNS[c].name);
    return names;
}

/* The pressure tensor's component k (xx yy zz xy xz yz), as LAMMPS's compute pressure's vector:
   (sum m v_a v_b + W_ab) / V, the tail's pressure on the diagonal. */
static double pressure_component(const mdl_thermo *t, int k, const mdl_observables *o, const mdl_thermo_extra *x)
{
    return (x->kinetic[k] + x->virial[k]) / o->volume * t->nktv2p + (k < 3 ? o->ptail : 0.0);
}

/* LAMMPS's cella .. cellgamma: the edges' lengths and angles (degrees) from h = (lx, ly, lz, yz, xz,
   xy), in LAMMPS's operations; an orthogonal box's are its lengths and 90. */
static double cell_parameter(int c, const mdl_observables *o)
{
    const double lx = o->box_len[0], ly = o->box_len[1], lz = o->box_len[2];
    const double xy = o->box_tilt[0], xz = o->box_tilt[1], yz = o->box_tilt[2];
    const int tri = xy != 0 || xz != 0 || yz != 0;
    const double b = sqrt(ly * ly + xy * xy), cc = sqrt(lz * lz + yz * yz + xz * xz), pi = 3.14159265358979323846;
    switch (c) {
    case C_CELLA: return lx;
    case C_CELLB: return tri ? b : ly;
    case C_CELLC: return tri ? cc : lz;
    case C_CELLALPHA: return tri ? acos((xy * xz + ly * yz) / sqrt((ly * ly + xy * xy) * (lz * lz + yz * yz + xz * xz))) * 180.0 / pi : 90.0;
    case C_CELLBETA: return tri ? acos(xz / cc) * 180.0 / pi : 90.0;
    default: return tri ? acos(xy / b) * 180.0 / pi : 90.0;
    }
}

double thermo_column_value(const mdl_thermo *t, int c, long step, double time, const mdl_observables *o,
                           const mdl_thermo_extra *x)
{
    const double per = t->norm && COLUMNS[c].energy ? t->natoms : 1.0;
    const double etotal = (o->potential + o->fix_energy + o->kinetic) / per; /* pe: with the fixes' energy */
    switch (c) {
    case C_STEP: return (double)step;
    case C_ELAPSED: return (double)(step - x->run_first);
    case C_ELAPLONG: return (double)(step - x->first);
    case C_DT: return x->dt;
    case C_TIME: return time;
    case C_CPU: return x->cpu;
    case C_TPCPU: return x->tpcpu;
    case C_SPCPU: return x->spcpu;
    case C_ATOMS: return t->natoms;
    case C_TEMP: return o->temperature;
    case C_PRESS: return o->pressure;
    case C_PE: return (o->potential + o->fix_energy) / per;
    case C_EVDWL: case C_EPAIR: return o->potential / per;
    case C_KE: return o->kinetic / per;
    case C_ETOTAL: return etotal;
    case C_ENTHALPY: return etotal + o->pressure * (o->volume / per) / t->nktv2p;
    case C_ETAIL: return o->etail / per;
    case C_VOL: return o->volume;
    case C_DENSITY: return t->mass * t->mv2d / o->volume;
    case C_LX: case C_LY: case C_LZ: return o->box_len[c - C_LX];
    case C_XY: case C_XZ: case C_YZ: return o->box_tilt[c - C_XY];
    case C_CELLA: case C_CELLB: case C_CELLC: case C_CELLALPHA: case C_CELLBETA: case C_CELLGAMMA:
        return cell_parameter(c, o);
    case C_XLO: case C_YLO: case C_ZLO: return o->box_lo[(c - C_XLO) / 2];
    case C_XHI: case C_YHI: case C_ZHI: return o->box_lo[(c - C_XHI) / 2] + o->box_len[(c - C_XHI) / 2];
    case C_PXX: case C_PYY: case C_PZZ: case C_PXY: case C_PXZ: case C_PYZ:
        return pressure_component(t, c - C_PXX, o, x);
    case C_FMAX: return x->fmax;
    case C_FNORM: return x->fnorm;
    case C_NBUILD: return (double)x->nbuild;
    case C_NDANGER: return (double)x->ndanger;
    case C_ECOUPLE: return o->ecouple; /* LAMMPS's: a total, whatever norm says */
    case C_ECONSERVE: return etotal + o->ecouple; /* LAMMPS's: etotal (per atom with norm) + ecouple (a total) */
    default: return 0.0; /* no bonds, charges, long-range or molecular energies in an atomic system */
    }
}

/* ---- v_NAME columns: an equal-style variable's formula over thermo keywords -------------------- */

typedef struct {
    const mdl_thermo *t;
    long step;
    double time;
    const mdl_observables *o;
    const mdl_thermo_extra *x;
    int needs;    /* the keywords' MDL_THERMO_NEEDS_* (a check: values not asked for) */
    int requires; /* the LAMMPS computes they need (LAMMPS_TEMP ...), and the first keyword that needs one */
    char first[16];
    int unknown;  /* a word that is no thermo keyword */
    double dry;   /* the value of every keyword where there are no observables (a check) */
    uint32_t computes; /* the computes named (bit j: compute j) */
} keyword_ctx;

enum { LAMMPS_TEMP = 1, LAMMPS_PRESS = 2, LAMMPS_PE = 4 };

/* The computes LAMMPS's thermo makes for keyword c as a column (Thermo::parse_fields), and those a
   formula needs for it (Thermo::evaluate_keyword: "requires thermo to use/init ..."). */
static int lammps_computes(int c, int in_formula)
{
    switch (c) {
    case C_TEMP: case C_KE: return LAMMPS_TEMP;
    case C_PRESS: case C_PXX: case C_PYY: case C_PZZ: case C_PXY: case C_PXZ: case C_PYZ: return LAMMPS_PRESS;
    case C_ETOTAL: case C_ECONSERVE: return LAMMPS_TEMP | LAMMPS_PE;
    case C_ENTHALPY: return LAMMPS_TEMP | LAMMPS_PRESS | LAMMPS_PE;
    case C_ECOUPLE: return in_formula ? 0 : LAMMPS_PE;
    case C_PE: case C_EVDWL: case C_ECOUL: case C_EPAIR: case C_EBOND: case C_EANGLE: case C_EDIHED: case C_EIMP:
    case C_EMOL: case C_ELONG: case C_ETAIL: return LAMMPS_PE;
    default: return 0;
    }
}

/* The computes LAMMPS's thermo makes for the table's columns (mdlite's own columns: all of them). */
static int made_computes(const mdl_thermo *t)
{
    int made = t->ncol ? 0 : LAMMPS_TEMP | LAMMPS_PRESS | LAMMPS_PE;
    for (int k = 0; k < t->ncol; k++)
        made |= t->col[k] < MDL_THERMO_VARIABLE ? lammps_computes(t->col[k], 0) : 0;
    return made;
}

/* What a formula's keyword needs that the table does not make (miss: LAMMPS_* bits), LAMMPS's words:
   *what the quantity, *keyword the thermo keyword that makes it. */
static void missing_compute(int miss, const char **what, const char **keyword)
{
    *what = miss & LAMMPS_TEMP ? "temperature" : miss & LAMMPS_PE ? "potential energy" : "pressure";
    *keyword = miss & LAMMPS_TEMP ? "temp" : miss & LAMMPS_PE ? "pe" : "press";
}

int thermo_check_variables(const mdl_thermo *t, const char *origin)
{
    const int made = made_computes(t);
    for (int j = 0; j < t->nvar; j++)
        if (t->var_requires[j] & ~made) {
            const char *what, *key;
            missing_compute(t->var_requires[j] & ~made, &what, &key);
            mdl_error("%s: [output] thermo_columns: %s: a keyword of its formula (%s) needs the %s LAMMPS computes only "
                      "for a column such as %s (LAMMPS: thermo keyword in variable requires thermo to use/init %s)",
                      origin, t->var_label[j], t->var_first[j], what, key, key);
            return MDL_EINPUT;
        }
    return MDL_OK;
}

/* c_ID or c_ID[k] of the computes: the compute's index into *j and the value's (0 its scalar) into
   *k; or NULL, else why not. */
static const char *compute_reference(const mdl_computes *cs, const char *name, int *j, int *k)
{
    const char *id = name + 2, *open = strchr(id, '[');
    const size_t n = open ? (size_t)(open - id) : strlen(id);
    *j = -1, *k = 0;
    for (int i = 0; cs && i < cs->n && *j < 0; i++)
        *j = strlen(cs->c[i].id) == n && !strncmp(cs->c[i].id, id, n) ? i : -1;
    if (*j < 0)
        return "no compute of that ID ([output] thermo_computes)";
    const mdl_compute *c = &cs->c[*j];
    const int size = compute_vector_size(c);
    if (size < 0)
        return "a per-atom compute: its values reach thermo through a compute reduce";
    if (!open)
        return compute_has_scalar(c) ? NULL : "this compute has a vector: c_ID[k]";
    char *end = NULL;
    const long v = strtol(open + 1, &end, 10);
    if (end == open + 1 || strcmp(end, "]") != 0 || v < 1 || v > size)
        return size ? "c_ID[k]: k from 1 to the compute's vector's length" : "this compute has a scalar alone: c_ID";
    *k = (int)v;
    return NULL;
}

int thermo_compute_add(mdl_thermo *t, const char *column, const char *origin)
{
    int j, k;
    const char *why = compute_reference(t->computes, column, &j, &k);
    if (!why && (t->ncompcol == MDL_THERMO_MAX_COLUMNS || strlen(column) >= sizeof t->comp_label[0]))
        why = "one too many or too long";
    if (why) {
        mdl_error("%s: [output] thermo_columns: %s: %s", origin, column, why);
        return -1;
    }
    const int c = t->ncompcol++;
    t->comp_of[c] = j, t->comp_k[c] = k;
    snprintf(t->comp_label[c], sizeof t->comp_label[c], "%s", column);
    return MDL_THERMO_COMPUTE + c;
}

/* Value k of compute i on a row (pe: the observables', with the fixes' energy; the others the extras'). */
static double compute_value(const mdl_thermo *t, int i, int k, const mdl_observables *o, const mdl_thermo_extra *x)
{
    return t->computes->c[i].style == MDL_COMPUTE_PE ? o->potential + o->fix_energy : x->compute[i][k];
}

static int keyword_value(void *user, const char *name, double *out, mdl_buf *why)
{
    keyword_ctx *k = user;
    if (!strncmp(name, "c_", 2)) { /* a compute's value, as the compute gives it (never per atom) */
        int j, e;
        const char *bad = compute_reference(k->t->computes, name, &j, &e);
        if (bad) {
            k->unknown = 1;
            buf_clear(why);
            return buf_addf(why, "%s: %s", name, bad) == MDL_OK ? MDL_EINPUT : MDL_ERUN;
        }
        const int pe = k->t->computes->c[j].style == MDL_COMPUTE_PE;
        k->computes |= 1u << j;
        k->needs |= pe ? 0 : MDL_THERMO_NEEDS_COMPUTES;
        *out = k->o ? compute_value(k->t, j, e, k->o, k->x) : k->dry;
        return MDL_OK;
    }
    const int c = thermo_column_index(name);
    if (c < 0) {
        k->unknown = 1;
        buf_clear(why);
        return buf_addf(why, "'%s' is not a thermo keyword mdlite has", name) == MDL_OK ? MDL_EINPUT : MDL_ERUN;
    }
    k->needs |= COLUMNS[c].needs;
    if (lammps_computes(c, 1) && !k->requires)
        snprintf(k->first, sizeof k->first, "%s", name);
    k->requires |= lammps_computes(c, 1);
    *out = k->o ? thermo_column_value(k->t, c, k->step, k->time, k->o, k->x) : k->dry;
    return MDL_OK;
}

static int no_variables(void *user, const char *name, double *out, mdl_buf *why)
{
    (void)user, (void)out;
    buf_clear(why);
    return buf_addf(why, "v_%s: the converter writes every variable into the formula", name) == MDL_OK ? MDL_EINPUT
                                                                                                     : MDL_ERUN;
}

/* A formula's words and syntax checked on dry values (k->o NULL): one that fails on each of three (a syntax
   error, 1/(pe-pe)) fails on every row; one that fails on some (1/(temp-1)) is left to its rows. */
static int dry_evaluate(const char *formula, keyword_ctx *k, mdl_buf *why)
{
    static const double DRY[] = {1.0, -1.37, 2.71};
    double v;
    int rc = MDL_EINPUT;
    for (int d = 0; d < 3 && rc != MDL_OK && !k->unknown; d++) {
        k->dry = DRY[d];
        buf_clear(why);
        rc = lammps_expr_eval_thermo(formula, no_variables, keyword_value, k, &v, why);
    }
    return rc;
}

/* NAME's formula in vars ("NAME=FORMULA;..."), malloc'ed, or NULL. */
static char *formula_of(const char *vars, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = vars; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL)
        if (!strncmp(p, name, n) && p[n] == '=') {
            const char *f = p + n + 1, *end = strchr(f, ';');
            const size_t len = end ? (size_t)(end - f) : strlen(f);
            char *out = malloc(len + 1);
            if (out)
                memcpy(out, f, len), out[len] = '\0';
            return out;
        }
    return NULL;
}

/* The entry ID=STYLE:K,K of fixes for id (its length n), or NULL. */
static const char *fix_entry(const char *fixes, const char *id, size_t n)
{
    for (const char *p = fixes; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL)
        if (!strncmp(p, id, n) && p[n] == '=')
            return p + n + 1;
    return NULL;
}

int thermo_fix_add(mdl_thermo *t, const char *column, const char *fixes, const char *origin)
{
    const char *id = column + 2, *open = strchr(id, '[');
    const size_t n = open ? (size_t)(open - id) : strlen(id);
    const char *e = fix_entry(fixes, id, n);
    long k = 0;
    char *end = NULL;
    if (open)
        k = strtol(open + 1, &end, 10);
    int items[MDL_THERMO_MAX_FIXES], nitems = 0;
    const char *r = e ? strchr(e, ':') : NULL;
    for (r = r ? r + 1 : NULL; r && *r && *r != ';' && nitems < MDL_THERMO_MAX_FIXES;) { /* its items K,K */
        items[nitems++] = atoi(r);
        r += strcspn(r, ",;");
        r = *r == ',' ? r + 1 : NULL;
    }
    const int wall = e && !strncmp(e, "wall:", 5), balance = e && !strncmp(e, "balance:", 8), most = wall ? nitems : 3;
    const char *why = !e || (!nitems && !balance) ? "no force fix of that id ([run] force_fixes' id NAME: a wall or an "
                                                    "indenter) and not [output] thermo_balance_id"
                      : open && (!end || end == open + 1 || strcmp(end, "]") != 0 || k < 1 || k > most)
                          ? (wall ? "f_ID[k]: k from 1 to the fix's walls" : "f_ID[k]: k from 1 to 3 (the indenter's force)")
                      : t->nfixcol == MDL_THERMO_MAX_COLUMNS || strlen(column) >= sizeof t->fix_label[0] ? "one too many or too long"
                                                                                                       : NULL;
    if (why) {
        mdl_error("%s: [output] thermo_columns: %s: %s", origin, column, why);
        return -1;
    }
    const int j = t->nfixcol++;
    snprintf(t->fix_label[j], sizeof t->fix_label[j], "%s", column);
    if (balance) { /* not extensive: never per atom */
        t->fix_items[j] = 0, t->fix_comp[j] = 10 + (int)k;
        return MDL_THERMO_FIX + j;
    }
    t->fix_items[j] = 0;
    for (int i = 0; i < nitems; i++) /* the energy: every wall's; a wall's force: its own */
        t->fix_items[j] |= !open || !wall || i == k - 1 ? 1u << items[i] : 0u;
    t->fix_comp[j] = !open ? 0 : wall ? 1 : (int)k;
    return MDL_THERMO_FIX + j;
}

int thermo_variable_add(mdl_thermo *t, const char *column, const char *vars, const char *origin)
{
    char *f = formula_of(vars, column + 2);
    if (!f || t->nvar == MDL_THERMO_MAX_COLUMNS) {
        free(f);
        mdl_error("%s: [output] thermo_columns: %s: no formula for it in [output] thermo_variables", origin, column);
        return -1;
    }
    keyword_ctx k = {t, 0, 0, NULL, NULL, 0, 0, "", 0, 0, 0};
    mdl_buf why = {0};
    const int rc = dry_evaluate(f, &k, &why);
    if (rc != MDL_OK) {
        mdl_error("%s: [output] thermo_variables: %s = %s: %s", origin, column + 2, f, buf_str(&why));
        buf_free(&why), free(f);
        return -1;
    }
    buf_free(&why);
    const int j = t->nvar++;
    t->var_formula[j] = f, t->var_label[j] = mdl_strdup(column), t->var_needs[j] = k.needs;
    t->var_requires[j] = k.requires;
    memcpy(t->var_first[j], k.first, sizeof k.first);
    return t->var_label[j] ? MDL_THERMO_VARIABLE + j : -1;
}

const char *thermo_label(const mdl_thermo *t, int c)
{
    if (c >= MDL_THERMO_COMPUTE)
        return t->comp_label[c - MDL_THERMO_COMPUTE];
    if (c >= MDL_THERMO_FIX)
        return t->fix_label[c - MDL_THERMO_FIX];
    return c >= MDL_THERMO_VARIABLE ? t->var_label[c - MDL_THERMO_VARIABLE] : COLUMNS[c].label;
}

int thermo_integer(int c)
{
    return c < MDL_THERMO_VARIABLE && COLUMNS[c].integer;
}

int thermo_needs_of(const mdl_thermo *t, int c)
{
    if (c >= MDL_THERMO_COMPUTE) /* pe: the observables' */
        return t->computes->c[t->comp_of[c - MDL_THERMO_COMPUTE]].style == MDL_COMPUTE_PE ? 0 : MDL_THERMO_NEEDS_COMPUTES;
    if (c >= MDL_THERMO_FIX)
        return t->fix_comp[c - MDL_THERMO_FIX] >= 10 ? MDL_THERMO_NEEDS_BALANCE : MDL_THERMO_NEEDS_FIXES;
    return c >= MDL_THERMO_VARIABLE ? t->var_needs[c - MDL_THERMO_VARIABLE] : COLUMNS[c].needs;
}

double thermo_value(mdl_thermo *t, int c, long step, double time, const mdl_observables *o, const mdl_thermo_extra *x)
{
    if (c < MDL_THERMO_VARIABLE)
        return thermo_column_value(t, c, step, time, o, x);
    if (c >= MDL_THERMO_COMPUTE) { /* an extensive value per atom with thermo_modify norm, as LAMMPS's thermo */
        const int j = c - MDL_THERMO_COMPUTE, i = t->comp_of[j];
        const double v = compute_value(t, i, t->comp_k[j], o, x);
        return t->norm && compute_extensive(&t->computes->c[i], t->comp_k[j]) ? v / t->natoms : v;
    }
    if (c >= MDL_THERMO_FIX) { /* extensive, as LAMMPS's fixes: per atom with thermo_modify norm */
        const int j = c - MDL_THERMO_FIX;
        if (t->fix_comp[j] >= 10)
            return x->balance[t->fix_comp[j] - 10];
        double v = 0;
        for (int f = 0; f < MDL_THERMO_MAX_FIXES; f++)
            v += (t->fix_items[j] >> f) & 1u ? x->fix_out[f][t->fix_comp[j]] : 0.0;
        return t->norm ? v / t->natoms : v;
    }
    keyword_ctx k = {t, step, time, o, x, 0, 0, "", 0, 0, 0};
    mdl_buf why = {0};
    double v = 0;
    const int j = c - MDL_THERMO_VARIABLE;
    if (lammps_expr_eval_thermo(t->var_formula[j], no_variables, keyword_value, &k, &v, &why) != MDL_OK) {
        if (!t->failed)
            mdl_error("thermo column %s at step %ld: %s = %s: %s", t->var_label[j], step, t->var_label[j] + 2,
                      t->var_formula[j], buf_str(&why));
        t->failed = 1, v = NAN;
    }
    buf_free(&why);
    return v;
}

int thermo_formula_value(mdl_thermo *t, const char *formula, long step, double time, const mdl_observables *o,
                         const mdl_thermo_extra *x, double *v, mdl_buf *why)
{
    keyword_ctx k = {t, step, time, o, x, 0, 0, "", 0, 0, 0};
    return lammps_expr_eval_thermo(formula, no_variables, keyword_value, &k, v, why);
}

int thermo_check_formula(const mdl_thermo *t, const char *formula, mdl_buf *why)
{
    keyword_ctx k = {t, 0, 0, NULL, NULL, 0, 0, "", 0, 0, 0};
    double v;
    const int rc = dry_evaluate(formula, &k, why);
    const int miss = rc == MDL_OK ? k.requires & ~made_computes(t) : 0;
    if (miss) {
        const char *what, *key;
        missing_compute(miss, &what, &key);
        buf_clear(why);
        return buf_addf(why, "%s needs the %s LAMMPS computes only for a thermo column such as %s (LAMMPS: thermo keyword "
                        "in variable requires thermo to use/init %s)", k.first, what, key, key) == MDL_OK ? MDL_EINPUT : MDL_ERUN;
    }
    uint32_t current = 0; /* the computes the table's last row invoked: its columns' and its formulas' */
    for (int c = 0; c < t->ncompcol; c++)
        current |= 1u << t->comp_of[c];
    for (int j = 0; j < t->nvar; j++) {
        keyword_ctx f = {t, 0, 0, NULL, NULL, 0, 0, "", 0, 1.0, 0};
        mdl_buf w = {0};
        lammps_expr_eval_thermo(t->var_formula[j], no_variables, keyword_value, &f, &v, &w);
        buf_free(&w);
        current |= f.computes;
    }
    for (int j = 0; rc == MDL_OK && t->computes && j < t->computes->n; j++)
        if ((k.computes >> j) & 1u && !((current >> j) & 1u) && t->computes->c[j].style != MDL_COMPUTE_PE) {
            buf_clear(why);
            return buf_addf(why, "c_%s: a compute the last run's thermo did not print at its last step (LAMMPS: compute "
                            "used in variable between runs is not current)", t->computes->c[j].id) == MDL_OK
                       ? MDL_EINPUT : MDL_ERUN;
        }
    return rc;
}

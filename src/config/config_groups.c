/* [system] groups' names and definitions checked, and the keys that name a group read into bits:
   [run] force_fixes (setforce, addforce, aveforce), [run] thermostat_group, [output] thermo_group and
   thermo_pressure_group. */
#define _POSIX_C_SOURCE 200809L
#include "config_schema.h"

#include "../physics/region.h"
#include "../util/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The index of group `name` (0: all), or -1. */
static int group_index(const mdl_config *cfg, const char *name)
{
    for (int k = 0; k < cfg->ngroups; k++)
        if (!strcmp(cfg->group_name[k], name))
            return k;
    return -1;
}

uint32_t config_group_bit(const mdl_config *cfg, const char *name)
{
    const int k = group_index(cfg, name);
    return k < 0 ? 0 : 1u << k;
}

uint32_t config_group_type_dependent(const mdl_config *cfg, const char *definition, uint32_t *typed)
{
    char *text = mdl_strdup(definition), *w[1024], *save = NULL;
    int n = 0;
    for (char *t = text ? strtok_r(text, " \t", &save) : NULL; t && n < 1024; t = strtok_r(NULL, " \t", &save))
        w[n++] = t;
    int dependent = n >= 2 && !strcmp(w[1], "type");
    const int of_groups = n >= 2 && (!strcmp(w[1], "union") || !strcmp(w[1], "subtract") || !strcmp(w[1], "intersect"));
    for (int a = 2; a < n && !dependent && of_groups; a++)
        dependent = (*typed & config_group_bit(cfg, w[a])) != 0;
    const uint32_t bit = n >= 1 ? config_group_bit(cfg, w[0]) : 0;
    free(text);
    if (dependent)
        *typed |= bit;
    return dependent ? bit : 0;
}

static int valid_name(const char *w)
{
    if (!*w || strlen(w) >= MDL_GROUP_NAME_LEN)
        return 0;
    for (const char *c = w; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && (*c != '-' || c == w))
            return 0;
    return 1;
}

/* One definition's words (NAME HOW ARGS): NULL, or why it is not one. Its name is added when new. */
static const char *group_definition(mdl_config *cfg, char **w, int n)
{
    static const char *const hows[] = {"block", "type", "id", "union", "subtract", "intersect", "empty", "sphere",
                                       "cylinder", "made_type"};
    int how = 0;
    while (how < 10 && (n < 2 || strcmp(w[1], hows[how])))
        how++;
    if (how == 9) /* made_type: as type, of the species the atoms were made with */
        how = 1;
    else if (how == 10)
        how = 9;
    if (n < 2 || !valid_name(w[0]))
        return "expected NAME HOW ARGS: a name of letters, digits, '_' and '-' (not first; at most 31), then block, "
               "sphere, cylinder, type, made_type, id, union, subtract, intersect or empty";
    if (!strcmp(w[0], "all"))
        return "all is every atom: it is not redefined";
    if (how == 9)
        return "HOW is block, sphere, cylinder, type, made_type, id, union, subtract, intersect or empty";
    const int args = n - 2;
    mdl_region_set r;
    if ((how == 0 || how >= 7) && region_set_parse(w + 1, n - 1, &r) != n - 1)
        return "a region is block XLO XHI YLO YHI ZLO ZHI, sphere X Y Z R or cylinder x|y|z C1 C2 R LO HI (box units), "
               "then out or nothing; or up to 8 of them joined by 'and' (in all) or by 'or' (in any)";
    if ((how == 6 && args) || ((how == 1 || how == 2 || how == 3) && args < 1) || ((how == 4 || how == 5) && args < 2))
        return how == 6 ? "empty takes nothing" : how <= 3 ? "at least one type, id or group" : "at least two groups";
    for (int a = 2; a < n && how >= 1 && how <= 5; a++) {
        long lo, hi;
        char *colon = strchr(w[a], ':');
        if (how == 2 && colon)
            *colon = '\0';
        if (how == 2 && (mdl_parse_long(w[a], &lo) != 0 || lo < 1 || (colon && (mdl_parse_long(colon + 1, &hi) != 0 || hi < lo))))
            return "ids are numbers from 1, or ranges A:B";
        if (how >= 3 && group_index(cfg, w[a]) < 0)
            return "a group it names is not defined before it";
    }
    if (group_index(cfg, w[0]) < 0) {
        if (cfg->ngroups == MDL_MAX_GROUPS)
            return "more than 31 groups (LAMMPS's limit too)";
        mdl_copy(cfg->group_name[cfg->ngroups++], MDL_GROUP_NAME_LEN, w[0]);
    }
    return NULL;
}

static int read_definitions(mdl_config *cfg)
{
    cfg->ngroups = 1;
    mdl_copy(cfg->group_name[0], MDL_GROUP_NAME_LEN, "all");
    char *copy = mdl_strdup(cfg->groups), *save = NULL;
    if (!copy)
        return 0;
    int ok = 1;
    uint32_t typed = 0;
    for (char *d = strtok_r(copy, ",", &save); d && ok; d = strtok_r(NULL, ",", &save)) {
        char *w[1024], *s2 = NULL, *text = mdl_strdup(d);
        int n = 0;
        for (char *t = text ? strtok_r(text, " \t", &s2) : NULL; t && n < 1024; t = strtok_r(NULL, " \t", &s2))
            w[n++] = t;
        const char *why = text ? group_definition(cfg, w, n) : "out of memory";
        const uint32_t before = typed;
        if (!why && !config_group_type_dependent(cfg, d, &typed) && (before & config_group_bit(cfg, w[0])))
            why = "a definition that does not depend on types after one of the same group that does (mdlite makes "
                  "the groups of types after set_types, the others before it)";
        if (why) {
            config_fail(config_find_entry(cfg, "system", "groups"), "'%s': %s", d, why);
            ok = 0;
        }
        free(text);
    }
    free(copy);
    return ok;
}

/* A key naming one group into its bit ("" is all). */
/* A group key's value, "NAME [COMPONENTS]": the group's bit, and the velocity components its
   temperature counts (COMPONENTS of x, y and z, each once, z not in 2-d: LAMMPS's compute temp/partial;
   none: all, 7). */
static int group_key(const mdl_config *cfg, const char *section, const char *key, const char *name, uint32_t *bit,
                     int *components)
{
    char one[MDL_GROUP_NAME_LEN + 2], comp[8] = "";
    const int n = sscanf(name, " %33s %7s %c", one, comp, &(char){0});
    const int k = n <= 0 ? 0 : n <= 2 ? group_index(cfg, one) : -1;
    int c = 0, ok = k >= 0 && strlen(comp) <= 3; /* no COMPONENTS (or no key): every component */
    for (const char *p = comp; ok && *p; p++) {
        const int b = *p == 'x' ? 1 : *p == 'y' ? 2 : *p == 'z' && cfg->dimension != 2 ? 4 : 0;
        ok = b && !(c & b), c |= b;
    }
    if (!ok) {
        config_fail(config_find_entry(cfg, section, key), "'%s': expected NAME [COMPONENTS], NAME one of [system] "
                    "groups' names (or all), COMPONENTS the velocity components its temperature counts (x, y, z, "
                    "each once, z not in 2-d: LAMMPS's compute temp/partial)", name);
        return 0;
    }
    *bit = 1u << k, *components = n == 2 ? c : 7;
    return 1;
}

/* indent's words after its K (w[0]): sphere X Y Z R | cylinder x|y|z C1 C2 R | plane x|y|z POS lo|hi, then
   side in|out, energy yes|no and move VX VY VZ. NULL, or why they are not. */
static const char *indent_words(mdl_force_fix *f, char **w, int n)
{
    static const char *const shapes[] = {"sphere", "cylinder", "plane"};
    if (n < 1 || mdl_parse_double(w[0], &f->k) != 0 || !(f->k >= 0))
        return "indent GROUP K SHAPE ...: K a number of 0 or more";
    f->shape = 0;
    while (n >= 2 && f->shape < 3 && strcmp(w[1], shapes[f->shape]))
        f->shape++;
    const int nargs = f->shape == MDL_INDENT_PLANE ? 3 : 4;
    if (n < 2 || f->shape == 3 || n < 2 + nargs)
        return "indent's shape is sphere X Y Z R, cylinder x|y|z C1 C2 R or plane x|y|z POS lo|hi";
    double v[4];
    const int sphere = f->shape == MDL_INDENT_SPHERE;
    f->axis = sphere ? 0 : w[2][0] - 'x';
    if (!sphere && (!strchr("xyz", w[2][0]) || !w[2][0] || w[2][1]))
        return "a cylinder's or plane's axis is x, y or z";
    for (int a = sphere ? 0 : 1; a < (f->shape == MDL_INDENT_PLANE ? 2 : 4); a++)
        if (mdl_parse_double(w[2 + a], &v[a]) != 0)
            return "an indenter's coordinates and radius are numbers (box units)";
    if (sphere)
        f->centre[0] = v[0], f->centre[1] = v[1], f->centre[2] = v[2], f->radius = v[3];
    else if (f->shape == MDL_INDENT_CYLINDER) /* the other two coordinates in x, y, z order */
        f->centre[f->axis == 0 ? 1 : 0] = v[1], f->centre[f->axis == 2 ? 1 : 2] = v[2], f->radius = v[3];
    else if (!strcmp(w[4], "lo") || !strcmp(w[4], "hi"))
        f->centre[f->axis] = v[1], f->plane_side = w[4][0] == 'l' ? -1 : 1;
    else
        return "a plane's side is lo or hi";
    if (f->shape != MDL_INDENT_PLANE && !(f->radius >= 0))
        return "an indenter's radius is 0 or more";
    for (int a = 2 + nargs; a < n; a += 2) {
        const char *v2 = a + 1 < n ? w[a + 1] : "";
        if (!strcmp(w[a], "side") && (!strcmp(v2, "in") || !strcmp(v2, "out")))
            f->inside = !strcmp(v2, "in");
        else if (!strcmp(w[a], "energy") && (!strcmp(v2, "yes") || !strcmp(v2, "no")))
            f->energy = !strcmp(v2, "yes");
        else if (!strcmp(w[a], "move") && a + 3 < n && !mdl_parse_double(w[a + 1], &f->move[0]) &&
                 !mdl_parse_double(w[a + 2], &f->move[1]) && !mdl_parse_double(w[a + 3], &f->move[2]))
            a += 2; /* three values */
        else
            return "indent's keywords are side in|out, energy yes|no and move VX VY VZ (its centre's move per step)";
    }
    return NULL;
}

/* A wall's words after its group: FACE COORD|EDGE EPSILON SIGMA CUTOFF [energy yes|no] (box units),
   checked against the faces of [system] boundary. NULL, or why they are not. */
static const char *wall_words(mdl_config *cfg, mdl_force_fix *f, char **w, int n)
{
    int k = 0, face[3][2];
    const char *why;
    while (n >= 1 && k < 6 && strcmp(w[0], boundary_face_name(k)))
        k++;
    double sigma;
    if (n != 5 && !(n == 7 && !strcmp(w[5], "energy") && (!strcmp(w[6], "yes") || !strcmp(w[6], "no"))))
        return "a wall is FACE COORD|EDGE EPSILON SIGMA CUTOFF, then energy yes|no";
    f->edge = !strcmp(w[1], "EDGE");
    f->axis = k / 2, f->plane_side = k % 2 ? 1 : -1, f->energy = n == 7 && !strcmp(w[6], "yes");
    if (k == 6)
        return "a wall's face is xlo, xhi, ylo, yhi, zlo or zhi";
    if ((!f->edge && mdl_parse_double(w[1], &f->centre[f->axis]) != 0) || mdl_parse_double(w[2], &f->k) != 0 ||
        mdl_parse_double(w[3], &sigma) != 0 || mdl_parse_double(w[4], &f->cutoff) != 0 || !isfinite(f->k) ||
        !isfinite(sigma) || !isfinite(f->centre[f->axis]))
        return "a wall's coordinate (box units, or EDGE), epsilon, sigma and cutoff are numbers";
    if (!(f->cutoff > 0) || !isfinite(f->cutoff))
        return "a wall's cutoff is above 0 (LAMMPS: fix wall cutoff <= 0.0)";
    if (!config_boundary(cfg, face, &why))
        return why;
    if (face[f->axis][k % 2] == MDL_FACE_P)
        return "a wall on a periodic dimension (LAMMPS: cannot use fix wall in periodic dimension)";
    if (k >= 4 && cfg->dimension == 2)
        return "zlo or zhi in a 2-d system (LAMMPS: cannot use fix wall zlo/zhi for a 2d simulation)";
    if (f->edge && face[f->axis][k % 2] != MDL_FACE_F)
        return "EDGE on a shrink-wrapped face (its box moves): give the wall's coordinate";
    wall_coefficients(f, sigma);
    return NULL;
}

/* viscous's words after its group: GAMMA [scale TYPE RATIO ...] (TYPE a species' number from 1).
   NULL, or why they are not. */
static const char *viscous_words(mdl_force_fix *f, char **w, int n)
{
    for (int t = 0; t < MDL_MAX_SPECIES; t++)
        f->type_scale[t] = 1.0;
    if (n < 1 || mdl_parse_double(w[0], &f->k) != 0 || !isfinite(f->k))
        return "viscous GROUP GAMMA [scale TYPE RATIO ...]: GAMMA a number";
    for (int a = 1; a < n; a += 3) {
        long t;
        double r;
        if (strcmp(w[a], "scale") != 0 || a + 2 >= n || mdl_parse_long(w[a + 1], &t) != 0 ||
            mdl_parse_double(w[a + 2], &r) != 0 || !isfinite(r))
            return "viscous's keyword is scale TYPE RATIO (numbers)";
        if (t < 1 || t > MDL_MAX_SPECIES)
            return "a scale's TYPE is a species' number, 1 to 8";
        f->type_scale[t - 1] = r;
    }
    return NULL;
}

/* One fix's words: STYLE GROUP FX FY FZ (NULL: the component is left; not addforce's), indent's or a wall's. */
static const char *force_fix_words(mdl_config *cfg, mdl_force_fix *f, char **w, int n)
{
    static const struct {
        const char *name;
        int style, wall;
    } styles[] = {{"setforce", MDL_FIX_SETFORCE, 0},  {"addforce", MDL_FIX_ADDFORCE, 0},
                  {"aveforce", MDL_FIX_AVEFORCE, 0},  {"indent", MDL_FIX_INDENT, 0},
                  {"wall/lj93", MDL_FIX_WALL, MDL_WALL_LJ93}, {"wall/lj126", MDL_FIX_WALL, MDL_WALL_LJ126},
                  {"wall/harmonic", MDL_FIX_WALL, MDL_WALL_HARMONIC}, {"viscous", MDL_FIX_VISCOUS, 0}};
    const int nstyles = (int)(sizeof styles / sizeof styles[0]);
    int s = 0;
    while (n >= 1 && s < nstyles && strcmp(w[0], styles[s].name))
        s++;
    const int k = n >= 2 ? group_index(cfg, w[1]) : -1;
    if (n < 2 || s == nstyles)
        return "expected STYLE GROUP ...: setforce, addforce or aveforce GROUP FX FY FZ, indent GROUP K SHAPE ..., "
               "wall/lj93, wall/lj126 or wall/harmonic GROUP FACE COORD EPSILON SIGMA CUTOFF, or viscous GROUP GAMMA";
    f->style = styles[s].style, f->wall = styles[s].wall;
    if (k < 0)
        return "its group is not one of [system] groups' names (or all)";
    f->group = 1u << k;
    if (f->style == MDL_FIX_INDENT)
        return indent_words(f, w + 2, n - 2);
    if (f->style == MDL_FIX_WALL)
        return wall_words(cfg, f, w + 2, n - 2);
    if (f->style == MDL_FIX_VISCOUS)
        return viscous_words(f, w + 2, n - 2);
    if (n != 5)
        return "expected STYLE GROUP FX FY FZ";
    for (int c = 0; c < 3; c++) {
        f->acts[c] = strcmp(w[2 + c], "NULL") != 0;
        if (f->acts[c] && mdl_parse_double(w[2 + c], &f->value[c]) != 0)
            return "a component is a number or NULL";
        if (!f->acts[c] && f->style == MDL_FIX_ADDFORCE)
            return "addforce's components are numbers (LAMMPS's addforce takes no NULL)";
    }
    return NULL;
}

/* An item's `id NAME` (LAMMPS's fix ID, for thermo's f_ID columns) into cfg->force_fix_ids,
   "NAME=wall|indent:K,K;...": the items of one NAME together, all walls or one indenter. NULL, or why not. */
static const char *fix_id_add(mdl_config *cfg, const char *name, const mdl_force_fix *f, int item)
{
    if (f->style != MDL_FIX_WALL && f->style != MDL_FIX_INDENT)
        return "an id is a wall's or an indenter's (thermo's f_ID columns)";
    if (strpbrk(name, "=;,[]") || strlen(name) > 31)
        return "an id is a word of up to 31 characters without = ; , [ ]";
    const char *style = f->style == MDL_FIX_WALL ? "wall" : "indent";
    char *ids = cfg->force_fix_ids, *p = ids;
    const size_t n = strlen(name);
    while (*p && !(!strncmp(p, name, n) && p[n] == '='))
        p = strchr(p, ';') ? strchr(p, ';') + 1 : p + strlen(p);
    if (*p && (strncmp(p + n + 1, style, strlen(style)) || f->style == MDL_FIX_INDENT))
        return "an id given to another item: one id names one indenter or the walls of one fix";
    char entry[64], rest[MDL_PATH_LEN];
    if (!*p) {
        snprintf(entry, sizeof entry, "%s=%s:%d;", name, style, item);
        if (strlen(ids) + strlen(entry) >= sizeof cfg->force_fix_ids)
            return "too many ids";
        strcat(ids, entry);
        return NULL;
    }
    char *end = strchr(p, ';'); /* the walls' entry: this item appended to its list */
    snprintf(rest, sizeof rest, "%s", end);
    snprintf(entry, sizeof entry, ",%d", item);
    if (strlen(ids) + strlen(entry) >= sizeof cfg->force_fix_ids)
        return "too many ids";
    snprintf(end, sizeof cfg->force_fix_ids - (size_t)(end - ids), "%s%s", entry, rest);
    return NULL;
}

/* [run] force_fixes: the fixes in order, comma-separated. */
static int read_force_fixes(mdl_config *cfg)
{
    memset(&cfg->force_fixes, 0, sizeof cfg->force_fixes);
    cfg->force_fix_ids[0] = '\0';
    char *copy = mdl_strdup(cfg->force_fix_keys), *save = NULL;
    if (!copy)
        return 0;
    int ok = 1;
    for (char *d = strtok_r(copy, ",", &save); d && ok; d = strtok_r(NULL, ",", &save)) {
        char *text = mdl_strdup(d), *w[32], *s2 = NULL;
        int n = 0;
        for (char *t = text ? strtok_r(text, " \t", &s2) : NULL; t && n < 32; t = strtok_r(NULL, " \t", &s2))
            w[n++] = t;
        mdl_force_fix f = {0};
        const char *named = n >= 2 && !strcmp(w[n - 2], "id") ? w[n - 1] : "";
        n -= named[0] ? 2 : 0;
        const char *why = !text ? "out of memory"
                          : cfg->force_fixes.n == MDL_MAX_FORCE_FIXES ? "more than 16 fixes" : force_fix_words(cfg, &f, w, n);
        const int z_indent = f.shape == MDL_INDENT_PLANE ? f.axis == 2 : f.centre[2] != 0 || f.move[2] != 0;
        const int moves = f.move[0] != 0 || f.move[1] != 0 || f.move[2] != 0;
        if (!why && cfg->dimension == 2 && f.style != MDL_FIX_WALL &&
            (f.style == MDL_FIX_INDENT ? z_indent : f.acts[2] && f.value[2] != 0))
            why = "a z force in a 2-d system (an indenter's centre at z = 0, no plane along z, no move along z)";
        if (!why && moves && cfg->ensemble == MDL_MINIMIZE)
            why = "a moving indenter in a minimisation (its iterations are not steps of the run's time)";
        cfg->force_fixes.moving |= moves;
        if (!why && named[0])
            why = fix_id_add(cfg, named, &f, cfg->force_fixes.n);
        if (why) {
            config_fail(config_find_entry(cfg, "run", "force_fixes"), "'%s': %s", d, why);
            ok = 0;
        } else {
            cfg->force_fixes.fix[cfg->force_fixes.n++] = f;
        }
        free(text);
    }
    free(copy);
    return ok;
}

/* [output] thermo_balance_id = ID THRESH: its f_ID columns into force_fix_ids ("ID=balance:;"), the
   threshold LAMMPS's fix balance compares its imbalance with. */
static int read_balance_id(mdl_config *cfg)
{
    char id[32] = "";
    double thresh = 0;
    const size_t n = strlen(cfg->force_fix_ids);
    if (!cfg->thermo_balance_id[0])
        return 1;
    const int words = sscanf(cfg->thermo_balance_id, "%31s %lf", id, &thresh);
    int taken = 0;
    for (const char *p = cfg->force_fix_ids; *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : p + strlen(p))
        taken |= !strncmp(p, id, strlen(id)) && p[strlen(id)] == '=';
    if (words != 2 || !(thresh >= 0) || !isfinite(thresh) || strpbrk(id, "=;,[]") || taken ||
        strlen(id) + n + 11 >= sizeof cfg->force_fix_ids) {
        config_fail(config_find_entry(cfg, "output", "thermo_balance_id"), "'%s': expected ID THRESH (a word without "
                    "= ; , [ ] that no force fix has, and fix balance's threshold, a number of 0 or more)", cfg->thermo_balance_id);
        return 0;
    }
    cfg->balance_threshold = thresh;
    snprintf(cfg->force_fix_ids + n, sizeof cfg->force_fix_ids - n, "%s=balance:;", id);
    return 1;
}

int config_read_groups(mdl_config *cfg)
{
    if (!read_definitions(cfg) || !read_force_fixes(cfg) || !read_balance_id(cfg) ||
        !group_key(cfg, "run", "thermostat_group", cfg->thermostat_group_name, &cfg->thermostat_group,
                   &cfg->thermostat_components) ||
        !group_key(cfg, "output", "thermo_group", cfg->thermo_group_name, &cfg->thermo_group, &cfg->thermo_components) ||
        !group_key(cfg, "output", "thermo_pressure_group", cfg->thermo_pressure_group_name, &cfg->thermo_pressure_group,
                   &cfg->thermo_pressure_components))
        return 0;
    if (!config_find_entry(cfg, "output", "thermo_pressure_group"))
        cfg->thermo_pressure_group = cfg->thermo_group, cfg->thermo_pressure_components = cfg->thermo_components;
    const int reads = ensemble_reads(cfg->ensemble);
    if (cfg->thermostat_group != MDL_GROUP_ALL && !(reads & MDL_ON_GROUP)) {
        char which[256];
        config_fail(config_find_entry(cfg, "run", "thermostat_group"), "'%s': a group's thermostat is one of %s (this "
                    "ensemble acts on all atoms)", cfg->thermostat_group_name,
                    ensembles_reading(MDL_ON_GROUP, which, sizeof which));
        return 0;
    }
    if (cfg->thermostat_components != 7 && ensemble_info(cfg->ensemble)->action != MDL_ACT_SCALE) {
        config_fail(config_find_entry(cfg, "run", "thermostat_group"), "'%s': a temperature of some velocity components "
                    "is a scaling thermostat's (nvt-rescale, nvt-berendsen, nvt-csvr), not %s's",
                    cfg->thermostat_group_name, config_ensemble_name(cfg->ensemble));
        return 0;
    }
    if (config_find_entry(cfg, "run", "rescale_window") && !(reads & MDL_READS_WINDOW)) {
        char which[256];
        config_fail(config_find_entry(cfg, "run", "rescale_window"), "ensemble %s has no window (read by %s)",
                    config_ensemble_name(cfg->ensemble), ensembles_reading(MDL_READS_WINDOW, which, sizeof which));
        return 0;
    }
    cfg->groups_used = cfg->force_fixes.n || cfg->thermostat_group != MDL_GROUP_ALL || cfg->thermo_group != MDL_GROUP_ALL ||
                       cfg->thermo_pressure_group != MDL_GROUP_ALL || cfg->thermostat_components != 7 ||
                       cfg->thermo_components != 7 || cfg->thermo_pressure_components != 7;
    if (cfg->groups_used && !strcmp(cfg->backend, "gpu")) {
        const int run = cfg->force_fixes.n || cfg->thermostat_group != MDL_GROUP_ALL || cfg->thermostat_components != 7;
        const char *key = cfg->force_fixes.n ? "force_fixes" : run ? "thermostat_group"
                          : cfg->thermo_group != MDL_GROUP_ALL || cfg->thermo_components != 7 ? "thermo_group"
                                                                                                : "thermo_pressure_group";
        config_fail(config_find_entry(cfg, run ? "run" : "output", key),
                    "the GPU backend does not take fixes, thermostats or thermo on groups yet ([run] backend = gpu); "
                    "run it with backend = cpu");
        return 0;
    }
    return 1;
}

/* [system] groups made on the atoms as they are created (LAMMPS's group command: a block's atoms with
   its faces, types, ids, and unions, differences and intersections of the groups before), and
   [system] velocity_edits applied in order after the initial velocities (LAMMPS's velocity command
   on groups: create, set, ramp, scale). */
#define _POSIX_C_SOURCE 200809L
#include "atom_groups.h"

#include "lammps_velocity.h"
#include "../physics/region.h"
#include "../util/util.h"

#include <stdlib.h>
#include <string.h>

static int split(char *text, char **w, int max)
{
    char *save = NULL;
    int n = 0;
    for (char *t = strtok_r(text, " \t", &save); t && n < max; t = strtok_r(NULL, " \t", &save))
        w[n++] = t;
    return n;
}

/* Whether atom i is named by the definition's arguments w[2 ..] of types, ids or groups (config_groups.c
   checked them). */
static int in_definition(const mdl_config *cfg, const mdl_system *s, size_t i, char **w, int n, const int *types)
{
    const uint32_t g = s->groups[s->id[i]] | MDL_GROUP_ALL;
    int in = w[1][0] == 'i' && w[1][1] == 'n'; /* intersect: in every group named */
    switch (w[1][0]) {
    case 't': /* type, or made_type (made before set_types) */
    case 'm':
        for (int a = 2; a < n; a++)
            if (s->type[i] == types[a])
                return 1;
        return 0;
    case 'e':
        return 0;
    case 's': /* subtract: in the first, in none of the others */
        if (!(g & config_group_bit(cfg, w[2])))
            return 0;
        for (int a = 3; a < n; a++)
            if (g & config_group_bit(cfg, w[a]))
                return 0;
        return 1;
    }
    if (w[1][0] == 'u' || in) {
        for (int a = 2; a < n; a++) {
            const int member = (g & config_group_bit(cfg, w[a])) != 0;
            if (member != in) /* union: in one; intersect: out of one */
                return member;
        }
        return in;
    }
    for (int a = 2; a < n; a++) { /* id: ids from 1, or ranges A:B */
        const long id = (long)s->id[i] + 1, lo = strtol(w[a], NULL, 10);
        const char *c = strchr(w[a], ':');
        if (c ? id >= lo && id <= strtol(c + 1, NULL, 10) : id == lo)
            return 1;
    }
    return 0;
}

static int apply_definition(const mdl_config *cfg, mdl_system *s, char *d)
{
    char *w[1024];
    int types[1024];
    const int n = split(d, w, 1024);
    if (n < 2) /* config_groups.c refused it */
        return MDL_EINPUT;
    for (int a = 2; a < n && (w[1][0] == 't' || w[1][0] == 'm'); a++)
        if ((types[a] = system_species_index(s, w[a], 0)) < 0) {
            mdl_error("%s: [system] groups: '%s': not one of the system's species", config_origin(cfg, "system", "groups"),
                      w[a]);
            return MDL_EINPUT;
        }
    const uint32_t bit = config_group_bit(cfg, w[0]);
    uint32_t *add = mdl_calloc(s->n, sizeof *add, "a group"); /* decided on the groups before it, then set */
    if (!add)
        return MDL_ERUN;
    mdl_region_set r;
    const int region = region_set_parse(w + 1, n - 1, &r) != 0; /* block, sphere, cylinder, joined */
    for (size_t i = 0; i < s->n; i++) {
        const double p[3] = {s->x[i], s->y[i], s->z[i]};
        add[i] = (region ? region_set_inside(&r, p) : in_definition(cfg, s, i, w, n, types)) ? bit : 0;
    }
    for (size_t i = 0; i < s->n; i++)
        s->groups[s->id[i]] |= add[i];
    free(add);
    return MDL_OK;
}

int system_make_groups(const mdl_config *cfg, mdl_system *s, int after_types)
{
    if (cfg->ngroups <= 1)
        return MDL_OK;
    if (!s->groups && !(s->groups = mdl_calloc(s->n, sizeof *s->groups, "the atoms' groups")))
        return MDL_ERUN;
    for (size_t i = 0; i < s->n && !after_types; i++)
        s->groups[i] = MDL_GROUP_ALL;
    char *copy = mdl_strdup(cfg->groups), *save = NULL;
    if (!copy)
        return MDL_ERUN;
    int rc = MDL_OK;
    uint32_t typed = 0;
    for (char *d = strtok_r(copy, ",", &save); d && rc == MDL_OK; d = strtok_r(NULL, ",", &save))
        if ((config_group_type_dependent(cfg, d, &typed) != 0) == after_types)
            rc = apply_definition(cfg, s, d);
    free(copy);
    return rc;
}

/* One edit of [system] set_types on every atom it names (a region: inside with its faces, as LAMMPS's),
   or MDL_EINPUT naming the key. */
static int set_types_edit(const mdl_config *cfg, mdl_system *s, char *edit)
{
    char *w[128] = {""};
    const int n = split(edit, w, 128);
    const int to = n >= 2 ? system_species_index(s, w[n - 1], 0) : -1;
    const int from = n == 3 && !strcmp(w[0], "type") ? system_species_index(s, w[1], 0) : -1;
    uint32_t group = n == 3 && !strcmp(w[0], "group") ? config_group_bit(cfg, w[1]) : 0, typed = 0;
    for (const char *d = cfg->groups; group && *d; d += strcspn(d, ",") + (d[strcspn(d, ",")] == ',')) {
        char one[MDL_PATH_LEN];
        snprintf(one, sizeof one, "%.*s", (int)strcspn(d, ","), d);
        config_group_type_dependent(cfg, one, &typed);
    }
    if (group & typed) {
        mdl_error("%s: [system] set_types: 'group %s': a group of types, made after set_types (set the types of "
                  "the groups that do not depend on them)", config_origin(cfg, "system", "set_types"), w[1]);
        return MDL_EINPUT;
    }
    mdl_region_set r;
    const int region = n >= 2 && region_set_parse(w, n - 1, &r) == n - 1;
    if (!(to >= 0 && ((n == 2 && !strcmp(w[0], "all")) || from >= 0 || group || region))) {
        mdl_error("%s: [system] set_types: '%s': expected 'type SPECIES SPECIES', 'REGION SPECIES' (block XLO XHI YLO "
                  "YHI ZLO ZHI, sphere X Y Z R or cylinder x|y|z C1 C2 R LO HI, then out or nothing; or such regions "
                  "joined by 'and' or by 'or'), 'group GROUP "
                  "SPECIES' or 'all SPECIES', of the system's species and [system] groups",
                  config_origin(cfg, "system", "set_types"), w[0]);
        return MDL_EINPUT;
    }
    for (size_t i = 0; i < s->n; i++) {
        const double p[3] = {s->x[i], s->y[i], s->z[i]};
        const int in = w[0][0] == 'a' || (group ? group_has(s->groups, s->id[i], group)
                                          : from >= 0 ? s->type[i] == from : region_set_inside(&r, p));
        if (in)
            s->type[i] = to;
    }
    return MDL_OK;
}

int system_set_types(const mdl_config *cfg, mdl_system *s)
{
    char *copy = mdl_strdup(cfg->set_types), *save = NULL;
    if (!copy)
        return MDL_ERUN;
    int rc = MDL_OK;
    for (char *e = strtok_r(copy, ",", &save); e && rc == MDL_OK; e = strtok_r(NULL, ",", &save))
        rc = set_types_edit(cfg, s, e);
    free(copy);
    return rc;
}

/* The value of keyword key among w[from ..] (NULL: not given); *bad: a word that is no keyword. */
static const char *keyword(char **w, int n, int from, const char *key, const char *const *keys, const char **bad)
{
    const char *v = NULL;
    for (int a = from; a < n; a += 2) {
        int known = 0;
        for (const char *const *k = keys; *k; k++)
            known |= !strcmp(w[a], *k);
        if (!known || a + 1 == n)
            *bad = w[a];
        else if (!strcmp(w[a], key))
            v = w[a + 1];
    }
    return v;
}

static int dim_of(const char *w, char letter)
{
    return (w[0] == letter && w[1] && strchr("xyz", w[1]) && !w[2]) ? w[1] - 'x'
           : (letter == 0 && w[0] && strchr("xyz", w[0]) && !w[1]) ? w[0] - 'x' : -1;
}

/* The velocity components of a temperature, "components XYZ" (each of x, y, z once; z not in 2-d): bits
   1 x, 2 y, 4 z; 7 where not given; *bad set where the word is not one. */
static int components_of(const char *word, const mdl_system *s, const char **bad)
{
    int c = 0;
    for (const char *p = word; p && *p; p++) {
        const int b = *p == 'x' ? 1 : *p == 'y' ? 2 : *p == 'z' && box_dimension(&s->box) == 3 ? 4 : 0;
        if (!b || (c & b))
            *bad = word;
        c |= b;
    }
    return word && c ? c : 7;
}

#define ZERO_T "the temperature to scale is 0: no atom of the temperature's group moves, or it has no degree of " \
               "freedom (LAMMPS: attempting to rescale a 0.0 temperature)"

/* One edit (check: its words only, the velocities left alone); NULL, or why its words are not one. */
static const char *velocity_edit(const mdl_config *cfg, const mdl_units *u, mdl_system *s, char **w, int n, int check)
{
    static const char *const create_keys[] = {"loop", "dist", "temp", "components", NULL},
                             *const sum_keys[] = {"sum", NULL}, *const temp_keys[] = {"temp", "components", NULL};
    const uint32_t group = n >= 2 ? config_group_bit(cfg, w[1]) : 0;
    const char *bad = NULL, *sum = NULL, *tg = NULL;
    double v[6];
    if (!group)
        return "expected create|set|ramp|scale GROUP ..., GROUP one of [system] groups' names or all";
    if (!strcmp(w[0], "create") && n >= 4) {
        const char *loop = keyword(w, n, 4, "loop", create_keys, &bad), *dist = keyword(w, n, 4, "dist", create_keys, &bad);
        tg = keyword(w, n, 4, "temp", create_keys, &bad);
        const int comp = components_of(keyword(w, n, 4, "components", create_keys, &bad), s, &bad);
        long seed;
        if (bad || mdl_parse_double(w[2], &v[0]) != 0 || !(v[0] >= 0) || mdl_parse_long(w[3], &seed) != 0 || seed < 1 ||
            seed > 2147483647L || (loop && strcmp(loop, "all") && strcmp(loop, "geom")) ||
            (dist && strcmp(dist, "uniform") && strcmp(dist, "gaussian")) || (tg && !config_group_bit(cfg, tg)))
            return "create GROUP T SEED [loop all|geom] [dist uniform|gaussian] [temp GROUP] [components XYZ]: T >= 0, SEED "
                   "1 .. 2^31 - 1, XYZ the temperature's velocity components (of x, y, z; no z in 2-d)";
        if (!check && velocities_lammps_group(s, u, v[0], (int)seed, loop && !strcmp(loop, "geom") ? MDL_VEL_LOOP_GEOM : MDL_VEL_LOOP_ALL,
                                    dist && !strcmp(dist, "gaussian"), group, tg ? config_group_bit(cfg, tg) : group, comp))
            return ZERO_T;
        return NULL;
    }
    if (!strcmp(w[0], "set") && n >= 5) {
        int acts[3];
        sum = keyword(w, n, 5, "sum", sum_keys, &bad);
        for (int d = 0; d < 3; d++) {
            acts[d] = strcmp(w[2 + d], "NULL") != 0;
            if (acts[d] && mdl_parse_double(w[2 + d], &v[d]) != 0)
                bad = w[2 + d];
        }
        if (bad || (sum && strcmp(sum, "yes") && strcmp(sum, "no")))
            return "set GROUP VX VY VZ [sum yes|no]: numbers or NULL";
        if (box_dimension(&s->box) == 2 && acts[2] && v[2] != 0)
            return "a z velocity in a 2-d system (LAMMPS: cannot set non-zero z velocity for 2d simulation)";
        if (!check)
            velocities_set(s, group, acts, v, sum && !strcmp(sum, "yes"));
        return NULL;
    }
    if (!strcmp(w[0], "ramp") && n >= 8) {
        const int vd = dim_of(w[2], 'v'), cd = dim_of(w[5], 0);
        sum = keyword(w, n, 8, "sum", sum_keys, &bad);
        if (bad || vd < 0 || cd < 0 || mdl_parse_double(w[3], &v[0]) || mdl_parse_double(w[4], &v[1]) ||
            mdl_parse_double(w[6], &v[2]) || mdl_parse_double(w[7], &v[3]) || v[2] == v[3] ||
            (sum && strcmp(sum, "yes") && strcmp(sum, "no")))
            return "ramp GROUP vx|vy|vz VLO VHI x|y|z CLO CHI [sum yes|no]: CLO and CHI apart";
        if (box_dimension(&s->box) == 2 && (vd == 2 || cd == 2))
            return "a ramp along z in a 2-d system (LAMMPS: velocity ramp in z for a 2d problem)";
        if (!check)
            velocities_ramp(s, group, vd, v[0], v[1], cd, v[2], v[3], sum && !strcmp(sum, "yes"));
        return NULL;
    }
    if (!strcmp(w[0], "scale") && n >= 3) {
        tg = keyword(w, n, 3, "temp", temp_keys, &bad);
        const int comp = components_of(keyword(w, n, 3, "components", temp_keys, &bad), s, &bad);
        if (bad || mdl_parse_double(w[2], &v[0]) != 0 || !(v[0] >= 0) || (tg && !config_group_bit(cfg, tg)))
            return "scale GROUP T [temp GROUP] [components XYZ]: T >= 0, XYZ of x, y, z (no z in 2-d)";
        return !check && velocities_scale(s, u, v[0], group, tg ? config_group_bit(cfg, tg) : group, comp) ? ZERO_T : NULL;
    }
    return "expected create GROUP T SEED ..., set GROUP VX VY VZ ..., ramp GROUP VDIM VLO VHI DIM CLO CHI ... or scale "
           "GROUP T ...";
}

int system_velocity_edits(const mdl_config *cfg, const mdl_units *u, mdl_system *s)
{
    return system_edit_velocities(cfg, u, s, "system", "velocity_edits", cfg->velocity_edits, 0);
}

int system_edit_velocities(const mdl_config *cfg, const mdl_units *u, mdl_system *s, const char *section,
                           const char *key, const char *edits, int check)
{
    char *copy = mdl_strdup(edits), *save = NULL;
    if (!copy)
        return MDL_ERUN;
    int rc = MDL_OK;
    for (char *d = strtok_r(copy, ",", &save); d && rc == MDL_OK; d = strtok_r(NULL, ",", &save)) {
        d += strspn(d, " \t"); /* the message names the edit as written */
        char *text = mdl_strdup(d), *w[64];
        if (!text) {
            rc = MDL_ERUN;
            break;
        }
        const int n = split(text, w, 64);
        const char *why = n ? velocity_edit(cfg, u, s, w, n, check) : "an empty edit";
        if (why) {
            mdl_error("%s: [%s] %s: '%s': %s", config_origin(cfg, section, key), section, key, d, why);
            rc = MDL_EINPUT;
        }
        free(text);
    }
    free(copy);
    return rc;
}

/* Moves atom `from` into slot `to` (to < from, or a slot past every kept one), its id made `to`. */
static void keep_atom(mdl_system *s, size_t to, size_t from)
{
    double *d[] = {s->x, s->y, s->z, s->vx, s->vy, s->vz, s->fx, s->fy, s->fz};
    int32_t *k[] = {s->ix, s->iy, s->iz, s->type};
    for (size_t a = 0; a < sizeof d / sizeof d[0]; a++)
        if (d[a])
            d[a][to] = d[a][from];
    for (size_t a = 0; a < sizeof k / sizeof k[0]; a++)
        if (k[a])
            k[a][to] = k[a][from];
    if (s->groups)
        s->groups[to] = s->groups[s->id[from]];
    s->id[to] = (int64_t)to;
}

int system_delete_atoms(const mdl_config *cfg, mdl_system *s)
{
    mdl_region_set r[64];
    int nr = 0;
    char *copy = mdl_strdup(cfg->delete_atoms), *save = NULL;
    if (!copy)
        return MDL_ERUN;
    for (char *d = strtok_r(copy, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
        char *w[128];
        const int n = split(d, w, 128);
        if (nr == 64 || !n || region_set_parse(w, n, &r[nr]) != n) {
            mdl_error("%s: [system] delete_atoms: expected regions, each block XLO XHI YLO YHI ZLO ZHI, sphere X Y Z R or "
                      "cylinder x|y|z C1 C2 R LO HI (box units, then out or nothing; at most 64), or such regions "
                      "joined by 'and' or by 'or'",
                      config_origin(cfg, "system", "delete_atoms"));
            free(copy);
            return MDL_EINPUT;
        }
        nr++;
    }
    free(copy);
    size_t kept = s->n;
    for (int k = 0; k < nr; k++) /* each region in turn, as LAMMPS's delete_atoms commands */
        for (size_t i = 0; i < kept;) { /* LAMMPS's: the last atom into a deleted one's slot, ids by slot */
            const double p[3] = {s->x[i], s->y[i], s->z[i]};
            if (region_set_inside(&r[k], p))
                keep_atom(s, i, kept - 1), kept--;
            else
                s->id[i] = (int64_t)i, i++;
        }
    if (nr && !kept) {
        mdl_error("%s: [system] delete_atoms: every atom is deleted", config_origin(cfg, "system", "delete_atoms"));
        return MDL_EINPUT;
    }
    if (nr && kept < s->n)
        mdl_note("%s: [system] delete_atoms: %zu atoms deleted, %zu left (LAMMPS: Deleted %zu atoms, new total = %zu)",
                 config_origin(cfg, "system", "delete_atoms"), s->n - kept, kept, s->n - kept, kept);
    if (nr)
        s->n = kept;
    return MDL_OK;
}

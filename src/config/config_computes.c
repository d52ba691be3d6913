/* [output] thermo_computes: LAMMPS's computes that thermo prints (c_ID, c_ID[k]), each "ID STYLE GROUP
   ARGS" and separated by ';', read into cfg->computes with their groups as bits. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"
#include "config_schema.h"

#include <stdlib.h>
#include <string.h>

static const char *const STYLES[] = {"temp", "temp/partial", "temp/com", "ke", "pe", "com", "reduce", "ke/atom",
                                     "orientorder/atom", "pe/atom"};
static const char *const MODES[] = {"sum", "min", "max", "ave", "sumsq", "avesq"}; /* this LAMMPS's (29 Sep 2021) */
static const char *const INPUTS[] = {"x", "y", "z", "vx", "vy", "vz", "fx", "fy", "fz"};

static int word_index(const char *w, const char *const *list, int n)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(w, list[k]))
            return k;
    return -1;
}

/* The index of the compute named id among the items (each "ID ..."), or -1. */
static int item_index(char *const *items, int n, const char *id)
{
    for (int k = 0; k < n; k++) {
        const size_t len = strcspn(items[k], " ");
        if (strlen(id) == len && !strncmp(items[k], id, len))
            return k;
    }
    return -1;
}

/* reduce's inputs w[0..n): x y z (along a dimension without periodic faces: a periodic one's
   positions are wrapped at mdlite's rebuilds, LAMMPS's at its own), vx .. fz, c_ID of a ke/atom. */
static const char *reduce_inputs(const mdl_config *cfg, mdl_compute *c, char **w, int n, char *const *items, int nitems)
{
    int face[3][2];
    const char *why = NULL;
    if (!config_boundary(cfg, face, &why))
        face[0][0] = face[1][0] = face[2][0] = MDL_FACE_P;
    for (int k = 0; k < n; k++) {
        int in = word_index(w[k], INPUTS, 9);
        if (in < 0 && !strncmp(w[k], "c_", 2)) {
            char id[MDL_COMPUTE_ID_LEN] = "", style[32] = "", *end = NULL;
            const size_t n = strcspn(w[k] + 2, "[");
            snprintf(id, sizeof id, "%.*s", (int)(n < sizeof id ? n : sizeof id - 1), w[k] + 2);
            const int j = item_index(items, nitems, id);
            if (j >= 0)
                sscanf(items[j], "%*s %31s", style);
            const long col = w[k][2 + n] == '[' ? strtol(w[k] + 3 + n, &end, 10) : 0;
            const int atom_array = !strcmp(style, "orientorder/atom");
            if (j < 0 || (strcmp(style, "ke/atom") != 0 && strcmp(style, "pe/atom") != 0 && !atom_array))
                return "reduce's c_ID: the ID of a ke/atom, pe/atom or orientorder/atom compute among these";
            if (atom_array && (!end || strcmp(end, "]") != 0 || col < 1 || col > 63))
                return "reduce's c_ID[k] of an orientorder/atom: k from 1 to its columns";
            if (!atom_array && col)
                return "reduce's c_ID of a ke/atom or pe/atom: its one value, no [k]";
            in = MDL_REDUCE_INPUT_COMPUTE + 64 * j + (int)col;
        }
        if (in < 0)
            return "reduce's inputs: x y z vx vy vz fx fy fz, or c_ID of a ke/atom or pe/atom, c_ID[k] of an "
                   "orientorder/atom";
        if (in < 3 && face[in][0] == MDL_FACE_P)
            return "reduce of x, y or z along a periodic dimension: LAMMPS reads positions as its last neighbor "
                   "build wrapped them, which mdlite's builds do not reproduce";
        c->input[c->ninputs++] = in;
    }
    return NULL;
}

/* orientorder/atom's keywords: nnn N|NULL, degrees N L1 .. LN, wl yes|no, wl/hat yes|no, cutoff R,
   chunksize N (memory alone); LAMMPS's defaults nnn 12, degrees 4 6 8 10 12, the pair's cutoff. */
static const char *orientorder_keywords(mdl_compute *c, char **w, int n)
{
    static const int DEFAULT[] = {4, 6, 8, 10, 12};
    c->nnn = 12, c->ndegrees = 5, c->cutoff = 0;
    memcpy(c->degree, DEFAULT, sizeof DEFAULT);
    for (int k = 0; k < n; k += 2) {
        const char *v = k + 1 < n ? w[k + 1] : NULL;
        char *end = NULL;
        const double x = v ? strtod(v, &end) : 0;
        const int number = v && end != v && !*end, yes = v && !strcmp(v, "yes"), no = v && !strcmp(v, "no");
        if (!strcmp(w[k], "nnn") && v && !strcmp(v, "NULL"))
            c->nnn = 0;
        else if (!strcmp(w[k], "nnn") && number && x >= 1 && x <= 1e6 && x == (int)x)
            c->nnn = (int)x;
        else if ((!strcmp(w[k], "wl") || !strcmp(w[k], "wl/hat")) && (yes || no))
            *(!strcmp(w[k], "wl") ? &c->wl : &c->wlhat) = yes;
        else if (!strcmp(w[k], "cutoff") && number && x > 0)
            c->cutoff = x;
        else if (!strcmp(w[k], "chunksize") && number && x >= 1)
            ;
        else if (!strcmp(w[k], "degrees") && number && x >= 1 && x <= MDL_MAX_DEGREES && x == (int)x && k + 1 + x < n) {
            c->ndegrees = (int)x;
            for (int d = 0; d < c->ndegrees; d++) {
                const long l = strtol(w[k + 2 + d], &end, 10);
                if (*end || l < 0 || l > 12)
                    return "orientorder/atom's degrees: N, then N degrees l from 0 to 12";
                c->degree[d] = (int)l;
            }
            k += c->ndegrees;
        } else
            return "orientorder/atom's keywords: nnn N|NULL, degrees N L..., wl yes|no, wl/hat yes|no, cutoff R, "
                   "chunksize N (components: not taken)";
    }
    return compute_atom_columns(c) > 63 ? "orientorder/atom: at most 63 columns" : NULL;
}

/* One item's words into c; NULL, or why it is not one. */
static const char *compute_item(mdl_config *cfg, mdl_compute *c, char **w, int n, char *const *items, int nitems)
{
    if (n < 3)
        return "expected ID STYLE GROUP [ARGS]";
    if (strlen(w[0]) >= MDL_COMPUTE_ID_LEN || strpbrk(w[0], "[]=;,"))
        return "an ID of at most 31 characters, without [ ] = ; ,";
    snprintf(c->id, sizeof c->id, "%s", w[0]);
    c->style = word_index(w[1], STYLES, (int)(sizeof STYLES / sizeof STYLES[0]));
    c->group = config_group_bit(cfg, w[2]);
    c->components = 7;
    if (c->style < 0)
        return "STYLE: one of temp temp/partial temp/com ke pe com reduce ke/atom orientorder/atom pe/atom";
    if (!c->group)
        return "GROUP: all or a group of [system] groups";
    if (c->style == MDL_COMPUTE_PE && (c->group != MDL_GROUP_ALL || n != 3))
        return "pe: on all atoms, without arguments (LAMMPS's compute pe of every energy)";
    if (c->style == MDL_COMPUTE_TEMP_PARTIAL) {
        c->components = 0;
        for (int d = 0; d < 3 && n == 6; d++)
            c->components |= !strcmp(w[3 + d], "1") ? 1 << d : strcmp(w[3 + d], "0") ? 8 : 0;
        if (n != 6 || c->components == 0 || c->components > 7 || (cfg->dimension == 2 && (c->components & 4)))
            return "temp/partial XFLAG YFLAG ZFLAG: each 0 or 1, one at least (vz not in 2-d)";
        return NULL;
    }
    if (c->style == MDL_COMPUTE_ORIENTORDER)
        return orientorder_keywords(c, w + 3, n - 3);
    if (c->style == MDL_COMPUTE_REDUCE) {
        c->mode = n > 3 ? word_index(w[3], MODES, 6) : -1;
        if (c->mode < 0 || n < 5 || n - 4 > MDL_COMPUTE_VALUES - 1)
            return "reduce MODE INPUT ...: a mode of sum min max ave sumsq avesq and 1 to 15 inputs";
        return reduce_inputs(cfg, c, w + 4, n - 4, items, nitems);
    }
    return n == 3 ? NULL : "this style takes no arguments";
}

int config_read_computes(mdl_config *cfg)
{
    cfg->computes.n = 0;
    char *items[MDL_MAX_COMPUTES + 1], *copy = mdl_strdup(cfg->thermo_compute_keys), *save = NULL;
    int n = 0, ok = copy != NULL;
    for (char *t = copy ? strtok_r(copy, ";", &save) : NULL; t && n <= MDL_MAX_COMPUTES; t = strtok_r(NULL, ";", &save))
        if (t[strspn(t, " \t")])
            items[n++] = t + strspn(t, " \t");
    const mdl_entry *e = config_find_entry(cfg, "output", "thermo_computes");
    if (n > MDL_MAX_COMPUTES) {
        config_fail(e, "more than %d computes", MDL_MAX_COMPUTES);
        ok = 0;
    }
    char *w[MDL_COMPUTE_VALUES + 4];
    for (int k = 0; k < n && ok; k++) {
        char *text = mdl_strdup(items[k]), *s2 = NULL;
        int nw = 0;
        for (char *t = text ? strtok_r(text, " \t", &s2) : NULL; t && nw < (int)(sizeof w / sizeof w[0]);
             t = strtok_r(NULL, " \t", &s2))
            w[nw++] = t;
        mdl_compute *c = &cfg->computes.c[k];
        memset(c, 0, sizeof *c);
        const char *why = !text ? "out of memory" : compute_item(cfg, c, w, nw, items, n);
        if (!why && item_index(items, k, c->id) >= 0)
            why = "an ID given twice";
        if (why) {
            config_fail(e, "'%s': %s", items[k], why);
            ok = 0;
        }
        free(text);
    }
    for (int k = 0; k < n && ok; k++) /* reduce's columns of the computes, now all read */
        for (int i = 0; cfg->computes.c[k].style == MDL_COMPUTE_REDUCE && i < cfg->computes.c[k].ninputs; i++) {
            const int in = cfg->computes.c[k].input[i] - MDL_REDUCE_INPUT_COMPUTE;
            const mdl_compute *src = in >= 0 ? &cfg->computes.c[in / 64] : NULL;
            if (src && src->style == MDL_COMPUTE_ORIENTORDER && in % 64 > compute_atom_columns(src)) {
                config_fail(e, "'%s': reduce's c_%s[%d]: k from 1 to its columns (%d)", items[k], src->id, in % 64,
                            compute_atom_columns(src));
                ok = 0;
            }
        }
    cfg->computes.n = ok ? n : 0;
    free(copy);
    return ok;
}

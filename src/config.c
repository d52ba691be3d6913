/* INI configuration on inih: collects keys with their file:line, applies --set overrides, then
   checks types, ranges and contradictions and fills mdl_config. */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include "ini.h"
#include "physics/units.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- the schema -------------------------------------------------------------------------- */

enum kind { K_DOUBLE, K_INT, K_CHOICE, K_PATH, K_STRING, K_INT3, K_DOUBLE3, K_BOOL, K_SEED,
            K_NAMES, K_FRACTIONS, K_FIELDS, K_AUTO_INT };

typedef struct {
    const char *section, *key;
    enum kind kind;
    size_t offset;
    double min, max;       /* numbers: allowed closed range; min_open makes the minimum exclusive */
    int min_open;
    const char *choices;   /* K_CHOICE: "a|b|c" */
} key_spec;

#define F(field) offsetof(mdl_config, field)
#define BIG 1e300
static const key_spec SCHEMA[] = {
    {"system", "units", K_CHOICE, F(units), 0, 0, 0, "lj|metal"},
    {"system", "lattice", K_CHOICE, F(lattice), 0, 0, 0, "fcc|bcc|sc"},
    {"system", "input", K_PATH, F(input), 0, 0, 0, NULL},
    {"system", "density", K_DOUBLE, F(density), 0, BIG, 1, NULL},
    {"system", "lattice_constant", K_DOUBLE, F(lattice_constant), 0, BIG, 1, NULL},
    {"system", "cells", K_INT3, F(cells), 1, 4096, 0, NULL},
    {"system", "mass", K_DOUBLE, F(mass), 0, BIG, 1, NULL},
    {"system", "temperature", K_DOUBLE, F(temperature), 0, BIG, 0, NULL},
    {"system", "seed", K_SEED, F(seed), 1, 4294967295.0, 0, NULL},
    {"system", "box", K_DOUBLE3, F(box), 0, BIG, 1, NULL},
    {"system", "species", K_NAMES, F(species), 0, 0, 0, NULL},
    {"system", "composition", K_FRACTIONS, F(composition), 0, 1, 0, NULL},
    {"potential", "style", K_CHOICE, 0, 0, 0, 0, "lj"},
    {"potential", "epsilon", K_DOUBLE, F(epsilon), 0, BIG, 0, NULL},
    {"potential", "sigma", K_DOUBLE, F(sigma), 0, BIG, 1, NULL},
    {"potential", "cutoff", K_DOUBLE, F(cutoff), 0, BIG, 1, NULL},
    {"potential", "shift", K_BOOL, F(shift), 0, 0, 0, NULL},
    {"neighbor", "skin", K_DOUBLE, F(skin), 0, BIG, 0, NULL},
    {"neighbor", "check", K_INT, F(check), 1, 1000000, 0, NULL},
    {"neighbor", "method", K_CHOICE, F(method), 0, 0, 0, "cell|brute|brute-atomic"},
    {"neighbor", "layout", K_CHOICE, F(layout), 0, 0, 0, "transposed|row"},
    {"neighbor", "max_neighbors", K_AUTO_INT, F(max_neighbors), 1, 100000, 0, NULL},
    {"run", "backend", K_CHOICE, F(backend), 0, 0, 0, "cpu|gpu"},
    {"run", "steps", K_INT, F(steps), 0, 2e9, 0, NULL},
    {"run", "timestep", K_DOUBLE, F(timestep), 0, BIG, 1, NULL},
    {"run", "ensemble", K_CHOICE, F(ensemble), 0, 0, 0, "nve|nvt-rescale|nvt-berendsen|nvt-langevin"},
    {"run", "target_temperature", K_DOUBLE, F(target_temperature), 0, BIG, 0, NULL},
    {"run", "tau", K_DOUBLE, F(tau), 0, BIG, 1, NULL},
    {"run", "every", K_INT, F(every), 1, 2e9, 0, NULL},
    {"run", "threads", K_AUTO_INT, F(threads), 1, 1024, 0, NULL},
    {"output", "thermo", K_INT, F(thermo), 0, 2e9, 0, NULL},
    {"output", "thermo_file", K_STRING, F(thermo_file), 0, 0, 0, NULL},
    {"output", "trajectory", K_STRING, F(trajectory), 0, 0, 0, NULL},
    {"output", "dump_every", K_INT, F(dump_every), 1, 2e9, 0, NULL},
    {"output", "dump_fields", K_FIELDS, F(dump_fields), 0, 0, 0, NULL},
    {"output", "compress", K_BOOL, F(compress), 0, 0, 0, NULL},
    {"output", "flush_every", K_INT, F(flush_every), 1, 2e9, 0, NULL},
    {"output", "checkpoint", K_BOOL, F(checkpoint), 0, 0, 0, NULL},
    {"output", "async", K_BOOL, F(async), 0, 0, 0, NULL},
    {"output", "buffers", K_INT, F(buffers), 1, 64, 0, NULL},
    {"output", "throttle_ms", K_INT, F(throttle_ms), 0, 60000, 0, NULL},
};
#undef F
#define NSCHEMA (sizeof SCHEMA / sizeof SCHEMA[0])

static const char *SECTIONS[] = {"system", "potential", "neighbor", "run", "output"};

static int known_section(const char *s)
{
    for (size_t i = 0; i < sizeof SECTIONS / sizeof SECTIONS[0]; i++)
        if (strcmp(SECTIONS[i], s) == 0)
            return 1;
    return 0;
}

static const key_spec *find_spec(const char *section, const char *key)
{
    for (size_t i = 0; i < NSCHEMA; i++)
        if (strcmp(SCHEMA[i].section, section) == 0 && strcmp(SCHEMA[i].key, key) == 0)
            return &SCHEMA[i];
    return NULL;
}

/* Keys with species names in them: [potential] pair.A.B and [system] mass.X. */
static int is_pattern_key(const char *section, const char *key)
{
    if (strcmp(section, "potential") == 0 && strncmp(key, "pair.", 5) == 0)
        return 1;
    if (strcmp(section, "system") == 0 && strncmp(key, "mass.", 5) == 0)
        return 1;
    return 0;
}

/* ---- collecting entries ------------------------------------------------------------------ */

static void fail(const mdl_entry *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const mdl_entry *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mdlite: error: %s: [%s] %s: ", e->origin, e->section, e->key);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static mdl_entry *find_entry(const mdl_config *cfg, const char *section, const char *key)
{
    for (int i = 0; i < cfg->nentries; i++)
        if (strcmp(cfg->entries[i].section, section) == 0 && strcmp(cfg->entries[i].key, key) == 0)
            return &cfg->entries[i];
    return NULL;
}

static int add_entry(mdl_config *cfg, const char *section, const char *key, const char *value,
                     const char *origin)
{
    mdl_entry *grown = mdl_realloc(cfg->entries, (size_t)(cfg->nentries + 1) * sizeof *grown, "config");
    if (!grown)
        return MDL_ERUN;
    cfg->entries = grown;
    mdl_entry *e = &cfg->entries[cfg->nentries];
    memset(e, 0, sizeof *e);
    snprintf(e->section, sizeof e->section, "%s", section);
    snprintf(e->key, sizeof e->key, "%s", key);
    snprintf(e->origin, sizeof e->origin, "%s", origin);
    e->value = strdup(value);
    if (!e->value)
        return MDL_ERUN;
    cfg->nentries++;
    return MDL_OK;
}

/* Checks that section/key exist in the schema; prints the reason when not. */
static int check_known(const char *origin, const char *section, const char *key)
{
    if (!known_section(section)) {
        fprintf(stderr, "mdlite: error: %s: [%s]: unknown section (expected system, potential, neighbor, run or output)\n",
                origin, section);
        return 0;
    }
    if (!find_spec(section, key) && !is_pattern_key(section, key)) {
        fprintf(stderr, "mdlite: error: %s: [%s] %s: unknown key\n", origin, section, key);
        return 0;
    }
    if (strlen(section) >= 32 || strlen(key) >= 64) {
        fprintf(stderr, "mdlite: error: %s: [%s] %s: name too long\n", origin, section, key);
        return 0;
    }
    return 1;
}

/* Output paths where an empty value means "none" (documented); elsewhere empty means missing. */
static int empty_means_none(const char *section, const char *key)
{
    return strcmp(section, "output") == 0 && (strcmp(key, "thermo_file") == 0 || strcmp(key, "trajectory") == 0);
}

static int blank(const char *v)
{
    while (*v == ' ' || *v == '\t')
        v++;
    return *v == '\0';
}

static int on_key(void *user, const char *section, const char *key, const char *value, int line)
{
    mdl_config *cfg = user;
    char origin[MDL_PATH_LEN + 32];
    snprintf(origin, sizeof origin, "%s:%d", cfg->path, line);
    if (!section[0]) {
        mdl_error("%s: %s: key outside a [section]", origin, key);
        return 1;
    }
    if (!check_known(origin, section, key))
        return 1; /* keep going: report every unknown key, not just the first */
    mdl_entry *prev = find_entry(cfg, section, key);
    if (prev) {
        fprintf(stderr, "mdlite: error: %s: [%s] %s: set twice (first at %s)\n", origin, section, key, prev->origin);
        return 1;
    }
    if (blank(value) && !empty_means_none(section, key))
        return 0; /* an empty value is a missing one: the default, or a "missing" message later */
    return add_entry(cfg, section, key, value, origin) == MDL_OK ? 0 : -1;
}

static int parse_file(mdl_config *cfg)
{
    return ini_parse(cfg->path, &cfg->text, on_key, cfg);
}

static void remove_entry(mdl_config *cfg, mdl_entry *e)
{
    free(e->value);
    size_t k = (size_t)(e - cfg->entries);
    memmove(e, e + 1, (size_t)(cfg->nentries - (int)k - 1) * sizeof *e);
    cfg->nentries--;
}

/* "section.key=value" from the command line. */
static int apply_override(mdl_config *cfg, const char *arg)
{
    const char *dot = strchr(arg, '.');
    const char *eq = strchr(arg, '=');
    if (!dot || !eq || dot > eq || dot == arg || eq == dot + 1) {
        mdl_error("--set %s: expected section.key=value", arg);
        return MDL_EINPUT;
    }
    char section[32], key[64];
    if ((size_t)(dot - arg) >= sizeof section || (size_t)(eq - dot - 1) >= sizeof key) {
        mdl_error("--set %s: name too long", arg);
        return MDL_EINPUT;
    }
    snprintf(section, sizeof section, "%.*s", (int)(dot - arg), arg);
    snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
    if (!check_known("--set", section, key))
        return MDL_EINPUT;
    mdl_entry *e = find_entry(cfg, section, key);
    if (blank(eq + 1) && !empty_means_none(section, key)) {
        if (e) /* --set key= takes the file's value back: the key is missing again */
            remove_entry(cfg, e);
        return MDL_OK;
    }
    if (e) {
        free(e->value);
        e->value = strdup(eq + 1);
        snprintf(e->origin, sizeof e->origin, "--set");
        return e->value ? MDL_OK : MDL_ERUN;
    }
    return add_entry(cfg, section, key, eq + 1, "--set");
}

/* ---- typed values ------------------------------------------------------------------------ */

static int in_range(const key_spec *s, const mdl_entry *e, double v)
{
    if ((s->min_open && v <= s->min) || (!s->min_open && v < s->min)) {
        fail(e, "'%s' must be %s %g", e->value, s->min_open ? ">" : ">=", s->min);
        return 0;
    }
    if (v > s->max) {
        fail(e, "'%s' must be <= %g", e->value, s->max);
        return 0;
    }
    return 1;
}

/* Splits a value into blank-separated words; returns the count (at most max). */
static int split_words(const char *value, char words[][MDL_PATH_LEN], int max, int *overflow)
{
    int n = 0;
    *overflow = 0;
    const char *p = value;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (!*p)
            break;
        const char *q = p;
        while (*q && *q != ' ' && *q != '\t' && *q != ',')
            q++;
        if (n == max) {
            *overflow = 1;
            return n;
        }
        snprintf(words[n], MDL_PATH_LEN, "%.*s", (int)(q - p), p);
        n++;
        p = q;
    }
    return n;
}

static int parse_bool(const char *v, int *out)
{
    const char *yes[] = {"yes", "true", "on", "1"}, *no[] = {"no", "false", "off", "0"};
    char w[16];
    int ov;
    char words[2][MDL_PATH_LEN];
    if (split_words(v, words, 2, &ov) != 1 || ov)
        return -1;
    mdl_copy(w, sizeof w, words[0]);
    for (int i = 0; i < 4; i++) {
        if (strcmp(w, yes[i]) == 0) { *out = 1; return 0; }
        if (strcmp(w, no[i]) == 0) { *out = 0; return 0; }
    }
    return -1;
}

static int choice_index(const char *choices, const char *word)
{
    int idx = 0;
    size_t len = strlen(word);
    for (const char *p = choices;; idx++) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == len && strncmp(p, word, n) == 0)
            return idx;
        if (!bar)
            return -1;
        p = bar + 1;
    }
}

static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= MDL_NAME_LEN)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

static int set_numbers(const key_spec *s, const mdl_entry *e, void *field, int count, int integer)
{
    char words[4][MDL_PATH_LEN];
    int ov, n = split_words(e->value, words, 4, &ov);
    if (n != count || ov) {
        fail(e, "'%s': expected %d number%s", e->value, count, count > 1 ? "s" : "");
        return 0;
    }
    for (int i = 0; i < count; i++) {
        if (integer) {
            long v;
            if (mdl_parse_long(words[i], &v) != 0) {
                fail(e, "'%s' is not an integer", words[i]);
                return 0;
            }
            if (!in_range(s, e, (double)v))
                return 0;
            if (s->kind == K_INT && s->offset == offsetof(mdl_config, steps))
                *(long *)field = v;
            else
                ((int *)field)[i] = (int)v;
        } else {
            double v;
            if (mdl_parse_double(words[i], &v) != 0) {
                fail(e, "'%s' is not a number", words[i]);
                return 0;
            }
            if (!in_range(s, e, v))
                return 0;
            ((double *)field)[i] = v;
        }
    }
    return 1;
}

static int set_value(mdl_config *cfg, const key_spec *s, const mdl_entry *e)
{
    void *field = (char *)cfg + s->offset;
    char words[MDL_MAX_SPECIES + 1][MDL_PATH_LEN];
    int ov, n;
    switch (s->kind) {
    case K_DOUBLE: return set_numbers(s, e, field, 1, 0);
    case K_DOUBLE3: return set_numbers(s, e, field, 3, 0);
    case K_INT: return set_numbers(s, e, field, 1, 1);
    case K_INT3: return set_numbers(s, e, field, 3, 1);
    case K_AUTO_INT:
        n = split_words(e->value, words, 1, &ov);
        if (n == 1 && !ov && strcmp(words[0], "auto") == 0) {
            *(int *)field = 0;
            return 1;
        }
        return set_numbers(s, e, field, 1, 1);
    case K_SEED: {
        long v;
        if (mdl_parse_long(e->value, &v) != 0) {
            fail(e, "'%s' is not an integer", e->value);
            return 0;
        }
        if (!in_range(s, e, (double)v))
            return 0;
        *(unsigned long *)field = (unsigned long)v;
        return 1;
    }
    case K_BOOL:
        if (parse_bool(e->value, (int *)field) != 0) {
            fail(e, "'%s' is not yes or no", e->value);
            return 0;
        }
        return 1;
    case K_CHOICE: {
        n = split_words(e->value, words, 1, &ov);
        int idx = n == 1 && !ov ? choice_index(s->choices, words[0]) : -1;
        if (idx < 0) {
            fail(e, "'%s' is not one of %s", e->value, s->choices);
            return 0;
        }
        if (s->offset == offsetof(mdl_config, ensemble))
            *(int *)field = idx;
        else if (s->offset != 0) /* style has a single choice and no field */
            mdl_copy((char *)field, 16, words[0]);
        return 1;
    }
    case K_STRING:
    case K_PATH: {
        n = split_words(e->value, words, 1, &ov);
        if (n > 1 || ov) {
            fail(e, "'%s': expected a single file name (no blanks)", e->value);
            return 0;
        }
        const char *v = n ? words[0] : "";
        if (strlen(v) >= MDL_PATH_LEN - 1) {
            fail(e, "path too long");
            return 0;
        }
        if (s->kind == K_PATH && v[0] != '/' && v[0] && strcmp(e->origin, "--set") != 0) {
            /* relative to the directory of the config file */
            const char *slash = strrchr(cfg->path, '/');
            int dirlen = slash ? (int)(slash - cfg->path + 1) : 0;
            if (dirlen + strlen(v) >= MDL_PATH_LEN) {
                fail(e, "path too long");
                return 0;
            }
            char joined[2 * MDL_PATH_LEN];
            memcpy(joined, cfg->path, (size_t)dirlen);
            mdl_copy(joined + dirlen, sizeof joined - (size_t)dirlen, v);
            mdl_copy((char *)field, MDL_PATH_LEN, joined);
        } else {
            snprintf((char *)field, MDL_PATH_LEN, "%s", v);
        }
        return 1;
    }
    case K_NAMES:
        n = split_words(e->value, words, MDL_MAX_SPECIES, &ov);
        if (ov || n == 0) {
            fail(e, "'%s': expected 1 to %d species names", e->value, MDL_MAX_SPECIES);
            return 0;
        }
        for (int i = 0; i < n; i++) {
            if (!valid_name(words[i])) {
                fail(e, "'%s' is not a valid species name (letters, digits, _ or -, at most %d)", words[i],
                     MDL_NAME_LEN - 1);
                return 0;
            }
            for (int k = 0; k < i; k++)
                if (strcmp(words[i], words[k]) == 0) {
                    fail(e, "species '%s' listed twice", words[i]);
                    return 0;
                }
            snprintf(cfg->species[i], MDL_NAME_LEN, "%s", words[i]);
        }
        cfg->nspecies = n;
        return 1;
    case K_FRACTIONS: {
        n = split_words(e->value, words, MDL_MAX_SPECIES, &ov);
        if (ov || n == 0) {
            fail(e, "'%s': expected 1 to %d fractions", e->value, MDL_MAX_SPECIES);
            return 0;
        }
        for (int i = 0; i < n; i++) {
            double v;
            if (mdl_parse_double(words[i], &v) != 0) {
                fail(e, "'%s' is not a number", words[i]);
                return 0;
            }
            if (!in_range(s, e, v))
                return 0;
            cfg->composition[i] = v;
        }
        return n; /* the count is checked against species later */
    }
    case K_FIELDS: {
        n = split_words(e->value, words, 5, &ov);
        int mask = 0;
        for (int i = 0; i < n && !ov; i++) {
            int idx = choice_index("position|velocity|force|image", words[i]);
            if (idx < 0) {
                fail(e, "'%s' is not one of position, velocity, force, image", words[i]);
                return 0;
            }
            mask |= 1 << idx;
        }
        if (ov || n == 0) {
            fail(e, "'%s': expected some of position velocity force image", e->value);
            return 0;
        }
        *(int *)field = mask;
        return 1;
    }
    }
    return 0;
}

/* pair.A.B = epsilon sigma [cutoff] */
static int set_pair(mdl_config *cfg, const mdl_entry *e)
{
    const char *a = e->key + 5, *dot = strchr(a, '.');
    char na[MDL_PATH_LEN] = "", nb[MDL_PATH_LEN] = "";
    if (dot) {
        snprintf(na, sizeof na, "%.*s", (int)(dot - a), a);
        snprintf(nb, sizeof nb, "%s", dot + 1);
    }
    if (!dot || !valid_name(na) || !valid_name(nb)) {
        fail(e, "expected pair.A.B with species names A and B");
        return 0;
    }
    char words[4][MDL_PATH_LEN];
    int ov, n = split_words(e->value, words, 4, &ov);
    double v[3] = {0, 0, -1};
    if (ov || n < 2 || n > 3) {
        fail(e, "'%s': expected epsilon sigma [cutoff]", e->value);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        if (mdl_parse_double(words[i], &v[i]) != 0) {
            fail(e, "'%s' is not a number", words[i]);
            return 0;
        }
    }
    if (v[0] < 0 || v[1] <= 0 || (n == 3 && v[2] <= 0)) {
        fail(e, "epsilon must be >= 0, sigma and cutoff > 0");
        return 0;
    }
    for (int i = 0; i < cfg->npair; i++) {
        mdl_pair_coeff *p = &cfg->pair[i];
        if ((strcmp(p->a, nb) == 0 && strcmp(p->b, na) == 0)) {
            fail(e, "pair %s.%s is also given as pair.%s.%s", na, nb, nb, na);
            return 0;
        }
    }
    if (cfg->npair == (int)(sizeof cfg->pair / sizeof cfg->pair[0])) {
        fail(e, "too many pair coefficients");
        return 0;
    }
    mdl_pair_coeff *p = &cfg->pair[cfg->npair++];
    mdl_copy(p->a, MDL_NAME_LEN, na);
    mdl_copy(p->b, MDL_NAME_LEN, nb);
    p->epsilon = v[0];
    p->sigma = v[1];
    p->cutoff = v[2];
    return 1;
}

/* mass.X = m */
static int set_mass(mdl_config *cfg, const mdl_entry *e)
{
    const char *name = e->key + 5;
    double m;
    if (!valid_name(name)) {
        fail(e, "expected mass.X with a species name X");
        return 0;
    }
    if (mdl_parse_double(e->value, &m) != 0 || m <= 0) {
        fail(e, "'%s' is not a positive number", e->value);
        return 0;
    }
    if (cfg->nmass == MDL_MAX_SPECIES) {
        fail(e, "at most %d species", MDL_MAX_SPECIES);
        return 0;
    }
    snprintf(cfg->mass_species[cfg->nmass], MDL_NAME_LEN, "%s", name);
    cfg->mass_value[cfg->nmass++] = m;
    return 1;
}

/* ---- defaults and cross-checks ----------------------------------------------------------- */

static void set_defaults(mdl_config *cfg)
{
    snprintf(cfg->units, sizeof cfg->units, "lj");
    cfg->mass = 1.0;
    cfg->temperature = -1;
    cfg->seed = 87287;
    cfg->epsilon = 1.0;
    cfg->sigma = 1.0;
    cfg->cutoff = 2.5;
    cfg->skin = -1; /* unit-dependent default */
    cfg->check = 1;
    snprintf(cfg->method, sizeof cfg->method, "cell");
    snprintf(cfg->layout, sizeof cfg->layout, "transposed");
    snprintf(cfg->backend, sizeof cfg->backend, "cpu");
    cfg->steps = 100;
    cfg->timestep = -1; /* unit-dependent default */
    cfg->ensemble = MDL_NVE;
    cfg->target_temperature = -1;
    cfg->tau = -1;
    cfg->every = 1;
    cfg->thermo = 10;
    snprintf(cfg->thermo_file, sizeof cfg->thermo_file, "thermo.csv");
    cfg->dump_every = 100;
    cfg->dump_fields = MDL_DUMP_POSITION | MDL_DUMP_VELOCITY;
    cfg->flush_every = 10;
    cfg->checkpoint = 1;
    cfg->async = 1;
    cfg->buffers = 3;
}

static const mdl_entry *entry_or_file(const mdl_config *cfg, const char *section, const char *key,
                                      mdl_entry *fallback)
{
    const mdl_entry *e = find_entry(cfg, section, key);
    if (e)
        return e;
    memset(fallback, 0, sizeof *fallback);
    snprintf(fallback->section, sizeof fallback->section, "%s", section);
    snprintf(fallback->key, sizeof fallback->key, "%s", key);
    snprintf(fallback->origin, sizeof fallback->origin, "%s", cfg->path);
    return fallback;
}

static int cross_check(mdl_config *cfg, int ncomposition)
{
    mdl_entry tmp;
    const mdl_entry *lat = find_entry(cfg, "system", "lattice"), *inp = find_entry(cfg, "system", "input");
    const mdl_entry *den = find_entry(cfg, "system", "density"), *lc = find_entry(cfg, "system", "lattice_constant");
    const mdl_entry *cells = find_entry(cfg, "system", "cells"), *box = find_entry(cfg, "system", "box");
    int ok = 1;
    if (lat && inp) {
        fail(inp, "contradicts lattice (%s): give either a lattice or an input file", lat->origin);
        return 0;
    }
    if (!lat && !inp) {
        fail(entry_or_file(cfg, "system", "lattice", &tmp), "missing: give lattice = fcc|bcc|sc or input = FILE");
        return 0;
    }
    if (lat) {
        if (den && lc) {
            fail(lc, "contradicts density (%s): give one of them", den->origin);
            ok = 0;
        }
        if (!den && !lc) {
            fail(entry_or_file(cfg, "system", "density", &tmp), "missing: a lattice needs density or lattice_constant");
            ok = 0;
        }
        if (!cells) {
            fail(entry_or_file(cfg, "system", "cells", &tmp), "missing: a lattice needs cells = NX NY NZ");
            ok = 0;
        }
        if (box) {
            fail(box, "not used with a lattice (the lattice defines the box)");
            ok = 0;
        }
    } else {
        const mdl_entry *bad[] = {den, lc, cells, find_entry(cfg, "system", "species"),
                                  find_entry(cfg, "system", "composition")};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            if (bad[i]) {
                fail(bad[i], "only used with a lattice, not with input = FILE");
                ok = 0;
            }
    }
    const mdl_entry *comp = find_entry(cfg, "system", "composition");
    if (cfg->nspecies == 0) {
        cfg->nspecies = 1;
        snprintf(cfg->species[0], MDL_NAME_LEN, "%s", strcmp(cfg->units, "metal") == 0 ? "Ar" : "A");
    }
    if (comp) {
        if (ncomposition != cfg->nspecies) {
            fail(comp, "%d fractions for %d species", ncomposition, cfg->nspecies);
            ok = 0;
        } else {
            double sum = 0;
            for (int i = 0; i < ncomposition; i++)
                sum += cfg->composition[i];
            if (sum < 1 - 1e-9 || sum > 1 + 1e-9) {
                fail(comp, "fractions add up to %g, not 1", sum);
                ok = 0;
            }
        }
    } else if (cfg->nspecies > 1) {
        fail(entry_or_file(cfg, "system", "composition", &tmp), "missing: %d species need %d fractions",
             cfg->nspecies, cfg->nspecies);
        ok = 0;
    } else {
        cfg->composition[0] = 1.0;
    }
    if (cfg->ensemble != MDL_NVE && cfg->target_temperature < 0) {
        fail(entry_or_file(cfg, "run", "target_temperature", &tmp), "missing: ensemble %s needs a target temperature",
             find_entry(cfg, "run", "ensemble")->value);
        ok = 0;
    }
    if ((cfg->ensemble == MDL_NVT_BERENDSEN || cfg->ensemble == MDL_NVT_LANGEVIN) && cfg->tau < 0) {
        fail(entry_or_file(cfg, "run", "tau", &tmp), "missing: ensemble %s needs tau (relaxation time)",
             find_entry(cfg, "run", "ensemble")->value);
        ok = 0;
    }
    if (strcmp(cfg->backend, "cpu") == 0 && strcmp(cfg->method, "brute-atomic") == 0) {
        fail(find_entry(cfg, "neighbor", "method"), "brute-atomic is a GPU method; the CPU backend has cell and brute");
        ok = 0;
    }
    if (cfg->trajectory[0]) {
        size_t len = strlen(cfg->trajectory);
        const char *t = cfg->trajectory;
        int h5 = (len > 3 && strcmp(t + len - 3, ".h5") == 0) || (len > 5 && strcmp(t + len - 5, ".h5md") == 0);
        int xyz = len > 4 && strcmp(t + len - 4, ".xyz") == 0;
        if (!h5 && !xyz) {
            fail(find_entry(cfg, "output", "trajectory"), "'%s': expected a .h5/.h5md (H5MD) or .xyz name", t);
            ok = 0;
        } else if (len > 3 && strcmp(t + len - 3, ".h5") == 0) {
            mdl_warn("%s: [output] trajectory: %s is H5MD, but MDAnalysis recognises H5MD files only by the .h5md "
                     "suffix (use .h5md, or rename the file before opening it there)",
                     config_origin(cfg, "output", "trajectory"), t);
        }
    }
    if (strcmp(cfg->units, "metal") == 0) {
        const char *need[] = {"epsilon", "sigma", "cutoff"};
        for (int i = 0; i < 3; i++)
            if (!find_entry(cfg, "potential", need[i])) {
                fail(entry_or_file(cfg, "potential", need[i], &tmp), "missing: metal units have no default %s",
                     need[i]);
                ok = 0;
            }
    }
    return ok;
}

/* ---- public -------------------------------------------------------------------------------- */

int config_load(mdl_config *cfg, const char *path, int noverrides, char *const *overrides)
{
    memset(cfg, 0, sizeof *cfg);
    if (strlen(path) >= MDL_PATH_LEN) {
        mdl_error("config path too long");
        return MDL_EINPUT;
    }
    snprintf(cfg->path, sizeof cfg->path, "%s", path);
    set_defaults(cfg);
    int rc = parse_file(cfg);
    for (int i = 0; rc == MDL_OK && i < noverrides; i++)
        rc = apply_override(cfg, overrides[i]);
    if (rc != MDL_OK)
        return rc;

    int ok = 1, ncomposition = 0;
    /* units first: other defaults depend on it */
    const mdl_entry *u = find_entry(cfg, "system", "units");
    if (u && !set_value(cfg, find_spec("system", "units"), u))
        return MDL_EINPUT;
    for (int i = 0; i < cfg->nentries; i++) {
        const mdl_entry *e = &cfg->entries[i];
        const key_spec *s = find_spec(e->section, e->key);
        int r;
        if (s == find_spec("system", "units"))
            continue;
        if (s)
            r = set_value(cfg, s, e);
        else if (strncmp(e->key, "pair.", 5) == 0)
            r = set_pair(cfg, e);
        else
            r = set_mass(cfg, e);
        if (s && s->kind == K_FRACTIONS)
            ncomposition = r;
        ok &= r != 0;
    }
    if (!ok || !cross_check(cfg, ncomposition))
        return MDL_EINPUT;
    mdl_units un;
    units_lookup(cfg->units, &un);
    if (cfg->timestep < 0)
        cfg->timestep = un.dt;
    if (cfg->skin < 0)
        cfg->skin = un.skin;
    return MDL_OK;
}

void config_destroy(mdl_config *cfg)
{
    for (int i = 0; i < cfg->nentries; i++)
        free(cfg->entries[i].value);
    free(cfg->entries);
    free(cfg->text);
    memset(cfg, 0, sizeof *cfg);
}

const char *config_origin(const mdl_config *cfg, const char *section, const char *key)
{
    const mdl_entry *e = find_entry(cfg, section, key);
    return e ? e->origin : cfg->path;
}

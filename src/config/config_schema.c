/* The configuration's keys: the schema table (section, key, kind, field, range, choices) and the
   typed reading of each value, with file:line messages. */
#define _POSIX_C_SOURCE 200809L
#include "config_schema.h"

#include "../util/strbuf.h"
#include "../util/util.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the keys -------------------------------------------------------------------------- */

#define F(field) offsetof(mdl_config, field)
/* Physical values lie within [1e-30, 1e30] in magnitude (or are 0 where 0 is allowed): their
   products and powers in the run (tau squared, a cutoff to the 12th) stay finite in double. */
#define BIG 1e30
#define SMALLEST 1e-30
static const key_spec SCHEMA[] = {
    {"system", "units", K_CHOICE, F(units), 0, 0, 0, "lj|metal|real"},
    {"system", "dimension", K_INT, F(dimension), 2, 3, 0, NULL}, {"system", "boundary", K_WORDS, F(boundary), 0, 0, 0, NULL},
    {"system", "set_types", K_WORDS, F(set_types), 0, 0, 0, NULL}, {"system", "groups", K_WORDS, F(groups), 0, 0, 0, NULL},
    {"system", "velocity_edits", K_WORDS, F(velocity_edits), 0, 0, 0, NULL}, {"system", "delete_atoms_first", K_BOOL, F(delete_atoms_first), 0, 0, 0, NULL},
    {"system", "delete_atoms", K_WORDS, F(delete_atoms), 0, 0, 0, NULL}, {"system", "lattice_regions", K_WORDS, F(lattice_regions), 0, 0, 0, NULL},
    {"run", "stage_velocity_edits", K_WORDS, F(stage_velocity_edits), 0, 0, 0, NULL},
    {"system", "lattice", K_CHOICE, F(lattice), 0, 0, 0, "fcc|bcc|sc|hcp|diamond|custom|sq|sq2|hex"},
    {"system", "lattice_a1", K_DOUBLE3, F(lattice_a[0]), -BIG, BIG, 0, NULL},
    {"system", "lattice_a2", K_DOUBLE3, F(lattice_a[1]), -BIG, BIG, 0, NULL},
    {"system", "lattice_a3", K_DOUBLE3, F(lattice_a[2]), -BIG, BIG, 0, NULL},
    {"system", "lattice_basis", K_TRIPLES, F(lattice_basis), 0, 1, 0, NULL},
    {"system", "lattice_orient", K_INT9, F(lattice_orient), -10000, 10000, 0, NULL},
    {"system", "lattice_origin", K_DOUBLE3, F(lattice_origin), 0, 1, 0, NULL},
    {"system", "lattice_spacing", K_DOUBLE3, F(lattice_spacing), 0, BIG, 1, NULL},
    {"system", "input", K_PATH, F(input), 0, 0, 0, NULL}, {"system", "input_format", K_ENUM, F(input_format), 0, 0, 0, "auto|data|xyz|xy"},
    {"system", "density", K_DOUBLE, F(density), 0, BIG, 1, NULL},
    {"system", "lattice_constant", K_DOUBLE, F(lattice_constant), 0, BIG, 1, NULL},
    {"system", "cells", K_INT3, F(cells), 1, 4096, 0, NULL},
    {"system", "mass", K_DOUBLE, F(mass), 0, BIG, 1, NULL},
    {"system", "temperature", K_DOUBLE, F(temperature), 0, BIG, 0, NULL},
    {"system", "seed", K_SEED, F(seed), 1, 4294967295.0, 0, NULL},
    {"system", "box", K_DOUBLE3, F(box), 0, BIG, 1, NULL},
    {"system", "box_origin", K_DOUBLE3, F(box_origin), -BIG, BIG, 0, NULL},
    {"system", "tilt", K_DOUBLE3, F(tilt), -BIG, BIG, 0, NULL},
    {"system", "species", K_NAMES, F(species), 0, 0, 0, NULL},
    {"system", "composition", K_FRACTIONS, F(composition), 0, 1, 0, NULL},
    {"system", "velocities", K_ENUM, F(velocities), 0, 0, 0, "maxwell|lammps-all|lammps-geom"},
    {"system", "velocity_dist", K_ENUM, F(velocity_dist), 0, 0, 0, "uniform|gaussian"},
    {"potential", "style", K_ENUM, F(style), 0, 0, 0, MDL_POTENTIAL_STYLE_CHOICES},
    {"potential", "file", K_PATH, F(eam_file), 0, 0, 0, NULL},
#define PARAM_KEY(STYLE, key, k, lo, hi, positive, dflt) \
    {"potential", #key, K_DOUBLE, F(param[MDL_PAIR_##STYLE][k]), lo, hi, positive, NULL},
#define STYLE_KEYS(ID, name) MDL_##ID##_PARAMS(PARAM_KEY, ID)
    MDL_PAIR_STYLES(STYLE_KEYS)
    {"potential", "cutoff", K_DOUBLE, F(cutoff), 0, BIG, 1, NULL},
    {"potential", "shift", K_BOOL, F(shift), 0, 0, 0, NULL},
    {"potential", "tail", K_BOOL, F(tail), 0, 0, 0, NULL}, {"potential", "exclude", K_WORDS, F(exclude), 0, 0, 0, NULL},
    {"neighbor", "skin", K_AUTO_DOUBLE, F(skin), 0, BIG, 1, NULL}, /* 0 would stop every run at step 1 */
    {"neighbor", "check", K_INT, F(check), 1, 1000000, 0, NULL}, {"neighbor", "delay", K_INT, F(delay), 0, 1000000, 0, NULL},
    {"neighbor", "distance_check", K_BOOL, F(distance_check), 0, 0, 0, NULL},
    {"neighbor", "method", K_CHOICE, F(method), 0, 0, 0, "cell|brute|brute-atomic"},
    {"neighbor", "layout", K_CHOICE, F(layout), 0, 0, 0, "transposed|row"},
    {"neighbor", "max_neighbors", K_AUTO_INT, F(max_neighbors), 1, 100000, 0, NULL},
    {"neighbor", "outer_skin", K_DOUBLE, F(outer_skin), 0, BIG, 0, NULL},
    {"neighbor", "list", K_ENUM, F(list_form), 0, 0, 0, "auto|plain|packed"},
    {"neighbor", "grow", K_BOOL, F(grow), 0, 0, 0, NULL},
    {"run", "backend", K_CHOICE, F(backend), 0, 0, 0, "cpu|gpu"},
    {"run", "steps", K_LONG, F(steps), 0, 2e9, 0, NULL}, {"run", "reset_timestep", K_LONG, F(reset_timestep), 0, 9e15, 0, NULL},
    {"run", "timestep", K_DOUBLE, F(timestep), 0, BIG, 1, NULL},
    {"run", "ensemble", K_ENUM, F(ensemble), 0, 0, 0, MDL_ENSEMBLE_CHOICES},
    {"run", "min_style", K_ENUM, F(min_style), 0, 0, 0, "cg|fire|fire/old"},
    {"run", "chains", K_ENUM, F(fresh_chains), 0, 0, 0, "continue|fresh"},
    {"run", "etol", K_DOUBLE, F(etol), 0, 1, 0, NULL}, {"run", "ftol", K_DOUBLE, F(ftol), 0, BIG, 0, NULL},
    {"run", "maxeval", K_LONG, F(maxeval), 0, 2e9, 0, NULL},
    {"run", "dmax", K_DOUBLE, F(dmax), 0, BIG, 1, NULL}, {"run", "fire", K_WORDS, F(fire_keys), 0, 0, 0, NULL},
    {"run", "wall_reflect", K_WORDS, F(wall_keys), 0, 0, 0, NULL}, {"run", "force_fixes", K_WORDS, F(force_fix_keys), 0, 0, 0, NULL},
    {"run", "thermostat_group", K_WORDS, F(thermostat_group_name), 0, 0, 0, NULL},
    {"run", "rescale_window", K_DOUBLE, F(rescale_window), 0, BIG, 0, NULL},
    {"run", "target_temperature", K_DOUBLE, F(target_temperature), 0, BIG, 0, NULL},
    {"run", "final_temperature", K_DOUBLE, F(final_temperature), 0, BIG, 0, NULL},
    {"run", "tau", K_DOUBLE, F(tau), 0, BIG, 1, NULL}, {"run", "every", K_INT, F(every), 1, 2e9, 0, NULL},
    {"run", "chain", K_INT, F(chain), 1, MDL_MAX_CHAIN, 0, NULL},
    {"run", "target_pressure", K_DOUBLE, F(target_pressure), -BIG, BIG, 0, NULL},
    {"run", "pressure_tau", K_DOUBLE, F(pressure_tau), 0, BIG, 1, NULL},
    {"run", "pressure_chain", K_INT, F(pressure_chain), 1, MDL_MAX_CHAIN, 0, NULL},
    {"run", "threads", K_AUTO_INT, F(threads), 1, 1024, 0, NULL},
    {"run", "processors", K_AUTO_INT3, F(processors), 1, 65536, 0, NULL},
    {"run", "gpu_comm", K_ENUM, F(gpu_comm), 0, 0, 0, "auto|direct|nccl|mpi"},
    {"run", "gpu_arrays", K_ENUM, F(gpu_arrays), 0, 0, 0, "spare|tight"}, {"run", "gpu_step", K_ENUM, F(gpu_step), 0, 0, 0, "auto|graphs|persistent"},
    {"output", "thermo", K_THERMO, F(thermo), 0, 2e9, 0, NULL},
    {"output", "thermo_file", K_STRING, F(thermo_file), 0, 0, 0, NULL},
    {"output", "thermo_columns", K_WORDS, F(thermo_columns), 0, 0, 0, NULL}, {"output", "thermo_computes", K_WORDS, F(thermo_compute_keys), 0, 0, 0, NULL},
    {"output", "thermo_variables", K_WORDS, F(thermo_variables), 0, 0, 0, NULL}, {"output", "thermo_balance_id", K_WORDS, F(thermo_balance_id), 0, 0, 0, NULL},
    {"output", "thermo_norm", K_BOOL, F(thermo_norm), 0, 0, 0, NULL},
    {"output", "thermo_file_columns", K_ENUM, F(thermo_file_mdlite), 0, 0, 0, "thermo|mdlite"},
    {"output", "thermo_format", K_WORDS, F(thermo_format), 0, 0, 0, NULL},
    {"output", "thermo_line", K_ENUM, F(thermo_multi), 0, 0, 0, "one|multi"},
    {"output", "thermo_group", K_WORDS, F(thermo_group_name), 0, 0, 0, NULL},
    {"output", "thermo_pressure_group", K_WORDS, F(thermo_pressure_group_name), 0, 0, 0, NULL},
    {"output", "log_file", K_STRING, F(log_file), 0, 0, 0, NULL}, {"output", "log_append", K_BOOL, F(log_append), 0, 0, 0, NULL},
    {"output", "end_message", K_TEXT, 0, 0, 0, 0, NULL}, {"output", "end_log_message", K_TEXT, 0, 0, 0, 0, NULL},
    {"run", "message", K_TEXT, 0, 0, 0, 0, NULL},          {"run", "log_message", K_TEXT, 0, 0, 0, 0, NULL},
    {"output", "trajectory", K_STRING, F(trajectory), 0, 0, 0, NULL},
    {"output", "data_file", K_STRING, F(data_file), 0, 0, 0, NULL},
    {"output", "dump_every", K_INT, F(dump_every), 1, 2e9, 0, NULL},
    {"output", "dump_fields", K_FIELDS, F(dump_fields), 0, 0, 0, NULL},
    {"output", "dump_columns", K_WORDS, F(dump_columns), 0, 0, 0, NULL},
    {"output", "positions", K_ENUM, F(unwrapped), 0, 0, 0, "wrapped|unwrapped"},
    {"output", "compress", K_BOOL, F(compress), 0, 0, 0, NULL}, {"output", "flush_every", K_INT, F(flush_every), 1, 2e9, 0, NULL},
    {"output", "checkpoint", K_BOOL, F(checkpoint), 0, 0, 0, NULL},
    {"output", "async", K_BOOL, F(async), 0, 0, 0, NULL}, {"output", "buffers", K_INT, F(buffers), 1, 64, 0, NULL},
    {"output", "throttle_ms", K_INT, F(throttle_ms), 0, 60000, 0, NULL},
    {"output", "sync_phases", K_BOOL, F(sync_phases), 0, 0, 0, NULL},
    {"output", "rebuild_timeline", K_INT, F(rebuild_timeline), 0, 2e9, 0, NULL},
    {"analysis", "rdf_every", K_INT, F(rdf_every), 0, 2e9, 0, NULL}, {"analysis", "rdf_bins", K_INT, F(rdf_bins), 1, 100000, 0, NULL},
    {"analysis", "rdf_max", K_DOUBLE, F(rdf_max), 0, BIG, 1, NULL},
    {"analysis", "rdf_file", K_STRING, F(rdf_file), 0, 0, 0, NULL},
    {"analysis", "msd_every", K_INT, F(msd_every), 0, 2e9, 0, NULL}, {"analysis", "msd_origins", K_INT, F(msd_origins), 1, 1000, 0, NULL},
    {"analysis", "msd_origin_every", K_INT, F(msd_origin_every), 1, 2e9, 0, NULL},
    {"analysis", "msd_file", K_STRING, F(msd_file), 0, 0, 0, NULL},
};
#undef F
#define NSCHEMA (sizeof SCHEMA / sizeof SCHEMA[0])

static const char *SECTIONS[] = {"system", "potential", "neighbor", "run", "output", "analysis"};

const char *config_stage_name(const char *section)
{
    return strncmp(section, "stage:", 6) == 0 ? section + 6 : NULL;
}

int config_known_section(const char *s)
{
    for (size_t i = 0; i < sizeof SECTIONS / sizeof SECTIONS[0]; i++)
        if (strcmp(SECTIONS[i], s) == 0)
            return 1;
    return 0;
}

const key_spec *config_find_spec(const char *section, const char *key)
{
    for (size_t i = 0; i < NSCHEMA; i++)
        if (strcmp(SCHEMA[i].section, section) == 0 && strcmp(SCHEMA[i].key, key) == 0)
            return &SCHEMA[i];
    return NULL;
}

/* Keys with species names in them: [potential] pair.A.B and [system] mass.X. */
int config_is_pattern_key(const char *section, const char *key)
{
    if (strcmp(section, "potential") == 0 &&
        (strncmp(key, "pair.", 5) == 0 || strncmp(key, "file.", 5) == 0 || strncmp(key, "element.", 8) == 0))
        return 1;
    if (strcmp(section, "system") == 0 && strncmp(key, "mass.", 5) == 0)
        return 1;
    return 0;
}

void config_fail(const mdl_entry *e, const char *fmt, ...)
{
    char why[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    mdl_error("%s: [%s] %s: %s", e->origin, e->section, e->key, why);
}

/* ---- typed values ------------------------------------------------------------------------ */

static int in_range(const key_spec *s, const mdl_entry *e, double v)
{
    char why[256];
    if (!mdl_in_range(e->value, v, s->min, s->max, s->min_open, why, sizeof why)) {
        config_fail(e, "%s", why);
        return 0;
    }
    if (s->max == BIG && v != 0 && fabs(v) < SMALLEST) {
        config_fail(e, "'%s' is too small: a nonzero value is at least %g in magnitude", e->value, SMALLEST);
        return 0;
    }
    return 1;
}

/* One number of a value (word), within s's range unless s is NULL; else a message, 0. */
static int read_number(const key_spec *s, const mdl_entry *e, const char *word, double *v)
{
    if (mdl_parse_double(word, v) != 0) {
        config_fail(e, "'%s' is not a number", word);
        return 0;
    }
    return !s || in_range(s, e, *v);
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

static int set_numbers(const key_spec *s, const mdl_entry *e, void *field, int count, int integer)
{
    char words[9][MDL_PATH_LEN];
    int ov, n = split_words(e->value, words, count, &ov);
    if (n != count || ov) {
        config_fail(e, "'%s': expected %d number%s", e->value, count, count > 1 ? "s" : "");
        return 0;
    }
    for (int i = 0; i < count; i++) {
        if (integer) {
            long v;
            if (mdl_parse_long(words[i], &v) != 0) {
                config_fail(e, "'%s' is not an integer", words[i]);
                return 0;
            }
            if (!in_range(s, e, (double)v))
                return 0;
            if (s->kind == K_LONG)
                *(long *)field = v;
            else
                ((int *)field)[i] = (int)v;
        } else {
            double v;
            if (!read_number(s, e, words[i], &v))
                return 0;
            ((double *)field)[i] = v;
        }
    }
    return 1;
}

/* Numbers in threes, each in [min, max) (a custom lattice's basis: fractions of the cell), into
   the field's {count, triples}. */
static int set_triples(const key_spec *s, const mdl_entry *e, void *field)
{
    mdl_lattice_basis *b = field;
    double(*v)[3] = b->v;
    char *copy = mdl_strdup(e->value), *save = NULL;
    int n = 0, ok = copy != NULL;
    for (char *w = copy ? strtok_r(copy, " \t", &save) : NULL; w && ok; w = strtok_r(NULL, " \t", &save), n++) {
        double x;
        if (n >= 3 * MDL_MAX_BASIS) {
            config_fail(e, "more than %d basis atoms", MDL_MAX_BASIS);
            ok = 0;
        } else if (!read_number(NULL, e, w, &x)) {
            ok = 0;
        } else if (!(x >= s->min && x < s->max)) {
            config_fail(e, "'%s': a basis atom's fraction of the cell lies in [0, 1)", w);
            ok = 0;
        } else {
            v[n / 3][n % 3] = x;
        }
    }
    free(copy);
    if (ok && (n == 0 || n % 3)) {
        config_fail(e, "'%s': expected the basis atoms' fractions in threes (x y z x y z ...)", e->value);
        ok = 0;
    }
    b->n = n / 3;
    return ok;
}

int config_set_value(mdl_config *cfg, const key_spec *s, const mdl_entry *e)
{
    void *field = (char *)cfg + s->offset;
    char words[MDL_MAX_SPECIES + 1][MDL_PATH_LEN];
    int ov, n;
    switch (s->kind) {
    case K_DOUBLE: return set_numbers(s, e, field, 1, 0);
    case K_DOUBLE3: return set_numbers(s, e, field, 3, 0);
    case K_INT:
    case K_LONG: return set_numbers(s, e, field, 1, 1);
    case K_INT3: return set_numbers(s, e, field, 3, 1);
    case K_INT9: return set_numbers(s, e, field, 9, 1);
    case K_TRIPLES: return set_triples(s, e, field);
    case K_AUTO_INT3: /* "auto": 0 0 0 */
        n = split_words(e->value, words, 1, &ov);
        if (n == 1 && !ov && strcmp(words[0], "auto") == 0) {
            memset(field, 0, 3 * sizeof(int));
            return 1;
        }
        return set_numbers(s, e, field, 3, 1);
    case K_THERMO: /* "ends": a row at a stage's first and last steps only (LAMMPS's thermo 0) */
        if (!strcmp(e->value, "ends")) {
            *(int *)field = -1;
            return 1;
        }
        return set_numbers(s, e, field, 1, 1);
    case K_AUTO_INT:
    case K_AUTO_DOUBLE: /* "auto": 0, or MDL_AUTO for a double */
        n = split_words(e->value, words, 1, &ov);
        if (n == 1 && !ov && strcmp(words[0], "auto") == 0) {
            if (s->kind == K_AUTO_INT)
                *(int *)field = 0;
            else
                *(double *)field = MDL_AUTO;
            return 1;
        }
        if (n == 1 && !ov && (s->kind == K_AUTO_INT ? mdl_parse_long(words[0], &(long){0})
                                                    : mdl_parse_double(words[0], &(double){0})) != 0) {
            config_fail(e, "'%s' is neither a number nor auto", words[0]);
            return 0;
        }
        return set_numbers(s, e, field, 1, s->kind == K_AUTO_INT);
    case K_SEED: {
        long v;
        if (mdl_parse_long(e->value, &v) != 0) {
            config_fail(e, "'%s' is not an integer", e->value);
            return 0;
        }
        if (!in_range(s, e, (double)v))
            return 0;
        *(unsigned long *)field = (unsigned long)v;
        return 1;
    }
    case K_BOOL:
        if (parse_bool(e->value, (int *)field) != 0) {
            config_fail(e, "'%s' is not yes or no", e->value);
            return 0;
        }
        return 1;
    case K_CHOICE:
    case K_ENUM: {
        n = split_words(e->value, words, 1, &ov);
        int idx = n == 1 && !ov ? choice_index(s->choices, words[0]) : -1;
        if (idx < 0) {
            config_fail(e, "'%s' is not one of %s", e->value, s->choices);
            return 0;
        }
        if (s->kind == K_ENUM)
            *(int *)field = idx;
        else
            mdl_copy((char *)field, 16, words[0]);
        return 1;
    }
    case K_TEXT: { /* checked here, read from the entry where it is used */
        mdl_buf text = {0};
        int rc = buf_unquote(e->value, &text);
        buf_free(&text);
        if (rc == MDL_ERUN)
            return 0;
        if (rc != MDL_OK)
            config_fail(e, "expected a text in double quotes, with \\\\ \\\" \\n \\t \\r and \\xHH escapes");
        return rc == MDL_OK;
    }
    case K_WORDS: /* words, kept as written (the reader that takes them checks them) */
        if (strlen(e->value) >= MDL_PATH_LEN - 1) {
            config_fail(e, "too long");
            return 0;
        }
        mdl_copy((char *)field, MDL_PATH_LEN, e->value);
        return 1;
    case K_STRING:
    case K_PATH: {
        n = split_words(e->value, words, 1, &ov);
        if (n > 1 || ov) {
            config_fail(e, "'%s': expected a single file name (no blanks)", e->value);
            return 0;
        }
        const char *v = n ? words[0] : "";
        if (strlen(v) >= MDL_PATH_LEN - 1) {
            config_fail(e, "the path is longer than %d characters, mdlite's limit", MDL_PATH_LEN - 2);
            return 0;
        }
        if (s->kind == K_PATH && v[0] != '/' && v[0] && strcmp(e->origin, "--set") != 0) {
            /* relative to the directory of the config file */
            const char *slash = strrchr(cfg->path, '/');
            int dirlen = slash ? (int)(slash - cfg->path + 1) : 0;
            if (dirlen + strlen(v) >= MDL_PATH_LEN) {
                config_fail(e, "the path is longer than %d characters, mdlite's limit", MDL_PATH_LEN - 2);
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
            config_fail(e, "'%s': expected 1 to %d species names", e->value, MDL_MAX_SPECIES);
            return 0;
        }
        for (int i = 0; i < n; i++) {
            if (!species_name_valid(words[i])) {
                config_fail(e, "'%s' is not a valid species name (letters, digits, _ or -, at most %d)", words[i],
                     MDL_NAME_LEN - 1);
                return 0;
            }
            for (int k = 0; k < i; k++)
                if (strcmp(words[i], words[k]) == 0) {
                    config_fail(e, "species '%s' listed twice", words[i]);
                    return 0;
                }
            snprintf(cfg->species[i], MDL_NAME_LEN, "%s", words[i]);
        }
        cfg->nspecies = n;
        return 1;
    case K_FRACTIONS: {
        n = split_words(e->value, words, MDL_MAX_SPECIES, &ov);
        if (ov || n == 0) {
            config_fail(e, "'%s': expected 1 to %d fractions", e->value, MDL_MAX_SPECIES);
            return 0;
        }
        for (int i = 0; i < n; i++) {
            double v;
            if (!read_number(s, e, words[i], &v))
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
                config_fail(e, "'%s' is not one of position, velocity, force, image", words[i]);
                return 0;
            }
            mask |= 1 << idx;
        }
        if (ov || n == 0) {
            config_fail(e, "'%s': expected some of position velocity force image", e->value);
            return 0;
        }
        *(int *)field = mask;
        return 1;
    }
    }
    return 0;
}

/* file.X = PATH (eam: species X's funcfl file, relative to the config's folder) and element.X =
   NAME (eam/alloy, eam/fs: the file's element species X is) */
int config_set_species_key(mdl_config *cfg, const mdl_entry *e)
{
    const int file = strncmp(e->key, "file.", 5) == 0;
    const char *name = e->key + (file ? 5 : 8);
    int *n = file ? &cfg->nfile : &cfg->nelement;
    if (!species_name_valid(name)) {
        config_fail(e, "expected %s.X with a species name X", file ? "file" : "element");
        return 0;
    }
    if (*n == MDL_MAX_SPECIES) {
        config_fail(e, "at most %d species", MDL_MAX_SPECIES);
        return 0;
    }
    if (file) { /* read as [potential] file is, into this species' slot */
        key_spec spec = *config_find_spec("potential", "file");
        spec.offset = offsetof(mdl_config, file_path) + (size_t)*n * MDL_PATH_LEN;
        if (!config_set_value(cfg, &spec, e))
            return 0;
        mdl_copy(cfg->file_species[*n], MDL_NAME_LEN, name);
    } else {
        char words[2][MDL_PATH_LEN];
        int ov, k = split_words(e->value, words, 2, &ov);
        if (ov || k != 1 || !species_name_valid(words[0])) {
            config_fail(e, "'%s': expected one element name (letters, digits, '_' or '-')", e->value);
            return 0;
        }
        mdl_copy(cfg->element_species[*n], MDL_NAME_LEN, name);
        mdl_copy(cfg->element_name[*n], MDL_NAME_LEN, words[0]);
    }
    (*n)++;
    return 1;
}

/* pair.A.B = the style's keys' values [cutoff] (the style is read before it) */
int config_set_pair(mdl_config *cfg, const mdl_entry *e)
{
    const mdl_pair_style_info *st = pair_style_info(cfg->style);
    if (!st) {
        config_fail(e, "style %s has no pair lines (its file gives every pair)", config_style_name(cfg->style));
        return 0;
    }
    const char *a = e->key + 5, *dot = strchr(a, '.');
    char na[MDL_PATH_LEN] = "", nb[MDL_PATH_LEN] = "";
    if (dot) {
        snprintf(na, sizeof na, "%.*s", (int)(dot - a), a);
        snprintf(nb, sizeof nb, "%s", dot + 1);
    }
    if (!dot || !species_name_valid(na) || !species_name_valid(nb)) {
        config_fail(e, "expected pair.A.B with species names A and B");
        return 0;
    }
    char words[MDL_PAIR_MAX_PARAMS + 2][MDL_PATH_LEN], expect[128];
    int ov, n = split_words(e->value, words, MDL_PAIR_MAX_PARAMS + 2, &ov), k = 0;
    for (int i = 0; i < st->nparam; i++)
        k += snprintf(expect + k, sizeof expect - (size_t)k, "%s ", st->key[i]);
    snprintf(expect + k, sizeof expect - (size_t)k, "[cutoff] (style %s)", st->name);
    if (ov || n < st->nparam || n > st->nparam + 1) {
        config_fail(e, "'%s': expected %s", e->value, expect);
        return 0;
    }
    double v[MDL_PAIR_MAX_PARAMS + 1];
    for (int i = 0; i < n; i++) /* each within its key's range */
        if (!read_number(config_find_spec("potential", i < st->nparam ? st->key[i] : "cutoff"), e, words[i], &v[i]))
            return 0;
    for (int i = 0; i < cfg->npair; i++) {
        mdl_pair_coeff *p = &cfg->pair[i];
        if ((strcmp(p->a, nb) == 0 && strcmp(p->b, na) == 0)) {
            config_fail(e, "pair %s.%s is also given as pair.%s.%s", na, nb, nb, na);
            return 0;
        }
    }
    if (cfg->npair == (int)(sizeof cfg->pair / sizeof cfg->pair[0])) {
        config_fail(e, "too many pair coefficients");
        return 0;
    }
    mdl_pair_coeff *p = &cfg->pair[cfg->npair++];
    mdl_copy(p->a, MDL_NAME_LEN, na);
    mdl_copy(p->b, MDL_NAME_LEN, nb);
    for (int i = 0; i < st->nparam; i++)
        p->param[i] = v[i];
    p->cutoff = n > st->nparam ? v[st->nparam] : -1;
    return 1;
}

/* mass.X = m */
int config_set_mass(mdl_config *cfg, const mdl_entry *e)
{
    const char *name = e->key + 5;
    double m;
    if (!species_name_valid(name)) {
        config_fail(e, "expected mass.X with a species name X");
        return 0;
    }
    if (mdl_parse_double(e->value, &m) != 0 || m <= 0) {
        config_fail(e, "'%s' is not a positive number", e->value);
        return 0;
    }
    if (!in_range(config_find_spec("system", "mass"), e, m))
        return 0;
    if (cfg->nmass == MDL_MAX_SPECIES) {
        config_fail(e, "at most %d species", MDL_MAX_SPECIES);
        return 0;
    }
    snprintf(cfg->mass_species[cfg->nmass], MDL_NAME_LEN, "%s", name);
    cfg->mass_value[cfg->nmass++] = m;
    return 1;
}

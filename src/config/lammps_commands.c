/* The LAMMPS commands that make the system, each into mdlite's INI keys: units, read_data (the
   lattice, regions, the box and its atoms: lammps_box_commands.c), masses, velocities, pair styles and their
   coefficients (the last write wins per type pair, as in LAMMPS), the neighbor schedule, and the
   settings that change no number (processors, atom_modify, comm_style, newton, package, suffix). */
#define _POSIX_C_SOURCE 200809L
#include "lammps_script_state.h"
#include "../physics/boundary.h"

#include <math.h>
#include <stdlib.h>

static int cmd_units(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 1, 1));
    if (sc->box_made)
        return fail(sc, "units after the box is made: LAMMPS refuses it (the box is in the units before)");
    if (strcmp(w[1], "lj") != 0 && strcmp(w[1], "metal") != 0 && strcmp(w[1], "real") != 0)
        return fail(sc, "units %s: mdlite runs lj, metal and real units", w[1]);
    snprintf(sc->units, sizeof sc->units, "%s", w[1]);
    settings_drop(&sc->now, "timestep"); /* LAMMPS's units sets them to the style's defaults */
    settings_drop(&sc->now, "skin");
    return setf(sc, "system", "units", "%s", w[1]);
}

static int cmd_timestep(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 1, 1));
    double v;
    MDL_TRY(script_number(sc, w[1], &v));
    if (!(v > 0))
        return fail(sc, "'%s': the timestep must be above 0", w[1]);
    return setf(sc, "run", "timestep", "%s", w[1]);
}

/* atom_style, dimension, boundary, newton, processors, atom_modify, comm_style, package, suffix, timer. */
static int cmd_setting(script *sc, char **w, int nw)
{
    const char *c = w[0];
    static const char *const before_box[] = {"atom_style", "dimension", "boundary", "processors"};
    for (size_t k = 0; k < sizeof before_box / sizeof before_box[0] && sc->box_made; k++)
        if (!strcmp(c, before_box[k]))
            return fail(sc, "after the box is made: LAMMPS takes it only before");
    if (!strcmp(c, "atom_modify") && sc->box_made)
        for (int k = 1; k < nw; k++)
            if (!strcmp(w[k], "map") || !strcmp(w[k], "id") || !strcmp(w[k], "first"))
                return fail(sc, "%s after the box is made: LAMMPS takes it only before", w[k]);
    if (!strcmp(c, "atom_style"))
        return nw == 2 && !strcmp(w[1], "atomic") ? MDL_OK : fail(sc, "mdlite runs atom_style atomic");
    if (!strcmp(c, "dimension")) {
        if (nw != 2 || (strcmp(w[1], "2") && strcmp(w[1], "3")))
            return fail(sc, "dimension takes 2 or 3");
        if (sc->lattice[0])
            return fail(sc, "after a lattice command: LAMMPS checks each lattice against the dimension it is made in");
        sc->dimension = w[1][0] - '0';
        return setf(sc, "system", "dimension", "%s", w[1]);
    }
    if (!strcmp(c, "boundary")) { /* [system] boundary checks the words */
        MDL_TRY(expect_args(sc, nw, 3, 3));
        int face[3][2];
        const char *why;
        MDL_TRY(setf(sc, "system", "boundary", "%s %s %s", w[1], w[2], w[3]));
        return boundary_parse(settings_find(&sc->now, "boundary")->value, face, &why) ? MDL_OK : fail(sc, "%s", why);
    }
    if (!strcmp(c, "newton")) { /* how LAMMPS shares pair work between processors: the same physics */
        for (int k = 1; k < nw; k++)
            if (strcmp(w[k], "on") != 0 && strcmp(w[k], "off") != 0)
                return fail(sc, "'%s': newton takes on or off", w[k]);
        return expect_args(sc, nw, 1, 2);
    }
    if (!strcmp(c, "processors")) {
        MDL_TRY(expect_args(sc, nw, 3, 3));
        int stars = 0;
        long p[3];
        for (int d = 0; d < 3; d++) {
            if (!strcmp(w[1 + d], "*"))
                stars++;
            else
                MDL_TRY(script_count(sc, w[1 + d], 1, 65536, &p[d]));
        }
        if (stars) /* some axes chosen: LAMMPS fills the stars; mdlite chooses its bricks (the same physics) */
            return MDL_OK;
        return setf(sc, "run", "processors", "%ld %ld %ld", p[0], p[1], p[2]);
    }
    if (!strcmp(c, "atom_modify")) { /* how LAMMPS stores and orders its atoms: the same physics */
        for (int k = 1; k < nw;) {
            const char *v = k + 1 < nw ? w[k + 1] : "";
            double d;
            if (!strcmp(w[k], "map") && (!strcmp(v, "array") || !strcmp(v, "hash") || !strcmp(v, "yes")))
                k += 2;
            else if (!strcmp(w[k], "id") && !strcmp(v, "yes"))
                k += 2;
            else if (!strcmp(w[k], "sort") && k + 2 < nw && mdl_parse_double(v, &d) == 0 && d >= 0 &&
                     mdl_parse_double(w[k + 2], &d) == 0 && d >= 0)
                k += 3;
            else
                return fail(sc, "'%s': mdlite takes map array|hash|yes, id yes and sort N BINSIZE", w[k]);
        }
        return MDL_OK;
    }
    if (!strcmp(c, "comm_style")) /* how LAMMPS's processors share the box (tiled: balance rcb): the same physics */
        return nw == 2 && (!strcmp(w[1], "brick") || !strcmp(w[1], "tiled")) ? MDL_OK
                                                                              : fail(sc, "comm_style takes brick or tiled");
    if (!strcmp(c, "package") || !strcmp(c, "suffix")) /* accelerators: mdlite's styles are the plain ones */
        return expect_args(sc, nw, 1, 100000);
    if (!strcmp(c, "timer")) {
        for (int k = 1; k < nw; k++)
            if (!strcmp(w[k], "timeout") && k + 1 < nw && strcmp(w[k + 1], "off") != 0)
                return fail(sc, "timer timeout %s: LAMMPS stops a run after that time; mdlite runs every step",
                            w[k + 1]);
            else if (!strcmp(w[k], "timeout") || !strcmp(w[k], "every"))
                k++;
            else if (strcmp(w[k], "off") && strcmp(w[k], "loop") && strcmp(w[k], "normal") && strcmp(w[k], "full") &&
                     strcmp(w[k], "sync") && strcmp(w[k], "nosync"))
                return fail(sc, "'%s': timer takes off, loop, normal, full, sync, nosync, timeout and every", w[k]);
        return MDL_OK;
    }
    return 1;
}

/* read_data FILE: the file's header (types, atoms) and whether it has Masses and Velocities. */
static int cmd_read_data(script *sc, char **w, int nw)
{
    if (nw != 2)
        return fail(sc, "mdlite takes 'read_data FILE' without keywords");
    if (sc->box_made)
        return fail(sc, "the box exists already");
    char *file = script_path(sc, w[1]);
    if (!file)
        return MDL_ERUN;
    if (script_input_file(sc, file, "data file") != MDL_OK) {
        free(file);
        return MDL_EINPUT;
    }
    FILE *fp = fopen(file, "r");
    char *line = NULL;
    size_t cap = 0;
    long n, lines = 0;
    sc->data_velocities = -1, sc->data_masses = 0, sc->ntypes = 0, sc->data_atoms = -1;
    while (fp && getline(&line, &cap, fp) > 0) {
        char *hash = strchr(line, '#'), word[32];
        if (hash)
            *hash = '\0';
        if (++lines > 1 && sscanf(line, "%ld atom types", &n) == 1 && strstr(line, "atom types") && n >= 1 && n <= 8)
            sc->ntypes = (int)n;
        else if (lines > 1 && sscanf(line, "%ld %31s", &n, word) == 2 && !strcmp(word, "atoms"))
            sc->data_atoms = n;
        if (sscanf(line, " %31s", word) == 1 && !strcmp(word, "Velocities"))
            sc->data_velocities = 1;
        if (sscanf(line, " %31s", word) == 1 && !strcmp(word, "Masses"))
            sc->data_masses = 1;
    }
    free(line);
    if (fp)
        fclose(fp);
    sc->box_made = sc->atoms_made = 1;
    free(sc->pair_set);
    int t = sc->ntypes > 0 ? sc->ntypes : 1;
    int rc = (sc->pair_set = mdl_calloc((size_t)(t * t), 1, "pairs")) ? MDL_OK : MDL_ERUN;
    if (rc == MDL_OK)
        rc = setf(sc, "system", "input", "%s", file);
    if (rc == MDL_OK) /* whatever its name: LAMMPS's read_data reads it as a data file */
        rc = setf(sc, "system", "input_format", "data");
    free(file);
    return rc;
}

/* mass I M: each type of the range (the last write wins, as in LAMMPS). */
static int cmd_mass(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 2, 2));
    if (!sc->box_made)
        return fail(sc, "before the box exists: LAMMPS refuses it");
    double v;
    int lo, hi;
    MDL_TRY(script_number(sc, w[2], &v));
    if (!(v > 0))
        return fail(sc, "'%s': a mass must be above 0", w[2]);
    MDL_TRY(script_type_range(sc, w[1], sc->ntypes, &lo, &hi));
    for (int t = lo; t <= hi; t++) {
        char key[32];
        snprintf(key, sizeof key, "mass.%d", t);
        MDL_TRY(setf(sc, "system", key, "%s", w[2]));
    }
    return MDL_OK;
}

/* The first atom type without a mass (from mass, a data file's Masses or an EAM pair_coeff), or 0. */
int script_type_without_mass(const script *sc)
{
    const setting *st = settings_find(&sc->now, "style");
    const char *style = st ? st->value : "";
    for (int t = 1; t <= sc->ntypes && !sc->data_masses; t++) {
        char key[32];
        snprintf(key, sizeof key, "mass.%d", t);
        if (settings_find(&sc->now, key))
            continue;
        snprintf(key, sizeof key, "file.%d", t);
        if ((!strcmp(style, "eam") && settings_find(&sc->now, key)) ||
            ((!strcmp(style, "eam/alloy") || !strcmp(style, "eam/fs")) && settings_find(&sc->now, "file")))
            continue;
        return t;
    }
    return 0;
}

static int cmd_velocity(script *sc, char **w, int nw)
{
    if (nw < 3)
        return fail(sc, "expected 'velocity GROUP create|set|ramp|scale ...'");
    if (!sc->atoms_made)
        return fail(sc, "before atoms exist: LAMMPS refuses a velocity command with no atoms");
    if (script_type_without_mass(sc))
        return fail(sc, "atom type %d has no mass yet: LAMMPS refuses a velocity command before every mass is set",
                    script_type_without_mass(sc));
    /* velocity all create as the first: [system] temperature and seed; the others in order, as edits */
    if (sc->nruns || strcmp(w[1], "all") || strcmp(w[2], "create") || settings_find(&sc->now, "velocity_edits") ||
        sc->velocity_made || script_keyword_given(w, nw, 5, "temp"))
        return script_velocity_edit(sc, w, nw);
    if (nw < 5)
        return fail(sc, "mdlite takes 'velocity all create T SEED [dist uniform|gaussian] [loop all|geom] [mom yes] "
                        "[rot no] [sum no] [units box|lattice] [temp ID]'");
    const char *loop = "all", *dist = "uniform";
    for (int k = 5; k < nw; k += 2) {
        const char *v = k + 1 < nw ? w[k + 1] : "";
        if (!strcmp(w[k], "dist") && (!strcmp(v, "uniform") || !strcmp(v, "gaussian")))
            dist = v;
        else if (!strcmp(w[k], "loop") && (!strcmp(v, "all") || !strcmp(v, "geom")))
            loop = v;
        else if (!(!strcmp(w[k], "mom") && !strcmp(v, "yes")) && !(!strcmp(w[k], "rot") && !strcmp(v, "no")) &&
                 !(!strcmp(w[k], "sum") && !strcmp(v, "no")) &&
                 !(!strcmp(w[k], "units") && (!strcmp(v, "box") || !strcmp(v, "lattice"))))
            return fail(sc, "'%s %s': mdlite takes dist uniform|gaussian, loop all|geom, mom yes, rot no, sum no and "
                            "units box|lattice", w[k], v);
    }
    double t;
    long seed;
    MDL_TRY(script_number(sc, w[3], &t));
    if (!(t >= 0 && t <= 1e30))
        return fail(sc, "'%s': a temperature from 0 to 1e30", w[3]);
    MDL_TRY(script_count(sc, w[4], 1, 2147483646L, &seed)); /* LAMMPS's Park-Miller seeds */
    MDL_TRY(setf(sc, "system", "temperature", "%s", w[3]));
    MDL_TRY(setf(sc, "system", "seed", "%s", w[4]));
    MDL_TRY(setf(sc, "system", "velocities", "lammps-%s", loop));
    MDL_TRY(setf(sc, "system", "velocity_dist", "%s", dist));
    sc->velocity_made = 1;
    return MDL_OK;
}

/* pair_style STYLE [RC]: a new style drops the coefficients; the same style again keeps them, every
   pair's cutoff back to the new global one (LAMMPS's rule). */
static int cmd_pair_style(script *sc, char **w, int nw)
{
    char base[64];
    const char *s = script_base_style(nw > 1 ? w[1] : "", base, sizeof base);
    int cut = !strcmp(s, "lj/cut") || !strcmp(s, "morse");
    if (!cut && strcmp(s, "eam") && strcmp(s, "eam/alloy") && strcmp(s, "eam/fs"))
        return fail(sc, "%s: mdlite has lj/cut, morse, eam, eam/alloy and eam/fs (with any accelerator suffix)",
                    nw > 1 ? w[1] : "no style");
    MDL_TRY(expect_args(sc, nw, 1 + cut, 1 + cut));
    const char *name = !strcmp(s, "lj/cut") ? "lj" : s;
    const setting *old = settings_find(&sc->now, "style");
    if (cut) {
        double rc;
        MDL_TRY(script_number(sc, w[2], &rc));
        if (!(rc > 0 && rc <= 1e30))
            return fail(sc, "the cutoff %s must be above 0", w[2]);
    }
    if (old && !strcmp(old->value, name)) {
        for (int k = 0; k < sc->now.n; k++) { /* every pair's cutoff is the new global one (LAMMPS's settings()) */
            setting *e = &sc->now.s[k];
            char *last = strrchr(e->value, ' ');
            if (strncmp(e->key, "pair.", 5) != 0 || !last)
                continue;
            *last = '\0';
            mdl_buf v = {0};
            int rc = buf_addf(&v, "%s %s", e->value, w[2]);
            if (rc == MDL_OK)
                free(e->value), e->value = v.s;
            MDL_TRY(rc);
        }
    } else {
        settings_drop_prefix(&sc->now, "pair.");
        settings_drop_prefix(&sc->now, "file");
        settings_drop_prefix(&sc->now, "element.");
        if (sc->pair_set)
            memset(sc->pair_set, 0, (size_t)(sc->ntypes * sc->ntypes));
    }
    MDL_TRY(setf(sc, "potential", "style", "%s", name));
    if (cut)
        return setf(sc, "potential", "cutoff", "%s", w[2]);
    settings_drop(&sc->now, "cutoff");
    return MDL_OK;
}

/* eam/alloy, eam/fs: pair_coeff * * FILE E1 ... EN; eam: pair_coeff I J FILE for each I = J. */
static int eam_coeff(script *sc, const char *style, char **w, int nw)
{
    if (!strcmp(style, "eam")) {
        int ilo, ihi, jlo, jhi, count = 0;
        MDL_TRY(expect_args(sc, nw, 3, 3));
        MDL_TRY(script_type_range(sc, w[1], sc->ntypes, &ilo, &ihi));
        MDL_TRY(script_type_range(sc, w[2], sc->ntypes, &jlo, &jhi));
        char *file = script_path(sc, w[3]);
        if (file && script_input_file(sc, file, "potential file") != MDL_OK) {
            free(file);
            return MDL_EINPUT;
        }
        for (int i = ilo; i <= ihi && file; i++)
            if (i >= jlo && i <= jhi) {
                char key[32];
                snprintf(key, sizeof key, "file.%d", i);
                if (setf(sc, "potential", key, "%s", file) != MDL_OK)
                    break;
                snprintf(key, sizeof key, "mass.%d", i); /* LAMMPS's pair_coeff sets the mass from the file */
                settings_drop(&sc->now, key);
                count++;
            }
        free(file);
        if (!file)
            return MDL_ERUN;
        return count ? MDL_OK : fail(sc, "eam: no type I = J in %s %s (LAMMPS's eam reads pair_coeff I I FILE)", w[1], w[2]);
    }
    if (nw < 4 || strcmp(w[1], "*") || strcmp(w[2], "*"))
        return fail(sc, "%s: LAMMPS's form is 'pair_coeff * * FILE ELEMENT ...' (one element per type)", style);
    if (nw - 4 != sc->ntypes)
        return fail(sc, "%s: %d element names for %d atom types (LAMMPS wants one per type)", style, nw - 4, sc->ntypes);
    char *file = script_path(sc, w[3]);
    if (!file)
        return MDL_ERUN;
    if (script_input_file(sc, file, "potential file") != MDL_OK) {
        free(file);
        return MDL_EINPUT;
    }
    int rc = setf(sc, "potential", "file", "%s", file);
    free(file);
    settings_drop_prefix(&sc->now, "mass."); /* the file's masses, as LAMMPS's pair_coeff sets them */
    for (int k = 4; k < nw && rc == MDL_OK; k++) {
        char key[32];
        snprintf(key, sizeof key, "element.%d", k - 3);
        if (!strcmp(w[k], "NULL"))
            return fail(sc, "NULL elements: mdlite maps every type to an element");
        rc = setf(sc, "potential", key, "%s", w[k]);
    }
    return rc;
}

/* pair_coeff I J COEFFS [RC] (type ranges): pair.i.j for every i <= j of the ranges. */
static int cmd_pair_coeff(script *sc, char **w, int nw)
{
    if (!sc->box_made)
        return fail(sc, "before the box exists: LAMMPS refuses it");
    const setting *st = settings_find(&sc->now, "style");
    if (!st)
        return fail(sc, "no pair_style before");
    const char *style = st->value;
    if (!strncmp(style, "eam", 3))
        return eam_coeff(sc, style, w, nw);
    const int np = !strcmp(style, "lj") ? 2 : 3;
    if (nw < 3 + np || nw > 4 + np)
        return fail(sc, "%s: expected I J and %d coefficients, then an optional cutoff", style, np);
    for (int k = 3; k < nw; k++) {
        double v;
        MDL_TRY(script_number(sc, w[k], &v));
    }
    int ilo, ihi, jlo, jhi, count = 0;
    MDL_TRY(script_type_range(sc, w[1], sc->ntypes, &ilo, &ihi));
    MDL_TRY(script_type_range(sc, w[2], sc->ntypes, &jlo, &jhi));
    mdl_buf value = {0};
    int rc = MDL_OK;
    for (int k = 3; k < nw && rc == MDL_OK; k++)
        rc = buf_addf(&value, "%s%s", k > 3 ? " " : "", w[k]);
    const setting *cut = settings_find(&sc->now, "cutoff");
    if (rc == MDL_OK && nw == 3 + np) /* no cutoff: pair_style's, as LAMMPS's pair_coeff takes it (never a mixed one) */
        rc = buf_addf(&value, " %s", cut ? cut->value : "0");
    for (int i = ilo; i <= ihi && rc == MDL_OK; i++)
        for (int j = i > jlo ? i : jlo; j <= jhi && rc == MDL_OK; j++, count++) {
            char key[48];
            snprintf(key, sizeof key, "pair.%d.%d", i, j);
            rc = setf(sc, "potential", key, "%s", buf_str(&value));
            sc->pair_set[(i - 1) * sc->ntypes + (j - 1)] = 1;
        }
    buf_free(&value);
    MDL_TRY(rc);
    return count ? MDL_OK : fail(sc, "no pair I <= J in %s %s: LAMMPS refuses it", w[1], w[2]);
}

static int cmd_pair_modify(script *sc, char **w, int nw)
{
    if (!settings_find(&sc->now, "style"))
        return fail(sc, "before pair_style: LAMMPS refuses it");
    for (int k = 1; k < nw; k += 2) {
        const char *v = k + 1 < nw ? w[k + 1] : "";
        if (!strcmp(w[k], "shift") && (!strcmp(v, "yes") || !strcmp(v, "no")))
            MDL_TRY(setf(sc, "potential", "shift", "%s", v));
        else if (!strcmp(w[k], "tail") && (!strcmp(v, "yes") || !strcmp(v, "no")))
            MDL_TRY(setf(sc, "potential", "tail", "%s", v));
        else if (!strcmp(w[k], "mix") && (!strcmp(v, "arithmetic") || !strcmp(v, "geometric")))
            snprintf(sc->mix, sizeof sc->mix, "%s", v);
        else
            return fail(sc, "'%s %s': mdlite takes shift, tail and mix", w[k], v);
    }
    return MDL_OK;
}

static int cmd_neighbor(script *sc, char **w, int nw)
{
    if (!strcmp(w[0], "neighbor")) {
        MDL_TRY(expect_args(sc, nw, 2, 2));
        double skin;
        MDL_TRY(script_number(sc, w[1], &skin));
        if (strcmp(w[2], "bin") != 0 && strcmp(w[2], "nsq") != 0)
            return fail(sc, "%s: mdlite bins (bin) or compares every pair (nsq)", w[2]);
        MDL_TRY(setf(sc, "neighbor", "skin", "%s", w[1]));
        return setf(sc, "neighbor", "method", "%s", !strcmp(w[2], "bin") ? "cell" : "brute");
    }
    for (int k = 1; k < nw; k += 2) {
        const char *v = k + 1 < nw ? w[k + 1] : "";
        long n;
        if (!strcmp(w[k], "every") || !strcmp(w[k], "delay")) {
            MDL_TRY(script_count(sc, v, !strcmp(w[k], "every"), 1000000, &n));
            MDL_TRY(setf(sc, "neighbor", !strcmp(w[k], "every") ? "check" : "delay", "%s", v));
        }
        else if (!strcmp(w[k], "check") && (!strcmp(v, "yes") || !strcmp(v, "no")))
            MDL_TRY(setf(sc, "neighbor", "distance_check", "%s", v));
        else if ((!strcmp(w[k], "page") || !strcmp(w[k], "one") || !strcmp(w[k], "binsize")) &&
                 mdl_parse_double(v, &(double){0}) == 0)
            ; /* LAMMPS's list memory and bin size: the same pairs */
        else if (!strcmp(w[k], "exclude") && !strcmp(v, "none"))
            settings_drop(&sc->now, "exclude");
        else if (!strcmp(w[k], "exclude") && !strcmp(v, "type") && k + 3 < nw) { /* exclude type M N */
            long m, n2;
            if (!sc->box_made)
                return fail(sc, "exclude type before the box exists (LAMMPS: neigh_modify exclude before box)");
            MDL_TRY(script_count(sc, w[k + 2], 1, sc->ntypes, &m));
            MDL_TRY(script_count(sc, w[k + 3], 1, sc->ntypes, &n2));
            const setting *old = settings_find(&sc->now, "exclude");
            MDL_TRY(setf(sc, "potential", "exclude", "%s%s%ld %ld", old ? old->value : "", old ? ", " : "", m, n2));
            k += 2;
        } else if (!(!strcmp(w[k], "once") && !strcmp(v, "no")))
            return fail(sc, "'%s %s': mdlite takes every, delay, check, once no, page, one, binsize, exclude type M N "
                            "and exclude none", w[k], v);
    }
    return MDL_OK;
}

int lammps_system_command(script *sc, char **w, int nw)
{
    int rc = cmd_setting(sc, w, nw);
    if (rc == 1)
        rc = lammps_box_command(sc, w, nw);
    if (rc == 1)
        rc = lammps_group_command(sc, w, nw);
    if (rc != 1)
        return rc;
    static const struct {
        const char *name;
        int (*fn)(script *, char **, int);
    } table[] = {{"units", cmd_units},           {"timestep", cmd_timestep},           {"read_data", cmd_read_data},
                 {"mass", cmd_mass},             {"velocity", cmd_velocity},       {"pair_style", cmd_pair_style},
                 {"pair_coeff", cmd_pair_coeff}, {"pair_modify", cmd_pair_modify}, {"neighbor", cmd_neighbor},
                 {"neigh_modify", cmd_neighbor}};
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        if (!strcmp(table[k].name, w[0]))
            return table[k].fn(sc, w, nw);
    return 1;
}

/* The LAMMPS commands mdlite honours, each into its INI keys (units, lattice and box, atoms,
   velocities, pair styles, neighbor schedule, fixes as ensembles, thermo, dumps, runs). */
#define _POSIX_C_SOURCE 200809L
#include "lammps_script_state.h"

#include <math.h>
#include <stdlib.h>


static int number(script *sc, const char *word, double *v)
{
    if (mdl_parse_double(word, v) != 0)
        return fail(sc, "'%s' is not a number", word);
    return MDL_OK;
}

static int expect_args(script *sc, int nw, int lo, int hi)
{
    if (nw - 1 < lo || nw - 1 > hi) {
        char want[48];
        snprintf(want, sizeof want, hi == lo ? "%d" : hi >= MAX_WORDS ? "at least %d" : "%d to %d", lo, hi);
        return fail(sc, "expected %s argument%s, found %d", want, hi == 1 ? "" : "s", nw - 1);
    }
    return MDL_OK;
}

static int cmd_variable(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 3, MAX_WORDS));
    int equal = strcmp(w[2], "equal") == 0;
    if (!equal && strcmp(w[2], "index") != 0)
        return fail(sc, "style %s: mdlite takes index and equal variables", w[2]);
    if (find_var(sc, w[1]) >= 0 && !equal) /* LAMMPS: an index variable defined again is ignored */
        return MDL_OK;
    int k = find_var(sc, w[1]);
    if (k < 0) {
        if (sc->nvar == MAX_VARS || strlen(w[1]) >= sizeof sc->var[0].name)
            return fail(sc, "too many variables, or a name too long");
        k = sc->nvar++;
    }
    snprintf(sc->var[k].name, sizeof sc->var[k].name, "%s", w[1]);
    join_words(sc->var[k].value, sizeof sc->var[k].value, w, 3, equal ? nw : 4); /* equal: blanks allowed */
    sc->var[k].equal = equal;
    return MDL_OK;
}

static int cmd_simple(script *sc, char **w, int nw)
{
    const char *c = w[0];
    if (strcmp(c, "units") == 0) {
        MDL_TRY(expect_args(sc, nw, 1, 1));
        if (strcmp(w[1], "lj") != 0 && strcmp(w[1], "metal") != 0)
            return fail(sc, "units %s: mdlite runs lj and metal units", w[1]);
        snprintf(sc->units, sizeof sc->units, "%s", w[1]);
        setf(sc, "system", "units", "%s", w[1]);
        return MDL_OK;
    }
    if (strcmp(c, "atom_style") == 0)
        return nw == 2 && strcmp(w[1], "atomic") == 0 ? MDL_OK : fail(sc, "mdlite runs atom_style atomic");
    if (strcmp(c, "dimension") == 0)
        return nw == 2 && strcmp(w[1], "3") == 0 ? MDL_OK : fail(sc, "mdlite runs 3d systems");
    if (strcmp(c, "boundary") == 0)
        return nw == 4 && !strcmp(w[1], "p") && !strcmp(w[2], "p") && !strcmp(w[3], "p")
                   ? MDL_OK
                   : fail(sc, "mdlite runs periodic boxes (boundary p p p)");
    if (strcmp(c, "timestep") == 0) {
        double v;
        MDL_TRY(expect_args(sc, nw, 1, 1));
        MDL_TRY(number(sc, w[1], &v));
        setf(sc, "run", "timestep", "%s", w[1]);
        return MDL_OK;
    }
    if (strcmp(c, "thermo") == 0) {
        MDL_TRY(expect_args(sc, nw, 1, 1));
        setf(sc, "output", "thermo", "%s", w[1]);
        sc->thermo_set = 1;
        return MDL_OK;
    }
    return 1;
}

static int cmd_lattice(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 2, 2));
    int nb = strcmp(w[1], "fcc") == 0 ? 4 : strcmp(w[1], "bcc") == 0 ? 2 : strcmp(w[1], "sc") == 0 ? 1 : 0;
    if (!nb)
        return fail(sc, "%s: mdlite builds fcc, bcc and sc lattices (without orient, origin or basis keywords)", w[1]);
    double v;
    MDL_TRY(number(sc, w[2], &v));
    if (!(v > 0))
        return fail(sc, "the scale must be above 0");
    snprintf(sc->lattice, sizeof sc->lattice, "%s", w[1]);
    /* LAMMPS: in lj units the scale is a reduced density; in the others, the edge */
    sc->scale = strcmp(sc->units, "lj") == 0 ? pow(nb / 1.0 / v, 1.0 / 3.0) : v;
    return MDL_OK;
}

static int cmd_region(script *sc, char **w, int nw)
{
    if (nw < 9 || strcmp(w[2], "block") != 0)
        return fail(sc, "mdlite takes 'region ID block xlo xhi ylo yhi zlo zhi [units lattice|box]'");
    if (sc->nregion == MAX_REGIONS)
        return fail(sc, "too many regions");
    int k = sc->nregion++;
    snprintf(sc->region[k].id, sizeof sc->region[k].id, "%s", w[1]);
    for (int d = 0; d < 6; d++)
        MDL_TRY(number(sc, w[3 + d], &sc->region[k].b[d]));
    sc->region[k].lattice_units = 1;
    if (nw == 11 && strcmp(w[9], "units") == 0 && (!strcmp(w[10], "box") || !strcmp(w[10], "lattice")))
        sc->region[k].lattice_units = strcmp(w[10], "lattice") == 0;
    else if (nw != 9)
        return fail(sc, "keywords after the bounds: mdlite takes 'units lattice|box' only");
    return MDL_OK;
}

/* create_box N REGION then create_atoms TYPE box: the lattice's cells from the region (lattice
   units, from 0, whole cells). */
static int cmd_create_box(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 2, 2));
    long n;
    if (mdl_parse_long(w[1], &n) != 0 || n < 1 || n > 8)
        return fail(sc, "'%s': mdlite takes 1 to 8 atom types", w[1]);
    int k = 0;
    while (k < sc->nregion && strcmp(sc->region[k].id, w[2]) != 0)
        k++;
    if (k == sc->nregion)
        return fail(sc, "no region %s", w[2]);
    if (!sc->lattice[0] || !sc->region[k].lattice_units)
        return fail(sc, "mdlite makes a box from a lattice: a lattice command before, and the region in lattice units");
    int cells[3];
    for (int d = 0; d < 3; d++) {
        double lo = sc->region[k].b[2 * d], hi = sc->region[k].b[2 * d + 1];
        if (lo != 0 || hi != floor(hi) || hi < 1 || hi > 4096)
            return fail(sc, "region %s: mdlite's lattice boxes start at 0 and hold whole cells (1 to 4096)", w[2]);
        cells[d] = (int)hi;
    }
    sc->ntypes = (int)n;
    sc->box_made = 1;
    setf(sc, "system", "lattice", "%s", sc->lattice);
    setf(sc, "system", "lattice_constant", "%.17g", sc->scale);
    setf(sc, "system", "cells", "%d %d %d", cells[0], cells[1], cells[2]);
    return MDL_OK;
}

static int cmd_create_atoms(script *sc, char **w, int nw)
{
    if (nw != 3 || strcmp(w[2], "box") != 0)
        return fail(sc, "mdlite takes 'create_atoms TYPE box'");
    if (!sc->box_made)
        return fail(sc, "no create_box before");
    if (sc->ntypes != 1 || strcmp(w[1], "1") != 0)
        return fail(sc, "one atom type on a lattice (several: [system] species and composition in an INI file, or "
                        "a data file)");
    setf(sc, "system", "species", "1");
    return MDL_OK;
}

static int cmd_read_data(script *sc, char **w, int nw)
{
    if (nw != 2)
        return fail(sc, "mdlite takes 'read_data FILE' without keywords");
    if (sc->box_made)
        return fail(sc, "the box exists already");
    sc->box_made = 1;
    setf(sc, "system", "input", "%s", w[1]);
    /* its atom types, for the mixing check (an unreadable file gets its message from the reader) */
    char file[2048], buf[256];
    snprintf(file, sizeof file, "%s%s", w[1][0] == '/' ? "" : sc->dir, w[1]);
    FILE *fp = fopen(file, "r");
    long n;
    sc->data_velocities = -1;
    while (fp && fgets(buf, sizeof buf, fp)) {
        if (sscanf(buf, "%ld atom types", &n) == 1 && strstr(buf, "atom types") && n >= 1 && n <= 8)
            sc->ntypes = (int)n;
        if (strncmp(buf, "Velocities", 10) == 0)
            sc->data_velocities = 1;
    }
    if (fp)
        fclose(fp);
    return MDL_OK;
}

static int cmd_mass(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 2, 2));
    double v;
    MDL_TRY(number(sc, w[2], &v));
    char key[32];
    if (strcmp(w[1], "*") == 0)
        snprintf(key, sizeof key, "mass");
    else
        snprintf(key, sizeof key, "mass.%.20s", w[1]);
    setf(sc, "system", key, "%s", w[2]);
    return MDL_OK;
}

static int cmd_velocity(script *sc, char **w, int nw)
{
    if (nw < 5 || strcmp(w[1], "all") != 0 || strcmp(w[2], "create") != 0)
        return fail(sc, "mdlite takes 'velocity all create T SEED [dist uniform|gaussian] [loop all|geom] [mom yes] "
                        "[rot no]'");
    if (sc->nruns)
        return fail(sc, "velocities made again after a run: mdlite makes them once, at the start");
    const char *loop = "all", *dist = "uniform";
    for (int k = 5; k < nw; k += 2) {
        const char *v = k + 1 < nw ? w[k + 1] : "";
        if (!strcmp(w[k], "dist") && (!strcmp(v, "uniform") || !strcmp(v, "gaussian")))
            dist = v;
        else if (!strcmp(w[k], "loop") && (!strcmp(v, "all") || !strcmp(v, "geom")))
            loop = v;
        else if (!(!strcmp(w[k], "mom") && !strcmp(v, "yes")) && !(!strcmp(w[k], "rot") && !strcmp(v, "no")))
            return fail(sc, "'%s %s': mdlite takes dist uniform|gaussian, loop all|geom, mom yes, rot no", w[k], v);
    }
    setf(sc, "system", "temperature", "%s", w[3]);
    setf(sc, "system", "seed", "%s", w[4]);
    setf(sc, "system", "velocities", "lammps-%s", loop);
    setf(sc, "system", "velocity_dist", "%s", dist);
    sc->velocity_made = 1;
    return MDL_OK;
}

static int cmd_pair_style(script *sc, char **w, int nw)
{
    const char *s = nw > 1 ? w[1] : "";
    int cut = !strcmp(s, "lj/cut") || !strcmp(s, "morse");
    if (!cut && strcmp(s, "eam") && strcmp(s, "eam/alloy") && strcmp(s, "eam/fs"))
        return fail(sc, "%s: mdlite has lj/cut, morse, eam, eam/alloy and eam/fs", s);
    MDL_TRY(expect_args(sc, nw, 1 + cut, 1 + cut));
    setf(sc, "potential", "style", "%s", !strcmp(s, "lj/cut") ? "lj" : s);
    if (cut)
        setf(sc, "potential", "cutoff", "%s", w[2]);
    return MDL_OK;
}

/* Types I J of a pair_coeff: "*" or a number, as mdlite's species names. */
static int cmd_pair_coeff(script *sc, char **w, int nw)
{
    const setting *st = find_key(&sc->now, "style");
    const char *style = st ? st->value : "";
    if (!style[0])
        return fail(sc, "no pair_style before");
    const int stars = nw >= 3 && !strcmp(w[1], "*") && !strcmp(w[2], "*");
    if (!strcmp(style, "eam/alloy") || !strcmp(style, "eam/fs")) {
        if (!stars || nw < 5)
            return fail(sc, "%s: mdlite takes 'pair_coeff * * FILE ELEMENT ...' (one element per type)", style);
        setf(sc, "potential", "file", "%s", w[3]);
        for (int k = 4; k < nw; k++) {
            char key[32];
            snprintf(key, sizeof key, "element.%d", k - 3);
            if (!strcmp(w[k], "NULL"))
                return fail(sc, "NULL elements: mdlite maps every type to an element");
            setf(sc, "potential", key, "%s", w[k]);
        }
        return MDL_OK;
    }
    if (!strcmp(style, "eam")) {
        if (nw != 4 || strcmp(w[1], w[2]) != 0 || stars)
            return fail(sc, "eam: mdlite takes 'pair_coeff I I FILE' for each type I");
        char key[32];
        snprintf(key, sizeof key, "file.%.20s", w[1]);
        setf(sc, "potential", key, "%s", w[3]);
        return MDL_OK;
    }
    const int np = !strcmp(style, "lj") ? 2 : 3;
    if (nw < 3 + np || nw > 4 + np)
        return fail(sc, "%s: expected I J and %d coefficients, then an optional cutoff", style, np);
    char value[512];
    join_words(value, sizeof value, w, 3, nw);
    if (stars) { /* every pair: the global keys */
        static const char *const keys[2][3] = {{"epsilon", "sigma", ""}, {"d0", "alpha", "r0"}};
        for (int k = 0; k < np; k++)
            setf(sc, "potential", keys[np == 3][k], "%s", w[3 + k]);
        if (nw == 4 + np)
            setf(sc, "potential", "cutoff", "%s", w[3 + np]);
        return MDL_OK;
    }
    if (strchr(w[1], '*') || strchr(w[2], '*'))
        return fail(sc, "type ranges: list each pair I J (or * *)");
    char key[48];
    snprintf(key, sizeof key, "pair.%.20s.%.20s", w[1], w[2]);
    setf(sc, "potential", key, "%s", value);
    if (sc->npairs_listed < 64) {
        snprintf(sc->listed[sc->npairs_listed][0], 8, "%.7s", w[1]);
        snprintf(sc->listed[sc->npairs_listed++][1], 8, "%.7s", w[2]);
    }
    return MDL_OK;
}

static int cmd_pair_modify(script *sc, char **w, int nw)
{
    for (int k = 1; k < nw; k += 2) {
        const char *v = k + 1 < nw ? w[k + 1] : "";
        if (!strcmp(w[k], "shift") && (!strcmp(v, "yes") || !strcmp(v, "no")))
            setf(sc, "potential", "shift", "%s", v);
        else if (!strcmp(w[k], "tail") && (!strcmp(v, "yes") || !strcmp(v, "no")))
            setf(sc, "potential", "tail", "%s", v);
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
        if (strcmp(w[2], "bin") != 0 && strcmp(w[2], "nsq") != 0)
            return fail(sc, "%s: mdlite bins (bin) or compares every pair (nsq)", w[2]);
        setf(sc, "neighbor", "skin", "%s", w[1]);
        setf(sc, "neighbor", "method", "%s", !strcmp(w[2], "bin") ? "cell" : "brute");
        return MDL_OK;
    }
    for (int k = 1; k < nw; k += 2) {
        const char *v = k + 1 < nw ? w[k + 1] : "";
        long n;
        if (!strcmp(w[k], "every") && mdl_parse_long(v, &n) == 0)
            setf(sc, "neighbor", "check", "%s", v);
        else if (!strcmp(w[k], "delay") && mdl_parse_long(v, &n) == 0)
            setf(sc, "neighbor", "delay", "%s", v);
        else if (!strcmp(w[k], "check") && (!strcmp(v, "yes") || !strcmp(v, "no")))
            setf(sc, "neighbor", "distance_check", "%s", v);
        else if (!(!strcmp(w[k], "once") && !strcmp(v, "no")))
            return fail(sc, "'%s %s': mdlite takes every, delay, check and once no", w[k], v);
    }
    return MDL_OK;
}

static int cmd_fix(script *sc, char **w, int nw)
{
    if (!strcmp(w[0], "unfix")) {
        MDL_TRY(expect_args(sc, nw, 1, 1));
        for (int k = 0; k < sc->nfix; k++)
            if (!strcmp(sc->fixes[k].id, w[1])) {
                sc->fixes[k] = sc->fixes[--sc->nfix];
                return MDL_OK;
            }
        return fail(sc, "no fix %s", w[1]);
    }
    if (nw < 4 || strcmp(w[2], "all") != 0)
        return fail(sc, "mdlite takes 'fix ID all STYLE ...'");
    int k = 0;
    while (k < sc->nfix && strcmp(sc->fixes[k].id, w[1]) != 0)
        k++;
    if (k == MAX_FIXES)
        return fail(sc, "too many fixes");
    if (k < sc->nfix && strcmp(sc->fixes[k].style, w[3]) != 0) /* LAMMPS's rule too */
        return fail(sc, "fix %s is a %s: a fix replaced keeps its style (unfix it first)", w[1], sc->fixes[k].style);
    sc->nfix += k == sc->nfix;
    fix *f = &sc->fixes[k];
    snprintf(f->id, sizeof f->id, "%s", w[1]);
    snprintf(f->style, sizeof f->style, "%s", w[3]);
    f->nargs = 0;
    for (int a = 4; a < nw && a - 4 < MAX_WORDS; a++)
        snprintf(f->args[f->nargs++], sizeof f->args[0], "%s", w[a]);
    f->line = sc->line;
    return MDL_OK;
}

/* A Nose-Hoover fix's keywords: temp T T tau [iso P P pdamp] [tchain N] [pchain M]. */
static int nose_hoover_keys(script *sc, const fix *f, int npt)
{
    int have_temp = 0, have_iso = 0;
    for (int a = 0; a < f->nargs;) {
        const char *k = f->args[a];
        const int need = !strcmp(k, "temp") || !strcmp(k, "iso") ? 3 : !strcmp(k, "tchain") || !strcmp(k, "pchain") ? 1 : -1;
        if (need < 0 || a + need >= f->nargs || (!npt && (!strcmp(k, "iso") || !strcmp(k, "pchain"))))
            return fail(sc, "fix %s: '%s': mdlite takes temp T T TAU%s, tchain%s", f->style, k,
                        npt ? ", iso P P PDAMP" : "", npt ? " and pchain" : "");
        if (need == 3 && strcmp(f->args[a + 1], f->args[a + 2]) != 0)
            return fail(sc, "fix %s: %s %s %s: mdlite holds one target (start = stop)", f->style, k, f->args[a + 1],
                        f->args[a + 2]);
        if (!strcmp(k, "temp"))
            setf(sc, "run", "target_temperature", "%s", f->args[a + 1]), setf(sc, "run", "tau", "%s", f->args[a + 3]),
                have_temp = 1;
        else if (!strcmp(k, "iso"))
            setf(sc, "run", "target_pressure", "%s", f->args[a + 1]),
                setf(sc, "run", "pressure_tau", "%s", f->args[a + 3]), have_iso = 1;
        else
            setf(sc, "run", !strcmp(k, "tchain") ? "chain" : "pressure_chain", "%s", f->args[a + 1]);
        a += need + 1;
    }
    if (!have_temp || (npt && !have_iso))
        return fail(sc, "fix %s needs temp%s", f->style, npt ? " and iso" : "");
    return MDL_OK;
}

/* The [run] keys of an ensemble, dropped before another is set. */
static void drop_ensemble_keys(script *sc)
{
    static const char *const keys[] = {"ensemble", "target_temperature", "tau", "every", "chain",
                                       "target_pressure", "pressure_tau", "pressure_chain"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        drop_key(&sc->now, keys[k]);
}

/* The ensemble of the fixes in force at a run, as mdlite's [run] keys. */
static int ensemble_of_fixes(script *sc)
{
    drop_ensemble_keys(sc);
    const fix *nve = NULL, *other = NULL;
    for (int k = 0; k < sc->nfix; k++) {
        const fix *f = &sc->fixes[k];
        if (!strcmp(f->style, "nve") && !nve)
            nve = f;
        else if (!other)
            other = f;
        else
            return fail(sc, "fixes %s and %s together: mdlite runs one ensemble at a time", other->style, f->style);
    }
    if (other && (!strcmp(other->style, "nvt") || !strcmp(other->style, "npt"))) {
        if (nve)
            return fail(sc, "fix nve and fix %s together integrate twice", other->style);
        setf(sc, "run", "ensemble", "%s-nose-hoover", other->style);
        return nose_hoover_keys(sc, other, !strcmp(other->style, "npt"));
    }
    if (!nve)
        return fail(sc, "no fix nve, nvt or npt: nothing moves the atoms");
    if (!other) {
        setf(sc, "run", "ensemble", "nve");
        return MDL_OK;
    }
    if (!strcmp(other->style, "langevin") && other->nargs == 4 && !strcmp(other->args[0], other->args[1])) {
        setf(sc, "run", "ensemble", "nvt-langevin");
        setf(sc, "run", "target_temperature", "%s", other->args[0]), setf(sc, "run", "tau", "%s", other->args[2]);
        return MDL_OK;
    }
    if (!strcmp(other->style, "temp/berendsen") && other->nargs == 3 && !strcmp(other->args[0], other->args[1])) {
        setf(sc, "run", "ensemble", "nvt-berendsen");
        setf(sc, "run", "target_temperature", "%s", other->args[0]), setf(sc, "run", "tau", "%s", other->args[2]);
        return MDL_OK;
    }
    if (!strcmp(other->style, "temp/rescale") && other->nargs == 5 && !strcmp(other->args[1], other->args[2]) &&
        atof(other->args[3]) == 0 && atof(other->args[4]) == 1) {
        setf(sc, "run", "ensemble", "nvt-rescale");
        setf(sc, "run", "every", "%s", other->args[0]), setf(sc, "run", "target_temperature", "%s", other->args[1]);
        return MDL_OK;
    }
    sc->line = other->line;
    return fail(sc, "fix %s: mdlite takes nve alone, nvt, npt (temp, iso), or nve with langevin T T DAMP SEED, "
                    "temp/berendsen T T DAMP or temp/rescale N T T 0 1.0", other->style);
}

static int cmd_output(script *sc, char **w, int nw)
{
    if (!strcmp(w[0], "thermo_style")) {
        drop_key(&sc->now, "thermo_norm"); /* LAMMPS's thermo_style resets thermo_modify */
        if (nw == 2 && !strcmp(w[1], "one")) {
            setf(sc, "output", "thermo_columns", "step temp pe etotal press");
            return MDL_OK;
        }
        if (nw < 3 || strcmp(w[1], "custom") != 0)
            return fail(sc, "mdlite takes 'thermo_style one' and 'thermo_style custom NAMES'");
        char v[1024];
        join_words(v, sizeof v, w, 2, nw);
        setf(sc, "output", "thermo_columns", "%s", v);
        return MDL_OK;
    }
    if (!strcmp(w[0], "thermo_modify")) {
        if (nw == 3 && !strcmp(w[1], "norm") && (!strcmp(w[2], "yes") || !strcmp(w[2], "no")))
            setf(sc, "output", "thermo_norm", "%s", w[2]);
        else if (!(nw == 3 && !strcmp(w[1], "flush")))
            return fail(sc, "mdlite takes thermo_modify norm yes|no (and flush)");
        return MDL_OK;
    }
    /* dump ID all h5md|xyz N FILE [fields] */
    if (nw < 6 || strcmp(w[2], "all") != 0 || (strcmp(w[3], "h5md") && strcmp(w[3], "xyz")))
        return fail(sc, "mdlite takes 'dump ID all h5md N FILE [position velocity force image]' or 'dump ID all "
                        "xyz N FILE'");
    if (find_key(&sc->now, "trajectory"))
        return fail(sc, "a second dump: mdlite writes one trajectory");
    setf(sc, "output", "trajectory", "%s%s", w[5][0] == '/' ? "" : sc->dir, w[5]);
    setf(sc, "output", "dump_every", "%s", w[4]);
    if (!strcmp(w[3], "h5md") && nw > 6) {
        char v[256];
        join_words(v, sizeof v, w, 6, nw);
        setf(sc, "output", "dump_fields", "%s", v);
    } else if (nw > 6)
        return fail(sc, "an xyz dump takes no fields");
    return MDL_OK;
}

static int add_run(script *sc, const char *steps, int md);

static int cmd_run(script *sc, char **w, int nw)
{
    if (!strcmp(w[0], "write_data")) {
        if (nw != 2)
            return fail(sc, "mdlite takes 'write_data FILE' without keywords");
        if (!sc->nruns)
            return fail(sc, "before any run: mdlite writes data files at a run's end");
        char v[1024];
        snprintf(v, sizeof v, "%s%s", w[1][0] == '/' ? "" : sc->dir, w[1]);
        set_key(sc->runs[sc->nruns - 1], "output", "data_file", v, sc->line);
        return MDL_OK;
    }
    MDL_TRY(expect_args(sc, nw, 1, 1));
    return add_run(sc, w[1], 1);
}

/* A run of `steps` (an MD run: its ensemble from the fixes) with the keys as they stand. */
static int add_run(script *sc, const char *steps, int md)
{
    long n;
    if (mdl_parse_long(steps, &n) != 0 || n < 0)
        return fail(sc, "'%s' is not a number of %s", steps, md ? "steps" : "iterations");
    if (sc->nruns == MAX_RUNS)
        return fail(sc, "more than %d runs", MAX_RUNS);
    if (!sc->box_made || (!sc->velocity_made && !sc->data_velocities))
        return fail(sc, "no box and atoms (create_box + create_atoms, or read_data) before the run");
    if (!sc->velocity_made && sc->data_velocities < 0) /* read_data without velocities: at rest, as in LAMMPS */
        setf(sc, "system", "temperature", "0");
    if (md)
        MDL_TRY(ensemble_of_fixes(sc));
    setf(sc, "run", "steps", "%ld", n);
    if (!sc->thermo_set) /* LAMMPS's thermo 0: the run's first and last steps */
        setf(sc, "output", "thermo", "%ld", n > 0 ? n : 1);
    if (!find_key(&sc->now, "thermo_norm")) /* LAMMPS's default: per atom in lj units, totals in the others */
        setf(sc, "output", "thermo_norm", "%s", strcmp(sc->units, "lj") == 0 ? "yes" : "no");
    if (!find_key(&sc->now, "thermo_columns")) /* LAMMPS's thermo_style one (epair is pe here) */
        setf(sc, "output", "thermo_columns", "step temp pe etotal press");
    if (!(sc->runs[sc->nruns] = malloc(sizeof(settings))))
        return MDL_ERUN;
    *sc->runs[sc->nruns] = sc->now;
    sc->run_line[sc->nruns++] = sc->line;
    return MDL_OK;
}

/* minimize ETOL FTOL MAXITER MAXEVAL: a stage of ensemble minimize, MAXITER its steps. */
static int cmd_minimize(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 4, 4));
    double v[4];
    for (int k = 0; k < 4; k++)
        MDL_TRY(number(sc, w[1 + k], &v[k]));
    settings keep = sc->now; /* the fixes' ensemble stays for the runs after */
    drop_ensemble_keys(sc);
    setf(sc, "run", "ensemble", "minimize");
    setf(sc, "run", "etol", "%s", w[1]), setf(sc, "run", "ftol", "%s", w[2]);
    setf(sc, "run", "maxeval", "%s", w[4]);
    int rc = add_run(sc, w[3], 0);
    sc->now = keep; /* the run's keys are saved: the script goes on from the keys before */
    return rc;
}

int lammps_command(script *sc, char **w, int nw)
{
    sc->cmd = w[0];
    int rc = cmd_simple(sc, w, nw);
    if (rc != 1)
        return rc;
    static const struct {
        const char *name;
        int (*fn)(script *, char **, int);
    } table[] = {{"variable", cmd_variable},       {"lattice", cmd_lattice},         {"region", cmd_region},
                 {"create_box", cmd_create_box},   {"create_atoms", cmd_create_atoms}, {"read_data", cmd_read_data},
                 {"mass", cmd_mass},               {"velocity", cmd_velocity},       {"pair_style", cmd_pair_style},
                 {"pair_coeff", cmd_pair_coeff},   {"pair_modify", cmd_pair_modify}, {"neighbor", cmd_neighbor},
                 {"neigh_modify", cmd_neighbor},   {"fix", cmd_fix},                 {"unfix", cmd_fix},
                 {"thermo_style", cmd_output},     {"thermo_modify", cmd_output},    {"dump", cmd_output},
                 {"run", cmd_run},                 {"write_data", cmd_run}};
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        if (!strcmp(table[k].name, w[0]))
            return table[k].fn(sc, w, nw);
    if (!strcmp(w[0], "minimize"))
        return cmd_minimize(sc, w, nw);
    if (!strcmp(w[0], "min_style")) {
        if (nw != 2 || (strcmp(w[1], "cg") && strcmp(w[1], "fire")))
            return fail(sc, "mdlite minimises with cg (LAMMPS's default) or fire");
        setf(sc, "run", "min_style", "%s", w[1]);
        return MDL_OK;
    }
    if (!strcmp(w[0], "min_modify")) {
        for (int k = 1; k < nw; k += 2) {
            const char *v = k + 1 < nw ? w[k + 1] : "";
            if (!strcmp(w[k], "dmax"))
                setf(sc, "run", "dmax", "%s", v);
            else if (!(!strcmp(w[k], "line") && !strcmp(v, "quadratic")))
                return fail(sc, "'%s %s': mdlite takes dmax and line quadratic", w[k], v);
        }
        return MDL_OK;
    }
    return fail(sc, "not a command mdlite runs (docs/LAMMPS.md lists those it does)");
}

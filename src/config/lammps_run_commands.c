/* The LAMMPS commands that run and report, each into mdlite's INI keys: fix and unfix (their
   ensemble at a run: lammps_thermostats.c), thermo and its modifiers, dumps, run and minimize (a stage each, with what was printed before it),
   write_data, info, and the refusals that point elsewhere (restart files). */
#define _POSIX_C_SOURCE 200809L
#include "lammps_script_state.h"
#include "../physics/ensembles.h"

#include <ctype.h>
#include <stdlib.h>

static void free_fix(script_fix *f)
{
    free(f->id);
    free(f->style);
    for (int a = 0; a < f->nargs; a++)
        free(f->args[a]);
    free(f->args);
}

/* fix balance NFREQ THRESH shift|rcb ... (LAMMPS moves its processors' boundaries) and fix property/atom
   i_NAME|d_NAME ... [ghost yes|no] (a per-atom store nothing of mdlite's reads): fixes that change no number. */
static int bookkeeping_fix(script *sc, const char *style, char **w, int nw)
{
    if (!strcmp(style, "balance")) {
        long nfreq;
        double thresh;
        MDL_TRY(expect_args(sc, nw, 6, 100000));
        MDL_TRY(script_count(sc, w[4], 0, 2000000000L, &nfreq));
        MDL_TRY(script_number(sc, w[5], &thresh));
        if (strcmp(w[6], "shift") && strcmp(w[6], "rcb"))
            return fail(sc, "fix balance NFREQ THRESH shift|rcb ...: '%s' (LAMMPS: illegal fix balance command)", w[6]);
        return MDL_OK;
    }
    MDL_TRY(expect_args(sc, nw, 4, 100000));
    for (int a = 4; a < nw; a++)
        if (!strcmp(w[a], "ghost") && a + 1 < nw && (!strcmp(w[a + 1], "yes") || !strcmp(w[a + 1], "no")))
            a++;
        else if (strncmp(w[a], "i_", 2) && strncmp(w[a], "d_", 2))
            return fail(sc, "fix property/atom %s: mdlite takes custom values (i_NAME, d_NAME), which nothing it runs "
                            "reads; mol, q and rmass change its atoms", w[a]);
    return MDL_OK;
}

static int cmd_fix(script *sc, char **w, int nw)
{
    if (!strcmp(w[0], "unfix")) {
        MDL_TRY(expect_args(sc, nw, 1, 1));
        for (int k = 0; k < sc->nfix; k++)
            if (!strcmp(sc->fixes[k].id, w[1])) {
                free_fix(&sc->fixes[k]);
                memmove(&sc->fixes[k], &sc->fixes[k + 1], (size_t)(sc->nfix - k - 1) * sizeof *sc->fixes);
                sc->nfix--;
                return MDL_OK;
            }
        return fail(sc, "no fix %s (LAMMPS refuses it)", w[1]);
    }
    if (!sc->box_made)
        return fail(sc, "before the box exists: LAMMPS refuses it");
    if (nw < 4)
        return fail(sc, "expected 'fix ID GROUP STYLE ...'");
    char base[64];
    script_base_style(w[3], base, sizeof base);
    if (!script_group_exists(sc, w[2]))
        return fail(sc, "no group %s (LAMMPS: could not find fix group ID)", w[2]);
    char styles[256];
    if (strcmp(w[2], "all") != 0 && !script_fix_takes_group(base))
        return fail(sc, "fix %s on group %s: mdlite's %s acts on all atoms; on a group it takes %s", base, w[2], base,
                    script_group_fix_styles(styles, sizeof styles));
    if (!strcmp(base, "enforce2d") && sc->dimension != 2)
        return fail(sc, "fix enforce2d in a 3-d system (LAMMPS: cannot use fix enforce2d with 3d simulation)");
    if (!strcmp(base, "enforce2d") && nw != 4)
        return fail(sc, "fix enforce2d takes no arguments");
    if (script_bookkeeping_fix_style(base))
        MDL_TRY(bookkeeping_fix(sc, base, w, nw));
    int k = 0;
    while (k < sc->nfix && strcmp(sc->fixes[k].id, w[1]) != 0)
        k++;
    if (k < sc->nfix && strcmp(sc->fixes[k].style, base) != 0) /* LAMMPS's rule too */
        return fail(sc, "fix %s is a %s: a fix replaced keeps its style (unfix it first)", w[1], sc->fixes[k].style);
    if (k == sc->nfix) {
        if (sc->nfix == sc->fix_cap) {
            int cap = 2 * sc->fix_cap + 4;
            script_fix *f = mdl_realloc(sc->fixes, (size_t)cap * sizeof *f, "fixes");
            if (!f)
                return MDL_ERUN;
            sc->fixes = f, sc->fix_cap = cap;
        }
        sc->fixes[sc->nfix++] = (script_fix){0};
    } else {
        free_fix(&sc->fixes[k]);
    }
    script_fix *f = &sc->fixes[k];
    *f = (script_fix){mdl_strdup(w[1]), mdl_strdup(base), mdl_calloc((size_t)nw, sizeof(char *), "fix"), 0, sc->line,
                      ++sc->fixes_made, "", "", 0};
    if (!f->id || !f->style || !f->args)
        return MDL_ERUN;
    snprintf(f->group, sizeof f->group, "%s", w[2]);
    for (int a = 4; a < nw; a++)
        if (!(f->args[f->nargs++] = mdl_strdup(w[a])))
            return MDL_ERUN;
    return MDL_OK;
}

/* thermo_style one|multi|custom: LAMMPS's thermo_style makes a new Thermo, its modifiers reset. */
static int cmd_thermo_style(script *sc, char **w, int nw)
{
    if (!sc->box_made)
        return fail(sc, "before the box exists: LAMMPS refuses it");
    static const char *const modifiers[] = {"thermo_norm", "thermo_format", "thermo_line"};
    for (size_t k = 0; k < sizeof modifiers / sizeof modifiers[0]; k++)
        settings_drop(&sc->now, modifiers[k]);
    if (settings_find(&sc->now, "thermo_group")) /* a stage's own: the stages before it may have had one */
        MDL_TRY(setf(sc, "output", "thermo_group", "all"));
    sc->thermo_custom = 0;
    if (nw == 2 && !strcmp(w[1], "one"))
        return setf(sc, "output", "thermo_columns", "step temp epair emol etotal press");
    if (nw == 2 && !strcmp(w[1], "multi")) {
        MDL_TRY(setf(sc, "output", "thermo_line", "multi"));
        return setf(sc, "output", "thermo_columns", "step etotal ke temp pe ebond eangle edihed eimp evdwl ecoul elong press");
    }
    sc->thermo_custom = 1;
    if (nw < 3 || strcmp(w[1], "custom") != 0)
        return fail(sc, "mdlite takes 'thermo_style one', 'multi' and 'custom NAMES'");
    mdl_buf cols = {0}; /* a compute's c_ID[*]: each of its vector's elements (a fix's f_ID: checked at the run) */
    int rc = MDL_OK;
    for (int k = 2; k < nw && rc == MDL_OK; k++) {
        const int compute = !strncmp(w[k], "c_", 2);
        const size_t n = compute ? strcspn(w[k] + 2, "[") : 0;
        const int size = compute ? script_compute_size(sc, w[k] + 2, n) : 0;
        if (compute && !size)
            rc = fail(sc, "%s: no compute %.*s (LAMMPS: could not find thermo custom compute ID)", w[k], (int)n, w[k] + 2);
        else if (size && !strcmp(w[k] + 2 + n, "[*]"))
            for (int e = 1; e <= size && rc == MDL_OK; e++)
                rc = buf_addf(&cols, "%s%.*s[%d]", cols.len ? " " : "", (int)n + 2, w[k], e);
        else
            rc = buf_addf(&cols, "%s%s", cols.len ? " " : "", w[k]);
    }
    if (rc == MDL_OK)
        rc = setf(sc, "output", "thermo_columns", "%s", cols.s);
    buf_free(&cols);
    return rc;
}

/* The thermo columns f_ID and f_ID[k] at a run: each of a fix in force that is a wall or an indenter
   (its [run] force_fixes items carry `id ID`) or a fix balance ([output] thermo_balance_id), else
   refused naming it. */
static int fix_columns(script *sc, const char *columns)
{
    char copy[MDL_PATH_LEN], *save = NULL;
    snprintf(copy, sizeof copy, "%s", columns);
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (strncmp(w, "f_", 2) != 0)
            continue;
        const script_fix *f = NULL;
        const size_t n = strcspn(w + 2, "[");
        for (int j = 0; j < sc->nfix && !f; j++)
            f = strlen(sc->fixes[j].id) == n && !strncmp(sc->fixes[j].id, w + 2, n) ? &sc->fixes[j] : NULL;
        if (!f)
            return fail(sc, "%s: no fix %.*s (LAMMPS: could not find thermo custom fix ID)", w, (int)n, w + 2);
        const setting *bal = settings_find(&sc->now, "thermo_balance_id");
        const size_t idn = strlen(f->id);
        if (!strcmp(f->style, "balance") && bal && (strncmp(bal->value, f->id, idn) || bal->value[idn] != ' '))
            return fail(sc, "%s: the columns of two fix balance (%s and %s): mdlite prints one's", w, bal->value, f->id);
        double thresh;
        if (!strcmp(f->style, "balance") && (f->nargs < 2 || script_number(sc, f->args[1], &thresh) != MDL_OK))
            return fail(sc, "%s: fix balance %s has no threshold mdlite reads", w, f->id);
        int weighted = 0;
        for (int a = 0; a < f->nargs; a++)
            weighted |= !strcmp(f->args[a], "weight");
        if (!strcmp(f->style, "balance") && weighted && !strcmp(w + 2 + idn, "[1]"))
            return fail(sc, "%s: fix balance %s's largest load with weights: mdlite counts atoms", w, f->id);
        if (!strcmp(f->style, "balance"))
            MDL_TRY(setf(sc, "output", "thermo_balance_id", "%s %.17g", f->id, thresh));
        else if (strcmp(f->style, "indent") != 0 && !script_wall_fix_style(f->style))
            return fail(sc, "%s: the output of fix %s %s as a column: mdlite prints those of walls, indenters and "
                            "fix balance", w, f->id, f->style);
    }
    return MDL_OK;
}

/* thermo_modify norm, format (line|int|float|N "fmt"), line one|multi, flush, lost, lost/bond, warn. */
static int cmd_thermo_modify(script *sc, char **w, int nw)
{
    if (nw < 3)
        return fail(sc, "expected keyword value pairs");
    for (int k = 1; k < nw; k += 2) {
        const char *key = w[k], *v = k + 1 < nw ? w[k + 1] : "";
        const int yesno = !strcmp(v, "yes") || !strcmp(v, "no");
        if (!strcmp(key, "temp") && k + 1 < nw) {
            MDL_TRY(script_thermo_temp(sc, v));
        } else if (!strcmp(key, "norm") && yesno) {
            MDL_TRY(setf(sc, "output", "thermo_norm", "%s", v));
        } else if (!strcmp(key, "line") && (!strcmp(v, "one") || !strcmp(v, "multi"))) {
            MDL_TRY(setf(sc, "output", "thermo_line", "%s", v));
        } else if (!strcmp(key, "format") && k + 2 < nw) {
            /* each thermo_modify format adds to those before ("none" clears them): one INI key holds them all */
            const setting *old = settings_find(&sc->now, "thermo_format");
            mdl_buf all = {0};
            int rc = MDL_OK;
            if (strcmp(v, "none") != 0) {
                if (old)
                    rc = buf_addf(&all, "%s;", old->value);
                for (const char *c = w[k + 2]; *c && rc == MDL_OK; c++)
                    if (*c == ';' || iscntrl((unsigned char)*c))
                        rc = fail(sc, "format %s: ';' and control characters are not taken in a format", v);
                if (rc == MDL_OK)
                    rc = buf_addf(&all, "%s=%s", v, w[k + 2]);
                if (rc == MDL_OK)
                    rc = setf(sc, "output", "thermo_format", "%s", buf_str(&all));
            } else {
                settings_drop(&sc->now, "thermo_format");
                k--; /* format none takes no string */
            }
            buf_free(&all);
            MDL_TRY(rc);
            k++;
        } else if ((!strcmp(key, "flush") && yesno) ||
                   ((!strcmp(key, "lost") || !strcmp(key, "lost/bond")) &&
                    (!strcmp(v, "error") || !strcmp(v, "warn") || !strcmp(v, "ignore"))) ||
                   (!strcmp(key, "warn") && (!strcmp(v, "ignore") || !strcmp(v, "reset") || !strcmp(v, "default") ||
                                             mdl_parse_long(v, &(long){0}) == 0))) {
            /* flush: mdlite flushes every row; lost: atoms never leave a periodic box; warn: how many
               warnings LAMMPS prints */
        } else {
            return fail(sc, "'%s %s': mdlite takes norm, temp, format, line one|multi, flush, lost, lost/bond and warn",
                        key, v);
        }
    }
    return MDL_OK;
}

static int cmd_thermo(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 1, 1));
    long n;
    if (!strncmp(w[1], "v_", 2))
        return fail(sc, "thermo %s: a variable's schedule is evaluated during a run; give N", w[1]);
    MDL_TRY(script_count(sc, w[1], 0, 2000000000L, &n));
    sc->thermo_every = n; /* 0: LAMMPS's first and last steps of each run */
    return MDL_OK;
}

/* LAMMPS's checks at a run: every type has a mass and every pair its coefficients (lj/cut mixes
   the cross pairs not given, geometrically by default: mdlite mixes them arithmetically only). */
static int check_types(script *sc)
{
    const setting *st = settings_find(&sc->now, "style");
    const char *style = st ? st->value : "";
    if (!st)
        return fail(sc, "no pair_style: LAMMPS refuses a run without one");
    const int eam = !strncmp(style, "eam", 3);
    if (script_type_without_mass(sc))
        return fail(sc, "atom type %d has no mass: LAMMPS refuses the run (all masses must be set)",
                    script_type_without_mass(sc));
    for (int i = 1; i <= sc->ntypes; i++) {
        char key[32];
        snprintf(key, sizeof key, "file.%d", i);
        if (!strcmp(style, "eam") && !settings_find(&sc->now, key))
            return fail(sc, "atom type %d has no pair_coeff %d %d FILE: LAMMPS refuses the run", i, i, i);
        if (!strcmp(style, "eam/alloy") || !strcmp(style, "eam/fs") || eam)
            continue;
        for (int j = i; j <= sc->ntypes; j++) {
            const int set = sc->pair_set[(i - 1) * sc->ntypes + (j - 1)];
            if (set || (i != j && !strcmp(style, "lj") && !strcmp(sc->mix, "arithmetic") &&
                        sc->pair_set[(i - 1) * sc->ntypes + (i - 1)] && sc->pair_set[(j - 1) * sc->ntypes + (j - 1)]))
                continue;
            if (i != j && !strcmp(style, "lj") && sc->pair_set[(i - 1) * sc->ntypes + (i - 1)] &&
                sc->pair_set[(j - 1) * sc->ntypes + (j - 1)])
                return fail(sc, "pair %d %d is not given: LAMMPS would mix it geometrically, mdlite mixes "
                                "Lorentz-Berthelot; give it, or say pair_modify mix arithmetic", i, j);
            return fail(sc, "pair %d %d has no pair_coeff: LAMMPS refuses the run (all pair coeffs must be set)", i, j);
        }
    }
    if (eam && strcmp(style, "eam") != 0 && !settings_find(&sc->now, "file"))
        return fail(sc, "no pair_coeff * * FILE ...: LAMMPS refuses the run");
    return MDL_OK;
}

/* A write_data before the first run holds the state then: nothing in between may change it. */
static int check_initial_data(script *sc)
{
    if (sc->nruns || !sc->initial_data.len)
        return MDL_OK;
    for (int pass = 0; pass < 2; pass++) {
        const settings *a = pass ? &sc->data_keys : &sc->now, *b = pass ? &sc->now : &sc->data_keys;
        for (int k = 0; k < a->n; k++) {
            const setting *e = &a->s[k], *f = settings_find(b, e->key);
            if ((!strcmp(e->section, "system") || !strncmp(e->key, "file", 4) || !strncmp(e->key, "element.", 8)) &&
                (!f || strcmp(e->value, f->value) != 0))
                return fail(sc, "write_data at line %d comes before a command that changes the atoms (%s, line %d): "
                                "mdlite writes it with the state the run starts from; move it after that command",
                            sc->data_line, e->key, pass ? sc->line : e->line);
        }
    }
    return MDL_OK;
}

/* The keys of a run (md: its ensemble from the fixes), saved with the text printed before it. */
static int add_run(script *sc, long steps, int md)
{
    if (!sc->atoms_made)
        return fail(sc, "no atoms: create_box and create_atoms, or read_data, before a run (mdlite runs no empty "
                        "box)");
    MDL_TRY(check_types(sc));
    MDL_TRY(check_initial_data(sc));
    if (!sc->velocity_made && sc->data_velocities <= 0) /* at rest, as in LAMMPS, unless a data file has velocities */
        MDL_TRY(setf(sc, "system", "temperature", "0"));
    if (md)
        MDL_TRY(script_ensemble_of_fixes(sc, steps));
    MDL_TRY(setf(sc, "run", "steps", "%ld", steps));
    /* thermo N; LAMMPS's thermo 0 (its default): the run's first and last steps */
    if (sc->thermo_every)
        MDL_TRY(setf(sc, "output", "thermo", "%ld", sc->thermo_every));
    else
        MDL_TRY(setf(sc, "output", "thermo", "ends"));
    if (!settings_find(&sc->now, "thermo_norm")) /* LAMMPS's default: per atom in lj units, totals in the others */
        MDL_TRY(setf(sc, "output", "thermo_norm", "%s", strcmp(sc->units, "lj") == 0 ? "yes" : "no"));
    if (!settings_find(&sc->now, "thermo_columns")) /* LAMMPS's thermo_style one */
        MDL_TRY(setf(sc, "output", "thermo_columns", "step temp epair emol etotal press"));
    const setting *cols = settings_find(&sc->now, "thermo_columns"), *ens = settings_find(&sc->now, "ensemble");
    const char *chains = strstr(cols->value, "ecouple") ? "ecouple" : strstr(cols->value, "econserve") ? "econserve" : NULL;
    if (chains && ens && !strcmp(ens->value, "npt-nose-hoover")) /* docs/FORMATS.md: LAMMPS's iso barostat's chain */
        return fail(sc, "thermo keyword %s under fix npt: LAMMPS 29Sep2021 counts its barostat chain's energy "
                        "otherwise than mdlite (mdlite's thermo.csv has its conserved energy)", chains);
    if (chains && ens && strcmp(ens->value, "nve") && !strstr(ens->value, "nose-hoover"))
        return fail(sc, "thermo keyword %s under fix %s: LAMMPS tallies the energy that thermostat adds and takes "
                        "into ecouple, which mdlite does not", chains,
                    ensemble_lammps_fix(ens->value));
    /* one and multi add Volume where the box may move (LAMMPS's Thermo::init, domain->box_change): a
       barostat, a shrink-wrapped face, fix balance (its sub-domains) */
    const setting *bnd = settings_find(&sc->now, "boundary");
    int moves = (ens && !strcmp(ens->value, "npt-nose-hoover")) || (bnd && strpbrk(bnd->value, "sm"));
    for (int k = 0; k < sc->nfix; k++)
        moves |= !strcmp(sc->fixes[k].style, "balance");
    mdl_buf base = {0};
    MDL_TRY(buf_add(&base, cols->value));
    const size_t n = base.len;
    if (n > 4 && !strcmp(base.s + n - 4, " vol") && !sc->thermo_custom)
        base.s[n - 4] = '\0';
    int rc = !sc->thermo_custom && moves
                 ? setf(sc, "output", "thermo_columns", "%s vol", base.s) : setf(sc, "output", "thermo_columns", "%s", base.s);
    buf_free(&base);
    MDL_TRY(rc);
    settings_drop(&sc->now, "thermo_balance_id");
    MDL_TRY(fix_columns(sc, settings_find(&sc->now, "thermo_columns")->value));
    settings_drop(&sc->now, "thermo_computes");
    if (sc->thermo_computes.len)
        MDL_TRY(setf(sc, "output", "thermo_computes", "%s", sc->thermo_computes.s));
    mdl_buf vars = {0}; /* the v_NAME columns' formulas as they stand at this run */
    settings_drop(&sc->now, "thermo_variables");
    rc = script_thermo_variables(sc, settings_find(&sc->now, "thermo_columns")->value, &vars);
    if (rc == MDL_OK && vars.len)
        rc = setf(sc, "output", "thermo_variables", "%s", vars.s);
    buf_free(&vars);
    MDL_TRY(rc);
    if (sc->nruns == sc->runs_cap) {
        int cap = 2 * sc->runs_cap + 4;
        script_run *r = mdl_realloc(sc->runs, (size_t)cap * sizeof *r, "runs");
        if (!r)
            return MDL_ERUN;
        sc->runs = r, sc->runs_cap = cap;
    }
    script_run *r = &sc->runs[sc->nruns];
    *r = (script_run){.line = sc->line, .made = sc->fixes_made, .nfix = sc->nfix};
    sc->nruns++;
    MDL_TRY(settings_copy(&r->keys, &sc->now));
    settings_drop(&sc->now, "stage_velocity_edits"); /* made as this run begins, never again */
    settings_drop(&sc->now, "reset_timestep");
    r->screen = sc->screen, r->log = sc->log; /* what was printed before it is this run's */
    sc->screen = (mdl_buf){0}, sc->log = (mdl_buf){0};
    sc->changed_since_run[0] = '\0';
    return MDL_OK;
}

/* run N [upto] [pre yes|no] [post yes|no]. */
static int cmd_run(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 1, 1000));
    long n, now = 0;
    int upto = 0;
    MDL_TRY(script_count(sc, w[1], 0, 2000000000L, &n));
    for (int k = 2; k < nw; k += 2) {
        const char *v = k + 1 < nw ? w[k + 1] : "";
        if (!strcmp(w[k], "upto") && !upto) { /* a keyword without a value */
            upto = 1, k--;
        } else if (!strcmp(w[k], "pre") && !strcmp(v, "no") && sc->nruns &&
                   (sc->fixes_made != sc->runs[sc->nruns - 1].made || sc->nfix != sc->runs[sc->nruns - 1].nfix)) {
            return fail(sc, "pre no after fixes changed since the last run: LAMMPS skips the set-up that takes "
                            "them in (its numbers then are not the new fixes'); drop 'pre no'");
        } else if (!((!strcmp(w[k], "pre") || !strcmp(w[k], "post")) && (!strcmp(v, "yes") || !strcmp(v, "no"))))
            return fail(sc, "'%s %s': mdlite takes run N [upto] [pre yes|no] [post yes|no] (every, start and stop: "
                            "not taken)", w[k], v);
    }
    if (upto && (script_step_now(sc, &now) != MDL_OK || n < now))
        return n < now ? fail(sc, "run %ld upto: the run is at step %ld already (LAMMPS: invalid run command upto "
                                  "value)", n, now) : MDL_EINPUT;
    return add_run(sc, n - now, 1);
}

/* The first of words (NULL-ended) that the blank-separated list holds as a whole word, or NULL. */
static const char *first_word_of(const char *list, const char *const *words)
{
    for (; *words; words++)
        for (const char *p = strstr(list, *words); p; p = strstr(p + 1, *words))
            if ((p == list || p[-1] == ' ') && (!p[strlen(*words)] || p[strlen(*words)] == ' '))
                return *words;
    return NULL;
}

/* minimize ETOL FTOL MAXITER MAXEVAL: a stage of ensemble minimize, MAXITER its steps. */
static int cmd_minimize(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 4, 4));
    double etol, ftol;
    long maxiter, maxeval;
    MDL_TRY(script_number(sc, w[1], &etol));
    MDL_TRY(script_number(sc, w[2], &ftol));
    MDL_TRY(script_count(sc, w[3], 0, 2000000000L, &maxiter));
    MDL_TRY(script_count(sc, w[4], 0, 2000000000L, &maxeval));
    if (etol < 0 || etol >= 1 || ftol < 0)
        return fail(sc, "etol from 0 to below 1 and ftol of 0 or more, as LAMMPS takes them");
    const setting *style = settings_find(&sc->now, "min_style"), *cols = settings_find(&sc->now, "thermo_columns");
    static const char *const counters[] = {"nbuild", "ndanger", NULL};
    const char *c = cols ? cols->value : "step temp epair emol etotal press", *word = first_word_of(c, counters);
    if (word)
        return fail(sc, "thermo keyword %s under minimize: LAMMPS counts the builds its line search needs, "
                        "mdlite's minimiser builds at every evaluation", word);
    if (style && !strncmp(style->value, "fire", 4)) { /* LAMMPS's FIRE changes the run's timestep as it goes */
        static const char *const clock[] = {"dt", "time", NULL};
        if ((word = first_word_of(c, clock)))
            return fail(sc, "thermo keyword %s under min_style fire: LAMMPS shows FIRE's own timestep there, which "
                            "mdlite keeps to its minimiser", word);
    }
    MDL_TRY(script_unknown_fix_style(sc)); /* box/relax and the like change what is minimised */
    settings keep;
    MDL_TRY(settings_copy(&keep, &sc->now)); /* the fixes' ensemble stays for the runs after */
    script_drop_ensemble_keys(sc);
    int rc = script_group_fixes(sc, NULL); /* LAMMPS's min_post_force: the force fixes act, no thermostat */
    if (rc == MDL_OK)
        rc = setf(sc, "run", "ensemble", "minimize");
    if (rc == MDL_OK)
        rc = setf(sc, "run", "etol", "%s", w[1]);
    if (rc == MDL_OK)
        rc = setf(sc, "run", "ftol", "%s", w[2]);
    /* LAMMPS stops once the evaluations reach maxeval, after the first iteration's at the least:
       maxeval 0 is maxeval 1 there; mdlite's 0 is no limit */
    if (rc == MDL_OK)
        rc = setf(sc, "run", "maxeval", "%ld", maxeval > 0 ? maxeval : 1);
    if (rc == MDL_OK)
        rc = add_run(sc, maxiter, 0);
    settings_free(&sc->now);
    sc->now = keep; /* the run's keys are saved: the script goes on from the keys before, */
    settings_drop(&sc->now, "stage_velocity_edits"); /* but for what this minimisation made once */
    settings_drop(&sc->now, "reset_timestep");
    return rc;
}

/* write_data FILE [nocoeff] [nofix] [pair ii|ij]: after a run, at that run's end; before the first,
   the state it starts from. */
static int cmd_write_data(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 1, 1000));
    for (int k = 2; k < nw; k++)
        if (!strcmp(w[k], "pair") && k + 1 < nw && (!strcmp(w[k + 1], "ii") || !strcmp(w[k + 1], "ij")))
            k++;
        else if (strcmp(w[k], "nocoeff") && strcmp(w[k], "nofix"))
            return fail(sc, "'%s': mdlite takes write_data FILE [nocoeff] [nofix] [pair ii|ij] (it writes no "
                            "coefficients)", w[k]);
    if (!sc->atoms_made)
        return fail(sc, "no atoms to write: LAMMPS refuses write_data before the box exists");
    char *path = script_path(sc, w[1]);
    if (!path)
        return MDL_ERUN;
    if (strchr(path, '\n')) {
        free(path);
        return fail(sc, "a file name with a line break");
    }
    mdl_buf *list = sc->nruns ? &sc->runs[sc->nruns - 1].data_files : &sc->initial_data;
    int rc = buf_addf(list, "%s\n", path);
    free(path);
    if (!sc->nruns && rc == MDL_OK) { /* the keys it saw: a change before the first run is refused then */
        settings_free(&sc->data_keys);
        rc = settings_copy(&sc->data_keys, &sc->now);
        sc->data_line = sc->line;
    }
    return rc;
}

/* info [...]: the settings as the script stands, printed where LAMMPS prints its info. */
static int cmd_info(script *sc, char **w, int nw)
{
    (void)w, (void)nw;
    mdl_buf b = {0};
    int rc = buf_addf(&b, "mdlite info (%s:%d): the settings as the script stands:", sc->file, sc->line);
    for (int k = 0; k < sc->now.n && rc == MDL_OK; k++)
        rc = buf_addf(&b, "\n  [%s] %s = %s", sc->now.s[k].section, sc->now.s[k].key, sc->now.s[k].value);
    if (rc == MDL_OK)
        rc = script_say(sc, buf_str(&b), 1, 1);
    buf_free(&b);
    return rc;
}

static int cmd_min(script *sc, char **w, int nw)
{
    if (!strcmp(w[0], "min_style") && !sc->box_made)
        return fail(sc, "before the box exists: LAMMPS refuses it");
    if (!strcmp(w[0], "min_style")) {
        if (nw != 2 || (strcmp(w[1], "cg") && strcmp(w[1], "fire") && strcmp(w[1], "fire/old")))
            return fail(sc, "mdlite minimises with cg (LAMMPS's default), fire or fire/old");
        return setf(sc, "run", "min_style", "%s", w[1]);
    }
    for (int k = 1; k < nw; k += 2) {
        const char *v = k + 1 < nw ? w[k + 1] : "";
        double d;
        static const char *const fire[] = {"delaystep", "dtgrow", "dtshrink", "alpha0", "alphashrink", "tmax", "tmin",
                                           "vdfmax", "integrator", "halfstepback", "initialdelay", NULL};
        if (!strcmp(w[k], "dmax")) {
            MDL_TRY(script_number(sc, v, &d));
            MDL_TRY(setf(sc, "run", "dmax", "%s", v));
        } else if (first_word_of(w[k], fire) && *v) { /* FIRE's: [run] fire, read there (the last one wins) */
            const setting *old = settings_find(&sc->now, "fire");
            MDL_TRY(setf(sc, "run", "fire", "%s%s%s %s", old ? old->value : "", old ? " " : "", w[k], v));
        } else if (!(!strcmp(w[k], "line") && !strcmp(v, "quadratic"))) {
            return fail(sc, "'%s %s': mdlite takes dmax, line quadratic and FIRE's delaystep, dtgrow, dtshrink, alpha0, "
                        "alphashrink, tmax, tmin, vdfmax, integrator, halfstepback and initialdelay", w[k], v);
        }
    }
    return MDL_OK;
}

/* reset_timestep N: after a run, the next run's [run] reset_timestep (its steps shown from N, the
   run's own count going on); before any, only the 0 the count begins at. */
static int cmd_reset_timestep(script *sc, char **w, int nw)
{
    long n;
    if (nw != 2)
        return fail(sc, "mdlite takes 'reset_timestep N' (no keywords)");
    MDL_TRY(script_count(sc, w[1], 0, 900000000000000L, &n));
    if (!sc->nruns && n != 0)
        return fail(sc, "reset_timestep %ld before the first run: mdlite's first run counts from 0 (reset_timestep "
                        "between runs renumbers the next run's steps)", n);
    if (sc->dump_id[0])
        return fail(sc, "with dump %s: its frames would keep the run's own step numbers (mdlite renumbers thermo's "
                        "rows alone)", sc->dump_id);
    return sc->nruns ? setf(sc, "run", "reset_timestep", "%ld", n) : MDL_OK;
}

int lammps_run_command(script *sc, char **w, int nw)
{
    static const struct {
        const char *name;
        int (*fn)(script *, char **, int);
    } table[] = {{"fix", cmd_fix},           {"unfix", cmd_fix},          {"thermo", cmd_thermo},
                 {"thermo_style", cmd_thermo_style}, {"thermo_modify", cmd_thermo_modify}, {"dump", script_cmd_dump},
                 {"undump", script_cmd_dump},       {"run", cmd_run},            {"minimize", cmd_minimize},
                 {"write_data", cmd_write_data}, {"info", cmd_info},      {"min_style", cmd_min},
                 {"min_modify", cmd_min},     {"dump_modify", script_cmd_dump_modify},
                 {"fix_modify", script_cmd_fix_modify}, {"reset_timestep", cmd_reset_timestep}};
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        if (!strcmp(table[k].name, w[0]))
            return table[k].fn(sc, w, nw);
    if (!strcmp(w[0], "write_restart") || !strcmp(w[0], "read_restart"))
        return fail(sc, "LAMMPS's restart files: mdlite's restart is its H5MD checkpoint (a dump ID all h5md N FILE "
                        "holds it; mdlite run SCRIPT --restart FILE goes on from it, as if never stopped)");
    return 1;
}

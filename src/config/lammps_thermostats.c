/* LAMMPS's integrating and thermostat fixes into mdlite's ensemble keys at each run: fix nve alone,
   fix nvt and npt's keywords, fix nve with a thermostat by ensembles.h's line (its arguments as its
   words say), the walls and the fixes on groups beside them. */
#define _POSIX_C_SOURCE 200809L
#include "lammps_script_state.h"
#include "../physics/ensembles.h"

#include <stdlib.h>
#include <string.h>

/* A Nose-Hoover fix's keywords: temp Tstart Tstop tau [iso P P pdamp] [tchain N] [pchain M]. */
static int nose_hoover_keys(script *sc, const script_fix *f, int npt)
{
    int have_temp = 0, have_iso = 0;
    for (int a = 0; a < f->nargs;) {
        const char *k = f->args[a];
        const int need = !strcmp(k, "temp") || !strcmp(k, "iso") ? 3 : !strcmp(k, "tchain") || !strcmp(k, "pchain") ? 1 : -1;
        if (need < 0 || a + need >= f->nargs || (!npt && (!strcmp(k, "iso") || !strcmp(k, "pchain"))))
            return fail(sc, "fix %s: '%s': mdlite takes temp Tstart Tstop TAU%s, tchain%s", f->style, k,
                        npt ? ", iso P P PDAMP" : "", npt ? " and pchain" : "");
        double x;
        for (int v = 1; need == 3 && v <= 3; v++) /* temp and iso's values: numbers (a v_name: refused) */
            MDL_TRY(script_number(sc, f->args[a + v], &x));
        if (need == 3 && strcmp(f->args[a + 1], f->args[a + 2]) != 0 && strcmp(k, "temp") != 0)
            return fail(sc, "fix %s: %s %s %s: mdlite's barostat holds one target (Pstart = Pstop)", f->style, k,
                        f->args[a + 1], f->args[a + 2]);
        if (!strcmp(k, "temp")) {
            MDL_TRY(setf(sc, "run", "target_temperature", "%s", f->args[a + 1]));
            if (strcmp(f->args[a + 1], f->args[a + 2]) != 0)
                MDL_TRY(setf(sc, "run", "final_temperature", "%s", f->args[a + 2]));
            MDL_TRY(setf(sc, "run", "tau", "%s", f->args[a + 3]));
            have_temp = 1;
        } else if (!strcmp(k, "iso")) {
            MDL_TRY(setf(sc, "run", "target_pressure", "%s", f->args[a + 1]));
            MDL_TRY(setf(sc, "run", "pressure_tau", "%s", f->args[a + 3]));
            have_iso = 1;
        } else {
            MDL_TRY(setf(sc, "run", !strcmp(k, "tchain") ? "chain" : "pressure_chain", "%s", f->args[a + 1]));
        }
        a += need + 1;
    }
    if (!have_temp || (npt && !have_iso))
        return fail(sc, "fix %s needs temp%s", f->style, npt ? " and iso" : "");
    return MDL_OK;
}

/* The [run] keys of an ensemble, dropped before another is set. */
void script_drop_ensemble_keys(script *sc)
{
    static const char *const keys[] = {"ensemble", "chains", "target_temperature", "final_temperature", "tau", "every", "chain",
                                       "target_pressure", "pressure_tau", "pressure_chain", "rescale_window"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        settings_drop(&sc->now, keys[k]);
}

/* A thermostat fix's argument by its word in ensembles.h's lammps_args, as its [run] key; 0: not that word's. */
static int thermostat_argument(script *sc, int id, const char *word, const char *arg)
{
    double x, fixed;
    long n;
    if (strcmp(word, "SEED") != 0 && strcmp(word, "N") != 0 && mdl_parse_double(arg, &x) != 0)
        return 0; /* a number (LAMMPS's v_name targets: refused) */
    if (!strcmp(word, "Tstart"))
        return setf(sc, "run", "target_temperature", "%s", arg) == MDL_OK;
    if (!strcmp(word, "Tstop")) { /* a moving target where the ensemble has one */
        const setting *start = settings_find(&sc->now, "target_temperature");
        if (start && !strcmp(start->value, arg))
            return 1;
        return (ensemble_reads(id) & MDL_READS_RAMP) && setf(sc, "run", "final_temperature", "%s", arg) == MDL_OK;
    }
    if (!strcmp(word, "DAMP"))
        return setf(sc, "run", "tau", "%s", arg) == MDL_OK;
    if (!strcmp(word, "N"))
        return mdl_parse_long(arg, &n) == 0 && n > 0 && setf(sc, "run", "every", "%s", arg) == MDL_OK;
    if (!strcmp(word, "SEED")) /* LAMMPS's seed is checked; mdlite's stream is keyed by [system] seed */
        return mdl_parse_long(arg, &n) == 0 && n > 0;
    if (!strcmp(word, "WINDOW"))
        return mdl_parse_double(arg, &x) == 0 && x >= 0 && (x == 0 || setf(sc, "run", "rescale_window", "%s", arg) == MDL_OK);
    return mdl_parse_double(word, &fixed) == 0 && mdl_parse_double(arg, &x) == 0 && x == fixed;
}

/* A thermostat with fix nve, by ensembles.h: the fix whose lammps_fix is the style, its arguments
   as its lammps_args list them. */
static int thermostat_keys(script *sc, const script_fix *f)
{
    const int id = ensemble_of_lammps_thermostat(f->style);
    int ok = id >= 0;
    if (ok) {
        char words[128];
        snprintf(words, sizeof words, "%s", ensemble_info(id)->lammps_args);
        int a = 0;
        MDL_TRY(setf(sc, "run", "ensemble", "%s", ensemble_info(id)->name));
        for (char *save = NULL, *w = strtok_r(words, " ", &save); w && ok; w = strtok_r(NULL, " ", &save), a++)
            ok = a < f->nargs && thermostat_argument(sc, id, w, f->args[a]);
        if (ok && a == f->nargs)
            return MDL_OK;
    }
    mdl_buf forms = {0};
    for (int k = 0, n = 0; k < MDL_NENSEMBLES; k++) {
        const mdl_ensemble_info *e = ensemble_info(k);
        if (e->lammps_fix && e->lammps_args && e->lammps_args[0])
            MDL_TRY(buf_addf(&forms, "%s%s %s", n++ ? ", " : "", e->lammps_fix, e->lammps_args));
    }
    sc->line = f->line;
    int rc = fail(sc, "fix %s: mdlite takes nve alone, nvt, npt (temp, iso), or nve with one of %s (numbers: a "
                      "variable's target is refused)", f->style, buf_str(&forms));
    buf_free(&forms);
    return rc;
}

/* The ensemble of the fixes in force at a run, as mdlite's [run] keys. */
static int thermostat_of_fixes(script *sc, long steps);
int script_ensemble_of_fixes(script *sc, long steps)
{
    MDL_TRY(thermostat_of_fixes(sc, steps));
    const script_fix *thermostat = NULL;
    for (int k = 0; k < sc->nfix && !thermostat; k++)
        thermostat = script_fix_takes_group(sc->fixes[k].style) && !script_force_fix_style(sc->fixes[k].style)
                         ? &sc->fixes[k] : NULL;
    return script_group_fixes(sc, thermostat);
}

int script_bookkeeping_fix_style(const char *style)
{
    return !strcmp(style, "balance") || !strcmp(style, "property/atom");
}

int script_unknown_fix_style(script *sc)
{
    for (int k = 0; k < sc->nfix; k++) {
        const script_fix *f = &sc->fixes[k];
        if (!strcmp(f->style, "enforce2d") || !strcmp(f->style, "wall/reflect") || script_force_fix_style(f->style) ||
            script_bookkeeping_fix_style(f->style) || !strcmp(f->style, "nve") || !strcmp(f->style, "nvt") ||
            !strcmp(f->style, "npt") || ensemble_of_lammps_thermostat(f->style) >= 0)
            continue;
        return fail(sc, "fix %s %s (line %d): a fix style mdlite does not run (docs/LAMMPS.md lists the fixes it takes)",
                    f->id, f->style, f->line);
    }
    return MDL_OK;
}

static int thermostat_of_fixes(script *sc, long steps)
{
    script_drop_ensemble_keys(sc);
    MDL_TRY(script_unknown_fix_style(sc));
    MDL_TRY(script_walls(sc));
    const script_fix *nve = NULL, *other = NULL;
    for (int k = 0; k < sc->nfix; k++) {
        const script_fix *f = &sc->fixes[k];
        /* a 2-d system's z forces and velocities are 0 (make_2d); walls: script_walls */
        if (!strcmp(f->style, "enforce2d") || !strcmp(f->style, "wall/reflect") || script_force_fix_style(f->style) ||
            script_bookkeeping_fix_style(f->style))
            continue;
        if (!strcmp(f->style, "nve") && !nve)
            nve = f;
        else if (!other)
            other = f;
        else
            return fail(sc, "fixes %s and %s together: mdlite runs one ensemble at a time", other->style, f->style);
    }
    if (nve && nve->nargs)
        return fail(sc, "fix nve takes no arguments (line %d)", nve->line);
    if (other && (!strcmp(other->style, "nvt") || !strcmp(other->style, "npt"))) {
        if (nve)
            return fail(sc, "fix nve and fix %s together integrate twice", other->style);
        MDL_TRY(setf(sc, "run", "ensemble", "%s-nose-hoover", other->style));
        /* a fix made since the last run starts its chains at rest, as LAMMPS's new fix does */
        settings_drop(&sc->now, "chains");
        if (sc->nruns && other->made > sc->runs[sc->nruns - 1].made)
            MDL_TRY(setf(sc, "run", "chains", "fresh"));
        const int line = sc->line;
        sc->line = other->line;
        int rc = nose_hoover_keys(sc, other, !strcmp(other->style, "npt"));
        sc->line = line;
        return rc;
    }
    if (!nve && !other && !steps)
        return setf(sc, "run", "ensemble", "nve"); /* a run 0 moves nothing: any ensemble is LAMMPS's */
    if (!nve)
        return fail(sc, "no fix nve, nvt or npt: LAMMPS's atoms would stand still, which mdlite does not run");
    if (!other)
        return setf(sc, "run", "ensemble", "nve");
    return thermostat_keys(sc, other);
}

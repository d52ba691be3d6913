/* The LAMMPS fixes that act on a group, into mdlite's keys at each run: setforce, addforce and
   aveforce as [run] force_fixes (in the fixes' order), a thermostat's group as [run]
   thermostat_group; fix_modify temp and thermo_modify temp (a compute temp on a group). */
#include "lammps_script_state.h"

#include <stdlib.h>

int script_force_fix_style(const char *style)
{
    return !strcmp(style, "setforce") || !strcmp(style, "addforce") || !strcmp(style, "aveforce");
}

int script_fix_takes_group(const char *style)
{
    return script_force_fix_style(style) || !strcmp(style, "langevin") || !strcmp(style, "temp/rescale") ||
           !strcmp(style, "temp/berendsen") || !strcmp(style, "temp/csvr");
}

/* One force fix's words: FX FY FZ, numbers or NULL (addforce: numbers), no keywords. */
static int force_fix_words(script *sc, const script_fix *f, mdl_buf *out)
{
    if (f->nargs != 3)
        return fail(sc, "fix %s: mdlite takes fix ID GROUP %s FX FY FZ (no keywords)", f->style, f->style);
    MDL_TRY(buf_addf(out, "%s%s %s", out->len ? ", " : "", f->style, f->group));
    for (int d = 0; d < 3; d++) {
        double v = 0;
        const int null = !strcmp(f->args[d], "NULL");
        if (null && !strcmp(f->style, "addforce"))
            return fail(sc, "fix addforce: NULL (LAMMPS's addforce takes a value for each component)");
        if (!null)
            MDL_TRY(script_number(sc, f->args[d], &v));
        if (d == 2 && !null && v != 0 && sc->dimension == 2)
            return fail(sc, "fix %s: a z force of %s in a 2-d system", f->style, f->args[d]);
        MDL_TRY(null ? buf_addf(out, " NULL") : buf_addf(out, " %.17g", v));
    }
    return MDL_OK;
}

int script_group_fixes(script *sc, const script_fix *thermostat)
{
    settings_drop(&sc->now, "force_fixes");
    settings_drop(&sc->now, "thermostat_group");
    mdl_buf fixes = {0};
    int rc = MDL_OK;
    const int line = sc->line;
    for (int k = 0; k < sc->nfix && rc == MDL_OK; k++) {
        const script_fix *f = &sc->fixes[k];
        if (!script_force_fix_style(f->style))
            continue;
        /* LAMMPS adds the forces of its fixes in their order: a force fix before Langevin's is not
           one mdlite's order (the thermostat's force, then the force fixes) gives */
        sc->line = f->line; /* messages name the fix's line */
        if (thermostat && !strcmp(thermostat->style, "langevin") && f->made < thermostat->made)
            rc = fail(sc, "fix %s before fix langevin (line %d): mdlite adds Langevin's force first; define the "
                          "fix after it", f->style, thermostat->line);
        else
            rc = force_fix_words(sc, f, &fixes);
    }
    sc->line = line;
    if (rc == MDL_OK && fixes.len)
        rc = setf(sc, "run", "force_fixes", "%s", fixes.s);
    buf_free(&fixes);
    MDL_TRY(rc);
    if (!thermostat || !strcmp(thermostat->group, "all"))
        return MDL_OK;
    return setf(sc, "run", "thermostat_group", "%s", thermostat->group);
}

/* fix_modify ID temp C: the thermostat's temperature from compute temp C, on the fix's own group. */
int script_cmd_fix_modify(script *sc, char **w, int nw)
{
    if (nw != 4 || strcmp(w[2], "temp") != 0)
        return fail(sc, "mdlite takes fix_modify ID temp COMPUTE (a thermostat's temperature)");
    script_fix *f = NULL;
    for (int k = 0; k < sc->nfix && !f; k++)
        f = !strcmp(sc->fixes[k].id, w[1]) ? &sc->fixes[k] : NULL;
    if (!f)
        return fail(sc, "no fix %s (LAMMPS: could not find fix_modify ID)", w[1]);
    char group[32];
    if (!script_temp_compute(sc, w[3], group))
        return fail(sc, "no compute temp %s (LAMMPS: could not find fix_modify temperature ID)", w[3]);
    if (strcmp(f->style, "temp/rescale") && strcmp(f->style, "temp/berendsen") && strcmp(f->style, "temp/csvr") &&
        strcmp(f->style, "langevin"))
        return fail(sc, "fix %s is a %s: mdlite takes fix_modify temp on thermostats", w[1], f->style);
    if (strcmp(group, f->group) != 0)
        return fail(sc, "compute %s is on group %s, fix %s on group %s: mdlite's thermostat measures the group it "
                        "acts on", w[3], group, w[1], f->group);
    snprintf(f->temp, sizeof f->temp, "%s", w[3]);
    return MDL_OK;
}

int script_thermo_temp(script *sc, const char *id)
{
    char group[32];
    if (!script_temp_compute(sc, id, group))
        return fail(sc, "temp %s: no compute temp of that ID (LAMMPS: could not find thermo_modify temperature ID)",
                    id);
    MDL_TRY(setf(sc, "output", "thermo_pressure_group", "%s", group)); /* LAMMPS's thermo_press keeps it */
    return setf(sc, "output", "thermo_group", "%s", group);
}

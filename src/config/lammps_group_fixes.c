/* The LAMMPS fixes that act on a group, into mdlite's keys at each run: setforce, addforce,
   aveforce, indent and the walls as [run] force_fixes (in the fixes' order), a thermostat's group as [run]
   thermostat_group; fix_modify temp and thermo_modify temp (a compute temp on a group). */
#include "lammps_script_state.h"
#include "../physics/ensembles.h"

#include <stdlib.h>

int script_force_fix_style(const char *style)
{
    return !strcmp(style, "setforce") || !strcmp(style, "addforce") || !strcmp(style, "aveforce") ||
           !strcmp(style, "indent") || !strcmp(style, "viscous") || script_wall_fix_style(style);
}

/* fix viscous GAMMA [scale TYPE RATIO ...]: the drag on the group's atoms. */
static int viscous_words(script *sc, const script_fix *f, mdl_buf *out)
{
    double gamma;
    if (f->nargs < 1 || (f->nargs - 1) % 3)
        return fail(sc, "fix viscous: mdlite takes GAMMA, then scale TYPE RATIO");
    MDL_TRY(script_number(sc, f->args[0], &gamma));
    MDL_TRY(buf_addf(out, "%sviscous %s %.17g", out->len ? ", " : "", f->group, gamma));
    for (int a = 1; a < f->nargs; a += 3) {
        long t;
        double r;
        if (strcmp(f->args[a], "scale") != 0)
            return fail(sc, "fix viscous: '%s': mdlite takes scale TYPE RATIO", f->args[a]);
        MDL_TRY(script_count(sc, f->args[a + 1], 1, sc->ntypes, &t));
        MDL_TRY(script_number(sc, f->args[a + 2], &r));
        MDL_TRY(buf_addf(out, " scale %ld %.17g", t, r));
    }
    return MDL_OK;
}

int script_wall_fix_style(const char *style)
{
    return !strcmp(style, "wall/lj93") || !strcmp(style, "wall/lj126") || !strcmp(style, "wall/harmonic");
}

/* fix wall/lj93|lj126|harmonic FACE COORD EPSILON SIGMA CUTOFF ... [units lattice|box]: one [run]
   force_fixes item per face, in the fix's order (LAMMPS's walls m = 0, 1, ...), COORD in box units
   (units lattice, LAMMPS's default: times the spacing along the face's dimension) or EDGE. */
static int wall_words(script *sc, const script_fix *f, mdl_buf *out)
{
    int n = f->nargs, lattice = 1;
    if (n >= 2 && !strcmp(f->args[n - 2], "units") && (!strcmp(f->args[n - 1], "box") || !strcmp(f->args[n - 1], "lattice")))
        lattice = !strcmp(f->args[n - 1], "lattice"), n -= 2;
    if (n < 5 || n % 5)
        return fail(sc, "fix %s: mdlite takes FACE COORD EPSILON SIGMA CUTOFF for each face, then units lattice|box",
                    f->style);
    for (int k = 0; k < n; k += 5) {
        const char *face = f->args[k], *c = f->args[k + 1];
        const int d = face[0] - 'x';
        if (strlen(face) != 3 || d < 0 || d > 2 || (strcmp(face + 1, "lo") && strcmp(face + 1, "hi")))
            return fail(sc, "fix %s: '%s': a face is xlo, xhi, ylo, yhi, zlo or zhi (fld, pbc and other keywords: not "
                            "taken)", f->style, face);
        for (int j = 0; j < k; j += 5)
            if (!strcmp(f->args[j], face))
                return fail(sc, "fix %s: %s twice (LAMMPS: wall defined twice in fix wall command)", f->style, face);
        MDL_TRY(buf_addf(out, "%s%s %s %s", out->len ? ", " : "", f->style, f->group, face));
        double v[4];
        if (c[0] == 'v' && c[1] == '_')
            return fail(sc, "fix %s %s %s: a wall at a variable's coordinate is not taken", f->style, face, c);
        if (strcmp(c, "EDGE") != 0) {
            MDL_TRY(script_number(sc, c, &v[0]));
            if (lattice && !sc->lattice[0])
                return fail(sc, "fix %s in lattice units without a lattice (LAMMPS: use of fix wall with undefined "
                                "lattice)", f->style);
            MDL_TRY(buf_addf(out, " %.17g", lattice ? v[0] * sc->crystal.spacing[d] : v[0]));
        } else {
            MDL_TRY(buf_addf(out, " EDGE"));
        }
        for (int a = 1; a < 4; a++) {
            MDL_TRY(script_number(sc, f->args[k + 1 + a], &v[a]));
            MDL_TRY(buf_addf(out, " %.17g", v[a]));
        }
        MDL_TRY(buf_addf(out, " energy %s id %s", f->energy ? "yes" : "no", f->id));
    }
    return MDL_OK;
}

/* Whether a reset_timestep came before this run (or before it, for it). */
static int reset_given(const script *sc)
{
    for (int r = 0; r < sc->nruns; r++)
        if (settings_find(&sc->runs[r].keys, "reset_timestep"))
            return 1;
    return settings_find(&sc->now, "reset_timestep") != NULL;
}

/* fix indent's K SHAPE ARGS [side in|out] [units lattice|box] in box units (units lattice, LAMMPS's
   default: a centre's coordinates by the lattice's spacings, a radius by x's), with energy yes|no. */
static int indent_words(script *sc, const script_fix *f, mdl_buf *out)
{
    const char *shape = f->nargs >= 2 ? f->args[1] : "";
    const int sphere = !strcmp(shape, "sphere"), plane = !strcmp(shape, "plane"), nshape = plane ? 3 : 4;
    if ((!sphere && !plane && strcmp(shape, "cylinder")) || f->nargs < 2 + nshape)
        return fail(sc, "fix indent: mdlite takes K sphere X Y Z R, cylinder DIM C1 C2 R or plane DIM POS lo|hi, then "
                        "side in|out and units lattice|box");
    int lattice = 1;
    const char *side = "out";
    for (int a = 2 + nshape; a < f->nargs; a += 2) {
        const char *v = a + 1 < f->nargs ? f->args[a + 1] : "";
        if (!strcmp(f->args[a], "units") && (!strcmp(v, "lattice") || !strcmp(v, "box")))
            lattice = !strcmp(v, "lattice");
        else if (!strcmp(f->args[a], "side") && (!strcmp(v, "in") || !strcmp(v, "out")))
            side = v;
        else
            return fail(sc, "fix indent: '%s %s': mdlite takes side in|out and units lattice|box", f->args[a], v);
    }
    double k;
    MDL_TRY(script_number(sc, f->args[0], &k));
    MDL_TRY(buf_addf(out, "%sindent %s %.17g %s", out->len ? ", " : "", f->group, k, shape));
    const int axis = sphere ? -1 : f->args[2][0] - 'x';
    if (!sphere && (strlen(f->args[2]) != 1 || axis < 0 || axis > 2))
        return fail(sc, "fix indent %s: '%s': the axis is x, y or z", shape, f->args[2]);
    if (!sphere)
        MDL_TRY(buf_addf(out, " %s", f->args[2]));
    double move[3] = {0, 0, 0};
    for (int a = sphere ? 0 : 1; a < (plane ? 2 : 4); a++) { /* each value's dimension, for its scale */
        const int d = sphere ? (a < 3 ? a : 0) : plane ? axis : a == 3 ? 0 : a == 1 ? (axis == 0 ? 1 : 0) : (axis == 2 ? 1 : 2);
        const char *word = f->args[2 + a];
        double v;
        if (word[0] == 'v' && word[1] == '_') { /* a coordinate of the step (LAMMPS's, not scaled by units) */
            if (a == 3 || reset_given(sc))
                return fail(sc, "fix indent: %s: %s", word, a != 3 ? "after a reset_timestep (mdlite's "
                            "indenter moves with the run's own step)" : "a radius of a variable: mdlite's stays as given");
            MDL_TRY(script_linear_in_step(sc, word + 2, &v, &move[d]));
            MDL_TRY(buf_addf(out, " %.17g", v));
            continue;
        }
        MDL_TRY(script_number(sc, word, &v));
        MDL_TRY(buf_addf(out, " %.17g", lattice && sc->lattice[0] ? v * sc->crystal.spacing[d] : v));
    }
    if (plane)
        MDL_TRY(buf_addf(out, " %s", f->args[4]));
    MDL_TRY(buf_addf(out, " side %s energy %s", side, f->energy ? "yes" : "no"));
    if (move[0] != 0 || move[1] != 0 || move[2] != 0)
        MDL_TRY(buf_addf(out, " move %.17g %.17g %.17g", move[0], move[1], move[2]));
    return buf_addf(out, " id %s", f->id);
}

/* A thermostat that may act on a group (ensembles.h's MDL_ON_GROUP). */
static int group_thermostat_style(const char *style)
{
    const int id = ensemble_of_lammps_thermostat(style);
    return id >= 0 && (ensemble_reads(id) & MDL_ON_GROUP);
}

int script_fix_takes_group(const char *style)
{
    return script_force_fix_style(style) || group_thermostat_style(style);
}

const char *script_group_fix_styles(char *out, size_t size)
{
    size_t n = (size_t)snprintf(out, size, "setforce, addforce, aveforce, indent, wall/lj93, wall/lj126, wall/harmonic, viscous");
    for (int id = 0; id < MDL_NENSEMBLES && n < size; id++)
        if ((ensemble_reads(id) & MDL_ON_GROUP) && ensemble_info(id)->lammps_fix)
            n += (size_t)snprintf(out + n, size - n, ", %s", ensemble_info(id)->lammps_fix);
    return out;
}

/* One force fix's words: FX FY FZ, numbers or NULL (addforce: numbers), no keywords. */
static int force_fix_words(script *sc, const script_fix *f, mdl_buf *out)
{
    if (!strcmp(f->style, "indent"))
        return indent_words(sc, f, out);
    if (script_wall_fix_style(f->style))
        return wall_words(sc, f, out);
    if (!strcmp(f->style, "viscous"))
        return viscous_words(sc, f, out);
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
    const char *cmd = sc->cmd;
    for (int k = 0; k < sc->nfix && rc == MDL_OK; k++) {
        const script_fix *f = &sc->fixes[k];
        if (!script_force_fix_style(f->style))
            continue;
        sc->cmd = "fix";
        /* LAMMPS adds the forces of its fixes in their order: a force fix before Langevin's is not
           one mdlite's order (the thermostat's force, then the force fixes) gives */
        sc->line = f->line; /* messages name the fix's line */
        if (thermostat && !strcmp(thermostat->style, "langevin") && f->made < thermostat->made)
            rc = fail(sc, "fix %s before fix langevin (line %d): mdlite adds Langevin's force first; define the "
                          "fix after it", f->style, thermostat->line);
        else
            rc = force_fix_words(sc, f, &fixes);
    }
    sc->line = line, sc->cmd = cmd;
    if (rc == MDL_OK && fixes.len)
        rc = setf(sc, "run", "force_fixes", "%s", fixes.s);
    buf_free(&fixes);
    MDL_TRY(rc);
    char group[32], comp[4] = "";
    if (thermostat && thermostat->temp[0] && !script_temp_compute(sc, thermostat->temp, group, comp))
        comp[0] = '\0';
    if (!thermostat || (!strcmp(thermostat->group, "all") && !comp[0]))
        return MDL_OK;
    return setf(sc, "run", "thermostat_group", "%s%s%s", thermostat->group, comp[0] ? " " : "", comp);
}

/* fix_modify ID temp C: the thermostat's temperature from compute temp C, on the fix's own group;
   fix_modify ID energy yes|no: fix indent's or a wall's energy in pe. */
int script_cmd_fix_modify(script *sc, char **w, int nw)
{
    script_fix *f = NULL;
    for (int k = 0; nw >= 2 && k < sc->nfix && !f; k++)
        f = !strcmp(sc->fixes[k].id, w[1]) ? &sc->fixes[k] : NULL;
    if (nw == 4 && !strcmp(w[2], "energy") && (!strcmp(w[3], "yes") || !strcmp(w[3], "no"))) {
        if (!f)
            return fail(sc, "no fix %s (LAMMPS: could not find fix_modify ID)", w[1]);
        if (strcmp(f->style, "indent") != 0 && !script_wall_fix_style(f->style))
            return fail(sc, "fix %s is a %s: mdlite counts the energy of fix indent and the walls alone", w[1], f->style);
        f->energy = !strcmp(w[3], "yes");
        return MDL_OK;
    }
    if (nw != 4 || strcmp(w[2], "temp") != 0)
        return fail(sc, "mdlite takes fix_modify ID temp COMPUTE (a thermostat's temperature) and fix_modify ID energy "
                        "yes|no (fix indent's and the walls')");
    if (!f)
        return fail(sc, "no fix %s (LAMMPS: could not find fix_modify ID)", w[1]);
    char group[32], comp[4];
    if (!script_temp_compute(sc, w[3], group, comp))
        return fail(sc, "no compute temp %s (LAMMPS: could not find fix_modify temperature ID)", w[3]);
    if (!group_thermostat_style(f->style))
        return fail(sc, "fix %s is a %s: mdlite takes fix_modify temp on thermostats", w[1], f->style);
    if (comp[0] && !strcmp(f->style, "langevin"))
        return fail(sc, "compute %s is a temp/partial: mdlite's Langevin acts on every velocity component (a scaling "
                        "thermostat takes one: temp/rescale, temp/berendsen, temp/csvr)", w[3]);
    if (strcmp(group, f->group) != 0)
        return fail(sc, "compute %s is on group %s, fix %s on group %s: mdlite's thermostat measures the group it "
                        "acts on", w[3], group, w[1], f->group);
    snprintf(f->temp, sizeof f->temp, "%s", w[3]);
    return MDL_OK;
}

int script_thermo_temp(script *sc, const char *id)
{
    /* LAMMPS's thermo computes a temperature for these keywords alone (its index_temp) */
    static const char *const uses[] = {"temp", "ke", "etotal", "enthalpy", "econserve"};
    const setting *cols = settings_find(&sc->now, "thermo_columns");
    int used = !cols; /* thermo_style one, LAMMPS's default, shows temp */
    for (size_t k = 0; cols && !used && k < sizeof uses / sizeof uses[0]; k++) {
        const size_t n = strlen(uses[k]);
        for (const char *p = strstr(cols->value, uses[k]); p && !used; p = strstr(p + 1, uses[k]))
            used = (p == cols->value || p[-1] == ' ') && (p[n] == ' ' || !p[n]);
    }
    if (!used)
        return fail(sc, "temp %s: the thermo style has no temp, ke, etotal, enthalpy or econserve (LAMMPS: thermo style "
                        "does not use temp)", id);
    char group[32], comp[4];
    if (!script_temp_compute(sc, id, group, comp))
        return fail(sc, "temp %s: no compute temp of that ID (LAMMPS: could not find thermo_modify temperature ID)",
                    id);
    const char *sep = comp[0] ? " " : ""; /* temp/partial: the components its temperature counts */
    MDL_TRY(setf(sc, "output", "thermo_pressure_group", "%s%s%s", group, sep, comp)); /* LAMMPS's thermo_press keeps it */
    return setf(sc, "output", "thermo_group", "%s%s%s", group, sep, comp);
}

/* LAMMPS's fix wall/reflect in a script: the walls of the fixes in force at a run, as [run] wall_reflect. */
#include "lammps_script_state.h"

#include <string.h>

/* fix wall/reflect FACE COORD ... [units lattice|box] into [run] wall_reflect (box units: LAMMPS's default
   units lattice scales a coordinate by the lattice spacing along its face's dimension). */
static int wall_keys(script *sc, const script_fix *f, mdl_buf *out)
{
    int n = f->nargs, lattice = 1;
    if (n >= 2 && !strcmp(f->args[n - 2], "units")) {
        lattice = !strcmp(f->args[n - 1], "lattice");
        if (!lattice && strcmp(f->args[n - 1], "box"))
            return fail(sc, "fix wall/reflect units %s: box or lattice (line %d)", f->args[n - 1], f->line);
        n -= 2;
    }
    if (n < 2 || n % 2)
        return fail(sc, "fix wall/reflect: expected FACE COORD pairs, then units box|lattice (line %d)", f->line);
    for (int k = 0; k < n; k += 2) {
        const char *face = f->args[k], *c = f->args[k + 1];
        double v;
        const int d = face[0] - 'x';
        if (!strcmp(c, "EDGE") || d < 0 || d > 2) { /* a face that is not one: [run] wall_reflect names it */
            MDL_TRY(buf_addf(out, "%s%s %s", out->len ? " " : "", face, c));
            continue;
        }
        if (c[0] == 'v' && c[1] == '_')
            return fail(sc, "fix wall/reflect %s %s: a wall at a variable's coordinate is not taken (line %d)", face, c,
                        f->line);
        MDL_TRY(script_number(sc, c, &v));
        if (lattice && !sc->lattice[0])
            return fail(sc, "fix wall/reflect in lattice units without a lattice (LAMMPS: use of fix wall with "
                            "undefined lattice; line %d)", f->line);
        MDL_TRY(buf_addf(out, "%s%s %.17g", out->len ? " " : "", face, lattice ? v * sc->crystal.spacing[d] : v));
    }
    return MDL_OK;
}

int script_walls(script *sc)
{
    settings_drop(&sc->now, "wall_reflect");
    mdl_buf walls = {0};
    int rc = MDL_OK, line = sc->line, at = 0;
    for (int k = 0; k < sc->nfix && rc == MDL_OK; k++)
        if (!strcmp(sc->fixes[k].style, "wall/reflect"))
            rc = wall_keys(sc, &sc->fixes[k], &walls), at = at ? at : sc->fixes[k].line;
    sc->line = at ? at : line; /* [run] wall_reflect's checks name the first fix's line */
    if (rc == MDL_OK && walls.len)
        rc = setf(sc, "run", "wall_reflect", "%s", walls.s);
    sc->line = line;
    buf_free(&walls);
    return rc;
}

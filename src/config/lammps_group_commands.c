/* The LAMMPS commands that name atoms by where they are or what they are, into mdlite's keys: group
   (its IDs: the fixes, computes and velocity commands that act on a group other than all refuse it
   by name), set (types by type or by block region, before the first run: [system] set_types), and
   balance (how LAMMPS shares the box between processors: no number changes). */
#include "lammps_script_state.h"

#include "../util/util.h"

#include <string.h>

static int group_exists(const script *sc, const char *id)
{
    if (!strcmp(id, "all"))
        return 1;
    const size_t n = strlen(id);
    for (const char *p = sc->groups.s; p && *p; p = strchr(p, '\n') + 1)
        if (!strncmp(p, id, n) && p[n] == '\n')
            return 1;
    return 0;
}

/* group ID type T... | region R | union|subtract|intersect G... | empty: the ID kept. */
static int cmd_group(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 2, 1000));
    if (!sc->box_made)
        return fail(sc, "before the box exists: LAMMPS refuses it");
    const char *how = w[2];
    if (!strcmp(how, "type")) {
        if (nw < 4)
            return fail(sc, "group %s type: no types", w[1]);
        for (int k = 3; k < nw; k++) {
            long t;
            MDL_TRY(script_count(sc, w[k], 1, sc->ntypes, &t));
        }
    } else if (!strcmp(how, "region")) {
        MDL_TRY(expect_args(sc, nw, 3, 3));
        if (script_find_region(sc, w[3]) < 0)
            return fail(sc, "no region %s (LAMMPS: group region ID does not exist)", w[3]);
    } else if (!strcmp(how, "union") || !strcmp(how, "subtract") || !strcmp(how, "intersect")) {
        if (nw < 4 + (strcmp(how, "union") != 0))
            return fail(sc, "group %s %s: too few groups", w[1], how);
        for (int k = 3; k < nw; k++)
            if (!group_exists(sc, w[k]))
                return fail(sc, "no group %s (LAMMPS: group ID does not exist)", w[k]);
    } else if (strcmp(how, "empty") != 0) {
        return fail(sc, "group %s %s: mdlite takes type, region, union, subtract, intersect and empty", w[1], how);
    }
    if (!strcmp(w[1], "all"))
        return fail(sc, "group all is every atom (LAMMPS: cannot redefine it this way)");
    return group_exists(sc, w[1]) ? MDL_OK : buf_addf(&sc->groups, "%s\n", w[1]);
}

/* set type T type N | set region R type N (a block: inside with its faces, as LAMMPS's RegBlock) |
   set group all type N: an edit of [system] set_types, applied in order once the atoms are made. */
static int cmd_set(script *sc, char **w, int nw)
{
    if (nw != 5 || strcmp(w[3], "type") != 0)
        return fail(sc, "mdlite takes 'set type T type N', 'set region ID type N' and 'set group all type N'");
    if (!sc->atoms_made)
        return fail(sc, "before the atoms exist (LAMMPS: set command before simulation box is defined)");
    if (sc->nruns)
        return fail(sc, "after a run: mdlite sets types before the first run");
    long n, t = 0;
    MDL_TRY(script_count(sc, w[4], 1, sc->ntypes, &n));
    mdl_buf edit = {0};
    const setting *old = settings_find(&sc->now, "set_types");
    int rc = buf_addf(&edit, "%s%s", old ? old->value : "", old ? ", " : "");
    if (!strcmp(w[1], "type")) {
        MDL_TRY(script_count(sc, w[2], 1, sc->ntypes, &t));
        rc = rc ? rc : buf_addf(&edit, "type %ld %ld", t, n);
    } else if (!strcmp(w[1], "region")) {
        const int k = script_find_region(sc, w[2]);
        if (k < 0)
            rc = fail(sc, "no region %s (LAMMPS: set region ID does not exist)", w[2]);
        else if (sc->regions[k].prism)
            rc = fail(sc, "region %s is a prism: mdlite sets types in block regions", w[2]);
        const double *b = k >= 0 ? sc->regions[k].b : NULL;
        rc = rc ? rc : buf_addf(&edit, "block %.17g %.17g %.17g %.17g %.17g %.17g %ld", b[0], b[1], b[2], b[3], b[4], b[5], n);
    } else if (!strcmp(w[1], "group") && !strcmp(w[2], "all")) {
        rc = rc ? rc : buf_addf(&edit, "all %ld", n);
    } else {
        rc = fail(sc, "set %s %s: mdlite sets the types of a type, of a block region or of group all", w[1], w[2]);
    }
    if (rc == MDL_OK)
        rc = setf(sc, "system", "set_types", "%s", edit.s);
    buf_free(&edit);
    return rc;
}

/* balance THRESH STYLE ...: LAMMPS moves its processors' boundaries; mdlite's bricks are its own. */
static int cmd_balance(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 2, 1000));
    if (!sc->box_made)
        return fail(sc, "before the box exists (LAMMPS: balance command before simulation box is defined)");
    double thresh;
    MDL_TRY(script_number(sc, w[1], &thresh));
    if (!(thresh >= 1.0))
        return fail(sc, "'%s': the threshold is at least 1.0 (LAMMPS: illegal balance command)", w[1]);
    return MDL_OK;
}

int lammps_group_command(script *sc, char **w, int nw)
{
    if (!strcmp(w[0], "group"))
        return cmd_group(sc, w, nw);
    if (!strcmp(w[0], "set"))
        return cmd_set(sc, w, nw);
    if (!strcmp(w[0], "balance"))
        return cmd_balance(sc, w, nw);
    return 1;
}

/* LAMMPS's dump commands in a script: dump ID all h5md|xyz|atom|custom N FILE [fields or columns],
   undump ID, dump_modify ID sort id|off (mdlite writes its frames in id order). */
#include "lammps_script_state.h"

#include <stdlib.h>
#include <string.h>

int script_cmd_dump(script *sc, char **w, int nw)
{
    if (!strcmp(w[0], "undump")) {
        MDL_TRY(expect_args(sc, nw, 1, 1));
        if (!settings_find(&sc->now, "trajectory") || strcmp(sc->dump_id, w[1]))
            return fail(sc, "no dump %s (LAMMPS: could not find undump ID)", w[1]);
        static const char *const keys[] = {"trajectory", "dump_every", "dump_fields", "dump_columns"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            settings_drop(&sc->now, keys[k]);
        sc->dump_id[0] = '\0';
        return MDL_OK;
    }
    const char *style = nw > 3 ? w[3] : "";
    if (nw < 6 || strcmp(w[2], "all") != 0 ||
        (strcmp(style, "h5md") && strcmp(style, "xyz") && strcmp(style, "atom") && strcmp(style, "custom")))
        return fail(sc, "mdlite takes 'dump ID all h5md N FILE [position velocity force image]', 'dump ID all "
                        "xyz N FILE', 'dump ID all atom N FILE' or 'dump ID all custom N FILE COLUMNS...'");
    if (!strcmp(style, "custom") && nw < 7)
        return fail(sc, "dump custom: no columns (LAMMPS: illegal dump custom command)");
    if (!strcmp(style, "atom") && nw > 6)
        return fail(sc, "dump atom takes no columns");
    if (settings_find(&sc->now, "trajectory"))
        return fail(sc, "a second dump: mdlite writes one trajectory");
    long n;
    MDL_TRY(script_count(sc, w[4], 1, 2000000000L, &n));
    char *path = script_path(sc, w[5]);
    int rc = path ? setf(sc, "output", "trajectory", "%s", path) : MDL_ERUN;
    free(path);
    MDL_TRY(rc);
    MDL_TRY(setf(sc, "output", "dump_every", "%s", w[4]));
    snprintf(sc->dump_id, sizeof sc->dump_id, "%s", w[1]);
    if (!strcmp(style, "atom")) /* LAMMPS's dump atom: scaled positions, no images */
        return setf(sc, "output", "dump_columns", "id type xs ys zs");
    if (!strcmp(style, "custom")) /* [output] dump_columns checks the words */
        return setf_words(sc, "output", "dump_columns", w, 6, nw);
    if (!strcmp(style, "h5md") && nw > 6)
        return setf_words(sc, "output", "dump_fields", w, 6, nw);
    if (nw > 6)
        return fail(sc, "an xyz dump takes no fields");
    return MDL_OK;
}

int script_cmd_dump_modify(script *sc, char **w, int nw)
{
    if (nw < 2 || !sc->dump_id[0] || strcmp(w[1], sc->dump_id))
        return fail(sc, "no dump %s (LAMMPS: could not find dump_modify ID)", nw > 1 ? w[1] : "");
    for (int k = 2; k < nw; k += 2) {
        const char *v = k + 1 < nw ? w[k + 1] : NULL;
        /* LAMMPS's dump writes its atoms in no set order unless sorted: mdlite's id order is both */
        if (!strcmp(w[k], "sort") && v && (!strcmp(v, "id") || !strcmp(v, "off")))
            continue;
        return fail(sc, "dump_modify %s%s%s: mdlite takes sort id or sort off (its frames are in id order)", w[k],
                    v ? " " : "", v ? v : "");
    }
    return nw > 2 ? MDL_OK : fail(sc, "dump_modify %s: no keyword (LAMMPS: illegal dump_modify command)", w[1]);
}

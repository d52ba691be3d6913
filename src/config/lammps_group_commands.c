/* The LAMMPS commands that name atoms by where they are or what they are, into mdlite's keys: group
   (its definitions as [system] groups, made before the first run), set (types by type, by block
   region or by group, before the first run: [system] set_types), compute temp (a group's
   temperature, which other commands name), and balance (how LAMMPS shares the box between
   processors: no number changes). */
#include "lammps_script_state.h"

#include "../util/util.h"

#include <string.h>

/* Whether id is one of list's lines. */
static int listed(const mdl_buf *list, const char *id)
{
    const size_t n = strlen(id);
    for (const char *p = list->s; p && *p; p = strchr(p, '\n') + 1)
        if (!strncmp(p, id, n) && p[n] == '\n')
            return 1;
    return 0;
}

int script_group_exists(const script *sc, const char *id)
{
    return !strcmp(id, "all") || listed(&sc->groups, id);
}

int script_compute_size(const script *sc, const char *id, size_t n)
{
    for (const char *p = sc->thermo_computes.s; p && *p; p = strchr(p, ';') + 1)
        if (!strncmp(p, id, n) && p[n] == ' ') { /* "ID STYLE GROUP ARGS;" */
            char style[32] = "";
            sscanf(p + n + 1, "%31s", style);
            const char *end = strchr(p, ';');
            int words = 0;
            for (const char *q = p; q < end; q++)
                words += *q == ' ';
            return !strncmp(style, "temp", 4) ? 6 : !strcmp(style, "com") ? 3 : !strcmp(style, "reduce") ? words - 3 : 1;
        }
    return 0;
}

int script_temp_compute(const script *sc, const char *id, char group[32], char components[4])
{
    const size_t n = strlen(id);
    for (const char *p = sc->computes.s; p && *p; p = strchr(p, '\n') + 1)
        if (!strncmp(p, id, n) && p[n] == ' ') { /* "ID GROUP" or "ID GROUP COMPONENTS" */
            const char *g = p + n + 1;
            const size_t len = strcspn(g, " \n"), k = g[len] == ' ' ? strcspn(g + len + 1, "\n") : 0;
            memcpy(group, g, len < 31 ? len : 31);
            group[len < 31 ? len : 31] = '\0';
            if (components) {
                memcpy(components, g + len + 1, k < 3 ? k : 3);
                components[k < 3 ? k : 3] = '\0';
            }
            return 1;
        }
    return 0;
}

/* A definition appended to [system] groups, in order (LAMMPS's group adds atoms to an ID made before). */
static int add_definition(script *sc, const char *id, const char *fmt_words, int typed)
{
    if (typed && !listed(&sc->typed_groups, id))
        MDL_TRY(buf_addf(&sc->typed_groups, "%s\n", id));
    else if (!typed && listed(&sc->typed_groups, id))
        return fail(sc, "group %s has a definition of types before: mdlite makes the groups of types after every set "
                        "command, the others before them; define this first", id);
    const setting *old = settings_find(&sc->now, "groups");
    MDL_TRY(setf(sc, "system", "groups", "%s%s%s %s", old ? old->value : "", old ? ", " : "", id, fmt_words));
    return script_group_exists(sc, id) ? MDL_OK : buf_addf(&sc->groups, "%s\n", id);
}

/* group ID type T... | id I|A:B... | region R (a block) | union|subtract|intersect G... | empty: a
   [system] groups definition, made once the atoms are (before the first run). */
static int cmd_group(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 2, 1000));
    if (!sc->box_made)
        return fail(sc, "before the box exists: LAMMPS refuses it");
    if (!strcmp(w[1], "all"))
        return fail(sc, "group all is every atom (LAMMPS: cannot redefine it this way)");
    if (sc->nruns)
        return fail(sc, "after a run: mdlite makes its groups once, from the atoms as they are before the first run");
    if (!sc->atoms_made && strcmp(w[2], "empty") != 0)
        return fail(sc, "before the atoms exist: mdlite makes a group from atoms (LAMMPS's group would be empty)");
    if (strlen(w[1]) >= 32 || w[1][0] == '-' ||
        strspn(w[1], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(w[1]))
        return fail(sc, "group %s: mdlite takes IDs of letters, digits, '_' and '-' (not first), at most 31", w[1]);
    const char *how = w[2];
    mdl_buf words = {0};
    /* types before any set command are those the atoms were made with: made before set_types, in order */
    const int made = !strcmp(how, "type") && !settings_find(&sc->now, "set_types");
    int rc = MDL_OK, typed = !strcmp(how, "type") && !made;
    if (!strcmp(how, "type") || !strcmp(how, "id")) {
        if (nw < 4)
            rc = fail(sc, "group %s %s: no %ss", w[1], how, how);
        for (int k = 3; k < nw && rc == MDL_OK; k++) {
            long t, hi;
            char *colon = strchr(w[k], ':');
            if (colon && how[0] == 'i')
                *colon = '\0';
            rc = script_count(sc, w[k], 1, how[0] == 't' ? sc->ntypes : 2147483647L, &t);
            if (rc == MDL_OK && colon && how[0] == 'i')
                rc = script_count(sc, colon + 1, t, 2147483647L, &hi), *colon = ':';
            if (rc == MDL_OK)
                rc = buf_addf(&words, " %s", w[k]);
        }
    } else if (!strcmp(how, "region")) {
        MDL_TRY(expect_args(sc, nw, 3, 3));
        mdl_buf def = {0};
        rc = script_region_words(sc, w[3], "group", &def);
        rc = rc ? rc : add_definition(sc, w[1], buf_str(&def), 0);
        buf_free(&def);
        return rc;
    } else if (!strcmp(how, "union") || !strcmp(how, "subtract") || !strcmp(how, "intersect")) {
        if (nw < 4 + (strcmp(how, "union") != 0))
            return fail(sc, "group %s %s: too few groups", w[1], how);
        for (int k = 3; k < nw && rc == MDL_OK; k++) {
            rc = !script_group_exists(sc, w[k]) ? fail(sc, "no group %s (LAMMPS: group ID does not exist)", w[k])
                                                : buf_addf(&words, " %s", w[k]);
            typed |= listed(&sc->typed_groups, w[k]);
        }
    } else if (strcmp(how, "empty") != 0) {
        return fail(sc, "group %s %s: mdlite takes type, id, region, union, subtract, intersect and empty", w[1], how);
    }
    if (rc == MDL_OK) {
        mdl_buf def = {0};
        rc = buf_addf(&def, "%s%s", made ? "made_type" : how, buf_str(&words));
        rc = rc ? rc : add_definition(sc, w[1], buf_str(&def), typed);
        buf_free(&def);
    }
    buf_free(&words);
    return rc;
}

/* The words w[1..nw) of a compute, as [output] thermo_computes has them ("ID STYLE GROUP ARGS;"). */
static int setf_words_to(mdl_buf *out, char **w, int nw)
{
    MDL_TRY(buf_addf(out, "%s %s %s", w[1], w[3], w[2]));
    for (int k = 4; k < nw; k++)
        MDL_TRY(buf_addf(out, " %s", w[k]));
    return buf_add(out, ";");
}

/* compute ID GROUP ke|temp/com|com|pe|ke/atom|pe/atom|orientorder/atom, and reduce MODE INPUTS: for thermo's c_ID columns and
   formulas (the rest refused by style). */
static int thermo_compute(script *sc, char **w, int nw)
{
    static const char *const bare[] = {"ke", "temp/com", "com", "ke/atom", "pe", "pe/atom"};
    int known = 0;
    for (size_t k = 0; k < sizeof bare / sizeof bare[0]; k++)
        known |= !strcmp(w[3], bare[k]) && nw == 4;
    if (!strcmp(w[3], "pe") && strcmp(w[2], "all") != 0)
        return fail(sc, "compute pe on group %s (LAMMPS: compute pe must use group all)", w[2]);
    known |= !strcmp(w[3], "orientorder/atom"); /* its keywords: [output] thermo_computes reads them */
    if (!strcmp(w[3], "reduce") && nw >= 6) {
        for (int k = 5; k < nw; k++) {
            if (!strcmp(w[k], "replace") || !strcmp(w[k], "inputs"))
                return fail(sc, "compute reduce's keyword %s: mdlite takes MODE and its inputs alone", w[k]);
            if (strchr(w[k], '*') || !strncmp(w[k], "v_", 2) || !strncmp(w[k], "f_", 2))
                return fail(sc, "compute reduce %s: mdlite reduces x y z vx vy vz fx fy fz, c_ID of a compute ke/atom or "
                                "pe/atom and c_ID[k] of an orientorder/atom (no wildcard, variable or fix)", w[k]);
        }
        known = 1;
    }
    if (!known)
        return fail(sc, "compute %s: mdlite takes compute temp, temp/partial XFLAG YFLAG ZFLAG, temp/com, ke, pe, com, "
                        "ke/atom, pe/atom, orientorder/atom and reduce MODE INPUTS (thermo's c_ID; a temp also for thermo_modify "
                        "temp, fix_modify temp and velocity's temp)", w[3]);
    return setf_words_to(&sc->thermo_computes, w, nw);
}

/* compute ID GROUP temp: a temperature on a group, for thermo_modify temp, fix_modify temp and
   velocity's temp keyword; compute ID GROUP property/atom i_NAME|d_NAME ...: defined, its values
   (a fix property/atom's, which nothing mdlite runs sets) never read (another compute is refused by
   its style). */
static int cmd_compute(script *sc, char **w, int nw)
{
    if (nw < 4)
        return fail(sc, "expected 'compute ID GROUP STYLE ...'");
    char g[32];
    if (script_temp_compute(sc, w[1], g, NULL) || listed(&sc->unread_computes, w[1]) ||
        script_compute_size(sc, w[1], strlen(w[1])))
        return fail(sc, "compute %s exists already (LAMMPS refuses a second one of that ID)", w[1]);
    if (!strcmp(w[3], "property/atom") && nw > 4) {
        for (int a = 4; a < nw; a++)
            if (strncmp(w[a], "i_", 2) && strncmp(w[a], "d_", 2))
                return fail(sc, "compute property/atom %s: mdlite takes the custom values of fix property/atom (i_NAME, "
                                "d_NAME), defined and not read", w[a]);
        if (!script_group_exists(sc, w[2]))
            return fail(sc, "no group %s (LAMMPS: could not find compute group ID)", w[2]);
        return buf_addf(&sc->unread_computes, "%s\n", w[1]);
    }
    const int partial = !strcmp(w[3], "temp/partial") && nw == 7;
    if (!script_group_exists(sc, w[2]))
        return fail(sc, "no group %s (LAMMPS: could not find compute group ID)", w[2]);
    if (strchr(w[1], ' ') || strlen(w[1]) > 31)
        return fail(sc, "compute %s: mdlite takes IDs of at most 31 characters", w[1]);
    if ((strcmp(w[3], "temp") != 0 || nw != 4) && !partial)
        return thermo_compute(sc, w, nw);
    MDL_TRY(setf_words_to(&sc->thermo_computes, w, nw));
    char comp[4] = "";
    for (int d = 0; d < 3 && partial; d++) {
        long flag;
        MDL_TRY(script_count(sc, w[4 + d], 0, 1, &flag));
        if (flag && d == 2 && sc->dimension == 2)
            return fail(sc, "temp/partial with vz in a 2-d system (LAMMPS: compute temp/partial cannot use vz for 2d "
                            "systems)");
        if (flag)
            strncat(comp, &"xyz"[d], 1);
    }
    if (partial && !comp[0])
        return fail(sc, "temp/partial of no velocity component: no degree of freedom to count");
    return buf_addf(&sc->computes, "%s %s%s%s\n", w[1], w[2], comp[0] ? " " : "", comp);
}

int script_keyword_given(char **w, int nw, int from, const char *key)
{
    for (int k = from; k < nw; k += 2)
        if (!strcmp(w[k], key))
            return 1;
    return 0;
}

/* velocity's keywords from w[from]: each one mdlite takes with its allowed values ("*": any word; a
   temp compute's ID resolved to its group), the others refused. units box|lattice sets *lattice. */
static int velocity_keywords(script *sc, char **w, int nw, int from, const char *allowed, mdl_buf *out, int *lattice)
{
    *lattice = 1;
    for (int k = from; k < nw; k += 2) {
        const char *key = w[k], *v = k + 1 < nw ? w[k + 1] : "";
        char group[32], comp[4], pair[80];
        snprintf(pair, sizeof pair, " %s %s ", key, v);
        const int any = !strcmp(key, "temp") && strstr(allowed, " temp * ");
        if (!strstr(allowed, pair) && !any) {
            char list[256], *o = list; /* the allowed pairs, comma-separated */
            for (const char *a = allowed + 1; *a && o < list + sizeof list - 2; a++)
                if (a[0] == ' ' && a[1] == ' ')
                    *o++ = ',', *o++ = ' ', a++;
                else if (a[1] || a[0] != ' ')
                    *o++ = *a;
            *o = '\0';
            return fail(sc, "'%s %s': mdlite's velocity %s takes %s", key, v, w[2], list);
        }
        if (!strcmp(key, "units"))
            *lattice = !strcmp(v, "lattice");
        else if (!strcmp(key, "temp") && !script_temp_compute(sc, v, group, comp))
            return fail(sc, "temp %s: no compute temp of that ID (LAMMPS: could not find velocity temperature ID)", v);
        else if (!strcmp(key, "temp")) /* temp/partial: its components (velocity's bias no, LAMMPS's default) */
            MDL_TRY(buf_addf(out, " temp %s%s%s", group, comp[0] ? " components " : "", comp));
        else if (!strcmp(key, "loop") || !strcmp(key, "dist") || !strcmp(key, "sum"))
            MDL_TRY(buf_addf(out, " %s %s", key, v));
    }
    return MDL_OK;
}

/* A value of velocity set or ramp in box units: units lattice (LAMMPS's default) scales it by the
   lattice's spacing along d (no lattice: 1, LAMMPS's lattice none 1.0). */
static int velocity_value(script *sc, const char *word, int d, int lattice, mdl_buf *out)
{
    if (!strcmp(word, "NULL"))
        return buf_addf(out, " NULL");
    double v;
    MDL_TRY(script_number(sc, word, &v));
    return buf_addf(out, " %.17g", lattice && sc->lattice[0] ? v * sc->crystal.spacing[d] : v);
}

/* After a run LAMMPS's atoms lie as its last neighbor build (every run's set-up makes one) left them:
   one that crossed a periodic face since is outside the box, where loop geom's hash and a ramp's
   coordinate see it; mdlite's stages build on their own schedule, and wrap. */
static int after_run_velocity(script *sc, char **w, int nw, int ramp)
{
    for (int k = 5; k + 1 < nw && !strcmp(w[2], "create"); k += 2)
        if (!strcmp(w[k], "loop") && !strcmp(w[k + 1], "geom"))
            return fail(sc, "velocity create loop geom after a run: LAMMPS hashes each atom's position as its last "
                            "neighbor build left it, outside the box for an atom that crossed a periodic face since; "
                            "mdlite takes loop all there");
    const setting *b = settings_find(&sc->now, "boundary");
    const char *face = b ? b->value : "p p p"; /* dimension d's word of "X Y Z" */
    ramp = ramp && strchr("xyz", w[6][0]) && w[6][0] && !w[6][1]; /* else the ramp's own check says why */
    for (int d = ramp ? w[6][0] - 'x' : 0; d > 0; d--)
        face += strcspn(face, " ") + 1;
    if (ramp && face[0] == 'p' && (face[1] == ' ' || !face[1]))
        return fail(sc, "velocity ramp along periodic %s after a run: LAMMPS reads each atom's coordinate as its last "
                        "neighbor build left it, outside the box for an atom that crossed the face since; mdlite "
                        "takes a ramp along a non-periodic dimension there", w[6]);
    return MDL_OK;
}

int script_velocity_edit(script *sc, char **w, int nw)
{
    if (!script_group_exists(sc, w[1]))
        return fail(sc, "no group %s (LAMMPS: could not find velocity group ID)", w[1]);
    const char *st = w[2];
    static const char *const common = " mom yes  rot no  units box  units lattice  bias no  rigid no ";
    mdl_buf args = {0}, keys = {0};
    char allowed[256];
    int lattice, rc = MDL_OK;
    const int create = !strcmp(st, "create"), set = !strcmp(st, "set"), ramp = !strcmp(st, "ramp"),
              scale = !strcmp(st, "scale");
    const int nargs = create ? 2 : set ? 3 : ramp ? 6 : scale ? 1 : -1;
    if (nargs < 0 || nw < 3 + nargs)
        return fail(sc, "velocity %s: mdlite takes create T SEED, set VX VY VZ, ramp VDIM VLO VHI DIM CLO CHI and scale T",
                    st);
    snprintf(allowed, sizeof allowed, "%s%s", common,
             create ? " dist uniform  dist gaussian  loop all  loop geom  sum no  temp * "
             : scale ? " temp * " : " sum no  sum yes ");
    rc = velocity_keywords(sc, w, nw, 3 + nargs, allowed, &keys, &lattice);
    if (rc == MDL_OK && sc->nruns)
        rc = after_run_velocity(sc, w, nw, ramp);
    for (int k = 0; k < nargs && rc == MDL_OK; k++) {
        if (ramp && (k == 0 || k == 3)) { /* vx|vy|vz and x|y|z */
            const char *d = w[3 + k] + (k == 0);
            if ((k == 0 && w[3][0] != 'v') || !strchr("xyz", d[0]) || !d[0] || d[1])
                rc = fail(sc, "velocity ramp: '%s': expected %s", w[3 + k], k ? "x, y or z" : "vx, vy or vz");
            else
                rc = buf_addf(&args, " %s", w[3 + k]);
        } else if (set || ramp) {
            const int d = set ? k : k < 3 ? w[3][1] - 'x' : w[6][0] - 'x';
            rc = velocity_value(sc, w[3 + k], d, lattice, &args);
        } else {
            double v;
            rc = script_number(sc, w[3 + k], &v);
            rc = rc ? rc : buf_addf(&args, " %s", w[3 + k]);
        }
    }
    if (rc == MDL_OK) { /* after a run: the next run's own, made as it begins */
        const char *key = sc->nruns ? "stage_velocity_edits" : "velocity_edits";
        const setting *old = settings_find(&sc->now, key);
        rc = setf(sc, sc->nruns ? "run" : "system", key, "%s%s%s %s%s%s", old ? old->value : "", old ? ", " : "", st,
                  w[1], buf_str(&args), buf_str(&keys));
    }
    buf_free(&args);
    buf_free(&keys);
    return rc;
}

/* set type T type N | set region R type N (a block: inside with its faces, as LAMMPS's RegBlock) |
   set group all type N: an edit of [system] set_types, applied in order once the atoms are made. */
static int cmd_set(script *sc, char **w, int nw)
{
    if (nw != 5 || strcmp(w[3], "type") != 0)
        return fail(sc, "mdlite takes 'set type T type N', 'set region ID type N' and 'set group ID type N'");
    if (!sc->atoms_made)
        return fail(sc, "before the atoms exist (LAMMPS: set command before simulation box is defined)");
    if (sc->nruns)
        return fail(sc, "after a run: mdlite sets types before the first run");
    if (sc->typed_groups.len) /* their atoms are made after every set, from the types it leaves */
        return fail(sc, "after a group of types (%.*s): mdlite makes such groups after every set command; set the "
                        "types first", (int)strcspn(sc->typed_groups.s, "\n"), sc->typed_groups.s);
    long n, t = 0;
    MDL_TRY(script_count(sc, w[4], 1, sc->ntypes, &n));
    mdl_buf edit = {0};
    const setting *old = settings_find(&sc->now, "set_types");
    int rc = buf_addf(&edit, "%s%s", old ? old->value : "", old ? ", " : "");
    if (!strcmp(w[1], "type")) {
        MDL_TRY(script_count(sc, w[2], 1, sc->ntypes, &t));
        rc = rc ? rc : buf_addf(&edit, "type %ld %ld", t, n);
    } else if (!strcmp(w[1], "region")) {
        rc = rc ? rc : script_region_words(sc, w[2], "set", &edit);
        rc = rc ? rc : buf_addf(&edit, " %ld", n);
    } else if (!strcmp(w[1], "group") && !strcmp(w[2], "all")) {
        rc = rc ? rc : buf_addf(&edit, "all %ld", n);
    } else if (!strcmp(w[1], "group")) {
        if (!script_group_exists(sc, w[2]))
            rc = fail(sc, "no group %s (LAMMPS: set group ID does not exist)", w[2]);
        rc = rc ? rc : buf_addf(&edit, "group %s %ld", w[2], n);
    } else {
        rc = fail(sc, "set %s %s: mdlite sets the types of a type, of a region or of a group", w[1], w[2]);
    }
    if (rc == MDL_OK)
        rc = setf(sc, "system", "set_types", "%s", edit.s);
    buf_free(&edit);
    return rc;
}

/* delete_atoms region R [compress yes]: [system] delete_atoms, made once the velocities are (after
   every group, set and velocity command: their ids are the atoms' before it). */
static int cmd_delete_atoms(script *sc, char **w, int nw)
{
    if (nw < 3 || strcmp(w[1], "region") != 0 || (nw != 3 && !(nw == 5 && !strcmp(w[3], "compress") && !strcmp(w[4], "yes"))))
        return fail(sc, "mdlite takes 'delete_atoms region ID [compress yes]' (ids made 1 .. N again, as LAMMPS's "
                        "default)");
    if (!sc->atoms_made || sc->nruns)
        return fail(sc, sc->nruns ? "after a run: mdlite deletes atoms before the first run"
                                  : "before the atoms exist (LAMMPS: delete_atoms command before simulation box is defined)");
    mdl_buf words = {0};
    const setting *old = settings_find(&sc->now, "delete_atoms");
    int rc = buf_addf(&words, "%s%s", old ? old->value : "", old ? ", " : "");
    rc = rc ? rc : script_region_words(sc, w[2], "delete_atoms", &words);
    rc = rc ? rc : setf(sc, "system", "delete_atoms", "%s", words.s);
    buf_free(&words);
    MDL_TRY(rc);
    /* before any velocity command: deleted before the velocities are made, which may follow it */
    const int velocities = sc->velocity_made || settings_find(&sc->now, "velocity_edits");
    if (velocities && settings_find(&sc->now, "delete_atoms_first"))
        return fail(sc, "delete_atoms after a velocity command that followed another delete_atoms: mdlite deletes "
                        "atoms at one point, before the velocities or after them");
    sc->deleted = velocities ? 1 : 2;
    return velocities ? MDL_OK : setf(sc, "system", "delete_atoms_first", "true");
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
    if (!strcmp(w[0], "compute"))
        return cmd_compute(sc, w, nw);
    if (!strcmp(w[0], "delete_atoms"))
        return cmd_delete_atoms(sc, w, nw);
    if (sc->deleted && !sc->nruns && (!strcmp(w[0], "group") || !strcmp(w[0], "set") ||
                                      (!strcmp(w[0], "velocity") && sc->deleted == 1)))
        return fail(sc, "%s after delete_atoms: mdlite deletes atoms after every group and set command%s (the ids they "
                    "name are those before it)", w[0], sc->deleted == 1 ? " and after the velocity commands before it" : "");
    if (!strcmp(w[0], "balance"))
        return cmd_balance(sc, w, nw);
    return 1;
}

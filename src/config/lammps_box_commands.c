/* The LAMMPS commands that make the box and its atoms, into mdlite's [system] keys: lattice (its
   styles and keywords), region block and prism (in lattice or box units), create_box (an
   orthogonal or a triclinic box), create_atoms TYPE box. */
#include "lammps_script_state.h"

#include "../physics/region.h"
#include "../physics/box.h"

#include <math.h>
#include <stdlib.h>

/* lattice STYLE SCALE keywords: parsed as LAMMPS parses them; the checks LAMMPS makes at once
   (orient vectors, basis fractions) are the [system] keys' when create_atoms sets them. */
static int lattice_keyword(script *sc, char **w, int nw, int *k)
{
    mdl_lattice_spec *sp = &sc->lat;
    const char *key = w[*k];
    const int custom = !strcmp(sc->lattice, "custom");
    double v[3];
    if (!strcmp(key, "orient")) {
        if (*k + 4 >= nw || strlen(w[*k + 1]) != 1 || !strchr("xyz", w[*k + 1][0]))
            return fail(sc, "orient takes x, y or z and three integers");
        const int d = w[*k + 1][0] - 'x';
        for (int e = 0; e < 3; e++) {
            long n;
            MDL_TRY(script_count(sc, w[*k + 2 + e], -10000, 10000, &n));
            sp->orient[3 * d + e] = (int)n;
        }
        *k += 5;
        return MDL_OK;
    }
    if (*k + 3 >= nw)
        return fail(sc, "%s takes three numbers", key);
    for (int e = 0; e < 3; e++)
        MDL_TRY(script_number(sc, w[*k + 1 + e], &v[e]));
    *k += 4;
    if (!strcmp(key, "origin")) {
        for (int e = 0; e < 3; e++)
            if (!(v[e] >= 0 && v[e] < 1))
                return fail(sc, "origin: each fraction lies in [0, 1) (LAMMPS: illegal lattice command)");
        memcpy(sp->origin, v, sizeof v);
    } else if (!strcmp(key, "spacing")) {
        for (int e = 0; e < 3; e++)
            if (!(v[e] > 0 && v[e] <= 1e30))
                return fail(sc, "spacing: each spacing is above 0 (LAMMPS: lattice spacings are invalid)");
        memcpy(sp->spacing, v, sizeof v);
    } else if ((!strcmp(key, "a1") || !strcmp(key, "a2") || !strcmp(key, "a3")) && custom) {
        memcpy(sp->a[key[1] - '1'], v, sizeof v);
    } else if (!strcmp(key, "basis") && custom) {
        if (sc->lat_basis.n == MDL_MAX_BASIS)
            return fail(sc, "more than %d basis atoms", MDL_MAX_BASIS);
        for (int e = 0; e < 3; e++)
            if (!(v[e] >= 0 && v[e] < 1))
                return fail(sc, "basis: each fraction lies in [0, 1) (LAMMPS: illegal lattice command)");
        memcpy(sc->lat_basis.v[sc->lat_basis.n++], v, sizeof v);
    } else {
        return fail(sc, "'%s': %s", key, custom || strcmp(key, "basis") ? "not a keyword of lattice (origin, orient, "
                    "spacing, a1 a2 a3 basis)" : "a1 a2 a3 and basis belong to lattice custom (LAMMPS: invalid option "
                    "for a non-custom style)");
    }
    return MDL_OK;
}

static int cmd_lattice(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 2, 2 + 1000));
    if (!crystal_style_known(w[1]))
        return fail(sc, "%s: mdlite builds the 3-d lattices sc, bcc, fcc, hcp, diamond and custom, and the 2-d sq, sq2 "
                    "and hex", w[1]);
    const int dim = sc->dimension == 2 ? 2 : 3;
    if (strcmp(w[1], "custom") ? crystal_style_dimension(w[1]) != dim : dim == 2)
        return fail(sc, "%s in %d-d: %s", w[1], dim, strcmp(w[1], "custom") ? "LAMMPS: lattice style incompatible with "
                    "simulation dimension" : "mdlite's custom lattices are 3-d");
    double v;
    MDL_TRY(script_number(sc, w[2], &v));
    if (!(v >= 1e-30 && v <= 1e30))
        return fail(sc, "the scale %s must lie within [1e-30, 1e30]", w[2]);
    snprintf(sc->lattice, sizeof sc->lattice, "%s", w[1]);
    sc->lattice_made++;
    mdl_lattice_spec *sp = &sc->lat;
    *sp = (mdl_lattice_spec){sc->lattice, 0, 0, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, &sc->lat_basis,
                             {1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}, {0, 0, 0}};
    sc->lat_basis.n = 0;
    if (strcmp(sc->units, "lj") == 0) /* LAMMPS: in lj units the scale is a reduced density; else the edge */
        sp->density = v;
    else
        sp->scale = v;
    for (int k = 3; k < nw;)
        MDL_TRY(lattice_keyword(sc, w, nw, &k));
    if (!strcmp(sc->lattice, "custom") && sc->lat_basis.n == 0)
        return fail(sc, "a custom lattice with no basis atoms (LAMMPS: no basis atoms in lattice)");
    const int *o = sp->orient;
    for (int r = 0; r < 3; r++)
        for (int q = r + 1; q < 3; q++)
            if (o[3 * r] * o[3 * q] + o[3 * r + 1] * o[3 * q + 1] + o[3 * r + 2] * o[3 * q + 2])
                return fail(sc, "orient: the vectors of %c and %c are not orthogonal (LAMMPS: lattice orient vectors "
                            "are not orthogonal)", "xyz"[r], "xyz"[q]);
    const long cx = (long)o[1] * o[5] - (long)o[2] * o[4], cy = (long)o[2] * o[3] - (long)o[0] * o[5],
               cz = (long)o[0] * o[4] - (long)o[1] * o[3];
    if (cx * o[6] + cy * o[7] + cz * o[8] <= 0)
        return fail(sc, "orient: the vectors are not right-handed, or one is zero (LAMMPS refuses them)");
    if (dim == 2 && (sp->origin[2] != 0 || o[2] || o[5] || o[6] || o[7]))
        return fail(sc, "in 2-d the origin's z is 0 and orient z is 0 0 1 (LAMMPS: lattice settings are not "
                        "compatible with 2d simulation)");
    crystal_make(sp, &sc->crystal);
    if (!(crystal_cell_volume(&sc->crystal) > 0) || !isfinite(crystal_cell_volume(&sc->crystal)))
        return fail(sc, "a1 a2 a3 make a cell of no volume (LAMMPS: degenerate or collinear primitive vectors)");
    return MDL_OK;
}

/* A region's bound or coordinate: INF (LAMMPS's -BIG or BIG: upper is its sign) or EDGE (the box's face d),
   else a number, scaled by the lattice's spacing along d in lattice units. */
static int region_bound(script *sc, script_region *r, const char *word, int face, int lattice_units, double *v)
{
    const int d = face / 2;
    if (!strcmp(word, "INF") || !strcmp(word, "EDGE")) {
        if (word[0] == 'E' && !sc->box_made)
            return fail(sc, "region %s: EDGE before the box exists (LAMMPS: cannot use region INF or EDGE when box "
                            "does not exist)", r->id);
        const script_region *own = word[0] == 'E' ? &sc->regions[sc->box_region] : NULL;
        *v = own ? own->b[face] : face % 2 ? 1.0e20 : -1.0e20;
        r->unbounded |= !own;
        return MDL_OK;
    }
    MDL_TRY(script_number(sc, word, v));
    *v *= lattice_units ? sc->crystal.spacing[d] : 1.0;
    return MDL_OK;
}

/* A sphere's X Y Z R or a cylinder's DIM C1 C2 R LO HI into r (LAMMPS's scales: a centre's coordinates
   by their spacings, a radius by x's, or y's for a cylinder along x). */
static int round_region(script *sc, script_region *r, char **w, int lattice_units)
{
    const double *sp = sc->crystal.spacing;
    const double s = lattice_units ? 1.0 : 0.0;
    if (r->shape == MDL_REGION_SPHERE) {
        for (int d = 0; d < 3; d++) {
            MDL_TRY(script_number(sc, w[d], &r->c[d]));
            r->c[d] *= s ? sp[d] : 1.0;
        }
        MDL_TRY(script_number(sc, w[3], &r->r));
        r->r *= s ? sp[0] : 1.0;
    } else {
        if (strlen(w[0]) != 1 || !strchr("xyz", w[0][0]))
            return fail(sc, "region %s cylinder: '%s': its axis is x, y or z", r->id, w[0]);
        r->axis = w[0][0] - 'x';
        const int d1 = r->axis == 0 ? 1 : 0, d2 = r->axis == 2 ? 1 : 2;
        MDL_TRY(script_number(sc, w[1], &r->c[d1]));
        MDL_TRY(script_number(sc, w[2], &r->c[d2]));
        MDL_TRY(script_number(sc, w[3], &r->r));
        r->c[d1] *= s ? sp[d1] : 1.0, r->c[d2] *= s ? sp[d2] : 1.0, r->r *= s ? sp[d1] : 1.0;
        MDL_TRY(region_bound(sc, r, w[4], 2 * r->axis, lattice_units, &r->lo));
        MDL_TRY(region_bound(sc, r, w[5], 2 * r->axis + 1, lattice_units, &r->hi));
    }
    if (!(r->r >= 0))
        return fail(sc, "region %s: a radius of 0 or more (LAMMPS: illegal region command)", r->id);
    return MDL_OK;
}

/* region ID block|prism|sphere|cylinder ARGS [side in|out] [units lattice|box]: kept in box units. */
/* *out: a new region of that ID, zeroed (counted once the caller has filled it); a failure where the ID
   is taken. */
static int new_region(script *sc, const char *id, script_region **out)
{
    for (int k = 0; k < sc->nregion; k++)
        if (!strcmp(sc->regions[k].id, id))
            return fail(sc, "region %s exists already (LAMMPS refuses a second one of that ID)", id);
    if (sc->nregion == sc->region_cap) {
        int cap = 2 * sc->region_cap + 4;
        script_region *r = mdl_realloc(sc->regions, (size_t)cap * sizeof *r, "regions");
        if (!r)
            return MDL_ERUN;
        sc->regions = r, sc->region_cap = cap;
    }
    script_region *r = &sc->regions[sc->nregion];
    memset(r, 0, sizeof *r);
    *out = r;
    return (r->id = mdl_strdup(id)) ? MDL_OK : MDL_ERUN;
}

/* region ID intersect|union N ID1 ... IDN [side in|out] [units box|lattice]: of regions made before it,
   each a block, sphere or cylinder (one level: a part that is itself joined is refused). */
static int cmd_region_join(script *sc, char **w, int nw)
{
    long n;
    if (nw < 4 || mdl_parse_long(w[3], &n) != 0 || n < 2 || n > MDL_REGION_PARTS || nw < 4 + n)
        return fail(sc, "region ID %s N ID ...: mdlite takes 2 to %d regions", w[2], MDL_REGION_PARTS);
    int parts[MDL_REGION_PARTS], out = 0;
    for (int k = 0; k < n; k++) {
        parts[k] = script_find_region(sc, w[4 + k]);
        const script_region *p = parts[k] >= 0 ? &sc->regions[parts[k]] : NULL;
        if (!p)
            return fail(sc, "no region %s (LAMMPS: region %s region ID does not exist)", w[4 + k], w[2]);
        if (p->nparts || p->prism)
            return fail(sc, "region %s is %s: mdlite's %s joins blocks, spheres and cylinders", w[4 + k],
                        p->prism ? "a prism" : "itself joined", w[2]);
    }
    for (int k = 4 + (int)n; k < nw; k += 2) {
        const char *v = k + 1 < nw ? w[k + 1] : "";
        if (!strcmp(w[k], "side") && (!strcmp(v, "in") || !strcmp(v, "out")))
            out = !strcmp(v, "out");
        else if (strcmp(w[k], "units") || (strcmp(v, "box") && strcmp(v, "lattice")))
            return fail(sc, "'%s %s' after the regions: mdlite takes 'side in|out' and 'units lattice|box'", w[k], v);
    }
    script_region *r;
    MDL_TRY(new_region(sc, w[1], &r));
    r->nparts = (int)n, r->any = w[2][0] == 'u', r->out = out;
    memcpy(r->parts, parts, sizeof parts);
    sc->nregion++;
    return MDL_OK;
}

static int cmd_region(script *sc, char **w, int nw)
{
    const char *st = nw >= 3 ? w[2] : "";
    if (!strcmp(st, "intersect") || !strcmp(st, "union"))
        return cmd_region_join(sc, w, nw);
    const int prism = !strcmp(st, "prism"), shape = !strcmp(st, "sphere") ? MDL_REGION_SPHERE
                                                     : !strcmp(st, "cylinder") ? MDL_REGION_CYLINDER : 0;
    const int nb = prism ? 12 : shape == MDL_REGION_SPHERE ? 7 : 9;
    if ((!prism && !shape && strcmp(st, "block")) || nw < nb)
        return fail(sc, "mdlite takes 'region ID block xlo xhi ylo yhi zlo zhi', 'prism xlo xhi ylo yhi zlo zhi xy xz "
                        "yz', 'sphere x y z r' and 'cylinder dim c1 c2 r lo hi', each with [side in|out] [units "
                        "lattice|box], and 'intersect|union N ID ...'");
    int lattice_units = 1, out = 0;
    for (int k = nb; k < nw; k += 2) {
        const char *v = k + 1 < nw ? w[k + 1] : "";
        if (!strcmp(w[k], "units") && (!strcmp(v, "box") || !strcmp(v, "lattice")))
            lattice_units = !strcmp(v, "lattice");
        else if (!strcmp(w[k], "side") && (!strcmp(v, "in") || !strcmp(v, "out")) && !prism)
            out = !strcmp(v, "out");
        else
            return fail(sc, "'%s %s' after the bounds: mdlite takes 'side in|out' (not on a prism) and 'units "
                            "lattice|box'", w[k], v);
    }
    if (lattice_units && !sc->lattice[0])
        return fail(sc, "a region in lattice units needs a lattice command before it (LAMMPS: use of region with "
                        "undefined lattice)");
    script_region *r;
    MDL_TRY(new_region(sc, w[1], &r));
    r->shape = shape, r->out = out, r->prism = prism;
    int rc = shape ? round_region(sc, r, w + 3, lattice_units) : MDL_OK;
    for (int d = 0; d < 6 && !shape && rc == MDL_OK; d++)
        rc = region_bound(sc, r, w[3 + d], d, lattice_units, &r->b[d]);
    for (int k = 0; prism && k < 3 && rc == MDL_OK; k++) { /* LAMMPS: xy and xz in x's spacing, yz in y's */
        rc = script_number(sc, w[9 + k], &r->tilt[k]);
        r->tilt[k] *= lattice_units ? sc->crystal.spacing[k < 2 ? 0 : 1] : 1.0;
    }
    for (int d = 0; d < 3 && !shape && rc == MDL_OK; d++) /* a flat block is LAMMPS's too (a box is not) */
        if (!(r->b[2 * d + 1] >= r->b[2 * d]))
            rc = fail(sc, "region %s: %clo above %chi (LAMMPS: illegal region block command)", w[1], "xyz"[d], "xyz"[d]);
    if (rc != MDL_OK) {
        free(r->id);
        return rc;
    }
    sc->nregion++;
    return MDL_OK;
}

/* The words of a simple region (flip: its side turned over). */
static int simple_region_words(script *sc, const script_region *r, int flip, const char *what, mdl_buf *out)
{
    if (r->prism)
        return fail(sc, "region %s is a prism: mdlite's %s takes block, sphere and cylinder regions", r->id, what);
    if (r->shape == MDL_REGION_SPHERE)
        MDL_TRY(buf_addf(out, "sphere %.17g %.17g %.17g %.17g", r->c[0], r->c[1], r->c[2], r->r));
    else if (r->shape == MDL_REGION_CYLINDER)
        MDL_TRY(buf_addf(out, "cylinder %c %.17g %.17g %.17g %.17g %.17g", "xyz"[r->axis], r->c[r->axis == 0 ? 1 : 0],
                         r->c[r->axis == 2 ? 1 : 2], r->r, r->lo, r->hi));
    else
        MDL_TRY(buf_addf(out, "block %.17g %.17g %.17g %.17g %.17g %.17g", r->b[0], r->b[1], r->b[2], r->b[3], r->b[4],
                         r->b[5]));
    return r->out != flip ? buf_addf(out, " out") : MDL_OK;
}

/* Region r's words (physics/region.h's), appended to out. */
static int region_words(script *sc, const script_region *r, const char *what, mdl_buf *out)
{
    if (!r->nparts)
        return simple_region_words(sc, r, 0, what, out);
    for (int p = 0; p < r->nparts; p++) { /* side out of a join: each part turned over, and/or swapped (De Morgan) */
        if (p)
            MDL_TRY(buf_addf(out, r->any != r->out ? " or " : " and "));
        MDL_TRY(simple_region_words(sc, &sc->regions[r->parts[p]], r->out, what, out));
    }
    return MDL_OK;
}

int script_region_words(script *sc, const char *id, const char *what, mdl_buf *out)
{
    const int k = script_find_region(sc, id);
    if (k < 0)
        return fail(sc, "no region %s (LAMMPS: %s region ID does not exist)", id, what);
    return region_words(sc, &sc->regions[k], what, out);
}


int script_find_region(script *sc, const char *id)
{
    for (int k = 0; k < sc->nregion; k++)
        if (!strcmp(sc->regions[k].id, id))
            return k;
    return -1;
}

/* create_box N REGION: the box of the region (a prism's: triclinic), within LAMMPS's tilt limits. */
static int cmd_create_box(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 2, 2));
    long n;
    if (sc->box_made)
        return fail(sc, "the box exists already");
    if (mdl_parse_long(w[1], &n) != 0 || n < 1 || n > 8)
        return fail(sc, "'%s': mdlite takes 1 to 8 atom types", w[1]);
    const int k = script_find_region(sc, w[2]);
    if (k < 0)
        return fail(sc, "no region %s", w[2]);
    const script_region *r = &sc->regions[k];
    if (r->shape || r->out || r->nparts)
        return fail(sc, "region %s: mdlite makes the box of a block or prism region (side in)", w[2]);
    if (r->unbounded)
        return fail(sc, "region %s has an INF bound (LAMMPS: create_box region does not support a bounding box)", w[2]);
    for (int d = 0; d < 3; d++)
        if (!(r->b[2 * d + 1] > r->b[2 * d]))
            return fail(sc, "region %s is flat along %c: a box has a volume (LAMMPS: illegal simulation box)", w[2],
                        "xyz"[d]);
    mdl_box b = {{r->b[0], r->b[2], r->b[4]}, {r->b[1] - r->b[0], r->b[3] - r->b[2], r->b[5] - r->b[4]}, {1, 1, 1},
                 {r->tilt[0], r->tilt[1], r->tilt[2]}, 0};
    const char *why = box_tilt_unfit(&b);
    if (why)
        return fail(sc, "region %s: %s", w[2], why);
    sc->ntypes = (int)n;
    sc->box_made = 1;
    sc->box_region = k;
    free(sc->pair_set);
    if (!(sc->pair_set = mdl_calloc((size_t)(n * n), 1, "pairs")))
        return MDL_ERUN;
    MDL_TRY(setf(sc, "system", "box", "%.17g %.17g %.17g", b.len[0], b.len[1], b.len[2]));
    if (b.lo[0] != 0 || b.lo[1] != 0 || b.lo[2] != 0)
        MDL_TRY(setf(sc, "system", "box_origin", "%.17g %.17g %.17g", b.lo[0], b.lo[1], b.lo[2]));
    if (r->prism) /* LAMMPS's box is triclinic from a prism region, its tilts 0 or not */
        MDL_TRY(setf(sc, "system", "tilt", "%.17g %.17g %.17g", b.tilt[0], b.tilt[1], b.tilt[2]));
    return MDL_OK;
}

/* The lattice's keys: its style and scale, and the keywords that differ from the defaults. */
static int lattice_keys(script *sc)
{
    const mdl_lattice_spec *sp = &sc->lat;
    const int *o = sp->orient;
    MDL_TRY(setf(sc, "system", "lattice", "%s", sc->lattice));
    MDL_TRY(setf(sc, "system", "lattice_constant", "%.17g", sc->crystal.scale));
    static const int axes[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    if (memcmp(o, axes, sizeof axes))
        MDL_TRY(setf(sc, "system", "lattice_orient", "%d %d %d %d %d %d %d %d %d", o[0], o[1], o[2], o[3], o[4], o[5],
                     o[6], o[7], o[8]));
    if (sp->origin[0] != 0 || sp->origin[1] != 0 || sp->origin[2] != 0)
        MDL_TRY(setf(sc, "system", "lattice_origin", "%.17g %.17g %.17g", sp->origin[0], sp->origin[1], sp->origin[2]));
    if (sp->spacing[0] > 0)
        MDL_TRY(setf(sc, "system", "lattice_spacing", "%.17g %.17g %.17g", sp->spacing[0], sp->spacing[1],
                     sp->spacing[2]));
    if (strcmp(sc->lattice, "custom"))
        return MDL_OK;
    for (int k = 0; k < 3; k++) {
        const char *key = k == 0 ? "lattice_a1" : k == 1 ? "lattice_a2" : "lattice_a3";
        MDL_TRY(setf(sc, "system", key, "%.17g %.17g %.17g", sp->a[k][0], sp->a[k][1], sp->a[k][2]));
    }
    mdl_buf basis = {0};
    for (int b = 0; b < sc->lat_basis.n; b++)
        if (buf_addf(&basis, "%s%.17g %.17g %.17g", b ? " " : "", sc->lat_basis.v[b][0], sc->lat_basis.v[b][1],
                     sc->lat_basis.v[b][2]) != MDL_OK) {
            buf_free(&basis);
            return MDL_ERUN;
        }
    int rc = setf(sc, "system", "lattice_basis", "%s", buf_str(&basis));
    buf_free(&basis);
    return rc;
}

/* Whether the atoms made so far have been named, edited or deleted (a later create_atoms would add atoms
   that those commands never saw: the INI makes them once all atoms are). */
static const char *atoms_touched(script *sc)
{
    static const char *keys[] = {"groups", "set_types", "velocity_edits", "delete_atoms", "velocities", "temperature"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (settings_find(&sc->now, keys[k]))
            return keys[k];
    return NULL;
}

/* The species keys: every type of the box, its atoms all of type t (one create_atoms of the whole box),
   or (t 0) the types of [system] lattice_regions. */
static int species_keys(script *sc, long t)
{
    if (sc->ntypes == 1 && t)
        return setf(sc, "system", "species", "1");
    mdl_buf names = {0}, fractions = {0};
    int rc = MDL_OK;
    for (int k = 1; k <= sc->ntypes && rc == MDL_OK; k++)
        if ((rc = buf_addf(&names, "%s%d", k > 1 ? " " : "", k)) == MDL_OK)
            rc = buf_addf(&fractions, "%s%d", k > 1 ? " " : "", k == t);
    if (!t)
        settings_drop(&sc->now, "composition");
    if (rc == MDL_OK && (rc = setf(sc, "system", "species", "%s", buf_str(&names))) == MDL_OK)
        rc = t ? setf(sc, "system", "composition", "%s", buf_str(&fractions))
               : setf(sc, "system", "lattice_regions", "%s", buf_str(&sc->fills));
    buf_free(&names), buf_free(&fractions);
    return rc;
}

/* create_atoms TYPE box | region R: the lattice's points in the box, or in region R ([system]
   lattice_regions), one command after another with one lattice. */
static int cmd_create_atoms(script *sc, char **w, int nw)
{
    const int box = nw == 3 && !strcmp(w[2], "box");
    if (!box && !(nw == 4 && !strcmp(w[2], "region")))
        return fail(sc, "mdlite takes 'create_atoms TYPE box' and 'create_atoms TYPE region ID' (no keywords)");
    if (!sc->box_made || !sc->lattice[0] || (sc->atoms_made && !sc->nfills))
        return fail(sc, sc->atoms_made ? "atoms created after read_data: mdlite makes them one way"
                                       : !sc->box_made ? "no create_box before" : "no lattice before (LAMMPS: cannot "
                                                                                  "create atoms with undefined lattice)");
    const char *touched = sc->nfills ? atoms_touched(sc) : NULL;
    if (touched)
        return fail(sc, "atoms created after commands that named or edited those before them ([system] %s): mdlite "
                        "makes every atom first", touched);
    if (sc->nfills && sc->lattice_made != sc->fill_lattice)
        return fail(sc, "a lattice command since the first create_atoms: mdlite fills every region from one lattice");
    long t;
    MDL_TRY(script_count(sc, w[1], 1, sc->ntypes, &t));
    const int k = box ? -1 : script_find_region(sc, w[3]);
    const script_region *r = k >= 0 ? &sc->regions[k] : NULL, *own = &sc->regions[sc->box_region];
    const int whole = box || (r && !memcmp(r->b, own->b, sizeof r->b) && !memcmp(r->tilt, own->tilt, sizeof r->tilt) &&
                              r->prism == own->prism && !r->shape && !r->out && !r->nparts);
    MDL_TRY(buf_addf(&sc->fills, "%s%ld ", sc->nfills ? ", " : "", t));
    MDL_TRY(whole ? buf_addf(&sc->fills, "box") : script_region_words(sc, w[3], "create_atoms", &sc->fills));
    if (!sc->nfills++) {
        sc->atoms_made = 1, sc->fill_lattice = sc->lattice_made, sc->fill_whole = whole ? t : 0;
        MDL_TRY(lattice_keys(sc));
    }
    return species_keys(sc, sc->nfills == 1 ? sc->fill_whole : 0);
}

int lammps_box_command(script *sc, char **w, int nw)
{
    static const struct {
        const char *name;
        int (*fn)(script *, char **, int);
    } table[] = {{"lattice", cmd_lattice}, {"region", cmd_region}, {"create_box", cmd_create_box},
                 {"create_atoms", cmd_create_atoms}};
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        if (!strcmp(table[k].name, w[0]))
            return table[k].fn(sc, w, nw);
    return 1;
}

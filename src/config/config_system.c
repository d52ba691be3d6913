/* The [system] keys' cross-checks: a lattice or an input file, the lattice's keys (style, scale,
   cells or a box, orientation, a custom cell), the box's origin and tilts, the boundary. */
#define _POSIX_C_SOURCE 200809L
#include "config_schema.h"
#include "../physics/boundary.h"

#include <math.h>
#include <string.h>

/* Each of keys[] that is set: refused with why. */
static int refuse_set(const mdl_config *cfg, const char *const *keys, int n, const char *why)
{
    int ok = 1;
    for (int k = 0; k < n; k++) {
        const mdl_entry *e = config_find_entry(cfg, "system", keys[k]);
        if (e) {
            config_fail(e, "%s", why);
            ok = 0;
        }
    }
    return ok;
}

/* lattice_orient: three nonzero rows, mutually orthogonal, right-handed (LAMMPS's checks). */
static int check_orient(const mdl_config *cfg)
{
    const int *o = cfg->lattice_orient;
    const mdl_entry *e = config_find_entry(cfg, "system", "lattice_orient");
    if (!e)
        return 1;
    for (int r = 0; r < 3; r++)
        if (!o[3 * r] && !o[3 * r + 1] && !o[3 * r + 2]) {
            config_fail(e, "the orient vector of %c is zero", "xyz"[r]);
            return 0;
        }
    for (int r = 0; r < 3; r++) {
        const int *a = o + 3 * r, *b = o + 3 * ((r + 1) % 3);
        if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) {
            config_fail(e, "the orient vectors of %c and %c are not orthogonal (LAMMPS: lattice orient vectors are "
                        "not orthogonal)", "xyz"[r], "xyz"[(r + 1) % 3]);
            return 0;
        }
    }
    const long cx = (long)o[1] * o[5] - (long)o[2] * o[4], cy = (long)o[2] * o[3] - (long)o[0] * o[5],
               cz = (long)o[0] * o[4] - (long)o[1] * o[3];
    if (cx * o[6] + cy * o[7] + cz * o[8] <= 0) {
        config_fail(e, "x cross y points away from z: the orient vectors are not right-handed (LAMMPS refuses them)");
        return 0;
    }
    return 1;
}

/* A custom lattice's cell: a basis, and a1 a2 a3 neither collinear nor coplanar. */
static int check_custom(const mdl_config *cfg)
{
    mdl_entry tmp;
    if (cfg->lattice_basis.n == 0) {
        config_fail(config_entry_or_file(cfg, "system", "lattice_basis", &tmp),
                    "missing: lattice = custom needs its basis atoms (lattice_basis = x y z ...)");
        return 0;
    }
    const double(*a)[3] = cfg->lattice_a;
    const double c[3] = {a[1][1] * a[2][2] - a[1][2] * a[2][1], a[1][2] * a[2][0] - a[1][0] * a[2][2],
                         a[1][0] * a[2][1] - a[1][1] * a[2][0]};
    const double volume = a[0][0] * c[0] + a[0][1] * c[1] + a[0][2] * c[2];
    if (!(fabs(volume) > 0) || !isfinite(volume)) {
        config_fail(config_entry_or_file(cfg, "system", "lattice_a1", &tmp),
                    "lattice_a1, lattice_a2 and lattice_a3 make a cell of no volume (collinear or coplanar)");
        return 0;
    }
    return 1;
}

/* With a lattice: its scale, cells or a box, the orientation, the custom cell. */
static int check_lattice(const mdl_config *cfg)
{
    mdl_entry tmp;
    const mdl_entry *den = config_find_entry(cfg, "system", "density"), *lc = config_find_entry(cfg, "system", "lattice_constant");
    const mdl_entry *cells = config_find_entry(cfg, "system", "cells"), *box = config_find_entry(cfg, "system", "box");
    int ok = 1;
    if (den && lc) {
        config_fail(lc, "contradicts density (%s): give one of them", den->origin);
        ok = 0;
    }
    if (!den && !lc) {
        config_fail(config_entry_or_file(cfg, "system", "density", &tmp), "missing: a lattice needs density or lattice_constant");
        ok = 0;
    }
    if (cells && box) {
        config_fail(box, "contradicts cells (%s): the lattice fills either NX NY NZ of its cells or this box", cells->origin);
        ok = 0;
    }
    if (!cells && !box) {
        config_fail(config_entry_or_file(cfg, "system", "cells", &tmp),
                    "missing: a lattice needs cells = NX NY NZ, or a box (box = Lx Ly Lz) that it fills");
        ok = 0;
    }
    if (cells) {
        static const char *const with_box[] = {"box_origin", "tilt"};
        ok &= refuse_set(cfg, with_box, 2, "only with box = Lx Ly Lz (cells make a box from 0 along the lattice's spacings)");
    }
    for (int d = 0; d < 3; d++)
        if (cfg->lattice_origin[d] >= 1) {
            config_fail(config_find_entry(cfg, "system", "lattice_origin"), "each fraction lies in [0, 1)");
            ok = 0;
            break;
        }
    ok &= check_orient(cfg);
    if (strcmp(cfg->lattice, "custom") == 0)
        return ok && check_custom(cfg);
    static const char *const custom[] = {"lattice_a1", "lattice_a2", "lattice_a3", "lattice_basis"};
    return ok & refuse_set(cfg, custom, 4, "only with lattice = custom (the other lattices have their own cells)");
}

int config_boundary(const mdl_config *cfg, int face[3][2], const char **why)
{
    return boundary_parse(cfg->boundary[0] ? cfg->boundary : "p p p", face, why);
}

static const char *const COLUMN[] = {"id", "type", "x", "y", "z", "xs", "ys", "zs", "xu", "yu", "zu", "ix", "iy", "iz",
                                     "vx", "vy", "vz", "fx", "fy", "fz", "mass"};

int config_dump_columns(const char *text, int *cols, int *n, int *fields, const char **bad)
{
    char word[32];
    *n = 0, *fields = MDL_DUMP_POSITION, *bad = NULL;
    for (const char *p = text; *p;) {
        p += strspn(p, " \t");
        const size_t len = strcspn(p, " \t");
        if (!len)
            break;
        snprintf(word, sizeof word, "%.*s", (int)(len < sizeof word ? len : sizeof word - 1), p);
        int c = 0;
        while (c < MDL_COL_COUNT && (strlen(COLUMN[c]) != len || strncmp(COLUMN[c], p, len)))
            c++;
        if (c == MDL_COL_COUNT || *n == MDL_DUMP_MAX_COLUMNS) {
            *bad = p;
            return 0;
        }
        cols[(*n)++] = c;
        *fields |= c >= MDL_COL_XU && c < MDL_COL_VX ? MDL_DUMP_IMAGE : c >= MDL_COL_VX && c < MDL_COL_FX ? MDL_DUMP_VELOCITY
                   : c >= MDL_COL_FX && c < MDL_COL_MASS ? MDL_DUMP_FORCE : 0;
        p += len;
    }
    return *n > 0;
}

const char *config_dump_column_name(int c)
{
    return COLUMN[c];
}

int config_lammps_dump(mdl_config *cfg)
{
    const mdl_entry *e = config_find_entry(cfg, "output", "dump_columns");
    int cols[MDL_DUMP_MAX_COLUMNS], n, fields;
    const char *bad, *t = cfg->trajectory;
    if (!config_dump_columns(cfg->dump_columns, cols, &n, &fields, &bad))
        return config_fail(e, "'%.*s': LAMMPS's dump custom columns mdlite writes are id type x y z xs ys zs xu yu zu "
                           "ix iy iz vx vy vz fx fy fz mass (at most %d)", bad ? (int)strcspn(bad, " \t") : 0,
                           bad ? bad : "", MDL_DUMP_MAX_COLUMNS), 0;
    const char *why = !t[0] ? "no [output] trajectory to write them into"
                      : mdl_has_suffix(t, ".h5") || mdl_has_suffix(t, ".h5md") || mdl_has_suffix(t, ".xyz")
                          ? "the trajectory's name says H5MD or extended XYZ, not a LAMMPS dump"
                      : config_find_entry(cfg, "output", "dump_fields") ? "with dump_fields (the columns say the fields)"
                      : cfg->unwrapped ? "with positions = unwrapped (the columns xu yu zu are the unwrapped ones)" : NULL;
    if (why)
        return config_fail(e, "%s", why), 0;
    cfg->dump_fields = fields;
    return 1;
}

int config_read_walls(mdl_config *cfg)
{
    const mdl_entry *e = config_find_entry(cfg, "run", "wall_reflect");
    char text[MDL_PATH_LEN], *save = NULL;
    int face[3][2];
    const char *why;
    mdl_copy(text, sizeof text, cfg->wall_keys);
    memset(&cfg->walls, 0, sizeof cfg->walls);
    if (!config_boundary(cfg, face, &why))
        return 0;
    for (char *f = strtok_r(text, " \t", &save); f; f = strtok_r(NULL, " \t", &save)) {
        const char *c = strtok_r(NULL, " \t", &save);
        int k = 0, n = cfg->walls.n;
        while (k < 6 && strcmp(boundary_face_name(k), f))
            k++;
        double v = 0;
        const int edge = c && !strcmp(c, "EDGE");
        why = k == 6 || !c ? "expected FACE COORD pairs: a face xlo, xhi, ylo, yhi, zlo or zhi and a coordinate or EDGE"
              : !edge && mdl_parse_double(c, &v) != 0 ? "a wall's coordinate is a number (box units) or EDGE"
              : face[k / 2][k % 2] == MDL_FACE_P ? "a wall on a periodic dimension (LAMMPS: cannot use fix wall/reflect "
                                                   "in periodic dimension)"
              : face[k / 2][k % 2] != MDL_FACE_F ? "a wall on a shrink-wrapped face: not taken (make it boundary f)"
              : k >= 4 && cfg->dimension == 2 ? "zlo or zhi in a 2-d system (LAMMPS: cannot use fix wall/reflect zlo/zhi "
                                                "for a 2d simulation)" : NULL;
        for (int j = 0; j < n && !why; j++)
            why = cfg->walls.face[j] == k ? "a face given twice (LAMMPS: wall defined twice in fix wall/reflect command)" : NULL;
        if (why)
            return config_fail(e, "'%s %s': %s", f, c ? c : "", why), 0;
        cfg->walls.face[n] = k, cfg->walls.edge[n] = edge, cfg->walls.coord[n] = v;
        cfg->walls.n++;
    }
    return 1;
}

/* boundary: LAMMPS's words, z periodic in 2-d (LAMMPS's rule), an orthogonal box. */
static int check_boundary(const mdl_config *cfg)
{
    const mdl_entry *e = config_find_entry(cfg, "system", "boundary");
    int face[3][2];
    const char *why;
    if (!config_boundary(cfg, face, &why))
        return config_fail(e, "'%s': %s", cfg->boundary, why), 0;
    mdl_boundary bd;
    memset(&bd, 0, sizeof bd);
    memcpy(bd.face, face, sizeof face);
    if (boundary_is_periodic(&bd))
        return 1;
    why = cfg->dimension == 2 && face[2][0] != MDL_FACE_P ? "z is not periodic in a 2-d system (LAMMPS: cannot run "
                                                            "2d simulation with nonperiodic Z dimension)"
          : cfg->given_atoms ? "not with atoms given as arrays (their cell is periodic)"
          : cfg->tilt[0] != 0 || cfg->tilt[1] != 0 || cfg->tilt[2] != 0 ? "not with a tilted box (mdlite's "
                                                                            "non-periodic faces are orthogonal)"
          : cfg->ensemble == MDL_NPT_NOSE_HOOVER ? "not with ensemble = npt-nose-hoover (mdlite's barostat "
                                                     "moves periodic boxes)"
          : cfg->tail ? "not with [potential] tail = yes (the tail correction assumes a periodic fluid)" : NULL;
    return why ? config_fail(e, "'%s': %s", cfg->boundary, why), 0 : 1;
}

/* dimension = 2 with what a 2-d run takes: a 2-d lattice (a 3-d one in 3-d: LAMMPS's rule) and no
   ensemble that would move atoms along z or that LAMMPS couples otherwise in 2-d. */
static int check_dimension(const mdl_config *cfg)
{
    const mdl_entry *dim = config_find_entry(cfg, "system", "dimension"), *lat = config_find_entry(cfg, "system", "lattice");
    if (lat && crystal_style_dimension(cfg->lattice) != cfg->dimension)
        return config_fail(lat, "%s is a %d-d lattice, and the system is %d-d%s (LAMMPS: lattice style incompatible "
                           "with simulation dimension)", cfg->lattice, crystal_style_dimension(cfg->lattice),
                           cfg->dimension, dim ? "" : " (dimension = 2 makes it 2-d)"), 0;
    if (cfg->dimension != 2)
        return 1;
    const char *why = cfg->given_atoms ? "with atoms given as arrays (their cell is 3-d)"
                      : cfg->ensemble == MDL_NPT_NOSE_HOOVER ? "with ensemble = npt-nose-hoover (its 2-d barostat couples x and y alone)"
                      : cfg->ensemble == MDL_NVT_LANGEVIN    ? "with ensemble = langevin (its random force would move atoms along z)"
                      : cfg->tail                            ? "with [potential] tail = yes (the tail correction is 3-d)"
                                                             : NULL;
    return why ? config_fail(dim, "2 %s: not taken", why), 0 : 1;
}

int config_check_system(const mdl_config *cfg)
{
    mdl_entry tmp;
    if (!check_dimension(cfg) || !check_boundary(cfg))
        return 0;
    const mdl_entry *lat = config_find_entry(cfg, "system", "lattice"), *inp = config_find_entry(cfg, "system", "input");
    if (cfg->given_atoms) { /* libmdlite's arrays: only the keys that act on given atoms */
        static const char *const made[] = {"lattice", "input", "input_format", "box", "tilt", "box_origin", "density",
                                           "lattice_constant", "cells", "species", "composition", "lattice_a1",
                                           "lattice_a2", "lattice_a3", "lattice_basis", "lattice_orient",
                                           "lattice_origin", "lattice_spacing", "temperature", "seed",
                                           "velocities", "velocity_dist"};
        return refuse_set(cfg, made, sizeof made / sizeof made[0],
                          "the atoms, their cell and velocities are given as arrays");
    }
    if (lat && inp) {
        config_fail(inp, "contradicts lattice (%s): give either a lattice or an input file", lat->origin);
        return 0;
    }
    if (!lat && !inp) {
        config_fail(config_entry_or_file(cfg, "system", "lattice", &tmp),
                    "missing: give lattice = fcc|bcc|sc|hcp|diamond|custom or input = FILE");
        return 0;
    }
    int ok = 1;
    if (config_find_entry(cfg, "system", "tilt") && !config_find_entry(cfg, "system", "box")) {
        config_fail(config_find_entry(cfg, "system", "tilt"), "only with box = Lx Ly Lz (the tilts of that box)");
        ok = 0;
    }
    if (lat)
        return ok && check_lattice(cfg);
    static const char *const lattice_only[] = {"density", "lattice_constant", "cells", "species", "composition",
                                               "lattice_a1", "lattice_a2", "lattice_a3", "lattice_basis",
                                               "lattice_orient", "lattice_origin", "lattice_spacing"};
    return ok & refuse_set(cfg, lattice_only, sizeof lattice_only / sizeof lattice_only[0],
                           "only used with a lattice, not with input = FILE");
}

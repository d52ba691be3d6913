/* Readers for xyz / extended XYZ / .xy coordinate files with file:line error messages. */
#define _POSIX_C_SOURCE 200809L
#include "readers.h"

#include "data_file.h"
#include "text_lines.h"
#include "../util/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ---- .xy: "x y" per line, blank lines ignored ---------------------------------------------- */

static int read_xy(line_reader *r, mdl_system *s)
{
    char *line, *f[3];
    int t = system_species_index(s, "C", 1);
    while ((line = next_line(r))) {
        if (is_blank(line) || line[0] == '#')
            continue;
        int nf = split_fields(line, f, 2);
        if (nf != 2) {
            mdl_error("%s:%d: expected 2 columns (x y), found %s", r->path, r->line, nf > 2 ? "more" : "fewer");
            return MDL_EINPUT;
        }
        double x, y;
        if (parse_coord(r, f[0], 1, &x) || parse_coord(r, f[1], 2, &y))
            return MDL_EINPUT;
        if (system_add_atom(s, t, x, y, 0.0) < 0)
            return MDL_ERUN;
    }
    return r->bad ? MDL_EINPUT : MDL_OK;
}

/* ---- extended XYZ comment line -------------------------------------------------------------- */

typedef struct {
    int has_lattice, has_pbc;
    double lattice[9];
    double origin[3];
    int pbc[3];
    /* columns: index of the first column of each property, -1 when absent */
    int col_species, col_pos, col_velo, col_mass, ncols;
} xyz_header;

/* Next key=value from the comment line; values may be "quoted". Returns 0 at the end. */
static int next_pair(char **p, char **key, char **val)
{
    char *s = *p;
    while (*s && isspace((unsigned char)*s))
        s++;
    if (!*s)
        return 0;
    *key = s;
    while (*s && *s != '=' && !isspace((unsigned char)*s))
        s++;
    if (*s != '=') { /* a bare word: no value */
        if (*s)
            *s++ = '\0';
        *val = NULL;
        *p = s;
        return 1;
    }
    *s++ = '\0';
    if (*s == '"' || *s == '\'') {
        char q = *s++;
        *val = s;
        while (*s && *s != q)
            s++;
        if (!*s)
            return -1;
    } else {
        *val = s;
        while (*s && !isspace((unsigned char)*s))
            s++;
    }
    if (*s)
        *s++ = '\0';
    *p = s;
    return 1;
}

static int parse_properties(line_reader *r, char *val, xyz_header *h)
{
    char *save = NULL, *name, *type, *count;
    int col = 0;
    h->col_species = h->col_pos = h->col_velo = h->col_mass = -1;
    for (name = strtok_r(val, ":", &save); name; name = strtok_r(NULL, ":", &save)) {
        type = strtok_r(NULL, ":", &save);
        count = strtok_r(NULL, ":", &save);
        long n;
        if (!type || !count || mdl_parse_long(count, &n) != 0 || n < 1 || n > 9 || strlen(type) != 1 ||
            !strchr("SRIL", type[0])) {
            mdl_error("%s:%d: Properties: expected name:S|R|I|L:count triples near '%s'", r->path, r->line, name);
            return MDL_EINPUT;
        }
        int want = -2;
        if (strcasecmp(name, "species") == 0 || strcasecmp(name, "element") == 0 || strcasecmp(name, "type") == 0)
            h->col_species = col, want = type[0] == 'S' && n == 1 ? 0 : -1;
        else if (strcasecmp(name, "pos") == 0 || strcasecmp(name, "positions") == 0)
            h->col_pos = col, want = type[0] == 'R' && n == 3 ? 0 : -1;
        else if (strcasecmp(name, "velo") == 0 || strcasecmp(name, "velocities") == 0 || strcasecmp(name, "vel") == 0)
            h->col_velo = col, want = type[0] == 'R' && n == 3 ? 0 : -1;
        else if (strcasecmp(name, "mass") == 0 || strcasecmp(name, "masses") == 0)
            h->col_mass = col, want = type[0] == 'R' && n == 1 ? 0 : -1;
        if (want == -1) {
            mdl_error("%s:%d: Properties: '%s:%s:%s' has the wrong type or count", r->path, r->line, name, type, count);
            return MDL_EINPUT;
        }
        col += (int)n;
    }
    h->ncols = col;
    if (h->col_species < 0 || h->col_pos < 0) {
        mdl_error("%s:%d: Properties must include species:S:1 (or type:S:1) and pos:R:3", r->path, r->line);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

static int parse_comment(line_reader *r, char *comment, xyz_header *h)
{
    char *p = comment, *key, *val;
    int rc;
    h->col_species = 0;
    h->col_pos = 1;
    h->col_velo = h->col_mass = -1;
    h->ncols = 4;
    h->pbc[0] = h->pbc[1] = h->pbc[2] = 1;
    while ((rc = next_pair(&p, &key, &val)) > 0) {
        if (!val)
            continue;
        if (strcasecmp(key, "Lattice") == 0) {
            char *f[10];
            if (split_fields(val, f, 9) != 9) {
                mdl_error("%s:%d: Lattice= needs 9 numbers", r->path, r->line);
                return MDL_EINPUT;
            }
            for (int k = 0; k < 9; k++) {
                if (mdl_parse_double(f[k], &h->lattice[k]) != 0) {
                    mdl_error("%s:%d: Lattice=: '%s' is not a number", r->path, r->line, f[k]);
                    return MDL_EINPUT;
                }
            }
            h->has_lattice = 1;
        } else if (strcasecmp(key, "Origin") == 0) {
            char *f[4];
            if (split_fields(val, f, 3) != 3 || mdl_parse_double(f[0], &h->origin[0]) ||
                mdl_parse_double(f[1], &h->origin[1]) || mdl_parse_double(f[2], &h->origin[2])) {
                mdl_error("%s:%d: Origin= needs 3 numbers", r->path, r->line);
                return MDL_EINPUT;
            }
        } else if (strcasecmp(key, "Properties") == 0) {
            if (parse_properties(r, val, h) != MDL_OK)
                return MDL_EINPUT;
        } else if (strcasecmp(key, "pbc") == 0) {
            char *f[4];
            if (split_fields(val, f, 3) != 3) {
                mdl_error("%s:%d: pbc= needs 3 values (T or F)", r->path, r->line);
                return MDL_EINPUT;
            }
            for (int d = 0; d < 3; d++) {
                if (strchr("Tt1", f[d][0]) && strlen(f[d]) <= 4)
                    h->pbc[d] = 1;
                else if (strchr("Ff0", f[d][0]) && strlen(f[d]) <= 5)
                    h->pbc[d] = 0;
                else {
                    mdl_error("%s:%d: pbc=: '%s' is not T or F", r->path, r->line, f[d]);
                    return MDL_EINPUT;
                }
            }
            h->has_pbc = 1;
        }
    }
    if (rc < 0) {
        mdl_error("%s:%d: unterminated quote in the comment line", r->path, r->line);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

/* Lattice= as the box: LAMMPS's restricted form as it is, any other cell rotated into it (*rotated:
   the rotation, which the atoms' positions about Origin and velocities then take). */
static int lattice_to_box(line_reader *r, const xyz_header *h, mdl_box *box, double rot[3][3], int *rotated)
{
    for (int k = 0; k < 9; k++)
        if (!isfinite(h->lattice[k]) || fabs(h->lattice[k]) > 1e30) {
            mdl_error("%s:%d: Lattice=: number %d of 9 is %g", r->path, r->line, k + 1, h->lattice[k]);
            return MDL_EINPUT;
        }
    const char *why = box_from_cell(h->lattice, box, rot);
    if (why) {
        mdl_error("%s:%d: Lattice=: %s", r->path, r->line, why);
        return MDL_EINPUT;
    }
    *rotated = 0;
    for (int d = 0; d < 3; d++) {
        box->lo[d] = h->origin[d], box->periodic[d] = h->pbc[d];
        for (int e = 0; e < 3; e++)
            *rotated |= rot[d][e] != (d == e);
    }
    why = box_tilt_unfit(box);
    if (why) {
        mdl_error("%s:%d: Lattice=: %s", r->path, r->line, why);
        return MDL_EINPUT;
    }
    if (*rotated)
        mdl_note("%s:%d: Lattice= is not in LAMMPS's form (a along x, b in the xy plane): the cell, positions and "
                 "velocities are rotated into it (lengths, angles and every distance as they were)", r->path, r->line);
    return MDL_OK;
}

/* Every atom's position about origin and velocity through rot. */
static void rotate_atoms(mdl_system *s, const double rot[3][3], const double origin[3])
{
    double *p[3] = {s->x, s->y, s->z}, *v[3] = {s->vx, s->vy, s->vz};
    for (size_t i = 0; i < s->n; i++) {
        const double q[3] = {p[0][i] - origin[0], p[1][i] - origin[1], p[2][i] - origin[2]},
                     u[3] = {v[0][i], v[1][i], v[2][i]};
        for (int d = 0; d < 3; d++) {
            p[d][i] = origin[d] + rot[d][0] * q[0] + rot[d][1] * q[1] + rot[d][2] * q[2];
            v[d][i] = rot[d][0] * u[0] + rot[d][1] * u[1] + rot[d][2] * u[2];
        }
    }
}

static int read_xyz(line_reader *r, mdl_system *s, int *has_box)
{
    char *line = next_line(r);
    long natoms;
    if (r->bad)
        return MDL_EINPUT;
    if (!line || mdl_parse_long(line, &natoms) != 0 || natoms < 0) {
        mdl_error("%s:%d: expected the number of atoms on the first line", r->path, r->line ? r->line : 1);
        return MDL_EINPUT;
    }
    if (natoms == 0) {
        mdl_error("%s:1: the file holds zero atoms", r->path);
        return MDL_EINPUT;
    }
    if (!(line = next_line(r))) {
        if (!r->bad)
            mdl_error("%s:2: file ends before the comment line", r->path);
        return MDL_EINPUT;
    }
    xyz_header h;
    memset(&h, 0, sizeof h);
    if (parse_comment(r, line, &h) != MDL_OK)
        return MDL_EINPUT;
    double rot[3][3];
    int rotated = 0;
    if (h.has_lattice) {
        if (lattice_to_box(r, &h, &s->box, rot, &rotated) != MDL_OK)
            return MDL_EINPUT;
        *has_box = 1;
    }
    if (natoms > MDL_MAX_ATOMS) {
        mdl_error("%s:1: the header says %ld atoms, more than mdlite handles (%ld)", r->path, natoms,
                  (long)MDL_MAX_ATOMS);
        return MDL_EINPUT;
    }
    /* the count is the file's word: memory grows with the atoms actually read, from at most as
       many as the file's bytes could hold (8 bytes a line at least: "A 0 0 0\n") */
    size_t fit = r->size / 8 + 1, avail = mdl_memory_available();
    double need = 96.0 * (double)((size_t)natoms < fit ? (size_t)natoms : fit); /* bytes per atom read */
    if (avail > 0 && need > (double)avail) {
        mdl_error("%s:1: %ld atoms need about %.3g GiB to read, more than the %.3g GiB available", r->path, natoms,
                  need / 1073741824.0, (double)avail / 1073741824.0);
        return MDL_EINPUT;
    }
    if (system_reserve(s, (size_t)natoms < fit ? (size_t)natoms : fit) != MDL_OK)
        return MDL_ERUN;
    s->has_velocities = h.col_velo >= 0;
    s->has_masses = h.col_mass >= 0;
    char **f = mdl_alloc((size_t)(h.ncols + 1) * sizeof *f, "xyz columns");
    if (!f)
        return MDL_ERUN;
    int rc = MDL_OK;
    for (long i = 0; i < natoms && rc == MDL_OK; i++) {
        if (!(line = next_line(r))) {
            if (!r->bad)
                mdl_error("%s:%d: the header says %ld atoms, the file has %ld (truncated?)", r->path, r->line + 1,
                          natoms, i);
            rc = MDL_EINPUT;
            break;
        }
        int nf = split_fields(line, f, h.ncols);
        if (nf != h.ncols) {
            mdl_error("%s:%d: expected %d columns, found %s", r->path, r->line, h.ncols,
                      nf > h.ncols ? "more" : "fewer");
            rc = MDL_EINPUT;
            break;
        }
        if (!species_name_valid(f[h.col_species])) {
            char shown[4 * 24 + 4];
            mdl_error("%s:%d: column %d: '%s' is not a species name (1 to %d ASCII letters, digits, _ or -)",
                      r->path, r->line, h.col_species + 1, escaped(f[h.col_species], shown, sizeof shown),
                      MDL_NAME_LEN - 1);
            rc = MDL_EINPUT;
            break;
        }
        int t = system_species_index(s, f[h.col_species], 1);
        if (t < 0) {
            mdl_error("%s:%d: species '%s': more than %d species", r->path, r->line, f[h.col_species],
                      MDL_MAX_SPECIES);
            rc = MDL_EINPUT;
            break;
        }
        double v[7] = {0};
        for (int d = 0; d < 3 && rc == MDL_OK; d++)
            rc = parse_coord(r, f[h.col_pos + d], h.col_pos + d + 1, &v[d]);
        for (int d = 0; d < 3 && rc == MDL_OK && h.col_velo >= 0; d++)
            rc = parse_coord(r, f[h.col_velo + d], h.col_velo + d + 1, &v[3 + d]);
        if (rc == MDL_OK && h.col_mass >= 0) {
            rc = parse_coord(r, f[h.col_mass], h.col_mass + 1, &v[6]);
            if (rc == MDL_OK && !(v[6] > 0)) {
                mdl_error("%s:%d: mass %g is not positive", r->path, r->line, v[6]);
                rc = MDL_EINPUT;
            } else if (rc == MDL_OK && s->mass[t] != 0 && s->mass[t] != v[6]) {
                mdl_error("%s:%d: species %s has mass %g here and %g earlier (one mass per species)", r->path,
                          r->line, s->species[t], v[6], s->mass[t]);
                rc = MDL_EINPUT;
            }
            if (rc == MDL_OK)
                s->mass[t] = v[6];
        }
        if (rc != MDL_OK)
            break;
        long k = system_add_atom(s, t, v[0], v[1], v[2]);
        if (k < 0) {
            rc = MDL_ERUN;
            break;
        }
        s->vx[k] = v[3];
        s->vy[k] = v[4];
        s->vz[k] = v[5];
    }
    free(f);
    while (rc == MDL_OK && (line = next_line(r)) && is_blank(line))
        ;
    if (rc == MDL_OK && r->bad)
        rc = MDL_EINPUT;
    if (rc == MDL_OK && line) { /* a second frame, or a wrong atom count: which frame is meant is unclear */
        long n2;
        if (mdl_parse_long(line, &n2) == 0)
            mdl_error("%s:%d: a second frame starts here; mdlite starts from one frame, so keep only the one to "
                      "start from (ASE's read takes the last, MDAnalysis the first)", r->path, r->line);
        else
            mdl_error("%s:%d: more lines than the %ld atoms the first line announces", r->path, r->line, natoms);
        rc = MDL_EINPUT;
    }
    if (rc == MDL_OK && rotated)
        rotate_atoms(s, rot, h.origin);
    return rc;
}

/* Format from the suffix; otherwise from the first non-blank line: one integer (xyz) or two
   numbers (xy). Returns 'x' (xyz), '2' (xy) or 0. */
static int sniff_format(const char *path, FILE *fp)
{
    if (mdl_has_suffix(path, ".xy"))
        return '2';
    if (mdl_has_suffix(path, ".xyz") || mdl_has_suffix(path, ".extxyz"))
        return 'x';
    char line[512], *f[3];
    int fmt = 0;
    while (fgets(line, sizeof line, fp)) {
        if (is_blank(line) || line[0] == '#')
            continue;
        line[strcspn(line, "\r\n")] = '\0';
        int nf = split_fields(line, f, 2);
        double v;
        long k;
        if (nf == 1 && mdl_parse_long(f[0], &k) == 0)
            fmt = 'x';
        else if (nf == 2 && mdl_parse_double(f[0], &v) == 0 && mdl_parse_double(f[1], &v) == 0)
            fmt = '2';
        break;
    }
    rewind(fp);
    return fmt;
}

int read_coordinates(const char *path, int format, mdl_system *s, int *has_box)
{
    *has_box = 0;
    if (mdl_check_input_file(path, "coordinate file") != MDL_OK)
        return MDL_EINPUT;
    struct stat st;
    line_reader r = {.path = path, .size = stat(path, &st) == 0 ? (size_t)st.st_size : 0, .fp = fopen(path, "r")};
    if (!r.fp) {
        mdl_error("%s: cannot open coordinate file: %s", path, strerror(errno));
        return MDL_EINPUT;
    }
    int rc, fmt = format ? format : is_data_file(path) ? 'd' : sniff_format(path, r.fp);
    if (fmt == 'd')
        rc = read_data_file(&r, s), *has_box = rc == MDL_OK;
    else if (fmt == '2')
        rc = read_xy(&r, s);
    else if (fmt == 'x')
        rc = read_xyz(&r, s, has_box);
    else {
        mdl_error("%s: unknown coordinate format (expected .xyz/.extxyz, a LAMMPS data file NAME.data, NAME.lmp or "
                  "data.NAME, or two columns x y)", path);
        rc = MDL_EINPUT;
    }
    if (rc == MDL_OK && ferror(r.fp)) {
        mdl_error("%s: read error: %s", path, strerror(errno));
        rc = MDL_EINPUT;
    }
    fclose(r.fp);
    free(r.buf);
    if (rc == MDL_OK && s->n == 0) {
        mdl_error("%s: the file holds zero atoms", path);
        rc = MDL_EINPUT;
    }
    if (rc == MDL_OK && !*has_box)
        system_bounding_box(s);
    return rc;
}

/* The line of atom `index` (0-based) in a coordinate file: xyz has two header lines; .xy skips
   blank and comment lines, so it is counted again (only for a message). */
static long atom_line(const char *path, size_t index)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    long found = 0;
    if (sniff_format(path, fp) == 'x') {
        found = (long)index + 3;
    } else {
        line_reader r = {.path = path, .fp = fp};
        size_t k = 0;
        char *line;
        while (!found && (line = next_line(&r)))
            if (!is_blank(line) && line[0] != '#' && k++ == index)
                found = r.line;
        free(r.buf);
    }
    fclose(fp);
    return found;
}

/* A triclinic box's check, in fractional coordinates, which a position's round trip through them
   leaves within rounding of [0, 1) (LAMMPS writes such positions; the first build wraps them). */
static int check_atoms_in_cell(const char *path, const mdl_system *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const double p[3] = {s->x[i], s->y[i], s->z[i]};
        double f[3];
        box_to_fraction(&s->box, p, f);
        for (int d = 0; d < 3; d++)
            if (!(f[d] >= -1e-12 && f[d] <= 1 + 1e-12)) {
                mdl_error("%s:%ld: atom %zu at (%.17g, %.17g, %.17g) is outside the triclinic box (fractional "
                          "coordinate along %c = %.17g, not in [0, 1))", path, atom_line(path, i), i + 1, p[0], p[1],
                          p[2], "abc"[d], f[d]);
                return MDL_EINPUT;
            }
    }
    return MDL_OK;
}

int check_atoms_in_box(const char *path, mdl_system *s)
{
    if (box_is_triclinic(&s->box))
        return check_atoms_in_cell(path, s);
    double *c[3] = {s->x, s->y, s->z};
    for (size_t i = 0; i < s->n; i++)
        for (int d = 0; d < 3; d++) {
            double lo = s->box.lo[d], hi = lo + s->box.len[d], v = c[d][i];
            if (v >= lo && v < hi)
                continue;
            if (v >= hi && v <= hi + 1e-12 * s->box.len[d]) {
                c[d][i] = lo; /* on the upper face: the periodic image on the lower one */
                continue;
            }
            mdl_error("%s:%ld: atom %zu: %c = %.17g is outside the box [%.17g, %.17g)", path, atom_line(path, i),
                      i + 1, "xyz"[d], v, lo, hi);
            return MDL_EINPUT;
        }
    return MDL_OK;
}

/* LAMMPS data files (atom_style atomic): the reader, with file:line messages, and write_data's layout. */
#define _POSIX_C_SOURCE 200809L
#include "data_file.h"

#include "../physics/box.h"

#include "../util/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int is_data_file(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return mdl_has_suffix(path, ".data") || mdl_has_suffix(path, ".lmp") || strncmp(base, "data.", 5) == 0;
}

/* The header's counts and box, and what the sections held. */
typedef struct {
    long natoms, ntypes;
    double lo[3], hi[3], tilt[3];
    int has_box[3], has_tilt, tilt_line;
    int seen_atoms, seen_velocities, seen_masses;
    unsigned char *id_seen; /* atoms: each id once */
} data_header;

static void cut_comment(char *line)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
}

/* A number of field f (column `column`) within [lo, hi] (lo_open: above lo), as the INI and the
   checkpoint hold theirs (util.h's MDL_BIG, MDL_SMALLEST). */
static int field_in_range(line_reader *r, const char *f, int column, double lo, double hi, int lo_open, double *out)
{
    MDL_TRY(parse_coord(r, f, column, out));
    char why[256];
    if (mdl_in_range(f, *out, lo, hi, lo_open, why, sizeof why))
        return MDL_OK;
    mdl_error("%s:%d: column %d: %s", r->path, r->line, column, why);
    return MDL_EINPUT;
}

/* A count in field f of a header line: a whole number 0 .. max. */
static int parse_count(line_reader *r, const char *f, long max, long *out)
{
    if (mdl_parse_long(f, out) != 0 || *out < 0 || *out > max) {
        mdl_error("%s:%d: '%s' is not a count from 0 to %ld", r->path, r->line, f, max);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

/* One header line (comment cut, not blank): its keyword after the numbers. Returns MDL_OK, or 1
   when the line is not a header line (the first section's keyword), or MDL_EINPUT. */
static int header_line(line_reader *r, char *line, data_header *h)
{
    char *f[6];
    int nf = split_fields(line, f, 6);
    if (nf == 2 && strcmp(f[1], "atoms") == 0)
        return parse_count(r, f[0], MDL_MAX_ATOMS, &h->natoms);
    if (nf == 3 && strcmp(f[1], "atom") == 0 && strcmp(f[2], "types") == 0)
        return parse_count(r, f[0], 1000000, &h->ntypes);
    static const char *const lohi[3][2] = {{"xlo", "xhi"}, {"ylo", "yhi"}, {"zlo", "zhi"}};
    for (int d = 0; d < 3; d++)
        if (nf == 4 && strcmp(f[2], lohi[d][0]) == 0 && strcmp(f[3], lohi[d][1]) == 0) {
            if (field_in_range(r, f[0], 1, -MDL_BIG, MDL_BIG, 0, &h->lo[d]) ||
                field_in_range(r, f[1], 2, -MDL_BIG, MDL_BIG, 0, &h->hi[d]))
                return MDL_EINPUT;
            if (!(h->hi[d] > h->lo[d])) {
                mdl_error("%s:%d: %s %s: %s must be above %s", r->path, r->line, lohi[d][0], lohi[d][1], lohi[d][1],
                          lohi[d][0]);
                return MDL_EINPUT;
            }
            char len[40], why[256];
            snprintf(len, sizeof len, "%g", h->hi[d] - h->lo[d]);
            if (!mdl_in_range(len, h->hi[d] - h->lo[d], MDL_SMALLEST, MDL_BIG, 0, why, sizeof why)) {
                mdl_error("%s:%d: the box length %s - %s: %s", r->path, r->line, lohi[d][1], lohi[d][0], why);
                return MDL_EINPUT;
            }
            h->has_box[d] = 1;
            return MDL_OK;
        }
    if (nf == 6 && strcmp(f[3], "xy") == 0 && strcmp(f[4], "xz") == 0 && strcmp(f[5], "yz") == 0) {
        for (int k = 0; k < 3; k++)
            if (field_in_range(r, f[k], 1 + k, -MDL_BIG, MDL_BIG, 0, &h->tilt[k]))
                return MDL_EINPUT;
        h->has_tilt = 1, h->tilt_line = r->line;
        return MDL_OK;
    }
    long n;
    if (nf >= 2 && mdl_parse_long(f[0], &n) == 0) { /* bonds, angles, ...: none allowed */
        if (n == 0)
            return MDL_OK;
        mdl_error("%s:%d: '%s %s%s%s': mdlite reads atom_style atomic (atoms, atom types, the box) only", r->path,
                  r->line, f[0], f[1], nf > 2 ? " " : "", nf > 2 ? f[2] : "");
        return MDL_EINPUT;
    }
    return 1;
}

/* The next non-blank line of a section (its comment cut, into *comment where asked), split into at
   most max fields. */
static int section_fields(line_reader *r, const char *section, char **f, int max, int *nf, char **comment)
{
    char *line;
    while ((line = next_line(r))) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash++ = '\0';
        if (comment)
            *comment = hash;
        if (!is_blank(line))
            break;
    }
    if (!line) {
        if (!r->bad)
            mdl_error("%s:%d: the file ends inside its %s section", r->path, r->line, section);
        return MDL_EINPUT;
    }
    *nf = split_fields(line, f, max);
    return MDL_OK;
}

/* An atom id or type in field f: a whole number 1 .. max. */
static int parse_index(line_reader *r, const char *f, int column, const char *what, long max, long *out)
{
    if (mdl_parse_long(f, out) != 0 || *out < 1 || *out > max) {
        mdl_error("%s:%d: column %d: '%s' is not an %s from 1 to %ld", r->path, r->line, column, f, what, max);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

/* A Masses line's comment names its type's species where it is one name ("1 63.546 # Cu", as
   mdlite writes them), so that a file written by a run reads back with its species' names. */
static void name_species(mdl_system *s, int t, char *comment)
{
    char *f[2];
    if (!comment || split_fields(comment, f, 1) != 1 || strlen(f[0]) >= MDL_NAME_LEN)
        return;
    for (const char *c = f[0]; *c; c++)
        if (!(isalnum((unsigned char)*c) || *c == '_' || *c == '-'))
            return;
    if (system_species_index(s, f[0], 0) < 0)
        snprintf(s->species[t], sizeof s->species[t], "%s", f[0]);
}

static int read_masses(line_reader *r, data_header *h, mdl_system *s)
{
    char *f[3], *comment;
    int nf;
    unsigned set = 0;
    for (long k = 0; k < h->ntypes; k++) {
        long t;
        double m;
        MDL_TRY(section_fields(r, "Masses", f, 2, &nf, &comment));
        if (nf != 2) {
            mdl_error("%s:%d: Masses: expected 2 columns (type mass)", r->path, r->line);
            return MDL_EINPUT;
        }
        MDL_TRY(parse_index(r, f[0], 1, "atom type", h->ntypes, &t));
        MDL_TRY(parse_coord(r, f[1], 2, &m));
        if (!(m > 0) || (set >> (t - 1) & 1)) {
            mdl_error("%s:%d: Masses: type %ld %s", r->path, r->line, t, m > 0 ? "given twice" : "needs a mass above 0");
            return MDL_EINPUT;
        }
        MDL_TRY(field_in_range(r, f[1], 2, MDL_SMALLEST, MDL_BIG, 0, &m));
        set |= 1u << (t - 1);
        s->mass[t - 1] = m;
        name_species(s, (int)t - 1, comment);
    }
    h->seen_masses = 1;
    s->has_masses = 1;
    return MDL_OK;
}

/* x into the box with its image counters, as LAMMPS's remap (box_wrap, or in a triclinic box
   through its fractional coordinates; a coordinate many boxes away refused, so that the counter,
   at most 1e9 as read, stays within 32 bits). */
static int remap(line_reader *r, const mdl_box *b, double x[3], int32_t image[3])
{
    double s[3];
    box_to_fraction(b, x, s);
    for (int d = 0; d < 3; d++)
        if (!(fabs(s[d]) <= 1e6)) {
            mdl_error("%s:%d: a coordinate %.17g lies more than a million box lengths from the box", r->path, r->line,
                      x[d]);
            return MDL_EINPUT;
        }
    if (box_is_triclinic(b)) {
        box_wrap_triclinic(b, x, image);
        return MDL_OK;
    }
    for (int d = 0; d < 3; d++)
        x[d] = box_wrap(x[d], b->lo[d], b->len[d], &image[d]);
    return MDL_OK;
}

static int read_atoms(line_reader *r, data_header *h, mdl_system *s)
{
    char *f[10];
    int nf;
    for (long k = 0; k < h->natoms; k++) {
        long id, t, img[3] = {0, 0, 0};
        double c[3];
        MDL_TRY(section_fields(r, "Atoms", f, 8, &nf, NULL));
        if (nf <= 2 && isalpha((unsigned char)f[0][0])) { /* the next section already: the header counts more */
            mdl_error("%s:%d: the header gives %ld atoms, and the Atoms section holds %ld before its next section "
                      "(%s)", r->path, r->line, h->natoms, k, f[0]);
            return MDL_EINPUT;
        }
        if (nf != 5 && nf != 8) {
            mdl_error("%s:%d: Atoms: expected 5 or 8 columns (id type x y z [ix iy iz], atom_style atomic), found %d",
                      r->path, r->line, nf > 8 ? 9 : nf);
            return MDL_EINPUT;
        }
        MDL_TRY(parse_index(r, f[0], 1, "atom id", h->natoms, &id));
        MDL_TRY(parse_index(r, f[1], 2, "atom type", h->ntypes, &t));
        for (int d = 0; d < 3; d++)
            MDL_TRY(field_in_range(r, f[2 + d], 3 + d, -MDL_BIG, MDL_BIG, 0, &c[d]));
        for (int d = 0; d < 3 && nf == 8; d++)
            if (mdl_parse_long(f[5 + d], &img[d]) != 0 || labs(img[d]) > 1000000000L) {
                mdl_error("%s:%d: column %d: '%s' is not an image flag", r->path, r->line, 6 + d, f[5 + d]);
                return MDL_EINPUT;
            }
        if (h->id_seen[id - 1]) {
            mdl_error("%s:%d: atom id %ld given twice", r->path, r->line, id);
            return MDL_EINPUT;
        }
        h->id_seen[id - 1] = 1;
        const size_t i = (size_t)id - 1;
        int32_t image[3] = {(int32_t)img[0], (int32_t)img[1], (int32_t)img[2]};
        MDL_TRY(remap(r, &s->box, c, image));
        s->x[i] = c[0], s->y[i] = c[1], s->z[i] = c[2];
        s->ix[i] = image[0], s->iy[i] = image[1], s->iz[i] = image[2];
        s->type[i] = (int32_t)(t - 1);
    }
    h->seen_atoms = 1;
    return MDL_OK;
}

static int read_velocities(line_reader *r, data_header *h, mdl_system *s)
{
    char *f[5];
    int nf;
    unsigned char *seen = calloc((size_t)h->natoms, 1);
    if (!seen)
        return MDL_ERUN;
    int rc = MDL_OK;
    for (long k = 0; k < h->natoms && rc == MDL_OK; k++) {
        long id;
        double v[3];
        rc = section_fields(r, "Velocities", f, 4, &nf, NULL);
        if (rc == MDL_OK && nf != 4) {
            mdl_error("%s:%d: Velocities: expected 4 columns (id vx vy vz)", r->path, r->line);
            rc = MDL_EINPUT;
        }
        if (rc == MDL_OK)
            rc = parse_index(r, f[0], 1, "atom id", h->natoms, &id);
        for (int d = 0; d < 3 && rc == MDL_OK; d++)
            rc = field_in_range(r, f[1 + d], 2 + d, -MDL_BIG, MDL_BIG, 0, &v[d]);
        if (rc == MDL_OK && seen[id - 1]) {
            mdl_error("%s:%d: Velocities: atom id %ld given twice", r->path, r->line, id);
            rc = MDL_EINPUT;
        }
        if (rc == MDL_OK)
            seen[id - 1] = 1, s->vx[id - 1] = v[0], s->vy[id - 1] = v[1], s->vz[id - 1] = v[2];
    }
    free(seen);
    h->seen_velocities = 1;
    s->has_velocities = 1;
    return rc;
}

/* Pair Coeffs written by LAMMPS's write_data: [potential] gives the coefficients, so they are
   skipped, with a warning. */
static int skip_coeffs(line_reader *r, const char *section, long lines)
{
    char *f[2];
    int nf;
    mdl_warn("%s:%d: %s: not read; the potential's coefficients come from [potential]", r->path, r->line, section);
    for (long k = 0; k < lines; k++)
        MDL_TRY(section_fields(r, section, f, 1, &nf, NULL));
    return MDL_OK;
}

/* A section keyword line (its style hint, "Atoms # atomic", checked) and its section. */
static int read_section(line_reader *r, char *line, data_header *h, mdl_system *s)
{
    char *hint = strchr(line, '#'), *f[3];
    if (hint)
        *hint++ = '\0';
    int nf = split_fields(line, f, 2);
    char name[32] = "";
    if (nf == 1 || nf == 2)
        snprintf(name, sizeof name, "%s%s%s", f[0], nf == 2 ? " " : "", nf == 2 ? f[1] : "");
    const int atoms = strcmp(name, "Atoms") == 0;
    int *seen = atoms ? &h->seen_atoms : strcmp(name, "Velocities") == 0 ? &h->seen_velocities
              : strcmp(name, "Masses") == 0 ? &h->seen_masses : NULL;
    if (seen && *seen) {
        mdl_error("%s:%d: a second %s section", r->path, r->line, name);
        return MDL_EINPUT;
    }
    if (atoms && hint && split_fields(hint, f, 2) >= 1 && strcmp(f[0], "atomic") != 0) {
        mdl_error("%s:%d: Atoms # %s: mdlite reads atom_style atomic only", r->path, r->line, f[0]);
        return MDL_EINPUT;
    }
    if (atoms)
        return read_atoms(r, h, s);
    if (strcmp(name, "Masses") == 0)
        return read_masses(r, h, s);
    if (strcmp(name, "Velocities") == 0)
        return read_velocities(r, h, s);
    if (strcmp(name, "Pair Coeffs") == 0)
        return skip_coeffs(r, name, h->ntypes);
    if (strcmp(name, "PairIJ Coeffs") == 0)
        return skip_coeffs(r, name, h->ntypes * (h->ntypes + 1) / 2);
    char buf[80];
    if (isdigit((unsigned char)line[strspn(line, " \t")]) || line[strspn(line, " \t")] == '-')
        mdl_error("%s:%d: '%s': numbers where a section's name belongs: the section before holds more lines than the "
                  "header's %ld atoms (or %ld types)", r->path, r->line, escaped(line, buf, sizeof buf), h->natoms,
                  h->ntypes);
    else
        mdl_error("%s:%d: '%s': not a section of an atom_style atomic data file (Masses, Atoms, Velocities, Pair "
                  "Coeffs)", r->path, r->line, escaped(line, buf, sizeof buf));
    return MDL_EINPUT;
}

/* The header's checks once the first section begins, and the atoms' slots. */
static int begin_atoms(line_reader *r, data_header *h, mdl_system *s)
{
    for (int d = 0; d < 3; d++)
        if (!h->has_box[d]) {
            mdl_error("%s:%d: the header has no '%s' line (the box)", r->path, r->line,
                      d == 0 ? "xlo xhi" : d == 1 ? "ylo yhi" : "zlo zhi");
            return MDL_EINPUT;
        }
    if (h->natoms < 1 || h->ntypes < 1 || h->ntypes > MDL_MAX_SPECIES) {
        mdl_error("%s:%d: the header gives %ld atoms of %ld atom types: mdlite needs at least one atom and 1 to %d "
                  "types", r->path, r->line, h->natoms, h->ntypes, MDL_MAX_SPECIES);
        return MDL_EINPUT;
    }
    if ((size_t)h->natoms > r->size / 10 + 1) { /* an atom's line takes at least 10 bytes */
        mdl_error("%s: the header announces %ld atoms, more than the file's %zu bytes can hold", r->path, h->natoms,
                  r->size);
        return MDL_EINPUT;
    }
    for (long t = 1; t <= h->ntypes; t++) {
        char name[24];
        snprintf(name, sizeof name, "%ld", t);
        system_species_index(s, name, 1);
    }
    if (system_reserve(s, (size_t)h->natoms) != MDL_OK || !(h->id_seen = calloc((size_t)h->natoms, 1)))
        return MDL_ERUN;
    for (long k = 0; k < h->natoms; k++)
        system_add_atom(s, 0, 0, 0, 0);
    for (int d = 0; d < 3; d++)
        s->box.lo[d] = h->lo[d], s->box.len[d] = h->hi[d] - h->lo[d], s->box.periodic[d] = 1;
    for (int k = 0; k < 3 && h->has_tilt; k++)
        s->box.tilt[k] = h->tilt[k];
    const char *why = box_tilt_unfit(&s->box);
    if (why) {
        mdl_error("%s:%d: xy xz yz: %s", r->path, h->tilt_line, why);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

int read_data_file(line_reader *r, mdl_system *s)
{
    data_header h = {0};
    char *line = next_line(r); /* the title */
    int rc = line ? MDL_OK : MDL_EINPUT, in_header = 1;
    if (!line && !r->bad)
        mdl_error("%s: an empty data file", r->path);
    while (rc == MDL_OK && (line = next_line(r))) {
        if (is_blank(line) || line[strspn(line, " \t")] == '#')
            continue;
        if (in_header) {
            char copy[256];
            snprintf(copy, sizeof copy, "%s", line);
            cut_comment(copy);
            rc = strlen(line) < sizeof copy ? header_line(r, copy, &h) : 1;
            if (rc != 1)
                continue;
            in_header = 0;
            if ((rc = begin_atoms(r, &h, s)) != MDL_OK)
                break;
        }
        rc = read_section(r, line, &h, s);
    }
    if (rc == MDL_OK && r->bad)
        rc = MDL_EINPUT;
    if (rc == MDL_OK && !h.seen_atoms) {
        mdl_error("%s:%d: no Atoms section", r->path, r->line);
        rc = MDL_EINPUT;
    }
    for (long k = 0; rc == MDL_OK && k < h.natoms; k++)
        if (!h.id_seen[k]) {
            mdl_error("%s: atom id %ld is missing (mdlite numbers a data file's atoms 1 to %ld, each once)", r->path,
                      k + 1, h.natoms);
            rc = MDL_EINPUT;
        }
    free(h.id_seen);
    return rc;
}

int write_data_file(const char *path, const mdl_system *s, const char *units, long step)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        mdl_error("%s: cannot write the data file: %s", path, strerror(errno));
        return MDL_ERUN;
    }
    fprintf(fp, "LAMMPS data file via mdlite %s, timestep = %ld, units = %s\n\n%zu atoms\n%d atom types\n\n",
            MDLITE_VERSION, step, units, s->n, s->ntypes);
    static const char *const lohi[3] = {"xlo xhi", "ylo yhi", "zlo zhi"};
    for (int d = 0; d < 3; d++)
        fprintf(fp, "%.17g %.17g %s\n", s->box.lo[d], s->box.lo[d] + s->box.len[d], lohi[d]);
    if (box_is_triclinic(&s->box))
        fprintf(fp, "%.17g %.17g %.17g xy xz yz\n", s->box.tilt[0], s->box.tilt[1], s->box.tilt[2]);
    fprintf(fp, "\nMasses\n\n");
    for (int t = 0; t < s->ntypes; t++)
        fprintf(fp, "%d %.17g # %s\n", t + 1, s->mass[t], s->species[t]);
    fprintf(fp, "\nAtoms # atomic\n\n");
    for (size_t i = 0; i < s->n; i++) { /* wrapped into the box, as write_data's pbc() does */
        double x[3] = {s->x[i], s->y[i], s->z[i]};
        int32_t image[3] = {s->ix[i], s->iy[i], s->iz[i]};
        if (box_is_triclinic(&s->box))
            box_wrap_triclinic(&s->box, x, image);
        for (int d = 0; d < 3 && !box_is_triclinic(&s->box); d++)
            x[d] = box_wrap(x[d], s->box.lo[d], s->box.len[d], &image[d]);
        fprintf(fp, "%zu %d %.17g %.17g %.17g %d %d %d\n", i + 1, s->type[i] + 1, x[0], x[1], x[2], (int)image[0],
                (int)image[1], (int)image[2]);
    }
    fprintf(fp, "\nVelocities\n\n");
    for (size_t i = 0; i < s->n; i++)
        fprintf(fp, "%zu %.17g %.17g %.17g\n", i + 1, s->vx[i], s->vy[i], s->vz[i]);
    int bad = ferror(fp);
    if (fclose(fp) != 0 || bad) {
        mdl_error("%s: writing the data file failed: %s; the file is removed", path, strerror(errno));
        remove(path);
        return MDL_ERUN;
    }
    return MDL_OK;
}

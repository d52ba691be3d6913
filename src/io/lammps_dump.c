/* LAMMPS's text dumps (dump atom, dump custom): a frame's header (timestep, atom count, box bounds
   with the boundary's letters) and one line per atom of the columns asked for, as LAMMPS prints
   them (integers as %d, reals as %g, the bounds as %.16e). */
#include "lammps_dump.h"

#include <math.h>

/* The box bounds lines: an orthogonal box's lo hi per axis, a triclinic one's bounding box and tilt. */
static void box_bounds(FILE *o, const mdl_box *b, const mdl_boundary *bd)
{
    static const char letter[] = "pfsm";
    const int tri = box_is_triclinic(b);
    fprintf(o, "ITEM: BOX BOUNDS %s", tri ? "xy xz yz " : "");
    for (int d = 0; d < 3; d++)
        fprintf(o, "%s%c%c", d ? " " : "", letter[bd->face[d][0]], letter[bd->face[d][1]]);
    fputc('\n', o);
    const double xy = b->tilt[0], xz = b->tilt[1], yz = b->tilt[2];
    double lo[3], hi[3];
    for (int d = 0; d < 3; d++)
        lo[d] = b->lo[d], hi[d] = b->lo[d] + b->len[d];
    if (tri) { /* LAMMPS's bounding box of the tilted cell, in its order of operations */
        lo[0] = fmin(lo[0], lo[0] + xy), lo[0] = fmin(lo[0], lo[0] + xz), lo[1] = fmin(lo[1], lo[1] + yz);
        hi[0] = fmax(hi[0], hi[0] + xy), hi[0] = fmax(hi[0], hi[0] + xz), hi[1] = fmax(hi[1], hi[1] + yz);
    }
    for (int d = 0; d < 3; d++) {
        fprintf(o, "%.16e %.16e", lo[d], hi[d]);
        if (tri)
            fprintf(o, " %.16e", b->tilt[d == 0 ? 0 : d == 1 ? 1 : 2]);
        fputc('\n', o);
    }
}

/* Column c of atom i. */
static void print_value(FILE *o, const mdl_system *s, size_t i, int c)
{
    const double *x[3] = {s->x, s->y, s->z}, *v[3] = {s->vx, s->vy, s->vz}, *f[3] = {s->fx, s->fy, s->fz};
    const int32_t *im[3] = {s->ix, s->iy, s->iz};
    if (c == MDL_COL_ID || c == MDL_COL_TYPE || (c >= MDL_COL_IX && c < MDL_COL_VX)) {
        fprintf(o, "%ld", c == MDL_COL_ID ? (long)s->id[i] + 1 : c == MDL_COL_TYPE ? (long)s->type[i] + 1 : (long)im[c - MDL_COL_IX][i]);
    } else if (c >= MDL_COL_XS && c < MDL_COL_XU) { /* LAMMPS's lamda coordinates */
        double p[3] = {s->x[i], s->y[i], s->z[i]}, l[3];
        box_to_fraction(&s->box, p, l);
        fprintf(o, "%g", l[c - MDL_COL_XS]);
    } else if (c >= MDL_COL_XU && c < MDL_COL_IX) { /* unwrapped by the edge vectors */
        double p[3] = {s->x[i], s->y[i], s->z[i]};
        for (int d = 0; d < 3; d++)
            box_add_edge(&s->box, d, im[d][i], p);
        fprintf(o, "%g", p[c - MDL_COL_XU]);
    } else {
        fprintf(o, "%g", c == MDL_COL_MASS ? s->mass[s->type[i]] : c < MDL_COL_XS ? x[c - MDL_COL_X][i] : c < MDL_COL_FX ? v[c - MDL_COL_VX][i] : f[c - MDL_COL_FX][i]);
    }
}

void lammps_dump_frame(FILE *o, const mdl_system *s, const mdl_boundary *bd, long step, const int *cols, int n)
{
    fprintf(o, "ITEM: TIMESTEP\n%ld\nITEM: NUMBER OF ATOMS\n%zu\n", step, s->n);
    box_bounds(o, &s->box, bd);
    fputs("ITEM: ATOMS", o);
    for (int k = 0; k < n; k++)
        fprintf(o, " %s", config_dump_column_name(cols[k]));
    fputc('\n', o);
    for (size_t i = 0; i < s->n; i++) {
        for (int k = 0; k < n; k++) {
            if (k)
                fputc(' ', o);
            print_value(o, s, i, cols[k]);
        }
        fputc('\n', o);
    }
}

/* LAMMPS's lattice command as arithmetic (crystal.h). */
#include "crystal.h"

#include <math.h>
#include <string.h>

static const char *const STYLES[] = {"sc", "bcc", "fcc", "hcp", "diamond", "custom", "sq", "sq2", "hex"};

int crystal_style_dimension(const char *name)
{
    return !strcmp(name, "sq") || !strcmp(name, "sq2") || !strcmp(name, "hex") ? 2 : 3;
}

int crystal_style_known(const char *name)
{
    for (size_t k = 0; k < sizeof STYLES / sizeof STYLES[0]; k++)
        if (strcmp(name, STYLES[k]) == 0)
            return 1;
    return 0;
}

static void add_basis(mdl_crystal *c, double x, double y, double z)
{
    c->basis[c->nbasis][0] = x, c->basis[c->nbasis][1] = y, c->basis[c->nbasis][2] = z;
    c->nbasis++;
}

/* The style's basis atoms and primitive vectors (hcp: a2 = sqrt(3) y, a3 = sqrt(8/3) z). */
static void style_cell(const mdl_lattice_spec *sp, mdl_crystal *c, double a[3][3])
{
    const char *st = sp->style;
    memcpy(a, sp->a, sizeof sp->a);
    if (!strcmp(st, "custom")) {
        for (int b = 0; b < sp->basis->n; b++)
            add_basis(c, sp->basis->v[b][0], sp->basis->v[b][1], sp->basis->v[b][2]);
        return;
    }
    for (int d = 0; d < 3; d++)
        for (int e = 0; e < 3; e++)
            a[d][e] = d == e;
    add_basis(c, 0.0, 0.0, 0.0);
    if (!strcmp(st, "bcc")) {
        add_basis(c, 0.5, 0.5, 0.5);
    } else if (!strcmp(st, "fcc")) {
        add_basis(c, 0.5, 0.5, 0.0), add_basis(c, 0.5, 0.0, 0.5), add_basis(c, 0.0, 0.5, 0.5);
    } else if (!strcmp(st, "hcp")) {
        add_basis(c, 0.5, 0.5, 0.0), add_basis(c, 0.5, 5.0 / 6.0, 0.5), add_basis(c, 0.0, 1.0 / 3.0, 0.5);
        a[1][1] = sqrt(3.0), a[2][2] = sqrt(8.0 / 3.0);
    } else if (!strcmp(st, "sq2")) { /* LAMMPS's 2-d styles: a3 = z, the basis in the plane z = 0 */
        add_basis(c, 0.5, 0.5, 0.0);
    } else if (!strcmp(st, "hex")) {
        add_basis(c, 0.5, 0.5, 0.0);
        a[1][1] = sqrt(3.0);
    } else if (!strcmp(st, "diamond")) {
        add_basis(c, 0.0, 0.5, 0.5), add_basis(c, 0.5, 0.0, 0.5), add_basis(c, 0.5, 0.5, 0.0);
        add_basis(c, 0.25, 0.25, 0.25), add_basis(c, 0.25, 0.75, 0.75), add_basis(c, 0.75, 0.25, 0.75);
        add_basis(c, 0.75, 0.75, 0.25);
    }
}

static double det3(const double m[3][3])
{
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) + m[0][1] * (m[1][2] * m[2][0] - m[1][0] * m[2][2]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

void crystal_to_box(const mdl_crystal *c, double p[3])
{
    double q[3], r[3];
    for (int d = 0; d < 3; d++)
        q[d] = (c->prim[d][0] * p[0] + c->prim[d][1] * p[1] + c->prim[d][2] * p[2]) * c->scale;
    for (int d = 0; d < 3; d++)
        r[d] = c->rot[d][0] * q[0] + c->rot[d][1] * q[1] + c->rot[d][2] * q[2];
    for (int d = 0; d < 3; d++)
        p[d] = r[d] + c->spacing[d] * c->origin[d];
}

void crystal_from_box(const mdl_crystal *c, double p[3])
{
    double q[3], inv[3][3];
    const double det = det3(c->prim);
    for (int r = 0; r < 3; r++) /* the inverse: cofactors (cyclic indices carry the signs) over the determinant */
        for (int k = 0; k < 3; k++) {
            const int r1 = (r + 1) % 3, r2 = (r + 2) % 3, k1 = (k + 1) % 3, k2 = (k + 2) % 3;
            inv[k][r] = (c->prim[r1][k1] * c->prim[r2][k2] - c->prim[r1][k2] * c->prim[r2][k1]) / det;
        }
    for (int d = 0; d < 3; d++)
        p[d] -= c->spacing[d] * c->origin[d];
    for (int d = 0; d < 3; d++)
        q[d] = (c->rot[0][d] * p[0] + c->rot[1][d] * p[1] + c->rot[2][d] * p[2]) / c->scale;
    for (int d = 0; d < 3; d++)
        p[d] = inv[d][0] * q[0] + inv[d][1] * q[1] + inv[d][2] * q[2];
}

double crystal_cell_volume(const mdl_crystal *c)
{
    return fabs(det3(c->prim)) * c->scale * c->scale * c->scale;
}

void crystal_make(const mdl_lattice_spec *sp, mdl_crystal *c)
{
    double a[3][3];
    memset(c, 0, sizeof *c);
    style_cell(sp, c, a);
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++)
            c->prim[r][k] = a[k][r];
    const double dim = crystal_style_dimension(sp->style); /* LAMMPS: (nbasis / (V density))^(1 / dimension) */
    c->scale = sp->scale > 0 ? sp->scale : pow(c->nbasis / det3(a) / sp->density, 1.0 / dim);
    for (int r = 0; r < 3; r++) {
        const int *o = sp->orient + 3 * r;
        const double len = sqrt((double)(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]));
        for (int k = 0; k < 3; k++)
            c->rot[r][k] = o[k] / len;
    }
    if (sp->spacing[0] > 0) {
        for (int d = 0; d < 3; d++)
            c->spacing[d] = sp->spacing[d] * c->scale;
    } else {
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int corner = 0; corner < 8; corner++) {
            double p[3] = {corner & 1, (corner >> 1) & 1, (corner >> 2) & 1};
            crystal_to_box(c, p); /* the spacings 0 yet: no shift */
            for (int d = 0; d < 3; d++)
                lo[d] = fmin(lo[d], p[d]), hi[d] = fmax(hi[d], p[d]);
        }
        for (int d = 0; d < 3; d++)
            c->spacing[d] = hi[d] - lo[d];
    }
    memcpy(c->origin, sp->origin, sizeof c->origin);
}

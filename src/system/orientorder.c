/* LAMMPS's compute orientorder/atom on a snapshot: each atom's neighbors within the cutoff found
   through cells of fractional coordinates (every periodic image within reach, none across an open
   face), the nnn nearest kept, q_lm = the mean of Y_lm over them, Q_l = sqrt(4 pi / (2l + 1) sum_m
   |q_lm|^2), W_l = sum over m1 + m2 + m3 = 0 of the Wigner 3j symbol (l l l; m1 m2 m3) q_lm1 q_lm2 q_lm3,
   W_l hat = W_l over (sum_m |q_lm|^2)^(3/2). */
#include "orientorder.h"

#include "../util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define QEPSILON 1.0e-6 /* below it, Q_l's W_l hat is 0 (LAMMPS's) */
#define PI 3.14159265358979323846

typedef struct {
    double rsq, d[3];
} neighbor;

static int by_distance(const void *a, const void *b)
{
    const double x = ((const neighbor *)a)->rsq, y = ((const neighbor *)b)->rsq;
    return (x > y) - (x < y);
}

/* The cells: per dimension their count and reach (how many cells a cutoff spans), over fractional
   coordinates; an open dimension is one cell, without images. */
typedef struct {
    int n[3], reach[3], periodic[3];
    int *head, *next;
} cells;

static int cell_of(const cells *g, const double s[3], int d)
{
    int k = (int)floor(s[d] * g->n[d]);
    return k < 0 ? 0 : k >= g->n[d] ? g->n[d] - 1 : k;
}

static int build_cells(cells *g, const mdl_system *f, double rc, double *frac)
{
    for (int d = 0; d < 3; d++) {
        const double width = f->box.len[d] * box_face_spacing(&f->box, d);
        g->periodic[d] = f->box.periodic[d];
        g->n[d] = g->periodic[d] && width > rc ? (int)(width / rc) : 1;
        g->n[d] = g->n[d] > 64 ? 64 : g->n[d];
        g->reach[d] = g->periodic[d] ? (int)ceil(rc / (width / g->n[d])) : 0;
    }
    const size_t ncell = (size_t)g->n[0] * g->n[1] * g->n[2];
    g->head = mdl_alloc(ncell * sizeof *g->head, "orientorder cells");
    g->next = mdl_alloc((f->n ? f->n : 1) * sizeof *g->next, "orientorder cells");
    if (!g->head || !g->next)
        return MDL_ERUN;
    for (size_t c = 0; c < ncell; c++)
        g->head[c] = -1;
    for (size_t i = 0; i < f->n; i++) {
        const double p[3] = {f->x[i], f->y[i], f->z[i]};
        box_to_fraction(&f->box, p, frac + 3 * i);
        const size_t c = ((size_t)cell_of(g, frac + 3 * i, 2) * g->n[1] + cell_of(g, frac + 3 * i, 1)) * g->n[0] +
                         cell_of(g, frac + 3 * i, 0);
        g->next[i] = g->head[c], g->head[c] = (int)i;
    }
    return MDL_OK;
}

/* Atom i's neighbors within rc (x_i - x_j of each image of j), into nb; their count. */
static size_t gather(const cells *g, const mdl_system *f, const double *frac, size_t i, double rc, neighbor **nb,
                     size_t *cap)
{
    int c0[3], off[3];
    for (int d = 0; d < 3; d++)
        c0[d] = cell_of(g, frac + 3 * i, d);
    const double xi[3] = {f->x[i], f->y[i], f->z[i]};
    size_t n = 0;
    for (off[2] = -g->reach[2]; off[2] <= g->reach[2]; off[2]++)
        for (off[1] = -g->reach[1]; off[1] <= g->reach[1]; off[1]++)
            for (off[0] = -g->reach[0]; off[0] <= g->reach[0]; off[0]++) {
                int c[3], image[3];
                for (int d = 0; d < 3; d++) { /* the cell, and the image it is of */
                    const int k = c0[d] + off[d];
                    image[d] = (int)floor((double)k / g->n[d]);
                    c[d] = k - image[d] * g->n[d];
                }
                for (int j = g->head[(c[2] * g->n[1] + c[1]) * g->n[0] + c[0]]; j >= 0; j = g->next[j]) {
                    if ((size_t)j == i && !image[0] && !image[1] && !image[2])
                        continue;
                    double xj[3] = {f->x[j], f->y[j], f->z[j]};
                    for (int d = 0; d < 3; d++)
                        box_add_edge(&f->box, d, (double)image[d], xj);
                    const double dx[3] = {xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]};
                    const double rsq = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2];
                    if (!(rsq < rc * rc))
                        continue;
                    if (n == *cap) {
                        neighbor *grown = mdl_realloc(*nb, (2 * *cap + 64) * sizeof **nb, "orientorder neighbors");
                        if (!grown)
                            return (size_t)-1;
                        *nb = grown, *cap = 2 * *cap + 64;
                    }
                    (*nb)[n++] = (neighbor){rsq, {dx[0], dx[1], dx[2]}};
                }
            }
    return n;
}

/* The associated Legendre function P_l^m(x), m >= 0, with the Condon-Shortley phase. */
static double legendre(int l, int m, double x)
{
    double pmm = 1.0;
    const double s = sqrt((1.0 - x) * (1.0 + x));
    for (int k = 1; k <= m; k++)
        pmm *= -(2.0 * k - 1.0) * s;
    if (l == m)
        return pmm;
    double below = pmm, p = x * (2.0 * m + 1.0) * pmm;
    for (int k = m + 2; k <= l; k++) {
        const double next = ((2.0 * k - 1.0) * x * p - (k + m - 1.0) * below) / (k - m);
        below = p, p = next;
    }
    return p;
}

static double factorial(int n)
{
    double f = 1.0;
    for (int k = 2; k <= n; k++)
        f *= k;
    return f;
}

/* The Wigner 3j symbol (l l l; m1 m2 m3), m1 + m2 + m3 = 0, by Racah's formula: (-1)^m3 times
   sqrt(l!^3 / (3l + 1)!) sqrt(prod (l +- m_k)!) sum_t (-1)^t / (t! (t + m1)! (t - m2)! (l - t)!
   (l - t - m1)! (l - t + m2)!). */
static double wigner3j(int l, int m1, int m2, int m3)
{
    const double delta = sqrt(factorial(l) * factorial(l) * factorial(l) / factorial(3 * l + 1));
    const double pre = sqrt(factorial(l + m1) * factorial(l - m1) * factorial(l + m2) * factorial(l - m2) *
                            factorial(l + m3) * factorial(l - m3));
    double sum = 0.0;
    for (int t = 0; t <= l; t++) {
        const int k[6] = {t, t + m1, t - m2, l - t, l - t - m1, l - t + m2};
        double den = 1.0;
        int ok = 1;
        for (int q = 0; q < 6; q++)
            ok &= k[q] >= 0, den *= k[q] >= 0 ? factorial(k[q]) : 1.0;
        sum += ok ? (t % 2 ? -1.0 : 1.0) / den : 0.0;
    }
    return (m3 % 2 ? -1.0 : 1.0) * delta * pre * sum;
}

/* One atom's columns from its neighbors nb[0..n): Q_l, then W_l (wl), then W_l hat (wlhat). */
static void order_parameters(const mdl_compute *c, const neighbor *nb, size_t n, double *out)
{
    double qr[MDL_MAX_DEGREES][13] = {{0}}, qi[MDL_MAX_DEGREES][13] = {{0}}; /* q_lm, m = 0 .. l (l <= 12) */
    for (size_t j = 0; j < n; j++) {
        const double *r = nb[j].d, rr = sqrt(nb[j].rsq), rxy = sqrt(r[0] * r[0] + r[1] * r[1]);
        const double cost = r[2] / rr, er = rxy > 10.0 * 2.220446049250313e-16 ? r[0] / rxy : 1.0,
                     ei = rxy > 10.0 * 2.220446049250313e-16 ? r[1] / rxy : 0.0;
        for (int k = 0; k < c->ndegrees; k++) {
            const int l = c->degree[k];
            double pr = 1.0, pi = 0.0; /* e^(i m phi) */
            for (int m = 0; m <= l; m++) {
                const double norm = sqrt((2.0 * l + 1.0) / (4.0 * PI) * factorial(l - m) / factorial(l + m));
                const double y = norm * legendre(l, m, cost);
                qr[k][m] += y * pr, qi[k][m] += y * pi;
                const double t = pr * er - pi * ei;
                pi = pr * ei + pi * er, pr = t;
            }
        }
    }
    const int nd = c->ndegrees;
    for (int k = 0; k < nd; k++) {
        const int l = c->degree[k];
        double sum = 0.0;
        for (int m = 0; m <= l; m++) {
            qr[k][m] /= (double)n, qi[k][m] /= (double)n;
            sum += (m ? 2.0 : 1.0) * (qr[k][m] * qr[k][m] + qi[k][m] * qi[k][m]);
        }
        out[k] = sqrt(4.0 * PI / (2.0 * l + 1.0) * sum);
        double w = 0.0; /* sum over m1 + m2 + m3 = 0; q_l,-m = (-1)^m conj(q_lm) */
        for (int m1 = -l; m1 <= l && (c->wl || c->wlhat); m1++)
            for (int m2 = -l; m2 <= l; m2++) {
                const int m3 = -m1 - m2;
                if (m3 < -l || m3 > l)
                    continue;
                const int m[3] = {m1, m2, m3};
                double ar = 1.0, ai = 0.0;
                for (int q = 0; q < 3; q++) {
                    const int a = m[q] < 0 ? -m[q] : m[q];
                    const double sg = m[q] < 0 && a % 2 ? -1.0 : 1.0;
                    const double br = sg * qr[k][a], bi = m[q] < 0 ? -sg * qi[k][a] : qi[k][a];
                    const double t = ar * br - ai * bi;
                    ai = ar * bi + ai * br, ar = t;
                }
                w += wigner3j(l, m1, m2, m3) * ar;
            }
        if (c->wl) /* as the reference lmp (29 Sep 2021) prints it; later LAMMPS divides it by sqrt(2l + 1) */
            out[nd + k] = w;
        if (c->wlhat)
            out[nd * (1 + c->wl) + k] = out[k] < QEPSILON ? 0.0 : w / pow(sum, 1.5);
    }
}

int orientorder_atoms(const mdl_compute *c, const mdl_system *f, double pair_cutoff, double *out)
{
    const double rc = c->cutoff > 0 ? c->cutoff : pair_cutoff;
    const int ncol = compute_atom_columns(c);
    memset(out, 0, f->n * (size_t)ncol * sizeof *out);
    cells g = {0};
    double *frac = mdl_alloc((f->n ? f->n : 1) * 3 * sizeof *frac, "orientorder positions");
    neighbor *nb = NULL;
    size_t cap = 0;
    int rc_ok = frac ? build_cells(&g, f, rc, frac) : MDL_ERUN;
    for (size_t i = 0; i < f->n && rc_ok == MDL_OK; i++) {
        if (!group_has(f->groups, (int64_t)i, c->group))
            continue;
        const size_t n = gather(&g, f, frac, i, rc, &nb, &cap);
        if (n == (size_t)-1) {
            rc_ok = MDL_ERUN;
            break;
        }
        if (n == 0 || n < (size_t)c->nnn)
            continue;
        size_t use = n;
        if (c->nnn > 0) { /* the nnn nearest */
            qsort(nb, n, sizeof *nb, by_distance);
            use = (size_t)c->nnn;
        }
        order_parameters(c, nb, use, out + i * (size_t)ncol);
    }
    free(frac), free(nb), free(g.head), free(g.next);
    return rc_ok;
}

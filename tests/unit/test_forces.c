/* Forces equal -dE/dr by central finite differences; the virial equals -dE/d(scale); sum F = 0. */
#include "cmd/compare.h"
#include "cpu/force.h"
#include "helpers.h"
#include "system/lattice.h"
#include "system/potential.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

typedef struct {
    mdl_system s;
    mdl_pair_table pt;
    cpu_pair_table pairs;
    cpu_nlist nl;
    cpu_force_scratch fs;
    int threads;
} fixture;

/* A perturbed fcc crystal (no overlaps) with two species: LJ, A.B mixed by Lorentz-Berthelot; or
   Morse, A.B from the global keys. */
static void make_fixture_style(fixture *f, int style, int shift, int threads)
{
    mdl_config cfg;
    memset(&cfg, 0, sizeof cfg);
    strcpy(cfg.lattice, "fcc");
    for (int d = 0; d < 3; d++) /* the lattice's default axes (config_defaults') */
        cfg.lattice_orient[4 * d] = 1, cfg.lattice_a[d][d] = 1.0;
    cfg.density = 0.9;
    cfg.cells[0] = cfg.cells[1] = cfg.cells[2] = 4;
    cfg.nspecies = 2;
    strcpy(cfg.species[0], "A");
    strcpy(cfg.species[1], "B");
    cfg.composition[0] = 0.75;
    cfg.composition[1] = 0.25;
    cfg.seed = 5;
    cfg.style = style;
    const double globals[2][3] = {{1.0, 1.0}, {1.0, 3.0, 1.1}}, bb[2][3] = {{0.5, 0.88}, {0.5, 4.0, 1.0}};
    memcpy(cfg.param[style], globals[style], sizeof globals[style]);
    cfg.cutoff = 2.5;
    cfg.shift = shift;
    cfg.npair = 1; /* B.B listed; A.B mixes (LJ) or takes the globals (Morse) */
    strcpy(cfg.pair[0].a, "B");
    strcpy(cfg.pair[0].b, "B");
    memcpy(cfg.pair[0].param, bb[style], sizeof bb[style]);
    cfg.pair[0].cutoff = 2.2;
    system_init(&f->s, 0);
    cr_assert_eq(lattice_build(&cfg, &f->s), 0);
    uint64_t seed = 99;
    for (size_t i = 0; i < f->s.n; i++) {
        f->s.x[i] += 0.15 * (test_uniform(&seed) - 0.5);
        f->s.y[i] += 0.15 * (test_uniform(&seed) - 0.5);
        f->s.z[i] += 0.15 * (test_uniform(&seed) - 0.5);
    }
    cr_assert_eq(potential_build(&cfg, &f->s, &f->pt), 0);
    cpu_pair_table_fill(&f->pairs, &f->pt);
    nlist_init(&f->nl);
    force_scratch_init(&f->fs);
    f->threads = threads;
}

static void make_fixture(fixture *f, int shift, int threads)
{
    make_fixture_style(f, MDL_PAIR_LJ, shift, threads);
}

static void free_fixture(fixture *f)
{
    nlist_destroy(&f->nl);
    force_scratch_destroy(&f->fs);
    system_destroy(&f->s);
}

/* Energy, virial and forces of the current positions (list rebuilt with a 0.3 skin). */
static double evaluate(fixture *f, double *virial)
{
    mdl_system *s = &f->s;
    double pe, w;
    cr_assert_eq(nlist_build_brute(&f->nl, &s->box, f->pt.cutmax + 0.3, s->n, s->n, s->x, s->y, s->z, f->threads), 0);
    cr_assert_eq(pair_forces(&f->pairs, &f->nl, &s->box, s->n, s->n, s->x, s->y, s->z, s->type, s->fx, s->fy, s->fz,
                             MDL_EV_ENERGY, &pe, &w, &f->fs),
                 0);
    if (virial)
        *virial = w;
    return pe;
}

static void check_finite_differences_style(int style, int shift, int threads)
{
    fixture f;
    make_fixture_style(&f, style, shift, threads);
    mdl_system *s = &f.s;
    evaluate(&f, NULL);
    size_t n = s->n;
    double *F = malloc(3 * n * sizeof *F);
    for (size_t i = 0; i < n; i++)
        F[3 * i] = s->fx[i], F[3 * i + 1] = s->fy[i], F[3 * i + 2] = s->fz[i];
    double fnorm = 0, sum[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) {
            fnorm = fmax(fnorm, fabs(F[3 * i + d]));
            sum[d] += F[3 * i + d];
        }
    cr_assert(fnorm > 1.0, "forces too small to test (%g)", fnorm);
    for (int d = 0; d < 3; d++)
        cr_assert(fabs(sum[d]) < 1e-10 * fnorm * n, "total force %g along %d", sum[d], d);
    const double h = 1e-5;
    double *coord[3] = {s->x, s->y, s->z};
    for (size_t i = 0; i < n; i += 7)
        for (int d = 0; d < 3; d++) {
            double keep = coord[d][i];
            coord[d][i] = keep + h;
            double ep = evaluate(&f, NULL);
            coord[d][i] = keep - h;
            double em = evaluate(&f, NULL);
            coord[d][i] = keep;
            double fd = -(ep - em) / (2 * h);
            cr_assert(fabs(fd - F[3 * i + d]) < 1e-6 * fmax(1.0, fabs(F[3 * i + d])),
                      "atom %zu dim %d: F = %.12g, -dE/dx = %.12g", i, d, F[3 * i + d], fd);
        }
    free(F);
    free_fixture(&f);
}

static void check_finite_differences(int shift, int threads)
{
    check_finite_differences_style(MDL_PAIR_LJ, shift, threads);
}

Test(forces, finite_differences_unshifted)
{
    check_finite_differences(0, 1);
}

Test(forces, finite_differences_shifted_two_threads)
{
    check_finite_differences(1, 2);
}

Test(forces, morse_finite_differences)
{
    check_finite_differences_style(MDL_PAIR_MORSE, 0, 1);
    check_finite_differences_style(MDL_PAIR_MORSE, 1, 2);
}

static void check_virial(int style)
{
    fixture f;
    make_fixture_style(&f, style, 0, 1);
    mdl_system *s = &f.s;
    double w;
    evaluate(&f, &w);
    const double h = 1e-6;
    double e[2];
    for (int k = 0; k < 2; k++) {
        double lam = k == 0 ? 1 + h : 1 - h;
        fixture g;
        make_fixture_style(&g, style, 0, 1);
        for (size_t i = 0; i < g.s.n; i++)
            g.s.x[i] = s->x[i] * lam, g.s.y[i] = s->y[i] * lam, g.s.z[i] = s->z[i] * lam;
        for (int d = 0; d < 3; d++)
            g.s.box.len[d] *= lam;
        e[k] = evaluate(&g, NULL);
        free_fixture(&g);
    }
    double dedl = (e[0] - e[1]) / (2 * h);
    cr_assert(fabs(w + dedl) < 1e-6 * fabs(w), "virial %.12g, -dE/dlambda %.12g", w, -dedl);
    free_fixture(&f);
}

Test(forces, virial_is_minus_volume_derivative)
{
    check_virial(MDL_PAIR_LJ);
    check_virial(MDL_PAIR_MORSE);
}

Test(forces, thread_counts_agree)
{
    fixture a, b;
    make_fixture(&a, 0, 1);
    make_fixture(&b, 0, 3);
    double ea = evaluate(&a, NULL), eb = evaluate(&b, NULL);
    cr_assert(fabs(ea - eb) < 1e-12 * fabs(ea));
    for (size_t i = 0; i < a.s.n; i++)
        cr_assert(fabs(a.s.fx[i] - b.s.fx[i]) < 1e-12 * (1 + fabs(a.s.fx[i])));
    free_fixture(&a);
    free_fixture(&b);
}

/* compare's force differences are measured against the system's force scale: on a perfect
   lattice (forces ~1e-14 by symmetry) a 1e-7 difference reads as 1e-7, not as 1e+7; in a liquid
   (forces of order 10) the scale is their rms. */
Test(forces, compare_against_the_force_scale)
{
    enum { N = 500 };
    static double a[3][N], b[3][N];
    mdl_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.param[MDL_PAIR_LJ][LJ_EPSILON] = 2.0, cfg.param[MDL_PAIR_LJ][LJ_SIGMA] = 0.5; /* epsilon/sigma = 4 */
    for (int scale = 0; scale < 2; scale++) {
        double big = scale ? 10.0 : 1e-14;
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < N; i++) {
                a[k][i] = big * sin(1.0 + i + 7 * k);
                b[k][i] = a[k][i] + 1e-7 * cos(2.0 + i + 3 * k);
            }
        double f0 = compare_force_scale(&cfg, a[0], a[1], a[2], N), rms, worst;
        const double *pa[3] = {a[0], a[1], a[2]}, *pb[3] = {b[0], b[1], b[2]};
        compare_forces(pa, pb, N, f0, &rms, &worst);
        double want_f0 = scale ? big * sqrt(1.5) : 4.0; /* rms of sin over many periods: 1/sqrt(2) per axis */
        cr_assert(fabs(f0 - want_f0) < 0.02 * want_f0, "force scale %g, expected about %g", f0, want_f0);
        cr_assert(rms > 0.5e-7 / f0 && rms < 2e-7 / f0, "rms difference %g against the scale %g", rms, f0);
        cr_assert(worst >= rms && worst < 2e-7 / f0, "largest difference %g", worst);
    }
}

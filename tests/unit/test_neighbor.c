/* Cell list and brute force give the same half-list pair sets as an independent all-images search. */
#include "cpu/neighbor.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* Pairs (id_a < id_b) of a half list, encoded as a * n + b and sorted. */
static size_t collect_pairs(const cpu_nlist *nl, const int64_t *id, size_t n, uint64_t *out)
{
    size_t m = 0;
    for (int t = 0; t < nl->nseg; t++)
        for (size_t i = nl->seg[t].atom_begin; i < nl->seg[t].atom_end; i++)
            for (int k = 0; k < nl->count[i]; k++) {
                uint64_t a = (uint64_t)id[i], b = (uint64_t)id[nl->seg[t].data[nl->first[i] + k]];
                out[m++] = a < b ? a * n + b : b * n + a;
            }
    return m;
}

static int cmp_u64(const void *p, const void *q)
{
    uint64_t a = *(const uint64_t *)p, b = *(const uint64_t *)q;
    return (a > b) - (a < b);
}

/* Reference: every pair, every periodic image shift in -1..1 (no minimum-image shortcut). */
static size_t reference_pairs(const mdl_system *s, double rc, uint64_t *out)
{
    size_t m = 0, n = s->n;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double best = INFINITY;
            for (int a = -1; a <= 1; a++)
                for (int b = -1; b <= 1; b++)
                    for (int c = -1; c <= 1; c++) {
                        double dx = s->x[i] - s->x[j] + a * s->box.len[0];
                        double dy = s->y[i] - s->y[j] + b * s->box.len[1];
                        double dz = s->z[i] - s->z[j] + c * s->box.len[2];
                        double r2 = dx * dx + dy * dy + dz * dz;
                        best = r2 < best ? r2 : best;
                    }
            if (best < rc * rc)
                out[m++] = i * n + j;
        }
    return m;
}

static void check_box(const double L[3], size_t n, double rc, int threads, uint64_t seed)
{
    mdl_system s;
    random_system(&s, n, L, 1, seed);
    uint64_t *ref = malloc(n * n * sizeof *ref), *got = malloc(n * n * sizeof *got);
    size_t nref = reference_pairs(&s, rc, ref);
    qsort(ref, nref, sizeof *ref, cmp_u64);
    cr_assert(nref > 0, "the test configuration has no pairs");

    /* brute force, in file order */
    cpu_nlist nl;
    nlist_init(&nl);
    cr_assert_eq(nlist_build_brute(&nl, &s.box, rc, n, n, s.x, s.y, s.z, threads), 0);
    size_t m = collect_pairs(&nl, s.id, n, got);
    qsort(got, m, sizeof *got, cmp_u64);
    cr_assert_eq(m, nref, "brute: %zu pairs, reference %zu (L %g %g %g)", m, nref, L[0], L[1], L[2]);
    cr_assert(memcmp(got, ref, m * sizeof *got) == 0, "brute: pair sets differ");

    /* cell list, after sorting by cell: from the atoms in reverse order, so that an order kept from
       before (rather than by id within a cell) shows */
    for (size_t i = 0, j = n - 1; i < j; i++, j--) {
        double t;
        t = s.x[i], s.x[i] = s.x[j], s.x[j] = t;
        t = s.y[i], s.y[i] = s.y[j], s.y[j] = t;
        t = s.z[i], s.z[i] = s.z[j], s.z[j] = t;
        const int64_t id = s.id[i];
        s.id[i] = s.id[j], s.id[j] = id;
    }
    cpu_cells cells;
    cells_init(&cells);
    int32_t *perm = malloc(n * sizeof *perm);
    int64_t *scratch = malloc(n * sizeof *scratch);
    cr_assert_eq(cells_sort(&cells, &s.box, rc, n, s.x, s.y, s.z, s.id, perm), 0);
    permute_array(s.x, perm, n, 8, scratch);
    permute_array(s.y, perm, n, 8, scratch);
    permute_array(s.z, perm, n, 8, scratch);
    permute_array(s.id, perm, n, 8, scratch);
    for (size_t c = 0; c < cells.ncells; c++) { /* by cell, then by id: the order depends on positions alone */
        cr_assert_leq(cells.start[c], cells.start[c + 1]);
        for (int32_t k = cells.start[c] + 1; k < cells.start[c + 1]; k++)
            cr_assert_lt(s.id[k - 1], s.id[k], "cell %zu: ids %lld then %lld", c, (long long)s.id[k - 1],
                         (long long)s.id[k]);
    }
    cr_assert_eq((size_t)cells.start[cells.ncells], n);
    cr_assert_eq(nlist_build_cells(&nl, &cells, NULL, &s.box, rc, n, s.x, s.y, s.z, threads), 0);
    m = collect_pairs(&nl, s.id, n, got);
    qsort(got, m, sizeof *got, cmp_u64);
    cr_assert_eq(m, nref, "cell: %zu pairs, reference %zu (L %g %g %g, cells %d %d %d)", m, nref, L[0], L[1], L[2],
                 cells.nc[0], cells.nc[1], cells.nc[2]);
    cr_assert(memcmp(got, ref, m * sizeof *got) == 0, "cell: pair sets differ");

    cells_destroy(&cells);
    nlist_destroy(&nl);
    free(perm), free(scratch), free(ref), free(got);
    system_destroy(&s);
}

Test(neighbor, random_cubic_box)
{
    double L[3] = {12, 12, 12};
    check_box(L, 1500, 2.8, 1, 1);
}

Test(neighbor, box_barely_larger_than_two_cutoffs)
{
    /* 2 (cutoff + skin) = 5.6: two cells per dimension, where +1 and -1 neighbours coincide */
    double L[3] = {5.61, 5.65, 5.7};
    check_box(L, 200, 2.8, 1, 2);
    check_box(L, 200, 2.8, 2, 3);
}

Test(neighbor, three_and_four_cells_mixed)
{
    double L[3] = {8.5, 11.3, 5.62};
    check_box(L, 500, 2.8, 3, 4);
}

Test(neighbor, dense_and_dilute)
{
    double L[3] = {7, 9, 6};
    check_box(L, 1000, 2.5, 2, 5);
    check_box(L, 30, 2.5, 1, 6);
}

Test(neighbor, max_displacement)
{
    double x[3] = {0, 1, 2}, y[3] = {0, 0, 0}, z[3] = {0, 0, 0};
    double x0[3] = {0, 1.5, 2}, y0[3] = {0, 0, 0.2}, z0[3] = {0, 0, 0};
    cr_assert_float_eq(max_displacement_sq(3, x, y, z, x0, y0, z0), 0.25, 1e-15);
}

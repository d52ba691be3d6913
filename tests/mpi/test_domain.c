/* The decomposition under however many ranks mpiexec starts: owned atoms, ghosts (against a
   brute-force set of periodic images), their refresh, and migration, for every processor grid; with
   images (the CPU's), also in a box shorter than the ghost cutoff along x and than twice it along y,
   whose ghosts take several hops and atoms several bricks. */
#include "parallel/comm.h"
#include "parallel/domain.h"
#include "physics/cells.h"
#include "util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                            \
    do {                                                            \
        if (!(cond)) {                                              \
            fprintf(stderr, "rank %d: ", comm_rank());              \
            fprintf(stderr, __VA_ARGS__);                           \
            fprintf(stderr, "\n");                                  \
            failures++;                                             \
        }                                                           \
    } while (0)

enum { N = 3000 };
static const double RG = 2.8;

/* a number in [0, 1) from (seed, k), the same on every rank */
static double uniform(uint64_t seed, uint64_t k)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + k * 0xBF58476D1CE4E5B9ull + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

static void make_system(mdl_system *all, const mdl_box *b)
{
    system_init(all, N);
    all->n = N, all->ntypes = 2, all->box = *b;
    for (size_t i = 0; i < N; i++) {
        all->x[i] = b->lo[0] + uniform(1, 3 * i) * b->len[0];
        all->y[i] = b->lo[1] + uniform(1, 3 * i + 1) * b->len[1];
        all->z[i] = b->lo[2] + uniform(1, 3 * i + 2) * b->len[2];
        all->vx[i] = i, all->vy[i] = -(double)i, all->vz[i] = 0.5 * i;
        all->fx[i] = all->fy[i] = all->fz[i] = 0;
        all->ix[i] = all->iy[i] = all->iz[i] = 0;
        all->type[i] = i % 2, all->id[i] = (int64_t)i;
    }
}

typedef struct {
    int64_t id;
    double p[3];
} image;

static int by_id_then_position(const void *a, const void *b)
{
    const image *u = a, *v = b;
    if (u->id != v->id)
        return u->id < v->id ? -1 : 1;
    for (int d = 0; d < 3; d++)
        if (u->p[d] != v->p[d])
            return u->p[d] < v->p[d] ? -1 : 1;
    return 0;
}

enum { MAX_SHIFT = 3 }; /* images up to 3 boxes away: the boxes here are at least RG / 3 long */

/* Every periodic image (ghosted dimensions only) of every atom of `all` inside this rank's brick
   grown by RG, but the atoms it owns themselves: the ghosts it must hold (at most `cap`). */
static size_t expected_ghosts(const mdl_domain *dm, const mdl_system *all, image *out, size_t cap)
{
    size_t m = 0;
    for (size_t i = 0; i < all->n; i++) {
        const double p[3] = {all->x[i], all->y[i], all->z[i]};
        for (int sz = -MAX_SHIFT; sz <= MAX_SHIFT; sz++)
            for (int sy = -MAX_SHIFT; sy <= MAX_SHIFT; sy++)
                for (int sx = -MAX_SHIFT; sx <= MAX_SHIFT; sx++) {
                    const int s[3] = {sx, sy, sz};
                    double q[3];
                    int inside = m < cap, shifted = 0;
                    for (int d = 0; d < 3; d++) {
                        if (s[d] && (!dm->ghosted[d] || !dm->box.periodic[d]))
                            inside = 0;
                        q[d] = s[d] ? p[d] + s[d] * dm->box.len[d] : p[d];
                        shifted |= s[d] != 0;
                        if (dm->ghosted[d] && !(q[d] >= dm->lo[d] - RG && q[d] < dm->hi[d] + RG))
                            inside = 0;
                    }
                    if (inside && (shifted || domain_owner(dm, p) != dm->rank))
                        out[m++] = (image){all->id[i], {q[0], q[1], q[2]}};
                }
    }
    return m;
}

/* The same atom at the same place, to rounding: an image several hops away has its shift added
   once per hop, as LAMMPS's multiple swaps add it. */
static int same_image(const image *u, const image *v)
{
    int same = u->id == v->id;
    for (int d = 0; d < 3; d++)
        same &= fabs(u->p[d] - v->p[d]) <= 1e-13 * (1 + fabs(u->p[d]));
    return same;
}

static void check_ghosts(const mdl_domain *dm, const mdl_system *all, const mdl_system *s, const char *when)
{
    const size_t cap = 64 * N;
    image *want = malloc(cap * sizeof *want), *got = malloc((s->n + 1) * sizeof *got);
    size_t nw = expected_ghosts(dm, all, want, cap), ng = s->n - dm->nlocal;
    for (size_t g = 0; g < ng; g++) {
        size_t j = dm->nlocal + g;
        got[g] = (image){s->id[j], {s->x[j], s->y[j], s->z[j]}};
    }
    qsort(want, nw, sizeof *want, by_id_then_position);
    qsort(got, ng, sizeof *got, by_id_then_position);
    CHECK(nw == ng, "%s: %zu ghosts, expected %zu (grid %d %d %d)", when, ng, nw, dm->grid[0], dm->grid[1],
          dm->grid[2]);
    for (size_t k = 0; k < nw && k < ng; k++)
        if (!same_image(&want[k], &got[k])) {
            CHECK(0, "%s: ghost %zu is atom %lld at (%g %g %g), expected %lld at (%g %g %g)", when, k,
                  (long long)got[k].id, got[k].p[0], got[k].p[1], got[k].p[2], (long long)want[k].id, want[k].p[0],
                  want[k].p[1], want[k].p[2]);
            break;
        }
    free(want);
    free(got);
}

/* Each owned atom is in this rank's brick, the global copy agrees with it, and the ranks own N. */
static void check_owned(const mdl_domain *dm, const mdl_system *all, const mdl_system *s, const char *when)
{
    double owned = (double)dm->nlocal;
    comm_sum_doubles(&owned, 1);
    CHECK(owned == N, "%s: %g atoms owned in all, not %d", when, owned, N);
    for (size_t i = 0; i < dm->nlocal; i++) {
        const double p[3] = {s->x[i], s->y[i], s->z[i]};
        size_t a = (size_t)s->id[i];
        CHECK(domain_owner(dm, p) == dm->rank, "%s: atom %zu outside the brick", when, a);
        CHECK(p[0] == all->x[a] && p[1] == all->y[a] && p[2] == all->z[a] && s->vx[i] == all->vx[a] &&
                  s->vy[i] == all->vy[a] && s->ix[i] == all->ix[a] && s->iy[i] == all->iy[a] &&
                  s->iz[i] == all->iz[a] && s->type[i] == all->type[a],
              "%s: atom %zu's state differs from the global copy", when, a);
    }
}

/* A displacement of atom i at `round`, below `size` along each dimension. */
static void displace(mdl_system *s, size_t i, int round, double size)
{
    int64_t a = s->id[i];
    s->x[i] += size * (2 * uniform(10 + round, 3 * a) - 1);
    s->y[i] += size * (2 * uniform(10 + round, 3 * a + 1) - 1);
    s->z[i] += size * (2 * uniform(10 + round, 3 * a + 2) - 1);
}

static void wrap_all(mdl_system *all)
{
    for (size_t i = 0; i < all->n; i++) {
        all->x[i] = box_wrap(all->x[i], all->box.lo[0], all->box.len[0], &all->ix[i]);
        all->y[i] = box_wrap(all->y[i], all->box.lo[1], all->box.len[1], &all->iy[i]);
        all->z[i] = box_wrap(all->z[i], all->box.lo[2], all->box.len[2], &all->iz[i]);
    }
}

/* The lists' cell grid (rcut 2.5 with ghosts to RG, then as dilute as 1 atom per 40 cells): cells
   at least rcut wide; along a decomposed dimension the brick's faces lie on cell boundaries and
   the cells beyond them reach RG; elsewhere the box, cut as cell_grid_dims cuts it. */
static void check_cell_grid(const mdl_domain *dm)
{
    for (size_t natoms = 100000; natoms >= 10; natoms /= 10000) {
        mdl_box r;
        int nc[3], plain[3];
        size_t total = domain_cell_grid(dm, 2.5, natoms, &r, nc);
        CHECK(total == (size_t)nc[0] * nc[1] * nc[2] && total <= 4 * natoms + 64, "%zu cells for %zu atoms", total,
              natoms);
        for (int d = 0; d < 3; d++) {
            const double w = r.len[d] / nc[d];
            CHECK(w >= 2.5 * (1 - 1e-12), "dim %d: cells %g wide", d, w);
            if (!dm->ghosted[d]) {
                CHECK(r.lo[d] == dm->box.lo[d] && r.len[d] == dm->box.len[d] && r.periodic[d], "dim %d: not the box",
                      d);
                continue;
            }
            const double at_lo = (dm->lo[d] - r.lo[d]) / w, at_hi = (dm->hi[d] - r.lo[d]) / w;
            const int narrow = dm->hi[d] - dm->lo[d] < 2.5 * 1.25 * 1.25; /* a cell wider than the brick */
            CHECK(narrow || (fabs(at_lo - rint(at_lo)) < 1e-9 && fabs(at_hi - rint(at_hi)) < 1e-9),
                  "dim %d: brick faces at cells %.12g and %.12g", d, at_lo, at_hi);
            CHECK(!r.periodic[d], "dim %d: a ghosted dimension's region is periodic", d);
            CHECK(dm->lo[d] - r.lo[d] >= RG - 1e-9 && r.lo[d] + r.len[d] - dm->hi[d] >= RG - 1e-9 &&
                      dm->lo[d] - r.lo[d] < RG + w,
                  "dim %d: ghost cells [%g, %g] around brick [%g, %g]", d, r.lo[d], r.lo[d] + r.len[d], dm->lo[d],
                  dm->hi[d]);
        }
        if (dm->size == 1 && !dm->ghosted[0] && !dm->ghosted[1] && !dm->ghosted[2]) {
            CHECK(cell_grid_dims(&dm->box, 2.5, natoms, plain) == total && plain[0] == nc[0] && plain[1] == nc[1] &&
                      plain[2] == nc[2],
                  "one rank: not cell_grid_dims' grid");
        }
    }
}

/* A box 2^22 list cutoffs wide (2 atoms): 2^22 cells per axis would make 2^66, a product that
   wrapped to 0; the grid gets a few wide cells, whatever the ranks' grid. */
static void check_huge_box(int size)
{
    const mdl_box huge = {{0, 0, 0}, {4194304.0, 4194304.0, 4194304.0}, {1, 1, 1}, {0, 0, 0}, 0};
    int grid[3];
    domain_choose_grid(&huge, size, 1.0, 1, grid);
    mdl_domain dm;
    if (domain_init(&dm, &huge, grid, 1.0, 1) != MDL_OK) {
        CHECK(0, "huge box: grid %d %d %d refused", grid[0], grid[1], grid[2]);
        return;
    }
    mdl_box r;
    int nc[3];
    size_t total = domain_cell_grid(&dm, 1.0, 2, &r, nc);
    CHECK(total >= 1 && total <= cell_grid_limit(2) && total == (size_t)nc[0] * nc[1] * nc[2],
          "huge box: %zu cells (%d x %d x %d) for 2 atoms", total, nc[0], nc[1], nc[2]);
    domain_destroy(&dm);
}

static void run_grid(const mdl_box *b, const int grid[3], int images)
{
    mdl_domain dm;
    mdl_system all = {0}, s = {0};
    make_system(&all, b);
    system_init(&s, 16);
    if (domain_init(&dm, b, grid, RG, images) != MDL_OK) {
        CHECK(0, "grid %d %d %d refused", grid[0], grid[1], grid[2]);
        return;
    }
    check_cell_grid(&dm);
    CHECK(domain_take_owned(&dm, &all, NULL, &s) == MDL_OK, "take_owned");
    check_owned(&dm, &all, &s, "start");
    CHECK(domain_build_ghosts(&dm, &s) == MDL_OK, "build_ghosts");
    check_ghosts(&dm, &all, &s, "start");
    for (int round = 0; round < 3; round++) {
        /* small moves between rebuilds: the ghosts follow their owners through the same lists */
        for (size_t i = 0; i < all.n; i++)
            displace(&all, i, round, 0.1);
        for (size_t i = 0; i < dm.nlocal; i++)
            displace(&s, i, round, 0.1);
        CHECK(domain_forward(&dm, &s) == MDL_OK, "forward");
        for (size_t j = dm.nlocal; j < s.n; j++) {
            size_t a = (size_t)s.id[j];
            double q[3] = {s.x[j], s.y[j], s.z[j]}, p[3] = {all.x[a], all.y[a], all.z[a]};
            for (int d = 0; d < 3; d++) {
                double k = rint((q[d] - p[d]) / b->len[d]);
                const double want = k != 0 ? p[d] + k * b->len[d] : p[d];
                CHECK(fabs(q[d] - want) <= 1e-13 * (1 + fabs(want)), "round %d: ghost of %zu not where its owner is",
                      round, a);
            }
        }
        /* a rebuild after larger moves, across bricks and periodic faces */
        for (size_t i = 0; i < all.n; i++)
            displace(&all, i, 100 + round, 1.0);
        for (size_t i = 0; i < dm.nlocal; i++)
            displace(&s, i, 100 + round, 1.0);
        wrap_all(&all);
        CHECK(domain_migrate(&dm, &s) == MDL_OK, "migrate");
        check_owned(&dm, &all, &s, "after migration");
        CHECK(domain_build_ghosts(&dm, &s) == MDL_OK, "build_ghosts");
        check_ghosts(&dm, &all, &s, "after migration");
    }
    domain_destroy(&dm);
    system_destroy(&all);
    system_destroy(&s);
}

int main(int argc, char **argv)
{
    if (comm_init(&argc, &argv) != MDL_OK)
        return 1;
    const int size = comm_size();
    const mdl_box b = {{-3.0, 1.5, 0.25}, {23.0, 17.0, 13.0}, {1, 1, 1}, {0, 0, 0}, 0};
    const mdl_box small = {{-1.0, 0.5, 0.0}, {2.0, 5.0, 23.0}, {1, 1, 1}, {0, 0, 0}, 0}; /* x under RG, y under 2 RG */
    int grids = 0;
    for (int px = 1; px <= size; px++)
        for (int py = 1; py <= size; py++)
            for (int pz = 1; pz <= size; pz++) {
                if (px * py * pz != size)
                    continue;
                const int grid[3] = {px, py, pz};
                int fits = b.len[0] / px >= RG && b.len[1] / py >= RG && b.len[2] / pz >= RG;
                run_grid(&small, grid, 1); /* with images every grid fits, bricks of any length */
                grids++;
                if (!fits) { /* without images a brick shorter than the ghost cutoff is refused, with a message */
                    mdl_domain dm;
                    CHECK(domain_init(&dm, &b, grid, RG, 0) == MDL_EINPUT, "grid %d %d %d not refused", px, py, pz);
                    domain_destroy(&dm);
                    continue;
                }
                run_grid(&b, grid, 0);
                run_grid(&b, grid, 1);
                grids += 2;
            }
    check_huge_box(size);
    int chosen[3];
    domain_choose_grid(&b, size, RG, 0, chosen);
    CHECK(chosen[0] * chosen[1] * chosen[2] == size, "chosen grid %d %d %d", chosen[0], chosen[1], chosen[2]);
    /* ghost shells by hand, 8 ranks in 23 x 17 x 13: 2 2 2 2282, 2 4 1 1554, 4 1 2 1700, 4 2 1 1445,
       8 1 1 1238 (bricks 2.875 long: they fit); the least brick surface would pick 2 2 2 */
    if (size == 8)
        CHECK(chosen[0] == 8 && chosen[1] == 1 && chosen[2] == 1, "8 ranks: grid %d %d %d", chosen[0], chosen[1],
              chosen[2]);
    /* a cube on 4 ranks: slabs (shell 8960) before 1 2 2 (10214); an open z is never decomposed */
    const mdl_box cube = {{0, 0, 0}, {40, 40, 40}, {1, 1, 1}, {0, 0, 0}, 0}, open_z = {{0, 0, 0}, {40, 40, 40}, {1, 1, 0}, {0, 0, 0}, 0};
    domain_choose_grid(&cube, 4, RG, 0, chosen);
    CHECK(chosen[0] == 1 && chosen[1] == 1 && chosen[2] == 4, "cube, 4 ranks: %d %d %d", chosen[0], chosen[1],
          chosen[2]);
    domain_choose_grid(&open_z, 4, RG, 0, chosen);
    CHECK(chosen[0] == 1 && chosen[1] == 4 && chosen[2] == 1, "open z, 4 ranks: %d %d %d", chosen[0], chosen[1],
          chosen[2]);
    int bad = failures;
    comm_or_int(&bad);
    if (comm_rank() == 0)
        printf("%d ranks: %d grids, %s\n", size, grids, bad ? "FAILED" : "ok");
    comm_finalize();
    return bad ? 1 : 0;
}

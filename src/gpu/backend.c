/* The GPU backend: device state as structure of arrays and the backend table, in C on top of
   the driver functions of gpu.h (no CUDA headers here). */
#include "context.h"

#include "../physics/cells.h"
#include "../util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void gpu_destroy(void *p)
{
    gpu_ctx *c = p;
    if (!c)
        return;
    if (c->nslots)
        gpu_synchronize();
    gpu_free_slots(c);
    void *dev[] = {c->x, c->y, c->z, c->vx, c->vy, c->vz, c->fx, c->fy, c->fz, c->pe, c->w, c->pos4, c->pos0,
                   c->ix, c->iy, c->iz, c->type, c->id, c->nl, c->count, c->flags, c->cell, c->perm,
                   c->cell_start, c->cell_end, c->scratch, c->scratch4, c->partials, c->result};
    for (size_t k = 0; k < sizeof dev / sizeof dev[0]; k++)
        gpu_free(dev[k]);
    gpu_host_pin_free(c->host_result);
    for (int k = 0; k < MDL_THERMO_SLOTS; k++)
        gpu_event_destroy(c->thermo_ev[k]);
    gpu_host_pin_free(c->host_flags);
    gpu_host_free((void *)c->moved);
    free(c);
}

static int alloc_all(gpu_ctx *c)
{
    size_t n = c->n, d8 = n * sizeof(double), d4 = n * sizeof(int), dr = n * sizeof(mdl_real);
    struct {
        void **p;
        size_t bytes;
        const char *what;
    } a[] = {
        {(void **)&c->x, d8, "positions"}, {(void **)&c->y, d8, "positions"}, {(void **)&c->z, d8, "positions"},
        {(void **)&c->vx, d8, "velocities"}, {(void **)&c->vy, d8, "velocities"},
        {(void **)&c->vz, d8, "velocities"}, {(void **)&c->fx, dr, "forces"}, {(void **)&c->fy, dr, "forces"},
        {(void **)&c->fz, dr, "forces"}, {(void **)&c->pe, dr, "energies"}, {(void **)&c->w, dr, "virials"},
        {(void **)&c->pos4, 4 * dr, "packed positions"}, {(void **)&c->pos0, 4 * dr, "positions at the build"},
        {(void **)&c->ix, d4, "images"}, {(void **)&c->iy, d4, "images"}, {(void **)&c->iz, d4, "images"},
        {(void **)&c->type, d4, "species"}, {(void **)&c->id, n * sizeof(int64_t), "ids"},
        {(void **)&c->count, d4, "neighbor counts"}, {(void **)&c->flags, 2 * sizeof(int), "flags"},
        {(void **)&c->cell, d4, "cell index"}, {(void **)&c->perm, d4, "permutation"},
        {(void **)&c->scratch, n * sizeof(int64_t), "sort scratch"},
        {(void **)&c->scratch4, d4, "sort scratch"},
        {(void **)&c->partials, 3 * gpu_reduce_blocks(n) * sizeof(double), "reduction"},
        {(void **)&c->result, 3 * (1 + MDL_THERMO_SLOTS) * sizeof(double), "reduction"},
    };
    for (size_t k = 0; k < sizeof a / sizeof a[0]; k++)
        TRY(gpu_malloc(a[k].p, a[k].bytes, a[k].what));
    TRY(gpu_host_pin_alloc((void **)&c->host_result, 3 * (1 + MDL_THERMO_SLOTS) * sizeof(double), "thermo results"));
    for (int k = 0; k < MDL_THERMO_SLOTS; k++)
        TRY(gpu_event_create(&c->thermo_ev[k]));
    TRY(gpu_host_pin_alloc((void **)&c->host_flags, 2 * sizeof(int), "flags"));
    TRY(gpu_host_alloc_mapped((void **)&c->moved, (void **)&c->moved_dev, 2 * sizeof(int), "the skin flags"));
    c->moved[0] = c->moved[1] = 0;
    return MDL_OK;
}

/* The state of s; its forces (a restart's; zero otherwise) are carried through the set-up's sort. */
static int upload(gpu_ctx *c, const mdl_system *s)
{
    size_t n = s->n, d8 = n * sizeof(double), d4 = n * sizeof(int);
    void *dev[] = {c->x, c->y, c->z, c->vx, c->vy, c->vz, c->ix, c->iy, c->iz, c->type, c->id};
    const void *host[] = {s->x, s->y, s->z, s->vx, s->vy, s->vz, s->ix, s->iy, s->iz, s->type, s->id};
    for (int k = 0; k < 11; k++)
        TRY(gpu_h2d(dev[k], host[k], k < 6 ? d8 : k < 10 ? d4 : n * sizeof(int64_t)));
    TRY(gpu_memset(c->pe, 0, n * sizeof(mdl_real)));
    TRY(gpu_memset(c->w, 0, n * sizeof(mdl_real)));
    TRY(gpu_memset(c->flags, 0, 2 * sizeof(int)));
    mdl_real *f = mdl_alloc(n * sizeof *f, "forces"), *to[] = {c->fx, c->fy, c->fz};
    const double *from[] = {s->fx, s->fy, s->fz};
    int rc = f ? MDL_OK : MDL_ERUN;
    for (int k = 0; k < 3 && rc == MDL_OK; k++) {
        for (size_t i = 0; i < n; i++)
            f[i] = (mdl_real)from[k][i];
        rc = gpu_h2d(to[k], f, n * sizeof *f) ? MDL_ERUN : MDL_OK;
    }
    free(f);
    c->forces_given = 1;
    return rc;
}

static int set_tables(const mdl_pair_table *pt, const double *mass)
{
    double t[6][MDL_MAX_SPECIES * MDL_MAX_SPECIES];
    for (int k = 0; k < pt->ntypes * pt->ntypes; k++) {
        t[0][k] = pt->c[k].lj1, t[1][k] = pt->c[k].lj2, t[2][k] = pt->c[k].lj3;
        t[3][k] = pt->c[k].lj4, t[4][k] = pt->c[k].offset, t[5][k] = pt->c[k].cutsq;
    }
    TRY(gpu_set_lj_table(pt->ntypes, t[0], t[1], t[2], t[3], t[4], t[5]));
    TRY(gpu_set_masses(pt->ntypes, mass));
    return MDL_OK;
}

/* Neighbor capacity before the first build: the expected full count at this density, +20%
   (an overflow grows it to what was needed, +10%). */
static int initial_capacity(int max_neighbors, size_t n, const mdl_box *b, double rlist)
{
    if (max_neighbors > 0)
        return max_neighbors;
    double vol = b->len[0] * b->len[1] * (b->len[2] > 0 ? b->len[2] : 1.0);
    double expect = 4.18879 * rlist * rlist * rlist * (double)n / vol;
    int cap = (int)(1.2 * expect) + 8;
    return cap < 16 ? 16 : cap;
}

static int grow_list(gpu_ctx *c, int capacity)
{
    gpu_free(c->nl);
    c->nl = NULL;
    c->capacity = (capacity + 3) & ~3;
    c->nl_bytes = (size_t)c->capacity * c->n * sizeof(int);
    return gpu_malloc((void **)&c->nl, c->nl_bytes, "neighbor list") ? MDL_ERUN : MDL_OK;
}

static int gpu_create(void **out, const mdl_setup *setup, const mdl_system *s)
{
    if (gpu_select() != 0)
        return MDL_ERUN;
    gpu_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return MDL_ERUN;
    *out = c;
    c->n = s->n;
    c->ntypes = s->ntypes;
    memcpy(c->mass, s->mass, sizeof c->mass);
    c->u = *setup->units;
    c->box = s->box;
    c->dt = setup->timestep;
    c->skin = setup->skin;
    c->rlist = setup->pairs->cutmax + setup->skin;
    c->method = setup->method;
    c->transposed = setup->layout == MDL_NL_TRANSPOSED;
    if (alloc_all(c) != MDL_OK || upload(c, s) != MDL_OK || set_tables(setup->pairs, s->mass) != MDL_OK)
        return MDL_ERUN;
    return grow_list(c, initial_capacity(setup->max_neighbors, c->n, &c->box, c->rlist));
}

static int gpu_draw_normals(uint64_t key, size_t n, const int64_t *id, double *out)
{
    return gpu_velocity_normals(key, n, id, out) == 0 ? MDL_OK : MDL_ERUN;
}

static int gpu_neighbor_check(void *p, int *status)
{
    gpu_ctx *c = p;
    /* kick_drift has tested every atom at every step since the build (moved[0]: past skin/2,
       moved[1]: past the skin or not finite); wait for the compute stream only (output copies
       on the copy stream go on) */
    TRY(gpu_stream_sync(NULL));
    *status = c->moved[1] ? MDL_CHECK_UNSAFE : c->moved[0] ? MDL_CHECK_REBUILD : MDL_CHECK_OK;
    return MDL_OK;
}

/* Swaps two pointer variables of one type, given their addresses. */
static void swap_ptr(void *a, void *b)
{
    void *t;
    memcpy(&t, a, sizeof t), memcpy(a, b, sizeof t), memcpy(b, &t, sizeof t);
}

/* Sort atoms by cell: every per-atom array is gathered through the permutation. */
static int sort_by_cell(gpu_ctx *c)
{
    size_t n = c->n;
    TRY(gpu_cell_index(n, c->box, c->nc, c->pos4, c->cell, c->perm));
    TRY(mdl_sort_by_key_int(c->cell, c->perm, n));
    double **d8[] = {&c->x, &c->y, &c->z, &c->vx, &c->vy, &c->vz};
    for (int k = 0; k < 6; k++) {
        TRY(gpu_gather_double(n, c->perm, *d8[k], c->scratch));
        swap_ptr(d8[k], &c->scratch);
    }
    int **d4[] = {&c->ix, &c->iy, &c->iz, &c->type};
    for (int k = 0; k < 4; k++) {
        TRY(gpu_gather_int(n, c->perm, *d4[k], c->scratch4));
        swap_ptr(d4[k], &c->scratch4);
    }
    TRY(gpu_gather_i64(n, c->perm, c->id, (int64_t *)c->scratch));
    swap_ptr(&c->id, &c->scratch);
    mdl_real *f[] = {c->fx, c->fy, c->fz}; /* forces are recomputed after a build, except at a restart */
    for (int k = 0; k < 3 && c->forces_given; k++) {
        TRY(gpu_gather_real(n, c->perm, f[k], (mdl_real *)c->scratch));
        TRY(gpu_d2d(f[k], c->scratch, n * sizeof(mdl_real)));
    }
    /* pos4 is repacked from the sorted arrays */
    return gpu_wrap_and_pack(n, c->box, c->x, c->y, c->z, c->ix, c->iy, c->iz, c->type, c->pos4) ? MDL_ERUN : MDL_OK;
}

static int setup_cells(gpu_ctx *c)
{
    size_t total = cell_grid_dims(&c->box, c->rlist, c->n, c->nc);
    if (total > c->ncells_cap) {
        gpu_free(c->cell_start);
        gpu_free(c->cell_end);
        if (gpu_malloc((void **)&c->cell_start, total * sizeof(int), "cell starts") ||
            gpu_malloc((void **)&c->cell_end, total * sizeof(int), "cell ends"))
            return MDL_ERUN;
        c->ncells_cap = total;
    }
    return MDL_OK;
}

static int build_list(gpu_ctx *c)
{
    size_t n = c->n;
    int si = c->transposed ? 1 : c->capacity, sk = c->transposed ? (int)n : 1;
    TRY(gpu_memset(c->flags + 1, 0, sizeof(int)));
    if (c->method == MDL_NL_CELL) {
        TRY(gpu_build_cell(n, c->box, c->nc, c->cell_start, c->cell_end, c->pos4, c->rlist, c->nl, c->count,
                           c->capacity, si, sk, c->flags));
    } else if (c->method == MDL_NL_BRUTE) {
        TRY(gpu_build_brute(n, c->box, c->pos4, c->rlist, c->nl, c->count, c->capacity, si, sk, c->flags));
    } else {
        TRY(gpu_build_brute_atomic(n, c->box, c->pos4, c->rlist, c->nl, c->count, c->capacity, si, sk, c->flags));
    }
    return MDL_OK;
}

static int gpu_build_neighbors(void *p)
{
    gpu_ctx *c = p;
    size_t n = c->n;
    TRY(gpu_wrap_and_pack(n, c->box, c->x, c->y, c->z, c->ix, c->iy, c->iz, c->type, c->pos4));
    if (c->method == MDL_NL_CELL) {
        if (setup_cells(c) != MDL_OK || sort_by_cell(c) != MDL_OK)
            return MDL_ERUN;
        TRY(gpu_cell_bounds(n, (size_t)c->nc[0] * c->nc[1] * c->nc[2], c->cell, c->cell_start, c->cell_end));
    }
    for (;;) { /* build; on overflow grow to what was needed (+10%) and build again */
        if (build_list(c) != MDL_OK)
            return MDL_ERUN;
        TRY(gpu_d2h(c->host_flags, c->flags, 2 * sizeof(int)));
        if (c->host_flags[1] <= c->capacity)
            break;
        if (grow_list(c, c->host_flags[1] + c->host_flags[1] / 10 + 4) != MDL_OK)
            return MDL_ERUN;
    }
    c->moved[0] = 0; /* no kick_drift is in flight: the host waited for the build's count; moved[1]
                        (unsafe) stays set: it stops the run */
    TRY(gpu_d2d(c->pos0, c->pos4, 4 * n * sizeof(mdl_real)));
    return MDL_OK;
}

static int gpu_compute_forces(void *p, int what)
{
    gpu_ctx *c = p;
    int si = c->transposed ? 1 : c->capacity, sk = c->transposed ? (int)c->n : 1, keep = what == MDL_ENERGY_ONLY;
    TRY(gpu_lj_forces(c->n, c->ntypes, c->box, c->pos4, c->nl, c->count, si, sk, keep ? NULL : c->fx,
                      keep ? NULL : c->fy, keep ? NULL : c->fz, what != MDL_FORCES, c->pe, c->w));
    c->forces_given = 0;
    return MDL_OK;
}

static int gpu_integrate_first(void *p)
{
    gpu_ctx *c = p;
    TRY(gpu_kick_drift(c->n, 0.5 * c->dt * c->u.ftm2v, c->dt, c->x, c->y, c->z, c->vx, c->vy, c->vz, c->fx, c->fy,
                       c->fz, c->type, c->pos4, c->pos0, c->skin, c->moved_dev));
    return MDL_OK;
}

static int gpu_integrate_second(void *p)
{
    gpu_ctx *c = p;
    TRY(gpu_kick(c->n, 0.5 * c->dt * c->u.ftm2v, c->vx, c->vy, c->vz, c->fx, c->fy, c->fz, c->type));
    return MDL_OK;
}

static int gpu_langevin_force(void *p, const mdl_langevin *lp, uint64_t seed, long step)
{
    gpu_ctx *c = p;
    TRY(gpu_langevin(c->n, c->vx, c->vy, c->vz, c->fx, c->fy, c->fz, c->type, c->id, *lp, seed, (uint64_t)step));
    return MDL_OK;
}

static int gpu_scale_velocities(void *p, double target, double coupling)
{
    gpu_ctx *c = p;
    /* the temperature stays on the device: no host synchronisation */
    TRY(gpu_reduce(c->n, c->vx, c->vy, c->vz, c->type, NULL, NULL, c->partials, c->result));
    TRY(gpu_scale_to_temperature(c->n, c->vx, c->vy, c->vz, c->result, target, coupling, c->u.mvv2e, c->u.boltz,
                                 3.0 * (double)c->n - 3.0));
    return MDL_OK;
}

static int gpu_sync(void *p)
{
    (void)p;
    return gpu_synchronize() ? MDL_ERUN : MDL_OK;
}

const mdl_backend_ops mdl_gpu_backend = {
    .name = "gpu",
    .create = gpu_create,
    .destroy = gpu_destroy,
    .neighbor_check = gpu_neighbor_check,
    .diagnose = gpu_diagnose,
    .draw_normals = gpu_draw_normals,
    .build_neighbors = gpu_build_neighbors,
    .compute_forces = gpu_compute_forces,
    .integrate_first = gpu_integrate_first,
    .integrate_second = gpu_integrate_second,
    .langevin = gpu_langevin_force,
    .scale_to_temperature = gpu_scale_velocities,
    .neighbor_rows = gpu_neighbor_rows,
    .stats = gpu_stats,
    .synchronize = gpu_sync,
    .reduce_start = gpu_reduce_start,
    .reduce_poll = gpu_reduce_poll,
    .snapshot_alloc = gpu_snapshot_alloc,
    .snapshot_start = gpu_snapshot_start,
    .snapshot_finish = gpu_snapshot_finish,
};

/* The GPU backend: device state as structure of arrays and the backend table, in C on top of
   the driver functions of gpu.h (no CUDA headers here). */
#include "neighbors_demo.h"

#include "../backend.h"
#include "../physics/cells.h"
#include "../util.h"
#include "gpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TRY(call)                   \
    do {                            \
        if ((call) != 0)            \
            return MDL_ERUN;        \
    } while (0)

typedef struct {
    size_t n;
    int ntypes;
    double mass[MDL_MAX_SPECIES];
    mdl_units u;
    mdl_box box;
    double dt, skin, rlist;
    int method;          /* MDL_NL_CELL, MDL_NL_BRUTE, MDL_NL_BRUTE_ATOMIC */
    int transposed;

    double *x, *y, *z, *vx, *vy, *vz;
    mdl_real *fx, *fy, *fz, *pe, *w;
    mdl_real *pos4, *pos0;
    int *ix, *iy, *iz, *type;
    int64_t *id;
    int *nl, *count, *flags;  /* flags[1]: largest overflowing count (flags[0]: unused by the run) */
    int capacity;             /* neighbor slots per atom */
    int *cell, *perm, *cell_start, *cell_end;
    size_t ncells_cap;
    int nc[3];
    double *scratch;          /* n doubles (or int64) for sorting: swapped with the array it replaces */
    int *scratch4;            /* n ints, likewise for the int arrays */
    double *partials, *result;   /* result: 3 doubles for the synchronous path, then 3 per thermo slot */
    double *host_result;         /* pinned, same layout */
    void *thermo_ev[MDL_THERMO_SLOTS];
    int thermo_energy[MDL_THERMO_SLOTS];
    int *host_flags;          /* pinned: 2 ints */
    volatile int *moved;      /* mapped host memory, 2 ints set by kick_drift: an atom moved past
                                 skin/2 (rebuild); past the skin or not finite (unsafe: stop) */
    int *moved_dev;           /* the same words, as the device addresses them */
    double pe_sum, w_sum;
    int have_energy;
    size_t nl_bytes;
    /* asynchronous output: slots of a device staging area and pinned host memory, each holding
       a frame in id order (system_field_arrays' order, forces as double); a copy stream */
    void *copy_stream;
    int nslots, slot_fields;
    struct gpu_slot {
        void *dev[MDL_FIELD_ARRAYS], *host[MDL_FIELD_ARRAYS]; /* NULL until the slot is first used */
        double *dev_sums, *host_sums; /* the reduction's 3 sums (see gpu_reduce) */
        void *snapped, *copied;     /* events: snapshot on the compute stream, copy on the copy stream */
        int fields, energy;
        double pe_sum, w_sum;       /* without energy: those of the last synchronous reduction */
    } *slots;
} gpu_ctx;

static void free_slots(gpu_ctx *c)
{
    for (int k = 0; k < c->nslots; k++) {
        struct gpu_slot *sl = &c->slots[k];
        for (int a = 0; a < MDL_FIELD_ARRAYS; a++) {
            gpu_free(sl->dev[a]);
            gpu_host_pin_free(sl->host[a]);
        }
        gpu_free(sl->dev_sums);
        gpu_host_pin_free(sl->host_sums);
        gpu_event_destroy(sl->snapped);
        gpu_event_destroy(sl->copied);
    }
    free(c->slots);
    c->slots = NULL;
    c->nslots = 0;
    gpu_stream_destroy(c->copy_stream);
    c->copy_stream = NULL;
}

static void gpu_destroy(void *p)
{
    gpu_ctx *c = p;
    if (!c)
        return;
    if (c->nslots)
        gpu_synchronize();
    free_slots(c);
    void *dev[] = {c->x, c->y, c->z, c->vx, c->vy, c->vz, c->fx, c->fy, c->fz, c->pe, c->w, c->pos4, c->pos0,
                   c->ix, c->iy, c->iz, c->type, c->id, c->nl, c->count, c->flags, c->cell, c->perm,
                   c->cell_start, c->cell_end, c->scratch, c->scratch4, c->partials, c->result};
    for (size_t k = 0; k < sizeof dev / sizeof dev[0]; k++)
        gpu_free(dev[k]);
    gpu_host_free(c->host_result);
    for (int k = 0; k < MDL_THERMO_SLOTS; k++)
        gpu_event_destroy(c->thermo_ev[k]);
    gpu_host_free(c->host_flags);
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
    TRY(gpu_host_alloc((void **)&c->host_result, 3 * (1 + MDL_THERMO_SLOTS) * sizeof(double), "thermo results"));
    for (int k = 0; k < MDL_THERMO_SLOTS; k++)
        TRY(gpu_event_create(&c->thermo_ev[k]));
    TRY(gpu_host_alloc((void **)&c->host_flags, 2 * sizeof(int), "flags"));
    TRY(gpu_host_alloc_mapped((void **)&c->moved, (void **)&c->moved_dev, 2 * sizeof(int), "the skin flags"));
    c->moved[0] = c->moved[1] = 0;
    return MDL_OK;
}

static int upload(gpu_ctx *c, const mdl_system *s)
{
    size_t n = s->n, d8 = n * sizeof(double), d4 = n * sizeof(int);
    TRY(gpu_h2d(c->x, s->x, d8));
    TRY(gpu_h2d(c->y, s->y, d8));
    TRY(gpu_h2d(c->z, s->z, d8));
    TRY(gpu_h2d(c->vx, s->vx, d8));
    TRY(gpu_h2d(c->vy, s->vy, d8));
    TRY(gpu_h2d(c->vz, s->vz, d8));
    TRY(gpu_h2d(c->ix, s->ix, d4));
    TRY(gpu_h2d(c->iy, s->iy, d4));
    TRY(gpu_h2d(c->iz, s->iz, d4));
    TRY(gpu_h2d(c->type, s->type, d4));
    TRY(gpu_h2d(c->id, s->id, n * sizeof(int64_t)));
    TRY(gpu_memset(c->fx, 0, n * sizeof(mdl_real)));
    TRY(gpu_memset(c->fy, 0, n * sizeof(mdl_real)));
    TRY(gpu_memset(c->fz, 0, n * sizeof(mdl_real)));
    TRY(gpu_memset(c->flags, 0, 2 * sizeof(int)));
    return MDL_OK;
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

static int gpu_download(void *p, mdl_system *out)
{
    gpu_ctx *c = p;
    size_t n = c->n;
    double *buf = malloc(n * sizeof(double) * 3 + n * sizeof(int64_t) + n * sizeof(mdl_real) * 3);
    if (!buf) {
        fprintf(stderr, "mdlite: error: out of memory downloading the GPU state\n");
        return MDL_ERUN;
    }
    int64_t *id = (int64_t *)(buf + 3 * n);
    mdl_real *f = (mdl_real *)(id + n);
    int rc = MDL_OK;
    if (gpu_d2h(id, c->id, n * sizeof(int64_t)))
        rc = MDL_ERUN;
    double *src8[] = {c->x, c->y, c->z, c->vx, c->vy, c->vz};
    double *dst8[] = {out->x, out->y, out->z, out->vx, out->vy, out->vz};
    for (int k = 0; k < 6 && rc == MDL_OK; k++) {
        if (gpu_d2h(buf, src8[k], n * sizeof(double))) {
            rc = MDL_ERUN;
            break;
        }
        for (size_t i = 0; i < n; i++)
            dst8[k][id[i]] = buf[i];
    }
    mdl_real *srcf[] = {c->fx, c->fy, c->fz};
    double *dstf[] = {out->fx, out->fy, out->fz};
    for (int k = 0; k < 3 && rc == MDL_OK; k++) {
        if (gpu_d2h(f, srcf[k], n * sizeof(mdl_real))) {
            rc = MDL_ERUN;
            break;
        }
        for (size_t i = 0; i < n; i++)
            dstf[k][id[i]] = (double)f[i];
    }
    int *srci[] = {c->ix, c->iy, c->iz, c->type};
    int32_t *dsti[] = {out->ix, out->iy, out->iz, out->type};
    for (int k = 0; k < 4 && rc == MDL_OK; k++) {
        int *tmp = (int *)buf;
        if (gpu_d2h(tmp, srci[k], n * sizeof(int))) {
            rc = MDL_ERUN;
            break;
        }
        for (size_t i = 0; i < n; i++)
            dsti[k][id[i]] = tmp[i];
    }
    for (size_t i = 0; i < n && rc == MDL_OK; i++)
        out->id[i] = (int64_t)i;
    free(buf);
    return rc;
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

/* The health check's slow path (the run is failing): the state and the positions at the last
   build to the host, in id order, scanned there. */
static int gpu_diagnose(void *p, mdl_health *h)
{
    gpu_ctx *c = p;
    size_t n = c->n;
    mdl_system s;
    if (system_init(&s, n) != MDL_OK)
        return MDL_ERUN;
    s.n = n;
    mdl_real *p0 = malloc(4 * n * sizeof *p0);
    int64_t *id = malloc(n * sizeof *id);
    double *x0 = malloc(3 * n * sizeof *x0);
    int rc = p0 && id && x0 ? gpu_download(c, &s) : MDL_ERUN;
    if (rc == MDL_OK && (gpu_d2h(p0, c->pos0, 4 * n * sizeof *p0) || gpu_d2h(id, c->id, n * sizeof *id)))
        rc = MDL_ERUN;
    for (size_t i = 0; i < n && rc == MDL_OK; i++)
        for (int d = 0; d < 3; d++)
            x0[d * n + (size_t)id[i]] = (double)p0[4 * i + d];
    if (rc == MDL_OK)
        health_scan(n, s.id, (mdl_vec3_arrays){s.x, s.y, s.z}, (mdl_vec3_arrays){x0, x0 + n, x0 + 2 * n},
                    (mdl_vec3_arrays){s.vx, s.vy, s.vz}, (mdl_vec3_arrays){s.fx, s.fy, s.fz}, c->skin, h);
    free(p0);
    free(id);
    free(x0);
    system_destroy(&s);
    return rc;
}

static void swap_d(double **a, double **b)
{
    double *t = *a;
    *a = *b;
    *b = t;
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
        swap_d(d8[k], &c->scratch);
    }
    int **d4[] = {&c->ix, &c->iy, &c->iz, &c->type};
    for (int k = 0; k < 4; k++) {
        TRY(gpu_gather_int(n, c->perm, *d4[k], c->scratch4));
        int *t = *d4[k];
        *d4[k] = c->scratch4;
        c->scratch4 = t;
    }
    TRY(gpu_gather_i64(n, c->perm, c->id, (int64_t *)c->scratch));
    int64_t *t = c->id;
    c->id = (int64_t *)c->scratch;
    c->scratch = (double *)t;
    /* forces are recomputed after every build; pos4 is repacked from the sorted arrays */
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

static int gpu_compute_forces(void *p, int energy_virial)
{
    gpu_ctx *c = p;
    int si = c->transposed ? 1 : c->capacity, sk = c->transposed ? (int)c->n : 1;
    TRY(gpu_lj_forces(c->n, c->ntypes, c->box, c->pos4, c->nl, c->count, si, sk, c->fx, c->fy, c->fz,
                      energy_virial, c->pe, c->w));
    c->have_energy = energy_virial;
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

/* Queues the reduction of the current state into sums (device: sum m v^2, and with energy
   sum pe and sum w). */
static int queue_reduce(gpu_ctx *c, double *sums)
{
    return gpu_reduce(c->n, c->vx, c->vy, c->vz, c->type, c->have_energy ? c->pe : NULL,
                      c->have_energy ? c->w : NULL, c->partials, sums);
}

/* Observables from a reduction's sums copied to the host (energy: they include pe and w; else
   those of the last synchronous energy reduction). */
static void observables_from_sums(const gpu_ctx *c, const double *sums, int energy, mdl_observables *o)
{
    o->kinetic = 0.5 * c->u.mvv2e * sums[0];
    o->potential = energy ? sums[1] : c->pe_sum;
    o->virial = energy ? sums[2] : c->w_sum;
    mdl_finish_observables(o, c->n, c->box.len[0] * c->box.len[1] * c->box.len[2], &c->u);
}

static int gpu_reduce_obs(void *p, mdl_observables *o)
{
    gpu_ctx *c = p;
    TRY(queue_reduce(c, c->result));
    TRY(gpu_d2h(c->host_result, c->result, 3 * sizeof(double)));
    if (c->have_energy) {
        c->pe_sum = c->host_result[1];
        c->w_sum = c->host_result[2];
    }
    observables_from_sums(c, c->host_result, c->have_energy, o);
    return MDL_OK;
}

/* Thermo without stalls: the reduction and a 24-byte copy to pinned memory are queued behind the
   step on the compute stream; the driver prints the row once the event has passed. */
static int gpu_reduce_start(void *p, int slot)
{
    gpu_ctx *c = p;
    double *dev = c->result + 3 * (1 + slot), *host = c->host_result + 3 * (1 + slot);
    TRY(queue_reduce(c, dev));
    TRY(gpu_copy_async(host, dev, 3 * sizeof(double), NULL));
    TRY(gpu_event_record(c->thermo_ev[slot], NULL));
    c->thermo_energy[slot] = c->have_energy;
    return MDL_OK;
}

static int gpu_reduce_poll(void *p, int slot, mdl_observables *o, int wait)
{
    gpu_ctx *c = p;
    if (wait) {
        TRY(gpu_event_sync(c->thermo_ev[slot]));
    } else {
        int q = gpu_event_query(c->thermo_ev[slot]);
        if (q == 1)
            return MDL_NOT_READY;
        if (q != 0)
            return MDL_ERUN;
    }
    observables_from_sums(c, c->host_result + 3 * (1 + slot), c->thermo_energy[slot], o);
    return MDL_OK;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int gpu_backend_neighbor_rows(void *p, int **rows_out, size_t **start_out)
{
    gpu_ctx *c = p;
    size_t n = c->n, cap = (size_t)c->capacity;
    int *nl = malloc(cap * n * sizeof *nl), *count = malloc(n * sizeof *count);
    int64_t *id = malloc(n * sizeof *id);
    size_t *start = calloc(n + 1, sizeof *start);
    int *rows = NULL;
    int rc = nl && count && id && start ? MDL_OK : MDL_ERUN;
    if (rc == MDL_OK && (gpu_d2h(nl, c->nl, cap * n * sizeof *nl) || gpu_d2h(count, c->count, n * sizeof *count) ||
                         gpu_d2h(id, c->id, n * sizeof *id)))
        rc = MDL_ERUN;
    if (rc == MDL_OK) {
        for (size_t k = 0; k < n; k++)
            start[id[k] + 1] = (size_t)count[k];
        for (size_t i = 0; i < n; i++)
            start[i + 1] += start[i];
        rows = malloc((start[n] + 1) * sizeof *rows);
        rc = rows ? MDL_OK : MDL_ERUN;
    }
    size_t si = c->transposed ? 1 : cap, sk = c->transposed ? n : 1;
    for (size_t k = 0; k < n && rc == MDL_OK; k++) {
        int *row = rows + start[id[k]];
        for (int q = 0; q < count[k]; q++)
            row[q] = (int)id[nl[k * si + (size_t)q * sk]];
        qsort(row, (size_t)count[k], sizeof *row, cmp_int);
    }
    free(nl), free(count), free(id);
    if (rc != MDL_OK) {
        free(rows), free(start);
        return rc;
    }
    *rows_out = rows;
    *start_out = start;
    return MDL_OK;
}

static int gpu_stats(void *p, mdl_backend_stats *out)
{
    gpu_ctx *c = p;
    int *cnt = malloc(c->n * sizeof(int));
    double total = 0;
    int rc = cnt && gpu_d2h(cnt, c->count, c->n * sizeof(int)) == 0 ? MDL_OK : MDL_ERUN;
    for (size_t i = 0; i < c->n && rc == MDL_OK; i++)
        total += cnt[i];
    free(cnt);
    *out = (mdl_backend_stats){0.5 * total /* full lists hold each pair twice */, gpu_bytes_allocated()};
    return rc;
}

static int gpu_snapshot_alloc(void *p, int nslots, int max_fields)
{
    gpu_ctx *c = p;
    free_slots(c);
    c->slots = calloc((size_t)nslots, sizeof *c->slots);
    if (!c->slots)
        return MDL_ERUN;
    c->nslots = nslots;
    c->slot_fields = max_fields;
    TRY(gpu_stream_create(&c->copy_stream));
    return MDL_OK;
}

/* A slot's device staging arrays and events, on its first use (main thread). */
static int fill_slot_device(gpu_ctx *c, struct gpu_slot *sl)
{
    if (sl->snapped)
        return MDL_OK;
    for (int a = 0; a < MDL_FIELD_ARRAYS; a++)
        if (c->slot_fields & field_of_array(a))
            TRY(gpu_malloc(&sl->dev[a], c->n * field_array_bytes(a), "output staging slots"));
    TRY(gpu_malloc((void **)&sl->dev_sums, 3 * sizeof(double), "output staging slots"));
    TRY(gpu_event_create(&sl->snapped));
    TRY(gpu_event_create_blocking(&sl->copied)); /* the writer thread sleeps on it */
    return MDL_OK;
}

/* A slot's pinned arrays, on its first use (writer thread: touching and page-locking take
   milliseconds per 10 MB, which the step loop should not wait for). */
static int fill_slot_host(gpu_ctx *c, struct gpu_slot *sl)
{
    if (sl->host_sums)
        return MDL_OK;
    for (int a = 0; a < MDL_FIELD_ARRAYS; a++)
        if (c->slot_fields & field_of_array(a))
            TRY(gpu_host_pin_alloc(&sl->host[a], c->n * field_array_bytes(a), "pinned output slots"));
    TRY(gpu_host_pin_alloc((void **)&sl->host_sums, 3 * sizeof(double), "pinned output slots"));
    return MDL_OK;
}

/* Main thread, never blocking: the compute stream scatters the fields into id order in the
   slot's staging arrays and reduces the observables into it. (A slot is free only once the
   writer has finished it, so its previous copy is complete.) */
static int gpu_snapshot_start(void *p, int k, int fields)
{
    gpu_ctx *c = p;
    struct gpu_slot *sl = &c->slots[k];
    if (fill_slot_device(c, sl) != MDL_OK)
        return MDL_ERUN;
    double *const *d = (double *const *)sl->dev;
    if (fields & MDL_DUMP_POSITION)
        TRY(gpu_scatter3_double(c->n, c->id, (const double *const[]){c->x, c->y, c->z}, d));
    if (fields & MDL_DUMP_VELOCITY)
        TRY(gpu_scatter3_double(c->n, c->id, (const double *const[]){c->vx, c->vy, c->vz}, d + 3));
    if (fields & MDL_DUMP_FORCE)
        TRY(gpu_scatter3_real(c->n, c->id, (const mdl_real *const[]){c->fx, c->fy, c->fz}, d + 6));
    if (fields & MDL_DUMP_IMAGE)
        TRY(gpu_scatter3_int(c->n, c->id, (const int *const[]){c->ix, c->iy, c->iz}, (int *const *)sl->dev + 9));
    TRY(queue_reduce(c, sl->dev_sums));
    TRY(gpu_event_record(sl->snapped, NULL));
    sl->fields = fields;
    sl->energy = c->have_energy;
    sl->pe_sum = c->pe_sum;
    sl->w_sum = c->w_sum;
    return MDL_OK;
}

/* Writer thread: the copy stream moves the slot to pinned memory once the snapshot is done; wait
   for it; the frame's arrays are the slot's pinned memory. */
static int gpu_snapshot_finish(void *p, int k, mdl_system *frame, mdl_observables *obs)
{
    gpu_ctx *c = p;
    struct gpu_slot *sl = &c->slots[k];
    if (fill_slot_host(c, sl) != MDL_OK)
        return MDL_ERUN;
    TRY(gpu_stream_wait(c->copy_stream, sl->snapped));
    for (int a = 0; a < MDL_FIELD_ARRAYS; a++)
        if (sl->fields & field_of_array(a))
            TRY(gpu_copy_async(sl->host[a], sl->dev[a], c->n * field_array_bytes(a), c->copy_stream));
    TRY(gpu_copy_async(sl->host_sums, sl->dev_sums, 3 * sizeof(double), c->copy_stream));
    TRY(gpu_event_record(sl->copied, c->copy_stream));
    TRY(gpu_event_sync(sl->copied));
    system_point_fields(frame, sl->host, sl->fields);
    double sums[3] = {sl->host_sums[0], sl->energy ? sl->host_sums[1] : sl->pe_sum,
                      sl->energy ? sl->host_sums[2] : sl->w_sum};
    observables_from_sums(c, sums, 1, obs);
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
    .download = gpu_download,
    .neighbor_check = gpu_neighbor_check,
    .diagnose = gpu_diagnose,
    .draw_normals = gpu_draw_normals,
    .build_neighbors = gpu_build_neighbors,
    .compute_forces = gpu_compute_forces,
    .integrate_first = gpu_integrate_first,
    .integrate_second = gpu_integrate_second,
    .langevin = gpu_langevin_force,
    .scale_to_temperature = gpu_scale_velocities,
    .reduce = gpu_reduce_obs,
    .stats = gpu_stats,
    .synchronize = gpu_sync,
    .reduce_start = gpu_reduce_start,
    .reduce_poll = gpu_reduce_poll,
    .snapshot_alloc = gpu_snapshot_alloc,
    .snapshot_start = gpu_snapshot_start,
    .snapshot_finish = gpu_snapshot_finish,
};

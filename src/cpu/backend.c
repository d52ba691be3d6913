/* The CPU backend: owns a cell-sorted copy of the system and fills the backend table with the
   neighbor, force and integration routines of src/cpu/. */
#include "../backend.h"

#include "../physics/thermostat.h"
#include "../util.h"
#include "force.h"
#include "integrate.h"
#include "neighbor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

typedef struct {
    mdl_system s;             /* atoms in cell-sorted order; s.id maps back */
    mdl_units u;
    cpu_lj_table lj;
    double dt, skin, rneigh;
    int brute;                /* method = brute */
    int check, since, started; /* steps between skin tests; steps since the last build */
    long builds, dangerous, last_build, unsafe_step; /* unsafe_step: -1 while healthy */
    long step;                /* the last step update_neighbors saw */
    int threads;
    double inv_mass[MDL_MAX_SPECIES];
    double *x0, *y0, *z0;     /* positions at the last build */
    int32_t *perm;
    void *scratch;            /* n doubles for permutations */
    cpu_cells cells;
    cpu_nlist nl;
    cpu_force_scratch fscratch;
    double pe, virial;        /* of the last energy_virial force call */
    mdl_observables thermo_rows[MDL_THERMO_SLOTS]; /* reduce_start's results */
    int nslots, slot_fields;
    struct cpu_slot {
        void *a[MDL_FIELD_ARRAYS]; /* a frame in id order (system_field_arrays' order); NULL: not yet used */
        int fields;
        mdl_observables obs;
    } *slots;
} cpu_ctx;

static void free_slots(cpu_ctx *c)
{
    for (int k = 0; k < c->nslots; k++)
        for (int a = 0; a < MDL_FIELD_ARRAYS; a++)
            free(c->slots[k].a[a]);
    free(c->slots);
    c->slots = NULL;
    c->nslots = 0;
}

static void cpu_destroy(void *p)
{
    cpu_ctx *c = p;
    if (!c)
        return;
    free_slots(c);
    system_destroy(&c->s);
    free(c->x0);
    free(c->y0);
    free(c->z0);
    free(c->perm);
    free(c->scratch);
    cells_destroy(&c->cells);
    nlist_destroy(&c->nl);
    force_scratch_destroy(&c->fscratch);
    free(c);
}

static int copy_system(mdl_system *dst, mdl_system *src)
{
    if (system_init(dst, src->n) != MDL_OK)
        return MDL_ERUN;
    void **from[MDL_FIELD_ARRAYS], **to[MDL_FIELD_ARRAYS];
    system_field_arrays(src, from);
    system_field_arrays(dst, to);
    for (int k = 0; k < MDL_FIELD_ARRAYS; k++)
        memcpy(*to[k], *from[k], src->n * field_array_bytes(k));
    memcpy(dst->type, src->type, src->n * sizeof *dst->type);
    memcpy(dst->id, src->id, src->n * sizeof *dst->id);
    dst->n = src->n, dst->ntypes = src->ntypes, dst->box = src->box;
    memcpy(dst->species, src->species, sizeof dst->species);
    memcpy(dst->mass, src->mass, sizeof dst->mass);
    return MDL_OK;
}

static int cpu_create(void **out, const mdl_setup *setup, const mdl_system *s)
{
    cpu_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        mdl_error("out of memory for the CPU backend");
        return MDL_ERUN;
    }
    *out = c;
    c->u = *setup->units;
    cpu_lj_table_fill(&c->lj, setup->pairs);
    c->dt = setup->timestep;
    c->skin = setup->skin;
    c->check = setup->check;
    c->unsafe_step = -1;
    c->rneigh = setup->pairs->cutmax + setup->skin;
    c->brute = setup->method == MDL_NL_BRUTE;
    c->threads = setup->threads > 0 ? setup->threads : omp_get_max_threads();
    if (c->threads > MDL_MAX_THREADS)
        c->threads = MDL_MAX_THREADS;
    for (int t = 0; t < s->ntypes; t++)
        c->inv_mass[t] = 1.0 / s->mass[t];
    cells_init(&c->cells);
    nlist_init(&c->nl);
    force_scratch_init(&c->fscratch);
    size_t n = s->n;
    if (copy_system(&c->s, (mdl_system *)s) != MDL_OK) /* read only */
        return MDL_ERUN;
    c->x0 = mdl_alloc(n * sizeof(double), "reference positions");
    c->y0 = mdl_alloc(n * sizeof(double), "reference positions");
    c->z0 = mdl_alloc(n * sizeof(double), "reference positions");
    c->perm = mdl_alloc(n * sizeof(int32_t), "sort permutation");
    c->scratch = mdl_alloc(n * sizeof(int64_t), "sort scratch");
    if (!c->x0 || !c->y0 || !c->z0 || !c->perm || !c->scratch)
        return MDL_ERUN;
    return MDL_OK;
}


static int cpu_diagnose(void *p, mdl_health *h)
{
    cpu_ctx *c = p;
    const mdl_system *s = &c->s;
    health_scan(s->n, s->id, (mdl_vec3_arrays){s->x, s->y, s->z}, (mdl_vec3_arrays){c->x0, c->y0, c->z0},
                (mdl_vec3_arrays){s->vx, s->vy, s->vz}, (mdl_vec3_arrays){s->fx, s->fy, s->fz}, c->skin, h);
    return MDL_OK;
}

/* Periodic wrap into [lo, lo + len) with image counters. */
static void wrap_atoms(mdl_system *s)
{
    double *pos[3] = {s->x, s->y, s->z};
    int32_t *img[3] = {s->ix, s->iy, s->iz};
    for (int d = 0; d < 3; d++) {
        if (!s->box.periodic[d])
            continue;
        double lo = s->box.lo[d], len = s->box.len[d];
        double *x = pos[d];
        int32_t *im = img[d];
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < s->n; i++)
            x[i] = box_wrap(x[i], lo, len, &im[i]);
    }
}

static void sort_atoms(cpu_ctx *c)
{
    mdl_system *s = &c->s;
    size_t n = s->n;
    double *d8[] = {s->x, s->y, s->z, s->vx, s->vy, s->vz, s->fx, s->fy, s->fz};
    int32_t *d4[] = {s->ix, s->iy, s->iz, s->type};
    for (size_t k = 0; k < sizeof d8 / sizeof d8[0]; k++)
        permute_array(d8[k], c->perm, n, sizeof(double), c->scratch);
    for (size_t k = 0; k < sizeof d4 / sizeof d4[0]; k++)
        permute_array(d4[k], c->perm, n, sizeof(int32_t), c->scratch);
    permute_array(s->id, c->perm, n, sizeof(int64_t), c->scratch);
}

static int cpu_build_neighbors(void *p)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    wrap_atoms(s);
    if (cells_sort(&c->cells, &s->box, c->rneigh, s->n, s->x, s->y, s->z, c->perm) != MDL_OK)
        return MDL_ERUN;
    sort_atoms(c);
    int rc = c->brute ? nlist_build_brute(&c->nl, &s->box, c->rneigh, s->n, s->x, s->y, s->z, c->threads)
                      : nlist_build_cells(&c->nl, &c->cells, &s->box, c->rneigh, s->n, s->x, s->y, s->z, c->threads);
    memcpy(c->x0, s->x, s->n * sizeof(double));
    memcpy(c->y0, s->y, s->n * sizeof(double));
    memcpy(c->z0, s->z, s->n * sizeof(double));
    c->since = 0;
    return rc;
}

static int cpu_set_skin(void *p, double skin)
{
    cpu_ctx *c = p;
    c->rneigh += skin - c->skin; /* the largest cutoff + the skin */
    c->skin = skin;
    c->builds++;
    c->last_build = c->step;
    return cpu_build_neighbors(c); /* the sort carries the forces: the next kick needs them */
}

/* The skin test every `check` steps since the last build (the largest move since then: past the
   skin, or not finite, is unsafe), and the rebuild it asks for. */
static int cpu_update_neighbors(void *p, long step)
{
    cpu_ctx *c = p;
    const mdl_system *s = &c->s;
    if (!c->started) /* the set-up's build was the step before */
        c->started = 1, c->last_build = step - 1;
    c->step = step;
    if (c->unsafe_step >= 0 || ++c->since % c->check != 0)
        return MDL_OK;
    double half = 0.5 * c->skin, d2 = max_displacement_sq(s->n, s->x, s->y, s->z, c->x0, c->y0, c->z0);
    if (d2 > c->skin * c->skin) {
        c->unsafe_step = step;
        return MDL_OK;
    }
    if (d2 <= half * half)
        return MDL_OK;
    c->builds++;
    c->dangerous += c->since == c->check;
    c->last_build = step;
    c->since = 0;
    return cpu_build_neighbors(c);
}

static int cpu_health(void *p, long *unsafe_step)
{
    cpu_ctx *c = p;
    *unsafe_step = c->unsafe_step;
    return MDL_OK;
}

static int cpu_compute_forces(void *p, int what)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    if (what != MDL_ENERGY_ONLY)
        return lj_compute(&c->lj, &c->nl, &s->box, s->n, s->x, s->y, s->z, s->type, s->fx, s->fy, s->fz,
                          what == MDL_FORCES_ENERGY, &c->pe, &c->virial, &c->fscratch);
    double *f = mdl_alloc(3 * s->n * sizeof *f, "forces"); /* computed and dropped */
    int rc = f ? lj_compute(&c->lj, &c->nl, &s->box, s->n, s->x, s->y, s->z, s->type, f, f + s->n, f + 2 * s->n, 1,
                            &c->pe, &c->virial, &c->fscratch)
               : MDL_ERUN;
    free(f);
    return rc;
}

static int cpu_integrate_first(void *p)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    integrate_kick(s->n, 0.5 * c->dt * c->u.ftm2v, c->inv_mass, s->type, s->vx, s->vy, s->vz, s->fx, s->fy, s->fz);
    integrate_drift(s->n, c->dt, s->x, s->y, s->z, s->vx, s->vy, s->vz);
    return MDL_OK;
}

static int cpu_integrate_second(void *p, int then_first)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    integrate_kick(s->n, 0.5 * c->dt * c->u.ftm2v, c->inv_mass, s->type, s->vx, s->vy, s->vz, s->fx, s->fy, s->fz);
    return then_first ? cpu_integrate_first(c) : MDL_OK;
}

static int cpu_langevin(void *p, const mdl_langevin *lp, uint64_t seed, long step)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    langevin_forces(s->n, s->mass, s->type, s->id, s->vx, s->vy, s->vz, s->fx, s->fy, s->fz, lp, seed, (uint64_t)step);
    return MDL_OK;
}

static int cpu_scale_to_temperature(void *p, double target, double coupling)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    double t = mdl_temperature(0.5 * c->u.mvv2e * sum_mv2(s->n, s->mass, s->type, s->vx, s->vy, s->vz, c->threads),
                               s->n, &c->u);
    if (t > 0)
        scale_velocities(s->n, thermostat_scale(t, target, coupling), s->vx, s->vy, s->vz);
    return MDL_OK;
}

static int cpu_reduce(void *p, mdl_observables *o)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    o->kinetic = 0.5 * c->u.mvv2e * sum_mv2(s->n, s->mass, s->type, s->vx, s->vy, s->vz, c->threads);
    o->potential = c->pe;
    o->virial = c->virial;
    mdl_finish_observables(o, s->n, box_volume(&s->box), &c->u);
    return MDL_OK;
}

static int cpu_reduce_start(void *p, int slot)
{
    cpu_ctx *c = p;
    return cpu_reduce(c, &c->thermo_rows[slot]);
}

static int cpu_reduce_poll(void *p, int slot, mdl_observables *o, int wait)
{
    cpu_ctx *c = p;
    (void)wait; /* computed at the start: always there */
    *o = c->thermo_rows[slot];
    return MDL_OK;
}

/* The half list expanded to full rows in id order. */
static int cpu_neighbor_rows(void *p, int **rows_out, size_t **start_out)
{
    cpu_ctx *c = p;
    const cpu_nlist *nl = &c->nl;
    const int64_t *id = c->s.id;
    size_t n = c->s.n;
    size_t *start = calloc(n + 2, sizeof *start);
    int *rows = malloc((2 * nlist_pairs(nl) + 1) * sizeof *rows);
    if (!start || !rows) {
        free(start), free(rows);
        mdl_error("out of memory for the neighbor rows");
        return MDL_ERUN;
    }
    for (int pass = 0; pass < 2; pass++) { /* count (into start[i + 2]), then fill (start[i + 1]: next free) */
        for (size_t i = 2; pass == 1 && i <= n; i++)
            start[i] += start[i - 1];
        for (int t = 0; t < nl->nseg; t++)
            for (size_t i = nl->seg[t].atom_begin; i < nl->seg[t].atom_end; i++)
                for (int k = 0; k < nl->count[i]; k++) {
                    int64_t a = id[i], b = id[nl->seg[t].data[nl->first[i] + k]];
                    if (pass == 0) {
                        start[a + 2]++, start[b + 2]++;
                        continue;
                    }
                    rows[start[a + 1]++] = (int)b;
                    rows[start[b + 1]++] = (int)a;
                }
    }
    *rows_out = rows;
    *start_out = start;
    return MDL_OK;
}

static int cpu_stats(void *p, mdl_backend_stats *out)
{
    cpu_ctx *c = p;
    *out = (mdl_backend_stats){(double)nlist_pairs(&c->nl), 0, c->builds, c->dangerous, c->last_build, 0};
    return MDL_OK;
}

static int cpu_begin_step(void *p, long step, int kind)
{
    (void)p, (void)step, (void)kind; /* the CPU's calls do the work as they come */
    return MDL_OK;
}

static int cpu_synchronize(void *p)
{
    (void)p;
    return MDL_OK;
}

static int cpu_snapshot_alloc(void *p, int nslots, int max_fields)
{
    cpu_ctx *c = p;
    free_slots(c);
    c->slots = calloc((size_t)nslots, sizeof *c->slots);
    if (!c->slots)
        return MDL_ERUN;
    c->nslots = nslots;
    c->slot_fields = max_fields;
    return MDL_OK;
}

/* A slot's arrays, on its first use. */
static int fill_slot_arrays(cpu_ctx *c, struct cpu_slot *sl)
{
    for (int a = 0; a < MDL_FIELD_ARRAYS; a++)
        if ((c->slot_fields & field_of_array(a)) && !sl->a[a] &&
            !(sl->a[a] = mdl_alloc(c->s.n * field_array_bytes(a), "output slots")))
            return MDL_ERUN;
    return MDL_OK;
}

/* The main thread puts the requested fields into the slot in id order. */
static int cpu_snapshot_start(void *p, int k, int fields)
{
    cpu_ctx *c = p;
    struct cpu_slot *sl = &c->slots[k];
    if (fill_slot_arrays(c, sl) != MDL_OK)
        return MDL_ERUN;
    void **src[MDL_FIELD_ARRAYS];
    system_field_arrays(&c->s, src);
    const int64_t *id = c->s.id;
    const long n = (long)c->s.n;
    for (int a = 0; a < MDL_FIELD_ARRAYS; a++) {
        if (!(fields & field_of_array(a)))
            continue;
        if (a < 9) {
            const double *from = *src[a];
            double *to = sl->a[a];
#pragma omp parallel for schedule(static) num_threads(c->threads)
            for (long i = 0; i < n; i++)
                to[id[i]] = from[i];
        } else {
            const int32_t *from = *src[a];
            int32_t *to = sl->a[a];
#pragma omp parallel for schedule(static) num_threads(c->threads)
            for (long i = 0; i < n; i++)
                to[id[i]] = from[i];
        }
    }
    sl->fields = fields;
    return cpu_reduce(c, &sl->obs);
}

/* The writer thread: the frame's arrays are the slot's. */
static int cpu_snapshot_finish(void *p, int k, mdl_system *frame, mdl_observables *obs)
{
    cpu_ctx *c = p;
    struct cpu_slot *sl = &c->slots[k];
    *obs = sl->obs;
    system_point_fields(frame, sl->a, sl->fields);
    return MDL_OK;
}

const mdl_backend_ops mdl_cpu_backend = {
    .name = "cpu",
    .create = cpu_create,
    .destroy = cpu_destroy,
    .update_neighbors = cpu_update_neighbors,
    .health = cpu_health,
    .diagnose = cpu_diagnose,
    .draw_normals = cpu_velocity_normals,
    .build_neighbors = cpu_build_neighbors,
    .set_skin = cpu_set_skin,
    .compute_forces = cpu_compute_forces,
    .integrate_first = cpu_integrate_first,
    .integrate_second = cpu_integrate_second,
    .langevin = cpu_langevin,
    .scale_to_temperature = cpu_scale_to_temperature,
    .reduce_start = cpu_reduce_start,
    .reduce_poll = cpu_reduce_poll,
    .neighbor_rows = cpu_neighbor_rows,
    .stats = cpu_stats,
    .synchronize = cpu_synchronize,
    .begin_step = cpu_begin_step,
    .end_step = cpu_synchronize,
    .snapshot_alloc = cpu_snapshot_alloc,
    .snapshot_start = cpu_snapshot_start,
    .snapshot_finish = cpu_snapshot_finish,
};

/* The CPU backend: owns this rank's atoms (cell-sorted) and their ghosts, and fills the backend
   table with the neighbor, force and integration routines of src/cpu/ and the exchanges of
   domain.c (one rank: one brick, no ghosts). */
#include "context.h"

#include "../parallel/comm.h"
#include "../parallel/domain.h"
#include "../physics/rebuild.h"
#include "../physics/thermostat.h"
#include "../util/util.h"
#include "force.h"
#include "integrate.h"
#include "neighbor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>


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
    cpu_analysis_free(c);
    system_destroy(&c->s);
    free(c->groups);
    free(c->x0);
    free(c->y0);
    free(c->z0);
    free(c->now);
    free(c->perm);
    free(c->scratch);
    domain_destroy(&c->dm);
    cells_destroy(&c->cells);
    ghost_bins_destroy(&c->ghosts);
    nlist_destroy(&c->nl);
    force_scratch_destroy(&c->fscratch);
    free(c);
}

/* x0, y0, z0, perm and scratch for the system's capacity (it grows with arrivals and ghosts). */
static int reserve_scratch(cpu_ctx *c)
{
    size_t n = c->s.capacity;
    if (n <= c->scratch_atoms)
        return MDL_OK;
    double **ref[3] = {&c->x0, &c->y0, &c->z0};
    for (int d = 0; d < 3; d++) {
        double *p = mdl_realloc(*ref[d], n * sizeof(double), "reference positions");
        if (!p)
            return MDL_ERUN;
        *ref[d] = p;
    }
    int32_t *perm = mdl_realloc(c->perm, n * sizeof(int32_t), "sort permutation");
    if (!perm)
        return MDL_ERUN;
    c->perm = perm;
    void *scratch = mdl_realloc(c->scratch, n * sizeof(int64_t), "sort scratch");
    if (!scratch)
        return MDL_ERUN;
    c->scratch = scratch;
    c->scratch_atoms = n;
    return MDL_OK;
}

/* A restart's lists: the owned atoms at their positions of the checkpoint's last build (build, by
   id) for the first build, their positions now kept to take back after it (restore_positions). */
static int take_build_positions(cpu_ctx *c, const double *build, long since)
{
    mdl_system *s = &c->s;
    const size_t n = c->dm.nlocal;
    if (!(c->now = mdl_alloc((n ? n : 1) * 3 * sizeof *c->now, "a restart's positions")))
        return MDL_ERUN;
    double *now[3] = {c->now, c->now + n, c->now + 2 * n};
    for (size_t i = 0; i < n; i++) {
        const double *b = build + 3 * (size_t)s->id[i];
        now[0][i] = s->x[i], now[1][i] = s->y[i], now[2][i] = s->z[i];
        s->x[i] = b[0], s->y[i] = b[1], s->z[i] = b[2];
    }
    c->restart_since = since;
    return MDL_OK;
}

static int forward_ghosts(cpu_ctx *c);

/* After the restart's first build: the owned atoms' positions now (permuted with the atoms), their
   ghosts' from them. */
static int restore_positions(cpu_ctx *c)
{
    mdl_system *s = &c->s;
    const size_t n = c->dm.nlocal;
    memcpy(s->x, c->now, n * sizeof(double));
    memcpy(s->y, c->now + n, n * sizeof(double));
    memcpy(s->z, c->now + 2 * n, n * sizeof(double));
    free(c->now);
    c->now = NULL;
    s->box = c->box_now; /* where a barostat has taken it since the build, as cpu_remap_box moves it */
    for (int d = 0; d < 3; d++)
        if (!c->dm.ghosted[d])
            c->region.lo[d] = s->box.lo[d], c->region.len[d] = s->box.len[d];
    if (domain_set_box(&c->dm, &s->box)) {
        mdl_error("internal: the restart's box no longer fits its bricks");
        return MDL_ERUN;
    }
    return forward_ghosts(c);
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
    cpu_pair_table_fill(&c->pairs, setup->pairs);
    c->tail[0] = setup->pairs->tail[0], c->tail[1] = setup->pairs->tail[1];
    c->dt = setup->timestep;
    c->skin = setup->skin;
    c->check = setup->check, c->delay = setup->delay, c->distance_check = setup->distance_check;
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
    c->natoms = s->n;
    const int one[3] = {1, 1, 1};
    /* a restart's first build is in the box its checkpoint's lists were built in (bricks too) */
    const mdl_box *box = setup->build ? setup->build_box : &s->box;
    MDL_TRY(domain_init(&c->dm, box, setup->grid[0] > 0 ? setup->grid : one,
                        setup->rghost > c->rneigh ? setup->rghost : c->rneigh, 1));
    int nc[3]; /* the cell lists size their own grid from the region */
    domain_cell_grid(&c->dm, c->rneigh, s->n, &c->region, nc);
    MDL_TRY(domain_take_owned(&c->dm, s, setup->build, &c->s));
    c->thermo_group = c->pressure_group = MDL_GROUP_ALL;
    c->thermo_components = c->pressure_components = 7;
    if (s->groups) {
        if (!(c->groups = mdl_calloc(s->n, sizeof *c->groups, "the atoms' groups")))
            return MDL_ERUN;
        memcpy(c->groups, s->groups, s->n * sizeof *c->groups);
    }
    c->restart_since = -1;
    if (setup->build) { /* the first build from the checkpoint's build positions, by id */
        c->box_now = s->box, c->s.box = *box;
        MDL_TRY(take_build_positions(c, setup->build, setup->build_since));
    }
    return reserve_scratch(c);
}

/* The worst atom on any rank (every rank gets the same answer). */
static int cpu_diagnose(void *p, mdl_health *h)
{
    cpu_ctx *c = p;
    const mdl_system *s = &c->s;
    if (c->box_moved > 0) { /* every rank has the same box */
        *h = (mdl_health){MDL_HEALTH_BOX, -1, c->box_moved};
        return MDL_OK;
    }
    if (c->unsafe_step >= 0 && c->lost.what != MDL_HEALTH_OK)
        return *h = c->lost, health_agree(h);
    health_scan(c->dm.nlocal, s->id, (mdl_vec3_arrays){s->x, s->y, s->z}, (mdl_vec3_arrays){c->x0, c->y0, c->z0},
                (mdl_vec3_arrays){s->vx, s->vy, s->vz}, (mdl_vec3_arrays){s->fx, s->fy, s->fz}, c->skin, h);
    return health_agree(h);
}

/* The owned atoms into the order of c->perm. */
static void sort_atoms(cpu_ctx *c)
{
    mdl_system *s = &c->s;
    size_t n = c->dm.nlocal;
    double *d8[] = {s->x, s->y, s->z, s->vx, s->vy, s->vz, s->fx, s->fy, s->fz};
    int32_t *d4[] = {s->ix, s->iy, s->iz, s->type};
    for (size_t k = 0; k < sizeof d8 / sizeof d8[0]; k++)
        permute_array(d8[k], c->perm, n, sizeof(double), c->scratch);
    for (size_t k = 0; k < sizeof d4 / sizeof d4[0]; k++)
        permute_array(d4[k], c->perm, n, sizeof(int32_t), c->scratch);
    permute_array(s->id, c->perm, n, sizeof(int64_t), c->scratch);
    for (int d = 0; d < 3 && c->now; d++) /* a restart's positions now, to take back after its first build */
        permute_array(c->now + (size_t)d * n, c->perm, n, sizeof(double), c->scratch);
}

/* Time since t0 in exchanges with other ranks (none with one brick: migration is then the wrap). */
static void count_comm(cpu_ctx *c, double t0)
{
    if (c->dm.nswap > 0)
        c->comm_seconds += mdl_wtime() - t0;
}

/* At a rebuild: owned atoms wrapped and migrated to the ranks whose bricks they entered, sorted
   by cell; ghosts from the neighbors, binned; the lists; the reference positions. */
static int cpu_build_neighbors(void *p)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    int lost;
    MDL_TRY(cpu_apply_boundary(c, &lost));
    if (lost) /* the state is unusable: no build, the run stops at its next health check */
        return c->unsafe_step = c->step, MDL_OK;
    double t0 = mdl_wtime();
    MDL_TRY(domain_migrate(&c->dm, s)); /* wraps the owned atoms too */
    count_comm(c, t0);
    MDL_TRY(reserve_scratch(c));
    int nc[3]; /* a barostat moves the box: the cells follow it */
    domain_cell_grid(&c->dm, c->rneigh, c->natoms, &c->region, nc);
    c->built = s->box;
    const size_t nlocal = c->dm.nlocal;
    if (cells_sort(&c->cells, &c->region, c->rneigh, nlocal, s->x, s->y, s->z, s->id, c->perm) != MDL_OK)
        return MDL_ERUN;
    sort_atoms(c);
    t0 = mdl_wtime();
    MDL_TRY(domain_build_ghosts(&c->dm, s)); /* s->n: owned and ghosts (the scratch is for owned ones) */
    count_comm(c, t0);
    const cpu_ghost_bins *g = NULL;
    if (s->n > nlocal) {
        MDL_TRY(ghost_bins_fill(&c->ghosts, &c->cells, &c->region, nlocal, s->n, s->x, s->y, s->z));
        g = &c->ghosts;
    }
    int rc = c->brute ? nlist_build_brute(&c->nl, &c->region, c->rneigh, nlocal, s->n, s->x, s->y, s->z, c->threads)
                      : nlist_build_cells(&c->nl, &c->cells, g, &c->region, c->rneigh, nlocal, s->x, s->y, s->z,
                                          c->threads);
    memcpy(c->x0, s->x, nlocal * sizeof(double));
    memcpy(c->y0, s->y, nlocal * sizeof(double));
    memcpy(c->z0, s->z, nlocal * sizeof(double));
    c->since = 0;
    return rc == MDL_OK && c->now ? restore_positions(c) : rc;
}

/* Minimisation: this rank's atoms moved to xyz (unwrapped, id order, every atom) relative to their
   images, then wrapped, moved between ranks and sorted by the build, as every build does. */
/* The owned atoms at xyz (unwrapped, by id), each in its image of now (the list's frame). */
static void place_atoms(cpu_ctx *c, const double *xyz)
{
    mdl_system *s = &c->s;
    for (size_t i = 0; i < c->dm.nlocal; i++) {
        const double *x = xyz + 3 * s->id[i];
        const int32_t back[3] = {-s->ix[i], -s->iy[i], -s->iz[i]};
        double p[3];
        box_unwrap(&s->box, x, back, p);
        s->x[i] = p[0], s->y[i] = p[1], s->z[i] = p[2];
    }
}

static int cpu_move_atoms(void *p, const double *xyz);

/* A shrink-wrapped box moves at a build, so there the minimizer builds only past half the skin, as
   LAMMPS's reneighbors at a force call. */
static int cpu_set_positions(void *p, const double *xyz)
{
    if (boundary_shrinks(&((cpu_ctx *)p)->s.bound))
        return cpu_move_atoms(p, xyz);
    place_atoms(p, xyz);
    return cpu_build_neighbors(p);
}

/* FIRE's velocities (x y z per atom in id order, every atom's on every rank). */
static int cpu_set_velocities(void *p, const double *v)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    for (size_t i = 0; i < c->dm.nlocal; i++)
        s->vx[i] = v[3 * s->id[i]], s->vy[i] = v[3 * s->id[i] + 1], s->vz[i] = v[3 * s->id[i] + 2];
    return MDL_OK;
}

static int forward_ghosts(cpu_ctx *c);

/* libmdlite's moves: the list kept while no atom is more than half the skin from its build (LAMMPS's
   decide). */
static int cpu_move_atoms(void *p, const double *xyz)
{
    cpu_ctx *c = p;
    place_atoms(c, xyz);
    double d2 = max_displacement_sq(c->dm.nlocal, c->s.x, c->s.y, c->s.z, c->x0, c->y0, c->z0);
    MDL_TRY(comm_max_double(&d2));
    if (d2 <= 0.25 * c->skin * c->skin)
        return forward_ghosts(c);
    c->builds++;
    return cpu_build_neighbors(c);
}

/* Between rebuilds: the ghosts' positions from their owners. */
static int forward_ghosts(cpu_ctx *c)
{
    if (c->dm.nswap == 0)
        return MDL_OK;
    double t0 = mdl_wtime();
    int rc = domain_forward(&c->dm, &c->s);
    count_comm(c, t0);
    return rc;
}

static int cpu_set_skin(void *p, double skin)
{
    cpu_ctx *c = p;
    c->rneigh += skin - c->skin; /* the largest cutoff + the skin */
    if (c->rneigh > c->dm.rghost * (1 + 1e-12)) {
        mdl_error("internal: a list cutoff of %g past the ghost cutoff %g", c->rneigh, c->dm.rghost);
        return MDL_ERUN;
    }
    c->skin = skin;
    c->builds++;
    c->last_build = c->step;
    return cpu_build_neighbors(c); /* the sort carries the forces: the next kick needs them */
}

/* The skin test every `check` steps since the last build (the largest move on any rank since
   then: past the skin, or not finite, is unsafe), and the rebuild it asks for; else the ghosts'
   new positions. */
static int cpu_update_neighbors(void *p, long step)
{
    cpu_ctx *c = p;
    const mdl_system *s = &c->s;
    if (!c->started) /* the set-up's build was the step before (a restart's: its checkpoint's build) */
        c->started = 1, c->since = c->restart_since > 0 ? (int)c->restart_since : 0,
        c->last_build = step - 1 - c->since;
    c->step = step;
    if (c->unsafe_step >= 0 || !rebuild_due(++c->since, c->check, c->delay))
        return forward_ghosts(c);
    /* a moving box moves pairs across its faces by up to its faces' motion, bd (LAMMPS's boxcheck):
       a rebuild when 2 d + bd passes the skin, unsafe past twice that */
    const double bd = box_faces_moved(&s->box, &c->built), unsafe = c->skin - 0.5 * bd, rebuild = 0.5 * (c->skin - bd);
    double d2 = max_displacement_sq(c->dm.nlocal, s->x, s->y, s->z, c->x0, c->y0, c->z0);
    MDL_TRY(comm_max_double(&d2));
    /* without the distance check (LAMMPS's check no) only a position that is not finite stops the run */
    if (unsafe <= 0 || (c->distance_check ? d2 > unsafe * unsafe : !isfinite(d2))) {
        c->unsafe_step = step;
        c->box_moved = unsafe <= 0 || d2 <= c->skin * c->skin ? bd : 0; /* no atom past the skin: the box */
        return forward_ghosts(c);
    }
    if (c->distance_check && rebuild > 0 && d2 <= rebuild * rebuild)
        return forward_ghosts(c);
    c->builds++;
    /* unchecked: the builds that found an atom past half the skin (pairs may have been missed) */
    c->dangerous += c->distance_check ? rebuild_dangerous(c->since, c->check, c->delay) : !(d2 <= rebuild * rebuild);
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

/* The style's forces into fx, fy, fz (an EAM style's or a pair style's), energy and virial as ev
   (enum mdl_ev) says. */
static int forces_into(cpu_ctx *c, double *fx, double *fy, double *fz, int ev)
{
    mdl_system *s = &c->s;
    const size_t nlocal = c->dm.nlocal;
    return c->pairs.eam ? eam_forces(c->pairs.eam, &c->nl, &c->region, nlocal, s->n, s->x, s->y, s->z, s->type, fx, fy,
                                     fz, ev, &c->pe, &c->virial, &c->fscratch, &c->dm)
                        : pair_forces(&c->pairs, &c->nl, &c->region, nlocal, s->n, s->x, s->y, s->z, s->type, fx, fy,
                                      fz, ev, &c->pe, &c->virial, &c->fscratch);
}

static int cpu_compute_forces(void *p, int what)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    if (what != MDL_ENERGY_ONLY)
        return forces_into(c, s->fx, s->fy, s->fz, mdl_ev_of(what));
    double *f = mdl_alloc(3 * s->n * sizeof *f, "forces"); /* computed and dropped */
    int rc = f ? forces_into(c, f, f + s->n, f + 2 * s->n, MDL_EV_ENERGY) : MDL_ERUN;
    free(f);
    return rc;
}

/* The first half of step `step`: the chains' start, the half kick and the drift. */
static int integrate_first_of(cpu_ctx *c, long step)
{
    mdl_system *s = &c->s;
    const size_t n = c->dm.nlocal;
    const int barostat = c->nose_hoover && c->nh.barostat;
    if (c->nose_hoover)
        MDL_TRY(cpu_nose_hoover_half(c, 1, step));
    integrate_kick(n, 0.5 * c->dt * c->u.ftm2v, c->inv_mass, s->type, s->vx, s->vy, s->vz, s->fx, s->fy, s->fz);
    if (barostat)
        MDL_TRY(cpu_remap_box(c));
    integrate_drift(n, c->dt, s->x, s->y, s->z, s->vx, s->vy, s->vz);
    return barostat ? cpu_remap_box(c) : MDL_OK;
}

static int cpu_integrate_first(void *p)
{
    cpu_ctx *c = p;
    return integrate_first_of(c, c->step_now);
}

static int cpu_integrate_second(void *p, int then_first)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    integrate_kick(c->dm.nlocal, 0.5 * c->dt * c->u.ftm2v, c->inv_mass, s->type, s->vx, s->vy, s->vz, s->fx, s->fy,
                   s->fz);
    if (c->nose_hoover)
        MDL_TRY(cpu_nose_hoover_half(c, 0, c->step_now));
    return then_first ? integrate_first_of(c, c->step_now + 1) : MDL_OK; /* the next step's first half */
}

static int cpu_langevin(void *p, const mdl_langevin *lp, uint64_t seed, long step)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    langevin_forces(c->dm.nlocal, s->mass, s->type, s->id, c->groups, s->vx, s->vy, s->vz, s->fx, s->fy, s->fz, lp,
                    seed, (uint64_t)step);
    return MDL_OK;
}


static int cpu_scale_to_temperature(void *p, const mdl_scaling *rule, long step)
{
    cpu_ctx *c = p;
    mdl_system *s = &c->s;
    const int dim = box_dimension(&s->box);
    if (rule->group != MDL_GROUP_ALL || rule->components != 7) { /* a group's temperature (of some velocity
                                       components), its atoms (those components) scaled (LAMMPS: none when dof < 1) */
        double ke, n;
        const int comp = rule->components, nper = mdl_component_count(comp, dim);
        MDL_TRY(cpu_group_kinetic(c, rule->group, comp, &ke, &n));
        const double dof = mdl_dof((size_t)n, nper), t = mdl_temperature(ke, (size_t)n, nper, &c->u);
        const double factor = dof >= 1 && t > 0 ? thermostat_factor(rule, t, dof, (uint64_t)step) : 1.0;
        const double fx = comp & 1 ? factor : 1.0, fy = comp & 2 ? factor : 1.0, fz = comp & 4 ? factor : 1.0;
        for (size_t i = 0; i < c->dm.nlocal && factor != 1.0; i++)
            if (group_has(c->groups, s->id[i], rule->group))
                s->vx[i] *= fx, s->vy[i] *= fy, s->vz[i] *= fz;
        return MDL_OK;
    }
    double ke = cpu_local_kinetic(c);
    MDL_TRY(comm_sum_doubles(&ke, 1)); /* all ranks' */
    double t = mdl_temperature(ke, c->natoms, dim, &c->u);
    if (t > 0)
        scale_velocities(c->dm.nlocal, thermostat_factor(rule, t, mdl_dof(c->natoms, dim), (uint64_t)step), s->vx, s->vy,
                         s->vz);
    return MDL_OK;
}

/* Pairs over all ranks: a pair with a ghost is listed on both its ranks, so it counts half. */
static int cpu_stats(void *p, mdl_backend_stats *out)
{
    cpu_ctx *c = p;
    const cpu_nlist *nl = &c->nl;
    const int32_t nlocal = (int32_t)c->dm.nlocal;
    size_t with_ghosts = 0;
    for (int t = 0; c->s.n > c->dm.nlocal && t < nl->nseg; t++)
        for (size_t k = 0; k < nl->seg[t].len; k++)
            with_ghosts += nl->seg[t].data[k] >= nlocal;
    double pairs = (double)(nlist_pairs(nl) - with_ghosts) + 0.5 * (double)with_ghosts;
    MDL_TRY(comm_sum_doubles(&pairs, 1));
    *out = (mdl_backend_stats){pairs, 0, c->builds, c->dangerous, c->last_build, 0, c->comm_seconds, c->dm.nlocal,
                               c->s.n - c->dm.nlocal, c->dm.size > 1 ? "MPI" : NULL, 0, 0, 0, 0, 0, NULL, c->built};
    return MDL_OK;
}

static int cpu_begin_step(void *p, long step, int kind)
{
    (void)kind; /* the CPU's calls do the work as they come */
    ((cpu_ctx *)p)->step_now = step;
    return MDL_OK;
}

static int cpu_end_step(void *p, int *redo)
{
    (void)p;
    *redo = 0; /* every rank's list is rebuilt within update_neighbors */
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

/* A slot's arrays, on its first use (rank 0: the whole system's). */
static int fill_slot_arrays(cpu_ctx *c, struct cpu_slot *sl)
{
    for (int a = 0; a < MDL_FIELD_ARRAYS; a++)
        if ((c->slot_fields & field_of_array(a)) && !sl->a[a] &&
            !(sl->a[a] = mdl_alloc(c->natoms * field_array_bytes(a), "output slots")))
            return MDL_ERUN;
    return MDL_OK;
}

/* Every rank's owned atoms gathered on rank 0, which puts the requested fields into the slot in
   id order (rank 0 alone writes files: other ranks have no slots). */
static int cpu_snapshot_start(void *p, int k, int fields)
{
    cpu_ctx *c = p;
    int words;
    c->s.bx = c->x0, c->s.by = c->y0, c->s.bz = c->z0; /* the last build's positions, as a field (a view) */
    double *mine = system_pack_frame(&c->s, c->dm.nlocal, fields, c->threads, &words), *all = NULL;
    c->s.bx = c->s.by = c->s.bz = NULL;
    size_t total = 0;
    int rc = mine ? comm_gather_root(mine, c->dm.nlocal * (size_t)words, &all, &total) : MDL_ERUN;
    struct cpu_slot *sl = c->dm.rank == 0 && rc == MDL_OK ? &c->slots[k] : NULL;
    if (sl && (rc = fill_slot_arrays(c, sl)) == MDL_OK && total != c->natoms * (size_t)words) {
        mdl_error("internal: a frame of %zu atoms from every rank, %zu expected", total / (size_t)words, c->natoms);
        rc = MDL_ERUN;
    }
    if (sl && rc == MDL_OK)
        system_unpack_frame(sl->a, c->natoms, fields, all, words, c->threads);
    if (all != mine)
        free(all);
    free(mine);
    MDL_TRY(rc);
    if (sl)
        sl->fields = fields;
    mdl_observables obs;
    MDL_TRY(cpu_reduce(c, &obs));
    if (sl)
        sl->obs = obs;
    return MDL_OK;
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
    .create = cpu_create, .destroy = cpu_destroy,
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
    .nose_hoover_init = cpu_nose_hoover_init,
    .nose_hoover_state = cpu_nose_hoover_state,
    .reduce_start = cpu_reduce_start,
    .reduce_poll = cpu_reduce_poll,
    .force_norms = cpu_force_norms,
    .pressure_tensor = cpu_pressure_tensor,
    .analysis_start = cpu_analysis_start,
    .analysis_sample = cpu_analysis_sample,
    .analysis_read = cpu_analysis_read,
    .analysis_resume = cpu_analysis_resume,
    .neighbor_rows = cpu_neighbor_rows,
    .stats = cpu_stats,
    .synchronize = cpu_synchronize,
    .begin_step = cpu_begin_step,
    .end_step = cpu_end_step,
    .snapshot_alloc = cpu_snapshot_alloc,
    .snapshot_start = cpu_snapshot_start,
    .snapshot_finish = cpu_snapshot_finish,
    .set_positions = cpu_set_positions,
    .set_velocities = cpu_set_velocities,
    .move_atoms = cpu_move_atoms,
    .reflect_walls = cpu_reflect_walls,
    .force_fixes = cpu_force_fixes, /* physics/groups.h's fixes, their outputs, their energy of given forces */
    .force_fix_outputs = cpu_force_fix_outputs, .force_fix_energy = cpu_force_fix_energy,
    .thermo_group = cpu_thermo_group,
    .atom_energies = cpu_atom_energies,
};

/* The GPU backend: device state as structure of arrays and the backend table, in C on top of
   the driver functions of gpu.h (no CUDA headers here). */
#include "context.h"

#include "../core/health.h"
#include "../parallel/comm.h"
#include "../util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Pruned lists ([neighbor] outer_skin, one rank): the outer list's skin beyond the run's. Below
   65,536 atoms, where a build is bound by latency, +0.8 pays (H100, mixed, in.lj, atom-steps/s:
   32,000 atoms 8.3e8 -> 9.7e8 at efac4a4, 1.026e9 -> 1.049e9 with the faster builders of fc24ddc);
   from there on the prunes cost more than the builds they save (70,304 1.17e9 -> 1.06e9, 256,000
   2.24e9 -> 1.99e9 with +0.5), and the outer list costs memory (32,000 atoms at 0.8: 1,844
   bytes/atom against 577): a user's choice. The core has checked the rank count and the box
   (core/plan.c). */
static int use_outer_list(gpu_ctx *c, double outer)
{
    if (outer <= 0)
        return MDL_OK;
    if (!gpu_switch_nodes()) {
        mdl_error("[neighbor] outer_skin = %g: pruned lists need CUDA 12.8 or newer (conditional switch nodes); "
                  "set it to 0", outer);
        return MDL_EINPUT;
    }
    if (!gpu_outer_fits(c, c->rlist + outer)) {
        mdl_error("[neighbor] outer_skin = %g: the outer list's radius %g is more than half the box", outer,
                  c->rlist + outer);
        return MDL_EINPUT;
    }
    c->outer = outer;
    c->rlist += outer;
    return MDL_OK;
}


static void gpu_destroy(void *p)
{
    gpu_ctx *c = p;
    if (!c)
        return;
    if (c->recording) /* a step that failed while it was being recorded */
        gpu_record_abandon();
    if (c->nslots)
        gpu_synchronize();
    gpu_free_slots(c);
    gpu_analysis_free(c);
    gpu_drop_graphs(c);
    gpu_free(c->eam_tables);
    gpu_free(c->restart_build);
    gpu_free_state(c);
    halo_destroy(c);
    free(c);
}

/* n values of `size` bytes from host (index i) to dev, at slot[i] where slot is given (a restart's
   order), through tmp (n values). */
static int put(void *dev, const void *host, size_t n, size_t size, const int32_t *slot, char *tmp)
{
    if (slot) {
        for (size_t i = 0; i < n; i++)
            memcpy(tmp + (size_t)slot[i] * size, (const char *)host + i * size, size);
        host = tmp;
    }
    TRY(gpu_h2d(dev, host, n * size));
    return MDL_OK;
}

/* The atoms to the device, atom i into slot[i] where slot is given (else i); their forces (a
   restart's; zero otherwise) are current, and carried through the set-up's sort. */
static int upload(gpu_ctx *c, const mdl_system *s, const int32_t *slot)
{
    size_t n = s->n;
    void *dev[] = {c->x, c->y, c->z, c->vx, c->vy, c->vz, c->ix, c->iy, c->iz, c->type, c->id};
    const void *host[] = {s->x, s->y, s->z, s->vx, s->vy, s->vz, s->ix, s->iy, s->iz, s->type, s->id};
    char *tmp = mdl_alloc((n ? n : 1) * sizeof(double), "the atoms' upload");
    int rc = tmp ? MDL_OK : MDL_ERUN;
    for (int k = 0; k < 11 && rc == MDL_OK; k++)
        rc = put(dev[k], host[k], n, k < 6 ? sizeof(double) : k < 10 ? sizeof(int) : sizeof(int64_t), slot, tmp);
    mdl_real *f = mdl_alloc((n ? n : 1) * sizeof *f, "forces"), *to[] = {c->fx, c->fy, c->fz};
    const double *from[] = {s->fx, s->fy, s->fz};
    rc = rc == MDL_OK && f ? MDL_OK : MDL_ERUN;
    for (int k = 0; k < 3 && rc == MDL_OK; k++) {
        for (size_t i = 0; i < n; i++)
            f[i] = (mdl_real)from[k][i];
        rc = put(to[k], f, n, sizeof *f, slot, tmp);
    }
    free(f);
    free(tmp);
    MDL_TRY(rc);
    TRY(gpu_memset(c->pe, 0, n * sizeof(mdl_real)));
    TRY(gpu_memset(c->w, 0, n * sizeof(mdl_real)));
    TRY(gpu_memset(c->flags, 0, 2 * sizeof(int)));
    c->forces_given = 1;
    return MDL_OK;
}

/* One rank restarting from a checkpoint that kept the GPU's order at its last build: each atom's
   slot (atom i of s by id), and the build's positions in those slots on the device
   (c->restart_build); NULL where there is none to make again (the set-up builds as usual). */
static int32_t *restart_slots(gpu_ctx *c, const mdl_setup *setup, const mdl_system *s)
{
    if (!setup->build)
        return NULL;
    if (!setup->build_order || comm_size() > 1 || setup->outer_skin > 0) {
        if (comm_rank() == 0)
            mdl_warn("--restart: the checkpoint's last neighbor-list build cannot be made again on %s: the lists are "
                     "built from its positions, and the run goes on exact to rounding, not bit for bit",
                     !setup->build_order ? "the GPU (the checkpoint keeps no GPU order: another backend wrote it)"
                     : comm_size() > 1   ? "several GPU ranks"
                                         : "pruned lists ([neighbor] outer_skin)");
        return NULL;
    }
    const size_t n = s->n;
    int32_t *slot = malloc((n ? n : 1) * sizeof *slot);
    double *at = malloc((n ? n : 1) * 3 * sizeof *at);
    int ok = slot && at;
    for (size_t i = 0; i < n && ok; i++) {
        const int64_t id = s->id[i];
        slot[i] = setup->build_order[id];
        for (int d = 0; d < 3; d++)
            at[d * n + (size_t)slot[i]] = setup->build[3 * id + d];
    }
    ok = ok && gpu_malloc((void **)&c->restart_build, (n ? n : 1) * 3 * sizeof(double), "a restart's build") == 0 &&
         gpu_h2d(c->restart_build, at, n * 3 * sizeof(double)) == 0;
    free(at);
    if (!ok) {
        free(slot);
        gpu_free(c->restart_build);
        c->restart_build = NULL;
        return NULL;
    }
    c->restart_since = setup->build_since;
    return slot;
}

/* EAM's splines to the device as mdl_real, GPU_EAM_STRIDE reals a point. */
static int set_eam(gpu_ctx *c, const mdl_eam *e)
{
    const size_t per = GPU_EAM_STRIDE, nf = (size_t)e->nfrho * (e->nrho + 1), nr = (size_t)e->nrhor * (e->nr + 1);
    const size_t nz = (size_t)e->nz2r * (e->nr + 1), total = (nf + nr + nz) * per;
    mdl_real *host = mdl_alloc(total * sizeof *host, "EAM tables");
    if (!host || gpu_malloc((void **)&c->eam_tables, total * sizeof(mdl_real), "EAM tables")) {
        free(host);
        return MDL_ERUN;
    }
    const double *src[3] = {e->frho, e->rhor, e->z2r};
    const size_t points[3] = {nf, nr, nz};
    const mdl_real *table[3];
    for (size_t k = 0, at = 0; k < 3; at += points[k] * per, k++) {
        table[k] = c->eam_tables + at;
        for (size_t q = 0; q < points[k]; q++) {
            const double *from = src[k] + q * MDL_EAM_COEFF;
            mdl_real *to = host + at + q * per;
            to[0] = (mdl_real)from[0], to[1] = (mdl_real)from[1], to[2] = (mdl_real)from[2], to[3] = 0;
            for (int v = 3; v < MDL_EAM_COEFF; v++)
                to[v + 1] = (mdl_real)from[v];
        }
    }
    int rc = gpu_h2d(c->eam_tables, host, total * sizeof(mdl_real)) ? MDL_ERUN : MDL_OK;
    free(host);
    gpu_eam g = {table[0], table[1], table[2], e->nrho, e->nr, e->nrhor, e->nz2r, e->rdr, e->rdrho, e->rhomax, e->cut, {0}, {0}, {0}};
    for (int i = 0; i < MDL_MAX_SPECIES; i++) {
        g.type2frho[i] = e->type2frho[i];
        for (int j = 0; j < MDL_MAX_SPECIES; j++)
            g.type2rhor[i * MDL_MAX_SPECIES + j] = e->type2rhor[i][j], g.type2z2r[i * MDL_MAX_SPECIES + j] = e->type2z2r[i][j];
    }
    return rc == MDL_OK && gpu_set_eam(&g) == 0 ? MDL_OK : MDL_ERUN;
}

static int set_tables(const mdl_pair_table *pt, const double *mass)
{
    TRY(gpu_set_pair_table(pt->ntypes, (const double (*)[MDL_MAX_SPECIES * MDL_MAX_SPECIES])pt->coeff, pt->cutsq));
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

static int gpu_create(void **out, const mdl_setup *setup, const mdl_system *s)
{
    if (!boundary_is_periodic(&s->bound)) {
        mdl_error("[run] backend = gpu: [system] boundary has a non-periodic face (f, s or m), which the GPU backend "
                  "does not take yet; run it with backend = cpu");
        return MDL_EINPUT;
    }
    if (gpu_select(comm_local_rank()) != 0)
        return MDL_ERUN;
    gpu_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return MDL_ERUN;
    *out = c;
    c->ntypes = s->ntypes;
    c->style = setup->pairs->style;
    c->eam = setup->pairs->eam != NULL;
    c->tail[0] = setup->pairs->tail[0], c->tail[1] = setup->pairs->tail[1];
    memcpy(c->mass, s->mass, sizeof c->mass);
    c->u = *setup->units;
    c->box = c->region = s->box;
    c->natoms = s->n;
    c->dt = setup->timestep;
    c->skin = setup->skin;
    c->rlist = setup->pairs->cutmax + setup->skin;
    c->method = setup->method;
    c->transposed = setup->layout == MDL_NL_TRANSPOSED;
    c->check = setup->check, c->delay = setup->delay, c->distance_check = setup->distance_check;
    mdl_system mine;
    const mdl_system *own = s;
    const double rghost = setup->rghost > c->rlist ? setup->rghost : c->rlist;
    if (comm_size() > 1 || domain_box_ghosted(&s->box, rghost)) { /* this rank's brick: its atoms, and room
                                                                     for ghosts (one rank: the box's images) */
        MDL_TRY(halo_create(c, setup, s, &mine));
        own = &mine;
    }
    if (c->halo && c->method != MDL_NL_CELL) { /* run_choose_grid refuses it, naming the key */
        mdl_error("the GPU's ghost atoms need the cell method's lists");
        return MDL_EINPUT;
    }
    c->n = c->nall = own->n;
    c->tight = setup->arrays == MDL_ARRAYS_TIGHT;
    c->step_mode = setup->step_mode;
    c->cap = gpu_pos_atoms(c->halo && !c->tight ? halo_capacity(c, own->n) : own->n);
    c->restart_since = -1;
    int rc = gpu_alloc_state(c);
    int32_t *slot = rc == MDL_OK ? restart_slots(c, setup, own) : NULL;
    if (rc == MDL_OK && (upload(c, own, slot) != MDL_OK || set_tables(setup->pairs, s->mass) != MDL_OK))
        rc = MDL_ERUN;
    free(slot);
    if (own == &mine)
        system_destroy(&mine);
    MDL_TRY(rc);
    if (rc == MDL_OK && setup->pairs->eam) /* EAM reads plain rows */
        rc = set_eam(c, setup->pairs->eam);
    MDL_TRY(rc);
    c->list_fixed = !setup->grow;
    _Static_assert((int)MDL_LIST_PACKED == (int)GPU_LIST_WANT_PACKED && (int)MDL_LIST_PLAIN == (int)GPU_LIST_WANT_PLAIN,
                   "list forms in one order");
    c->list_form = c->eam ? GPU_LIST_WANT_PLAIN : (enum gpu_list_want)setup->list_form;
    MDL_TRY(use_outer_list(c, setup->outer_skin));
    /* entries per row; packed rows hold two in each int (a row left unpacked that does not fit
       grows the list at the set-up's build) */
    int entries = initial_capacity(setup->max_neighbors, c->natoms, &c->box, c->rlist);
    MDL_TRY(gpu_setup_cells(c));
    return gpu_grow_list(c, gpu_rows_now(c) != GPU_ROWS_PLAIN ? (entries + 1) / 2 : entries);
}

static int gpu_draw_normals(uint64_t key, size_t n, const int64_t *id, double *out)
{
    if (gpu_select(comm_local_rank()) != 0) /* before the backend: its rank's device already */
        return MDL_ERUN;
    return gpu_velocity_normals(key, n, id, out) == 0 ? MDL_OK : MDL_ERUN;
}

/* The chained kicks and drift's parameters (forces_then_kicks): the new packed positions go to
   pos4_next, and integrate_second swaps the buffers. */
static gpu_chain chain_of(const gpu_ctx *c)
{
    gpu_chain ch = {0.5 * c->dt * c->u.ftm2v, c->dt, c->skin, {0}, c->x, c->y, c->z, c->vx, c->vy, c->vz,
                    c->pos4_next, c->pos0, c->nbs, c->outer > 0 ? c->skin + c->outer : 0, gpu_unsafe_skin(c)};
    for (int t = 0; t < c->ntypes; t++)
        ch.inv_mass[t] = 1.0 / c->mass[t]; /* as gpu_set_masses */
    return ch;
}

/* EAM's two passes; on several ranks the ghosts' F'(rho) from their owners between them. */
static int eam_forces(gpu_ctx *c, int si, int sk, int keep, int ev, const gpu_chain *ch)
{
    TRY(gpu_eam_density(c->n, c->nall, c->ntypes, c->pos4, c->nl, c->count, si, sk, c->capacity, c->eam_fp,
                        ev == MDL_EV_ENERGY, c->pe, &c->nbs->halt));
    if (c->halo)
        MDL_TRY(halo_forward_values(c, c->eam_fp));
    TRY(gpu_eam_forces(c->n, c->nall, c->ntypes, c->pos4, c->nl, c->count, si, sk, c->capacity, c->eam_fp,
                       keep ? NULL : c->fx, keep ? NULL : c->fy, keep ? NULL : c->fz, ev, c->pe, c->w, &c->nbs->halt,
                       ch));
    return MDL_OK;
}

/* The forces; MDL_FORCES_THEN_KICKS on one rank (not under Nose-Hoover, whose chains go between
   the kicks): the chained kicks and drift in the same pass. */
static int gpu_compute_forces(void *p, int what)
{
    gpu_ctx *c = p;
    const int chained = what == MDL_FORCES_THEN_KICKS && c->pos4_next && !c->nh;
    if (chained)
        c->kicked = 1, c->folded++;
    if (c->replaying) /* the step's graph does it */
        return MDL_OK;
    int si, sk, keep = what == MDL_ENERGY_ONLY;
    gpu_list_strides(c, &si, &sk);
    const gpu_chain ch = chained ? chain_of(c) : (gpu_chain){0};
    c->forces_given = 0;
    if (c->eam)
        return eam_forces(c, si, sk, keep, mdl_ev_of(what), chained ? &ch : NULL);
    if (chained)
        TRY(gpu_pair_forces_chained(c->style, c->n, c->ntypes, c->pos4, c->nl, gpu_rows_now(c), gpu_list_table(c),
                                    c->count, si, sk, c->capacity, c->fx, c->fy, c->fz, &ch));
    else
        TRY(gpu_pair_forces(c->style, c->n, c->nall, c->ntypes, c->pos4, c->nl, gpu_rows_now(c), gpu_list_table(c),
                            c->count, si, sk, c->capacity, keep ? NULL : c->fx, keep ? NULL : c->fy,
                            keep ? NULL : c->fz, mdl_ev_of(what), c->pe, c->w, &c->nbs->halt));
    return MDL_OK;
}

/* kicks: 1 = this step's first half kick + drift; 2 = the last step's second half kick, then
   this one's (one pass, the same two additions); with Nose-Hoover's chains, the velocities
   scaled by their factor before this step's kick */
static int kick_drift(gpu_ctx *c, int kicks)
{
    if (c->replaying)
        return MDL_OK;
    TRY(gpu_kick_drift(c->n, 0.5 * c->dt * c->u.ftm2v, c->dt, c->x, c->y, c->z, c->vx, c->vy, c->vz, c->fx, c->fy,
                       c->fz, c->type, c->pos4, c->pos0, c->skin, gpu_unsafe_skin(c), c->outer > 0 ? c->skin + c->outer : 0, kicks,
                       c->nbs, c->nh ? c->nh_factor : NULL, c->barostat ? c->bx : NULL));
    return MDL_OK;
}

/* sum m v^2 of all ranks' atoms into c->result[0], for the thermostats (a barostat's: the virial
   into c->result[2]): it stays on the device (several ranks: the sums go through the host). */
static int reduce_mv2(gpu_ctx *c)
{
    TRY(gpu_reduce(c->n, c->vx, c->vy, c->vz, c->type, c->barostat ? c->pe : NULL, c->barostat ? c->w : NULL,
                   c->partials, c->result));
    if (!c->halo)
        return MDL_OK;
    double sums[3];
    TRY(gpu_d2h(sums, c->result, sizeof sums));
    MDL_TRY(comm_sum_doubles(sums, 3));
    TRY(gpu_h2d(c->result, sums, sizeof sums));
    return MDL_OK;
}

/* Several ranks (or ghosts of one) under a barostat: the box the chains' start moved, read back
   (the host waits, as it does for the ranks' sums), and the bricks, the ghosts' shifts, the lists'
   region along the axes without ghosts and the force kernel's minimum image follow it; a box the run cannot go on
   with stops it, naming the step (the CPU backend's check). */
static int follow_box(gpu_ctx *c)
{
    gpu_box_state b;
    TRY(gpu_d2h(&b, c->bx, sizeof b));
    c->box = b.grid.region;
    const char *why = halo_set_box(c, &c->box);
    for (int d = 0; d < 3; d++)
        if (!c->dm->ghosted[d])
            c->region.lo[d] = c->box.lo[d], c->region.len[d] = c->box.len[d];
    TRY(gpu_set_image(c->region));
    return barostat_runaway(&c->box, b.volume0, c->rlist, b.ghosted, why, c->step_now);
}

/* After a barostat's start moved the box: the force kernel takes its lengths from the moving grid
   (one rank, queued), or the host follows it (several ranks). */
static int box_moved(gpu_ctx *c)
{
    if (!c->barostat)
        return MDL_OK;
    return c->halo ? follow_box(c) : gpu_copy_image(c->dgrid) ? MDL_ERUN : MDL_OK;
}

/* The chains' half step (GPU_NH_* mode) on sum m v^2 and the virial in c->result, queued. */
static int nose_hoover_queue(gpu_ctx *c, int mode)
{
    TRY(gpu_nose_hoover(c->nh, mode, c->result, c->u.mvv2e, c->bx, c->nh_factor, c->nbs, c->report_dev));
    return mode & GPU_NH_START ? box_moved(c) : MDL_OK;
}

static int gpu_integrate_first(void *p)
{
    gpu_ctx *c = p;
    if (c->nh && !c->replaying)
        MDL_TRY(nose_hoover_queue(c, GPU_NH_START));
    return kick_drift(c, 1);
}

/* The second half kick with Nose-Hoover's chains: chained on one rank, one pass sums the kicked
   velocities without writing them and its last block takes the chains' end and next start, then
   both kicks with their factor between (two passes, where kick, sum, scale, kick take four);
   otherwise the kick, the sum (several ranks: over ranks through the host), the chains' end and a
   scaling pass. */
static int nose_hoover_second(gpu_ctx *c, int then_first)
{
    if (c->replaying)
        return MDL_OK;
    const double dtf = 0.5 * c->dt * c->u.ftm2v;
    if (then_first && !c->halo) {
        TRY(gpu_nose_hoover_kicked(c->n, dtf, c->vx, c->vy, c->vz, c->fx, c->fy, c->fz, c->type, c->ntypes,
                                   &c->masses, c->barostat ? c->w : NULL, c->partials, c->nh_ticket, c->nh, c->u.mvv2e,
                                   c->bx, c->nh_factor, c->nbs, c->report_dev));
        MDL_TRY(box_moved(c));
        return kick_drift(c, 2);
    }
    TRY(gpu_kick(c->n, dtf, c->vx, c->vy, c->vz, c->fx, c->fy, c->fz, c->type, &c->nbs->halt));
    MDL_TRY(reduce_mv2(c));
    MDL_TRY(nose_hoover_queue(c, GPU_NH_END));
    TRY(gpu_scale_by(c->n, c->vx, c->vy, c->vz, c->nh_factor, &c->nbs->halt));
    return then_first ? gpu_integrate_first(c) : MDL_OK;
}

static int gpu_integrate_second(void *p, int then_first)
{
    gpu_ctx *c = p;
    if (then_first && c->kicked) { /* made by the force pass: its positions become pos4 */
        mdl_real *t = c->pos4;
        c->pos4 = c->pos4_next, c->pos4_next = t;
        c->flip ^= 1;
        c->kicked = 0;
        return MDL_OK;
    }
    if (c->nh)
        return nose_hoover_second(c, then_first);
    if (then_first)
        return kick_drift(c, 2);
    if (c->replaying)
        return MDL_OK;
    TRY(gpu_kick(c->n, 0.5 * c->dt * c->u.ftm2v, c->vx, c->vy, c->vz, c->fx, c->fy, c->fz, c->type, &c->nbs->halt));
    return MDL_OK;
}

static int gpu_langevin_force(void *p, const mdl_langevin *lp, uint64_t seed, long step)
{
    gpu_ctx *c = p;
    if (c->replaying)
        return MDL_OK;
    /* in a step, the device's step count: a recorded step replays with the step of its replay */
    TRY(gpu_langevin(c->n, c->vx, c->vy, c->vz, c->fx, c->fy, c->fz, c->type, c->id, *lp, seed, (uint64_t)step,
                     c->in_step && !c->halo ? &c->nbs->step : NULL, &c->nbs->halt));
    return MDL_OK;
}

static int gpu_scale_velocities(void *p, const mdl_scaling *rule, long step)
{
    gpu_ctx *c = p;
    if (c->replaying)
        return MDL_OK;
    MDL_TRY(reduce_mv2(c));
    /* in a step, the device's step count: a recorded step replays with the step of its replay */
    TRY(gpu_scale_to_temperature(c->n, c->vx, c->vy, c->vz, c->result, *rule, c->u.mvv2e, c->u.boltz,
                                 mdl_dof(c->natoms, box_dimension(&c->box)), (uint64_t)step,
                                 c->in_step && !c->halo ? &c->nbs->step : NULL, &c->nbs->halt));
    return MDL_OK;
}

/* A barostat's box on the device (gpu_box_state): its faces, fixed point, the reference volume (a
   checkpoint's, else this box's), the
   list's skin and cutoff, the list built in this box; the grid then decided with its margin (no
   outer list: its skin test knows no moving box), and the thermo slots' boxes. */
static int barostat_init(gpu_ctx *c, double vol0)
{
    gpu_box_state b = {.skin = c->skin, .unsafe_skin = gpu_unsafe_skin(c), .volume0 = vol0 > 0 ? vol0 : box_volume(&c->box), .built = c->box};
    gpu_grid_set_box(&b.grid, &c->box);
    for (int d = 0; d < 3; d++)
        b.hi[d] = c->box.lo[d] + c->box.len[d], b.centre[d] = 0.5 * (c->box.lo[d] + b.hi[d]);
    c->barostat = 1;
    if (c->outer > 0)
        c->rlist -= c->outer, c->outer = 0;
    b.rlist = c->rlist;
    for (int d = 0; d < 3 && c->dm; d++) /* ghosts are the images: any edge */
        b.ghosted |= c->dm->ghosted[d] << d;
    TRY(gpu_h2d(c->bx, &b, sizeof b));
    if (!c->box_host)
        TRY(gpu_host_pin_alloc((void **)&c->box_host, MDL_THERMO_SLOTS * sizeof *c->box_host, "thermo boxes"));
    return gpu_rebuild_between_steps(c);
}

/* The chains to the device, their masses set on this temperature and virial (the set-up's
   reduction, waited for). Their half steps are then integrate_first's and integrate_second's
   (several ranks: the kinetic energy summed through the host, as the other thermostats' is). */
static int gpu_nose_hoover_init(void *p, const mdl_nh *nh)
{
    gpu_ctx *c = p;
    MDL_TRY(gpu_fix_box(c)); /* a barostat's box, read back: where this one starts, or fixed from now on */
    gpu_drop_graphs(c);
    if (!nh) { /* the chains stop (a stage of another ensemble follows) */
        TRY(gpu_synchronize());
        gpu_free(c->nh);
        c->nh = NULL;
        return MDL_OK;
    }
    if (nh->barostat) /* a checkpoint's reference volume: the runaway limits count from its run's start */
        MDL_TRY(barostat_init(c, nh->vol0));
    if (!c->nh_factor) {
        TRY(gpu_malloc((void **)&c->nh_factor, (2 + MDL_THERMO_SLOTS) * sizeof(double), "Nose-Hoover factors"));
        TRY(gpu_malloc((void **)&c->nh_ticket, sizeof *c->nh_ticket, "Nose-Hoover's count of blocks"));
        TRY(gpu_memset(c->nh_ticket, 0, sizeof *c->nh_ticket));
        for (int t = 0; t < c->ntypes; t++)
            c->masses.mass[t] = c->mass[t], c->masses.inv[t] = 1.0 / c->mass[t]; /* as gpu_set_masses */
        TRY(gpu_host_pin_alloc((void **)&c->nh_host, MDL_THERMO_SLOTS * sizeof(double), "Nose-Hoover energies"));
        TRY(gpu_memset(c->nh_factor, 0, (2 + MDL_THERMO_SLOTS) * sizeof(double)));
    }
    if (!c->nh) {
        TRY(gpu_malloc((void **)&c->nh, sizeof *c->nh, "Nose-Hoover chains"));
        TRY(gpu_memset(c->nh, 0, sizeof *c->nh));
    }
    mdl_observables o;
    MDL_TRY(backend_observe(&mdl_gpu_backend, c, &o));
    mdl_nh start = *nh;
    start.box_hi_set = 0; /* the device's box keeps lo and len (its checkpoints record no faces) */
    if (start.vol0 == 0)
        start.vol0 = o.volume;
    start.virial = o.virial;
    start.ptail = c->tail[1];
    nh_setup(&start, o.temperature);
    TRY(gpu_h2d(c->nh, &start, sizeof start));
    return MDL_OK;
}

static int gpu_nose_hoover_state(void *p, mdl_nh *out)
{
    gpu_ctx *c = p;
    TRY(gpu_synchronize());
    TRY(gpu_d2h(out, c->nh, sizeof *out));
    return MDL_OK;
}

static int gpu_sync(void *p) /* the compute stream: output copies on the copy stream go on */
{
    (void)p;
    return gpu_stream_sync(NULL) ? MDL_ERUN : MDL_OK;
}

const mdl_backend_ops mdl_gpu_backend = {
    .name = "gpu",
    .create = gpu_create,
    .destroy = gpu_destroy,
    .update_neighbors = gpu_update_neighbors,
    .health = gpu_health,
    .diagnose = gpu_diagnose,
    .draw_normals = gpu_draw_normals,
    .build_neighbors = gpu_build_neighbors,
    .set_positions = gpu_set_positions,
    .set_velocities = gpu_set_velocities,
    .move_atoms = gpu_set_positions, /* the list built again at each move */
    .set_skin = gpu_set_skin,
    .compute_forces = gpu_compute_forces,
    .integrate_first = gpu_integrate_first,
    .integrate_second = gpu_integrate_second,
    .langevin = gpu_langevin_force,
    .scale_to_temperature = gpu_scale_velocities,
    .nose_hoover_init = gpu_nose_hoover_init,
    .analysis_start = gpu_analysis_start,
    .analysis_sample = gpu_analysis_sample,
    .analysis_read = gpu_analysis_read,
    .analysis_resume = gpu_analysis_resume,
    .nose_hoover_state = gpu_nose_hoover_state,
    .neighbor_rows = gpu_neighbor_rows,
    .stats = gpu_stats,
    .synchronize = gpu_sync,
    .begin_step = gpu_begin_step,
    .end_step = gpu_end_step,
    .advance_plain = gpu_advance_plain,
    .reduce_start = gpu_reduce_start,
    .reduce_poll = gpu_reduce_poll,
    .force_norms = gpu_force_norms,
    .snapshot_alloc = gpu_snapshot_alloc,
    .snapshot_start = gpu_snapshot_start,
    .snapshot_finish = gpu_snapshot_finish,
};

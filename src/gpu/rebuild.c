/* The GPU backend's step driver: the rebuild (atoms rearranged by lists.c on one rank, migrate.c on
   several, then the list) run at once by the host (set-up, `mdlite neighbors`, a grown list, a new
   skin) or recorded behind the device's skin test in the step's graph; each kind of step recorded
   once as a CUDA graph and replayed; with ranks, the ranks' decisions (refresh.c) acted on. */
#include "context.h"
#include "persistent.h"

#include "../physics/cells.h"
#include "../util/util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A rebuild the ranks agreed on (refresh.c counted it): staged, built at once, the host waiting for
   the list's longest row; through NCCL queued, its row length agreed at the next check. */
static int rebuild_ranks(gpu_ctx *c)
{
    if (halo_build_waits(c))
        return gpu_build_neighbors(c);
    MDL_TRY(gpu_queue_build(c));
    return halo_build_queued(c);
}

/* The whole rebuild, queued without waiting for anything (several ranks: the host waits for
   counts on the way): the atoms rearranged, then the list built. */
static int queue_rebuild(gpu_ctx *c)
{
    if (c->barostat && gpu_d2d(&c->bx->built, &c->bx->grid.region, sizeof c->bx->built)) /* the skin test's */
        return MDL_ERUN;
    if (c->halo)
        return halo_rebuild(c) == MDL_OK ? gpu_build_list(c, false) : MDL_ERUN;
    return gpu_queue_rebuild_one(c);
}

static void drop_restart_build(gpu_ctx *c)
{
    gpu_free(c->restart_build);
    c->restart_build = NULL;
    c->restart_since = -1;
}

/* A restart's first build: its checkpoint's last build made again where it can be (the atoms are
   in that build's order), else a rebuild from the positions given. */
static int first_build(gpu_ctx *c)
{
    int rc = gpu_build_repeatable(c) ? gpu_build_at_checkpoint(c) : MDL_EINPUT;
    if (rc != MDL_EINPUT)
        return rc;
    mdl_warn("--restart: the checkpoint's last neighbor-list build cannot be made again here (%s); the lists are "
             "built from its positions, and the run goes on exact to rounding, not bit for bit",
             gpu_build_repeatable(c) ? "its order of the atoms is not one of cells" : "the box moves");
    drop_restart_build(c);
    return queue_rebuild(c);
}

/* The host's build, queued without waiting (several ranks through NCCL: the ranks agree on the
   longest row later); the device's skin state starts over. */
int gpu_queue_build(gpu_ctx *c)
{
    if (gpu_setup_cells(c) != MDL_OK || (c->restart_build ? first_build(c) : queue_rebuild(c)) != MDL_OK)
        return MDL_ERUN;
    TRY(gpu_memset(&c->nbs->far_outer, 0, sizeof(int)));
    return gpu_memset(c->nbs, 0, 2 * sizeof(int)) ? MDL_ERUN : MDL_OK; /* far, since */
}

/* A barostat's box, the device waited for: the host's box and region become the device's box,
   and the device's skin test gets the list's skin and cutoff. */
static int sync_box(gpu_ctx *c)
{
    if (!c->barostat)
        return MDL_OK;
    TRY(gpu_d2h(&c->box, &c->bx->grid.region, sizeof c->box));
    if (!c->halo) /* several ranks: the region is the brick's (gpu_setup_cells) */
        c->region = c->box;
    const double radius[3] = {c->skin, c->rlist, gpu_unsafe_skin(c)};
    TRY(gpu_h2d(&c->bx->skin, radius, sizeof radius));
    c->report[2] = 0; /* the box the grid was last decided on is now the host's */
    return MDL_OK;
}

/* The host's build: queued, then the longest row read back; a list too short grows (+10%) and
   is built again. */
int gpu_build_neighbors(void *p)
{
    gpu_ctx *c = p;
    gpu_drop_graphs(c); /* a set-up's or a stage's build: the steps after it are recorded again */
    if (c->started) { /* a stage's build: the last step's forces go with the atoms (the next kick's) */
        c->forces_given = 1;
        TRY(gpu_synchronize());
        MDL_TRY(sync_box(c)); /* a barostat's box: the device's, not the host's last reading */
    }
    MDL_TRY(gpu_queue_build(c));
    for (;;) {
        TRY(gpu_d2h(c->host_flags, c->flags, 2 * sizeof(int)));
        if (c->host_flags[1] <= c->capacity || c->list_fixed)
            break;
        if (gpu_grow_list(c, c->host_flags[1] + c->host_flags[1] / 10 + 4) != MDL_OK || gpu_build_list(c, false) != MDL_OK)
            return MDL_ERUN;
    }
    if (c->restart_build) { /* a restart's build made again: the atoms go on from where they are now */
        MDL_TRY(gpu_resume_positions(c));
        gpu_free(c->restart_build);
        c->restart_build = NULL;
    }
    if (c->started && gpu_d2d(&c->nbs->last_build, &c->nbs->step, sizeof c->nbs->step)) /* built at this step */
        return MDL_ERUN;
    return MDL_OK;
}

/* A build by the host between steps (a new skin; a list grown to capacity slots when capacity
   > 0; a barostat's box that asks for another grid): the device is waited for, the last step's
   forces go with the atoms (the next kick needs them), the build counts as one made at the
   device's step, and every graph is recorded again (the skin, the list and the grid are in the
   recorded kernels' arguments). None once the device has halted: the health check reads the
   state it halted in. */
static int build_between_steps(gpu_ctx *c, int capacity)
{
    TRY(gpu_synchronize());
    if (c->report[0] >= 0) /* the device halted meanwhile: the health check reads the state it halted in */
        return MDL_OK;
    c->forces_given = 1;
    int rc = sync_box(c) != MDL_OK || (capacity > 0 && gpu_grow_list(c, capacity) != MDL_OK) ? MDL_ERUN
                                                                                           : gpu_build_neighbors(c);
    c->forces_given = 0;
    if (rc == MDL_OK && gpu_d2d(&c->nbs->last_build, &c->nbs->step, sizeof c->nbs->step))
        rc = MDL_ERUN;
    c->extra_builds++;
    gpu_drop_graphs(c);
    return rc;
}

int gpu_fix_box(gpu_ctx *c)
{
    if (!c->barostat)
        return MDL_OK;
    TRY(gpu_synchronize());
    MDL_TRY(sync_box(c));
    c->barostat = 0;
    gpu_drop_graphs(c);
    return gpu_setup_cells(c);
}

int gpu_rebuild_between_steps(gpu_ctx *c)
{
    return build_between_steps(c, 0);
}

/* A barostat's box at the device's last rebuild (report[2..4]) that holds more cells GPU_GRID_GROW
   wider than the list cutoff than the grid has (fewer: the device uses fewer of its cells). */
static int grid_outdated(const gpu_ctx *c)
{
    if (!c->barostat || c->report[2] == 0)
        return 0;
    mdl_box b = c->region, grown;
    for (int d = 0; d < 3; d++) {
        const long long bits = c->report[2 + d];
        memcpy(&b.len[d], &bits, sizeof bits);
    }
    grown = b;
    for (int d = 0; d < 3; d++)
        grown.len[d] /= 1 + GPU_GRID_GROW;
    int nc[3];
    cell_grid_dims(&grown, c->rlist, c->cap, nc);
    for (int d = 0; d < 3; d++)
        if (nc[d] > c->nc[d])
            return 1;
    return 0;
}

int gpu_set_skin(void *p, double skin)
{
    gpu_ctx *c = p;
    c->rlist += skin - c->skin; /* the largest cutoff + the skin (+ the outer list's) */
    c->skin = skin;
    if (c->outer > 0 && !gpu_outer_fits(c, c->rlist)) /* this skin leaves no room for an outer list */
        c->rlist -= c->outer, c->outer = 0;
    return build_between_steps(c, 0);
}

void gpu_drop_graphs(gpu_ctx *c)
{
    for (int f = 0; f < 2; f++) {
        for (int k = 0; k < MDL_STEP_KINDS; k++) {
            gpu_graph_destroy(c->step_graph[f][k]);
            c->step_graph[f][k] = NULL;
        }
        gpu_graph_destroy(c->update_graph[f]);
        c->update_graph[f] = NULL;
    }
}

/* Before each step: the device's step count starts from the host's; a list that a build on the
   device found too short (the force kernel covered the long rows meanwhile), or a barostat's grid
   that the box outgrew, is built by the host, which waits for the device this once, and every
   graph is recorded again. Then the step's graph is replayed at end_step, or recorded from the
   calls in between. */
int gpu_begin_step(void *p, long step, int kind)
{
    gpu_ctx *c = p;
    if (c->halo) /* several ranks: rebuilds go through the host (migrate.c, refresh.c); no graphs */
        kind = -1;
    if (!c->started) {
        long long at = step - 1, built = at; /* the set-up's build (a restart's: its checkpoint's) */
        const int since = c->restart_since > 0 ? (int)c->restart_since : 0;
        built -= since;
        TRY(gpu_h2d(&c->nbs->step, &at, sizeof at));
        TRY(gpu_h2d(&c->nbs->last_build, &built, sizeof built));
        TRY(gpu_h2d(&c->nbs->since, &since, sizeof since));
        c->started = 1;
    }
    long long need = c->report[1];
    if (need > c->capacity && !c->list_fixed && build_between_steps(c, (int)(need + need / 10 + 4)) != MDL_OK)
        return MDL_ERUN;
    if (grid_outdated(c) && build_between_steps(c, 0) != MDL_OK)
        return MDL_ERUN;
    c->kind = kind;
    c->step_now = step;
    c->in_step = 1;
    c->step_flip = c->flip;
    if (kind < 0)
        return MDL_OK;
    if (c->step_graph[c->flip][kind]) {
        c->replaying = 1;
        return MDL_OK;
    }
    c->recording = 1;
    return gpu_record_begin() ? MDL_ERUN : MDL_OK;
}

int gpu_end_step(void *p, int *redo)
{
    gpu_ctx *c = p;
    *redo = 0;
    c->in_step = c->replaying = 0;
    if (c->halo) { /* no graphs; the step stands unless the ranks agreed on a rebuild meanwhile */
        MDL_TRY(halo_confirm(c, redo));
        return *redo ? rebuild_ranks(c) : MDL_OK;
    }
    if (c->recording) {
        c->recording = 0;
        TRY(gpu_record_end(&c->step_graph[c->step_flip][c->kind]));
    }
    return c->kind >= 0 && gpu_graph_launch(c->step_graph[c->step_flip][c->kind]) ? MDL_ERUN : MDL_OK;
}

/* The rebuild test and the conditional rebuild (pruned lists: then the conditional prune), queued
   into a recording. */
static int queue_update(gpu_ctx *c)
{
    TRY(gpu_rebuild_node_begin(c->nbs, (gpu_rebuild_rule){c->check, c->delay, c->distance_check}, c->flags, c->report_dev, c->outer > 0, c->barostat ? c->bx : NULL));
    int rc = queue_rebuild(c);
    if (rc == MDL_OK && c->outer > 0)
        rc = gpu_prune_node_begin() == 0 ? gpu_queue_prune(c) : MDL_ERUN;
    return gpu_rebuild_node_end() == 0 && rc == MDL_OK ? MDL_OK : MDL_ERUN;
}

/* Recorded into the step's graph, or (a step not recorded) launched as a graph of its own. */
int gpu_update_neighbors(void *p, long step)
{
    gpu_ctx *c = p;
    if (c->halo) {
        int rebuild;
        MDL_TRY(halo_update(c, step, &rebuild));
        return rebuild ? rebuild_ranks(c) : MDL_OK;
    }
    if (c->replaying) /* the device counts the steps */
        return MDL_OK;
    if (c->recording)
        return queue_update(c);
    gpu_graph **g = &c->update_graph[c->flip];
    if (!*g) {
        TRY(gpu_record_begin());
        if (queue_update(c) != MDL_OK || gpu_record_end(g)) {
            gpu_record_abandon();
            return MDL_ERUN;
        }
    }
    return gpu_graph_launch(*g) ? MDL_ERUN : MDL_OK;
}

int gpu_health(void *p, long *unsafe_step)
{
    gpu_ctx *c = p;
    if (c->halo)
        return halo_health(c, unsafe_step);
    *unsafe_step = (long)c->report[0];
    return MDL_OK;
}

/* The persistent step's rule (auto): mixed precision up to 4,096 atoms, where one launch of many
   steps beats a graph per step (H100, in.lj: 500 atoms 1.088, 4,000 1.015, 16,384 0.793); in double
   precision it loses at every size measured (500 atoms 0.843): docs/PERFORMANCE.md. */
#ifdef MDLITE_GPU_DOUBLE
#define GPU_PERSISTENT_UPTO 0
#else
#define GPU_PERSISTENT_UPTO 4096
#endif

/* Whether this run's plain steps may go to the persistent step: one rank, velocity Verlet (Langevin's
   force, Nose-Hoover's chains or neither) on a pair style in a fixed box (no barostat, not EAM), past
   the set-up, by the rule. */
static int persistent_takes(const gpu_ctx *c)
{
    if (c->step_mode == MDL_GPU_STEP_GRAPHS || c->halo || c->barostat || c->eam || !c->started ||
        c->kicked || c->restart_build)
        return 0;
    return c->step_mode == MDL_GPU_STEP_PERSISTENT || c->n <= GPU_PERSISTENT_UPTO;
}

int gpu_advance_plain(void *p, long step, long steps, const mdl_langevin *langevin, uint64_t seed, long *done)
{
    gpu_ctx *c = p;
    *done = 0;
    /* halted, or a list the host grows first (gpu_begin_step): the graphs' step */
    if (!persistent_takes(c) || steps < 1 || c->report[0] >= 0 || (c->report[1] > c->capacity && !c->list_fixed))
        return MDL_OK;
    int si, sk;
    gpu_list_strides(c, &si, &sk);
    static const mdl_langevin none;
    const double unsafe = gpu_unsafe_skin(c), outer = c->outer > 0 ? c->skin + c->outer : 0;
    gpu_steps a = {c->style, c->ntypes, (int)c->n, steps > 1000000 ? 1000000 : (int)steps,
                   {c->check, c->delay, c->distance_check}, c->nl, gpu_list_table(c), c->count, c->flags,
                   gpu_rows_now(c), si, sk, c->capacity, c->pos4, c->fx, c->fy, c->fz, c->pos0, c->type,
                   c->x, c->y, c->z, c->vx, c->vy, c->vz, 0.5 * c->dt * c->u.ftm2v, c->dt, {0},
                   (mdl_real)(0.25 * c->skin * c->skin), (mdl_real)(unsafe * unsafe), (mdl_real)(0.5 * outer),
                   c->nbs, c->flags + 2, langevin != NULL, langevin ? *langevin : none, seed, c->id, {0},
                   c->nh, c->nh_factor, c->partials, (int)gpu_reduce_blocks(c->n), c->u.mvv2e, c->bx, c->report_dev};
    for (int t = 0; t < c->ntypes; t++)
        a.inv_mass[t] = 1.0 / c->mass[t], a.mass[t] = c->mass[t]; /* as gpu_set_masses */
    int made;
    TRY(gpu_persistent_steps(&a));
    TRY(gpu_d2h(&made, c->flags + 2, sizeof made));
    *done = made;
    c->persistent += made;
    if (made > 0)
        c->step_now = step + made - 1;
    return MDL_OK;
}

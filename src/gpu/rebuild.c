/* The GPU backend's neighbor lists and step graphs: the rebuild chain (wrap, cell sort,
   permutation of every per-atom array, build; pruned lists: the outer list's build and the prune),
   run at once by the host (set-up, `mdlite neighbors`, a grown list) or recorded behind the device's
   skin test in the step's graph; the recording and replay of each kind of step. */
#include "context.h"

#include "../physics/cells.h"
#include "../util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static size_t ncells(const gpu_ctx *c)
{
    return (size_t)c->nc[0] * c->nc[1] * c->nc[2];
}

/* One rank's cell method sorts a small system without CUB (gpu.h's counting sort), up to its
   limits (131,072 atoms); CUB's radix sort above them and with ranks. */
static int use_count_sort(const gpu_ctx *c, size_t ncells)
{
    return !c->halo && c->method == MDL_NL_CELL && gpu_count_sort_fits(c->cap, ncells);
}

/* Cell arrays and the sort's storage for the region's grid and the atoms the arrays hold (the
   box is fixed during a run): before any recording. Several ranks: the ghosts' cell bounds after
   the atoms', and a key for atoms that left. */
int gpu_setup_cells(gpu_ctx *c)
{
    size_t total = c->halo ? halo_cell_grid(c, c->cap) : cell_grid_dims(&c->region, c->rlist, c->cap, c->nc);
    size_t bounds = c->halo ? 2 * total : total;
    if (bounds > c->ncells_cap || c->cap > c->sort_cap) {
        gpu_free(c->cell_start);
        gpu_free(c->cell_end);
        gpu_free(c->sort_temp);
        c->count_sort = use_count_sort(c, total);
        c->sort_temp_bytes = c->count_sort ? gpu_count_sort_bytes(c->cap, total)
                                           : gpu_sort_temp_bytes(c->cap, bounds + 1);
        if (gpu_malloc((void **)&c->cell_start, bounds * sizeof(int), "cell starts") ||
            gpu_malloc((void **)&c->cell_end, bounds * sizeof(int), "cell ends") ||
            gpu_malloc(&c->sort_temp, c->sort_temp_bytes, "the cell sort"))
            return MDL_ERUN;
        c->ncells_cap = bounds;
        c->sort_cap = c->cap;
    }
    return MDL_OK;
}

/* Pruned lists: the inner list from the outer one at the current positions, which pos0 keeps. */
static int queue_prune(gpu_ctx *c)
{
    int si, sk;
    gpu_list_strides(c, &si, &sk);
    TRY(gpu_prune_list(c->n, c->region, c->pos4, c->pos_outer, c->rlist - c->outer, c->onl, c->ocount,
                       gpu_list_table(c), c->nl, c->count, si, sk, c->capacity, c->pos0, &c->nbs->halt));
    return MDL_OK;
}

/* The list from the sorted atoms; pruned lists: the outer list, then the inner one from it. The
   positions it is built at (pos0, or pos_outer) are copied from pos4 unless `kept` (the
   permutation wrote them). */
static int build_list(gpu_ctx *c, bool kept)
{
    size_t n = c->n;
    int si, sk, *nl = c->outer > 0 ? c->onl : c->nl, *count = c->outer > 0 ? c->ocount : c->count;
    gpu_list_strides(c, &si, &sk);
    TRY(gpu_memset(c->flags + 1, 0, sizeof(int)));
    gpu_ghost_cells g;
    if (c->halo)
        halo_ghost_cells(c, &g);
    if (c->method == MDL_NL_CELL)
        TRY(gpu_build_cell(n, c->region, c->nc, c->cell_start, c->cell_end, c->halo ? &g : NULL, c->pos4, c->rlist,
                           nl, count, c->capacity, si, sk, c->flags, gpu_rows_now(c), gpu_list_table(c)));
    else if (c->method == MDL_NL_BRUTE)
        TRY(gpu_build_brute(n, c->box, c->pos4, c->rlist, nl, count, c->capacity, si, sk, c->flags));
    else
        TRY(gpu_build_brute_atomic(n, c->box, c->pos4, c->rlist, nl, count, c->capacity, si, sk, c->flags));
    if (!kept && gpu_d2d(c->outer > 0 ? c->pos_outer : c->pos0, c->pos4, 4 * gpu_pos_atoms(n) * sizeof(mdl_real)))
        return MDL_ERUN;
    return c->outer > 0 ? queue_prune(c) : MDL_OK;
}

/* Queues the whole rebuild, without waiting for anything: wrap and pack, then (cell method) sort
   by cell and permute every per-atom array through the old list's memory, then build. The cell
   method's wrap writes the sort's keys, and its permutation the cell bounds and the list's
   positions (fewer passes and graph nodes); a small system's wrap also counts the keys, and the
   counting sort's placement stages the atoms and writes the bounds. */
static int queue_rebuild(gpu_ctx *c)
{
    if (c->halo) /* several ranks: the host waits for counts on the way */
        return halo_rebuild(c) == MDL_OK ? build_list(c, false) : MDL_ERUN;
    size_t n = c->n;
    if (c->method != MDL_NL_CELL) {
        TRY(gpu_wrap_and_pack(n, c->box, c->x, c->y, c->z, c->ix, c->iy, c->iz, c->type, c->pos4, NULL));
        return build_list(c, false);
    }
    gpu_atom_arrays a = {{c->x, c->y, c->z, c->vx, c->vy, c->vz}, {c->ix, c->iy, c->iz, c->type}, c->id,
                         {c->forces_given ? c->fx : NULL, c->fy, c->fz}}; /* forces: a restart's only */
    gpu_cell_keys keys = {c->region, {c->nc[0], c->nc[1], c->nc[2]}, c->cell, c->perm};
    mdl_real *built_at = c->outer > 0 ? c->pos_outer : c->pos0;
    if (c->count_sort) { /* the placement writes the cell bounds */
        gpu_permute_also also = {NULL, NULL, NULL, 0, built_at};
        TRY(gpu_wrap_and_count(n, c->box, c->x, c->y, c->z, c->ix, c->iy, c->iz, c->type, &keys, c->sort_temp));
        TRY(gpu_place_by_cell(n, &keys, c->sort_temp, a, c->nl, c->cell_start, c->cell_end));
        TRY(gpu_unstage_atoms(n, a, c->nl, c->pos4, &also));
        return build_list(c, true);
    }
    gpu_permute_also also = {c->cell_sorted, c->cell_start, c->cell_end, ncells(c), built_at};
    TRY(gpu_wrap_and_pack(n, c->box, c->x, c->y, c->z, c->ix, c->iy, c->iz, c->type, c->pos4, &keys));
    TRY(gpu_sort_by_cell(c->cell, c->cell_sorted, c->perm, c->perm_sorted, n, ncells(c), c->sort_temp,
                         c->sort_temp_bytes));
    TRY(gpu_permute_atoms(n, c->perm_sorted, a, c->nl, c->pos4, &also));
    return build_list(c, true);
}

/* The host's build, queued without waiting (several ranks through NCCL: the ranks agree on the
   longest row later); the device's skin state starts over. */
int gpu_queue_build(gpu_ctx *c)
{
    if (gpu_setup_cells(c) != MDL_OK || queue_rebuild(c) != MDL_OK)
        return MDL_ERUN;
    TRY(gpu_memset(&c->nbs->far_outer, 0, sizeof(int)));
    return gpu_memset(c->nbs, 0, 2 * sizeof(int)) ? MDL_ERUN : MDL_OK; /* far, since */
}

/* The host's build: queued, then the longest row read back; a list too short grows (+10%) and
   is built again. */
int gpu_build_neighbors(void *p)
{
    gpu_ctx *c = p;
    MDL_TRY(gpu_queue_build(c));
    for (;;) {
        TRY(gpu_d2h(c->host_flags, c->flags, 2 * sizeof(int)));
        if (c->host_flags[1] <= c->capacity || c->list_fixed)
            break;
        if (gpu_grow_list(c, c->host_flags[1] + c->host_flags[1] / 10 + 4) != MDL_OK || build_list(c, false) != MDL_OK)
            return MDL_ERUN;
    }
    return MDL_OK;
}

/* A build by the host between steps (a new skin; a list grown to capacity slots when capacity
   > 0): the device is waited for, the last step's forces go with the atoms (the next kick needs
   them), the build counts as one made at the device's step, and every graph is recorded again
   (the skin and the list are in the recorded kernels' arguments). */
static int build_between_steps(gpu_ctx *c, int capacity)
{
    c->forces_given = 1;
    int rc = gpu_synchronize() || (capacity > 0 && gpu_grow_list(c, capacity) != MDL_OK) ? MDL_ERUN
                                                                                         : gpu_build_neighbors(c);
    c->forces_given = 0;
    if (rc == MDL_OK && gpu_d2d(&c->nbs->last_build, &c->nbs->step, sizeof c->nbs->step))
        rc = MDL_ERUN;
    c->extra_builds++;
    gpu_drop_graphs(c);
    return rc;
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
   device found too short (the force kernel covered the long rows meanwhile) is grown and built
   by the host, which waits for the device this once, and every graph is recorded again. Then
   the step's graph is replayed at end_step, or recorded from the calls in between. */
int gpu_begin_step(void *p, long step, int kind)
{
    gpu_ctx *c = p;
    if (c->halo) /* several ranks: rebuilds go through the host (halo.c); no graphs */
        kind = -1;
    if (!c->started) {
        long long at = step - 1; /* the set-up's build */
        TRY(gpu_h2d(&c->nbs->step, &at, sizeof at));
        TRY(gpu_h2d(&c->nbs->last_build, &at, sizeof at));
        c->started = 1;
    }
    long long need = c->report[1];
    if (need > c->capacity && !c->list_fixed && build_between_steps(c, (int)(need + need / 10 + 4)) != MDL_OK)
        return MDL_ERUN;
    c->kind = kind;
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
    if (c->halo) /* no graphs; the step stands unless the ranks agreed on a rebuild meanwhile */
        return halo_confirm(c, redo);
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
    TRY(gpu_rebuild_node_begin(c->nbs, c->check, c->flags, c->report_dev, c->outer > 0));
    int rc = queue_rebuild(c);
    if (rc == MDL_OK && c->outer > 0)
        rc = gpu_prune_node_begin() == 0 ? queue_prune(c) : MDL_ERUN;
    return gpu_rebuild_node_end() == 0 && rc == MDL_OK ? MDL_OK : MDL_ERUN;
}

/* Recorded into the step's graph, or (a step not recorded) launched as a graph of its own. */
int gpu_update_neighbors(void *p, long step)
{
    gpu_ctx *c = p;
    if (c->halo)
        return halo_update(c, step);
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

/* The GPU backend's neighbor list from atoms in place: one rank's rearrangement (wrap, sort by
   cell, permutation of every per-atom array), the build by the method's builder (with ranks, the
   ghosts' cells after the atoms'), and pruned lists' prune of the outer list; all queued without
   waiting. Several ranks rearrange their atoms in migrate.c first. */
#include "context.h"

#include "../parallel/domain.h"
#include "../util/util.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

static size_t ncells(const gpu_ctx *c)
{
    return (size_t)c->nc[0] * c->nc[1] * c->nc[2];
}

/* The ghosts' cell bounds follow the atoms'; along a ghosted dimension the cells that hold no
   ghost are those wholly inside the brick, less one on each side for rounding (a ghost's cell is
   found from its float position), none in a triclinic box (its slabs are slanted: skipping a box of
   whole cells inside the brick made the warp builder 310 against 319 us, and in.lj's sheared
   liquid no faster); along the others every cell (and the wrapped ones) is free. */
static void ghost_cells(const gpu_ctx *c, gpu_ghost_cells *g)
{
    const mdl_domain *dm = c->dm;
    const size_t ncells = (size_t)c->nc[0] * c->nc[1] * c->nc[2];
    g->start = c->cell_start + ncells, g->end = c->cell_end + ncells;
    for (int d = 0; d < 3; d++) {
        g->lo[d] = -1, g->hi[d] = c->nc[d];
        if (!dm->ghosted[d])
            continue;
        if (box_is_triclinic(&dm->box)) {
            g->lo[d] = c->nc[d], g->hi[d] = -1;
            continue;
        }
        double w = c->region.len[d] / c->nc[d];
        g->lo[d] = (int)floor((dm->lo[d] - c->region.lo[d]) / w) + 2;
        g->hi[d] = (int)floor((dm->hi[d] - c->region.lo[d]) / w) - 2;
    }
}

/* Pruned lists: the inner list from the outer one at the current positions, which pos0 keeps. */
int gpu_queue_prune(gpu_ctx *c)
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
int gpu_build_list(gpu_ctx *c, bool kept)
{
    size_t n = c->n;
    int si, sk, *nl = c->outer > 0 ? c->onl : c->nl, *count = c->outer > 0 ? c->ocount : c->count;
    gpu_list_strides(c, &si, &sk);
    TRY(gpu_memset(c->flags + 1, 0, sizeof(int)));
    gpu_ghost_cells g;
    if (c->dm)
        ghost_cells(c, &g);
    if (c->method == MDL_NL_CELL)
        TRY(gpu_build_cell(n, gpu_host_grid(c), gpu_moving(c), c->cell_start, c->cell_end, c->halo ? &g : NULL,
                           c->pos4, c->rlist,
                           nl, count, c->capacity, si, sk, c->flags, gpu_rows_now(c), gpu_list_table(c)));
    else if (c->method == MDL_NL_BRUTE)
        TRY(gpu_build_brute(n, c->dgrid, c->pos4, c->rlist, nl, count, c->capacity, si, sk, c->flags));
    else
        TRY(gpu_build_brute_atomic(n, c->dgrid, c->pos4, c->rlist, nl, count, c->capacity, si, sk, c->flags));
    if (!kept && gpu_d2d(c->outer > 0 ? c->pos_outer : c->pos0, c->pos4, 4 * gpu_pos_atoms(n) * sizeof(mdl_real)))
        return MDL_ERUN;
    return c->outer > 0 ? gpu_queue_prune(c) : MDL_OK;
}

/* One rank's rebuild, queued without waiting for anything: wrap and pack, then (cell method) sort
   by cell and permute every per-atom array through the old list's memory, then build. The cell
   method's wrap writes the sort's keys, and its permutation the cell bounds and the list's
   positions (fewer passes and graph nodes); a small system's wrap also counts the keys, and the
   counting sort's placement stages the atoms and writes the bounds. */
int gpu_queue_rebuild_one(gpu_ctx *c)
{
    size_t n = c->n;
    if (c->method != MDL_NL_CELL) {
        TRY(gpu_wrap_and_pack(n, c->box, gpu_moving(c), c->x, c->y, c->z, c->ix, c->iy, c->iz, c->type, c->pos4,
                              NULL));
        return gpu_build_list(c, false);
    }
    gpu_atom_arrays a = {{c->x, c->y, c->z, c->vx, c->vy, c->vz}, {c->ix, c->iy, c->iz, c->type}, c->id,
                         {c->forces_given ? c->fx : NULL, c->fy, c->fz}}; /* forces: where current */
    gpu_cell_keys keys = {gpu_host_grid(c), gpu_moving(c), c->cell, c->perm};
    mdl_real *built_at = c->outer > 0 ? c->pos_outer : c->pos0;
    if (c->count_sort) { /* the placement writes the cell bounds */
        gpu_permute_also also = {NULL, NULL, NULL, 0, built_at};
        TRY(gpu_wrap_and_count(n, c->box, gpu_moving(c), c->x, c->y, c->z, c->ix, c->iy, c->iz, c->type, &keys,
                               c->sort_temp));
        TRY(gpu_place_by_cell(n, &keys, c->sort_temp, a, c->nl, c->cell_start, c->cell_end));
        TRY(gpu_unstage_atoms(n, a, c->nl, c->pos4, &also));
        return gpu_build_list(c, true);
    }
    gpu_permute_also also = {c->cell_sorted, c->cell_start, c->cell_end, ncells(c), built_at};
    TRY(gpu_wrap_and_pack(n, c->box, gpu_moving(c), c->x, c->y, c->z, c->ix, c->iy, c->iz, c->type, c->pos4, &keys));
    TRY(gpu_sort_by_cell(c->cell, c->cell_sorted, c->perm, c->perm_sorted, n, ncells(c), c->sort_temp,
                         c->sort_temp_bytes));
    TRY(gpu_permute_atoms(n, c->perm_sorted, a, c->nl, c->pos4, &also));
    return gpu_build_list(c, true);
}

bool gpu_build_repeatable(const gpu_ctx *c)
{
    return !c->halo && !c->barostat && c->outer <= 0;
}

int gpu_build_at_checkpoint(gpu_ctx *c)
{
    const size_t n = c->n, nc = ncells(c);
    const double *b = c->restart_build;
    const gpu_grid grid = gpu_host_grid(c);
    const bool cells = c->method == MDL_NL_CELL;
    TRY(gpu_pack_unwrapped(n, b, b + n, b + 2 * n, c->type, c->pos4, grid, cells ? c->cell : NULL));
    if (cells) {
        int *cell = malloc((n ? n : 1) * sizeof *cell), sorted = cell != NULL;
        if (cell && gpu_d2h(cell, c->cell, n * sizeof *cell))
            sorted = 0;
        for (size_t i = 1; i < n && sorted; i++)
            sorted = cell[i - 1] <= cell[i];
        free(cell);
        if (!sorted)
            return MDL_EINPUT;
        TRY(gpu_cell_bounds(n, nc, c->cell, c->cell_start, c->cell_end));
    }
    return gpu_build_list(c, false);
}

int gpu_resume_positions(gpu_ctx *c)
{
    const gpu_grid none = {0};
    TRY(gpu_pack_unwrapped(c->n, c->x, c->y, c->z, c->type, c->pos4, none, NULL));
    TRY(gpu_skin_test(c->n, c->pos4, c->pos0, c->skin, gpu_unsafe_skin(c), c->nbs));
    return MDL_OK;
}

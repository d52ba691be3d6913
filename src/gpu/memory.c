/* The GPU backend's device memory (the bottom of its host code): the per-atom arrays, grown or cut
   as atoms arrive and leave; the neighbor list (its strides, form and capacity; pruned lists: the
   outer list too); the cell arrays and the sort's storage for the region's grid; the reductions'
   buffers. */
#include "context.h"

#include "../parallel/domain.h"
#include "../physics/cells.h"
#include "../util/util.h"

#include <stdlib.h>

typedef struct {
    void **p;
    size_t bytes; /* per atom */
    const char *what;
} atom_array;

/* The per-atom arrays (several ranks: halo.c's scratch too); returns how many. */
static int atom_arrays(gpu_ctx *c, atom_array a[40])
{
    const size_t d8 = sizeof(double), d4 = sizeof(int), dr = sizeof(mdl_real);
    const atom_array all[] = {
        {(void **)&c->x, d8, "positions"}, {(void **)&c->y, d8, "positions"}, {(void **)&c->z, d8, "positions"},
        {(void **)&c->vx, d8, "velocities"}, {(void **)&c->vy, d8, "velocities"},
        {(void **)&c->vz, d8, "velocities"}, {(void **)&c->fx, dr, "forces"}, {(void **)&c->fy, dr, "forces"},
        {(void **)&c->fz, dr, "forces"}, {(void **)&c->pe, dr, "energies"}, {(void **)&c->w, dr, "virials"},
        {(void **)&c->pos4, 4 * dr, "packed positions"}, {(void **)&c->pos0, 4 * dr, "positions at the build"},
        {(void **)&c->ix, d4, "images"}, {(void **)&c->iy, d4, "images"}, {(void **)&c->iz, d4, "images"},
        {(void **)&c->type, d4, "species"}, {(void **)&c->id, sizeof(int64_t), "ids"},
        {(void **)&c->count, d4, "neighbor counts"}, {(void **)&c->cell, d4, "cell index"},
        {(void **)&c->perm, d4, "permutation"}, {(void **)&c->cell_sorted, d4, "sorted cells"},
        {(void **)&c->perm_sorted, d4, "sorted permutation"},
        {(void **)&c->gone, d4, "migration"}, {(void **)&c->sel[0], d4, "migration"},
        {(void **)&c->sel[1], d4, "migration"}, {(void **)&c->inv, d4, "ghost maps"},
    };
    int m = (int)(sizeof all / sizeof all[0]) - (c->halo ? 0 : 4);
    for (int k = 0; k < m; k++)
        a[k] = all[k];
    if (c->eam) /* each atom's F'(rho), ghosts' too */
        a[m++] = (atom_array){(void **)&c->eam_fp, dr, "EAM densities"};
    return m;
}

/* The chained kicks folded into the force pass (one rank), in double precision: there it pays
   (H100, atom-steps/s: 32,000 atoms 6.09e8 -> 6.16e8, 256,000 1.41e9 -> 1.44e9, 2,048,000 1.71e9
   -> 1.84e9). In mixed precision the force kernel is bound by L1 throughput, and the folded kernel
   loses 0.5-4% (32,000 8.49e8 -> 8.15e8, 2,048,000 2.695e9 -> 2.681e9). */
static int fold_wanted(void)
{
#ifdef MDLITE_GPU_DOUBLE
    return 1;
#else
    return 0;
#endif
}

/* The outer list fits the box as the run's list does (its radius less than half of every periodic
   length). */
int gpu_outer_fits(const gpu_ctx *c, double rlist)
{
    for (int d = 0; d < 3; d++)
        if (c->box.periodic[d] && c->box.len[d] <= 2.0 * rlist)
            return 0;
    return 1;
}

gpu_grid gpu_host_grid(const gpu_ctx *c)
{
    gpu_grid g;
    gpu_grid_set_box(&g, &c->region);
    for (int d = 0; d < 3; d++)
        g.nc[d] = c->nc[d];
    return g;
}

const gpu_grid *gpu_moving(const gpu_ctx *c)
{
    return c->barostat && !c->halo ? c->dgrid : NULL;
}

int gpu_alloc_state(gpu_ctx *c)
{
    atom_array a[40];
    int m = atom_arrays(c, a);
    for (int k = 0; k < m; k++)
        TRY(gpu_malloc(a[k].p, c->cap * a[k].bytes, a[k].what));
    if (!c->halo && fold_wanted())
        TRY(gpu_malloc((void **)&c->pos4_next, c->cap * 4 * sizeof(mdl_real), "packed positions (next step)"));
    TRY(gpu_malloc((void **)&c->flags, 3 * sizeof(int), "flags"));
    TRY(gpu_malloc((void **)&c->nbs, sizeof(gpu_nb_state), "list state"));
    TRY(gpu_malloc((void **)&c->partials, 3 * gpu_reduce_blocks(c->cap) * sizeof(double), "reduction"));
    TRY(gpu_malloc((void **)&c->result, 3 * (1 + MDL_THERMO_SLOTS) * sizeof(double), "reduction"));
    TRY(gpu_host_pin_alloc((void **)&c->host_result, 3 * (1 + MDL_THERMO_SLOTS) * sizeof(double), "thermo results"));
    for (int k = 0; k < MDL_THERMO_SLOTS; k++)
        TRY(gpu_event_create(&c->thermo_ev[k]));
    TRY(gpu_host_pin_alloc((void **)&c->host_flags, 2 * sizeof(int), "flags"));
    TRY(gpu_host_alloc_mapped((void **)&c->report, (void **)&c->report_dev, 5 * sizeof(long long), "reports"));
    c->report[0] = -1, c->report[1] = 0;
    TRY(gpu_malloc((void **)&c->bx, sizeof *c->bx, "the box"));
    gpu_box_state b = {0};
    gpu_grid_set_box(&b.grid, &c->box);
    TRY(gpu_h2d(c->bx, &b, sizeof b));
    c->dgrid = &c->bx->grid;
    if (c->halo)
        TRY(gpu_malloc((void **)&c->dgrid, sizeof *c->dgrid, "the lists' cell grid"));
    return gpu_memset(c->nbs, 0, sizeof(gpu_nb_state)) ? MDL_ERUN : MDL_OK;
}

/* Every device and pinned allocation of gpu_alloc_state and the list's and cells' (not the output
   slots, graphs or the halo's). */
void gpu_free_state(gpu_ctx *c)
{
    atom_array a[40];
    int m = atom_arrays(c, a);
    for (int k = 0; k < m; k++)
        gpu_free(*a[k].p);
    void *dev[] = {c->nl,  c->flags,     c->cell_start, c->cell_end,  c->partials,
                   c->result, c->nbs, c->sort_temp, c->pos4_next, c->onl, c->nh, c->nh_factor, c->nh_ticket, c->bx,
                   c->halo ? c->dgrid : NULL};
    for (size_t k = 0; k < sizeof dev / sizeof dev[0]; k++)
        gpu_free(dev[k]);
    gpu_host_pin_free(c->host_result);
    for (int k = 0; k < MDL_THERMO_SLOTS; k++)
        gpu_event_destroy(c->thermo_ev[k]);
    gpu_host_pin_free(c->host_flags);
    gpu_host_pin_free(c->nh_host);
    gpu_host_pin_free(c->box_host);
    gpu_host_free((void *)c->report);
}

/* Every per-atom array reallocated to hold cap atoms (whole blocks of packed positions), the
   first min(cap, c->cap) kept. */
static int resize_atoms(gpu_ctx *c, size_t cap)
{
    cap = gpu_pos_atoms(cap);
    atom_array a[40];
    int m = atom_arrays(c, a);
    for (int k = 0; k < m; k++) {
        void *p = NULL;
        TRY(gpu_malloc(&p, cap * a[k].bytes, a[k].what));
        TRY(gpu_d2d(p, *a[k].p, (cap < c->cap ? cap : c->cap) * a[k].bytes));
        gpu_free(*a[k].p);
        *a[k].p = p;
    }
    gpu_free(c->partials);
    TRY(gpu_malloc((void **)&c->partials, 3 * gpu_reduce_blocks(cap) * sizeof(double), "reduction"));
    c->cap = cap;
    MDL_TRY(gpu_grow_list(c, c->capacity)); /* the rebuild's staging area */
    return gpu_setup_cells(c);
}

int gpu_grow_atoms(gpu_ctx *c, size_t need)
{
    if (need <= c->cap)
        return MDL_OK;
    c->grown++;
    return resize_atoms(c, c->tight ? need : need + need / 4 + 1024);
}

int gpu_trim_atoms(gpu_ctx *c)
{
    return c->tight && c->cap > gpu_pos_atoms(c->n) ? resize_atoms(c, c->n) : MDL_OK;
}

size_t gpu_list_rows(size_t atoms)
{
    return (atoms + 31) & ~(size_t)31;
}

void gpu_list_strides(const gpu_ctx *c, int *si, int *sk)
{
    *si = c->transposed ? 1 : c->capacity;
    *sk = c->transposed ? (int)gpu_list_rows(c->n) : 1;
}

gpu_rows gpu_rows_now(const gpu_ctx *c)
{
    int si, sk;
    gpu_list_strides(c, &si, &sk);
    const gpu_rows form =
        c->method == MDL_NL_CELL ? gpu_list_form(c->n, c->region, c->nc, si, c->list_form) : GPU_ROWS_PLAIN;
    return form == GPU_ROWS_RELATIVE && (c->halo || c->outer > 0) ? GPU_ROWS_PLAIN : form;
}

int *gpu_list_table(const gpu_ctx *c)
{
    return gpu_rows_now(c) == GPU_ROWS_TABLE ? c->nl_table : NULL;
}

int gpu_list_entries(const gpu_ctx *c)
{
    return gpu_rows_now(c) != GPU_ROWS_PLAIN ? 2 * c->capacity : c->capacity;
}

int gpu_grow_list(gpu_ctx *c, int capacity)
{
    gpu_free(c->nl);
    c->nl = c->nl_table = NULL;
    c->capacity = (capacity + 3) & ~3;
    size_t slots = (size_t)c->capacity > GPU_STAGING_BYTES / sizeof(int) ? (size_t)c->capacity
                                                                           : GPU_STAGING_BYTES / sizeof(int);
    size_t rows = gpu_list_rows(c->cap), table = rows / 32 * GPU_LIST_TABLE;
    c->nl_bytes = (slots * rows + table) * sizeof(int);
    if (gpu_malloc((void **)&c->nl, c->nl_bytes, "neighbor list"))
        return MDL_ERUN;
    c->nl_table = c->nl + slots * rows;
    if (c->outer <= 0)
        return MDL_OK;
    gpu_free(c->onl); /* the outer list, its counts, the positions at its build */
    size_t outer_bytes = ((size_t)c->capacity * rows + rows) * sizeof(int) + 4 * rows * sizeof(mdl_real);
    c->onl = NULL;
    if (gpu_malloc((void **)&c->onl, outer_bytes, "outer neighbor list"))
        return MDL_ERUN;
    c->ocount = c->onl + (size_t)c->capacity * rows;
    c->pos_outer = (mdl_real *)(c->ocount + rows);
    return MDL_OK;
}

/* One rank's cell method sorts a small system without CUB (gpu.h's counting sort), up to its
   limits (131,072 atoms); CUB's radix sort above them and with ranks. */
static int use_count_sort(const gpu_ctx *c, size_t ncells)
{
    return !c->halo && c->method == MDL_NL_CELL && gpu_count_sort_fits(c->cap, ncells);
}

/* Cell arrays and the sort's storage for the region's grid and the atoms the arrays hold: before
   any recording (a barostat's box: at the host's last reading of it, cells GPU_GRID_MARGIN wider
   than the list cutoff). Several ranks: the ghosts' cell bounds after the atoms', and a key for
   atoms that left. The grid to the device, where the kernels read it. */
int gpu_setup_cells(gpu_ctx *c)
{
    const double width = c->rlist * (c->barostat ? 1 + GPU_GRID_MARGIN : 1);
    size_t total = c->dm ? domain_cell_grid(c->dm, c->rlist, c->cap, &c->region, c->nc)
                         : cell_grid_dims(&c->region, width, c->cap, c->nc);
    const gpu_grid grid = gpu_host_grid(c);
    if (gpu_h2d(c->dgrid, &grid, sizeof grid) || (!c->halo && gpu_h2d(c->bx->cells, c->nc, sizeof c->nc)) ||
        gpu_set_image(c->region))
        return MDL_ERUN;
    size_t bounds = c->dm ? 2 * total : total;
    if (bounds > c->ncells_cap || c->cap > c->sort_cap) {
        gpu_free(c->cell_start);
        gpu_free(c->cell_end);
        gpu_free(c->sort_temp);
        c->count_sort = use_count_sort(c, total);
        c->sort_temp_bytes = c->count_sort ? gpu_count_sort_bytes(c->cap, total)
                                           : gpu_sort_temp_bytes(c->cap, bounds + 1);
        if (gpu_malloc((void **)&c->cell_start, bounds * sizeof(int), "cell starts") ||
            gpu_malloc((void **)&c->cell_end, bounds * sizeof(int), "cell ends") ||
            gpu_malloc(&c->sort_temp, c->sort_temp_bytes, "the cell sort") ||
            (c->count_sort && gpu_count_sort_setup(total)))
            return MDL_ERUN;
        c->ncells_cap = bounds;
        c->sort_cap = c->cap;
    }
    return MDL_OK;
}

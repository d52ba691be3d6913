/* The GPU backend's device state (gpu_ctx) and the functions its host files offer one another, by
   layer, bottom first: memory.c (device memory: per-atom arrays, the list, cells), lists.c (the
   list from atoms in place), the ranks' halo.c, migrate.c and refresh.c, then rebuild.c (the step
   driver: rebuilds and graphs) and observe.c (the way out to the host), and backend.c on top (the
   table). A file calls only the layers below it. Nothing outside src/gpu/ includes this. */
#ifndef MDL_GPU_CONTEXT_H
#define MDL_GPU_CONTEXT_H

#include "../core/backend.h"
#include "../parallel/domain.h"
#include "gpu.h"

#include <stdbool.h>

/* The driver functions of gpu.h return 0 or 1; the table returns MDL_* codes. */
#define TRY(call)                   \
    do {                            \
        if ((call) != 0)            \
            return MDL_ERUN;        \
    } while (0)

typedef struct gpu_halo gpu_halo; /* several ranks: the brick, ghosts and messages (halo.h) */

typedef struct {
    size_t n;                 /* atoms this rank owns [0, n): the list's rows, the atoms integrated */
    size_t nall;              /* and its ghosts after them [n, nall): the list's candidates */
    size_t cap;               /* atoms the per-atom arrays hold */
    size_t natoms;            /* on all ranks */
    gpu_halo *halo;           /* NULL with one rank */
    const mdl_domain *dm;     /* several ranks: the decomposition (the halo's); NULL with one */
    mdl_box region;           /* the lists' box: the box with one rank (several: domain_cell_grid) */
    gpu_box_state *bx;        /* device: the box the kernels read (bx->grid.region), moved by a barostat */
    gpu_grid *dgrid;          /* device: the lists' region and cells the kernels read (one rank: &bx->grid) */
    int barostat;             /* the box moves: the host's box and region are the last ones it read
                                 (several ranks: this step's, read back at the chains' start) */
    long step_now;            /* the step begun last (gpu_begin_step) */
    int ntypes;
    int style;                /* the pair style (enum mdl_pair_style, or an EAM style) */
    int eam;                  /* an EAM style: eam_fp is a per-atom array, eam_tables the splines (gpu_eam) */
    mdl_real *eam_fp, *eam_tables;
    double mass[MDL_MAX_SPECIES];
    mdl_units u;
    double tail[2];           /* the pair potential's tail correction (mdl_pair_table.tail) */
    mdl_box box;
    double dt, skin, rlist;   /* rlist: the builds' radius (pruned lists: the outer list's) */
    double outer;             /* pruned lists (one rank): the outer list's skin beyond `skin` (0: none) */
    int method;          /* MDL_NL_CELL, MDL_NL_BRUTE, MDL_NL_BRUTE_ATOMIC */
    int transposed;

    double *x, *y, *z, *vx, *vy, *vz;
    mdl_real *fx, *fy, *fz, *pe, *w;
    mdl_real *pos4, *pos0;
    mdl_real *pos4_next;      /* one rank: where a folded step's force pass writes the new pos4 (then the
                                 two swap); NULL with several ranks or in mixed precision */
    int kicked;               /* this step's force pass made the chained kicks (integrate_second: swap) */
    long folded;              /* steps whose force pass made them */
    int flip;                 /* the swaps so far, mod 2: which buffer pos4 is (graphs hold pointers) */
    int *ix, *iy, *iz, *type;
    int64_t *id;
    int *nl, *count, *flags;  /* flags[1]: largest overflowing count (flags[0]: unused by the run; flags[2]: the
                                 persistent step's count of steps made) */
    int *nl_table;            /* in nl's allocation, after the slots: a packed list's table (gpu.h) */
    int *onl, *ocount;        /* pruned lists: the outer list (nl's strides and capacity) and its counts, */
    mdl_real *pos_outer;      /* and the packed positions at its build: one allocation, at onl */
    int capacity;             /* neighbor slots per atom (nl holds at least GPU_STAGING_BYTES per atom:
                                 the rebuild's staging area) */
    int check;                /* steps between skin tests (physics/rebuild.h) */
    int delay, distance_check; /* no test before `delay` steps; 0: rebuild when due, untested */
    gpu_nb_state *nbs;        /* the list's state on the device (gpu.h) */
    volatile long long *report; /* mapped: [0] the step found unsafe (-1: none), [1] longest row asked,
                                   [2..4] a barostat's box lengths at the last rebuild (doubles' bits) */
    long long *report_dev;    /* the same words, as the device addresses them */
    gpu_graph *step_graph[2][MDL_STEP_KINDS]; /* each kind of step from each pos4 buffer, recorded once */
    gpu_graph *update_graph[2]; /* the rebuild test + conditional rebuild alone (steps not recorded) */
    int started, kind, in_step, recording, replaying, step_flip; /* step_flip: flip as the step began */
    void *sort_temp;
    size_t sort_temp_bytes;
    long extra_builds;        /* builds the host made between steps (a new skin, a grown list) */
    int list_fixed;           /* [neighbor] grow = no: the list never grows */
    int tight;                /* [run] gpu_arrays = tight: per-atom arrays cut and grown to the atom */
    int step_mode;            /* [run] gpu_step: enum mdl_gpu_step */
    long persistent;          /* steps made by the persistent step (gpu_advance_plain) */
    enum gpu_list_want list_form; /* [neighbor] list */
    long grown;               /* times the per-atom arrays grew */
    int *cell, *perm, *cell_start, *cell_end; /* several ranks: the ghosts' bounds after the atoms' */
    size_t ncells_cap;
    int nc[3];
    int *cell_sorted, *perm_sorted; /* the sort's output */
    size_t sort_cap;          /* atoms the sort's storage was sized for */
    int count_sort;           /* the sort is gpu.h's counting sort (small systems), not CUB's */
    int *gone, *sel[2], *inv;  /* several ranks: per-atom scratch of halo.c (NULL with one) */
    double *partials, *result;   /* result: 3 doubles for the thermostat, then 3 per thermo slot */
    double *host_result;         /* pinned, same layout */
    void *thermo_ev[MDL_THERMO_SLOTS];
    int *host_flags;          /* pinned: 2 ints */
    mdl_nh *nh;               /* Nose-Hoover's chains (device memory; NULL: another ensemble) */
    double *nh_factor;        /* device: the last half step's velocity and box factors, then the
                                 chains' energy at each thermo slot (MDL_THERMO_SLOTS) */
    double *nh_host;          /* pinned: the thermo slots' chain energies */
    unsigned *nh_ticket;      /* device: gpu_nose_hoover_kicked's count of finished blocks */
    gpu_masses masses;        /* the species' masses for it */
    mdl_box *box_host;        /* pinned, a barostat's: the box at each thermo slot */
    struct gpu_analysis {     /* on-the-fly analysis (analysis.c), device memory but the spec and count */
        mdl_analysis_spec spec;
        double *origin;       /* the MSD's origin, 3 per atom by id */
        double *msd;          /* [row][species] */
        unsigned long long *hist; /* the RDF's counts, [pair][bin] */
        double *volume;       /* the RDF samples' volumes, summed */
        long samples;
    } an;
    int forces_given;         /* the forces are current and a sort carries them (a restart's at creation; a build between steps) */
    double *restart_build;    /* device, 3 x n: a restart's positions at its checkpoint's last build, the
                                 atoms uploaded in that build's order; its first build is that build again
                                 (gpu_build_at_checkpoint; NULL: none) */
    long restart_since;       /* the steps from that build to the checkpoint */
    size_t nl_bytes;
    /* asynchronous output: slots of a device staging area and pinned host memory, each holding
       a frame in id order (system_field_arrays' order, forces as double); a copy stream */
    void *copy_stream;
    int nslots, slot_fields;
    struct gpu_slot {
        void *dev[MDL_FIELD_ARRAYS], *host[MDL_FIELD_ARRAYS]; /* NULL until the slot is first used */
        double *dev_sums, *host_sums; /* the reduction's 3 sums (see gpu_reduce) */
        mdl_box *dev_box, *host_box;  /* a barostat's: the box at the snapshot */
        int *dev_order, *host_order;  /* a checkpoint's: each atom's place at the last build, by id */
        void *snapped, *copied;     /* events: snapshot on the compute stream, copy on the copy stream */
        int fields;
    } *slots;
} gpu_ctx;

/* ---- memory.c --------------------------------------------------------------------------------- */
/* Every per-atom array (c->cap atoms), the list's state, flags and the reductions' buffers; and
   their release (with the list's and cells'). */
int gpu_alloc_state(gpu_ctx *c);
void gpu_free_state(gpu_ctx *c);
/* The per-atom arrays grown to hold `need` atoms (contents kept). */
int gpu_grow_atoms(gpu_ctx *c, size_t need);
/* [run] gpu_arrays = tight: the arrays cut to the owned atoms [0, n) as a rebuild starts, so that
   its arrivals and ghosts make them grow again; else nothing. */
int gpu_trim_atoms(gpu_ctx *c);
/* Where slot k of row i is in the list: nl[i * si + k * sk]. Transposed, the slots of one k are
   a column whose start is kept 128-byte aligned (sk is n rounded up to 32), so that a warp's 32
   rows fill whole lines; in rows, si = capacity. */
void gpu_list_strides(const gpu_ctx *c, int *si, int *sk);
size_t gpu_list_rows(size_t atoms); /* atoms rounded up to 32: the list's column length */
/* The form of the rows a build writes now (gpu.h's gpu_rows; cells set up), and the table of a
   list packed through tables (else NULL). */
gpu_rows gpu_rows_now(const gpu_ctx *c);
int *gpu_list_table(const gpu_ctx *c);
/* The entries a row holds: the capacity, twice that when the rows are packed. */
int gpu_list_entries(const gpu_ctx *c);
int gpu_grow_list(gpu_ctx *c, int capacity); /* pruned lists: the outer list too */
int gpu_outer_fits(const gpu_ctx *c, double rlist); /* an outer list of radius rlist fits the box */
/* The region's cell grid (several ranks: domain_cell_grid) and the cell arrays and sort storage
   for the atoms the arrays hold. Under a barostat the host decides the grid with cells
   GPU_GRID_MARGIN wider than the list cutoff; as the box shrinks, each rebuild on the device uses
   as many of those cells as the box holds (graph.cu); when the box grows to hold more cells
   GPU_GRID_GROW wider, the host decides the grid again (gpu_begin_step). */
#define GPU_GRID_MARGIN 0.02
#define GPU_GRID_GROW 0.04
int gpu_setup_cells(gpu_ctx *c);
/* The lists' grid as the host has it (the kernels' parameter), and a barostat's on the device,
   which the kernels read instead (NULL: the box is fixed). */
gpu_grid gpu_host_grid(const gpu_ctx *c);
const gpu_grid *gpu_moving(const gpu_ctx *c);

/* ---- lists.c ---------------------------------------------------------------------------------- */
/* One rank's rebuild: the atoms rearranged (wrap, sort by cell, permutation), then the list. */
int gpu_queue_rebuild_one(gpu_ctx *c);
/* The list from atoms in place (several ranks: owned atoms and ghosts, sorted by migrate.c); the
   positions it is built at are copied from pos4 unless `kept` (the permutation wrote them). */
int gpu_build_list(gpu_ctx *c, bool kept);
/* A restart's first build (one rank, a fixed box, no outer list): the checkpoint's last build made
   again from c->restart_build, the atoms in its order (cells from the positions packed as that build
   packed them, which that order sorts: no wrap, no sort). MDL_EINPUT where the order does not sort
   them (the caller builds as usual). */
int gpu_build_at_checkpoint(gpu_ctx *c);
/* After it: pos4 packed from the positions now, and the skin test's flags at them. */
int gpu_resume_positions(gpu_ctx *c);
/* Whether a checkpoint's build can be made again by gpu_build_at_checkpoint (and so is kept). */
bool gpu_build_repeatable(const gpu_ctx *c);
int gpu_queue_prune(gpu_ctx *c); /* pruned lists: the inner list from the outer one */

/* ---- halo.c, migrate.c, refresh.c: several ranks ---------------------------------------------- */
/* The brick and this rank's atoms of the whole system `all` (into *mine); the rebuild's decomposed
   part (wrap, migration, ghosts, sort by cell, bounds; the host waits for the counts); each step's
   ghost refresh and, at a check, the ranks' shared skin decision (NCCL: taken on the device and
   read by halo_confirm at the step's end; staged: the host waits for it in halo_update; either
   way a rebuild the ranks agreed on is the caller's to make); statistics. */
int halo_create(gpu_ctx *c, const mdl_setup *setup, const mdl_system *all, mdl_system *mine);
void halo_destroy(gpu_ctx *c);
size_t halo_capacity(const gpu_ctx *c, size_t owned); /* atoms and ghosts expected, with room */
/* A barostat's new box: the bricks and ghosts' shifts (domain_set_box) and the migration's bricks
   follow it; returns domain_set_box's reason why the bricks no longer fit, or NULL. */
const char *halo_set_box(gpu_ctx *c, const mdl_box *b);
int halo_rebuild(gpu_ctx *c);
int halo_update(gpu_ctx *c, long step, int *rebuild);
/* One real per ghost (v[ghost]) from its owner's v, through the last build's lists (EAM's F'(rho)). */
int halo_forward_values(gpu_ctx *c, mdl_real *v);
int halo_confirm(gpu_ctx *c, int *redo); /* end of a step: a rebuild agreed, the step made again? */
int halo_build_waits(const gpu_ctx *c);  /* staged: a rebuild's list is waited for */
int halo_build_queued(gpu_ctx *c);       /* NCCL: after a rebuild queued without waiting */
int halo_health(const gpu_ctx *c, long *unsafe_step);
void halo_stats(const gpu_ctx *c, mdl_backend_stats *out);

/* ---- rebuild.c: the step driver (and table entries) -------------------------------------------- */
int gpu_queue_build(gpu_ctx *c); /* a build queued without waiting for the list's longest row */
int gpu_build_neighbors(void *p);
/* min_state.c: minimisation's positions and velocities, id order, from the host */
int gpu_set_positions(void *p, const double *xyz);
int gpu_set_velocities(void *p, const double *v);
int gpu_update_neighbors(void *p, long step);
int gpu_health(void *p, long *unsafe_step);
int gpu_begin_step(void *p, long step, int kind);
int gpu_set_skin(void *p, double skin);
int gpu_rebuild_between_steps(gpu_ctx *c); /* the device waited for; a barostat's box pulled, the grid
                                              decided again; graphs recorded again */
int gpu_end_step(void *p, int *redo);
int gpu_advance_plain(void *p, long step, long steps, const mdl_langevin *langevin, uint64_t seed, long *done);
/* A barostat's box stays where it is from now on (its chains stop): the host's box read from the
   device, the grid decided again for a fixed box, the graphs dropped. Nothing for a fixed box. */
int gpu_fix_box(gpu_ctx *c);
void gpu_drop_graphs(gpu_ctx *c);

/* ---- analysis.c: on-the-fly analysis (table entries; one rank) ----------------------------------- */
int gpu_analysis_start(void *p, const mdl_analysis_spec *spec);
int gpu_analysis_sample(void *p, int rdf, int msd_row);
int gpu_analysis_read(void *p, mdl_analysis_sums *out);
int gpu_analysis_resume(void *p, const mdl_analysis_sums *in);
void gpu_analysis_free(gpu_ctx *c);

/* ---- observe.c: the way out to the host (table entries) ---------------------------------------- */
void gpu_free_slots(gpu_ctx *c);
int gpu_diagnose(void *p, mdl_health *h);
int gpu_reduce_start(void *p, int slot);
int gpu_reduce_poll(void *p, int slot, mdl_observables *o, int wait);
/* thermo's fmax and fnorm: the last force call's forces downloaded and reduced (every rank's) */
int gpu_force_norms(void *p, double out[2]);
int gpu_stats(void *p, mdl_backend_stats *out);
int gpu_neighbor_rows(void *p, int **rows, size_t **start);
int gpu_snapshot_alloc(void *p, int nslots, int max_fields);
int gpu_snapshot_start(void *p, int k, int fields);
int gpu_snapshot_finish(void *p, int k, mdl_system *frame, mdl_observables *obs);

/* A move past this is unsafe (the run stops): the skin, or, without the distance check (LAMMPS's
   check no), infinity: only a position that is not finite. */
static inline double gpu_unsafe_skin(const gpu_ctx *c)
{
    return c->distance_check ? c->skin : INFINITY;
}

#endif

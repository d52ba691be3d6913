/* The CUDA backend's C interface: driver functions on plain device pointers (HOOMD's habit), so
   that host C code never includes CUDA headers. Every function returns 0, or non-zero after
   printing which CUDA call failed and where. */
#ifndef MDL_GPU_H
#define MDL_GPU_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../physics/box.h"
#include "../physics/langevin.h"
#include "../physics/nose_hoover.h"
#include "../physics/species.h"
#include "../physics/thermostat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pair arithmetic and force accumulation: float ("mixed") or double (MDLITE_GPU_PRECISION). */
#ifdef MDLITE_GPU_DOUBLE
typedef double mdl_real;
#define MDL_GPU_PRECISION_NAME "double"
#else
typedef float mdl_real;
#define MDL_GPU_PRECISION_NAME "mixed"
#endif

/* Packed positions (pos4, pos0, pos_outer): four reals per atom, x y z and the species. Mixed
   precision: one float4 per atom (blocks of 32, as double's, lost 6-11%: docs/PERFORMANCE.md).
   Double precision: blocks of 16 atoms, their (x, y) pairs, then their z, then their species. A
   neighbor's position is then two loads of 16 and 8 bytes, and the atoms a warp gathers share more
   cache lines than with a double4 each (tools/gather_bench.cu). Arrays hold whole blocks. */
#ifdef MDLITE_GPU_DOUBLE
#define GPU_POS_BLOCK 16
#else
#define GPU_POS_BLOCK 1
#endif

/* n atoms rounded up to whole blocks: the atoms a copy of packed positions moves. */
static inline size_t gpu_pos_atoms(size_t n)
{
    return (n + GPU_POS_BLOCK - 1) / GPU_POS_BLOCK * GPU_POS_BLOCK;
}

/* Where component d (0-2: x y z, 3: species) of atom i lies in packed positions. */
static inline size_t gpu_pos_index(size_t i, int d)
{
    const size_t base = i / GPU_POS_BLOCK * 4 * GPU_POS_BLOCK, r = i % GPU_POS_BLOCK;
    return d < 2 ? base + 2 * r + (size_t)d : base + (size_t)(d == 2 ? 2 : 3) * GPU_POS_BLOCK + r;
}

/* ---- device, memory, timing (device.cu) ---- */
int gpu_device_count(void);
void gpu_print_devices(FILE *out);
int gpu_select(int index); /* device index modulo the count; returns non-zero (a message) when none */
int gpu_bus_id(char *buf, int len); /* the selected device's PCI bus id */
int gpu_malloc(void **p, size_t bytes, const char *what);
void gpu_free(void *p);
/* pinned and mapped: kernels write *dev over the bus, the host reads *host after a stream sync,
   with no copy engine involved (free with gpu_host_free) */
int gpu_host_alloc_mapped(void **host, void **dev, size_t bytes, const char *what);
void gpu_host_free(void *p);
/* pinned by touching page-aligned memory and registering it (so large buffers, the output
   slots, can be set up while kernels run) */
int gpu_host_pin_alloc(void **p, size_t bytes, const char *what);
void gpu_host_pin_free(void *p);
int gpu_h2d(void *dst, const void *src, size_t bytes);
int gpu_d2h(void *dst, const void *src, size_t bytes);
int gpu_d2d(void *dst, const void *src, size_t bytes);
int gpu_memset(void *dst, int value, size_t bytes);
int gpu_synchronize(void);
int gpu_check_launch(const char *what); /* last error; with MDLITE_CUDA_SYNC_CHECK also synchronises */
size_t gpu_bytes_allocated(void);

/* Streams and events as opaque handles; stream NULL is the compute (legacy default) stream. */
int gpu_stream_create(void **s); /* non-blocking: never waits for the compute stream implicitly */
void gpu_stream_destroy(void *s);
int gpu_event_create(void **e);
int gpu_event_create_blocking(void **e); /* gpu_event_sync sleeps instead of spinning */
int gpu_event_create_timed(void **e);
int gpu_event_seconds(void *from, void *to, double *seconds); /* waits for `to` */
void gpu_event_destroy(void *e);
int gpu_event_record(void *e, void *stream);
int gpu_stream_wait(void *stream, void *e);
int gpu_event_sync(void *e);
int gpu_stream_sync(void *stream); /* NULL: the compute stream only (not the copy stream) */
int gpu_event_query(void *e); /* 0: done, 1: not yet, other: error (printed) */
int gpu_copy_async(void *dst, const void *src, size_t bytes, void *stream);

/* ---- sort by cell (sort.cu): CUB's radix sort, the only C++ library calls in the tree ----
   temp holds gpu_sort_temp_bytes(n, ncells) bytes, allocated once (so the sort can be recorded in
   a graph) */
size_t gpu_sort_temp_bytes(size_t n, size_t ncells);
int gpu_sort_by_cell(const int *cell_in, int *cell_out, const int *perm_in, int *perm_out, size_t n, size_t ncells,
                     void *temp, size_t temp_bytes);

/* ---- the neighbor list's state on the device, and the rebuild graph (graph.cu) ----
   kick_drift raises far and unsafe; the rebuild test, launched every step, counts the steps since
   the last build and, every `check` of them, either reports an unsafe state (report[0] = the step,
   halt = 1: the step kernels leave the state as it is from there on) or, when an atom moved past
   skin/2, runs the rebuild recorded in the graph. report (mapped host memory) also carries the
   largest list row the builds asked for (report[1]), read by the host without waiting. Several
   ranks with NCCL: at a check, halt is the ranks' agreed wish (set as the refresh packs, then the
   maximum), so a rebuild wanted anywhere stops every rank's step kernels until the host has
   rebuilt; `need`, next to it, is agreed the same way: the longest row any rank's last build
   asked for. */
typedef struct {
    int far, since;    /* an atom moved past skin/2 since the last build; steps since it */
    int unsafe, halt;  /* an atom moved past the whole skin or is not finite (sticky); stop */
    int need;          /* several ranks (NCCL): flags[1] at the check, then the ranks' maximum */
    long long step;    /* the step the device has reached (counted by the rebuild test) */
    long long builds, dangerous, last_build;
    int reported, overflow_seen;
    int far_outer;     /* pruned lists: an atom moved past half the outer list's skin since its build */
    long long prunes;  /* pruned lists: inner lists made from the outer one (builds not counted) */
} gpu_nb_state;
/* When the skin test is made (physics/rebuild.h) and whether a due step rebuilds without it. */
typedef struct {
    int every, delay, distance_check;
} gpu_rebuild_rule;
/* The cell grid the kernels work in: the region the cells divide, their number along each
   dimension, and the minimum image's lengths and inverses in the pair kernels' precision (0 along
   open dimensions). The builders and the wrap take it by value (a fixed box) or, under a
   barostat, from device memory (`moving`), where the barostat's kernel keeps it; the force kernel
   takes only the lengths, from constant memory (gpu_set_image, gpu_copy_image). */
typedef struct {
    mdl_box region;
    int nc[3];
    mdl_real len[3], inv[3];
} gpu_grid;

static inline MDL_HD void gpu_grid_set_box(gpu_grid *g, const mdl_box *b)
{
    double len[3], inv[3];
    g->region = *b;
    box_image_lengths(b, len, inv);
    for (int d = 0; d < 3; d++)
        g->len[d] = (mdl_real)len[d], g->inv[d] = (mdl_real)inv[d];
}

/* The box on the device (gpu_box_state.grid). A barostat's kernel moves it and keeps what the
   step's other kernels need: the remap that kick_drift applies around the drift (nose_hoover.h's
   nh_remap, from the box before, through the box after the first half step, to the grid's region:
   LAMMPS's remap, x += dt v, remap), and the skin test's thresholds with the faces' motion since
   the last build counted (LAMMPS's boxcheck, as the CPU backend's). */
typedef struct gpu_box_state {
    gpu_grid grid;                   /* the box now (the minimum image, the wrap); one rank: the cells,
                                        as many as the box holds of the host's (`cells`) at a rebuild */
    int cells[3];                    /* the host's grid: what the cell arrays hold */
    double hi[3], centre[3];         /* the faces lo + len as the barostat keeps them; the fixed point */
    double lo0[3], inv0[3];          /* this step's remap: from the box before it (1 / len), */
    double lo1[3], len1[3], inv1[3]; /* through the box after its first half, to the box now */
    double skin, rlist, unsafe_skin; /* the list's skin and cutoff; a move past unsafe_skin is unsafe */
    double volume0;                  /* the set-up's volume */
    double half2, skin2;             /* this step's skin test, squared (< 0: at once) */
    mdl_box built;                   /* the box at the list's last build */
    int runaway;                     /* GPU_BOX_RUNAWAY or GPU_BOX_UNDER_GRID: the run stops */
    int ghosted;                     /* bit d: axis d has ghosts (no minimum image: any edge) */
} gpu_box_state;
enum { GPU_BOX_RUNAWAY = 1, GPU_BOX_UNDER_GRID = 2 };
typedef struct gpu_graph gpu_graph;
/* Work queued between begin and end (on g_mdl_stream) is recorded, not run, and becomes a graph;
   abandon ends a failed recording. */
int gpu_record_begin(void);
int gpu_record_end(gpu_graph **g);
void gpu_record_abandon(void);
int gpu_graph_launch(gpu_graph *g);
void gpu_graph_destroy(gpu_graph *g);
/* Inside a recording: the rebuild test on st (for the check interval and flags[1], the builders'
   overflow word), then a conditional node whose body -- the work queued from here to
   gpu_rebuild_node_end -- runs only when the test asks for a rebuild. With `pruned` (an outer
   list pruned to the inner one), the test asks for a rebuild only when far_outer is set as well,
   and for a prune when just far is: the node is a switch, and gpu_prune_node_begin ends the
   rebuild's body and starts the prune's. With bx (a barostat's box; NULL: a fixed one), a rebuild
   first fits the cells to the box (as many of the host's as it holds; fewer than 3 along an edge of
   3 or more halts the step) and reports its lengths in report_dev[2..4] (doubles' bits), from which
   the host decides a grid that grew. The rule: when the test is made (physics/rebuild.h), and
   whether a due step rebuilds without it. */
int gpu_rebuild_node_begin(gpu_nb_state *st, gpu_rebuild_rule rule, const int *flags, long long *report_dev, int pruned,
                           gpu_box_state *bx);
int gpu_switch_nodes(void); /* whether the runtime and driver have switch nodes (CUDA 12.8+), which pruning needs */
int gpu_prune_node_begin(void);
int gpu_rebuild_node_end(void);

/* ---- cells (cells.cu): wrap and pack, sort keys, a small system's sort, bounds, permutation ---- */

/* The cell method's sort keys: each atom's cell in the region's grid (cells at least rlist wide,
   nc per dimension) and perm = 0..n-1. */
typedef struct {
    gpu_grid grid;          /* nc: the most cells it has */
    const gpu_grid *moving; /* a barostat's (device memory; NULL: a fixed box) */
    int *cell, *perm;
} gpu_cell_keys;
/* Wrap x, y, z into the box and update the image counters (moving: a barostat's grid, whose region
   is the box, read on the device instead); write pos4 = (x, y, z, type), or with keys the keys
   instead (the permutation that follows writes pos4). */
int gpu_wrap_and_pack(size_t n, mdl_box box, const gpu_grid *moving, double *x, double *y, double *z, int *ix,
                      int *iy, int *iz, const int *type, mdl_real *pos4, const gpu_cell_keys *keys);
/* pos4 = (x, y, z, type) as they are, not wrapped (a restart's positions, as its run packed them);
   with cell (not NULL), each atom's cell in grid too. */
int gpu_pack_unwrapped(size_t n, const double *x, const double *y, const double *z, const int *type, mdl_real *pos4,
                       gpu_grid grid, int *cell);
/* cell_start/cell_end from sorted cell indices (cells with no atoms get start = end = 0). */
int gpu_cell_bounds(size_t n, size_t ncells, const int *sorted_cell, int *cell_start, int *cell_end);
/* The per-atom arrays, in place, in the order of perm (a[k][i] = a[k][perm[i]]) through staging
   memory of GPU_STAGING_BYTES per atom (the old neighbor list); pos4 repacked from them. */
typedef struct {
    double *d[6];   /* x y z vx vy vz */
    int *i[4];      /* ix iy iz type */
    int64_t *id;
    mdl_real *f[3]; /* forces: carried only where f[0] is not NULL */
} gpu_atom_arrays;
#define GPU_STAGING_BYTES (14 * 8) /* 14 arrays of 8-byte slots */
/* What the permutation's last pass also writes, where not NULL: the cell bounds of the sorted
   cells (as gpu_cell_bounds, over ncells), and a copy of the new pos4. */
typedef struct {
    const int *sorted_cell;
    int *cell_start, *cell_end;
    size_t ncells;
    mdl_real *pos4_copy;
} gpu_permute_also;
int gpu_permute_atoms(size_t n, const int *perm, gpu_atom_arrays a, void *staging, mdl_real *pos4,
                      const gpu_permute_also *also);
/* The permutation's last pass alone: the staged arrays back in place, pos4 repacked. */
int gpu_unstage_atoms(size_t n, gpu_atom_arrays a, const void *staging, mdl_real *pos4, const gpu_permute_also *also);
/* A small system's sort by cell (one rank; where gpu_count_sort_fits): the wrap writes the keys
   and counts them into temp (gpu_count_sort_bytes); the placement stages every atom at its place
   in the order CUB's sort would give (by cell, then index) and writes the cell bounds (an empty
   cell's start and end: where its atoms would be). gpu_unstage_atoms ends the permutation. */
int gpu_count_sort_fits(size_t n, size_t ncells);
size_t gpu_count_sort_bytes(size_t n, size_t ncells);
int gpu_count_sort_setup(size_t ncells);
int gpu_wrap_and_count(size_t n, mdl_box box, const gpu_grid *moving, double *x, double *y, double *z, int *ix,
                       int *iy, int *iz, const int *type, const gpu_cell_keys *keys, void *temp);
int gpu_place_by_cell(size_t n, const gpu_cell_keys *keys, void *temp, gpu_atom_arrays a, void *staging,
                      int *cell_start, int *cell_end);

/* ---- neighbor lists (neighbor.cu) ----
   Lists are full (both i->j and j->i) and stored NL[i * si + k * sk]: transposed si = 1, sk = n;
   row si = capacity, sk = 1; capacity counts ints, and a packed row (below) holds two entries in
   each. count[i] holds the true count even past the capacity; on overflow flags[1] becomes the
   most ints a row needs, so the caller can grow the list (the force kernel scans every atom for a
   row past the capacity meanwhile: never a wrong step). */

/* Several ranks: the ghosts' cell bounds (ghosts sorted by cell after the atoms, indices past n),
   and the cells lo .. hi (each dimension) that hold none. */
typedef struct {
    const int *start, *end;
    int lo[3], hi[3];
} gpu_ghost_cells;
/* Packed lists (the warp builder, transposed): a row's entries are 16 bits, two to an int (entry k
   of row i is half k % 2 of nl[(k / 2) * sk + i], the low half for even k), and entry e stands for
   atom table[e >> GPU_LIST_OFFSET_BITS] + (e & (GPU_LIST_CHUNK - 1)). The table has GPU_LIST_TABLE
   ints per 32 rows (rows 32w .. 32w + 31 use table + w * GPU_LIST_TABLE): the first atoms of the
   chunks of GPU_LIST_CHUNK atoms that their candidates came from, and in its last int
   GPU_LIST_PACKED, or GPU_LIST_PLAIN where those chunks did not fit (a sparse system): then the
   rows hold atom indices as usual. Half the bytes of atom indices for the force kernel to read;
   used where that pays (gpu_list_form: double precision). */
#define GPU_LIST_OFFSET_BITS 10
#define GPU_LIST_CHUNK (1 << GPU_LIST_OFFSET_BITS)
#define GPU_LIST_TABLE 64
#define GPU_LIST_PACKED 0
#define GPU_LIST_PLAIN (-1)
/* The atom of packed entry e (its 16 bits), given its warp's table. */
static inline MDL_HD int gpu_list_unpack(const int *table, unsigned e)
{
    return table[e >> GPU_LIST_OFFSET_BITS] + (int)(e & (GPU_LIST_CHUNK - 1));
}
/* How a cell build's rows hold their entries: atom indices; 16-bit entries through the warp's
   table (the warp builder, above); or 16-bit entries e that stand for atom (i + e) mod n, i the
   row's own atom (the staged builders; n <= 65,536, one rank, no outer list). Both 16-bit forms
   are transposed, two entries to an int as above. */
typedef enum { GPU_ROWS_PLAIN, GPU_ROWS_TABLE, GPU_ROWS_RELATIVE } gpu_rows;
static inline MDL_HD int gpu_list_relative(int i, unsigned e, int n)
{
    const int j = i + (int)e;
    return j >= n ? j - n : j;
}
/* The form gpu_build_cell's rows would take (n atoms, cell grid nc, si 1 = transposed), where one
   rank and no outer list allow every form. */
/* The list form a user asked for ([neighbor] list; config.h's mdl_list_form, in its order). */
enum gpu_list_want { GPU_LIST_WANT_AUTO, GPU_LIST_WANT_PLAIN, GPU_LIST_WANT_PACKED };
gpu_rows gpu_list_form(size_t n, mdl_box box, const int nc[3], int si, enum gpu_list_want want);
/* Rows of atoms [0, n); candidates from the cell bounds, and with `ghosts` (not NULL) from the
   ghosts' bounds as well, in the given form (gpu_list_form's, or plain); `table` (GPU_LIST_TABLE
   ints per 32 rows) is used by GPU_ROWS_TABLE only. grid: the host's (the choice of builder; the
   kernels' too with a fixed box); moving: a barostat's, which the kernels read instead. */
int gpu_build_cell(size_t n, gpu_grid grid, const gpu_grid *moving, const int *cell_start,
                   const int *cell_end, const gpu_ghost_cells *ghosts, const mdl_real *pos4, double rlist, int *nl,
                   int *count, int capacity, int si, int sk, int *flags, gpu_rows form, int *table);
int gpu_build_brute(size_t n, const gpu_grid *grid, const mdl_real *pos4, double rlist, int *nl, int *count,
                    int capacity, int si, int sk, int *flags);
int gpu_build_brute_atomic(size_t n, const gpu_grid *grid, const mdl_real *pos4, double rlist, int *nl, int *count,
                           int capacity, int si, int sk, int *flags);
/* Dynamic pruning (GROMACS's idea): row i of an outer list (onl, ocount; built with a longer
   radius) into the inner list (nl, count) that the forces read: the entries within rlist now, in
   the outer row's order, packed as the outer row is (`table`: its packed list's, or NULL). Both
   lists have the same strides and capacity; an outer row past the capacity stays one in the inner
   list (the force kernel scans every atom for it). pos0 becomes pos4, its w the atom's distance
   from pos_outer (its position at the outer list's build): the step's skin test bounds the
   distance moved since that build by w + the distance from pos0, with no read of pos_outer.
   Nothing is done once *halt is set. */
int gpu_prune_list(size_t n, mdl_box box, const mdl_real *pos4, const mdl_real *pos_outer, double rlist,
                   const int *onl, const int *ocount, const int *table, int *nl, int *count, int si, int sk,
                   int capacity, mdl_real *pos0, const int *halt);

/* ---- several ranks (halo.cu): migration, ghosts, the maps a sort leaves ---- */
/* One dimension of the processor grid: the whole box along it, the bricks, this rank's brick. */
typedef struct {
    double box_lo, box_len;
    int grid, mine;
} gpu_brick;
/* Direct writes between ranks of one node (peer.c): a packing launch writes into the receivers'
   memory and ends by setting their `ready` words to seq; an unpacking launch first waits for its
   words to reach seq (NULL arguments, or a NULL ticket and a zero seq: messages, nothing to tell
   or wait for). The skin decision as a vote: the refresh's packing casts this rank's wish, its
   unpacking counts every rank's. */
typedef struct {
    unsigned long long *ready[2]; /* the receivers' words for this stage's ways (mapped), set to seq */
    unsigned *ticket;             /* this rank's count of the launch's finished blocks, 0 between launches */
    unsigned long long seq;       /* the refresh's number, counted alike on every rank */
} gpu_peer_out;
typedef struct {
    const unsigned long long *ready[2]; /* this rank's words for the stage's ways (NULL: nothing comes) */
    unsigned long long seq;
} gpu_peer_in;
typedef struct {
    unsigned long long *const *box; /* device array: every rank's ballot box (mapped), 2 rounds x nranks */
    unsigned long long *mine;       /* this rank's box */
    int rank, nranks;
    unsigned round;                 /* the vote's number, counted alike on every rank */
} gpu_peer_vote;
#define GPU_ATOM_WORDS 14 /* doubles per migrating atom: id type x y z vx vy vz fx fy fz ix iy iz */
/* Selections (sort.cu), in index order into out, their count into *count (device); temp holds
   gpu_select_temp_bytes(n): the live atoms i < n in brick `target` along c's dimension (not this
   rank's brick); the live candidates first <= i < first + n below limit (dir 0) or at or above it
   (dir 1) along c. */
size_t gpu_select_temp_bytes(size_t n);
int gpu_select_leavers(size_t n, gpu_brick b, int target, const double *c, const int *gone, int *out, int *count,
                       void *temp, size_t temp_bytes);
int gpu_select_ghosts(size_t first, size_t n, double limit, int dir, const double *c, const int *gone, int *out,
                      int *count, void *temp, size_t temp_bytes);
/* Both of a dimension's ghost selections in one pass (below `below` into out[0], at or above `above`
   into out[1], counts into count[0..1]), each in index order as gpu_select_ghosts gives it; for
   below <= above, where no candidate is in both. */
int gpu_select_ghosts_both(size_t n, double below, double above, const double *c, const int *gone, int *const out[2],
                           int *count, void *temp, size_t temp_bytes);
/* *strays = live atoms outside this rank's brick along a decomposed dimension (box_along's
   coordinates in box). */
int gpu_count_strays(size_t n, mdl_box box, const gpu_brick b[3], const double *x, const double *y, const double *z,
                     const int *gone, int *strays);
/* out[i] = atom i's coordinate along the bricks' dimension d (box_along) for i < n. */
int gpu_along(size_t n, mdl_box box, int d, const double *x, const double *y, const double *z, double *out);
/* The atoms idx[0..m) into buf (GPU_ATOM_WORDS each), then gone; and m atoms from buf into slots
   at .. at + m - 1 (no longer gone; pos4 written). Forces travel too (a.f[0] must not be NULL).
   With `out` / `in`, buf lies in the receiver's memory (direct writes). */
int gpu_pack_atoms(size_t m, const int *idx, gpu_atom_arrays a, double *buf, int *gone, const gpu_peer_out *out);
int gpu_unpack_atoms(size_t m, const double *buf, gpu_atom_arrays a, size_t at, int *gone, mdl_real *pos4,
                     const gpu_peer_in *in);
/* New ghosts (a rebuild): positions of idx[0..m) plus `shift` (domain_swap_shift), and species, 4
   doubles each; unpacked into slots at .. at + m - 1 (positions, species, pos4; no longer gone). */
int gpu_pack_ghosts(size_t m, const int *idx, const double *x, const double *y, const double *z, const int *type,
                    const double shift[3], double *buf, const gpu_peer_out *out);
int gpu_unpack_ghosts(size_t m, const double *buf, size_t at, double *x, double *y, double *z, int *type,
                      mdl_real *pos4, int *gone, const gpu_peer_in *in);
/* A refresh stage, both ways at once: the same ghosts' positions, the first m0 shifted by shift[0]
   (to dest[0]) and the next m1 by shift[1] (to dest[1]), 3 values each, unpacked from buf into
   pos4 at slot[k]; `wide`: doubles, also unpacked into x, y, z (ghosts that later stages forward);
   else reals (a ghost's doubles are read only to forward it). With `wish`, packing first sets this
   rank's wish into halt (2: unsafe, 1: past half the skin) and its last build's longest asked-for
   row (flags[1]) into need. With `out`, `in` and `vote` (direct writes), dest[] lie in the
   receivers' memory and the ranks' maxima of halt and need come from the vote into `wish`. */
int gpu_pack_positions(size_t m0, size_t m1, const int *idx, const double *x, const double *y, const double *z,
                       const double shift[2][3], void *const dest[2], int wide, gpu_nb_state *wish,
                       const int *flags, const gpu_peer_out *out, const gpu_peer_vote *vote);
int gpu_unpack_positions(size_t m, const void *buf, const int *slot, double *x, double *y, double *z,
                         mdl_real *pos4, int wide, const gpu_peer_in *in, const gpu_peer_vote *vote,
                         gpu_nb_state *wish);
/* One real per atom: out[k] = v[idx[k]] for k < m; and v[slot[k]] = in[k] (EAM's F'(rho) to the
   ghosts). */
int gpu_gather_values(size_t m, const int *idx, const mdl_real *v, mdl_real *out);
int gpu_scatter_values(size_t m, const mdl_real *in, const int *slot, mdl_real *v);
/* One rank's ghosts as images of its own atoms, 4 ints each (root slot, images along a, b, c). A
   rebuild makes them in one pass: each atom's images within the region (box_along's coordinates in
   [lo - reach, hi + reach), at most hops edges away; ghosted axes only: the same ghosts as
   domain.c's staged swaps), counted (count[i]: its ghosts), then written after its inclusive sum
   end[] into slots at.. (positions, species, pos4, gone 0) with their chains (root slot, images,
   chain[4 (slot - at)]); after the sort, link[4 j] for ghost j (slot n + j, once perm[n + j]) with
   its root's new slot (inv); each step, every ghost from its root in box (pos4; in double
   precision its doubles too), with `wish` the rank's wish set first (gpu_pack_positions); and one
   real per ghost from its root (EAM's F'(rho)). */
typedef struct {
    mdl_box box;
    double lo[3], hi[3], reach[3];
    int hops[3]; /* 0 along an axis without ghosts */
} gpu_self_geometry;
int gpu_self_count(size_t n, const gpu_self_geometry *g, const double *x, const double *y, const double *z,
                   int *count);
int gpu_self_fill(size_t n, const gpu_self_geometry *g, const int *count, const int *end, size_t at, double *x,
                  double *y, double *z, int *type, mdl_real *pos4, int *gone, int *chain);
/* end[i] = count[0] + .. + count[i] for i < n (CUB's inclusive scan; temp: gpu_select_temp_bytes). */
int gpu_inclusive_sum(size_t n, const int *count, int *end, void *temp, size_t temp_bytes);
int gpu_self_links(size_t nghost, size_t n, const int *perm, const int *inv, size_t base, const int *chain,
                   int *link);
int gpu_self_refresh(size_t nghost, size_t n, const int *link, mdl_box box, double *x, double *y, double *z,
                     mdl_real *pos4, gpu_nb_state *wish, const int *flags);
int gpu_self_values(size_t nghost, size_t n, const int *link, mdl_real *v);
/* Memory one process exports and another maps into its address space (CUDA IPC, one node);
   gpu_ipc_open returns 1 with the reason in *why where it cannot. */
typedef struct {
    unsigned char bytes[64];
} gpu_ipc_handle;
int gpu_ipc_export(void *dev, gpu_ipc_handle *h);
int gpu_ipc_open(const gpu_ipc_handle *h, void **dev, const char **why);
void gpu_ipc_close(void *dev);
/* Sort keys over n slots: owned [0, nown) by cell of the region's grid, ghosts after them
   (ncells + cell), gone atoms last (2 ncells); perm = 0 .. n-1. */
int gpu_halo_keys(size_t n, size_t nown, mdl_box region, const int nc[3], const mdl_real *pos4, const int *gone,
                  int *key, int *perm);
int gpu_invert(size_t n, const int *perm, int *inv); /* inv[perm[i]] = i */
int gpu_remap(size_t m, const int *inv, int *idx);   /* idx[k] = inv[idx[k]] */

/* ---- forces (force.cu) ---- */
/* The style's coefficients per species pair (coeff[k][ti * ntypes + tj], MDL_PAIR_MAX_COEFF rows) and
   the squared cutoffs, into constant memory. */
int gpu_set_pair_table(int ntypes, const double (*coeff)[MDL_MAX_SPECIES * MDL_MAX_SPECIES], const double *cutsq);
/* The force kernels' minimum image: the lengths of the lists' region, set by the host (queued), or
   copied from a barostat's grid on the device (queued: a node of the step's graph). */
int gpu_set_image(mdl_box region);
int gpu_copy_image(const gpu_grid *grid);
/* Forces of pair style `style` (enum mdl_pair_style) from a full list (fx = fy = fz = NULL: none
   written); with energy_virial (enum mdl_ev) MDL_EV_ENERGY, per-atom pe[i] and w[i] (half of each
   pair's share), MDL_EV_VIRIAL w alone. A row longer than capacity is replaced by a scan of every
   atom and ghost (nall of them). form, table: the list's (gpu_build_cell). Nothing is done once
   *halt is set. */
int gpu_pair_forces(int style, size_t n, size_t nall, int ntypes, const mdl_real *pos4, const int *nl, gpu_rows form,
                    const int *table, const int *count, int si, int sk, int capacity, mdl_real *fx, mdl_real *fy,
                    mdl_real *fz, int energy_virial, mdl_real *pe, mdl_real *w, const int *halt);
/* The chained step in the force kernel's epilogue: each atom's force, once summed and written,
   goes straight into gpu_kick_drift's update with kicks = 2 (the same arithmetic). Its new packed
   position goes to pos_out, not to the pos4 that its neighbors read in this pass: the caller
   alternates the two. */
typedef struct {
    double dtf, dt, skin;
    double inv_mass[MDL_MAX_SPECIES];
    double *x, *y, *z, *vx, *vy, *vz;
    mdl_real *pos_out;
    const mdl_real *pos0;
    gpu_nb_state *st;
    double outer_skin; /* pruned lists: the outer list's skin (pos0's w: see gpu_prune_list); 0: none */
    double unsafe_skin; /* a move past it is unsafe: the skin, or infinity without the distance check */
} gpu_chain;
int gpu_pair_forces_chained(int style, size_t n, int ntypes, const mdl_real *pos4, const int *nl, gpu_rows form,
                            const int *table, const int *count, int si, int sk, int capacity, mdl_real *fx,
                            mdl_real *fy, mdl_real *fz, const gpu_chain *chain);

/* EAM (plain rows): the splines in device memory, GPU_EAM_STRIDE reals a point, [c0 c1 c2 0 | c3 c4
   c5 c6] (physics/eam.h's seven coefficients; table k, point m at (k (n + 1) + m) GPU_EAM_STRIDE,
   16-byte aligned) and the species' maps ([i * MDL_MAX_SPECIES + j]). */
#define GPU_EAM_STRIDE 8
typedef struct {
    const mdl_real *frho, *rhor, *z2r;
    int nrho, nr, nrhor, nz2r; /* points; tables of each kind */
    double rdr, rdrho, rhomax, cut;
    int type2frho[MDL_MAX_SPECIES], type2rhor[MDL_MAX_SPECIES * MDL_MAX_SPECIES];
    int type2z2r[MDL_MAX_SPECIES * MDL_MAX_SPECIES];
} gpu_eam;
int gpu_set_eam(const gpu_eam *e); /* before the minimum image is set (gpu_set_image): EAM follows it from then */
/* The density kernel: fp[i] = F'(rho_i), with `energy` pe[i] = F(rho_i). Then (once the ghosts'
   fp are in place, on several ranks) the forces (fx NULL: none written) with half of each pair's
   energy added to pe[i] and half its virial in w[i] (energy_virial: enum mdl_ev), or with `chain`
   the forces going on into the kicks and drift as gpu_pair_forces_chained's. A row past capacity:
   every atom. */
int gpu_eam_density(size_t n, size_t nall, int ntypes, const mdl_real *pos4, const int *nl, const int *count, int si,
                    int sk, int capacity, mdl_real *fp, int energy, mdl_real *pe, const int *halt);
int gpu_eam_forces(size_t n, size_t nall, int ntypes, const mdl_real *pos4, const int *nl, const int *count, int si,
                   int sk, int capacity, const mdl_real *fp, mdl_real *fx, mdl_real *fy, mdl_real *fz,
                   int energy_virial, mdl_real *pe, mdl_real *w, const int *halt, const gpu_chain *chain);

/* ---- integration, thermostats, reductions (integrate.cu) ---- */
int gpu_set_masses(int ntypes, const double *mass);
/* v += dtf f/m (kicks times, one addition each: the last step's second half kick, then this
   one's first); x += dt v; pos4 refreshed; st->far = 1 when an atom is more than skin/2 from its
   position at the last build (pos0), st->unsafe = 1 past the skin or not finite; with outer_skin
   (pruned lists; 0: none), st->far_outer = 1 when one may be more than outer_skin/2 from its
   position at the outer list's build (pos0's w + its distance from pos0: gpu_prune_list). The step
   kernels (these, the forces, Langevin, scaling) do nothing once st->halt is set. With scale
   (device memory; NULL: none), Nose-Hoover's: v *= scale[0] before this step's kick. With bx (a
   barostat; NULL: none), the drift between the box's two remaps, and bx's skin thresholds. */
int gpu_kick_drift(size_t n, double dtf, double dt, double *x, double *y, double *z, double *vx, double *vy,
                   double *vz, const mdl_real *fx, const mdl_real *fy, const mdl_real *fz, const int *type,
                   mdl_real *pos4, const mdl_real *pos0, double skin, double unsafe_skin, double outer_skin,
                   int kicks, gpu_nb_state *st, const double *scale, const gpu_box_state *bx);
/* gpu_kick_drift's skin test alone (far, unsafe), at the positions pos4 (no outer list). */
int gpu_skin_test(size_t n, const mdl_real *pos4, const mdl_real *pos0, double skin, double unsafe_skin,
                  gpu_nb_state *st);
/* rng.h's mdl_normals_fn on the GPU (cuRAND's device API), on the selected device; 1 on failure. */
int gpu_velocity_normals(uint64_t key, size_t n, const int64_t *id, double *out);
int gpu_kick(size_t n, double dtf, double *vx, double *vy, double *vz, const mdl_real *fx, const mdl_real *fy,
             const mdl_real *fz, const int *type, const int *halt);
/* The noise of step dev_step[0] (device memory) where dev_step is not NULL, else of `step`. */
int gpu_langevin(size_t n, const double *vx, const double *vy, const double *vz, mdl_real *fx,
                 mdl_real *fy, mdl_real *fz, const int *type, const int64_t *id, mdl_langevin p, uint64_t seed,
                 uint64_t step, const long long *dev_step, const int *halt);
/* Sums over atoms in a fixed order (warp shuffles, one block pass, a second small launch):
   out[0] = sum m v^2, out[1] = sum pe, out[2] = sum w (pe/w skipped when NULL). out is device memory.
   partials holds 3 * gpu_reduce_blocks(n) doubles. */
size_t gpu_reduce_blocks(size_t n);
int gpu_reduce(size_t n, const double *vx, const double *vy, const double *vz, const int *type, const mdl_real *pe,
               const mdl_real *w, double *partials, double *out);
/* v *= sqrt(1 + c (T0 / T - 1)) with T from mv2 (device): c = 1 rescales to T0, c = dt/tau is Berendsen. */
int gpu_scale_to_temperature(size_t n, double *vx, double *vy, double *vz, const double *mv2, mdl_scaling rule,
                             double mvv2e, double boltz, double dof, uint64_t step, const long long *dev_step,
                             const int *halt);

/* ---- Nose-Hoover (nose_hoover.cu) ----
   The chains in nh (device memory) take the half steps of mode: GPU_NH_END (after the second half
   kick) on sum m v^2 and the virial, mv2[0] and mv2[2], then GPU_NH_START (before the first kick);
   factor[0] (device) = the product of their velocity factors, factor[1] the box's. With a
   barostat, the start moves bx's box; a box that runs away (volume past 10 times or under a tenth
   of volume0, an edge under twice rlist) halts the step, marks bx->runaway and reports the step in
   report[0] (mapped). Nothing when st->halt. */
enum { GPU_NH_END = 1, GPU_NH_START = 2 };
int gpu_nose_hoover(mdl_nh *nh, int mode, const double *mv2, double mvv2e, gpu_box_state *bx, double *factor,
                    gpu_nb_state *st, long long *report);
/* The species' masses and their inverses (1 / mass, as the kicks use them). */
typedef struct {
    double mass[MDL_MAX_SPECIES], inv[MDL_MAX_SPECIES];
} gpu_masses;
/* The chained step's GPU_NH_END | GPU_NH_START in one pass: sum m (v + dtf f / m)^2 over the
   velocities a half kick would make, without making them, and with w (not NULL) the virial; the
   partials (3 per gpu_reduce_blocks(n) block) and *ticket (0 between calls) are its scratch. */
int gpu_nose_hoover_kicked(size_t n, double dtf, const double *vx, const double *vy, const double *vz,
                           const mdl_real *fx, const mdl_real *fy, const mdl_real *fz, const int *type, int ntypes,
                           const gpu_masses *ms, const mdl_real *w, double *partials, unsigned *ticket, mdl_nh *nh,
                           double mvv2e, gpu_box_state *bx, double *factor, gpu_nb_state *st, long long *report);
/* v *= factor[0] (device memory); nothing when *halt. */
int gpu_scale_by(size_t n, double *vx, double *vy, double *vz, const double *factor, const int *halt);
/* *out (device memory) = the chains' energy (ecouple) in the box (device memory). */
int gpu_nose_hoover_energy(const mdl_nh *nh, const mdl_box *box, double *out);

/* ---- snapshots for the writer thread (snapshot.cu) ----
   dst[d][id[i]] = src[d][i], d = 0..2: one field's arrays into id order (forces widened to double). */
int gpu_scatter3_double(size_t n, const int64_t *id, const double *const src[3], double *const dst[3]);
int gpu_scatter3_real(size_t n, const int64_t *id, const mdl_real *const src[3], double *const dst[3]);
int gpu_scatter3_int(size_t n, const int64_t *id, const int *const src[3], int *const dst[3]);
/* A checkpoint's build: dst[d][id[i]] = pos0's coordinate d of atom i (widened), order[id[i]] = i. */
int gpu_scatter_build(size_t n, const int64_t *id, const mdl_real *pos0, double *const dst[3], int *order);

/* ---- On-the-fly analysis (analysis.cu) ----
   Positions in double, the box a barostat's (moving, device memory) or the fixed one. origin: each
   atom's unwrapped position at [3 id]; msd_sample adds each species' sum of |unwrapped - origin|^2
   to row[species]; rdf_sample adds the current list's pairs within rmax to hist ([pair][bin],
   rdf_pair_weight of a full list; capacity -1: every row scans every atom, so every pair within rmax
   counts, past the list's cutoff up to half the box, on one rank) and the box's volume to *volume,
   reading the ghosts [n, nall)
   from the packed positions `ghosts` where given (several ranks, mixed precision) and else from
   x, y, z. box: the whole box; the list's pairs take its minimum image except along the axes of
   `ghosted` (bit d: axis d has ghosts, which are the images). */
int gpu_msd_origin(size_t n, const double *x, const double *y, const double *z, const int *ix, const int *iy,
                   const int *iz, const int64_t *id, mdl_box box, const mdl_box *moving, double *origin);
int gpu_msd_sample(size_t n, const double *x, const double *y, const double *z, const int *ix, const int *iy,
                   const int *iz, const int *type, const int64_t *id, mdl_box box, const mdl_box *moving,
                   const double *origin, int ntypes, double *row);
int gpu_rdf_sample(size_t n, size_t nall, const double *x, const double *y, const double *z, const mdl_real *ghosts,
                   const int *type, const int *nl, gpu_rows form, const int *table, const int *count, int si, int sk,
                   int capacity, mdl_box box, const mdl_box *moving, int ghosted, double rmax, int nbins,
                   int ntypes, unsigned long long *hist, double *volume);

#ifdef __cplusplus
}
#endif

#endif

/* The state of the GPU backend on several ranks, or on one whose box needs periodic images as
   ghosts (struct gpu_halo) and what its three files share:
   halo.c (set-up, transport, messages, statistics), migrate.c (a rebuild's migration, ghosts and
   sort) and refresh.c (each step's ghost refresh and the ranks' skin decision). Only they include
   it; the rest of the backend sees context.h's halo_* functions. */
#ifndef MDL_GPU_HALO_H
#define MDL_GPU_HALO_H

#include "context.h"
#include "peer.h"
#include "timeline.h"

#include "../parallel/domain.h"

#ifdef MDLITE_HAVE_NCCL
#include <nccl.h>
#endif
#include <stddef.h>

enum { GHOST_WORDS = 4 }; /* doubles per new ghost (x y z species); a refresh sends 3 reals */
_Static_assert(offsetof(gpu_nb_state, need) == offsetof(gpu_nb_state, halt) + sizeof(int),
               "one all-reduce of two words agrees on halt and need");

typedef struct {
    size_t nsend, send_at; /* the atoms sent: sendlist[send_at .. send_at + nsend) */
    size_t nrecv, first;   /* the ghosts received: ordinals first .. first + nrecv - 1 */
} halo_swap;

/* One message each way with one neighbor: bytes of the out buffer from out_at, to `to`; bytes of
   the in buffer from in_at, from `from`. */
typedef struct {
    size_t out_at, out_bytes;
    int to;
    size_t in_at, in_bytes;
    int from;
} halo_msg;

struct gpu_halo {
    mdl_domain dm;             /* the grid, this rank's brick, its swaps (host lists unused) */
    gpu_brick brick[3];
    halo_swap *swap;           /* one per dm.swap (swap_cap of them) */
    int swap_cap;
    double *along;             /* device: a triclinic box's coordinates along the bricks (box_along) */
    size_t along_cap;
    int *chain, *link;         /* one rank: each ghost's root and images, before and after the sort
                                  (gpu_self_chain); 4 ints a ghost */
    size_t chain_cap, link_cap, nghost;
    int *sendlist;             /* device: every swap's send list, remapped after each sort */
    size_t sendlist_cap, nsent;
    size_t ghost_base;         /* ghost ordinal g was slot ghost_base + g before the sort: inv maps it */
    int *counts;               /* device: the migration's lost atoms (counts[2]) */
    volatile int *picked;      /* mapped: the selections' counts, each way (the host reads them when an event
                                  has passed: no copy to wait for) */
    int *picked_dev;           /* the same words, as the device addresses them */
    void *picked_ready;        /* event: the selections are done */
    int strays_possible;       /* a decomposed dimension of more than 2 bricks: atoms can be lost */
    void *select_temp;
    size_t select_bytes, select_cap;
    char *out, *in;            /* device message buffers */
    size_t out_cap, in_cap;
    char *host_out, *host_in;  /* pinned staging (the MPI path) */
    size_t host_out_cap, host_in_cap;
    int nccl;                  /* messages through NCCL; else staged through MPI */
    int self;                  /* one rank: its ghosts are its own atoms' images, made in one pass at a
                                  rebuild and refreshed from their roots in one pass each step (chain,
                                  link; no swaps, no messages), the skin decision its own (as NCCL's, read
                                  a step later) */
    gpu_peers *peers;          /* ranks of one node: each step's refresh by direct writes (NULL: messages) */
#ifdef MDLITE_HAVE_NCCL
    ncclComm_t comm;
#endif
    void *ev[6];               /* start and end on the stream: two refreshes (alternately), a rebuild's */
    int timing;                /* bit k: ev[2k], ev[2k + 1] hold an interval of the loop not yet counted */
    int parity;                /* the refresh pair used last */
    int *flags_host;           /* pinned: the skin test's far, since, unsafe; or (NCCL) the agreed halt, need */
    void *flags_ready;         /* event: flags_host is there */
    long pending;              /* NCCL: the step queued before its agreed decision was read, or -1 */
    double comm_seconds;
    long builds, dangerous, last_build, unsafe_step;
    int since, started;
    gpu_timeline *timeline;    /* [output] rebuild_timeline: one rebuild timed stage by stage (NULL: none) */
};

/* The per-atom arrays a message carries (forces too with with_forces). */
gpu_atom_arrays halo_atoms_of(gpu_ctx *c, int with_forces);
/* Device (and, staged, pinned) message buffers of out and in bytes at least. */
int halo_reserve_messages(gpu_halo *h, size_t out, size_t in);
/* One exchange's messages (dimensions of one brick have none: domain.c); with `agree` (NCCL only),
   the ranks' maximum of the words at *agree goes with them. */
int halo_send_messages(gpu_halo *h, const halo_msg *m, int nm, int **agree);
/* Where a rebuild's message m (way w) is packed (the out buffer, or straight in the receiver's
   parcel area), and its receiving side for each way. */
void *halo_parcel_out(gpu_halo *h, halo_msg *m, int w, gpu_peer_out *out);
void halo_parcels_in(gpu_halo *h, halo_msg *m, int ways, const void *src[2], gpu_peer_in wait[2]);
/* The exchanges' intervals of the pairs in `pairs` (bit k: ev[2k], ev[2k + 1]) added to the Comm
   time; the host waits for their ends. */
int halo_count_exchanges(gpu_halo *h, int pairs);
/* Bytes of one ghost's position in stage k's refresh. */
size_t halo_refresh_bytes(const mdl_domain *dm, int k);
/* Room for a halo_swap per swap of the last plan. */
int halo_reserve_swaps(gpu_halo *h);
/* Whether each step's refresh goes by direct writes (peer.c holds PEER_STAGES stages). */
int halo_direct(const gpu_halo *h);

#endif

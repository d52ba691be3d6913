/* The GPU backend on several ranks: this rank's brick (domain.c's grid and swaps), migration and
   ghosts packed and unpacked on the device, messages through NCCL on the compute stream (each
   rank its own GPU; on one node written straight into the other GPUs' memory instead, peer.c) or
   staged through pinned host memory and MPI; the skin test's decision
   shared by all ranks at each check: with NCCL as a maximum on the stream that the step's kernels
   obey (the host learns it a step later and has the step made again after a rebuild), staged
   through the host, which waits for it. */
#define _POSIX_C_SOURCE 200809L /* gethostname */

#include "context.h"
#include "peer.h"
#include "timeline.h"

#include "../comm.h"
#include "../domain.h"
#include "../util.h"

#ifdef MDLITE_HAVE_NCCL
#include <nccl.h>
#endif
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    halo_swap swap[6];
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

static gpu_atom_arrays atoms_of(gpu_ctx *c, int with_forces)
{
    return (gpu_atom_arrays){{c->x, c->y, c->z, c->vx, c->vy, c->vz}, {c->ix, c->iy, c->iz, c->type}, c->id,
                             {with_forces ? c->fx : NULL, c->fy, c->fz}};
}

/* ---- messages ------------------------------------------------------------------------------- */

static int grow_device(char **p, size_t *cap, size_t bytes, const char *what)
{
    if (bytes <= *cap)
        return MDL_OK;
    gpu_free(*p);
    *cap = bytes + bytes / 2 + 4096;
    return gpu_malloc((void **)p, *cap, what) ? MDL_ERUN : MDL_OK;
}

static int grow_pinned(char **p, size_t *cap, size_t bytes)
{
    if (bytes <= *cap)
        return MDL_OK;
    gpu_host_pin_free(*p);
    *cap = bytes + bytes / 2 + 4096;
    return gpu_host_pin_alloc((void **)p, *cap, "messages between ranks") ? MDL_ERUN : MDL_OK;
}

static int reserve_messages(gpu_halo *h, size_t out, size_t in)
{
    MDL_TRY(grow_device(&h->out, &h->out_cap, out, "messages between ranks"));
    MDL_TRY(grow_device(&h->in, &h->in_cap, in, "messages between ranks"));
    if (h->nccl)
        return MDL_OK;
    MDL_TRY(grow_pinned(&h->host_out, &h->host_out_cap, out));
    return grow_pinned(&h->host_in, &h->host_in_cap, in);
}

#ifdef MDLITE_HAVE_NCCL
static int nccl_failed(const char *what, ncclResult_t r)
{
    mdl_error("NCCL: %s: %s", what, ncclGetErrorString(r));
    return MDL_ERUN;
}
#endif

/* The messages as one NCCL group on the compute stream (with `agree`, the ranks' maximum of the
   list state's halt and need words in place, in the same launch): nothing waits here. */
static int send_nccl(gpu_halo *h, const halo_msg *m, int nm, int *agree)
{
#ifdef MDLITE_HAVE_NCCL
    ncclResult_t r = ncclGroupStart();
    if (r == ncclSuccess && agree)
        r = ncclAllReduce(agree, agree, 2, ncclInt32, ncclMax, h->comm, NULL);
    for (int k = 0; k < nm && r == ncclSuccess; k++) {
        if (m[k].out_bytes)
            r = ncclSend(h->out + m[k].out_at, m[k].out_bytes, ncclUint8, m[k].to, h->comm, NULL);
        if (r == ncclSuccess && m[k].in_bytes)
            r = ncclRecv(h->in + m[k].in_at, m[k].in_bytes, ncclUint8, m[k].from, h->comm, NULL);
    }
    ncclResult_t e = ncclGroupEnd();
    return r != ncclSuccess ? nccl_failed("send/receive", r) : e != ncclSuccess ? nccl_failed("group", e) : MDL_OK;
#else
    (void)h, (void)m, (void)nm, (void)agree;
    return MDL_ERUN; /* not reached: no NCCL, no h->nccl */
#endif
}

/* The messages through pinned host memory and MPI (the host waits for the device). */
static int send_staged(gpu_halo *h, const halo_msg *m, int nm)
{
    for (int k = 0; k < nm; k++)
        TRY(gpu_d2h(h->host_out + m[k].out_at, h->out + m[k].out_at, m[k].out_bytes));
    for (int k = 0; k < nm; k++) {
        size_t got = 0;
        MDL_TRY(comm_exchange(h->host_out + m[k].out_at, m[k].out_bytes, m[k].to, h->host_in + m[k].in_at,
                              m[k].in_bytes, m[k].from, &got));
        if (got != m[k].in_bytes) {
            mdl_error("internal: rank %d expected %zu bytes from rank %d, got %zu", h->dm.rank, m[k].in_bytes,
                      m[k].from, got);
            return MDL_ERUN;
        }
    }
    for (int k = 0; k < nm; k++)
        TRY(gpu_h2d(h->in + m[k].in_at, h->host_in + m[k].in_at, m[k].in_bytes));
    return MDL_OK;
}

/* One exchange's messages (dimensions of one brick have none: domain.c); with `agree` (NCCL only),
   the ranks' maximum of *agree goes with them and *agree becomes NULL. */
static int send_messages(gpu_halo *h, const halo_msg *m, int nm, int **agree)
{
    size_t bytes = 0;
    for (int k = 0; k < nm; k++)
        bytes += m[k].out_bytes + m[k].in_bytes;
    if (h->nccl && bytes == 0 && !(agree && *agree)) /* MPI's exchanges pair up even when empty */
        return MDL_OK;
    if (!h->nccl)
        return send_staged(h, m, nm);
    MDL_TRY(send_nccl(h, m, nm, agree ? *agree : NULL));
    if (agree)
        *agree = NULL;
    return MDL_OK;
}

/* Where a rebuild's message m (way w) is packed: this rank's out buffer, or, where it fits the
   receiver's parcel area (peer.c), that area, with the words that tell it in *out (else none), and
   m no longer goes as a message. */
static void *parcel_out(gpu_halo *h, halo_msg *m, int w, gpu_peer_out *out)
{
    void *dest = h->out + m->out_at;
    *out = (gpu_peer_out){0};
    if (h->peers && peers_parcel_out(h->peers, m->to, w, m->out_bytes, &dest, out))
        m->out_bytes = 0;
    return dest;
}

/* The receiving side of parcel_out for each way (the same answers), before the messages go:
   where each arrives, and the words to wait for (none for a message). */
static void parcels_in(gpu_halo *h, halo_msg *m, int ways, const void *src[2], gpu_peer_in wait[2])
{
    for (int w = 0; w < ways; w++) {
        src[w] = h->in + m[w].in_at;
        wait[w] = (gpu_peer_in){0};
        if (h->peers && peers_parcel_in(h->peers, w, m[w].in_bytes, &src[w], &wait[w]))
            m[w].in_bytes = 0;
    }
}

/* ---- set-up ---------------------------------------------------------------------------------- */

/* A number naming this rank's GPU: its node's name and the device's PCI bus id, hashed. */
static double device_key(void)
{
    char name[256] = "", bus[64] = "";
    gethostname(name, sizeof name - 1);
    gpu_bus_id(bus, sizeof bus);
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    for (const char *p = bus; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return (double)(h >> 11); /* exact in a double */
}

/* With NCCL, each step's refresh by direct writes where every rank can map every other's memory
   (one node); [run] gpu_comm = nccl leaves them out, = direct insists on them. */
static int choose_refresh(gpu_halo *h, enum mdl_gpu_comm want)
{
    const int required = want == MDL_COMM_DIRECT;
    if (required && !h->nccl) {
        mdl_error("[run] gpu_comm = direct: the ranks exchange through MPI (ranks sharing a GPU, or a build "
                  "without NCCL)");
        return MDL_EINPUT;
    }
    if (!h->nccl || want == MDL_COMM_NCCL)
        return MDL_OK;
    return peers_create(&h->peers, h->dm.rank, h->dm.size, required);
}

/* NCCL where no two ranks share a GPU ([run] gpu_comm = mpi: staged through host memory and MPI;
   = nccl or direct: NCCL insisted on), on every rank or none. */
static int choose_transport(gpu_halo *h, enum mdl_gpu_comm want)
{
    double *keys = mdl_alloc((size_t)h->dm.size * sizeof *keys, "device names"), mine = device_key();
    int rc = keys ? comm_allgather_doubles(&mine, 1, keys) : MDL_ERUN;
    long staged = 0;
    for (int r = 0; rc == MDL_OK && r < h->dm.size; r++)
        staged |= r != h->dm.rank && keys[r] == mine;
    free(keys);
    MDL_TRY(rc);
    if (want != MDL_COMM_AUTO)
        staged = want == MDL_COMM_MPI;
#ifndef MDLITE_HAVE_NCCL
    if (!staged && want != MDL_COMM_AUTO) {
        mdl_error("[run] gpu_comm = %s: this build has no NCCL", want == MDL_COMM_NCCL ? "nccl" : "direct");
        return MDL_EINPUT;
    }
    staged = 1;
#endif
    MDL_TRY(comm_max_long(&staged));
    h->nccl = !staged;
#ifdef MDLITE_HAVE_NCCL
    if (h->nccl) {
        /* NCCL's cuMem buffers cost ~250 us of host time per send/receive group on the H200 x2
           machine (25 us without): off unless the user says otherwise (docs/PERFORMANCE.md) */
        setenv("NCCL_CUMEM_ENABLE", "0", 0);
        ncclUniqueId id;
        memset(&id, 0, sizeof id);
        ncclResult_t r = h->dm.rank == 0 ? ncclGetUniqueId(&id) : ncclSuccess;
        long bad = r != ncclSuccess;
        MDL_TRY(comm_max_long(&bad));
        if (bad)
            return r != ncclSuccess ? nccl_failed("unique id", r) : MDL_ERUN;
        MDL_TRY(comm_broadcast(&id, sizeof id));
        r = ncclCommInitRank(&h->comm, h->dm.size, id, h->dm.rank);
        if (r != ncclSuccess)
            return nccl_failed("communicator", r);
    }
#endif
    return choose_refresh(h, want);
}

int halo_create(gpu_ctx *c, const mdl_setup *setup, const mdl_system *all, mdl_system *mine)
{
    gpu_halo *h = calloc(1, sizeof *h);
    if (!h) {
        mdl_error("out of memory for the decomposition");
        return MDL_ERUN;
    }
    c->halo = h;
    h->unsafe_step = h->pending = -1;
    MDL_TRY(domain_init(&h->dm, &all->box, setup->grid, setup->rghost > c->rlist ? setup->rghost : c->rlist));
    halo_cell_grid(c, all->n);
    for (int d = 0; d < 3; d++)
        h->brick[d] = (gpu_brick){all->box.lo[d], all->box.len[d], h->dm.grid[d], h->dm.coord[d]};
    MDL_TRY(system_init(mine, 16));
    MDL_TRY(domain_take_owned(&h->dm, all, mine));
    for (int k = 0; k < 6; k++)
        TRY(gpu_event_create_timed(&h->ev[k]));
    for (int d = 0; d < 3; d++)
        h->strays_possible |= h->dm.grid[d] > 2;
    if (gpu_event_create(&h->flags_ready) || gpu_event_create(&h->picked_ready) ||
        gpu_malloc((void **)&h->counts, 4 * sizeof(int), "lost atom counts") ||
        gpu_host_alloc_mapped((void **)&h->picked, (void **)&h->picked_dev, 2 * sizeof(int), "selection counts") ||
        gpu_host_pin_alloc((void **)&h->flags_host, 3 * sizeof(int), "the skin test's flags"))
        return MDL_ERUN;
    MDL_TRY(timeline_create(&h->timeline, h->dm.rank, setup->rebuild_timeline));
    return choose_transport(h, setup->comm);
}

size_t halo_cell_grid(gpu_ctx *c, size_t natoms)
{
    return domain_cell_grid(&c->halo->dm, c->rlist, natoms, &c->region, c->nc);
}

size_t halo_capacity(const gpu_ctx *c, size_t owned)
{
    const mdl_domain *dm = &c->halo->dm;
    double grow = 1;
    for (int d = 0; d < 3; d++)
        grow *= c->region.len[d] / (dm->hi[d] - dm->lo[d]);
    return (size_t)(1.15 * grow * (double)owned) + 4096;
}

void halo_destroy(gpu_ctx *c)
{
    gpu_halo *h = c->halo;
    if (!h)
        return;
#ifdef MDLITE_HAVE_NCCL
    if (h->nccl && h->comm)
        ncclCommDestroy(h->comm);
#endif
    peers_destroy(h->peers);
    gpu_free(h->sendlist);
    gpu_free(h->counts);
    gpu_host_free((void *)h->picked);
    gpu_event_destroy(h->picked_ready);
    gpu_free(h->select_temp);
    gpu_free(h->out);
    gpu_free(h->in);
    gpu_host_pin_free(h->host_out);
    gpu_host_pin_free(h->host_in);
    for (int k = 0; k < 6; k++)
        gpu_event_destroy(h->ev[k]);
    gpu_event_destroy(h->flags_ready);
    timeline_destroy(h->timeline);
    gpu_host_pin_free(h->flags_host);
    domain_destroy(&h->dm);
    free(h);
    c->halo = NULL;
}

/* ---- the rebuild ------------------------------------------------------------------------------ */

/* The exchanges' intervals of the pairs in `pairs` (bit k: ev[2k], ev[2k + 1]) not yet counted;
   the host waits for their ends. */
static int count_exchanges(gpu_halo *h, int pairs)
{
    for (int k = 0; k < 3; k++) {
        if (!(h->timing & pairs & (1 << k)))
            continue;
        double t = 0;
        TRY(gpu_event_seconds(h->ev[2 * k], h->ev[2 * k + 1], &t));
        h->comm_seconds += t;
        h->timing &= ~(1 << k);
    }
    return MDL_OK;
}


/* Room for a selection over the arrays' capacity. */
static int reserve_selection(gpu_ctx *c)
{
    gpu_halo *h = c->halo;
    if (c->cap > h->select_cap) {
        gpu_free(h->select_temp);
        h->select_bytes = gpu_select_temp_bytes(c->cap);
        h->select_cap = c->cap;
        TRY(gpu_malloc(&h->select_temp, h->select_bytes, "selections"));
    }
    return MDL_OK;
}

/* The selections' counts (the host waits for an event, then reads mapped memory: a copy would
   add ~10 us), and what each neighbor will send back; with `strays`, the migration's lost atoms
   (counts[2]) too. */
static int trade_counts(gpu_ctx *c, int ways, const int to[2], const int from[2], size_t out[2], size_t in[2],
                        int *strays)
{
    gpu_halo *h = c->halo;
    int got[3] = {0, 0, 0};
    if (h->peers)
        peers_next_round(h->peers);
    if (gpu_event_record(h->picked_ready, NULL) || gpu_event_sync(h->picked_ready) ||
        (strays && gpu_d2h(&got[2], h->counts + 2, sizeof(int))))
        return MDL_ERUN;
    for (int w = 0; w < ways; w++)
        got[w] = h->picked[w];
    timeline_mark(h->timeline, "counts read");
    if (strays)
        *strays = got[2];
    for (int w = 0; w < ways; w++) {
        out[w] = (size_t)got[w];
        MDL_TRY(comm_exchange_count(out[w], to[w], &in[w], from[w]));
    }
    timeline_mark(h->timeline, "counts traded");
    return MDL_OK;
}

/* Owned atoms that left the brick go to the neighbor whose brick they entered (whole state), one
   dimension after another, arrivals appended: *slots grows, *left counts those gone. */
static int migrate(gpu_ctx *c, size_t *slots, size_t *left)
{
    gpu_halo *h = c->halo;
    const mdl_domain *dm = &h->dm;
    for (int d = 0; d < 3; d++) {
        if (dm->grid[d] == 1)
            continue;
        double *coord = d == 0 ? c->x : d == 1 ? c->y : c->z;
        const int g = dm->grid[d], ways = g > 2 ? 2 : 1; /* two bricks: one neighbor takes them all */
        const int to[2] = {dm->below[d], dm->above[d]}, from[2] = {dm->above[d], dm->below[d]};
        for (int w = 0; w < ways; w++) {
            int target = w == 0 ? (dm->coord[d] + g - 1) % g : (dm->coord[d] + 1) % g;
            MDL_TRY(reserve_selection(c));
            TRY(gpu_select_leavers(*slots, h->brick[d], target, coord, c->gone, c->sel[w], h->picked_dev + w,
                                   h->select_temp, h->select_bytes));
        }
        timeline_mark(h->timeline, "leavers selected");
        size_t out[2] = {0, 0}, in[2] = {0, 0}, bytes = GPU_ATOM_WORDS * sizeof(double);
        MDL_TRY(trade_counts(c, ways, to, from, out, in, NULL));
        MDL_TRY(gpu_grow_atoms(c, *slots + in[0] + in[1]));
        MDL_TRY(reserve_messages(h, (out[0] + out[1]) * bytes, (in[0] + in[1]) * bytes));
        halo_msg m[2];
        for (int w = 0; w < ways; w++) {
            m[w] = (halo_msg){w ? out[0] * bytes : 0, out[w] * bytes, to[w], w ? in[0] * bytes : 0, in[w] * bytes,
                              from[w]};
            gpu_peer_out tell;
            void *dest = parcel_out(h, &m[w], w, &tell);
            TRY(gpu_pack_atoms(out[w], c->sel[w], atoms_of(c, 1), dest, c->gone, &tell));
        }
        timeline_mark(h->timeline, "leavers packed");
        const void *src[2];
        gpu_peer_in wait[2];
        parcels_in(h, m, ways, src, wait);
        MDL_TRY(send_messages(h, m, ways, NULL));
        timeline_mark(h->timeline, "leavers sent");
        for (int w = 0; w < ways; w++) {
            TRY(gpu_unpack_atoms(in[w], src[w], atoms_of(c, 1), *slots, c->gone, c->pos4, &wait[w]));
            *slots += in[w];
            *left += out[w];
        }
        timeline_mark(h->timeline, "arrivals unpacked");
    }
    /* an atom more than a brick away is lost: counted here, read with the ghosts' first counts (two
       bricks or fewer along each dimension: an atom not in this brick is in the other one, or the
       clamp put it in this one, so none can be) */
    if (!h->strays_possible)
        return MDL_OK;
    TRY(gpu_count_strays(*slots, h->brick, c->x, c->y, c->z, c->gone, h->counts + 2));
    timeline_mark(h->timeline, "strays counted");
    return MDL_OK;
}

/* The migration's lost atoms, `strays` on this rank: every rank stops if any rank lost one. */
static int check_lost(const gpu_halo *h, int strays)
{
    long lost = strays;
    MDL_TRY(comm_max_long(&lost));
    if (lost > 0) {
        if (strays > 0)
            mdl_error("rank %d: %d atoms are more than a brick away from its brick: lost", h->dm.rank, strays);
        return MDL_ERUN;
    }
    return MDL_OK;
}

/* Room for `more` entries of the send lists (kept: the lists so far). */
static int reserve_sendlist(gpu_halo *h, size_t more)
{
    if (h->nsent + more <= h->sendlist_cap)
        return MDL_OK;
    size_t cap = (h->nsent + more) * 3 / 2 + 1024;
    int *p = NULL;
    TRY(gpu_malloc((void **)&p, cap * sizeof *p, "ghost send lists"));
    if (h->nsent)
        TRY(gpu_d2d(p, h->sendlist, h->nsent * sizeof *p));
    gpu_free(h->sendlist);
    h->sendlist = p;
    h->sendlist_cap = cap;
    return MDL_OK;
}

/* The ghosts, staged dimension by dimension (both faces at once; candidates: the atoms and the
   ghosts of earlier dimensions), appended after the slots; returns the slots then in use. The
   migration's lost atoms are checked at the first counts (several ranks: there is a swap). */
static int build_ghosts(gpu_ctx *c, size_t slots, size_t *nall)
{
    gpu_halo *h = c->halo;
    const mdl_domain *dm = &h->dm;
    *nall = slots;
    h->nsent = 0;
    for (int k = 0; k < dm->nswap; k += 2) {
        const int d = dm->swap[k].dim;
        const double *coord = d == 0 ? c->x : d == 1 ? c->y : c->z;
        const size_t candidates = *nall;
        int to[2], from[2];
        const double below = dm->lo[d] + dm->rghost, above = dm->hi[d] - dm->rghost;
        MDL_TRY(reserve_selection(c));
        for (int w = 0; w < 2; w++) {
            const mdl_swap *s = &dm->swap[k + w]; /* plan_swaps: dir 0, then 1 */
            to[w] = s->to, from[w] = s->from;
            if (below > above) /* a brick thinner than two ghost layers: some candidates go both ways */
                TRY(gpu_select_ghosts(candidates, s->dir == 0 ? below : above, s->dir, coord, c->gone, c->sel[w],
                                      h->picked_dev + w, h->select_temp, h->select_bytes));
        }
        if (below <= above) /* each candidate goes one way at most: both lists in one pass */
            TRY(gpu_select_ghosts_both(candidates, below, above, coord, c->gone, c->sel, h->picked_dev,
                                       h->select_temp, h->select_bytes));
        timeline_mark(h->timeline, "ghosts selected");
        size_t out[2], in[2], bytes = GHOST_WORDS * sizeof(double);
        int strays = 0;
        const int lost_check = k == 0 && h->strays_possible;
        MDL_TRY(trade_counts(c, 2, to, from, out, in, lost_check ? &strays : NULL));
        if (lost_check) {
            MDL_TRY(check_lost(h, strays));
            timeline_mark(h->timeline, "lost atoms checked");
        }
        MDL_TRY(gpu_grow_atoms(c, *nall + in[0] + in[1]));
        MDL_TRY(reserve_messages(h, (out[0] + out[1]) * bytes, (in[0] + in[1]) * bytes));
        MDL_TRY(reserve_sendlist(h, out[0] + out[1]));
        halo_msg m[2];
        for (int w = 0; w < 2; w++) {
            halo_swap *hs = &h->swap[k + w];
            m[w] = (halo_msg){w ? out[0] * bytes : 0, out[w] * bytes, to[w], w ? in[0] * bytes : 0, in[w] * bytes,
                              from[w]};
            gpu_peer_out tell;
            void *dest = parcel_out(h, &m[w], w, &tell);
            TRY(gpu_pack_ghosts(out[w], c->sel[w], c->x, c->y, c->z, c->type, d, dm->swap[k + w].shift, dest,
                                &tell));
            if (out[w])
                TRY(gpu_d2d(h->sendlist + h->nsent, c->sel[w], out[w] * sizeof(int)));
            hs->send_at = h->nsent, hs->nsend = out[w];
            h->nsent += out[w];
        }
        timeline_mark(h->timeline, "ghosts packed");
        const void *src[2];
        gpu_peer_in wait[2];
        parcels_in(h, m, 2, src, wait);
        MDL_TRY(send_messages(h, m, 2, NULL));
        timeline_mark(h->timeline, "ghosts sent");
        for (int w = 0; w < 2; w++) {
            halo_swap *hs = &h->swap[k + w];
            TRY(gpu_unpack_ghosts(in[w], src[w], *nall, c->x, c->y, c->z, c->type, c->pos4, c->gone,
                                  &wait[w]));
            hs->first = *nall - slots, hs->nrecv = in[w];
            *nall += in[w];
        }
        timeline_mark(h->timeline, "ghosts unpacked");
    }
    return MDL_OK;
}

/* Owned atoms then ghosts, each sorted by cell (atoms that left dropped); the send lists and the
   ghosts' slots follow the sort; the cell bounds of both. */
static int sort_with_ghosts(gpu_ctx *c, size_t slots, size_t left, size_t nall)
{
    gpu_halo *h = c->halo;
    const size_t ncells = (size_t)c->nc[0] * c->nc[1] * c->nc[2];
    TRY(gpu_halo_keys(nall, slots, c->region, c->nc, c->pos4, c->gone, c->cell, c->perm));
    timeline_mark(h->timeline, "keys");
    TRY(gpu_sort_by_cell(c->cell, c->cell_sorted, c->perm, c->perm_sorted, nall, 2 * ncells + 1, c->sort_temp,
                         c->sort_temp_bytes));
    timeline_mark(h->timeline, "sorted");
    TRY(gpu_permute_atoms(nall, c->perm_sorted, atoms_of(c, c->forces_given), c->nl, c->pos4, NULL));
    timeline_mark(h->timeline, "permuted");
    TRY(gpu_invert(nall, c->perm_sorted, c->inv));
    TRY(gpu_remap(h->nsent, c->inv, h->sendlist));
    h->ghost_base = slots;
    c->n = slots - left;
    c->nall = c->n + (nall - slots);
    TRY(gpu_cell_bounds(c->nall, 2 * ncells, c->cell_sorted, c->cell_start, c->cell_end));
    timeline_mark(h->timeline, "sends remapped, bounds");
    return MDL_OK;
}

/* Bytes of one ghost's position in stage k's refresh: doubles for the ghosts that later stages
   forward, else reals. */
static size_t refresh_bytes(const mdl_domain *dm, int k)
{
    return 3 * (k + 2 < dm->nswap ? sizeof(double) : sizeof(mdl_real));
}

/* Direct writes: each refresh stage's arrivals laid out in this rank's mailbox, and the senders
   told where (the host talks to the neighbors while the device sorts). */
static int publish_places(gpu_ctx *c)
{
    gpu_halo *h = c->halo;
    const mdl_domain *dm = &h->dm;
    if (!h->peers)
        return MDL_OK;
    peer_stage st[PEER_STAGES];
    int n = 0;
    for (int k = 0; k < dm->nswap && n < PEER_STAGES; k += 2, n++)
        st[n] = (peer_stage){{dm->swap[k].to, dm->swap[k + 1].to}, {dm->swap[k].from, dm->swap[k + 1].from},
                             {h->swap[k].nrecv, h->swap[k + 1].nrecv}, refresh_bytes(dm, k)};
    return peers_publish(h->peers, st, n);
}

int halo_rebuild(gpu_ctx *c)
{
    gpu_halo *h = c->halo;
    size_t slots = c->n, left = 0, nall = 0;
    MDL_TRY(gpu_trim_atoms(c));
    timeline_mark(h->timeline, "rebuild begins");
    MDL_TRY(count_exchanges(h, 4));
    TRY(gpu_event_record(h->ev[4], NULL));
    TRY(gpu_memset(c->gone, 0, c->n * sizeof(int)));
    TRY(gpu_wrap_and_pack(c->n, c->box, c->x, c->y, c->z, c->ix, c->iy, c->iz, c->type, c->pos4, NULL));
    timeline_mark(h->timeline, "wrapped");
    MDL_TRY(migrate(c, &slots, &left));
    MDL_TRY(build_ghosts(c, slots, &nall));
    TRY(gpu_event_record(h->ev[5], NULL));
    h->timing |= h->started ? 4 : 0; /* the loop's (the set-up's includes NCCL's connections) */
    MDL_TRY(sort_with_ghosts(c, slots, left, nall));
    return publish_places(c);
}

/* ---- every step ------------------------------------------------------------------------------- */

/* Refresh stage k (both ways) through messages (NCCL or the host); with *decision (NCCL, the first
   stage of a check) the ranks' maximum of the wish packing sets goes with them. */
static int refresh_by_messages(gpu_ctx *c, int k, int **decision)
{
    gpu_halo *h = c->halo;
    const mdl_domain *dm = &h->dm;
    const halo_swap *hs = &h->swap[k];
    const size_t bytes = refresh_bytes(dm, k);
    const double shift[2] = {dm->swap[k].shift, dm->swap[k + 1].shift};
    MDL_TRY(reserve_messages(h, (hs[0].nsend + hs[1].nsend) * bytes, (hs[0].nrecv + hs[1].nrecv) * bytes));
    halo_msg m[2];
    for (int w = 0; w < 2; w++)
        m[w] = (halo_msg){w ? hs[0].nsend * bytes : 0, hs[w].nsend * bytes, dm->swap[k + w].to,
                          w ? hs[0].nrecv * bytes : 0, hs[w].nrecv * bytes, dm->swap[k + w].from};
    void *dest[2] = {h->out, h->out + m[1].out_at};
    TRY(gpu_pack_positions(hs[0].nsend, hs[1].nsend, h->sendlist + hs[0].send_at, c->x, c->y, c->z,
                           dm->swap[k].dim, shift, dest, bytes == 3 * sizeof(double), *decision ? c->nbs : NULL,
                           c->flags, NULL, NULL));
    timeline_mark(h->timeline, "positions packed");
    MDL_TRY(send_messages(h, m, 2, decision));
    timeline_mark(h->timeline, "positions sent");
    TRY(gpu_unpack_positions(hs[0].nrecv + hs[1].nrecv, h->in, c->inv + h->ghost_base + hs[0].first, c->x, c->y,
                             c->z, c->pos4, bytes == 3 * sizeof(double), NULL, NULL, NULL));
    timeline_mark(h->timeline, "ghosts refreshed");
    return MDL_OK;
}

/* Refresh stage k (both ways) written straight into the receivers' mailboxes (peer.c), unpacked
   once this rank's senders have told it; with `vote` (the first stage of a check) the ranks'
   decision is taken as a vote on the wish packing sets. */
static int refresh_direct(gpu_ctx *c, int k, const gpu_peer_vote *vote)
{
    gpu_halo *h = c->halo;
    const mdl_domain *dm = &h->dm;
    const halo_swap *hs = &h->swap[k];
    const int wide = refresh_bytes(dm, k) == 3 * sizeof(double);
    const double shift[2] = {dm->swap[k].shift, dm->swap[k + 1].shift};
    void *dest[2];
    const void *arrivals;
    gpu_peer_out out;
    gpu_peer_in in;
    peers_stage(h->peers, k / 2, dest, &arrivals, &out, &in);
    TRY(gpu_pack_positions(hs[0].nsend, hs[1].nsend, h->sendlist + hs[0].send_at, c->x, c->y, c->z,
                           dm->swap[k].dim, shift, dest, wide, vote ? c->nbs : NULL, c->flags, &out, vote));
    timeline_mark(h->timeline, "positions written");
    TRY(gpu_unpack_positions(hs[0].nrecv + hs[1].nrecv, arrivals, c->inv + h->ghost_base + hs[0].first, c->x, c->y,
                             c->z, c->pos4, wide, &in, vote, c->nbs));
    timeline_mark(h->timeline, "ghosts refreshed");
    return MDL_OK;
}

/* The ghosts' positions from their owners, through the last build's lists, queued on the stream:
   reals into pos4 (doubles, into x y z too, for the ghosts a later stage forwards); timed by the
   pair of events not used last time. With `agree` the ranks' skin decision and longest asked-for
   row travel with the first stage: each rank's wish and row into the device's halt and need
   words, their maxima in place (NCCL's all-reduce, or the ranks' vote), then a copy for the host
   (halo_confirm). */
static int refresh_ghosts(gpu_ctx *c, int agree)
{
    gpu_halo *h = c->halo;
    const mdl_domain *dm = &h->dm;
    const int pair = h->parity ^= 1;
    int *decision = agree ? &c->nbs->halt : NULL;
    gpu_peer_vote vote;
    if (h->peers) {
        peers_next_refresh(h->peers);
        if (agree)
            peers_vote(h->peers, &vote);
    }
    MDL_TRY(count_exchanges(h, 1 << pair)); /* two refreshes ago: long done */
    TRY(gpu_event_record(h->ev[2 * pair], NULL));
    timeline_refresh_begin(h->timeline);
    for (int k = 0; k < dm->nswap; k += 2) { /* both ways of a stage in one kernel: their lists are adjacent */
        if (!h->peers) {
            MDL_TRY(refresh_by_messages(c, k, &decision));
            continue;
        }
        MDL_TRY(refresh_direct(c, k, decision ? &vote : NULL));
        decision = NULL;
    }
    if (decision) { /* no swaps: one brick (not with several ranks) */
        mdl_error("internal: rank %d has no neighbor to agree with", dm->rank);
        return MDL_ERUN;
    }
    if (agree) {
        TRY(gpu_copy_async(h->flags_host, &c->nbs->halt, 2 * sizeof(int), NULL));
        TRY(gpu_event_record(h->flags_ready, NULL));
        timeline_decision_queued(h->timeline);
    }
    TRY(gpu_event_record(h->ev[2 * pair + 1], NULL));
    timeline_refresh_end(h->timeline);
    h->timing |= h->started ? 1 << pair : 0;
    return MDL_OK;
}

/* A rebuild the ranks agreed on at `step`. Staged, the host waits for the list's longest row and
   grows the list before the step; with NCCL the build is only queued, its row length is agreed at
   the next check (halo_confirm) and a list found short is grown before the step after that, as on
   one GPU (the force kernel covers rows past the capacity meanwhile). */
static int rebuild_at(gpu_ctx *c, long step)
{
    gpu_halo *h = c->halo;
    h->builds++;
    h->dangerous += h->since == c->check;
    h->last_build = step;
    h->since = 0;
    if (!h->nccl)
        return gpu_build_neighbors(c);
    MDL_TRY(gpu_queue_build(c));
    timeline_mark(h->timeline, "list built");
    return gpu_memset(&c->nbs->halt, 0, sizeof(int)) ? MDL_ERUN : MDL_OK;
}

/* Every `check` steps since the last build all ranks take the worst of their skin tests: past the
   skin (unsafe: the run stops), past half of it (a rebuild), else nothing. With NCCL the maximum
   is taken on the device, where it stops the step's kernels, and the host goes on queueing the
   step (halo_confirm reads the decision after that). Staged, the host waits for the flags (the
   ghosts' refresh queued first, so that the device has it to do meanwhile; a rebuild makes it
   moot), takes the maximum through MPI and rebuilds before the step. */
int halo_update(gpu_ctx *c, long step)
{
    gpu_halo *h = c->halo;
    if (!h->started) /* the set-up's build was the step before */
        h->started = 1, h->last_build = step - 1;
    if (h->unsafe_step >= 0 || ++h->since % c->check != 0)
        return refresh_ghosts(c, 0);
    if (h->nccl) {
        h->pending = step;
        return refresh_ghosts(c, 1);
    }
    TRY(gpu_copy_async(h->flags_host, c->nbs, 3 * sizeof(int), NULL)); /* gpu_nb_state's far, since, unsafe */
    TRY(gpu_event_record(h->flags_ready, NULL));
    MDL_TRY(refresh_ghosts(c, 0));
    TRY(gpu_event_sync(h->flags_ready));
    long worst = h->flags_host[2] ? 2 : h->flags_host[0];
    MDL_TRY(comm_max_long(&worst));
    if (worst == 2)
        h->unsafe_step = step;
    return worst == 1 ? rebuild_at(c, step) : MDL_OK;
}

/* At the end of a step queued before the ranks' decision was known (NCCL): the host waits for it
   (the device meanwhile runs the step). A rebuild: the step's kernels did nothing; the list is
   built and *redo asks the caller to queue the step's calls again. A longest row past the list's
   capacity (any rank's last build) goes into report[1], as the one-GPU graph reports it. */
int halo_confirm(gpu_ctx *c, int *redo)
{
    gpu_halo *h = c->halo;
    long step = h->pending;
    *redo = 0;
    if (step < 0) {
        timeline_mark(h->timeline, "step made again");
        timeline_finish(h->timeline);
        return MDL_OK;
    }
    h->pending = -1;
    TRY(gpu_event_sync(h->flags_ready));
    int agreed = h->flags_host[0], need = h->flags_host[1]; /* the same numbers on every rank */
    timeline_decision_read(h->timeline, agreed == 1);
    if (need > c->report[1]) /* gpu_begin_step grows the list before the next step, on every rank */
        c->report[1] = need;
    if (agreed == 2)
        h->unsafe_step = step;
    if (agreed != 1)
        return MDL_OK;
    *redo = 1;
    return rebuild_at(c, step);
}

/* The ghosts' cell bounds follow the atoms'; along a decomposed dimension the cells that hold no
   ghost are those wholly inside the brick, less one on each side for rounding (a ghost's cell is
   found from its float position); along the others every cell (and the wrapped ones) is free. */
void halo_ghost_cells(const gpu_ctx *c, gpu_ghost_cells *g)
{
    const mdl_domain *dm = &c->halo->dm;
    const size_t ncells = (size_t)c->nc[0] * c->nc[1] * c->nc[2];
    g->start = c->cell_start + ncells, g->end = c->cell_end + ncells;
    for (int d = 0; d < 3; d++) {
        g->lo[d] = -1, g->hi[d] = c->nc[d];
        if (dm->grid[d] == 1)
            continue;
        double w = c->region.len[d] / c->nc[d];
        g->lo[d] = (int)floor((dm->lo[d] - c->region.lo[d]) / w) + 2;
        g->hi[d] = (int)floor((dm->hi[d] - c->region.lo[d]) / w) - 2;
    }
}

int halo_health(const gpu_ctx *c, long *unsafe_step)
{
    *unsafe_step = c->halo->unsafe_step;
    return MDL_OK;
}

void halo_stats(const gpu_ctx *c, mdl_backend_stats *out)
{
    gpu_halo *h = c->halo;
    count_exchanges(h, 7);
    out->builds = h->builds + c->extra_builds;
    out->dangerous = h->dangerous;
    out->last_build = h->last_build;
    out->comm_seconds = h->comm_seconds;
    out->owned = c->n;
    out->ghosts = c->nall - c->n;
    out->exchange = h->peers ? "NCCL, device to device; each step's ghosts by direct writes"
                    : h->nccl ? "NCCL, device to device"
                              : "MPI, staged through host memory";
}

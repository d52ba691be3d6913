/* The GPU backend on several ranks, its base: this rank's brick (domain.c's grid and swaps), the
   choice of transport -- NCCL on the compute stream (each rank its own GPU; on one node each
   step's refresh written straight into the other GPUs' memory instead, peer.c) or staged through
   pinned host memory and MPI -- the messages themselves, and the statistics. A rebuild's
   migration and ghosts are migrate.c's, each step's refresh and shared skin decision refresh.c's. */
#define _POSIX_C_SOURCE 200809L /* gethostname */

#include "halo.h"

#include "../parallel/comm.h"
#include "../util/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

gpu_atom_arrays halo_atoms_of(gpu_ctx *c, int with_forces)
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

int halo_reserve_swaps(gpu_halo *h)
{
    if (h->dm.nswap <= h->swap_cap)
        return MDL_OK;
    halo_swap *p = realloc(h->swap, (size_t)h->dm.nswap * sizeof *p);
    if (!p) {
        mdl_error("out of memory for %d ghost exchanges", h->dm.nswap);
        return MDL_ERUN;
    }
    memset(p + h->swap_cap, 0, (size_t)(h->dm.nswap - h->swap_cap) * sizeof *p);
    h->swap = p, h->swap_cap = h->dm.nswap;
    return MDL_OK;
}

int halo_direct(const gpu_halo *h)
{
    return h->peers && h->dm.nswap <= 2 * PEER_STAGES;
}

int halo_reserve_messages(gpu_halo *h, size_t out, size_t in)
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
int halo_send_messages(gpu_halo *h, const halo_msg *m, int nm, int **agree)
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
void *halo_parcel_out(gpu_halo *h, halo_msg *m, int w, gpu_peer_out *out)
{
    void *dest = h->out + m->out_at;
    *out = (gpu_peer_out){0};
    if (h->peers && peers_parcel_out(h->peers, m->to, w, m->out_bytes, &dest, out))
        m->out_bytes = 0;
    return dest;
}

/* The receiving side of parcel_out for each way (the same answers), before the messages go:
   where each arrives, and the words to wait for (none for a message). */
void halo_parcels_in(gpu_halo *h, halo_msg *m, int ways, const void *src[2], gpu_peer_in wait[2])
{
    for (int w = 0; w < ways; w++) {
        src[w] = h->in + m[w].in_at;
        wait[w] = (gpu_peer_in){0};
        if (h->peers && peers_parcel_in(h->peers, w, m[w].in_bytes, &src[w], &wait[w]))
            m[w].in_bytes = 0;
    }
}

/* The exchanges' intervals of the pairs in `pairs` (bit k: ev[2k], ev[2k + 1]) not yet counted;
   the host waits for their ends. */
int halo_count_exchanges(gpu_halo *h, int pairs)
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

/* Bytes of one ghost's position in stage k's refresh: doubles for the ghosts that later stages
   forward, else reals. */
size_t halo_refresh_bytes(const mdl_domain *dm, int k)
{
    return 3 * (k + 2 < dm->nswap ? sizeof(double) : sizeof(mdl_real));
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
#ifndef MDLITE_GPU_DOUBLE
    if (all->box.dim == 2) { /* tests/e2e/gpu.py dim2: 9 atoms in a 3.3 box, step-0 forces 5.7e-2 off (H200) */
        mdl_error("[run] backend = gpu: a 2-d box with ghosts (an edge under twice the list cutoff, or GPU ranks): the mixed-precision GPU "
                  "backend's forces there are not the CPU's; run it on the CPU backend or a double-precision build");
        return MDL_EINPUT;
    }
#endif
    gpu_halo *h = calloc(1, sizeof *h);
    if (!h) {
        mdl_error("out of memory for the decomposition");
        return MDL_ERUN;
    }
    c->halo = h;
    h->unsafe_step = h->pending = -1;
    const int one[3] = {1, 1, 1}; /* grid 0 0 0: one brick */
    MDL_TRY(domain_init(&h->dm, &all->box, setup->grid[0] > 0 ? setup->grid : one,
                        setup->rghost > c->rlist ? setup->rghost : c->rlist, 1));
    MDL_TRY(halo_reserve_swaps(h));
    h->self = h->dm.size == 1;
    c->dm = &h->dm;
    domain_cell_grid(c->dm, c->rlist, all->n, &c->region, c->nc); /* the region, for halo_capacity */
    for (int d = 0; d < 3; d++)
        h->brick[d] = (gpu_brick){all->box.lo[d], all->box.len[d], h->dm.grid[d], h->dm.coord[d]};
    MDL_TRY(system_init(mine, 16));
    MDL_TRY(domain_take_owned(&h->dm, all, NULL, mine));
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
    return h->self ? MDL_OK : choose_transport(h, setup->comm); /* one rank: [run] gpu_comm has nothing to choose */
}

const char *halo_set_box(gpu_ctx *c, const mdl_box *b)
{
    gpu_halo *h = c->halo;
    for (int d = 0; d < 3; d++)
        h->brick[d].box_lo = b->lo[d], h->brick[d].box_len = b->len[d];
    return domain_set_box(&h->dm, b);
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
    gpu_free(h->along);
    gpu_free(h->chain);
    gpu_free(h->link);
    free(h->swap);
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
    c->dm = NULL;
}

int halo_health(const gpu_ctx *c, long *unsafe_step)
{
    *unsafe_step = c->halo->unsafe_step;
    return MDL_OK;
}

void halo_stats(const gpu_ctx *c, mdl_backend_stats *out)
{
    gpu_halo *h = c->halo;
    halo_count_exchanges(h, 7);
    out->builds = h->builds + c->extra_builds;
    out->dangerous = h->dangerous;
    out->last_build = h->last_build;
    out->comm_seconds = h->comm_seconds;
    out->owned = c->n;
    out->ghosts = c->nall - c->n;
    out->exchange = h->self  ? "one rank: the box's periodic images as ghosts, copied on the device"
                    : h->peers ? "NCCL, device to device; each step's ghosts by direct writes"
                    : h->nccl ? "NCCL, device to device"
                              : "MPI, staged through host memory";
}

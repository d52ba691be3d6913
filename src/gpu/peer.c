/* Direct writes between the ranks of one node (peer.h): the control words and mailboxes each rank
   exports through CUDA IPC, the layout a rebuild gives a mailbox, and the arguments a refresh's
   kernels get from them. */
#define _POSIX_C_SOURCE 200809L /* gethostname */

#include "peer.h"

#include "../parallel/comm.h"
#include "../util/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A rank's control words (device memory, mapped by the others): word 2k + w is set to a refresh's
   number once way w of stage k has been written into its mailbox, word PARCEL_READY + w to a
   rebuild round's once way w's parcel has; the ticket counts a packing launch's finished blocks
   (this rank's own); the ballot box holds 2 rounds x nranks ballots. */
enum { PARCEL_READY = 2 * PEER_STAGES, TICKET_AT = 64, BOX_AT = 128, MAILBOX_ALIGN = 256 };
_Static_assert((PARCEL_READY + 2) * 8 <= TICKET_AT && TICKET_AT + 4 <= BOX_AT, "control words overlap");

/* A mailbox: two halves for refreshes (alternately), then a rebuild's parcels, one area per way. */
typedef struct {
    gpu_ipc_handle handle; /* the receiver's mailbox */
    long generation;       /* its allocation's number (0: none yet) */
    size_t half, at;       /* bytes of one refresh half; this way of this stage's offset in each */
    size_t parcel_way;     /* bytes of one way's parcel area (after the two halves) */
} peer_place;

struct gpu_peers {
    int rank, nranks;
    char *ctl;                  /* this rank's control words */
    char **ctl_of;              /* every rank's, as this rank addresses them (own: ctl) */
    unsigned long long **boxes; /* device: every rank's ballot box */
    char *mailbox;              /* this rank's (peer_place's layout) */
    gpu_ipc_handle mailbox_handle;
    size_t half, stage_at[PEER_STAGES], parcel_way;
    size_t parcel_need;         /* the largest parcel a rebuild could not take: room at the next publish */
    long generation;
    void **retired;             /* earlier mailboxes, which senders may still map: freed at the end */
    int nretired;
    char **mapped;              /* each rank's mailbox as mapped here (NULL: not yet) */
    long *mapped_generation;
    size_t *parcel_at, *parcel_room; /* each receiver's parcel areas: offset, bytes per way (0: none) */
    struct {
        int rank;
        size_t half, at;
    } dest[PEER_STAGES][2];
    size_t nrecv[PEER_STAGES][2];
    int nstages;
    unsigned long long seq, parcel_seq;
    unsigned round;
};

static uint64_t node_key(void)
{
    char name[256] = "";
    gethostname(name, sizeof name - 1);
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

/* Collective: every rank on this node, else the reason in *why. */
static int same_node(int nranks, const char **why)
{
    uint64_t mine = node_key(), *all = malloc((size_t)nranks * sizeof *all);
    if (!all) {
        mdl_error("out of memory for the ranks' node names");
        return MDL_ERUN;
    }
    int rc = comm_allgather_bytes(&mine, sizeof mine, all);
    for (int r = 0; rc == MDL_OK && r < nranks; r++)
        if (all[r] != mine && !**why)
            *why = "the ranks are on several nodes";
    free(all);
    return rc;
}

/* Collective: this rank's control words exported, every other rank's mapped (unless *why already
   says why not; the first failure's reason into it). */
static int map_controls(gpu_peers *p, const char **why)
{
    gpu_ipc_handle mine = {{0}}, *all = malloc((size_t)p->nranks * sizeof *all);
    if (!all) {
        mdl_error("out of memory for the ranks' memory handles");
        return MDL_ERUN;
    }
    if (!**why && gpu_ipc_export(p->ctl, &mine))
        *why = "this rank's memory cannot be exported";
    int rc = comm_allgather_bytes(&mine, sizeof mine, all);
    for (int r = 0; rc == MDL_OK && r < p->nranks && !**why; r++)
        if (r != p->rank)
            gpu_ipc_open(&all[r], (void **)&p->ctl_of[r], why);
    free(all);
    return rc;
}

static int ballot_boxes(gpu_peers *p)
{
    unsigned long long **host = malloc((size_t)p->nranks * sizeof *host);
    if (!host) {
        mdl_error("out of memory for the ranks' ballot boxes");
        return MDL_ERUN;
    }
    for (int r = 0; r < p->nranks; r++)
        host[r] = (unsigned long long *)(p->ctl_of[r] + BOX_AT);
    int bad = gpu_malloc((void **)&p->boxes, (size_t)p->nranks * sizeof *host, "the ranks' ballot boxes") ||
              gpu_h2d(p->boxes, host, (size_t)p->nranks * sizeof *host);
    free(host);
    return bad ? MDL_ERUN : MDL_OK;
}

int peers_create(gpu_peers **out, int rank, int nranks, int required)
{
    gpu_peers *p = calloc(1, sizeof *p);
    *out = NULL;
    if (!p || !(p->ctl_of = calloc((size_t)nranks, sizeof *p->ctl_of)) ||
        !(p->mapped = calloc((size_t)nranks, sizeof *p->mapped)) ||
        !(p->mapped_generation = calloc((size_t)nranks, sizeof *p->mapped_generation)) ||
        !(p->parcel_at = calloc((size_t)nranks, sizeof *p->parcel_at)) ||
        !(p->parcel_room = calloc((size_t)nranks, sizeof *p->parcel_room))) {
        peers_destroy(p);
        mdl_error("out of memory for the ranks' direct writes");
        return MDL_ERUN;
    }
    p->rank = rank, p->nranks = nranks;
    const size_t bytes = BOX_AT + 2 * (size_t)nranks * sizeof(unsigned long long);
    const char *why = gpu_malloc((void **)&p->ctl, bytes, "the ranks' control words") ||
                              gpu_memset(p->ctl, 0, bytes) || gpu_synchronize()
                          ? "no device memory for the control words"
                          : "";
    p->ctl_of[rank] = p->ctl;
    int rc = same_node(nranks, &why);
    if (rc == MDL_OK)
        rc = map_controls(p, &why);
    if (rc == MDL_OK && !*why)
        rc = ballot_boxes(p);
    long failed = rc != MDL_OK ? 2 : *why ? 1 : 0;
    if (comm_max_long(&failed) != MDL_OK)
        failed = 2;
    if (failed == 0) {
        *out = p;
        return MDL_OK;
    }
    peers_destroy(p);
    if (failed == 2 || !required)
        return failed == 2 ? MDL_ERUN : MDL_OK;
    mdl_error("[run] gpu_comm = direct: %s", *why ? why : "another rank cannot map this one's memory");
    return MDL_EINPUT;
}

void peers_destroy(gpu_peers *p)
{
    if (!p)
        return;
    for (int r = 0; p->ctl_of && r < p->nranks; r++) {
        if (r != p->rank)
            gpu_ipc_close(p->ctl_of[r]);
        if (p->mapped)
            gpu_ipc_close(p->mapped[r]);
    }
    for (int k = 0; k < p->nretired; k++)
        gpu_free(p->retired[k]);
    gpu_free(p->mailbox);
    gpu_free(p->boxes);
    gpu_free(p->ctl);
    free(p->retired);
    free(p->ctl_of);
    free(p->mapped);
    free(p->mapped_generation);
    free(p->parcel_at);
    free(p->parcel_room);
    free(p);
}

static size_t roomy(size_t bytes)
{
    return (bytes + bytes / 2 + 65536 + MAILBOX_ALIGN - 1) / MAILBOX_ALIGN * MAILBOX_ALIGN;
}

/* Room for `half` bytes in each refresh half and `way` in each parcel area; the mailbox it
   replaces is kept (senders may map it). */
static int reserve_mailbox(gpu_peers *p, size_t half, size_t way)
{
    if (half <= p->half && way <= p->parcel_way)
        return MDL_OK;
    void **r = realloc(p->retired, (size_t)(p->nretired + 1) * sizeof *r);
    if (!r) {
        mdl_error("out of memory for the ranks' direct writes");
        return MDL_ERUN;
    }
    p->retired = r;
    if (p->mailbox)
        p->retired[p->nretired++] = p->mailbox;
    p->mailbox = NULL;
    p->half = half > p->half ? roomy(half) : p->half;
    p->parcel_way = way > p->parcel_way ? roomy(way) : p->parcel_way;
    p->generation++;
    if (gpu_malloc((void **)&p->mailbox, 2 * p->half + 2 * p->parcel_way, "messages from other ranks") ||
        gpu_ipc_export(p->mailbox, &p->mailbox_handle))
        return MDL_ERUN;
    return MDL_OK;
}

/* Rank r's mailbox of this generation, mapped here. */
static int map_mailbox(gpu_peers *p, int r, const peer_place *at)
{
    if (p->mapped_generation[r] == at->generation)
        return MDL_OK;
    gpu_ipc_close(p->mapped[r]);
    const char *why = "";
    if (gpu_ipc_open(&at->handle, (void **)&p->mapped[r], &why)) {
        mdl_error("rank %d cannot map rank %d's mailbox: %s", p->rank, r, why);
        return MDL_ERUN;
    }
    p->mapped_generation[r] = at->generation;
    return MDL_OK;
}

int peers_publish(gpu_peers *p, const peer_stage *st, int nstages)
{
    size_t need = 0;
    for (int k = 0; k < nstages; k++) {
        p->stage_at[k] = need;
        need += ((st[k].nrecv[0] + st[k].nrecv[1]) * st[k].bytes + MAILBOX_ALIGN - 1) / MAILBOX_ALIGN * MAILBOX_ALIGN;
    }
    MDL_TRY(reserve_mailbox(p, need, p->parcel_need));
    p->parcel_need = 0;
    peer_place mine = {.handle = p->mailbox_handle, .generation = p->generation, .half = p->half,
                       .parcel_way = p->parcel_way};
    p->nstages = nstages;
    for (int k = 0; k < nstages; k++)
        for (int w = 0; w < 2; w++) {
            peer_place theirs;
            size_t got = 0;
            mine.at = p->stage_at[k] + (w ? st[k].nrecv[0] * st[k].bytes : 0);
            MDL_TRY(comm_exchange(&mine, sizeof mine, st[k].from[w], &theirs, sizeof theirs, st[k].to[w], &got));
            if (got != sizeof theirs) {
                mdl_error("internal: rank %d got %zu bytes of a mailbox's place from rank %d", p->rank, got,
                          st[k].to[w]);
                return MDL_ERUN;
            }
            MDL_TRY(map_mailbox(p, st[k].to[w], &theirs));
            p->parcel_at[st[k].to[w]] = 2 * theirs.half, p->parcel_room[st[k].to[w]] = theirs.parcel_way;
            p->dest[k][w].rank = st[k].to[w], p->dest[k][w].half = theirs.half, p->dest[k][w].at = theirs.at;
            p->nrecv[k][w] = st[k].nrecv[w];
        }
    return MDL_OK;
}

void peers_next_refresh(gpu_peers *p)
{
    p->seq++;
}

void peers_stage(const gpu_peers *p, int k, void *dest[2], const void **arrivals, gpu_peer_out *out,
                 gpu_peer_in *in)
{
    const size_t parity = p->seq & 1;
    *out = (gpu_peer_out){.ticket = (unsigned *)(p->ctl + TICKET_AT), .seq = p->seq};
    *in = (gpu_peer_in){.seq = p->seq};
    for (int w = 0; w < 2; w++) {
        const int r = p->dest[k][w].rank;
        dest[w] = p->mapped[r] + parity * p->dest[k][w].half + p->dest[k][w].at;
        out->ready[w] = (unsigned long long *)p->ctl_of[r] + 2 * k + w;
        in->ready[w] = p->nrecv[k][w] ? (const unsigned long long *)p->ctl + 2 * k + w : NULL;
    }
    *arrivals = p->mailbox + parity * p->half + p->stage_at[k];
}

void peers_vote(gpu_peers *p, gpu_peer_vote *v)
{
    *v = (gpu_peer_vote){.box = p->boxes, .mine = (unsigned long long *)(p->ctl + BOX_AT), .rank = p->rank,
                         .nranks = p->nranks, .round = ++p->round};
}

void peers_next_round(gpu_peers *p)
{
    p->parcel_seq++;
}

int peers_parcel_out(const gpu_peers *p, int r, int w, size_t bytes, void **dest, gpu_peer_out *out)
{
    if (bytes == 0 || bytes > p->parcel_room[r])
        return 0;
    *dest = p->mapped[r] + p->parcel_at[r] + (size_t)w * p->parcel_room[r];
    *out = (gpu_peer_out){.ready = {(unsigned long long *)p->ctl_of[r] + PARCEL_READY + w, NULL},
                          .ticket = (unsigned *)(p->ctl + TICKET_AT), .seq = p->parcel_seq};
    return 1;
}

int peers_parcel_in(gpu_peers *p, int w, size_t bytes, const void **src, gpu_peer_in *in)
{
    if (bytes == 0)
        return 0;
    if (bytes > p->parcel_way) {
        p->parcel_need = bytes > p->parcel_need ? bytes : p->parcel_need;
        return 0;
    }
    *src = p->mailbox + 2 * p->half + (size_t)w * p->parcel_way;
    *in = (gpu_peer_in){.ready = {(const unsigned long long *)p->ctl + PARCEL_READY + w, NULL},
                        .seq = p->parcel_seq};
    return 1;
}

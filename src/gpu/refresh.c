/* Every step on several GPU ranks (or on one with periodic images as ghosts): the ghosts'
   positions refreshed from their owners (messages, direct writes on one node, or one rank's single
   pass), and at each check the ranks' shared skin decision: with NCCL (or one rank) a maximum on
   the stream that the step's kernels obey (the host learns it a step later and has the step made
   again after a rebuild), staged through the host, which waits for it. */
#include "halo.h"

#include "../parallel/comm.h"
#include "../physics/rebuild.h"
#include "../util/util.h"

#include <stdlib.h>
#include <string.h>

/* Stage k's two shifts (domain_swap_shift), for the box as it is. */
static void stage_shifts(const mdl_domain *dm, int k, double shift[2][3])
{
    domain_swap_shift(dm, &dm->swap[k], shift[0]);
    domain_swap_shift(dm, &dm->swap[k + 1], shift[1]);
}

/* Refresh stage k (both ways) through messages (NCCL or the host); with *decision (NCCL, the first
   stage of a check) the ranks' maximum of the wish packing sets goes with them. */
static int refresh_by_messages(gpu_ctx *c, int k, int **decision)
{
    gpu_halo *h = c->halo;
    const mdl_domain *dm = &h->dm;
    const halo_swap *hs = &h->swap[k];
    const size_t bytes = halo_refresh_bytes(dm, k);
    double shift[2][3];
    stage_shifts(dm, k, shift);
    MDL_TRY(halo_reserve_messages(h, (hs[0].nsend + hs[1].nsend) * bytes, (hs[0].nrecv + hs[1].nrecv) * bytes));
    halo_msg m[2];
    for (int w = 0; w < 2; w++)
        m[w] = (halo_msg){w ? hs[0].nsend * bytes : 0, hs[w].nsend * bytes, dm->swap[k + w].to,
                          w ? hs[0].nrecv * bytes : 0, hs[w].nrecv * bytes, dm->swap[k + w].from};
    void *dest[2] = {h->out, h->out + m[1].out_at};
    TRY(gpu_pack_positions(hs[0].nsend, hs[1].nsend, h->sendlist + hs[0].send_at, c->x, c->y, c->z, shift, dest,
                           bytes == 3 * sizeof(double), *decision ? c->nbs : NULL, c->flags, NULL, NULL));
    timeline_mark(h->timeline, "positions packed");
    MDL_TRY(halo_send_messages(h, m, 2, decision));
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
    const int wide = halo_refresh_bytes(dm, k) == 3 * sizeof(double);
    double shift[2][3];
    stage_shifts(dm, k, shift);
    void *dest[2];
    const void *arrivals;
    gpu_peer_out out;
    gpu_peer_in in;
    peers_stage(h->peers, k / 2, dest, &arrivals, &out, &in);
    TRY(gpu_pack_positions(hs[0].nsend, hs[1].nsend, h->sendlist + hs[0].send_at, c->x, c->y, c->z, shift, dest,
                           wide, vote ? c->nbs : NULL, c->flags, &out, vote));
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
    const int direct = halo_direct(h);
    gpu_peer_vote vote;
    if (direct) {
        peers_next_refresh(h->peers);
        if (agree)
            peers_vote(h->peers, &vote);
    }
    MDL_TRY(halo_count_exchanges(h, 1 << pair)); /* two refreshes ago: long done */
    TRY(gpu_event_record(h->ev[2 * pair], NULL));
    timeline_refresh_begin(h->timeline);
    if (h->self) { /* one rank: every ghost from its root in one pass, its own wish the decision */
        TRY(gpu_self_refresh(h->nghost, c->n, h->link, dm->box, c->x, c->y, c->z, c->pos4,
                             decision ? c->nbs : NULL, c->flags));
        decision = NULL;
    }
    for (int k = 0; k < dm->nswap && !h->self; k += 2) { /* both ways of a stage in one kernel */
        if (!direct) {
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

/* One real per ghost from its owner (EAM's F'(rho) after the density pass), stage by stage through
   the last build's lists as the positions go, as messages (NCCL on the stream, or staged): the
   ghosts a later stage forwards have theirs by then. */
int halo_forward_values(gpu_ctx *c, mdl_real *v)
{
    gpu_halo *h = c->halo;
    const mdl_domain *dm = &h->dm;
    const size_t b = sizeof(mdl_real);
    if (h->self)
        return gpu_self_values(h->nghost, c->n, h->link, v) ? MDL_ERUN : MDL_OK;
    for (int k = 0; k < dm->nswap; k += 2) { /* both ways of a stage: their lists are adjacent */
        const halo_swap *hs = &h->swap[k];
        MDL_TRY(halo_reserve_messages(h, (hs[0].nsend + hs[1].nsend) * b, (hs[0].nrecv + hs[1].nrecv) * b));
        halo_msg m[2];
        for (int w = 0; w < 2; w++)
            m[w] = (halo_msg){w ? hs[0].nsend * b : 0, hs[w].nsend * b, dm->swap[k + w].to,
                              w ? hs[0].nrecv * b : 0, hs[w].nrecv * b, dm->swap[k + w].from};
        TRY(gpu_gather_values(hs[0].nsend + hs[1].nsend, h->sendlist + hs[0].send_at, v, (mdl_real *)h->out));
        MDL_TRY(halo_send_messages(h, m, 2, NULL));
        TRY(gpu_scatter_values(hs[0].nrecv + hs[1].nrecv, (const mdl_real *)h->in,
                               c->inv + h->ghost_base + hs[0].first, v));
    }
    return MDL_OK;
}

/* A rebuild the ranks agreed on at `step`, counted; the caller (rebuild.c) makes it. Staged, the
   host waits for the list's longest row and grows the list before the step; with NCCL the build is
   only queued (then halo_build_queued), its row length is agreed at the next check (halo_confirm)
   and a list found short is grown before the step after that, as on one GPU (the force kernel
   covers rows past the capacity meanwhile). */
static void count_build(gpu_ctx *c, long step)
{
    gpu_halo *h = c->halo;
    h->builds++;
    h->dangerous += c->distance_check && rebuild_dangerous(h->since, c->check, c->delay);
    h->last_build = step;
    h->since = 0;
}

int halo_build_waits(const gpu_ctx *c)
{
    return !c->halo->nccl && !c->halo->self;
}

int halo_build_queued(gpu_ctx *c)
{
    timeline_mark(c->halo->timeline, "list built");
    return gpu_memset(&c->nbs->halt, 0, sizeof(int)) ? MDL_ERUN : MDL_OK;
}

/* Every `check` steps since the last build all ranks take the worst of their skin tests: past the
   skin (unsafe: the run stops), past half of it (a rebuild), else nothing. With NCCL the maximum
   is taken on the device, where it stops the step's kernels, and the host goes on queueing the
   step (halo_confirm reads the decision after that). Staged, the host waits for the flags (the
   ghosts' refresh queued first, so that the device has it to do meanwhile; a rebuild makes it
   moot), takes the maximum through MPI and asks for a rebuild (*rebuild) before the step. */
int halo_update(gpu_ctx *c, long step, int *rebuild)
{
    gpu_halo *h = c->halo;
    *rebuild = 0;
    if (!h->started) /* the set-up's build was the step before */
        h->started = 1, h->last_build = step - 1;
    if (h->unsafe_step >= 0 || !rebuild_due(++h->since, c->check, c->delay))
        return refresh_ghosts(c, 0);
    if (!c->distance_check) { /* every due step rebuilds, on every rank alike: nothing to agree on */
        timeline_decision_queued(h->timeline);
        timeline_decision_read(h->timeline, 1);
        count_build(c, step);
        *rebuild = 1;
        return MDL_OK;
    }
    if (h->nccl || h->self) {
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
    if (worst == 1)
        count_build(c, step), *rebuild = 1;
    return MDL_OK;
}

/* At the end of a step queued before the ranks' decision was known (NCCL): the host waits for it
   (the device meanwhile runs the step). A rebuild: the step's kernels did nothing; *redo asks the
   caller to rebuild and queue the step's calls again. A longest row past the list's
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
    count_build(c, step);
    return MDL_OK;
}

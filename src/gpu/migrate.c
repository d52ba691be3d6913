/* A rebuild on several GPU ranks, up to the list: the atoms wrapped, those that left the brick
   migrated (whole state) to the neighbor they entered, the ghosts selected and exchanged dimension
   by dimension, then owned atoms and ghosts sorted by cell; the host waits for the counts on the
   way. The list is then built by lists.c. */
#include "halo.h"

#include "../parallel/comm.h"
#include "../util/util.h"

#include <stdlib.h>
#include <string.h>

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
        MDL_TRY(halo_reserve_messages(h, (out[0] + out[1]) * bytes, (in[0] + in[1]) * bytes));
        halo_msg m[2];
        for (int w = 0; w < ways; w++) {
            m[w] = (halo_msg){w ? out[0] * bytes : 0, out[w] * bytes, to[w], w ? in[0] * bytes : 0, in[w] * bytes,
                              from[w]};
            gpu_peer_out tell;
            void *dest = halo_parcel_out(h, &m[w], w, &tell);
            TRY(gpu_pack_atoms(out[w], c->sel[w], halo_atoms_of(c, 1), dest, c->gone, &tell));
        }
        timeline_mark(h->timeline, "leavers packed");
        const void *src[2];
        gpu_peer_in wait[2];
        halo_parcels_in(h, m, ways, src, wait);
        MDL_TRY(halo_send_messages(h, m, ways, NULL));
        timeline_mark(h->timeline, "leavers sent");
        for (int w = 0; w < ways; w++) {
            TRY(gpu_unpack_atoms(in[w], src[w], halo_atoms_of(c, 1), *slots, c->gone, c->pos4, &wait[w]));
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
        MDL_TRY(halo_reserve_messages(h, (out[0] + out[1]) * bytes, (in[0] + in[1]) * bytes));
        MDL_TRY(reserve_sendlist(h, out[0] + out[1]));
        halo_msg m[2];
        for (int w = 0; w < 2; w++) {
            halo_swap *hs = &h->swap[k + w];
            m[w] = (halo_msg){w ? out[0] * bytes : 0, out[w] * bytes, to[w], w ? in[0] * bytes : 0, in[w] * bytes,
                              from[w]};
            gpu_peer_out tell;
            void *dest = halo_parcel_out(h, &m[w], w, &tell);
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
        halo_parcels_in(h, m, 2, src, wait);
        MDL_TRY(halo_send_messages(h, m, 2, NULL));
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
    TRY(gpu_permute_atoms(nall, c->perm_sorted, halo_atoms_of(c, c->forces_given), c->nl, c->pos4, NULL));
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
                             {h->swap[k].nrecv, h->swap[k + 1].nrecv}, halo_refresh_bytes(dm, k)};
    return peers_publish(h->peers, st, n);
}

int halo_rebuild(gpu_ctx *c)
{
    gpu_halo *h = c->halo;
    size_t slots = c->n, left = 0, nall = 0;
    MDL_TRY(gpu_trim_atoms(c));
    timeline_mark(h->timeline, "rebuild begins");
    MDL_TRY(halo_count_exchanges(h, 4));
    TRY(gpu_event_record(h->ev[4], NULL));
    TRY(gpu_memset(c->gone, 0, c->n * sizeof(int)));
    TRY(gpu_wrap_and_pack(c->n, c->box, NULL, c->x, c->y, c->z, c->ix, c->iy, c->iz, c->type, c->pos4, NULL));
    timeline_mark(h->timeline, "wrapped");
    MDL_TRY(migrate(c, &slots, &left));
    MDL_TRY(build_ghosts(c, slots, &nall));
    TRY(gpu_event_record(h->ev[5], NULL));
    h->timing |= h->started ? 4 : 0; /* the loop's (the set-up's includes NCCL's connections) */
    MDL_TRY(sort_with_ghosts(c, slots, left, nall));
    return publish_places(c);
}

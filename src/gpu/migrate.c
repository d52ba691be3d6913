/* A rebuild on several GPU ranks (or on one whose box needs periodic images), up to the list: the
   atoms wrapped, those that left the brick migrated (whole state) to the neighbor they entered,
   the ghosts selected and exchanged dimension by dimension and hop by hop, then owned atoms and
   ghosts sorted by cell; the host waits for the counts on the way. The list is then built by
   lists.c. */
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

/* The coordinates of the first n slots along the bricks' dimension d: x, y or z themselves in an
   orthogonal box, a triclinic box's (box_along) computed into h->along. */
static int along_bricks(gpu_ctx *c, size_t n, int d, const double **coord)
{
    gpu_halo *h = c->halo;
    *coord = d == 0 ? c->x : d == 1 ? c->y : c->z;
    if (!box_is_triclinic(&h->dm.box))
        return MDL_OK;
    if (c->cap > h->along_cap) {
        gpu_free(h->along);
        h->along = NULL;
        TRY(gpu_malloc((void **)&h->along, c->cap * sizeof(double), "coordinates along the bricks"));
        h->along_cap = c->cap;
    }
    TRY(gpu_along(n, h->dm.box, d, c->x, c->y, c->z, h->along));
    *coord = h->along;
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
        const double *coord;
        MDL_TRY(along_bricks(c, *slots, d, &coord));
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
    TRY(gpu_count_strays(*slots, dm->box, h->brick, c->x, c->y, c->z, c->gone, h->counts + 2));
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

/* Room for 4 ints per ghost in *p (what it held is dropped). */
static int reserve_ghost_ints(int **p, size_t *cap, size_t ghosts)
{
    if (ghosts <= *cap)
        return MDL_OK;
    const size_t want = ghosts + ghosts / 2 + 1024;
    gpu_free(*p);
    *p = NULL;
    TRY(gpu_malloc((void **)p, 4 * want * sizeof **p, "ghost links"));
    *cap = want;
    return MDL_OK;
}

/* Stage k's selections (swaps k, k + 1, both ways): on a dimension's first hop from the atoms and
   the ghosts of earlier dimensions (the slots below `before`), both lists in one pass where no
   candidate goes both ways; on a later hop each way from what the hop before it received that
   way (a brick shorter than the ghost cutoff passes it on); nall: the slots in use. */
static int select_stage(gpu_ctx *c, int k, size_t slots, size_t before, size_t nall)
{
    gpu_halo *h = c->halo;
    const mdl_domain *dm = &h->dm;
    const int d = dm->swap[k].dim, first_hop = k < 2 || dm->swap[k - 2].dim != d;
    const double reach = domain_ghost_reach(dm, d), below = dm->lo[d] + reach, above = dm->hi[d] - reach;
    const double *coord;
    MDL_TRY(along_bricks(c, nall, d, &coord));
    MDL_TRY(reserve_selection(c));
    if (first_hop && below <= above) /* each candidate goes one way at most: both lists in one pass */
        return gpu_select_ghosts_both(before, below, above, coord, c->gone, c->sel, h->picked_dev, h->select_temp,
                                      h->select_bytes) ? MDL_ERUN : MDL_OK;
    for (int w = 0; w < 2; w++) {
        const mdl_swap *s = &dm->swap[k + w]; /* plan_swaps: dir 0, then 1 */
        const halo_swap *prev = first_hop ? NULL : &h->swap[k - 2 + w];
        const size_t from = prev ? slots + prev->first : 0, count = prev ? prev->nrecv : before;
        TRY(gpu_select_ghosts(from, count, s->dir == 0 ? below : above, s->dir, coord, c->gone, c->sel[w],
                              h->picked_dev + w, h->select_temp, h->select_bytes));
    }
    return MDL_OK;
}

/* The ghosts, staged dimension by dimension and hop by hop (both faces at once), appended after
   the slots; *nall: the slots then in use. The migration's lost atoms are checked at the first
   counts (several ranks: there is a swap). */
static int build_ghosts(gpu_ctx *c, size_t slots, size_t *nall)
{
    gpu_halo *h = c->halo;
    const mdl_domain *dm = &h->dm;
    *nall = slots;
    h->nsent = 0;
    size_t before = slots; /* the slots in use before this dimension's stages */
    for (int k = 0; k < dm->nswap; k += 2) {
        const int d = dm->swap[k].dim;
        if (k == 0 || dm->swap[k - 1].dim != d)
            before = *nall;
        int to[2] = {dm->swap[k].to, dm->swap[k + 1].to}, from[2] = {dm->swap[k].from, dm->swap[k + 1].from};
        MDL_TRY(select_stage(c, k, slots, before, *nall));
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
            double shift[3];
            domain_swap_shift(dm, &dm->swap[k + w], shift);
            TRY(gpu_pack_ghosts(out[w], c->sel[w], c->x, c->y, c->z, c->type, shift, dest, &tell));
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

/* One rank's ghosts: every atom's images within the ghost cutoff of the box (its brick) in one
   pass (gpu_self_count, a sum, gpu_self_fill), appended after the slots; *nall: the slots then in
   use. The host waits once, for their number. */
static int self_ghosts(gpu_ctx *c, size_t slots, size_t *nall)
{
    gpu_halo *h = c->halo;
    const mdl_domain *dm = &h->dm;
    gpu_self_geometry g = {.box = dm->box};
    for (int d = 0; d < 3; d++) {
        g.lo[d] = dm->lo[d], g.hi[d] = dm->hi[d];
        g.reach[d] = dm->ghosted[d] ? domain_ghost_reach(dm, d) : 0;
        g.hops[d] = dm->ghosted[d] ? dm->hops[d] : 0;
    }
    MDL_TRY(reserve_selection(c));
    TRY(gpu_self_count(slots, &g, c->x, c->y, c->z, c->sel[0]));
    TRY(gpu_inclusive_sum(slots, c->sel[0], c->sel[1], h->select_temp, h->select_bytes));
    int total = 0;
    TRY(gpu_d2h(&total, c->sel[1] + slots - 1, sizeof total));
    timeline_mark(h->timeline, "ghosts counted");
    MDL_TRY(gpu_grow_atoms(c, slots + (size_t)total));
    MDL_TRY(reserve_ghost_ints(&h->chain, &h->chain_cap, (size_t)total));
    TRY(gpu_self_fill(slots, &g, c->sel[0], c->sel[1], slots, c->x, c->y, c->z, c->type, c->pos4, c->gone,
                      h->chain));
    timeline_mark(h->timeline, "ghosts made");
    h->nsent = 0;
    *nall = slots + (size_t)total;
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
    h->nghost = nall - slots;
    if (h->self) { /* each step's refresh: one pass from the roots */
        MDL_TRY(reserve_ghost_ints(&h->link, &h->link_cap, h->nghost));
        TRY(gpu_self_links(h->nghost, c->n, c->perm_sorted, c->inv, slots, h->chain, h->link));
    }
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
    if (!halo_direct(h))
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
    MDL_TRY(domain_replan_hops(&h->dm)); /* the hops for the brick as it is (a barostat's) */
    MDL_TRY(halo_reserve_swaps(h));
    MDL_TRY(h->self ? self_ghosts(c, slots, &nall) : build_ghosts(c, slots, &nall));
    TRY(gpu_event_record(h->ev[5], NULL));
    h->timing |= h->started ? 4 : 0; /* the loop's (the set-up's includes NCCL's connections) */
    MDL_TRY(sort_with_ghosts(c, slots, left, nall));
    return publish_places(c);
}

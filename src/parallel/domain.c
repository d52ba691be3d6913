/* Spatial decomposition: bricks, migration of owned atoms, ghost atoms and their refresh (domain.h). */
#include "domain.h"

#include "comm.h"
#include "../physics/cells.h"
#include "../util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { GHOST_WORDS = 5, ATOM_WORDS = 14 }; /* doubles per ghost (id type x y z), per migrating atom */
static const char AXIS[3] = {'x', 'y', 'z'};

const char *domain_axis_unfit(const mdl_box *b, const int grid[3], int d, double rghost, int images)
{
    if (grid[d] == 1)
        return NULL;
    return !b->periodic[d]                            ? "the box is open along it: bricks need a periodic axis"
           : !images && b->len[d] / grid[d] < rghost ? "shorter than the list cutoff"
                                                      : NULL;
}

/* Whether axis d of box b has ghosts with `grid` (decomposed, or with images a periodic box
   shorter than twice the ghost cutoff: there the minimum image would miss a pair's other images). */
static int axis_ghosted(const mdl_box *b, const int grid[3], int d, double rghost, int images)
{
    if (grid[d] > 1)
        return 1;
    return images && b->periodic[d] && (box_is_triclinic(b) || b->len[d] < 2 * rghost);
}

double domain_ghost_reach(const mdl_domain *dm, int d)
{
    return box_is_triclinic(&dm->box) ? dm->rghost / box_face_spacing(&dm->box, d) : dm->rghost;
}

int domain_box_ghosted(const mdl_box *b, double rghost)
{
    const int one[3] = {1, 1, 1};
    int any = 0;
    for (int d = 0; d < 3; d++)
        any |= axis_ghosted(b, one, d, rghost, 1);
    return any;
}

/* The ghost cutoff's shell around a brick of `grid`: ghosts only along ghosted dimensions
   (edges and corners included); infinite where a brick would not fit. */
static double ghost_volume(const mdl_box *b, const int grid[3], double rghost, int images)
{
    double brick = 1, shell = 1;
    for (int d = 0; d < 3; d++) {
        double len = b->len[d] / grid[d];
        if (domain_axis_unfit(b, grid, d, rghost, images))
            return INFINITY;
        brick *= len;
        shell *= len + (axis_ghosted(b, grid, d, rghost, images) ? 2 * rghost : 0);
    }
    return shell - brick;
}

void domain_choose_grid(const mdl_box *b, int nranks, double rghost, int images, int grid[3])
{
    double best = INFINITY;
    grid[0] = nranks, grid[1] = grid[2] = 1; /* nothing fits: the caller's check names the axis */
    for (int px = 1; px <= nranks; px++) {
        if (nranks % px)
            continue;
        for (int py = 1; py <= nranks / px; py++) {
            if ((nranks / px) % py)
                continue;
            const int g[3] = {px, py, nranks / px / py};
            double volume = ghost_volume(b, g, rghost, images);
            if (volume < best * (1 - 1e-12)) {
                best = volume;
                memcpy(grid, g, sizeof g);
            }
        }
    }
}

/* The rank at grid coordinates c (x fastest). */
static int rank_at(const int grid[3], const int c[3])
{
    return (c[2] * grid[1] + c[1]) * grid[0] + c[0];
}

/* The neighbor rank one step (delta = -1 or +1) along d, or -1 past an open face. */
static int neighbor_rank(const mdl_domain *dm, int d, int delta)
{
    int c[3] = {dm->coord[0], dm->coord[1], dm->coord[2]};
    c[d] += delta;
    if (c[d] < 0 || c[d] >= dm->grid[d]) {
        if (!dm->box.periodic[d])
            return -1;
        c[d] = (c[d] + dm->grid[d]) % dm->grid[d];
    }
    return rank_at(dm->grid, c);
}

/* The swaps for the box as it is (axes_too: which axes have ghosts, too): along each ghosted
   axis, hop by hop, one down and one up (a brick shorter than the ghost cutoff passes on what it
   received in the hop before). */
static int plan_swaps(mdl_domain *dm, int axes_too)
{
    int want = 0;
    for (int d = 0; d < 3; d++) {
        if (axes_too)
            dm->ghosted[d] = axis_ghosted(&dm->box, dm->grid, d, dm->rghost, dm->images);
        const double brick = dm->hi[d] - dm->lo[d], hops = ceil(domain_ghost_reach(dm, d) / brick);
        dm->hops[d] = !dm->ghosted[d] ? 0 : !(hops >= 1) ? 1 : hops > 1e6 ? 1000000 : (int)hops;
        want += 2 * dm->hops[d];
    }
    if (want > dm->swap_cap) {
        mdl_swap *p = realloc(dm->swap, (size_t)want * sizeof *p);
        if (!p) {
            mdl_error("out of memory for %d ghost exchanges", want);
            return MDL_ERUN;
        }
        memset(p + dm->swap_cap, 0, (size_t)(want - dm->swap_cap) * sizeof *p);
        dm->swap = p, dm->swap_cap = want;
    }
    dm->nswap = 0;
    for (int d = 0; d < 3; d++)
        for (int hop = 0; hop < dm->hops[d]; hop++)
            for (int dir = 0; dir < 2; dir++) {
                mdl_swap *w = &dm->swap[dm->nswap++];
                w->dim = d, w->dir = dir;
                w->to = dir == 0 ? dm->below[d] : dm->above[d];
                w->from = dir == 0 ? dm->above[d] : dm->below[d];
                w->shift = 0;
                if (dir == 0 && dm->coord[d] == 0)
                    w->shift = dm->box.len[d]; /* seen from the last brick, across the periodic face */
                if (dir == 1 && dm->coord[d] == dm->grid[d] - 1)
                    w->shift = -dm->box.len[d];
            }
    return MDL_OK;
}

int domain_init(mdl_domain *dm, const mdl_box *b, const int grid[3], double rghost, int images)
{
    memset(dm, 0, sizeof *dm);
    dm->rank = comm_rank(), dm->size = comm_size();
    dm->box = *b;
    dm->rghost = rghost;
    dm->images = images;
    if (grid[0] * grid[1] * grid[2] != dm->size) {
        mdl_error("[run] processors: %d x %d x %d bricks for %d ranks", grid[0], grid[1], grid[2], dm->size);
        return MDL_EINPUT;
    }
    memcpy(dm->grid, grid, sizeof dm->grid);
    dm->coord[0] = dm->rank % grid[0];
    dm->coord[1] = dm->rank / grid[0] % grid[1];
    dm->coord[2] = dm->rank / grid[0] / grid[1];
    for (int d = 0; d < 3; d++) {
        double len = b->len[d] / grid[d];
        const char *why = domain_axis_unfit(b, grid, d, rghost, images);
        if (why) {
            mdl_error("[run] processors: %d bricks along %c (%g long; list cutoff %g): %s (use fewer)", grid[d],
                      AXIS[d], len, rghost, why);
            return MDL_EINPUT;
        }
        dm->lo[d] = b->lo[d] + dm->coord[d] * len;
        dm->hi[d] = dm->coord[d] == grid[d] - 1 ? b->lo[d] + b->len[d] : b->lo[d] + (dm->coord[d] + 1) * len;
        dm->below[d] = neighbor_rank(dm, d, -1);
        dm->above[d] = neighbor_rank(dm, d, +1);
    }
    return plan_swaps(dm, 1);
}

int domain_replan_hops(mdl_domain *dm)
{
    return plan_swaps(dm, 0);
}

const char *domain_set_box(mdl_domain *dm, const mdl_box *b)
{
    dm->box = *b;
    for (int d = 0; d < 3; d++) {
        const double len = b->len[d] / dm->grid[d];
        dm->lo[d] = b->lo[d] + dm->coord[d] * len;
        dm->hi[d] = dm->coord[d] == dm->grid[d] - 1 ? b->lo[d] + b->len[d] : b->lo[d] + (dm->coord[d] + 1) * len;
    }
    for (int k = 0; k < dm->nswap; k++) {
        mdl_swap *w = &dm->swap[k];
        if (w->shift != 0)
            w->shift = w->shift > 0 ? b->len[w->dim] : -b->len[w->dim];
    }
    for (int d = 0; d < 3; d++)
        if (!dm->images && dm->grid[d] > 1 && b->len[d] / dm->grid[d] < dm->rghost)
            return "its bricks are shorter than the list cutoff";
    return NULL;
}

void domain_destroy(mdl_domain *dm)
{
    for (int k = 0; k < dm->swap_cap; k++)
        free(dm->swap[k].send);
    free(dm->swap);
    free(dm->buf_out);
    free(dm->buf_in);
    memset(dm, 0, sizeof *dm);
}

/* A triclinic box's region: the box around the brick and its ghosts' slabs (their corners in
   fractional coordinates), open on every side, cells at least `width` wide. */
static size_t region_cells_triclinic(const mdl_domain *dm, double width, size_t natoms, mdl_box *r, int nc[3])
{
    double lo[3], hi[3], bmin[3] = {INFINITY, INFINITY, INFINITY}, bmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int d = 0; d < 3; d++) {
        const double reach = dm->ghosted[d] ? domain_ghost_reach(dm, d) : 0;
        lo[d] = (dm->lo[d] - reach - dm->box.lo[d]) / dm->box.len[d];
        hi[d] = (dm->hi[d] + reach - dm->box.lo[d]) / dm->box.len[d];
    }
    for (int corner = 0; corner < 8; corner++) {
        const double s[3] = {corner & 1 ? hi[0] : lo[0], corner & 2 ? hi[1] : lo[1], corner & 4 ? hi[2] : lo[2]};
        double p[3];
        box_from_fraction(&dm->box, s, p);
        for (int d = 0; d < 3; d++)
            bmin[d] = fmin(bmin[d], p[d]), bmax[d] = fmax(bmax[d], p[d]);
    }
    const size_t limit = cell_grid_limit(natoms);
    *r = (mdl_box){{bmin[0], bmin[1], bmin[2]}, {bmax[0] - bmin[0], bmax[1] - bmin[1], bmax[2] - bmin[2]}, {0, 0, 0}, {0, 0, 0}, 0};
    for (int d = 0; d < 3; d++)
        nc[d] = cells_along(r->len[d], width, limit);
    return cell_product(nc);
}

/* The region of cells at least `width` wide: along a ghosted dimension m whole cells tile the
   brick and k more on each side cover the ghosts (a brick narrower than a cell: cells over the
   brick and its ghosts); along the others the box's cells. */
static size_t region_cells(const mdl_domain *dm, double width, size_t natoms, mdl_box *r, int nc[3])
{
    if (box_is_triclinic(&dm->box))
        return region_cells_triclinic(dm, width, natoms, r, nc);
    const size_t limit = cell_grid_limit(natoms);
    *r = dm->box;
    for (int d = 0; d < 3; d++) {
        const double len = dm->ghosted[d] ? dm->hi[d] - dm->lo[d] : dm->box.len[d];
        const int m = cells_along(len, width, limit);
        nc[d] = m;
        if (dm->ghosted[d] && len < width) {
            r->lo[d] = dm->lo[d] - dm->rghost;
            r->len[d] = len + 2 * dm->rghost;
            r->periodic[d] = 0;
            nc[d] = cells_along(r->len[d], width, limit);
        } else if (dm->ghosted[d]) {
            const double w = len / m;
            const int k = (int)ceil(dm->rghost / w - 1e-9);
            r->lo[d] = dm->lo[d] - k * w;
            r->len[d] = (m + 2 * k) * w;
            r->periodic[d] = 0;
            nc[d] = 2 * k < (int)limit - m ? m + 2 * k : (int)limit; /* too fine: widened by the caller */
        }
    }
    return cell_product(nc);
}

size_t domain_cell_grid(const mdl_domain *dm, double rcut, size_t natoms, mdl_box *region, int nc[3])
{
    double width = rcut > 0 ? rcut : 1.0;
    for (;;) {
        size_t total = region_cells(dm, width, natoms, region, nc);
        if (!cell_grid_too_fine(total, natoms))
            return total;
        width *= 1.25;
    }
}

/* The brick index along d of coordinate v (inside the box). */
static int brick_of(const mdl_domain *dm, int d, double v)
{
    return box_brick(v, dm->box.lo[d], dm->box.len[d], dm->grid[d]);
}

/* Atom i's coordinate along the bricks' dimension d (box_along). */
static double along(const mdl_domain *dm, const mdl_system *s, size_t i, int d)
{
    const double p[3] = {s->x[i], s->y[i], s->z[i]};
    return box_along(&dm->box, p, d);
}

int domain_owner(const mdl_domain *dm, const double p[3])
{
    int c[3];
    for (int d = 0; d < 3; d++)
        c[d] = brick_of(dm, d, box_along(&dm->box, p, d));
    return rank_at(dm->grid, c);
}

static int reserve_buffers(mdl_domain *dm, size_t words)
{
    if (words <= dm->buf_cap)
        return MDL_OK;
    size_t cap = words + words / 2 + 64;
    double *o = realloc(dm->buf_out, cap * sizeof *o), *i = o ? realloc(dm->buf_in, cap * sizeof *i) : NULL;
    if (o)
        dm->buf_out = o;
    if (i)
        dm->buf_in = i;
    if (!o || !i) {
        mdl_error("out of memory for %zu words of messages between ranks", cap);
        return MDL_ERUN;
    }
    dm->buf_cap = cap;
    return MDL_OK;
}

/* Sends `words` doubles of buf_out to `to` and receives into buf_in from `from`; *got: words. */
static int send_words(mdl_domain *dm, size_t words, int to, int from, size_t *got)
{
    size_t incoming = 0, bytes = 0;
    MDL_TRY(comm_exchange_count(words, to, &incoming, from));
    MDL_TRY(reserve_buffers(dm, incoming > words ? incoming : words));
    MDL_TRY(comm_exchange(dm->buf_out, words * sizeof(double), to, dm->buf_in, incoming * sizeof(double), from,
                          &bytes));
    *got = bytes / sizeof(double);
    return MDL_OK;
}

static void copy_atom(mdl_system *dst, size_t j, const mdl_system *src, size_t i)
{
    dst->x[j] = src->x[i], dst->y[j] = src->y[i], dst->z[j] = src->z[i];
    dst->vx[j] = src->vx[i], dst->vy[j] = src->vy[i], dst->vz[j] = src->vz[i];
    dst->fx[j] = src->fx[i], dst->fy[j] = src->fy[i], dst->fz[j] = src->fz[i];
    dst->ix[j] = src->ix[i], dst->iy[j] = src->iy[i], dst->iz[j] = src->iz[i];
    dst->type[j] = src->type[i], dst->id[j] = src->id[i];
}

/* Atom i's place: at (x, y, z), or at place[3 i ..] where given. */
static int owner_of_atom(const mdl_domain *dm, const mdl_system *all, const double *place, size_t i)
{
    const double p[3] = {place ? place[3 * i] : all->x[i], place ? place[3 * i + 1] : all->y[i],
                         place ? place[3 * i + 2] : all->z[i]};
    return domain_owner(dm, p);
}

int domain_take_owned(mdl_domain *dm, const mdl_system *all, const double *place, mdl_system *s)
{
    size_t mine = 0;
    for (size_t i = 0; i < all->n; i++)
        mine += owner_of_atom(dm, all, place, i) == dm->rank;
    MDL_TRY(system_reserve(s, mine > 0 ? mine : 1));
    s->n = 0;
    for (size_t i = 0; i < all->n; i++)
        if (owner_of_atom(dm, all, place, i) == dm->rank)
            copy_atom(s, s->n++, all, i);
    s->ntypes = all->ntypes, s->box = all->box, s->bound = all->bound;
    memcpy(s->species, all->species, sizeof s->species);
    memcpy(s->mass, all->mass, sizeof s->mass);
    dm->nlocal = s->n;
    return MDL_OK;
}

static void pack_atom(double *w, const mdl_system *s, size_t i)
{
    const double v[ATOM_WORDS] = {(double)s->id[i], s->type[i], s->x[i], s->y[i], s->z[i], s->vx[i], s->vy[i],
                                  s->vz[i], s->fx[i], s->fy[i], s->fz[i], s->ix[i], s->iy[i], s->iz[i]};
    memcpy(w, v, sizeof v);
}

static void unpack_atom(mdl_system *s, size_t i, const double *w)
{
    s->id[i] = (int64_t)w[0], s->type[i] = (int32_t)w[1];
    s->x[i] = w[2], s->y[i] = w[3], s->z[i] = w[4];
    s->vx[i] = w[5], s->vy[i] = w[6], s->vz[i] = w[7];
    s->fx[i] = w[8], s->fy[i] = w[9], s->fz[i] = w[10];
    s->ix[i] = (int32_t)w[11], s->iy[i] = (int32_t)w[12], s->iz[i] = (int32_t)w[13];
}

static double *coordinate(mdl_system *s, int d)
{
    return d == 0 ? s->x : d == 1 ? s->y : s->z;
}

/* The way (0: down, 1: up) from this rank's brick to brick b along d: the shorter one around a
   periodic axis (with two bricks, down), towards it along an open one. */
static int way_to(const mdl_domain *dm, int d, int b)
{
    const int g = dm->grid[d], down = (dm->coord[d] - b + g) % g;
    return dm->box.periodic[d] ? down > g / 2 || (2 * down == g && g > 2) : b > dm->coord[d];
}

/* One hop of one direction of one dimension: the owned atoms not in this brick along d whose way
   home is dir leave (the last atom fills each hole), and the arrivals are appended. */
static int migrate_one_way(mdl_domain *dm, mdl_system *s, int d, int dir)
{
    const int to = dir == 0 ? dm->below[d] : dm->above[d], from = dir == 0 ? dm->above[d] : dm->below[d];
    size_t words = 0;
    MDL_TRY(reserve_buffers(dm, s->n * ATOM_WORDS));
    for (size_t i = 0; i < s->n;) {
        int b = brick_of(dm, d, along(dm, s, i, d));
        if (b != dm->coord[d] && way_to(dm, d, b) == dir && to >= 0) {
            pack_atom(dm->buf_out + words, s, i);
            words += ATOM_WORDS;
            copy_atom(s, i, s, s->n - 1);
            s->n--;
        } else {
            i++;
        }
    }
    size_t got = 0;
    MDL_TRY(send_words(dm, words, to, from, &got));
    size_t arrive = got / ATOM_WORDS;
    MDL_TRY(system_reserve(s, s->n + arrive));
    for (size_t k = 0; k < arrive; k++)
        unpack_atom(s, s->n++, dm->buf_in + k * ATOM_WORDS);
    return MDL_OK;
}

int domain_migrate(mdl_domain *dm, mdl_system *s)
{
    s->n = dm->nlocal; /* ghosts dropped */
    int32_t *image[3] = {s->ix, s->iy, s->iz};
    if (box_is_triclinic(&dm->box)) {
        const long n = (long)s->n;
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) {
            double p[3] = {s->x[i], s->y[i], s->z[i]};
            int32_t im[3] = {s->ix[i], s->iy[i], s->iz[i]};
            box_wrap_triclinic(&dm->box, p, im);
            s->x[i] = p[0], s->y[i] = p[1], s->z[i] = p[2];
            s->ix[i] = im[0], s->iy[i] = im[1], s->iz[i] = im[2];
        }
    }
    for (int d = 0; d < 3 && !box_is_triclinic(&dm->box); d++) {
        if (!dm->box.periodic[d])
            continue;
        double *x = coordinate(s, d), lo = dm->box.lo[d], len = dm->box.len[d];
        int32_t *im = image[d];
        const long n = (long)s->n;
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            x[i] = box_wrap(x[i], lo, len, &im[i]);
    }
    for (int d = 0; d < 3; d++) {
        /* hop by hop while an atom on any rank is away from its brick along d (bricks shorter
           than an atom's move); with two bricks both neighbors are the same rank, and the way
           down carries them all */
        for (int hop = 0, away = dm->grid[d] > 1; away && hop < dm->grid[d]; hop++) {
            MDL_TRY(migrate_one_way(dm, s, d, 0));
            if (dm->grid[d] > 2)
                MDL_TRY(migrate_one_way(dm, s, d, 1));
            away = 0;
            for (size_t i = 0; i < s->n && !away; i++)
                away = brick_of(dm, d, along(dm, s, i, d)) != dm->coord[d];
            MDL_TRY(comm_or_int(&away));
        }
    }
    int lost = 0;
    for (size_t i = 0; dm->size > 1 && i < s->n && !lost; i++) { /* one brick owns everything */
        double p[3] = {s->x[i], s->y[i], s->z[i]};
        if (domain_owner(dm, p) != dm->rank) {
            mdl_error("atom %lld at (%g, %g, %g) did not reach its brick from rank %d's: lost",
                      (long long)s->id[i], p[0], p[1], p[2], dm->rank);
            lost = 1;
        }
    }
    MDL_TRY(comm_or_int(&lost)); /* every rank stops */
    dm->nlocal = s->n;
    return lost ? MDL_ERUN : plan_swaps(dm, 1);
}

static int add_send(mdl_swap *w, size_t i)
{
    if (w->nsend == w->send_cap) {
        size_t cap = w->send_cap ? 2 * w->send_cap : 256;
        size_t *p = realloc(w->send, cap * sizeof *p);
        if (!p) {
            mdl_error("out of memory for a ghost send list");
            return MDL_ERUN;
        }
        w->send = p, w->send_cap = cap;
    }
    w->send[w->nsend++] = i;
    return MDL_OK;
}

void domain_swap_shift(const mdl_domain *dm, const mdl_swap *w, double v[3])
{
    v[0] = v[1] = v[2] = 0;
    if (w->shift != 0 && box_is_triclinic(&dm->box))
        box_add_edge(&dm->box, w->dim, w->shift > 0 ? 1.0 : -1.0, v); /* across a tilted face: its edge vector */
    else
        v[w->dim] = w->shift;
}

/* Packs the positions of w's send list (shifted) after its id and species. */
static void pack_ghosts(mdl_domain *dm, const mdl_system *s, const mdl_swap *w, int with_ids)
{
    const int words = with_ids ? GHOST_WORDS : 3;
    double v[3];
    domain_swap_shift(dm, w, v);
    for (size_t k = 0; k < w->nsend; k++) {
        size_t i = w->send[k];
        double *o = dm->buf_out + k * words;
        if (with_ids)
            *o++ = (double)s->id[i], *o++ = s->type[i];
        o[0] = s->x[i] + v[0], o[1] = s->y[i] + v[1], o[2] = s->z[i] + v[2];
    }
}

int domain_build_ghosts(mdl_domain *dm, mdl_system *s)
{
    s->n = dm->nlocal;
    size_t before = 0; /* the atoms there before this dimension's swaps */
    for (int k = 0; k < dm->nswap; k++) {
        mdl_swap *w = &dm->swap[k];
        const int d = w->dim;
        if (k == 0 || dm->swap[k - 1].dim != d)
            before = s->n;
        /* a first hop: atoms owned or received along earlier dimensions, not this one's arrivals;
           a later hop: what the hop before it this way received */
        const int first_hop = k < 2 || dm->swap[k - 2].dim != d;
        const size_t lo = first_hop ? 0 : dm->swap[k - 2].first;
        const size_t hi = first_hop ? before : dm->swap[k - 2].first + dm->swap[k - 2].nrecv;
        const double reach = domain_ghost_reach(dm, d);
        w->nsend = 0;
        if (w->to >= 0)
            for (size_t i = lo; i < hi; i++)
                if (w->dir == 0 ? along(dm, s, i, d) < dm->lo[d] + reach : along(dm, s, i, d) >= dm->hi[d] - reach)
                    MDL_TRY(add_send(w, i));
        MDL_TRY(reserve_buffers(dm, w->nsend * GHOST_WORDS));
        pack_ghosts(dm, s, w, 1);
        size_t got = 0;
        MDL_TRY(send_words(dm, w->nsend * GHOST_WORDS, w->to, w->from, &got));
        w->first = s->n;
        w->nrecv = got / GHOST_WORDS;
        MDL_TRY(system_reserve(s, s->n + w->nrecv));
        for (size_t g = 0; g < w->nrecv; g++) {
            const double *in = dm->buf_in + g * GHOST_WORDS;
            size_t j = s->n++;
            s->id[j] = (int64_t)in[0], s->type[j] = (int32_t)in[1];
            s->x[j] = in[2], s->y[j] = in[3], s->z[j] = in[4];
            s->vx[j] = s->vy[j] = s->vz[j] = s->fx[j] = s->fy[j] = s->fz[j] = 0;
            s->ix[j] = s->iy[j] = s->iz[j] = 0;
        }
    }
    return MDL_OK;
}

int domain_forward(mdl_domain *dm, mdl_system *s)
{
    for (int k = 0; k < dm->nswap; k++) {
        mdl_swap *w = &dm->swap[k];
        MDL_TRY(reserve_buffers(dm, 3 * (w->nsend > w->nrecv ? w->nsend : w->nrecv)));
        pack_ghosts(dm, s, w, 0);
        size_t got = 0; /* the counts are the last build's: one message each way */
        MDL_TRY(comm_exchange(dm->buf_out, w->nsend * 3 * sizeof(double), w->to, dm->buf_in,
                              w->nrecv * 3 * sizeof(double), w->from, &got));
        got /= sizeof(double);
        if (got != w->nrecv * 3) {
            mdl_error("internal: rank %d expected %zu ghost positions, got %zu", dm->rank, w->nrecv, got / 3);
            return MDL_ERUN;
        }
        for (size_t g = 0; g < w->nrecv; g++) {
            size_t j = w->first + g;
            s->x[j] = dm->buf_in[3 * g], s->y[j] = dm->buf_in[3 * g + 1], s->z[j] = dm->buf_in[3 * g + 2];
        }
    }
    return MDL_OK;
}

int domain_forward_values(mdl_domain *dm, double *v)
{
    for (int k = 0; k < dm->nswap; k++) {
        mdl_swap *w = &dm->swap[k];
        MDL_TRY(reserve_buffers(dm, w->nsend > w->nrecv ? w->nsend : w->nrecv));
        for (size_t q = 0; q < w->nsend; q++)
            dm->buf_out[q] = v[w->send[q]];
        size_t got = 0;
        MDL_TRY(comm_exchange(dm->buf_out, w->nsend * sizeof(double), w->to, dm->buf_in, w->nrecv * sizeof(double),
                              w->from, &got));
        if (got != w->nrecv * sizeof(double)) {
            mdl_error("internal: rank %d expected %zu ghost values, got %zu", dm->rank, w->nrecv, got / sizeof(double));
            return MDL_ERUN;
        }
        for (size_t g = 0; g < w->nrecv; g++)
            v[w->first + g] = dm->buf_in[g];
    }
    return MDL_OK;
}

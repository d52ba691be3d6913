/* CPU neighbor lists: counting sort of atoms by cell, half lists from the 27-cell stencil or by
   brute force, per-thread segments so that OpenMP threads never share a buffer. */
#include "neighbor.h"

#include "../physics/cells.h"
#include "../util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

void nlist_init(cpu_nlist *nl)
{
    memset(nl, 0, sizeof *nl);
}

void nlist_destroy(cpu_nlist *nl)
{
    for (int t = 0; t < MDL_MAX_THREADS; t++)
        free(nl->seg[t].data);
    free(nl->first);
    free(nl->count);
    free(nl->inner);
    memset(nl, 0, sizeof *nl);
}

void cells_init(cpu_cells *c)
{
    memset(c, 0, sizeof *c);
}

void cells_destroy(cpu_cells *c)
{
    free(c->start);
    free(c->cell);
    memset(c, 0, sizeof *c);
}

void ghost_bins_destroy(cpu_ghost_bins *g)
{
    free(g->start);
    free(g->idx);
    free(g->key);
    memset(g, 0, sizeof *g);
}

static int nlist_reserve_atoms(cpu_nlist *nl, size_t n)
{
    if (n <= nl->capacity)
        return MDL_OK;
    uint32_t *first = mdl_realloc(nl->first, n * sizeof *first, "neighbor list offsets");
    if (!first)
        return MDL_ERUN;
    nl->first = first;
    int32_t *count = mdl_realloc(nl->count, n * sizeof *count, "neighbor list counts");
    if (!count)
        return MDL_ERUN;
    nl->count = count;
    int32_t *inner = mdl_realloc(nl->inner, n * sizeof *inner, "neighbor list counts");
    if (!inner)
        return MDL_ERUN;
    nl->inner = inner;
    nl->capacity = n;
    return MDL_OK;
}

/* Room for `more` entries after len; grows by 1.5x (untouched pages cost no memory). */
static int segment_reserve(cpu_nlist_segment *s, size_t more)
{
    if (s->len + more <= s->cap)
        return MDL_OK;
    size_t cap = s->cap + s->cap / 2;
    if (cap < s->len + more)
        cap = s->len + more + 1024;
    if (cap > UINT32_MAX) {
        mdl_error("neighbor list segment over 2^32 entries");
        return MDL_ERUN;
    }
    int32_t *d = realloc(s->data, cap * sizeof *d);
    if (!d) {
        mdl_error("out of memory growing a neighbor list to %zu entries", cap);
        return MDL_ERUN;
    }
    s->data = d;
    s->cap = cap;
    return MDL_OK;
}

static int thread_count(int nthreads)
{
    int t = nthreads > 0 ? nthreads : omp_get_max_threads();
    return t > MDL_MAX_THREADS ? MDL_MAX_THREADS : t < 1 ? 1 : t;
}

/* ---- cells ------------------------------------------------------------------------------- */

static int cell_coord(double x, double lo, double inv, int nc)
{
    double c = floor((x - lo) * inv); /* clamped before the int: a point far outside is no overflow */
    return !(c >= 0) ? 0 : c >= nc ? nc - 1 : (int)c;
}

/* The cell of a point in c's grid over box (points outside go to the nearest cell). */
static int32_t cell_of(const cpu_cells *c, const mdl_box *box, double x, double y, double z)
{
    int cx = cell_coord(x, box->lo[0], c->inv_size[0], c->nc[0]);
    int cy = cell_coord(y, box->lo[1], c->inv_size[1], c->nc[1]);
    int cz = cell_coord(z, box->lo[2], c->inv_size[2], c->nc[2]);
    return (int32_t)(((size_t)cz * c->nc[1] + cy) * c->nc[0] + cx);
}

/* Room for n ints in *a (capacity *cap). */
static int reserve_ints(int32_t **a, size_t *cap, size_t n, const char *what)
{
    if (*cap >= n)
        return MDL_OK;
    int32_t *p = mdl_realloc(*a, (n ? n : 1) * sizeof *p, what);
    if (!p)
        return MDL_ERUN;
    *a = p;
    *cap = n;
    return MDL_OK;
}

/* Counting sort of items first + i (i < n) by key[i] < ncells, stable: out[start[k] ..
   start[k+1]) holds those of key k (start has ncells + 1 entries). */
static void bin_by_key(const int32_t *key, size_t n, size_t ncells, int32_t *start, int32_t *out, size_t first)
{
    memset(start, 0, (ncells + 1) * sizeof *start);
    for (size_t i = 0; i < n; i++)
        start[key[i] + 1]++;
    for (size_t k = 0; k < ncells; k++)
        start[k + 1] += start[k];
    /* placement moves start[k] to the end of bin k; walking back restores it */
    for (size_t i = 0; i < n; i++)
        out[start[key[i]]++] = (int32_t)(first + i);
    for (size_t k = ncells; k > 0; k--)
        start[k] = start[k - 1];
    start[0] = 0;
}

/* Each cell's atoms in perm[start[k] .. start[k+1]) in the order of their ids (an insertion sort:
   a cell holds a few dozen atoms, mostly in order already from the last build). */
static void order_cells_by_id(const int32_t *start, size_t ncells, const int64_t *id, int32_t *perm)
{
    for (size_t k = 0; k < ncells; k++)
        for (int32_t i = start[k] + 1; i < start[k + 1]; i++) {
            const int32_t a = perm[i];
            int32_t j = i;
            for (; j > start[k] && id[perm[j - 1]] > id[a]; j--)
                perm[j] = perm[j - 1];
            perm[j] = a;
        }
}

int cells_sort(cpu_cells *c, const mdl_box *box, double rcut, size_t n, const double *x, const double *y,
               const double *z, const int64_t *id, int32_t *perm)
{
    c->ncells = cell_grid_dims(box, rcut, n, c->nc);
    for (int d = 0; d < 3; d++)
        c->inv_size[d] = box->len[d] > 0 ? c->nc[d] / box->len[d] : 0.0;
    MDL_TRY(reserve_ints(&c->start, &c->cell_capacity, c->ncells + 1, "cell list"));
    MDL_TRY(reserve_ints(&c->cell, &c->atom_capacity, n, "cell index"));
    for (size_t i = 0; i < n; i++)
        c->cell[i] = cell_of(c, box, x[i], y[i], z[i]);
    bin_by_key(c->cell, n, c->ncells, c->start, perm, 0);
    order_cells_by_id(c->start, c->ncells, id, perm);
    return MDL_OK;
}

int ghost_bins_fill(cpu_ghost_bins *g, const cpu_cells *c, const mdl_box *box, size_t nlocal, size_t n,
                    const double *x, const double *y, const double *z)
{
    size_t ng = n - nlocal;
    MDL_TRY(reserve_ints(&g->start, &g->cell_capacity, c->ncells + 1, "ghost cells"));
    MDL_TRY(reserve_ints(&g->idx, &g->atom_capacity, ng, "ghost cells"));
    MDL_TRY(reserve_ints(&g->key, &g->key_capacity, ng, "ghost cells"));
    for (size_t i = 0; i < ng; i++)
        g->key[i] = cell_of(c, box, x[nlocal + i], y[nlocal + i], z[nlocal + i]);
    bin_by_key(g->key, ng, c->ncells, g->start, g->idx, nlocal);
    return MDL_OK;
}

void permute_array(void *a, const int32_t *perm, size_t n, size_t size, void *scratch)
{
    char *src = a, *dst = scratch;
    if (size == 8) {
        const double *s = a;
        double *d = scratch;
        for (size_t k = 0; k < n; k++)
            d[k] = s[perm[k]];
    } else if (size == 4) {
        const int32_t *s = a;
        int32_t *d = scratch;
        for (size_t k = 0; k < n; k++)
            d[k] = s[perm[k]];
    } else {
        for (size_t k = 0; k < n; k++)
            memcpy(dst + k * size, src + (size_t)perm[k] * size, size);
    }
    memcpy(a, scratch, n * size);
}

/* The distinct cells among the 27 around c (with `forward`, only those with index >= c): those
   reached without crossing the boundary first (their pairs need no minimum image), *ninner of
   them, then the wrapped ones. */
static int stencil_cells(const cpu_cells *c, const mdl_box *box, size_t cell, int forward, int32_t *out, int *ninner)
{
    int cx = (int)(cell % (size_t)c->nc[0]);
    int cy = (int)((cell / (size_t)c->nc[0]) % (size_t)c->nc[1]);
    int cz = (int)(cell / ((size_t)c->nc[0] * c->nc[1]));
    int sx[3], sy[3], sz[3], wx[3], wy[3], wz[3];
    int mx = cell_stencil_1d(cx, c->nc[0], box->periodic[0], sx, wx);
    int my = cell_stencil_1d(cy, c->nc[1], box->periodic[1], sy, wy);
    int mz = cell_stencil_1d(cz, c->nc[2], box->periodic[2], sz, wz);
    int32_t wrapped[27];
    int m = 0, nw = 0;
    for (int a = 0; a < mz; a++)
        for (int b = 0; b < my; b++)
            for (int d = 0; d < mx; d++) {
                int32_t k = (int32_t)(((size_t)sz[a] * c->nc[1] + sy[b]) * c->nc[0] + sx[d]);
                if (forward && (size_t)k < cell)
                    continue;
                if (wz[a] | wy[b] | wx[d])
                    wrapped[nw++] = k;
                else
                    out[m++] = k;
            }
    *ninner = m;
    for (int k = 0; k < nw; k++)
        out[m++] = wrapped[k];
    return m;
}

/* Appends j in [jb, je) within rcut of (xi, yi, zi), no periodic images; returns how many. */
static inline int scan_range_inner(int32_t *out, int32_t jb, int32_t je, double xi, double yi, double zi,
                                   const double *x, const double *y, const double *z, double rcsq)
{
    int cnt = 0;
    for (int32_t j = jb; j < je; j++) {
        double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
        double r2 = dx * dx + dy * dy + dz * dz;
        out[cnt] = j;
        cnt += r2 < rcsq;
    }
    return cnt;
}

/* Appends the ghosts idx[kb, ke) within rcut of (xi, yi, zi), with the minimum image when
   `wrapped`; returns how many. */
static inline int scan_ghosts(int32_t *out, const int32_t *idx, int32_t kb, int32_t ke, double xi, double yi,
                              double zi, const double *x, const double *y, const double *z, const double len[3],
                              const double inv[3], double rcsq, int wrapped)
{
    int cnt = 0;
    for (int32_t k = kb; k < ke; k++) {
        const int32_t j = idx[k];
        double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
        if (wrapped) {
            dx = min_image(dx, len[0], inv[0]);
            dy = min_image(dy, len[1], inv[1]);
            dz = min_image(dz, len[2], inv[2]);
        }
        out[cnt] = j;
        cnt += dx * dx + dy * dy + dz * dz < rcsq;
    }
    return cnt;
}

/* The same with the minimum image on periodic dimensions. Branch-free. */
static inline int scan_range(int32_t *out, int32_t jb, int32_t je, double xi, double yi, double zi,
                             const double *x, const double *y, const double *z, const double len[3],
                             const double inv[3], double rcsq)
{
    int cnt = 0;
    for (int32_t j = jb; j < je; j++) {
        double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
        dx = min_image(dx, len[0], inv[0]);
        dy = min_image(dy, len[1], inv[1]);
        dz = min_image(dz, len[2], inv[2]);
        double r2 = dx * dx + dy * dy + dz * dz;
        out[cnt] = j;
        cnt += r2 < rcsq;
    }
    return cnt;
}

/* Appends the ghosts of the cells around atom (xi, yi, zi)'s cell: stencil[0, ninner) without,
   [ninner, m) with the minimum image (wrapped = 0 or 1: the first or the second part). */
static int scan_ghost_cells(int32_t *out, const cpu_ghost_bins *g, const int32_t *stencil, int ninner, int m,
                            int wrapped, double xi, double yi, double zi, const double *x, const double *y,
                            const double *z, const double len[3], const double inv[3], double rcsq)
{
    int cnt = 0;
    for (int k = wrapped ? ninner : 0; k < (wrapped ? m : ninner); k++)
        cnt += scan_ghosts(out + cnt, g->idx, g->start[stencil[k]], g->start[stencil[k] + 1], xi, yi, zi, x, y, z,
                           len, inv, rcsq, wrapped);
    return cnt;
}

int nlist_build_cells(cpu_nlist *nl, const cpu_cells *c, const cpu_ghost_bins *g, const mdl_box *box, double rcut,
                      size_t nlocal, const double *x, const double *y, const double *z, int nthreads)
{
    const size_t n = nlocal;
    if (nlist_reserve_atoms(nl, n) != MDL_OK)
        return MDL_ERUN;
    int T = thread_count(nthreads);
    double len[3], inv[3], rcsq = rcut * rcut;
    box_image_lengths(box, len, inv);
    /* thread t takes whole cells holding atoms [t n / T, (t+1) n / T) */
    size_t cell_begin[MDL_MAX_THREADS + 1];
    cell_begin[0] = 0;
    for (int t = 1; t < T; t++) {
        size_t target = n * (size_t)t / (size_t)T, k = cell_begin[t - 1];
        while (k < c->ncells && (size_t)c->start[k] < target)
            k++;
        cell_begin[t] = k;
    }
    cell_begin[T] = c->ncells;
    nl->nseg = T;
    int failed = 0;
#pragma omp parallel num_threads(T) reduction(| : failed)
    {
        int t = omp_get_thread_num();
        cpu_nlist_segment *s = &nl->seg[t];
        s->len = 0;
        s->atom_begin = (size_t)c->start[cell_begin[t]];
        s->atom_end = (size_t)c->start[cell_begin[t + 1]];
        int32_t stencil[27], around[27];
        for (size_t cell = cell_begin[t]; cell < cell_begin[t + 1] && !failed; cell++) {
            int ninner, m = stencil_cells(c, box, cell, 1, stencil, &ninner), gin = 0, gm = 0;
            size_t candidates = 0;
            for (int k = 0; k < m; k++)
                candidates += (size_t)(c->start[stencil[k] + 1] - c->start[stencil[k]]);
            if (g) {
                gm = stencil_cells(c, box, cell, 0, around, &gin);
                for (int k = 0; k < gm; k++)
                    candidates += (size_t)(g->start[around[k] + 1] - g->start[around[k]]);
            }
            for (int32_t i = c->start[cell]; i < c->start[cell + 1]; i++) {
                if (segment_reserve(s, candidates) != MDL_OK) {
                    failed = 1;
                    break;
                }
                int32_t *out = s->data + s->len;
                int cnt = 0;
                for (int k = 0; k < ninner; k++) {
                    int32_t jb = stencil[k] == (int32_t)cell ? i + 1 : c->start[stencil[k]];
                    cnt += scan_range_inner(out + cnt, jb, c->start[stencil[k] + 1], x[i], y[i], z[i], x, y, z, rcsq);
                }
                if (g)
                    cnt += scan_ghost_cells(out + cnt, g, around, gin, gm, 0, x[i], y[i], z[i], x, y, z, len, inv,
                                            rcsq);
                nl->inner[i] = cnt;
                for (int k = ninner; k < m; k++) {
                    int32_t jb = stencil[k] == (int32_t)cell ? i + 1 : c->start[stencil[k]];
                    cnt += scan_range(out + cnt, jb, c->start[stencil[k] + 1], x[i], y[i], z[i], x, y, z, len, inv,
                                      rcsq);
                }
                if (g)
                    cnt += scan_ghost_cells(out + cnt, g, around, gin, gm, 1, x[i], y[i], z[i], x, y, z, len, inv,
                                            rcsq);
                nl->first[i] = (uint32_t)s->len;
                nl->count[i] = cnt;
                s->len += (size_t)cnt;
            }
        }
    }
    return failed ? MDL_ERUN : MDL_OK;
}

int nlist_build_brute(cpu_nlist *nl, const mdl_box *box, double rcut, size_t nlocal, size_t n, const double *x,
                      const double *y, const double *z, int nthreads)
{
    if (nlist_reserve_atoms(nl, nlocal) != MDL_OK)
        return MDL_ERUN;
    int T = thread_count(nthreads);
    double len[3], inv[3], rcsq = rcut * rcut;
    box_image_lengths(box, len, inv);
    nl->nseg = T;
    int failed = 0;
#pragma omp parallel num_threads(T) reduction(| : failed)
    {
        int t = omp_get_thread_num();
        /* atom i scans n - i - 1 partners: split the triangle into equal areas */
        cpu_nlist_segment *s = &nl->seg[t];
        s->len = 0;
        s->atom_begin = (size_t)((double)nlocal * (1.0 - sqrt(1.0 - (double)t / T)));
        s->atom_end = t == T - 1 ? nlocal : (size_t)((double)nlocal * (1.0 - sqrt(1.0 - (double)(t + 1) / T)));
        for (size_t i = s->atom_begin; i < s->atom_end; i++) {
            if (segment_reserve(s, n - i) != MDL_OK) {
                failed = 1;
                break;
            }
            int cnt = scan_range(s->data + s->len, (int32_t)i + 1, (int32_t)n, x[i], y[i], z[i], x, y, z, len, inv,
                                 rcsq);
            nl->first[i] = (uint32_t)s->len;
            nl->count[i] = cnt;
            nl->inner[i] = 0;
            s->len += (size_t)cnt;
        }
    }
    return failed ? MDL_ERUN : MDL_OK;
}

size_t nlist_pairs(const cpu_nlist *nl)
{
    size_t total = 0;
    for (int t = 0; t < nl->nseg; t++)
        total += nl->seg[t].len;
    return total;
}

double max_displacement_sq(size_t n, const double *x, const double *y, const double *z, const double *x0,
                           const double *y0, const double *z0)
{
    double m = 0;
#pragma omp parallel for simd reduction(max : m) schedule(static)
    for (size_t i = 0; i < n; i++) {
        double dx = x[i] - x0[i], dy = y[i] - y0[i], dz = z[i] - z0[i];
        double d2 = dx * dx + dy * dy + dz * dz;
        d2 = d2 == d2 ? d2 : INFINITY; /* a non-finite position counts as an infinite move */
        m = d2 > m ? d2 : m;
    }
    return m;
}

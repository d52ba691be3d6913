/* The CPU pair kernel, one copy per style (physics/pair_styles.h): for each atom a vectorisable pass
   over its neighbors (pair forces; energy and virial as SIMD reductions), then a scalar pass that
   sums i's force in list order and applies the reactions to j, so that the forces' bits never
   depend on whether energy and virial are summed. */
#include "force.h"

#include "../util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define MAX_NEIGH_STACK 2048

void cpu_pair_table_fill(cpu_pair_table *t, const mdl_pair_table *pt)
{
    memset(t, 0, sizeof *t);
    t->ntypes = pt->ntypes;
    t->style = pt->style;
    memcpy(t->coeff, pt->coeff, sizeof t->coeff);
    memcpy(t->cutsq, pt->cutsq, sizeof t->cutsq);
    t->eam = pt->eam;
}

void force_scratch_init(cpu_force_scratch *s)
{
    memset(s, 0, sizeof *s);
}

void force_scratch_destroy(cpu_force_scratch *s)
{
    free(s->eam);
    free(s->fbuf);
    memset(s, 0, sizeof *s);
}

typedef struct {
    double e, w;
} ev_sum;

/* What the pair pass sums besides the forces (compile-time constants in each copy): energy and
   virial, or the virial alone (a barostat's steps); with ghosts, a ghost's pair counts half. */
enum { EV_NONE, EV_BOTH, EV_BOTH_GHOSTS, EV_VIRIAL, EV_VIRIAL_GHOSTS };

/* The vectorised pair pass over list entries [kb, ke) with style NAME (NC coefficients): pair
   forces into bx/by/bz, energy and virial as SIMD reductions (whose order may differ between the
   copies: no force depends on them). A macro so that the style and the minimum-image flag are
   literals in each copy. */
/* The pair's coefficient q of the style's NC as a scalar (0 past them: never read); kept out of
   arrays, which stop GCC's vectoriser in these loops (in.lj, one thread: 0.76 s against 1.07 s) */
#define COEFF(q, NC) ((q) < (NC) ? t->coeff[q][c] : 0.0)
_Static_assert(MDL_PAIR_MAX_COEFF == 5, "the styles' arithmetic takes 5 coefficients");
#define PAIR_LOOP(NAME, NC, kb, ke, wrapped)                                                \
    _Pragma("omp simd reduction(+ : e, w)")                                                 \
    for (int k = (kb); k < (ke); k++) {                                                     \
        const int32_t j = l[k];                                                             \
        double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];                              \
        if (wrapped) {                                                                      \
            dx = min_image(dx, len[0], inv[0]);                                             \
            dy = min_image(dy, len[1], inv[1]);                                             \
            dz = min_image(dz, len[2], inv[2]);                                             \
        }                                                                                   \
        const double r2 = dx * dx + dy * dy + dz * dz;                                      \
        const int c = single_type ? 0 : row + type[j];                                      \
        double fp = NAME##_fpair(r2, COEFF(0, NC), COEFF(1, NC), COEFF(2, NC), COEFF(3, NC), COEFF(4, NC)); \
        const int inside = r2 < t->cutsq[c];                                                \
        fp = inside ? fp : 0.0;                                                             \
        if (energy_virial) { /* a ghost's pair: half here, half on the rank that owns it */ \
            const int ghosts = energy_virial == EV_BOTH_GHOSTS || energy_virial == EV_VIRIAL_GHOSTS; \
            const double share = ghosts && (size_t)j >= nlocal ? 0.5 : 1.0;                 \
            if (energy_virial <= EV_BOTH_GHOSTS) {                                          \
                const double ev = NAME##_energy(r2, COEFF(0, NC), COEFF(1, NC), COEFF(2, NC), \
                                                COEFF(3, NC), COEFF(4, NC));                \
                e += inside ? share * ev : 0.0;                                             \
            }                                                                               \
            w += share * r2 * fp;                                                           \
        }                                                                                   \
        bx[k] = dx * fp;                                                                    \
        by[k] = dy * fp;                                                                    \
        bz[k] = dz * fp;                                                                    \
    }

/* Forces on the atoms of one segment with style NAME (and the reactions on their partners, ghosts
   too: those are dropped); single_type and energy_virial are compile-time constants at each call
   site so the compiler emits ten specialised loops per style (force_segment_NAME). */
#define FORCE_RANGE(ID, NAME)                                                                            \
    static inline __attribute__((always_inline)) ev_sum force_range_##NAME(                              \
        const cpu_pair_table *t, const cpu_nlist *nl, const cpu_nlist_segment *seg, size_t nlocal,       \
        const double len[3], const double inv[3], const double *x, const double *y, const double *z,     \
        const int32_t *type, double *fx, double *fy, double *fz, const int single_type, const int energy_virial) \
    {                                                                                                    \
        ev_sum acc = {0, 0};                                                                             \
        double bx[MAX_NEIGH_STACK], by[MAX_NEIGH_STACK], bz[MAX_NEIGH_STACK];                            \
        const int nt = t->ntypes;                                                                        \
        for (size_t i = seg->atom_begin; i < seg->atom_end; i++) {                                       \
            const int32_t *list = seg->data + nl->first[i];                                              \
            const int cnt = nl->count[i];                                                                \
            const double xi = x[i], yi = y[i], zi = z[i];                                                \
            const int row = single_type ? 0 : type[i] * nt;                                              \
            double fxi = 0, fyi = 0, fzi = 0, e = 0, w = 0;                                              \
            const int inner = nl->inner[i];                                                              \
            for (int k0 = 0; k0 < cnt; k0 += MAX_NEIGH_STACK) {                                          \
                const int kn = cnt - k0 < MAX_NEIGH_STACK ? cnt - k0 : MAX_NEIGH_STACK;                  \
                const int32_t *l = list + k0;                                                            \
                /* [0, ki): pairs inside the box, no minimum image; [ki, kn): across the boundary */     \
                const int ki = inner - k0 < 0 ? 0 : inner - k0 > kn ? kn : inner - k0;                   \
                PAIR_LOOP(NAME, ID##_NCOEFF, 0, ki, 0)                                                   \
                PAIR_LOOP(NAME, ID##_NCOEFF, ki, kn, 1)                                                  \
                for (int k = 0; k < kn; k++) { /* in list order, in every copy alike */                  \
                    const int32_t j = l[k];                                                              \
                    fxi += bx[k];                                                                        \
                    fyi += by[k];                                                                        \
                    fzi += bz[k];                                                                        \
                    fx[j] -= bx[k];                                                                      \
                    fy[j] -= by[k];                                                                      \
                    fz[j] -= bz[k];                                                                      \
                }                                                                                        \
            }                                                                                            \
            fx[i] += fxi;                                                                                \
            fy[i] += fyi;                                                                                \
            fz[i] += fzi;                                                                                \
            acc.e += e;                                                                                  \
            acc.w += w;                                                                                  \
        }                                                                                                \
        return acc;                                                                                      \
    }
MDL_PAIR_STYLES(FORCE_RANGE)

/* energy_virial: EV_*; the style's copy for each mode, one rank's atoms (single: one species) */
#define FORCE_SEGMENT(ID, NAME)                                                                          \
    static ev_sum force_segment_##NAME(const cpu_pair_table *t, const cpu_nlist *nl,                     \
                                       const cpu_nlist_segment *seg, size_t nlocal, const double len[3], \
                                       const double inv[3], const double *x, const double *y,            \
                                       const double *z, const int32_t *type, double *fx, double *fy,     \
                                       double *fz, int energy_virial)                                    \
    {                                                                                                    \
        switch (energy_virial * 2 + (t->ntypes == 1)) {                                                  \
        case EV_BOTH * 2 + 1: return RANGE(NAME, 1, EV_BOTH);                                            \
        case EV_BOTH * 2: return RANGE(NAME, 0, EV_BOTH);                                                \
        case EV_BOTH_GHOSTS * 2 + 1: return RANGE(NAME, 1, EV_BOTH_GHOSTS);                              \
        case EV_BOTH_GHOSTS * 2: return RANGE(NAME, 0, EV_BOTH_GHOSTS);                                  \
        case EV_VIRIAL * 2 + 1: return RANGE(NAME, 1, EV_VIRIAL);                                        \
        case EV_VIRIAL * 2: return RANGE(NAME, 0, EV_VIRIAL);                                            \
        case EV_VIRIAL_GHOSTS * 2 + 1: return RANGE(NAME, 1, EV_VIRIAL_GHOSTS);                          \
        case EV_VIRIAL_GHOSTS * 2: return RANGE(NAME, 0, EV_VIRIAL_GHOSTS);                              \
        case EV_NONE * 2 + 1: return RANGE(NAME, 1, EV_NONE);                                            \
        default: return RANGE(NAME, 0, EV_NONE);                                                         \
        }                                                                                                \
    }
#define RANGE(NAME, single, ev) force_range_##NAME(t, nl, seg, nlocal, len, inv, x, y, z, type, fx, fy, fz, single, ev)
MDL_PAIR_STYLES(FORCE_SEGMENT)
#undef RANGE

static ev_sum force_segment(const cpu_pair_table *t, const cpu_nlist *nl, const cpu_nlist_segment *seg,
                            size_t nlocal, const double len[3], const double inv[3], const double *x, const double *y,
                            const double *z, const int32_t *type, double *fx, double *fy, double *fz,
                            int energy_virial)
{
    switch (t->style) {
#define STYLE_CASE(ID, NAME)                                                                             \
    case MDL_PAIR_##ID:                                                                                  \
        return force_segment_##NAME(t, nl, seg, nlocal, len, inv, x, y, z, type, fx, fy, fz, energy_virial);
        MDL_PAIR_STYLES(STYLE_CASE)
#undef STYLE_CASE
    }
    return (ev_sum){NAN, NAN};
}

int force_scratch_reserve(cpu_force_scratch *s, int nthreads, size_t n)
{
    if (nthreads <= s->nthreads && n <= s->fbuf_atoms)
        return MDL_OK;
    free(s->fbuf);
    s->fbuf = NULL;
    s->nthreads = 0;
    s->fbuf_atoms = 0;
    if (nthreads > 1) {
        s->fbuf = mdl_alloc((size_t)(nthreads - 1) * 3 * n * sizeof(double), "per-thread forces");
        if (!s->fbuf)
            return MDL_ERUN;
    }
    s->nthreads = nthreads;
    s->fbuf_atoms = n;
    return MDL_OK;
}

void force_buffers(const cpu_force_scratch *s, int th, size_t n, double *fx, double *fy, double *fz, double *g[3])
{
    g[0] = fx, g[1] = fy, g[2] = fz;
    if (th > 0)
        for (int d = 0; d < 3; d++)
            g[d] = s->fbuf + ((size_t)(th - 1) * 3 + (size_t)d) * n;
    for (int d = 0; d < 3; d++)
        memset(g[d], 0, n * sizeof *g[d]);
}

void force_buffers_sum(const cpu_force_scratch *s, int nthreads, size_t n, double *fx, double *fy, double *fz)
{
#pragma omp for schedule(static)
    for (size_t i = 0; i < n; i++) {
        for (int k = 1; k < nthreads; k++) {
            const double *b = s->fbuf + (size_t)(k - 1) * 3 * n;
            fx[i] += b[i];
            fy[i] += b[n + i];
            fz[i] += b[2 * n + i];
        }
    }
}

int pair_forces(const cpu_pair_table *t, const cpu_nlist *nl, const mdl_box *box, size_t nlocal, size_t n,
               const double *x, const double *y, const double *z, const int32_t *type, double *fx, double *fy,
               double *fz, int energy_virial, double *pe, double *virial, cpu_force_scratch *scratch)
{
    const int T = nl->nseg;
    double len[3], inv[3];
    box_image_lengths(box, len, inv);
    if (force_scratch_reserve(scratch, T, n) != MDL_OK)
        return MDL_ERUN;
    double esum[MDL_MAX_THREADS], wsum[MDL_MAX_THREADS];
#pragma omp parallel num_threads(T)
    {
        int th = omp_get_thread_num();
        double *g[3];
        force_buffers(scratch, th, n, fx, fy, fz, g);
        const int mode = energy_virial == MDL_EV_VIRIAL ? (nlocal < n ? EV_VIRIAL_GHOSTS : EV_VIRIAL)
                         : energy_virial == MDL_EV_ENERGY ? (nlocal < n ? EV_BOTH_GHOSTS : EV_BOTH)
                                                          : EV_NONE;
        ev_sum s = force_segment(t, nl, &nl->seg[th], nlocal, len, inv, x, y, z, type, g[0], g[1], g[2], mode);
        esum[th] = s.e;
        wsum[th] = s.w;
#pragma omp barrier
        force_buffers_sum(scratch, T, n, fx, fy, fz);
    }
    if (energy_virial != MDL_EV_NONE) {
        double e = 0, w = 0;
        for (int k = 0; k < T; k++) {
            e += esum[k];
            w += wsum[k];
        }
        if (energy_virial == MDL_EV_ENERGY)
            *pe = e;
        *virial = w;
    }
    return MDL_OK;
}

/* Adds the pair's virial tensor share: -f_ij (x) r_ij... as LAMMPS's: r_a f_b with f = r fp. */
static void add_tensor(double w[6], double share, double dx, double dy, double dz, double fp)
{
    const double f = share * fp;
    w[0] += dx * dx * f, w[1] += dy * dy * f, w[2] += dz * dz * f;
    w[3] += dx * dy * f, w[4] += dx * dz * f, w[5] += dy * dz * f;
}

/* Calls visit(user, i, j, dx, dy, dz, r2, c) for each pair of the list within its cutoff (the
   minimum image past a row's inner count; c the pair's coefficient index). */
typedef void (*pair_visit)(void *user, const cpu_pair_table *t, size_t i, int32_t j, double dx, double dy, double dz,
                           double r2, int c);
static void each_pair(const cpu_pair_table *t, const cpu_nlist *nl, const mdl_box *box, const double *x,
                      const double *y, const double *z, const int32_t *type, pair_visit visit, void *user)
{
    double len[3], inv[3];
    box_image_lengths(box, len, inv);
    for (int sg = 0; sg < nl->nseg; sg++) {
        const cpu_nlist_segment *seg = &nl->seg[sg];
        for (size_t i = seg->atom_begin; i < seg->atom_end; i++) {
            const int32_t *l = seg->data + nl->first[i];
            for (int k = 0; k < nl->count[i]; k++) {
                const int32_t j = l[k];
                double dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
                if (k >= nl->inner[i])
                    dx = min_image(dx, len[0], inv[0]), dy = min_image(dy, len[1], inv[1]),
                    dz = min_image(dz, len[2], inv[2]);
                const double r2 = dx * dx + dy * dy + dz * dz;
                const int c = type[i] * t->ntypes + type[j];
                if (r2 < t->cutsq[c])
                    visit(user, t, i, j, dx, dy, dz, r2, c);
            }
        }
    }
}

typedef struct {
    double *out; /* w[6], or each atom's energy */
    size_t nlocal;
} pair_sums;

static void add_pair_tensor(void *user, const cpu_pair_table *t, size_t i, int32_t j, double dx, double dy, double dz,
                            double r2, int c)
{
    (void)i;
    pair_sums *p = user;
    double fp = 0;
    switch (t->style) {
#define STYLE_FPAIR(ID, NAME)                                                                            \
    case MDL_PAIR_##ID:                                                                                  \
        fp = NAME##_fpair(r2, t->coeff[0][c], t->coeff[1][c], t->coeff[2][c], t->coeff[3][c], t->coeff[4][c]); \
        break;
        MDL_PAIR_STYLES(STYLE_FPAIR)
#undef STYLE_FPAIR
    }
    add_tensor(p->out, (size_t)j >= p->nlocal ? 0.5 : 1.0, dx, dy, dz, fp);
}

void pair_virial_tensor(const cpu_pair_table *t, const cpu_nlist *nl, const mdl_box *box, size_t nlocal,
                        const double *x, const double *y, const double *z, const int32_t *type, double w[6])
{
    for (int k = 0; k < 6; k++)
        w[k] = 0;
    pair_sums p = {w, nlocal};
    each_pair(t, nl, box, x, y, z, type, add_pair_tensor, &p);
}

static void add_pair_energy(void *user, const cpu_pair_table *t, size_t i, int32_t j, double dx, double dy, double dz,
                            double r2, int c)
{
    (void)dx, (void)dy, (void)dz;
    pair_sums *p = user;
    double e = 0;
    switch (t->style) {
#define STYLE_ENERGY(ID, NAME)                                                                            \
    case MDL_PAIR_##ID:                                                                                   \
        e = NAME##_energy(r2, t->coeff[0][c], t->coeff[1][c], t->coeff[2][c], t->coeff[3][c], t->coeff[4][c]); \
        break;
        MDL_PAIR_STYLES(STYLE_ENERGY)
#undef STYLE_ENERGY
    }
    p->out[i] += 0.5 * e;
    if ((size_t)j < p->nlocal) /* a ghost's half is its owner's, in the owner's own row */
        p->out[j] += 0.5 * e;
}

void pair_atom_energies(const cpu_pair_table *t, const cpu_nlist *nl, const mdl_box *box, size_t nlocal,
                        const double *x, const double *y, const double *z, const int32_t *type, double *e)
{
    memset(e, 0, nlocal * sizeof *e);
    pair_sums p = {e, nlocal};
    each_pair(t, nl, box, x, y, z, type, add_pair_energy, &p);
}

/* CPU EAM forces over the half list (LAMMPS pair eam's three passes: each atom's density from its
   neighbors' rho(r), the embedding F(rho) and its slope, then the pair forces with both atoms'
   slopes), each thread over its segment of the list into its own buffers, added in thread order
   (a thread count gives one result, as pair_forces does). With ranks, a pair
   with a ghost is in both ranks' lists: it adds to its owned atom's density alone, the ghosts'
   slopes come from their owners (domain_forward_values), and its energy and virial count half. */
#include "force.h"

#include "../parallel/domain.h"

#include "../physics/eam.h"
#include "../util/util.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define COEFFS(base, k, n, m) ((base) + ((size_t)(k) * ((n) + 1) + (m)) * MDL_EAM_COEFF)
#define CHUNK 128 /* list entries a row is taken in at a time */

/* A chunk of a row's pairs within the cutoff, in list order: neighbor, separation, its square,
   the distance and its grid point and fraction (physics/eam.h). */
typedef struct {
    int n;
    int32_t j[CHUNK];
    int m[CHUNK];
    double dx[CHUNK], dy[CHUNK], dz[CHUNK], r2[CHUNK], r[CHUNK], p[CHUNK];
} eam_chunk;

/* Separations of entries [k0, k1) of a row l for atom (xi, yi, zi) into d*, r2 from index `at`,
   with the minimum image when `wrapped`; vectorised. */
static inline void separations(const int32_t *l, int k0, int k1, int at, double xi, double yi, double zi,
                               const double *x, const double *y, const double *z, const double len[3],
                               const double inv[3], int wrapped, double *dx, double *dy, double *dz, double *r2)
{
#pragma omp simd
    for (int k = k0; k < k1; k++) {
        const int32_t j = l[k];
        double ax = xi - x[j], ay = yi - y[j], az = zi - z[j];
        if (wrapped) {
            ax = min_image(ax, len[0], inv[0]);
            ay = min_image(ay, len[1], inv[1]);
            az = min_image(az, len[2], inv[2]);
        }
        const int q = at + k - k0;
        dx[q] = ax, dy[q] = ay, dz[q] = az, r2[q] = ax * ax + ay * ay + az * az;
    }
}

/* Entries [k0, k1) of atom i's row into c: the separations (the minimum image from the row's inner
   count on), those within the cutoff kept in order (branch-free), then their grid points. */
static inline void chunk_pairs(const mdl_eam *e, const cpu_nlist *nl, const cpu_nlist_segment *sg, size_t i, int k0,
                               int k1, const double len[3], const double inv[3], const double *x, const double *y,
                               const double *z, eam_chunk *c)
{
    const int32_t *l = sg->data + nl->first[i];
    const int inner = nl->inner[i] < k0 ? k0 : nl->inner[i] > k1 ? k1 : nl->inner[i];
    double dx[CHUNK], dy[CHUNK], dz[CHUNK], r2[CHUNK];
    separations(l, k0, inner, 0, x[i], y[i], z[i], x, y, z, len, inv, 0, dx, dy, dz, r2);
    separations(l, inner, k1, inner - k0, x[i], y[i], z[i], x, y, z, len, inv, 1, dx, dy, dz, r2);
    const double cutsq = e->cut * e->cut;
    int n = 0;
    for (int q = 0; q < k1 - k0; q++) {
        c->j[n] = l[k0 + q], c->dx[n] = dx[q], c->dy[n] = dy[q], c->dz[n] = dz[q], c->r2[n] = r2[q];
        n += r2[q] < cutsq;
    }
    c->n = n;
#pragma omp simd
    for (int q = 0; q < n; q++) {
        double p;
        c->r[q] = sqrt(c->r2[q]);
        c->m[q] = eam_point(c->r[q], e->rdr, e->nr, 0, &p);
        c->p[q] = p;
    }
}

static int reserve(cpu_force_scratch *s, int threads, size_t n)
{
    const size_t need = (size_t)(threads + 1) * (n ? n : 1);
    if (need <= s->eam_atoms)
        return MDL_OK;
    free(s->eam);
    s->eam_atoms = 0;
    if (!(s->eam = mdl_alloc(need * sizeof(double), "EAM densities")))
        return MDL_ERUN;
    s->eam_atoms = need;
    return MDL_OK;
}

/* Each pair's rho(r) as atom i sees its neighbor (vi: j's function at i) and as j sees i (vj);
   single: one species, one function. */
static inline void pair_densities(const mdl_eam *e, const eam_chunk *c, const int32_t *type, int32_t ti, int single,
                                  double *vi, double *vj)
{
    if (single) {
        const double *t = COEFFS(e->rhor, e->type2rhor[ti][ti], e->nr, 0);
#pragma omp simd
        for (int q = 0; q < c->n; q++)
            vi[q] = vj[q] = eam_value(t + (size_t)c->m[q] * MDL_EAM_COEFF, c->p[q]);
        return;
    }
    for (int q = 0; q < c->n; q++) {
        const int32_t tj = type[c->j[q]];
        vi[q] = eam_value(COEFFS(e->rhor, e->type2rhor[tj][ti], e->nr, c->m[q]), c->p[q]);
        vj[q] = eam_value(COEFFS(e->rhor, e->type2rhor[ti][tj], e->nr, c->m[q]), c->p[q]);
    }
}

/* rho: the densities from one segment's rows (a pair adds to both atoms, each the other's rho(r)),
   added to what rho holds, pair by pair in list order. */
static void densities(const mdl_eam *e, const cpu_nlist *nl, const cpu_nlist_segment *sg, const double len[3],
                      const double inv[3], const double *x, const double *y, const double *z, const int32_t *type,
                      int single, double *rho)
{
    eam_chunk c;
    double vi[CHUNK], vj[CHUNK];
    for (size_t i = sg->atom_begin; i < sg->atom_end; i++)
        for (int k0 = 0; k0 < nl->count[i]; k0 += CHUNK) {
            const int k1 = k0 + CHUNK < nl->count[i] ? k0 + CHUNK : nl->count[i];
            chunk_pairs(e, nl, sg, i, k0, k1, len, inv, x, y, z, &c);
            pair_densities(e, &c, type, type[i], single, vi, vj);
            for (int q = 0; q < c.n; q++)
                rho[i] += vi[q], rho[c.j[q]] += vj[q];
        }
}

typedef struct {
    double e, w;
} eam_sums;

/* Each pair's force over its separation (the force on i is f d) from both atoms' slopes; the
   pairs' energy and virial added to *s (a ghost's pair half). */
static inline void pair_scalars(const mdl_eam *e, const eam_chunk *c, const int32_t *type, int32_t ti, int single,
                                double fpi, const double *fp, size_t nlocal, double *fpair, eam_sums *s)
{
    double en = 0, w = 0;
    const double *rt = COEFFS(e->rhor, e->type2rhor[ti][ti], e->nr, 0);
    const double *zt = COEFFS(e->z2r, e->type2z2r[ti][ti], e->nr, 0);
#pragma omp simd reduction(+ : en, w)
    for (int q = 0; q < c->n; q++) {
        const int32_t j = c->j[q], tj = single ? ti : type[j];
        const int m = c->m[q];
        const double p = c->p[q];
        const double *ci = single ? rt + (size_t)m * MDL_EAM_COEFF : COEFFS(e->rhor, e->type2rhor[ti][tj], e->nr, m);
        const double *cj = single ? ci : COEFFS(e->rhor, e->type2rhor[tj][ti], e->nr, m);
        const double *cz = single ? zt + (size_t)m * MDL_EAM_COEFF : COEFFS(e->z2r, e->type2z2r[ti][tj], e->nr, m);
        const double rhoip = eam_slope(ci, p), rhojp = eam_slope(cj, p);
        const double z2p = eam_slope(cz, p), z2 = eam_value(cz, p);
        const double recip = 1.0 / c->r[q], phi = z2 * recip, phip = z2p * recip - phi * recip;
        const double f = -(fpi * rhojp + fp[j] * rhoip + phip) * recip;
        fpair[q] = f;
        const double share = (size_t)j < nlocal ? 1.0 : 0.5; /* a ghost's pair: half on each rank */
        en += share * phi;
        w += share * c->r2[q] * f;
    }
    s->e += en, s->w += w;
}

/* The pair forces of one segment's rows into f (reactions included, pair by pair in list order),
   their energy and virial. */
static eam_sums pair_pass(const mdl_eam *e, const cpu_nlist *nl, const cpu_nlist_segment *sg, size_t nlocal,
                          const double len[3], const double inv[3], const double *x, const double *y, const double *z,
                          const int32_t *type, int single, const double *fp, double *fx, double *fy, double *fz)
{
    eam_sums acc = {0, 0};
    eam_chunk c;
    double fpair[CHUNK];
    for (size_t i = sg->atom_begin; i < sg->atom_end; i++)
        for (int k0 = 0; k0 < nl->count[i]; k0 += CHUNK) {
            const int k1 = k0 + CHUNK < nl->count[i] ? k0 + CHUNK : nl->count[i];
            chunk_pairs(e, nl, sg, i, k0, k1, len, inv, x, y, z, &c);
            pair_scalars(e, &c, type, type[i], single, fp[i], fp, nlocal, fpair, &acc);
            for (int q = 0; q < c.n; q++) {
                const int32_t j = c.j[q];
                const double gx = c.dx[q] * fpair[q], gy = c.dy[q] * fpair[q], gz = c.dz[q] * fpair[q];
                fx[i] += gx, fy[i] += gy, fz[i] += gz;
                fx[j] -= gx, fy[j] -= gy, fz[j] -= gz;
            }
        }
    return acc;
}

/* An atom's embedding energy F(rho) and its slope into *fp (linear past the table's end, as LAMMPS). */
static inline double embed(const mdl_eam *e, int32_t type, double rho, double *fp)
{
    double p;
    const int m = eam_point(rho, e->rdrho, e->nrho, 1, &p);
    const double *c = COEFFS(e->frho, e->type2frho[type], e->nrho, m);
    *fp = eam_slope(c, p);
    double phi = eam_value(c, p);
    if (rho > e->rhomax)
        phi += *fp * (rho - e->rhomax);
    return phi;
}

/* fp[i] = F'(rho[i]) of the owned atoms; their embedding energies' sum. */
static double embedding(const mdl_eam *e, const int32_t *type, size_t n, const double *rho, double *fp)
{
    double energy = 0;
    for (size_t i = 0; i < n; i++)
        energy += embed(e, type[i], rho[i], &fp[i]);
    return energy;
}

void eam_atom_energies(const mdl_eam *e, const cpu_nlist *nl, const mdl_box *box, size_t nlocal, const double *x,
                       const double *y, const double *z, const int32_t *type, const cpu_force_scratch *scratch,
                       double *out)
{
    double len[3], inv[3], slope;
    box_image_lengths(box, len, inv);
    for (size_t i = 0; i < nlocal; i++) /* the last force call's densities (eam_forces) */
        out[i] = embed(e, type[i], scratch->eam[i], &slope);
    eam_chunk c;
    for (int sg = 0; sg < nl->nseg; sg++)
        for (size_t i = nl->seg[sg].atom_begin; i < nl->seg[sg].atom_end; i++)
            for (int k0 = 0; k0 < nl->count[i]; k0 += CHUNK) {
                const int k1 = k0 + CHUNK < nl->count[i] ? k0 + CHUNK : nl->count[i];
                chunk_pairs(e, nl, &nl->seg[sg], i, k0, k1, len, inv, x, y, z, &c);
                for (int q = 0; q < c.n; q++) {
                    const int32_t j = c.j[q];
                    const double *cz = COEFFS(e->z2r, e->type2z2r[type[i]][type[j]], e->nr, c.m[q]);
                    const double half = 0.5 * eam_value(cz, c.p[q]) / c.r[q];
                    out[i] += half;
                    if ((size_t)j < nlocal) /* a ghost's half is its owner's, in the owner's row */
                        out[j] += half;
                }
            }
}

int eam_forces(const mdl_eam *e, const cpu_nlist *nl, const mdl_box *box, size_t nlocal, size_t n, const double *x,
               const double *y, const double *z, const int32_t *type, double *fx, double *fy, double *fz,
               int energy_virial, double *pe, double *virial, cpu_force_scratch *scratch, mdl_domain *dm)
{
    const int T = nl->nseg;
    MDL_TRY(reserve(scratch, T, n));
    MDL_TRY(force_scratch_reserve(scratch, T, n));
    double len[3], inv[3], *rho = scratch->eam, *fp = scratch->eam + n;
    box_image_lengths(box, len, inv);
    int single = 1; /* one species among these atoms: one function of each kind */
    for (size_t i = 1; i < n && single; i++)
        single = type[i] == type[0];
#pragma omp parallel num_threads(T)
    {
        const int th = omp_get_thread_num();
        double *mine = th == 0 ? rho : scratch->eam + (size_t)(th + 1) * n;
        memset(mine, 0, n * sizeof *mine);
        densities(e, nl, &nl->seg[th], len, inv, x, y, z, type, single, mine);
#pragma omp barrier
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++) /* in thread order */
            for (int k = 1; k < T; k++)
                rho[i] += scratch->eam[(size_t)(k + 1) * n + i];
    }
    double energy = embedding(e, type, nlocal, rho, fp);
    MDL_TRY(domain_forward_values(dm, fp)); /* the ghosts' slopes (no ranks: nothing) */
    eam_sums sums[MDL_MAX_THREADS];
#pragma omp parallel num_threads(T)
    {
        const int th = omp_get_thread_num();
        double *g[3];
        force_buffers(scratch, th, n, fx, fy, fz, g);
        sums[th] = pair_pass(e, nl, &nl->seg[th], nlocal, len, inv, x, y, z, type, single, fp, g[0], g[1], g[2]);
#pragma omp barrier
        force_buffers_sum(scratch, T, n, fx, fy, fz);
    }
    double w = 0;
    for (int k = 0; k < T; k++)
        energy += sums[k].e, w += sums[k].w;
    if (energy_virial == MDL_EV_ENERGY)
        *pe = energy;
    if (energy_virial != MDL_EV_NONE)
        *virial = w;
    return MDL_OK;
}

void eam_virial_tensor(const mdl_eam *e, const cpu_nlist *nl, const mdl_box *box, size_t nlocal, size_t n,
                       const double *x, const double *y, const double *z, const int32_t *type,
                       const cpu_force_scratch *scratch, double w[6])
{
    double len[3], inv[3], fpair[CHUNK];
    const double *fp = scratch->eam + n; /* the last force call's slopes (eam_forces) */
    box_image_lengths(box, len, inv);
    for (int k = 0; k < 6; k++)
        w[k] = 0;
    eam_chunk c;
    for (int sg = 0; sg < nl->nseg; sg++)
        for (size_t i = nl->seg[sg].atom_begin; i < nl->seg[sg].atom_end; i++)
            for (int k0 = 0; k0 < nl->count[i]; k0 += CHUNK) {
                const int k1 = k0 + CHUNK < nl->count[i] ? k0 + CHUNK : nl->count[i];
                eam_sums unused = {0, 0};
                chunk_pairs(e, nl, &nl->seg[sg], i, k0, k1, len, inv, x, y, z, &c);
                pair_scalars(e, &c, type, type[i], 0, fp[i], fp, nlocal, fpair, &unused);
                for (int q = 0; q < c.n; q++) {
                    const double share = (size_t)c.j[q] < nlocal ? fpair[q] : 0.5 * fpair[q];
                    w[0] += c.dx[q] * c.dx[q] * share, w[1] += c.dy[q] * c.dy[q] * share;
                    w[2] += c.dz[q] * c.dz[q] * share, w[3] += c.dx[q] * c.dy[q] * share;
                    w[4] += c.dx[q] * c.dz[q] * share, w[5] += c.dy[q] * c.dz[q] * share;
                }
            }
}

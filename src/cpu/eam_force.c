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

/* Atom i's neighbor k: the separation (minimum image past the row's inner count) and its square. */
static inline double separation(const cpu_nlist_segment *sg, const cpu_nlist *nl, size_t i, int k,
                                const double len[3], const double inv[3], const double *x, const double *y,
                                const double *z, double d[3])
{
    const int32_t j = sg->data[nl->first[i] + k];
    d[0] = x[i] - x[j], d[1] = y[i] - y[j], d[2] = z[i] - z[j];
    if (k >= nl->inner[i])
        for (int q = 0; q < 3; q++)
            d[q] = min_image(d[q], len[q], inv[q]);
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
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

/* rho: the densities from one segment's rows (a pair adds to both atoms, each the other's rho(r)),
   added to what rho holds. */
static void densities(const mdl_eam *e, const cpu_nlist *nl, const cpu_nlist_segment *sg, const double len[3],
                      const double inv[3], const double *x, const double *y, const double *z, const int32_t *type,
                      double *rho)
{
    const double cutsq = e->cut * e->cut;
    for (size_t i = sg->atom_begin; i < sg->atom_end; i++)
        for (int k = 0; k < nl->count[i]; k++) {
            double d[3], p;
            const double r2 = separation(sg, nl, i, k, len, inv, x, y, z, d);
            if (!(r2 < cutsq))
                continue;
            const int32_t j = sg->data[nl->first[i] + k], ti = type[i], tj = type[j];
            const int m = eam_point(sqrt(r2), e->rdr, e->nr, 0, &p);
            rho[i] += eam_value(COEFFS(e->rhor, e->type2rhor[tj][ti], e->nr, m), p);
            rho[j] += eam_value(COEFFS(e->rhor, e->type2rhor[ti][tj], e->nr, m), p);
        }
}

typedef struct {
    double e, w;
} eam_sums;

/* The pair forces of one segment's rows into f (reactions included), their energy and virial (a
   ghost's pair half). */
static eam_sums pair_pass(const mdl_eam *e, const cpu_nlist *nl, const cpu_nlist_segment *sg, size_t nlocal,
                          const double len[3], const double inv[3], const double *x, const double *y, const double *z,
                          const int32_t *type, const double *fp, double *fx, double *fy, double *fz)
{
    const double cutsq = e->cut * e->cut;
    eam_sums acc = {0, 0};
    for (size_t i = sg->atom_begin; i < sg->atom_end; i++)
        for (int k = 0; k < nl->count[i]; k++) {
            double d[3], p;
            const double r2 = separation(sg, nl, i, k, len, inv, x, y, z, d);
            if (!(r2 < cutsq))
                continue;
            const int32_t j = sg->data[nl->first[i] + k], ti = type[i], tj = type[j];
            const double r = sqrt(r2);
            const int m = eam_point(r, e->rdr, e->nr, 0, &p);
            const double rhoip = eam_slope(COEFFS(e->rhor, e->type2rhor[ti][tj], e->nr, m), p);
            const double rhojp = eam_slope(COEFFS(e->rhor, e->type2rhor[tj][ti], e->nr, m), p);
            const double *c = COEFFS(e->z2r, e->type2z2r[ti][tj], e->nr, m);
            const double z2p = eam_slope(c, p), z2 = eam_value(c, p);
            const double recip = 1.0 / r, phi = z2 * recip, phip = z2p * recip - phi * recip;
            const double fpair = -(fp[i] * rhojp + fp[j] * rhoip + phip) * recip;
            fx[i] += d[0] * fpair, fy[i] += d[1] * fpair, fz[i] += d[2] * fpair;
            fx[j] -= d[0] * fpair, fy[j] -= d[1] * fpair, fz[j] -= d[2] * fpair;
            const double share = (size_t)j < nlocal ? 1.0 : 0.5; /* a ghost's pair: half on each rank */
            acc.e += share * phi;
            acc.w += share * r2 * fpair;
        }
    return acc;
}

/* fp[i] = F'(rho[i]) of the owned atoms; their embedding energies' sum (linear past the table's
   end, as LAMMPS). */
static double embedding(const mdl_eam *e, const int32_t *type, size_t n, const double *rho, double *fp)
{
    double energy = 0;
    for (size_t i = 0; i < n; i++) {
        double p;
        const int m = eam_point(rho[i], e->rdrho, e->nrho, 1, &p);
        const double *c = COEFFS(e->frho, e->type2frho[type[i]], e->nrho, m);
        fp[i] = eam_slope(c, p);
        double phi = eam_value(c, p);
        if (rho[i] > e->rhomax)
            phi += fp[i] * (rho[i] - e->rhomax);
        energy += phi;
    }
    return energy;
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
#pragma omp parallel num_threads(T)
    {
        const int th = omp_get_thread_num();
        double *mine = th == 0 ? rho : scratch->eam + (size_t)(th + 1) * n;
        memset(mine, 0, n * sizeof *mine);
        densities(e, nl, &nl->seg[th], len, inv, x, y, z, type, mine);
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
        sums[th] = pair_pass(e, nl, &nl->seg[th], nlocal, len, inv, x, y, z, type, fp, g[0], g[1], g[2]);
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

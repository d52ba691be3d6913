/* CPU EAM forces over the half list (LAMMPS pair eam's three passes: each atom's density from its
   neighbors' rho(r), the embedding F(rho) and its slope, then the pair forces with both atoms'
   slopes), one thread, in list order, so that a thread count changes no bit. With ranks, a pair
   with a ghost is in both ranks' lists: it adds to its owned atom's density alone, the ghosts'
   slopes come from their owners (domain_forward_values), and its energy and virial count half. */
#include "force.h"

#include "../parallel/domain.h"

#include "../physics/eam.h"
#include "../util/util.h"

#include <math.h>
#include <stdlib.h>

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

static int reserve(cpu_force_scratch *s, size_t n)
{
    if (n <= s->eam_atoms)
        return MDL_OK;
    free(s->eam);
    s->eam_atoms = 0;
    if (!(s->eam = mdl_alloc(2 * (n ? n : 1) * sizeof(double), "EAM densities")))
        return MDL_ERUN;
    s->eam_atoms = n;
    return MDL_OK;
}

/* rho[i]: the density at each atom (a pair adds to both atoms, each the other's rho(r)). */
static void densities(const mdl_eam *e, const cpu_nlist *nl, const double len[3], const double inv[3],
                      const double *x, const double *y, const double *z, const int32_t *type, size_t n, double *rho)
{
    const double cutsq = e->cut * e->cut;
    for (size_t i = 0; i < n; i++)
        rho[i] = 0;
    for (int sgi = 0; sgi < nl->nseg; sgi++) {
        const cpu_nlist_segment *sg = &nl->seg[sgi];
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
    MDL_TRY(reserve(scratch, n));
    double len[3], inv[3], *rho = scratch->eam, *fp = scratch->eam + n;
    box_image_lengths(box, len, inv);
    densities(e, nl, len, inv, x, y, z, type, n, rho);
    double energy = embedding(e, type, nlocal, rho, fp), w = 0;
    MDL_TRY(domain_forward_values(dm, fp)); /* the ghosts' slopes (no ranks: nothing) */
    const double cutsq = e->cut * e->cut;
    for (size_t i = 0; i < n; i++)
        fx[i] = fy[i] = fz[i] = 0;
    for (int sgi = 0; sgi < nl->nseg; sgi++) {
        const cpu_nlist_segment *sg = &nl->seg[sgi];
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
                energy += share * phi;
                w += share * r2 * fpair;
            }
    }
    if (energy_virial == MDL_EV_ENERGY)
        *pe = energy;
    if (energy_virial != MDL_EV_NONE)
        *virial = w;
    return MDL_OK;
}

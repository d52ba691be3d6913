/* The CPU's on-the-fly analysis: the RDF's pairs counted from the half list, the MSD's sums from
   unwrapped positions (physics/analysis.h), summed over ranks when read. */
#include "context.h"

#include "../parallel/comm.h"
#include "../util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int npairs(const cpu_ctx *c)
{
    return c->s.ntypes * (c->s.ntypes + 1) / 2;
}

void cpu_analysis_free(cpu_ctx *c)
{
    free(c->an.origin);
    free(c->an.rdf);
    free(c->an.msd);
    memset(&c->an, 0, sizeof c->an);
}

/* Every rank's owned atoms' unwrapped positions into origin k's [id], summed so that each rank has
   all. */
static int set_origin(cpu_ctx *c, int k)
{
    const mdl_system *s = &c->s;
    double *o = c->an.origin + (size_t)k * c->natoms * 3;
    memset(o, 0, c->natoms * 3 * sizeof *o);
    for (size_t i = 0; i < c->dm.nlocal; i++) {
        const double x[3] = {s->x[i], s->y[i], s->z[i]};
        const int32_t im[3] = {s->ix[i], s->iy[i], s->iz[i]};
        box_unwrap(&s->box, x, im, o + 3 * (size_t)s->id[i]);
    }
    return comm_size() > 1 ? comm_sum_doubles(o, (int)(c->natoms * 3)) : MDL_OK;
}

int cpu_analysis_start(void *p, const mdl_analysis_spec *spec)
{
    cpu_ctx *c = p;
    cpu_analysis_free(c);
    c->an.spec = *spec;
    if (spec->rdf_bins > 0 && !(c->an.rdf = mdl_calloc((size_t)npairs(c) * spec->rdf_bins, sizeof(double), "RDF")))
        return MDL_ERUN;
    if (spec->msd) {
        c->an.msd = mdl_calloc((size_t)spec->msd_rows * c->s.ntypes, sizeof(double), "MSD");
        c->an.origin = mdl_alloc((size_t)spec->msd_origins * c->natoms * 3 * sizeof(double), "the MSD's origins");
        if (!c->an.msd || !c->an.origin)
            return MDL_ERUN;
        MDL_TRY(set_origin(c, 0));
    }
    return MDL_OK;
}

/* The list's pairs within rdf_max into the histogram (a ghost partner's pair counted as
   rdf_pair_weight says, so that the ranks' sums count each pair as one rank would). */
static void sample_rdf(cpu_ctx *c)
{
    const mdl_system *s = &c->s;
    const cpu_nlist *nl = &c->nl;
    const size_t nlocal = c->dm.nlocal;
    const int nbins = c->an.spec.rdf_bins, nt = s->ntypes;
    const double rmax = c->an.spec.rdf_max;
    double len[3], inv[3];
    box_image_lengths(&c->region, len, inv);
    for (int t = 0; t < nl->nseg; t++) {
        const cpu_nlist_segment *seg = &nl->seg[t];
        for (size_t i = seg->atom_begin; i < seg->atom_end; i++) {
            const int32_t *list = seg->data + nl->first[i];
            for (int k = 0; k < nl->count[i]; k++) {
                const int32_t j = list[k];
                double dx = s->x[i] - s->x[j], dy = s->y[i] - s->y[j], dz = s->z[i] - s->z[j];
                if (k >= nl->inner[i]) {
                    dx = min_image(dx, len[0], inv[0]);
                    dy = min_image(dy, len[1], inv[1]);
                    dz = min_image(dz, len[2], inv[2]);
                }
                const int bin = rdf_bin(sqrt(dx * dx + dy * dy + dz * dz), rmax, nbins);
                if (bin < 0)
                    continue;
                const int a = s->type[i], b = s->type[j];
                c->an.rdf[(size_t)rdf_pair_index(a, b, nt) * nbins + bin] += rdf_pair_weight(a, b, 0, (size_t)j >= nlocal);
            }
        }
    }
    c->an.volume_sum += box_volume(&s->box);
    c->an.samples++;
}

/* Sample `sample`'s sums from origin k into its lag's row. */
static void sample_msd(cpu_ctx *c, int sample, int k)
{
    const mdl_system *s = &c->s;
    double *sums = c->an.msd + (size_t)(sample - k * c->an.spec.origin_every) * s->ntypes;
    const double *origin = c->an.origin + (size_t)k * c->natoms * 3;
    for (size_t i = 0; i < c->dm.nlocal; i++) {
        const double *o = origin + 3 * (size_t)s->id[i], x[3] = {s->x[i], s->y[i], s->z[i]};
        const int32_t im[3] = {s->ix[i], s->iy[i], s->iz[i]};
        double u[3];
        box_unwrap(&s->box, x, im, u);
        const double dx = u[0] - o[0], dy = u[1] - o[1], dz = u[2] - o[2];
        sums[s->type[i]] += dx * dx + dy * dy + dz * dz;
    }
}

/* Every pair of atoms (one rank; rdf_max past the list's cutoff, up to half the distance between
   the box's closest faces), by the minimum image: each pair once, weighted as the half list's. */
static void sample_rdf_all(cpu_ctx *c)
{
    const mdl_system *s = &c->s;
    const size_t n = c->dm.nlocal;
    const int nbins = c->an.spec.rdf_bins, nt = s->ntypes;
    const size_t nh = (size_t)npairs(c) * nbins;
    const double rmax = c->an.spec.rdf_max;
    double len[3], inv[3];
    box_image_lengths(&s->box, len, inv);
    const int tri = box_is_triclinic(&s->box);
#pragma omp parallel
    {
        double *h = calloc(nh, sizeof *h); /* this thread's counts (whole numbers: any order adds alike) */
#pragma omp for schedule(dynamic, 64)
        for (size_t i = 0; i < n; i++)
            for (size_t j = i + 1; j < n && h; j++) {
                double d[3] = {s->x[i] - s->x[j], s->y[i] - s->y[j], s->z[i] - s->z[j]};
                if (tri)
                    box_min_image_triclinic(&s->box, d);
                for (int e = 0; e < 3 && !tri; e++)
                    d[e] = min_image(d[e], len[e], inv[e]);
                const int bin = rdf_bin(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), rmax, nbins);
                if (bin >= 0)
                    h[(size_t)rdf_pair_index(s->type[i], s->type[j], nt) * nbins + bin] +=
                        rdf_pair_weight(s->type[i], s->type[j], 0, 0);
            }
#pragma omp critical
        for (size_t k = 0; k < nh && h; k++)
            c->an.rdf[k] += h[k];
        if (!h)
            c->an.failed = 1;
        free(h);
    }
    c->an.volume_sum += box_volume(&s->box);
    c->an.samples++;
}

int cpu_analysis_sample(void *p, int rdf, int msd_row)
{
    cpu_ctx *c = p;
    if (rdf && c->an.rdf && c->an.spec.rdf_all_pairs)
        sample_rdf_all(c);
    else if (rdf && c->an.rdf)
        sample_rdf(c);
    if (c->an.failed) {
        mdl_error("out of memory for g(r)'s counts");
        return MDL_ERUN;
    }
    if (msd_row >= 0 && c->an.msd && msd_row < c->an.spec.msd_rows) {
        if (msd_new_origin(&c->an.spec, msd_row))
            MDL_TRY(set_origin(c, msd_row / c->an.spec.origin_every));
        for (int k = 0; k < msd_origins_taken(&c->an.spec, msd_row); k++)
            sample_msd(c, msd_row, k);
    }
    return MDL_OK;
}

int cpu_analysis_read(void *p, mdl_analysis_sums *out)
{
    cpu_ctx *c = p;
    const size_t nr = c->an.rdf ? (size_t)npairs(c) * c->an.spec.rdf_bins : 0;
    const size_t nm = c->an.msd ? (size_t)c->an.spec.msd_rows * c->s.ntypes : 0;
    if (nr)
        memcpy(out->rdf, c->an.rdf, nr * sizeof(double));
    if (nm)
        memcpy(out->msd, c->an.msd, nm * sizeof(double));
    out->rdf_samples = c->an.samples;
    out->volume_sum = c->an.volume_sum;
    if (out->origin && c->an.origin)
        memcpy(out->origin, c->an.origin, (size_t)c->an.spec.msd_origins * c->natoms * 3 * sizeof(double));
    if (comm_size() > 1) { /* the volume and samples are every rank's alike */
        if (nr)
            MDL_TRY(comm_sum_doubles(out->rdf, (int)nr));
        if (nm)
            MDL_TRY(comm_sum_doubles(out->msd, (int)nm));
    }
    return MDL_OK;
}

int cpu_analysis_resume(void *p, const mdl_analysis_sums *in)
{
    cpu_ctx *c = p;
    const size_t nr = c->an.rdf ? (size_t)npairs(c) * c->an.spec.rdf_bins : 0;
    const size_t nm = c->an.msd ? (size_t)c->an.spec.msd_rows * c->s.ntypes : 0;
    if (comm_rank() == 0) { /* the totals once: read sums the ranks' */
        if (nr)
            memcpy(c->an.rdf, in->rdf, nr * sizeof(double));
        if (nm)
            memcpy(c->an.msd, in->msd, nm * sizeof(double));
    }
    c->an.samples = in->rdf_samples;
    c->an.volume_sum = in->volume_sum;
    if (c->an.origin)
        memcpy(c->an.origin, in->origin, (size_t)c->an.spec.msd_origins * c->natoms * 3 * sizeof(double));
    return MDL_OK;
}

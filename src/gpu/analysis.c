/* The GPU's on-the-fly analysis: the sums live in device memory and samples are queued between
   steps behind the step's work, so the step never waits; read copies them out (several ranks: and
   sums them over ranks, as the MSD's origin is at the start). */
#include "context.h"

#include "../parallel/comm.h"
#include "../util/util.h"

#include <stdlib.h>
#include <string.h>

static size_t npairs(const gpu_ctx *c)
{
    return (size_t)c->ntypes * (c->ntypes + 1) / 2;
}

/* A barostat's box, as the device has it (NULL: the fixed box). */
static const mdl_box *moving_box(const gpu_ctx *c)
{
    return c->barostat ? &c->bx->grid.region : NULL;
}

/* v (device memory, n doubles) summed over the ranks, through the host. */
static int sum_over_ranks(double *v, size_t n)
{
    double *h = mdl_alloc(n * sizeof *h, "analysis sums");
    if (!h)
        return MDL_ERUN;
    int rc = gpu_synchronize() || gpu_d2h(h, v, n * sizeof *h) ? MDL_ERUN : comm_sum_doubles(h, (int)n);
    if (rc == MDL_OK && gpu_h2d(v, h, n * sizeof *h))
        rc = MDL_ERUN;
    free(h);
    return rc;
}

void gpu_analysis_free(gpu_ctx *c)
{
    gpu_free(c->an.origin);
    gpu_free(c->an.msd);
    gpu_free(c->an.hist);
    gpu_free(c->an.volume);
    memset(&c->an, 0, sizeof c->an);
}

static size_t origin_bytes(const gpu_ctx *c)
{
    return (size_t)c->an.spec.msd_origins * c->natoms * 3 * sizeof(double);
}

/* Origin k: every atom's unwrapped position now, by id (several ranks: each rank all of them). */
static int set_origin(gpu_ctx *c, int k)
{
    double *o = c->an.origin + (size_t)k * c->natoms * 3;
    TRY(gpu_memset(o, 0, c->natoms * 3 * sizeof(double)));
    TRY(gpu_msd_origin(c->n, c->x, c->y, c->z, c->ix, c->iy, c->iz, c->id, c->box, moving_box(c), o));
    if (c->halo) /* every rank every atom's origin: atoms move between ranks */
        MDL_TRY(sum_over_ranks(o, c->natoms * 3));
    return MDL_OK;
}

int gpu_analysis_start(void *p, const mdl_analysis_spec *spec)
{
    gpu_ctx *c = p;
    TRY(gpu_synchronize());
    gpu_analysis_free(c);
    c->an.spec = *spec;
    if (spec->rdf_bins > 0) {
        const size_t bytes = npairs(c) * spec->rdf_bins * sizeof *c->an.hist;
        TRY(gpu_malloc((void **)&c->an.hist, bytes, "RDF"));
        TRY(gpu_malloc((void **)&c->an.volume, sizeof(double), "RDF volume"));
        TRY(gpu_memset(c->an.hist, 0, bytes));
        TRY(gpu_memset(c->an.volume, 0, sizeof(double)));
    }
    if (spec->msd) {
        const size_t bytes = (size_t)spec->msd_rows * c->ntypes * sizeof(double);
        TRY(gpu_malloc((void **)&c->an.msd, bytes, "MSD"));
        TRY(gpu_malloc((void **)&c->an.origin, origin_bytes(c), "the MSD's origins"));
        TRY(gpu_memset(c->an.msd, 0, bytes));
        MDL_TRY(set_origin(c, 0));
    }
    return MDL_OK;
}

int gpu_analysis_sample(void *p, int rdf, int msd_row)
{
    gpu_ctx *c = p;
    if (rdf && c->an.hist) {
        int si, sk;
        gpu_list_strides(c, &si, &sk);
        /* several ranks in mixed precision: the ghosts' doubles are the last rebuild's, pos4 this step's */
#ifdef MDLITE_GPU_DOUBLE
        const mdl_real *ghosts = NULL;
#else
        const mdl_real *ghosts = c->halo ? c->pos4 : NULL;
#endif
        /* rdf_max past the list's cutoff (one rank): a capacity of -1 has every row scan every atom */
        int ghosted = 0;
        for (int d = 0; d < 3 && c->dm; d++)
            ghosted |= c->dm->ghosted[d] << d;
        TRY(gpu_rdf_sample(c->n, c->nall, c->x, c->y, c->z, ghosts, c->type, c->nl, gpu_rows_now(c),
                           gpu_list_table(c), c->count, si, sk, c->an.spec.rdf_all_pairs ? -1 : c->capacity, c->box,
                           moving_box(c), ghosted,
                           c->an.spec.rdf_max, c->an.spec.rdf_bins, c->ntypes, c->an.hist, c->an.volume));
        c->an.samples++;
    }
    if (msd_row >= 0 && c->an.msd && msd_row < c->an.spec.msd_rows) {
        if (msd_new_origin(&c->an.spec, msd_row))
            MDL_TRY(set_origin(c, msd_row / c->an.spec.origin_every));
        for (int k = 0; k < msd_origins_taken(&c->an.spec, msd_row); k++) /* into the row of its lag */
            TRY(gpu_msd_sample(c->n, c->x, c->y, c->z, c->ix, c->iy, c->iz, c->type, c->id, c->box, moving_box(c),
                               c->an.origin + (size_t)k * c->natoms * 3, c->ntypes,
                               c->an.msd + (size_t)(msd_row - k * c->an.spec.origin_every) * c->ntypes));
    }
    return MDL_OK;
}

int gpu_analysis_read(void *p, mdl_analysis_sums *out)
{
    gpu_ctx *c = p;
    TRY(gpu_synchronize());
    out->rdf_samples = c->an.samples;
    out->volume_sum = 0;
    if (c->an.hist) {
        const size_t k = npairs(c) * c->an.spec.rdf_bins;
        unsigned long long *h = mdl_alloc(k * sizeof *h, "RDF");
        if (!h)
            return MDL_ERUN;
        int bad = gpu_d2h(h, c->an.hist, k * sizeof *h) || gpu_d2h(&out->volume_sum, c->an.volume, sizeof(double));
        for (size_t q = 0; q < k; q++)
            out->rdf[q] = (double)h[q];
        free(h);
        TRY(bad);
    }
    const size_t nr = c->an.hist ? npairs(c) * c->an.spec.rdf_bins : 0, nm = (size_t)c->an.spec.msd_rows * c->ntypes;
    if (c->an.msd)
        TRY(gpu_d2h(out->msd, c->an.msd, nm * sizeof(double)));
    if (out->origin && c->an.origin)
        TRY(gpu_d2h(out->origin, c->an.origin, origin_bytes(c)));
    if (c->halo) { /* the volume and samples are every rank's alike */
        if (nr)
            MDL_TRY(comm_sum_doubles(out->rdf, (int)nr));
        if (c->an.msd)
            MDL_TRY(comm_sum_doubles(out->msd, (int)nm));
    }
    return MDL_OK;
}

int gpu_analysis_resume(void *p, const mdl_analysis_sums *in)
{
    gpu_ctx *c = p;
    const size_t nr = c->an.hist ? npairs(c) * c->an.spec.rdf_bins : 0, nm = (size_t)c->an.spec.msd_rows * c->ntypes;
    TRY(gpu_synchronize());
    if (nr && comm_rank() == 0) { /* the totals once: read sums the ranks' */
        unsigned long long *h = mdl_alloc(nr * sizeof *h, "RDF");
        if (!h)
            return MDL_ERUN;
        for (size_t q = 0; q < nr; q++)
            h[q] = (unsigned long long)in->rdf[q];
        const int bad = gpu_h2d(c->an.hist, h, nr * sizeof *h);
        free(h);
        TRY(bad);
    }
    if (nr)
        TRY(gpu_h2d(c->an.volume, &in->volume_sum, sizeof(double)));
    c->an.samples = in->rdf_samples;
    if (c->an.msd && comm_rank() == 0)
        TRY(gpu_h2d(c->an.msd, in->msd, nm * sizeof(double)));
    if (c->an.origin)
        TRY(gpu_h2d(c->an.origin, in->origin, origin_bytes(c)));
    return MDL_OK;
}

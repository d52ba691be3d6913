/* The GPU's on-the-fly analysis (one rank): the sums live in device memory and samples are queued
   between steps behind the step's work, so the step never waits; read copies them out. */
#include "context.h"

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

void gpu_analysis_free(gpu_ctx *c)
{
    gpu_free(c->an.origin);
    gpu_free(c->an.msd);
    gpu_free(c->an.hist);
    gpu_free(c->an.volume);
    memset(&c->an, 0, sizeof c->an);
}

int gpu_analysis_start(void *p, const mdl_analysis_spec *spec)
{
    gpu_ctx *c = p;
    if (c->halo) {
        mdl_error("[analysis]: on several GPU ranks not supported; run it on one GPU or on CPU ranks");
        return MDL_EINPUT;
    }
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
        TRY(gpu_malloc((void **)&c->an.origin, c->natoms * 3 * sizeof(double), "the MSD's origin"));
        TRY(gpu_memset(c->an.msd, 0, bytes));
        TRY(gpu_msd_origin(c->n, c->x, c->y, c->z, c->ix, c->iy, c->iz, c->id, c->box, moving_box(c), c->an.origin));
    }
    return MDL_OK;
}

int gpu_analysis_sample(void *p, int rdf, int msd_row)
{
    gpu_ctx *c = p;
    if (rdf && c->an.hist) {
        int si, sk;
        gpu_list_strides(c, &si, &sk);
        TRY(gpu_rdf_sample(c->n, c->nall, c->x, c->y, c->z, c->type, c->nl, gpu_rows_now(c), gpu_list_table(c),
                           c->count, si, sk, c->capacity, c->region, moving_box(c), c->an.spec.rdf_max,
                           c->an.spec.rdf_bins, c->ntypes, c->an.hist, c->an.volume));
        c->an.samples++;
    }
    if (msd_row >= 0 && c->an.msd && msd_row < c->an.spec.msd_rows)
        TRY(gpu_msd_sample(c->n, c->x, c->y, c->z, c->ix, c->iy, c->iz, c->type, c->id, c->box, moving_box(c),
                           c->an.origin, c->ntypes, c->an.msd + (size_t)msd_row * c->ntypes));
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
    if (c->an.msd)
        TRY(gpu_d2h(out->msd, c->an.msd, (size_t)c->an.spec.msd_rows * c->ntypes * sizeof(double)));
    return MDL_OK;
}

/* Chooses a backend by name ("cpu" always, "gpu" when this build has the CUDA backend) and turns a
   configuration into the backends' typed set-up. */
#include "backend.h"

#include "util.h"

#include <string.h>

const mdl_backend_ops *backend_lookup(const char *name)
{
    if (strcmp(name, "cpu") == 0)
        return &mdl_cpu_backend;
    if (strcmp(name, "gpu") == 0) {
#ifdef MDLITE_HAVE_GPU
        return &mdl_gpu_backend;
#else
        mdl_error("backend gpu: this build of mdlite has no GPU backend (configure with CUDA: -DMDLITE_CUDA=ON)");
        return NULL;
#endif
    }
    mdl_error("backend '%s': expected cpu or gpu", name);
    return NULL;
}

mdl_setup backend_setup(const mdl_config *cfg, const mdl_units *u, const mdl_pair_table *pt)
{
    mdl_setup setup = {u, pt, cfg->timestep, cfg->skin, cfg->check, MDL_NL_CELL, MDL_NL_TRANSPOSED,
                       cfg->max_neighbors, cfg->threads, {0, 0, 0}, 0};
    if (strcmp(cfg->method, "brute") == 0)
        setup.method = MDL_NL_BRUTE;
    else if (strcmp(cfg->method, "brute-atomic") == 0)
        setup.method = MDL_NL_BRUTE_ATOMIC;
    if (strcmp(cfg->layout, "row") == 0)
        setup.layout = MDL_NL_ROW;
    return setup;
}

int backend_observe(const mdl_backend_ops *ops, void *ctx, mdl_observables *o)
{
    MDL_TRY(ops->reduce_start(ctx, 0));
    return ops->reduce_poll(ctx, 0, o, 1);
}

/* Chooses a backend by name ("cpu" always, "gpu" when this build has the CUDA backend) and turns a
   configuration into the backends' typed set-up. */
#include "backend.h"

#include "../util/util.h"

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
    mdl_setup setup = {.units = u, .pairs = pt, .timestep = cfg->timestep, .skin = cfg->skin,
                       .check = cfg->check, .delay = cfg->delay, .distance_check = cfg->distance_check, .method = MDL_NL_CELL, .layout = MDL_NL_TRANSPOSED,
                       .max_neighbors = cfg->max_neighbors, .threads = cfg->threads,
                       .outer_skin = cfg->outer_skin, .list_form = (enum mdl_list_form)cfg->list_form,
                       .grow = cfg->grow, .comm = (enum mdl_gpu_comm)cfg->gpu_comm,
                       .arrays = (enum mdl_gpu_arrays)cfg->gpu_arrays, .step_mode = (enum mdl_gpu_step)cfg->gpu_step, .rebuild_timeline = cfg->rebuild_timeline};
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

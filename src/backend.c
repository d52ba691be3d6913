/* Chooses a backend by name: "cpu" always, "gpu" when this build has the CUDA backend. */
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

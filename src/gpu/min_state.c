/* Minimisation's state on one GPU: the atoms' positions and velocities set from the host's arrays
   in id order (the minimisers run on the host, the forces on the device). */
#include "context.h"
#include "../util/util.h"

#include <stdlib.h>

/* Minimisation (one GPU): the atoms moved to xyz (unwrapped, x y z per atom in id order), each put
   in the device's order with its coordinates wrapped and images counted, then the host's build. */
int gpu_set_positions(void *p, const double *xyz)
{
    gpu_ctx *c = p;
    const size_t n = c->n;
    int64_t *id = mdl_alloc((n ? n : 1) * sizeof *id, "minimisation");
    double *x = mdl_alloc((n ? 3 * n : 1) * sizeof *x, "minimisation");
    int *image = mdl_alloc((n ? 3 * n : 1) * sizeof *image, "minimisation");
    int rc = id && x && image && !gpu_d2h(id, c->id, n * sizeof *id) ? MDL_OK : MDL_ERUN;
    for (size_t i = 0; i < n && rc == MDL_OK; i++) {
        double q[3] = {xyz[3 * id[i]], xyz[3 * id[i] + 1], xyz[3 * id[i] + 2]};
        int32_t k[3] = {0, 0, 0};
        if (box_is_triclinic(&c->box))
            box_wrap_triclinic(&c->box, q, k);
        for (int d = 0; d < 3 && !box_is_triclinic(&c->box); d++)
            q[d] = box_wrap(q[d], c->box.lo[d], c->box.len[d], &k[d]);
        for (int d = 0; d < 3; d++)
            x[d * n + i] = q[d], image[d * n + i] = k[d];
    }
    double *dx[] = {c->x, c->y, c->z};
    int *di[] = {c->ix, c->iy, c->iz};
    for (int d = 0; d < 3 && rc == MDL_OK; d++)
        rc = gpu_h2d(dx[d], x + d * n, n * sizeof *x) || gpu_h2d(di[d], image + d * n, n * sizeof *image) ? MDL_ERUN
                                                                                                      : MDL_OK;
    free(id);
    free(x);
    free(image);
    return rc == MDL_OK ? gpu_build_neighbors(c) : rc;
}

/* FIRE's velocities (x y z per atom in id order) into the device's order. */
int gpu_set_velocities(void *p, const double *v)
{
    gpu_ctx *c = p;
    const size_t n = c->n;
    int64_t *id = mdl_alloc((n ? n : 1) * sizeof *id, "minimisation");
    double *w = mdl_alloc((n ? 3 * n : 1) * sizeof *w, "minimisation");
    int rc = id && w && !gpu_d2h(id, c->id, n * sizeof *id) ? MDL_OK : MDL_ERUN;
    for (size_t i = 0; i < n && rc == MDL_OK; i++)
        for (int d = 0; d < 3; d++)
            w[d * n + i] = v[3 * id[i] + d];
    double *dv[] = {c->vx, c->vy, c->vz};
    for (int d = 0; d < 3 && rc == MDL_OK; d++)
        rc = gpu_h2d(dv[d], w + d * n, n * sizeof *w) ? MDL_ERUN : MDL_OK;
    free(id);
    free(w);
    return rc;
}

/* `mdlite neighbors --backend gpu`: the book's neighbor demo on the device, through the GPU
   backend's own build path (wrap, sort by cell, build, grow on overflow), each build timed with
   CUDA events, the list brought back in the file's atom order. */
#include "neighbors_demo.h"

#include "../backend.h"
#include "../util.h"
#include "gpu.h"

#include <stdlib.h>
#include <string.h>

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int gpu_neighbor_demo(const mdl_system *s, double rc, enum mdl_nl_method method, enum mdl_nl_layout layout,
                      long repeat, int **rows, size_t **start, double *median)
{
    mdl_units u;
    units_lookup("lj", &u);
    mdl_pair_table pt;
    memset(&pt, 0, sizeof pt);
    pt.ntypes = s->ntypes > 0 ? s->ntypes : 1;
    pt.cutmax = rc;
    mdl_system sys = *s; /* the backend copies what it needs; masses only matter for integration */
    for (int t = 0; t < pt.ntypes; t++)
        sys.mass[t] = sys.mass[t] > 0 ? sys.mass[t] : 1.0;
    void *ctx = NULL;
    gpu_timer *timer = NULL;
    double *times = calloc((size_t)repeat, sizeof *times);
    /* a set-up that asks for exactly this list: cutoff rc, no skin, no potential */
    mdl_setup setup = {&u, &pt, 1.0, 0.0, method, layout, 0, 0};
    int rc_ = times && mdl_gpu_backend.create(&ctx, &setup, &sys) == MDL_OK &&
                      gpu_timer_create(&timer) == 0 && mdl_gpu_backend.build_neighbors(ctx) == MDL_OK /* warm-up */
                  ? MDL_OK
                  : MDL_ERUN;
    for (long r = 0; r < repeat && rc_ == MDL_OK; r++) {
        if (gpu_timer_start(timer) || mdl_gpu_backend.build_neighbors(ctx) != MDL_OK ||
            gpu_timer_stop(timer, &times[r]))
            rc_ = MDL_ERUN;
    }
    if (rc_ == MDL_OK) {
        qsort(times, (size_t)repeat, sizeof *times, cmp_dbl);
        *median = times[repeat / 2];
        rc_ = gpu_backend_neighbor_rows(ctx, rows, start);
    }
    gpu_timer_destroy(timer);
    if (ctx)
        mdl_gpu_backend.destroy(ctx);
    free(times);
    return rc_;
}

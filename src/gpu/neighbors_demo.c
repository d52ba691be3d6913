/* `mdlite neighbors --backend gpu`: the book's neighbor demo on the device, each builder timed
   with CUDA events, the list brought back in the file's atom order. */
#include "backend.h"

#include "../util.h"
#include "gpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double *x, *y, *z;
    int *ix, *iy, *iz, *type, *cell, *perm, *start, *end, *nl, *count, *flags;
    mdl_real *pos4;
} demo_dev;

static void demo_free(demo_dev *d)
{
    void *p[] = {d->x, d->y, d->z, d->ix, d->iy, d->iz, d->type, d->cell, d->perm, d->start, d->end, d->nl,
                 d->count, d->flags, d->pos4};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++)
        gpu_free(p[k]);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One build from the file's order: pack, (cell: bin + sort + bounds), list. Returns the largest
   count when the capacity was too small (0 otherwise), or -1 on error. */
static int build_once(demo_dev *d, const mdl_system *s, gpu_box box, const int nc[3], double rc, int method,
                      int capacity, int si, int sk)
{
    size_t n = s->n;
    int flags[2] = {0, 0};
    if (gpu_h2d(d->x, s->x, n * 8) || gpu_h2d(d->y, s->y, n * 8) || gpu_h2d(d->z, s->z, n * 8) ||
        gpu_memset(d->flags, 0, 2 * sizeof(int)))
        return -1;
    if (gpu_wrap_and_pack(n, box, d->x, d->y, d->z, d->ix, d->iy, d->iz, d->type, d->pos4))
        return -1;
    if (method == 0) {
        size_t ncells = (size_t)nc[0] * nc[1] * nc[2];
        if (gpu_cell_index(n, box, nc, d->pos4, d->cell, d->perm) || mdl_sort_by_key_int(d->cell, d->perm, n) ||
            gpu_gather_double(n, d->perm, d->x, (double *)d->nl) || gpu_d2d(d->x, d->nl, n * 8) ||
            gpu_gather_double(n, d->perm, d->y, (double *)d->nl) || gpu_d2d(d->y, d->nl, n * 8) ||
            gpu_gather_double(n, d->perm, d->z, (double *)d->nl) || gpu_d2d(d->z, d->nl, n * 8) ||
            gpu_wrap_and_pack(n, box, d->x, d->y, d->z, d->ix, d->iy, d->iz, d->type, d->pos4) ||
            gpu_cell_bounds(n, ncells, d->cell, d->start, d->end) ||
            gpu_build_cell(n, box, nc, d->start, d->end, d->pos4, rc, d->nl, d->count, capacity, si, sk, d->flags))
            return -1;
    } else if (method == 1) {
        if (gpu_build_brute(n, box, d->pos4, rc, d->nl, d->count, capacity, si, sk, d->flags))
            return -1;
    } else if (gpu_build_brute_atomic(n, box, d->pos4, rc, d->nl, d->count, capacity, si, sk, d->flags)) {
        return -1;
    }
    if (gpu_d2h(flags, d->flags, sizeof flags))
        return -1;
    return flags[1] > capacity ? flags[1] : 0;
}

int gpu_neighbor_demo(const mdl_system *s, double rc, const char *method_name, int transposed, long repeat,
                      int **rows_out, size_t **start_out, double *median)
{
    size_t n = s->n;
    int method = strcmp(method_name, "brute") == 0 ? 1 : strcmp(method_name, "brute-atomic") == 0 ? 2 : 0;
    gpu_box box;
    int nc[3];
    for (int d = 0; d < 3; d++) {
        box.lo[d] = s->box.lo[d], box.len[d] = s->box.len[d], box.periodic[d] = s->box.periodic[d];
        nc[d] = box.len[d] > 0 ? (int)floor(box.len[d] / rc) : 1;
        nc[d] = nc[d] < 1 ? 1 : nc[d];
    }
    size_t ncells = (size_t)nc[0] * nc[1] * nc[2];
    int capacity = 32;
    demo_dev d;
    memset(&d, 0, sizeof d);
    int rc_ = MDL_ERUN;
    double *times = calloc((size_t)repeat, sizeof *times);
    int *perm = malloc(n * sizeof *perm), *count = malloc(n * sizeof *count), *nl = NULL;
    gpu_timer *timer = NULL;
    if (!times || !perm || !count || gpu_select() || gpu_timer_create(&timer))
        goto done;
    if (gpu_malloc((void **)&d.x, n * 8, "x") || gpu_malloc((void **)&d.y, n * 8, "y") ||
        gpu_malloc((void **)&d.z, n * 8, "z") || gpu_malloc((void **)&d.ix, n * 4, "images") ||
        gpu_malloc((void **)&d.iy, n * 4, "images") || gpu_malloc((void **)&d.iz, n * 4, "images") ||
        gpu_malloc((void **)&d.type, n * 4, "types") || gpu_malloc((void **)&d.cell, n * 4, "cells") ||
        gpu_malloc((void **)&d.perm, n * 4, "perm") || gpu_malloc((void **)&d.start, ncells * 4, "cells") ||
        gpu_malloc((void **)&d.end, ncells * 4, "cells") || gpu_malloc((void **)&d.count, n * 4, "counts") ||
        gpu_malloc((void **)&d.flags, 8, "flags") || gpu_malloc((void **)&d.pos4, n * 4 * sizeof(mdl_real), "pos"))
        goto done;
    if (gpu_memset(d.ix, 0, n * 4) || gpu_memset(d.iy, 0, n * 4) || gpu_memset(d.iz, 0, n * 4) ||
        gpu_memset(d.type, 0, n * 4))
        goto done;
    for (long r = -1; r < repeat; r++) { /* r = -1: warm-up, sizes the list */
        for (;;) {
            int si = transposed ? 1 : capacity, sk = transposed ? (int)n : 1;
            if (!d.nl && gpu_malloc((void **)&d.nl, (size_t)capacity * n * 4 + n * 8, "neighbor list"))
                goto done;
            if (r >= 0 && gpu_timer_start(timer))
                goto done;
            int need = build_once(&d, s, box, nc, rc, method, capacity, si, sk);
            if (need < 0)
                goto done;
            double t;
            if (r >= 0 && gpu_timer_stop(timer, &t))
                goto done;
            if (need == 0) {
                if (r >= 0)
                    times[r] = t;
                break;
            }
            capacity = need + 4;
            gpu_free(d.nl);
            d.nl = NULL;
        }
    }
    qsort(times, (size_t)repeat, sizeof *times, cmp_dbl);
    *median = times[repeat / 2];
    /* rows in file order: for the cell method, sorted position k holds file atom perm[k] */
    int si = transposed ? 1 : capacity, sk = transposed ? (int)n : 1;
    nl = malloc((size_t)capacity * n * sizeof *nl);
    size_t *start = calloc(n + 1, sizeof *start);
    int *rows = NULL;
    if (!nl || !start || gpu_d2h(nl, d.nl, (size_t)capacity * n * 4) || gpu_d2h(count, d.count, n * 4)) {
        free(start);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        perm[i] = (int)i;
    if (method == 0 && gpu_d2h(perm, d.perm, n * 4)) {
        free(start);
        goto done;
    }
    for (size_t k = 0; k < n; k++)
        start[perm[k] + 1] = (size_t)count[k];
    for (size_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    rows = malloc((start[n] + 1) * sizeof *rows);
    if (!rows) {
        free(start);
        goto done;
    }
    for (size_t k = 0; k < n; k++) {
        int *row = rows + start[perm[k]];
        for (int q = 0; q < count[k]; q++)
            row[q] = perm[nl[(size_t)k * si + (size_t)q * sk]];
        qsort(row, (size_t)count[k], sizeof *row, cmp_int);
    }
    *rows_out = rows;
    *start_out = start;
    rc_ = MDL_OK;
done:
    gpu_timer_destroy(timer);
    demo_free(&d);
    free(times), free(perm), free(count), free(nl);
    return rc_;
}

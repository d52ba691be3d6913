/* Snapshots for the writer thread: a field's three device arrays scattered into id order; a
   checkpoint's positions of the last build and the atoms' places in their order. */
#include "common.cuh"

template <typename S, typename D>
__global__ void scatter3_kernel(int n, const int64_t *__restrict__ id, const S *__restrict__ a,
                                const S *__restrict__ b, const S *__restrict__ c, D *da, D *db, D *dc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int64_t k = id[i];
        da[k] = (D)a[i];
        db[k] = (D)b[i];
        dc[k] = (D)c[i];
    }
}

template <typename S, typename D>
static int scatter3(size_t n, const int64_t *id, const S *const src[3], D *const dst[3], const char *what)
{
    scatter3_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, id, src[0], src[1], src[2],
                                                                             dst[0], dst[1], dst[2]);
    MDL_LAUNCHED(what);
    return 0;
}

extern "C" int gpu_scatter3_double(size_t n, const int64_t *id, const double *const src[3], double *const dst[3])
{
    return scatter3(n, id, src, dst, "scatter3_double");
}

extern "C" int gpu_scatter3_real(size_t n, const int64_t *id, const mdl_real *const src[3], double *const dst[3])
{
    return scatter3(n, id, src, dst, "scatter3_real");
}

extern "C" int gpu_scatter3_int(size_t n, const int64_t *id, const int *const src[3], int *const dst[3])
{
    return scatter3(n, id, src, dst, "scatter3_int");
}

/* The positions packed at the last build (pos0) and each atom's place i, into id order. */
__global__ void scatter_build_kernel(int n, const int64_t *__restrict__ id, const pos_t *pos0, double *bx,
                                     double *by, double *bz, int *order)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const int64_t k = id[i];
        const real4 p = pos_at(pos0, i);
        bx[k] = (double)p.x, by[k] = (double)p.y, bz[k] = (double)p.z;
        order[k] = i;
    }
}

extern "C" int gpu_scatter_build(size_t n, const int64_t *id, const mdl_real *pos0, double *const dst[3], int *order)
{
    scatter_build_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, id, (const pos_t *)pos0,
                                                                                  dst[0], dst[1], dst[2], order);
    MDL_LAUNCHED("scatter_build");
    return 0;
}

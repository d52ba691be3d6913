// One rank's ghosts as images of its own atoms (a box shorter than twice the ghost cutoff, or a
// triclinic one): made in one pass at a rebuild (each atom's images within the region, counted,
// summed, written), linked to their roots after the sort, and refreshed from them in one pass each
// step; EAM's F'(rho) to them the same way (gpu.h).
#include "common.cuh"

/* After the sort: ghost j (slot n + j, once slot perm[n + j]) gets its chain with the root's new slot. */
__global__ void self_links_kernel(int nghost, int n, const int *perm, const int *inv, int base, const int4 *chain,
                                  int4 *link)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= nghost)
        return;
    int4 c = chain[perm[n + j] - base];
    c.x = inv[c.x];
    link[j] = c;
}

extern "C" int gpu_self_links(size_t nghost, size_t n, const int *perm, const int *inv, size_t base,
                              const int *chain, int *link)
{
    if (nghost == 0)
        return 0;
    self_links_kernel<<<grid_for(nghost, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>(
        (int)nghost, (int)n, perm, inv, (int)base, (const int4 *)chain, (int4 *)link);
    MDL_LAUNCHED("self_links");
    return 0;
}

/* Every ghost from its root atom and images in the box as it is, into pos4 (WIDE: and its doubles);
   with `wish` (a check), the rank's wish set first, its own decision (gpu_pack_positions). */
template <bool WIDE>
__global__ void self_refresh_kernel(int nghost, int n, const int4 *link, mdl_box b, double *x, double *y, double *z,
                                    pos_t *pos, gpu_nb_state *wish, const int *flags)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k == 0 && wish)
        set_wish(wish, flags);
    if (k >= nghost)
        return;
    const int4 l = link[k];
    const double px = x[l.x] + (l.y * b.len[0] + l.z * b.tilt[0] + l.w * b.tilt[1]);
    const double py = y[l.x] + (l.z * b.len[1] + l.w * b.tilt[2]);
    const double pz = z[l.x] + l.w * b.len[2];
    const int i = n + k;
    if (WIDE)
        x[i] = px, y[i] = py, z[i] = pz;
    real4 p = pos_at(pos, i);
    p.x = (mdl_real)px, p.y = (mdl_real)py, p.z = (mdl_real)pz;
    pos_put(pos, i, p);
}

extern "C" int gpu_self_refresh(size_t nghost, size_t n, const int *link, mdl_box box, double *x, double *y,
                                double *z, mdl_real *pos4, gpu_nb_state *wish, const int *flags)
{
    if (nghost == 0 && !wish)
        return 0;
    const unsigned g = grid_for(nghost ? nghost : 1, MDL_BLOCK);
#ifdef MDLITE_GPU_DOUBLE /* the analysis reads the ghosts' doubles in double precision */
    self_refresh_kernel<true><<<g, MDL_BLOCK, 0, g_mdl_stream>>>((int)nghost, (int)n, (const int4 *)link, box, x, y, z,
                                                                  (pos_t *)pos4, wish, flags);
#else
    self_refresh_kernel<false><<<g, MDL_BLOCK, 0, g_mdl_stream>>>((int)nghost, (int)n, (const int4 *)link, box, x, y,
                                                                   z, (pos_t *)pos4, wish, flags);
#endif
    MDL_LAUNCHED("self_refresh");
    return 0;
}

/* v[n + k] = v[root of ghost k] (EAM's F'(rho) to the ghosts). */
__global__ void self_values_kernel(int nghost, int n, const int4 *link, mdl_real *v)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nghost)
        v[n + k] = v[link[k].x];
}

extern "C" int gpu_self_values(size_t nghost, size_t n, const int *link, mdl_real *v)
{
    if (nghost == 0)
        return 0;
    self_values_kernel<<<grid_for(nghost, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)nghost, (int)n,
                                                                                     (const int4 *)link, v);
    MDL_LAUNCHED("self_values");
    return 0;
}

/* The images n (|n| <= hops[d]) along dimension d that put coordinate u (box_along's) within the
   region lo - reach <= u + n len < hi + reach, as a range [*first, *last] (n = 0 alone along an
   axis without ghosts: the minimum image's). */
__device__ __forceinline__ void image_range(const gpu_self_geometry &g, int d, double u, int *first, int *last)
{
    *first = *last = 0;
    for (int n = -g.hops[d]; n <= g.hops[d]; n++) {
        const double v = u + n * g.box.len[d];
        if (v >= g.lo[d] - g.reach[d] && v < g.hi[d] + g.reach[d]) {
            *first = min(*first, n);
            *last = max(*last, n);
        }
    }
}

/* count[i]: the ghosts atom i makes (every image in the region but itself). */
__global__ void self_count_kernel(int n, gpu_self_geometry g, const double *x, const double *y, const double *z,
                                  int *count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double p[3] = {x[i], y[i], z[i]};
    int images = 1;
    for (int d = 0; d < 3; d++) {
        int a, b;
        image_range(g, d, box_along(&g.box, p, d), &a, &b);
        images *= b - a + 1;
    }
    count[i] = images - 1;
}

/* Atom i's ghosts into slots at + end[i] - count[i] .. (end: the counts' inclusive sum): positions
   plus edge vectors, species, pos4, no longer gone; their root and images into chain (from slot
   at on). */
__global__ void self_fill_kernel(int n, gpu_self_geometry g, const int *count, const int *end, int at, double *x,
                                 double *y, double *z, int *type, pos_t *pos, int *gone, int4 *chain)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double p[3] = {x[i], y[i], z[i]};
    int first[3], last[3];
    for (int d = 0; d < 3; d++)
        image_range(g, d, box_along(&g.box, p, d), &first[d], &last[d]);
    int k = end[i] - count[i];
    const int t = type[i];
    for (int c = first[2]; c <= last[2]; c++)
        for (int b = first[1]; b <= last[1]; b++)
            for (int a = first[0]; a <= last[0]; a++) {
                if (a == 0 && b == 0 && c == 0)
                    continue;
                const int j = at + k;
                const double px = p[0] + (a * g.box.len[0] + b * g.box.tilt[0] + c * g.box.tilt[1]);
                const double py = p[1] + (b * g.box.len[1] + c * g.box.tilt[2]);
                const double pz = p[2] + c * g.box.len[2];
                x[j] = px, y[j] = py, z[j] = pz;
                type[j] = t, gone[j] = 0;
                real4 q;
                q.x = (mdl_real)px, q.y = (mdl_real)py, q.z = (mdl_real)pz;
                q.w = type_to_real(t);
                pos_put(pos, j, q);
                chain[k] = make_int4(i, a, b, c);
                k++;
            }
}

extern "C" int gpu_self_count(size_t n, const gpu_self_geometry *g, const double *x, const double *y,
                              const double *z, int *count)
{
    if (n == 0)
        return 0;
    self_count_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, *g, x, y, z, count);
    MDL_LAUNCHED("self_count");
    return 0;
}

extern "C" int gpu_self_fill(size_t n, const gpu_self_geometry *g, const int *count, const int *end, size_t at,
                             double *x, double *y, double *z, int *type, mdl_real *pos4, int *gone, int *chain)
{
    if (n == 0)
        return 0;
    self_fill_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>(
        (int)n, *g, count, end, (int)at, x, y, z, type, (pos_t *)pos4, gone, (int4 *)chain);
    MDL_LAUNCHED("self_fill");
    return 0;
}

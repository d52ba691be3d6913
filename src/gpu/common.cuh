/* Shared CUDA helpers for the .cu files of src/gpu: checked calls, launch shapes, real-typed vectors. */
#ifndef MDL_GPU_COMMON_CUH
#define MDL_GPU_COMMON_CUH

#include "../util/util.h"
#include "gpu.h"

#include <cuda_runtime.h>
#include <stdio.h>

#define MDL_CUDA(call)                                                                          \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            mdl_error("CUDA: %s at %s:%d: %s", #call, __FILE__, __LINE__, \
                    cudaGetErrorString(err_));                                                  \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

#define MDL_LAUNCHED(name)                     \
    do {                                       \
        if (gpu_check_launch(name) != 0)       \
            return 1;                          \
    } while (0)

#define MDL_BLOCK 128

/* The stream every launch and asynchronous copy of src/gpu goes to: the legacy default stream,
   or the capture stream while a graph is being recorded (graph.cu). */
extern cudaStream_t g_mdl_stream;

static inline unsigned grid_for(size_t n, unsigned block)
{
    return (unsigned)((n + block - 1) / block);
}

/* real4: one atom's packed position (x y z and the species) as a value. pos_t: what arrays of
   packed positions are made of (gpu.h's layout), read with pos_at (plain loads) or load4 (through
   the read-only cache; load4_cg past L1, for positions other blocks write within the same launch)
   and written with pos_put. */
#ifdef MDLITE_GPU_DOUBLE
struct __align__(32) real4 {
    double x, y, z, w;
};
struct pos_t { /* GPU_POS_BLOCK atoms */
    double2 xy[GPU_POS_BLOCK];
    double z[GPU_POS_BLOCK], w[GPU_POS_BLOCK];
};
__device__ __forceinline__ real4 pos_at(const pos_t *p, int i)
{
    const pos_t &b = p[(unsigned)i / GPU_POS_BLOCK];
    const int r = (unsigned)i % GPU_POS_BLOCK;
    const double2 a = b.xy[r];
    return {a.x, a.y, b.z[r], b.w[r]};
}
__device__ __forceinline__ real4 load4(const pos_t *p, int i)
{
    const pos_t &b = p[(unsigned)i / GPU_POS_BLOCK];
    const int r = (unsigned)i % GPU_POS_BLOCK;
    const double2 a = __ldg(&b.xy[r]);
    return {a.x, a.y, __ldg(&b.z[r]), __ldg(&b.w[r])};
}
__device__ __forceinline__ real4 load4_cg(const pos_t *p, int i)
{
    const pos_t &b = p[(unsigned)i / GPU_POS_BLOCK];
    const int r = (unsigned)i % GPU_POS_BLOCK;
    const double2 a = __ldcg(&b.xy[r]);
    return {a.x, a.y, __ldcg(&b.z[r]), __ldcg(&b.w[r])};
}
__device__ __forceinline__ void pos_put(pos_t *p, int i, real4 v)
{
    pos_t &b = p[(unsigned)i / GPU_POS_BLOCK];
    const int r = (unsigned)i % GPU_POS_BLOCK;
    b.xy[r] = make_double2(v.x, v.y), b.z[r] = v.z, b.w[r] = v.w;
}
__device__ __forceinline__ mdl_real type_to_real(int t) { return (mdl_real)t; }
__device__ __forceinline__ int real_to_type(mdl_real r) { return (int)r; }
#else
typedef float4 real4;
typedef float4 pos_t;
__device__ __forceinline__ real4 pos_at(const pos_t *p, int i) { return p[i]; }
__device__ __forceinline__ real4 load4(const pos_t *p, int i) { return __ldg(&p[i]); }
__device__ __forceinline__ real4 load4_cg(const pos_t *p, int i) { return __ldcg(&p[i]); }
__device__ __forceinline__ void pos_put(pos_t *p, int i, real4 v) { p[i] = v; }
__device__ __forceinline__ mdl_real type_to_real(int t) { return __int_as_float(t); }
__device__ __forceinline__ int real_to_type(mdl_real r) { return __float_as_int(r); }
#endif

/* The cell of coordinate v along a dimension of nc cells over [lo, lo + len), in the pair
   kernels' precision (clamped to the grid): the sort's keys and the builders must agree. */
__device__ __forceinline__ int cell_coord(mdl_real v, double lo, double len, int nc)
{
    int c = (int)((v - (mdl_real)lo) * (mdl_real)(nc / len));
    return c < 0 ? 0 : c >= nc ? nc - 1 : c;
}

/* The cell coordinates of packed position p in the region's grid of nc cells: the sort's keys
   (cell_of) and the builders' own cell agree. */
__device__ __forceinline__ int3 cell_coords(real4 p, const mdl_box &b, int3 nc)
{
    return make_int3(cell_coord(p.x, b.lo[0], b.len[0] > 0 ? b.len[0] : 1, nc.x),
                     cell_coord(p.y, b.lo[1], b.len[1] > 0 ? b.len[1] : 1, nc.y),
                     cell_coord(p.z, b.lo[2], b.len[2] > 0 ? b.len[2] : 1, nc.z));
}

/* The cell of packed position p in the region's grid of nc cells. */
__device__ __forceinline__ int cell_of(real4 p, const mdl_box &b, int3 nc)
{
    const int3 c = cell_coords(p, b, nc);
    return (c.z * nc.y + c.y) * nc.x + c.x;
}

/* The minimum image (physics/box.h) in the pair kernels' precision (len = inv = 0 on open
   dimensions). */
MDL_MIN_IMAGE(mdl_real, _real)

struct image_lengths {
    mdl_real len[3], inv[3];
};

/* (host and device: the kernels take the box from device memory, where a barostat moves it) */
static inline __host__ __device__ image_lengths make_image_lengths(const mdl_box &b)
{
    double len[3], inv[3];
    box_image_lengths(&b, len, inv);
    image_lengths m;
    for (int d = 0; d < 3; d++)
        m.len[d] = (mdl_real)len[d], m.inv[d] = (mdl_real)inv[d];
    return m;
}

/* The grid a kernel works in: its parameter, or under a barostat (MOVING) the device's. */
#define KERNEL_GRID(MOVING, grid, moving)                                                                      \
    const gpu_grid &g = MOVING ? *moving : grid;                                                               \
    const mdl_box &b = g.region;                                                                               \
    const int3 nc = make_int3(g.nc[0], g.nc[1], g.nc[2]);                                                      \
    const image_lengths m = {{g.len[0], g.len[1], g.len[2]}, {g.inv[0], g.inv[1], g.inv[2]}}

/* Atom i's velocity-Verlet update from its force f (the kick_drift kernel's, and the force
   kernel's chained epilogue, so both give the same bits): v += a f KICKS times (a = dtf / m; the
   last step's second half kick, then this one's first), x += dt v; returns the new packed
   position, whose w is `w`. SCALED (Nose-Hoover): the velocity is scaled by `scale` before this
   step's kick (after the last step's). */
template <int KICKS, bool SCALED = false>
__device__ __forceinline__ real4 kick_drift_of(int i, double a, double dt, mdl_real fx, mdl_real fy, mdl_real fz,
                                               mdl_real w, double *x, double *y, double *z, double *vx,
                                               double *vy, double *vz, double scale = 1.0)
{
    double u = vx[i], v = vy[i], s = vz[i];
    if (KICKS == 2)
        u = u + a * fx, v = v + a * fy, s = s + a * fz;
    if (SCALED)
        u *= scale, v *= scale, s *= scale;
    u = u + a * fx, v = v + a * fy, s = s + a * fz;
    vx[i] = u, vy[i] = v, vz[i] = s;
    const double px = x[i] + dt * u, py = y[i] + dt * v, pz = z[i] + dt * s;
    x[i] = px, y[i] = py, z[i] = pz;
    real4 p;
    p.x = (mdl_real)px, p.y = (mdl_real)py, p.z = (mdl_real)pz, p.w = w;
    return p;
}

/* The skin test of the atoms of the calling lanes (live: all of them, converged), d2 their
   squared displacements since the last build: far once one moved more than skin/2 (half2 is its
   square), unsafe past the whole skin or not finite; one store per warp that has such an atom. */
__device__ __forceinline__ void skin_flags(unsigned live, mdl_real d2, mdl_real half2, mdl_real skin2, int *far,
                                           int *unsafe)
{
    const bool is_far = d2 > half2, is_unsafe = !(d2 <= skin2); /* NaN is unsafe */
    const bool leader = (int)(threadIdx.x & 31) == __ffs(live) - 1;
    if (__any_sync(live, is_far) && leader)
        *far = 1;
    if (__any_sync(live, is_unsafe) && leader)
        *unsafe = 1;
}

/* Pruned lists: far_outer once an atom of the calling lanes (live, converged) may have moved more
   than half the outer list's skin (half) since its build: its distance from the outer list's
   position at the last prune (q.w, gpu_prune_list) plus its distance from there (d2: squared). */
__device__ __forceinline__ void outer_flag(unsigned live, real4 q, mdl_real d2, mdl_real half, int *far_outer)
{
    if (__any_sync(live, q.w + sqrt(d2) > half) && (int)(threadIdx.x & 31) == __ffs(live) - 1)
        *far_outer = 1;
}

/* A neighbor's position: through the read-only cache, or (CG: written within this launch) past L1. */
template <bool CG>
__device__ __forceinline__ real4 neighbor_at(const pos_t *p, int i)
{
    return CG ? load4_cg(p, i) : load4(p, i);
}

__device__ __forceinline__ mdl_real displacement2(real4 p, real4 q)
{
    const mdl_real dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
    return dx * dx + dy * dy + dz * dz;
}

/* ---- deterministic sums (integrate.cu's reductions, nose_hoover.cu's chains) ---- */
#define RED_BLOCK 256
#define RED_MAX_BLOCKS 1024

__device__ __forceinline__ double warp_sum(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

/* Block-wide sum of three values in a fixed order; thread 0 gets the result. */
__device__ __forceinline__ double3 block_sum3(double a, double b, double c)
{
    __shared__ double s[3][RED_BLOCK / 32];
    a = warp_sum(a), b = warp_sum(b), c = warp_sum(c);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        s[0][warp] = a, s[1][warp] = b, s[2][warp] = c;
    __syncthreads();
    double3 r = make_double3(0, 0, 0);
    if (warp == 0) {
        int nw = blockDim.x / 32;
        a = lane < nw ? s[0][lane] : 0.0;
        b = lane < nw ? s[1][lane] : 0.0;
        c = lane < nw ? s[2][lane] : 0.0;
        r = make_double3(warp_sum(a), warp_sum(b), warp_sum(c));
    }
    return r;
}

/* How a force kernel reads atom indices from its list: through the caches, or (STREAM) loaded to be
   evicted first (each int is read once per step; the caches are left to the neighbors'
   positions). */
template <bool STREAM>
__device__ __forceinline__ unsigned list_load(const unsigned *p)
{
    return STREAM ? __ldcs(p) : __ldg(p);
}

/* Atom indices loaded to be evicted first below 1,000,000 atoms, where it pays (H100, mixed,
   atom-steps/s): 131,072 atoms 1.47e9 -> 1.62e9, 256,000 1.98e9 -> 2.14e9, 500,000 2.21e9 ->
   2.26e9; 1,048,576 2.44e9 -> 2.43e9 and 2,048,000 2.54e9 -> 2.52e9 lose. */
static inline bool list_streamed(size_t n)
{
    return n < 1000000;
}

/* The force kernels' chained epilogue: atom i's kicks and drift from its force, the new position
   into ch.pos_out (nobody reads pos[i] from there in this pass) and the skin test (its squares as
   gpu_kick_drift's). */
template <bool SINGLE>
__device__ __forceinline__ void chained_kicks(int i, real4 pi, mdl_real fxi, mdl_real fyi, mdl_real fzi,
                                              const gpu_chain &ch)
{
    const real4 p = kick_drift_of<2>(i, ch.dtf * ch.inv_mass[SINGLE ? 0 : real_to_type(pi.w)], ch.dt, fxi, fyi, fzi,
                                     pi.w, ch.x, ch.y, ch.z, ch.vx, ch.vy, ch.vz);
    pos_put((pos_t *)ch.pos_out, i, p);
    const mdl_real half2 = (mdl_real)(0.25 * ch.skin * ch.skin), skin2 = (mdl_real)(ch.unsafe_skin * ch.unsafe_skin);
    const real4 q = pos_at((const pos_t *)ch.pos0, i);
    const mdl_real d2 = displacement2(p, q);
    skin_flags(__activemask(), d2, half2, skin2, &ch.st->far, &ch.st->unsafe);
    if (ch.outer_skin > 0)
        outer_flag(__activemask(), q, d2, (mdl_real)(0.5 * ch.outer_skin), &ch.st->far_outer);
}

/* The minimum image's lengths in EAM's constant memory (eam_force.cu) follow the pair kernels'
   (gpu_set_image from the host, gpu_copy_image from the device's grid), while an EAM style runs. */
int eam_follow_image(const void *lengths, bool on_device);

/* This rank's wish into halt (unsafe: 2, past half the skin: 1, else 0), before the ranks'
   maximum replaces it (the step kernels after it run only when no rank wants a rebuild); the
   longest row its last build asked for (0: it fit) into need. */
__device__ __forceinline__ void set_wish(gpu_nb_state *st, const int *flags)
{
    st->halt = st->unsafe ? 2 : st->far;
    st->need = flags[1];
}

#endif

// GPU EAM forces (LAMMPS eam, eam/alloy, eam/fs; cpu/eam_force.c's mirror): a density kernel that
// also takes F'(rho), then the force kernel, over full lists (plain rows), owner-computes, 1 or 4
// lanes per atom, the splines' halves in shared memory where they fit.
#include "../physics/eam.h"
#include "../physics/pair_styles.h" /* enum mdl_ev */
#include "../physics/species.h"
#include "common.cuh"

#define MAXT MDL_MAX_SPECIES

/* The minimum image's lengths, as force.cu's c_image (copied with it while an EAM style runs). */
__constant__ image_lengths c_eam_image;
static bool s_eam_runs;

int eam_follow_image(const void *lengths, bool on_device)
{
    if (!s_eam_runs)
        return 0;
    MDL_CUDA(cudaMemcpyToSymbolAsync(c_eam_image, lengths, sizeof(image_lengths), 0,
                                     on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, g_mdl_stream));
    return 0;
}

MDL_EAM_SPLINE(mdl_real, _real)

/* The tables (device memory, mdl_real, GPU_EAM_STRIDE reals a point: gpu.h) and grids; the
   species' maps into them. */
struct eam_tables {
    const mdl_real *frho, *rhor, *z2r;
    int nrho, nr, nrhor, nz2r;
    mdl_real rdr, rdrho, rhomax, cutsq;
};
__constant__ eam_tables c_eam;
__constant__ int c_t2frho[MAXT], c_t2rhor[MAXT * MAXT], c_t2z2r[MAXT * MAXT];
static eam_tables h_eam; /* the host's copy: the planes' sizes */

extern "C" int gpu_set_eam(const gpu_eam *e)
{
    h_eam = {e->frho, e->rhor, e->z2r, e->nrho, e->nr, e->nrhor, e->nz2r, (mdl_real)e->rdr, (mdl_real)e->rdrho,
             (mdl_real)e->rhomax, (mdl_real)(e->cut * e->cut)};
    MDL_CUDA(cudaMemcpyToSymbol(c_eam, &h_eam, sizeof h_eam));
    MDL_CUDA(cudaMemcpyToSymbol(c_t2frho, e->type2frho, sizeof c_t2frho));
    MDL_CUDA(cudaMemcpyToSymbol(c_t2rhor, e->type2rhor, sizeof c_t2rhor));
    MDL_CUDA(cudaMemcpyToSymbol(c_t2z2r, e->type2z2r, sizeof c_t2z2r));
    s_eam_runs = true;
    return 0;
}

/* Half a point of a table: its slope half [c0 c1 c2 0] or its value half [c3 c4 c5 c6]. */
struct __align__(16) eam_quad {
    mdl_real c[4];
};

/* Four reals from p (16-byte aligned) through the read-only path: one vector load in mixed
   precision, two in double. */
__device__ __forceinline__ eam_quad ldg_quad(const mdl_real *p)
{
    eam_quad q;
#ifdef MDLITE_GPU_DOUBLE
    const double2 a = __ldg((const double2 *)p), b = __ldg((const double2 *)p + 1);
    q.c[0] = a.x, q.c[1] = a.y, q.c[2] = b.x, q.c[3] = b.y;
#else
    const float4 a = __ldg((const float4 *)p);
    q.c[0] = a.x, q.c[1] = a.y, q.c[2] = a.z, q.c[3] = a.w;
#endif
    return q;
}

/* A plane: one table's slope or value halves, point by point ((nr + 1) quads). The kernels read
   theirs from shared memory where they fit (eam_planes_fit), else from device memory through L1:
   a warp's 32 scattered quads cost a few shared-memory wavefronts against up to 32 L1 ones. */
template <bool SMEM>
__device__ __forceinline__ eam_quad quad_at(const eam_quad *planes, int plane, const mdl_real *table, int tab,
                                            int half, int m)
{
    const int np1 = c_eam.nr + 1;
    if (SMEM)
        return planes[plane * np1 + m];
    return ldg_quad(table + ((size_t)tab * np1 + m) * GPU_EAM_STRIDE + 4 * half);
}

/* The planes a kernel reads (density: the density tables' value halves; else their slope halves,
   then the pair tables' slope halves and their value halves; single: one species, one table of
   each): how many, and where plane k comes from (table, its index and half). */
__device__ __forceinline__ int plane_count(bool density, bool single)
{
    const int nr = single ? 1 : c_eam.nrhor, nz = single ? 1 : c_eam.nz2r;
    return density ? nr : nr + 2 * nz;
}

__device__ __forceinline__ const mdl_real *plane_source(bool density, bool single, int k, int *tab, int *half)
{
    const int nr = single ? 1 : c_eam.nrhor, nz = single ? 1 : c_eam.nz2r;
    if (density || k < nr) {
        *tab = single ? c_t2rhor[0] : k, *half = density ? 1 : 0;
        return c_eam.rhor;
    }
    k -= nr;
    *tab = single ? c_t2z2r[0] : k % nz, *half = k / nz;
    return c_eam.z2r;
}

/* Copies the kernel's planes into shared memory. */
__device__ __forceinline__ void load_planes(eam_quad *planes, bool density, bool single)
{
    const int np1 = c_eam.nr + 1, count = plane_count(density, single);
    for (int k = 0; k < count; k++) {
        int tab, half;
        const mdl_real *table = plane_source(density, single, k, &tab, &half);
        for (int m = threadIdx.x; m < np1; m += blockDim.x)
            planes[k * np1 + m] = ldg_quad(table + ((size_t)tab * np1 + m) * GPU_EAM_STRIDE + 4 * half);
    }
    __syncthreads();
}

/* r and 1 / r from r^2: in mixed precision both from one reciprocal square root (the fast-math
   build's sqrt and division are approximations as well: one instruction instead of two), in
   double exactly as the CPU does. */
__device__ __forceinline__ mdl_real distance_of(mdl_real r2, mdl_real *recip)
{
#ifdef MDLITE_GPU_DOUBLE
    const mdl_real r = sqrt(r2);
    *recip = 1.0 / r;
    return r;
#else
    *recip = rsqrtf(r2);
    return r2 * *recip;
#endif
}

/* i's minimum-image separation from j and its square. */
__device__ __forceinline__ mdl_real separation(real4 pi, real4 pj, const image_lengths &m, mdl_real &dx, mdl_real &dy,
                                               mdl_real &dz)
{
    dx = min_image_real(pi.x - pj.x, m.len[0], m.inv[0]);
    dy = min_image_real(pi.y - pj.y, m.len[1], m.inv[1]);
    dz = min_image_real(pi.z - pj.z, m.len[2], m.inv[2]);
    return dx * dx + dy * dy + dz * dz;
}

/* The EAM kernels' blocks: large, so that a block's planes serve many atoms; with the planes in
   shared memory the grid holds as many blocks as stay resident and each takes atoms in turn. */
#define EAM_BLOCK 512

/* Atom i's neighbors for lane s of its T lanes: its row's entries s, s + T, ... (four loads in
   flight), or, for a row past the list's capacity, every atom j = s, s + T, ... but i. */
template <int T, bool STREAM, typename F>
__device__ __forceinline__ void eam_neighbors(int i, int s, int cnt, int capacity, int nall, const int *nl, int si,
                                              int sk, F &&pair)
{
    if (cnt > capacity) {
        for (int j = s; j < nall; j += T)
            if (j != i)
                pair(j);
        return;
    }
    const int *list = nl + (size_t)i * si;
#pragma unroll 4
    for (int k = s; k < cnt; k += T)
        pair((int)list_load<STREAM>((const unsigned *)&list[(size_t)k * sk]));
}

/* The sum of x over an atom's T lanes (consecutive lanes of one warp), in a fixed order. */
template <int T>
__device__ __forceinline__ mdl_real lanes_sum(mdl_real x)
{
    if (T > 1) {
        const unsigned mask = ((1u << T) - 1) << (threadIdx.x & 31 & ~(T - 1));
        for (int o = T / 2; o > 0; o >>= 1)
            x += __shfl_xor_sync(mask, x, o, T);
    }
    return x;
}

/* rho_i over its full row (T lanes per atom), then fp[i] = F'(rho_i); with `energy`, pe[i] =
   F(rho_i) (linear past the table, as LAMMPS). SINGLE: one species. */
template <int T, bool SINGLE, bool STREAM, bool SMEM>
__global__ void __launch_bounds__(EAM_BLOCK)
    eam_density_kernel(int n, int nall, const pos_t *__restrict__ pos, const int *__restrict__ nl,
                       const int *__restrict__ count, int si, int sk, int capacity, mdl_real *fp, mdl_real *pe,
                       int energy, const int *halt)
{
    extern __shared__ eam_quad planes[];
    if (*halt)
        return;
    if (SMEM)
        load_planes(planes, true, SINGLE);
    const image_lengths &m = c_eam_image;
    for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < n * T; g += gridDim.x * blockDim.x) {
        const int i = g / T, s = g % T; /* whole groups take the same turns */
        const real4 pi = pos_at(pos, i);
        const int ti = SINGLE ? 0 : real_to_type(pi.w);
        mdl_real rho = 0;
        eam_neighbors<T, STREAM>(i, s, count[i], capacity, nall, nl, si, sk, [&](int j) {
            const real4 pj = load4(pos, j);
            mdl_real dx, dy, dz;
            const mdl_real r2 = separation(pi, pj, m, dx, dy, dz);
            if (r2 < c_eam.cutsq) {
                mdl_real p, c[7], recip;
                const int at = eam_point_real(distance_of(r2, &recip), c_eam.rdr, c_eam.nr, 0, &p);
                const int tab = SINGLE ? c_t2rhor[0] : c_t2rhor[real_to_type(pj.w) * MAXT + ti];
                const eam_quad v = quad_at<SMEM>(planes, SINGLE ? 0 : tab, c_eam.rhor, tab, 1, at);
                c[3] = v.c[0], c[4] = v.c[1], c[5] = v.c[2], c[6] = v.c[3];
                rho += eam_value_real(c, p);
            }
        });
        rho = lanes_sum<T>(rho);
        if (s != 0)
            continue;
        mdl_real p, c[7];
        const int at = eam_point_real(rho, c_eam.rdrho, c_eam.nrho, 1, &p);
        const mdl_real *point = c_eam.frho + ((size_t)c_t2frho[ti] * (c_eam.nrho + 1) + at) * GPU_EAM_STRIDE;
        for (int q = 0; q < 3; q++)
            c[q] = point[q];
        for (int q = 3; q < 7; q++)
            c[q] = point[q + 1];
        const mdl_real f = eam_slope_real(c, p);
        fp[i] = f;
        if (energy)
            pe[i] = eam_value_real(c, p) + (rho > c_eam.rhomax ? f * (rho - c_eam.rhomax) : (mdl_real)0);
    }
}

/* The pair forces from the full row (T lanes per atom) and both atoms' slopes; EV (mdl_ev) adds
   half of each pair's energy to pe[i] (which holds F(rho_i)) and half its virial to w[i]. fx
   NULL: no forces written. KICK: the force goes on into the chained kicks and drift (ch). */
template <int EV, int T, bool SINGLE, bool STREAM, bool KICK, bool SMEM>
__global__ void __launch_bounds__(EAM_BLOCK)
    eam_force_kernel(int n, int nall, const pos_t *__restrict__ pos, const int *__restrict__ nl,
                     const int *__restrict__ count, int si, int sk, int capacity, const mdl_real *__restrict__ fp,
                     mdl_real *fx, mdl_real *fy, mdl_real *fz, mdl_real *pe, mdl_real *w, const int *halt,
                     const __grid_constant__ gpu_chain ch)
{
    extern __shared__ eam_quad planes[];
    if (*halt)
        return;
    if (SMEM)
        load_planes(planes, false, SINGLE);
    const int z0 = SINGLE ? 1 : c_eam.nrhor, zv = z0 + (SINGLE ? 1 : c_eam.nz2r); /* the pair planes */
    const image_lengths &m = c_eam_image;
    for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < n * T; g += gridDim.x * blockDim.x) {
        const int i = g / T, s = g % T;
        const real4 pi = pos_at(pos, i);
        const int ti = SINGLE ? 0 : real_to_type(pi.w);
        const mdl_real fpi = fp[i];
        mdl_real fxi = 0, fyi = 0, fzi = 0, e = 0, v = 0;
        eam_neighbors<T, STREAM>(i, s, count[i], capacity, nall, nl, si, sk, [&](int j) {
            const real4 pj = load4(pos, j);
            mdl_real dx, dy, dz;
            const mdl_real r2 = separation(pi, pj, m, dx, dy, dz);
            if (!(r2 < c_eam.cutsq))
                return;
            const int tj = SINGLE ? 0 : real_to_type(pj.w);
            mdl_real p, c[7], recip;
            const int at = eam_point_real(distance_of(r2, &recip), c_eam.rdr, c_eam.nr, 0, &p);
            const int ri = SINGLE ? c_t2rhor[0] : c_t2rhor[ti * MAXT + tj];
            eam_quad q = quad_at<SMEM>(planes, SINGLE ? 0 : ri, c_eam.rhor, ri, 0, at);
            c[0] = q.c[0], c[1] = q.c[1], c[2] = q.c[2];
            const mdl_real rhoip = eam_slope_real(c, p);
            mdl_real rhojp = rhoip; /* one species: one density function */
            if (!SINGLE) {
                const int rj = c_t2rhor[tj * MAXT + ti];
                q = quad_at<SMEM>(planes, rj, c_eam.rhor, rj, 0, at);
                c[0] = q.c[0], c[1] = q.c[1], c[2] = q.c[2];
                rhojp = eam_slope_real(c, p);
            }
            const int z = SINGLE ? c_t2z2r[0] : c_t2z2r[ti * MAXT + tj];
            q = quad_at<SMEM>(planes, z0 + (SINGLE ? 0 : z), c_eam.z2r, z, 0, at);
            c[0] = q.c[0], c[1] = q.c[1], c[2] = q.c[2];
            q = quad_at<SMEM>(planes, zv + (SINGLE ? 0 : z), c_eam.z2r, z, 1, at);
            c[3] = q.c[0], c[4] = q.c[1], c[5] = q.c[2], c[6] = q.c[3];
            const mdl_real z2p = eam_slope_real(c, p), z2 = eam_value_real(c, p);
            const mdl_real phi = z2 * recip, phip = z2p * recip - phi * recip;
            const mdl_real fpair = -(fpi * rhojp + __ldg(&fp[j]) * rhoip + phip) * recip;
            fxi += dx * fpair, fyi += dy * fpair, fzi += dz * fpair;
            if (EV == MDL_EV_ENERGY)
                e += phi;
            if (EV)
                v += r2 * fpair;
        });
        fxi = lanes_sum<T>(fxi), fyi = lanes_sum<T>(fyi), fzi = lanes_sum<T>(fzi);
        if (EV == MDL_EV_ENERGY)
            e = lanes_sum<T>(e);
        if (EV)
            v = lanes_sum<T>(v);
        if (s != 0)
            continue;
        if (fx)
            fx[i] = fxi, fy[i] = fyi, fz[i] = fzi;
        if (KICK)
            chained_kicks<SINGLE>(i, pi, fxi, fyi, fzi, ch);
        if (EV == MDL_EV_ENERGY) /* each pair is seen from both atoms: half to each */
            pe[i] += (mdl_real)0.5 * e;
        if (EV)
            w[i] = (mdl_real)0.5 * v;
    }
}

/* Bytes of the planes each kernel reads (density: false), single: one species. */
static size_t eam_plane_bytes(bool density, bool single)
{
    const size_t np1 = (size_t)h_eam.nr + 1, nr = single ? 1 : h_eam.nrhor, nz = single ? 1 : h_eam.nz2r;
    return (density ? nr : nr + 2 * nz) * np1 * sizeof(eam_quad);
}

/* The planes go to shared memory up to 100 KiB a block (two blocks of 512 an SM), where they win
   (H100, 1,000 steps, atom-steps/s, shared against device memory; 256,000 / 2,048,000 atoms):
   in.eam mixed (24 KiB) 1.062e9 / 1.126e9 against 9.75e8 / 1.071e9, double (48 KiB) 5.45e8 /
   6.61e8 against 4.88e8 / 5.86e8; Zhou's Cu mixed (96 KiB) 5.33e8 / 5.92e8 against 5.12e8 /
   5.72e8. Larger planes (Zhou's Cu in double: 192 KiB) stay in device memory. */
static bool eam_planes_fit(size_t bytes)
{
    return bytes <= 100 * 1024;
}

/* A kernel's grid: with shared planes, the blocks that stay resident (each takes atoms in turn),
   else one thread per lane. */
template <typename K>
static int eam_grid(K kernel, size_t threads, size_t smem, unsigned *grid)
{
    const unsigned want = grid_for(threads, EAM_BLOCK);
    *grid = want;
    if (!smem)
        return 0;
    static struct {
        const void *kernel;
        size_t smem;
        unsigned resident;
    } known[64]; /* each kernel's answer (one device a process) */
    int k = 0;
    while (k < 64 && known[k].kernel && !(known[k].kernel == (const void *)kernel && known[k].smem == smem))
        k++;
    if (k < 64 && known[k].kernel) {
        *grid = want < known[k].resident ? want : known[k].resident;
        return 0;
    }
    int dev = 0, sms = 0, per_sm = 0;
    MDL_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    MDL_CUDA(cudaGetDevice(&dev));
    MDL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    MDL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, EAM_BLOCK, smem));
    const unsigned resident = (unsigned)(sms * (per_sm > 0 ? per_sm : 1));
    if (k < 64)
        known[k].kernel = (const void *)kernel, known[k].smem = smem, known[k].resident = resident;
    *grid = want < resident ? want : resident;
    return 0;
}

/* One of the two kernels for a lane count, species count, list form and plane place. */
template <int T, bool SINGLE, bool STREAM, bool SMEM>
static int launch_eam(bool density, size_t n, size_t nall, const pos_t *p, const int *nl, const int *count, int si,
                      int sk, int capacity, mdl_real *fp, mdl_real *fx, mdl_real *fy, mdl_real *fz, int ev,
                      mdl_real *pe, mdl_real *w, const int *halt, const gpu_chain *ch)
{
    const size_t smem = SMEM ? eam_plane_bytes(density, SINGLE) : 0;
    unsigned g;
    if (density) {
        auto kernel = eam_density_kernel<T, SINGLE, STREAM, SMEM>;
        if (eam_grid(kernel, n * T, smem, &g))
            return 1;
        kernel<<<g, EAM_BLOCK, smem, g_mdl_stream>>>((int)n, (int)nall, p, nl, count, si, sk, capacity, fp, pe,
                                                      ev == MDL_EV_ENERGY, halt);
        return 0;
    }
    const gpu_chain none = {};
    auto kernel = ch                     ? eam_force_kernel<MDL_EV_NONE, T, SINGLE, STREAM, true, SMEM>
                  : ev == MDL_EV_ENERGY  ? eam_force_kernel<MDL_EV_ENERGY, T, SINGLE, STREAM, false, SMEM>
                  : ev == MDL_EV_VIRIAL  ? eam_force_kernel<MDL_EV_VIRIAL, T, SINGLE, STREAM, false, SMEM>
                                         : eam_force_kernel<MDL_EV_NONE, T, SINGLE, STREAM, false, SMEM>;
    if (eam_grid(kernel, n * T, smem, &g))
        return 1;
    kernel<<<g, EAM_BLOCK, smem, g_mdl_stream>>>((int)n, (int)nall, p, nl, count, si, sk, capacity, fp, fx, fy, fz,
                                                  pe, w, halt, ch ? *ch : none);
    return 0;
}

/* EAM's lanes per atom: 4 below 65,536 atoms, else one (H100, in.eam, 1,000 steps, atom-steps/s
   with 1 / 4 / 8 lanes: mixed 32,000 atoms - / 6.09e8 / 5.79e8, 256,000 1.06e9 / 9.96e8 / 9.81e8,
   2,048,000 1.13e9 / 1.09e9 / -; double 32,000 - / 4.19e8 / 4.07e8, 256,000 5.45e8 / 5.32e8 /
   5.45e8, 2,048,000 6.61e8 / 5.94e8 / -). Its rows are longer than LJ's and its pairs dearer, so
   fewer atoms fill the GPU with 4 lanes than LJ's 8. */
static int eam_lanes(size_t n)
{
    return n < 65536 ? 4 : 1;
}

/* One of EAM's kernels for the atom count (lanes per atom, streamed list: as the pair kernels),
   the species count and whether its planes fit shared memory. */
static int eam_pass(bool density, size_t n, size_t nall, int ntypes, const mdl_real *pos4, const int *nl,
                    const int *count, int si, int sk, int capacity, mdl_real *fp, mdl_real *fx, mdl_real *fy,
                    mdl_real *fz, int ev, mdl_real *pe, mdl_real *w, const int *halt, const gpu_chain *ch)
{
    const pos_t *p = (const pos_t *)pos4;
    const bool single = ntypes == 1, shared = eam_planes_fit(eam_plane_bytes(density, single));
    int rc;
#define EAM_PASS(T, SINGLE, STREAM, SMEM)                                                                    \
    rc = launch_eam<T, SINGLE, STREAM, SMEM>(density, n, nall, p, nl, count, si, sk, capacity, fp, fx, fy, fz, \
                                             ev, pe, w, halt, ch)
#define EAM_SHARED(T, SINGLE, STREAM) (shared ? EAM_PASS(T, SINGLE, STREAM, true) : EAM_PASS(T, SINGLE, STREAM, false))
#define EAM_LISTS(T, SINGLE) (list_streamed(n) ? EAM_SHARED(T, SINGLE, true) : EAM_SHARED(T, SINGLE, false))
#define EAM_SPECIES(T) (single ? EAM_LISTS(T, true) : EAM_LISTS(T, false))
    if (eam_lanes(n) == 4)
        EAM_SPECIES(4);
    else
        EAM_SPECIES(1);
#undef EAM_SPECIES
#undef EAM_LISTS
#undef EAM_SHARED
#undef EAM_PASS
    if (rc)
        return rc;
    MDL_LAUNCHED(density ? "eam_density" : "eam_forces");
    return 0;
}

extern "C" int gpu_eam_density(size_t n, size_t nall, int ntypes, const mdl_real *pos4, const int *nl,
                               const int *count, int si, int sk, int capacity, mdl_real *fp, int energy,
                               mdl_real *pe, const int *halt)
{
    return eam_pass(true, n, nall, ntypes, pos4, nl, count, si, sk, capacity, fp, NULL, NULL, NULL,
                    energy ? MDL_EV_ENERGY : MDL_EV_NONE, pe, NULL, halt, NULL);
}

extern "C" int gpu_eam_forces(size_t n, size_t nall, int ntypes, const mdl_real *pos4, const int *nl,
                              const int *count, int si, int sk, int capacity, const mdl_real *fp, mdl_real *fx,
                              mdl_real *fy, mdl_real *fz, int energy_virial, mdl_real *pe, mdl_real *w,
                              const int *halt, const gpu_chain *chain)
{
    return eam_pass(false, n, nall, ntypes, pos4, nl, count, si, sk, capacity, (mdl_real *)fp, fx, fy, fz,
                    chain ? MDL_EV_NONE : energy_virial, pe, w, halt, chain);
}

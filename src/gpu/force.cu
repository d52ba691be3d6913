// GPU pair forces, one kernel per style (physics/pair_styles.h): one thread per atom over its full
// list (no atomics), the species table in constant memory, pair arithmetic in mdl_real (float in
// mixed precision); and the persistent step of small systems, many steps in one cooperative launch.
#include "../physics/pair_styles.h"
#include "../physics/species.h"
#include "common.cuh"
#include "../physics/langevin.h"
#include "nose_hoover.cuh"
#include "persistent.h"
#include "../physics/rebuild.h"
#include "../physics/rng.h"

#include <cooperative_groups.h>
#include <curand_kernel.h>

#include <stdlib.h>
#include <string.h>

#define MAXT MDL_MAX_SPECIES
__constant__ mdl_real c_coeff[MDL_PAIR_MAX_COEFF][MAXT * MAXT], c_cutsq[MAXT * MAXT];
__constant__ int c_ntypes;
/* The minimum image's lengths (the lists' region): set with the grid by the host, or under a
   barostat copied from the device's grid at each step (a graph node). Read from constant memory,
   as kernel parameters are, they cost the force kernel no registers; loaded from device memory
   they take 8 more (32 -> 40 with one lane per atom, occupancy 100% -> 75%, 2,048,000 atoms with
   energies: 441 -> 513 us, H200). */
__constant__ image_lengths c_image;

extern "C" int gpu_set_image(mdl_box region)
{
    const image_lengths m = make_image_lengths(region);
    MDL_CUDA(cudaMemcpyToSymbolAsync(c_image, &m, sizeof m, 0, cudaMemcpyHostToDevice, g_mdl_stream));
    return eam_follow_image(&m, false);
}

extern "C" int gpu_copy_image(const gpu_grid *grid)
{
    static_assert(sizeof(image_lengths) == 6 * sizeof(mdl_real), "len[3], inv[3] as gpu_grid's");
    MDL_CUDA(cudaMemcpyToSymbolAsync(c_image, grid->len, sizeof(image_lengths), 0, cudaMemcpyDeviceToDevice,
                                     g_mdl_stream));
    return eam_follow_image(grid->len, true);
}

extern "C" int gpu_set_pair_table(int ntypes, const double (*coeff)[MAXT * MAXT], const double *cutsq)
{
    mdl_real t[MDL_PAIR_MAX_COEFF][MAXT * MAXT] = {}, cut[MAXT * MAXT] = {};
    for (int k = 0; k < ntypes * ntypes; k++) {
        for (int q = 0; q < MDL_PAIR_MAX_COEFF; q++)
            t[q][k] = (mdl_real)coeff[q][k];
        cut[k] = (mdl_real)cutsq[k];
    }
    MDL_CUDA(cudaMemcpyToSymbol(c_coeff, t, sizeof t));
    MDL_CUDA(cudaMemcpyToSymbol(c_cutsq, cut, sizeof cut));
    MDL_CUDA(cudaMemcpyToSymbol(c_ntypes, &ntypes, sizeof(int)));
    return 0;
}

/* Each style's pair arithmetic in mdl_real, and its coefficients' count: pair_eval<STYLE>. */
template <int STYLE>
struct pair_eval;
#define PAIR_EVAL(ID, NAME)                                                                               \
    MDL_##ID##_PAIR(mdl_real, _real)                                                                     \
    template <>                                                                                          \
    struct pair_eval<MDL_PAIR_##ID> {                                                                    \
        static constexpr int NC = ID##_NCOEFF;                                                           \
        __device__ static mdl_real fpair(mdl_real r2, const mdl_real *c)                                 \
        {                                                                                                \
            return NAME##_fpair_real(r2, c[0], c[1], c[2], c[3], c[4]);                                  \
        }                                                                                                \
        __device__ static mdl_real energy(mdl_real r2, const mdl_real *c)                                \
        {                                                                                                \
            return NAME##_energy_real(r2, c[0], c[1], c[2], c[3], c[4]);                                 \
        }                                                                                                \
    };
MDL_PAIR_STYLES(PAIR_EVAL)
#undef PAIR_EVAL

/* Adds the pair (i, j) to i's sums: the force, with EV (MDL_EV_ENERGY) the energy and virial too,
   MDL_EV_VIRIAL the virial alone. */
template <int EV, bool SINGLE, int STYLE>
__device__ __forceinline__ void add_pair(real4 pi, real4 pj, int row, mdl_real cut2, const image_lengths &m,
                                         mdl_real &fxi, mdl_real &fyi, mdl_real &fzi, mdl_real &e, mdl_real &v)
{
    using P = pair_eval<STYLE>;
    const mdl_real dx = min_image_real(pi.x - pj.x, m.len[0], m.inv[0]);
    const mdl_real dy = min_image_real(pi.y - pj.y, m.len[1], m.inv[1]);
    const mdl_real dz = min_image_real(pi.z - pj.z, m.len[2], m.inv[2]);
    const mdl_real r2 = dx * dx + dy * dy + dz * dz;
    const int c = SINGLE ? 0 : row + real_to_type(pj.w);
    if (r2 < (SINGLE ? cut2 : c_cutsq[c])) {
        mdl_real cf[MDL_PAIR_MAX_COEFF] = {}; /* the style's NC from constant memory (dead loads dropped) */
#pragma unroll
        for (int q = 0; q < P::NC; q++)
            cf[q] = c_coeff[q][c];
        const mdl_real fp = P::fpair(r2, cf);
        fxi += dx * fp;
        fyi += dy * fp;
        fzi += dz * fp;
        if (EV == MDL_EV_ENERGY)
            e += P::energy(r2, cf);
        if (EV)
            v += r2 * fp;
    }
}

/* A row the list could not hold (until the host grows it): every atom is a candidate, lane s of
   the atom's T lanes taking j = s, s + T, ... Kept out of line so that the list loop compiles as
   if it were alone. */
template <int EV, bool SINGLE, int STYLE, int T, bool CG>
__device__ __noinline__ void add_all_pairs(int i, int s, int nall, const pos_t *__restrict__ pos, int row,
                                           mdl_real cut2, image_lengths m, mdl_real *sums)
{
    const real4 pi = CG ? load4_cg(pos, i) : pos_at(pos, i);
    for (int j = s; j < nall; j += T)
        if (j != i)
            add_pair<EV, SINGLE, STYLE>(pi, neighbor_at<CG>(pos, j), row, cut2, m, sums[0], sums[1], sums[2], sums[3],
                                        sums[4]);
}

/* How the force kernel reads the list: atom indices through the caches, or loaded to be evicted
   first (each int is read once per step; the caches are left to the neighbors' positions), or
   packed entries through the warps' tables or relative to the row's atom (gpu.h's GPU_ROWS_TABLE
   and GPU_ROWS_RELATIVE; loaded to be evicted first as well). */
enum { LIST_CACHED, LIST_STREAMED, LIST_PACKED, LIST_RELATIVE };

/* T lanes of a warp per atom (T = 1, 4 or 8): lane s takes the list entries s, s + T, ... (packed:
   the ints s, s + T, ..., two entries each) and the lanes' sums are added with shuffles in a fixed
   order. More lanes per atom keep the GPU busy when there are few atoms; one per atom reads the
   list best when there are many. LIST_PACKED: the block first copies the tables of its atoms'
   warps into shared memory; LIST_RELATIVE (one rank: nall = n): entry e of row i is atom
   (i + e) mod n. KICK: the atom's force goes on into the chained kicks and drift (ch). */
/* Block `block`'s atoms (the kernel's blockIdx.x; the persistent step's blocks take several in turn:
   with LIST_PACKED they wait for each other between them, the tables being shared, and CG: the
   positions read past L1, since other blocks write them within the launch). */
template <int EV, bool SINGLE, int STYLE, int T, int LIST, bool KICK, bool CG = false>
__device__ __forceinline__ void pair_block(int block, int n, int nall, const pos_t *__restrict__ pos,
                                           const int *__restrict__ nl, const int *__restrict__ table,
                                           const int *__restrict__ count, int si, int sk, int capacity, mdl_real *fx,
                                           mdl_real *fy, mdl_real *fz, mdl_real *pe, mdl_real *w, const int *halt,
                                           const gpu_chain &ch)
{
    constexpr bool PACKED = LIST == LIST_PACKED, REL = LIST == LIST_RELATIVE, STREAM = LIST != LIST_CACHED;
    constexpr int ATOMS = MDL_BLOCK / T, TABLES = ATOMS < 32 ? 1 : ATOMS / 32; /* T = 8: half a table */
    __shared__ int tables[PACKED ? TABLES * GPU_LIST_TABLE : 1];
    const int g = block * blockDim.x + threadIdx.x, i = g / T, s = g % T, w0 = block * ATOMS / 32;
    if (PACKED) {
        const int warps = (n + 31) / 32;
        for (int t = threadIdx.x; t < TABLES * GPU_LIST_TABLE; t += blockDim.x)
            tables[t] = w0 + t / GPU_LIST_TABLE < warps ? table[(size_t)w0 * GPU_LIST_TABLE + t] : GPU_LIST_PLAIN;
        __syncthreads();
    }
    if (i >= n || *halt) /* whole groups leave together: n * T threads cover whole groups */
        return;
    const image_lengths &m = c_image;
    const real4 pi = CG ? load4_cg(pos, i) : pos_at(pos, i);
    const int row = SINGLE ? 0 : real_to_type(pi.w) * c_ntypes;
    const mdl_real cut2 = c_cutsq[0];
    mdl_real fxi = 0, fyi = 0, fzi = 0, e = 0, v = 0;
    const int cnt = count[i];
    const int *tw = tables + (PACKED ? (i / 32 - w0) * GPU_LIST_TABLE : 0);
    const bool packed_row = REL || (PACKED && tw[GPU_LIST_TABLE - 1] == GPU_LIST_PACKED); /* two entries per int */
    if (cnt > (packed_row ? 2 * capacity : capacity)) {
        mdl_real a[5] = {0, 0, 0, 0, 0};
        add_all_pairs<EV, SINGLE, STYLE, T, CG>(i, s, nall, pos, row, cut2, m, a);
        fxi = a[0], fyi = a[1], fzi = a[2], e = a[3], v = a[4];
    } else if (packed_row) {
        /* lane s: the ints w = s, s + T, ... below full (two entries each), two ints at a time so
           that four neighbors' loads are in flight together; then the last entry of an odd count,
           by the lane whose turn it is; neighbor(x): the position of the atom in x's low 16 bits */
        const unsigned *words = (const unsigned *)nl + i;
        const auto neighbor = [&](unsigned low) {
            return neighbor_at<CG>(pos, REL ? gpu_list_relative(i, low & 0xffffu, nall) : gpu_list_unpack(tw, low & 0xffffu));
        };
        const int full = cnt >> 1;
        int w = s;
        for (; w + T < full; w += 2 * T) {
            const unsigned a = list_load<true>(&words[(size_t)w * sk]);
            const unsigned b = list_load<true>(&words[(size_t)(w + T) * sk]);
            const real4 p0 = neighbor(a), p1 = neighbor(a >> 16), p2 = neighbor(b), p3 = neighbor(b >> 16);
            add_pair<EV, SINGLE, STYLE>(pi, p0, row, cut2, m, fxi, fyi, fzi, e, v);
            add_pair<EV, SINGLE, STYLE>(pi, p1, row, cut2, m, fxi, fyi, fzi, e, v);
            add_pair<EV, SINGLE, STYLE>(pi, p2, row, cut2, m, fxi, fyi, fzi, e, v);
            add_pair<EV, SINGLE, STYLE>(pi, p3, row, cut2, m, fxi, fyi, fzi, e, v);
        }
        for (; w < full; w += T) {
            const unsigned a = list_load<true>(&words[(size_t)w * sk]);
            const real4 p0 = neighbor(a), p1 = neighbor(a >> 16);
            add_pair<EV, SINGLE, STYLE>(pi, p0, row, cut2, m, fxi, fyi, fzi, e, v);
            add_pair<EV, SINGLE, STYLE>(pi, p1, row, cut2, m, fxi, fyi, fzi, e, v);
        }
        if (w == full && (cnt & 1)) {
            const unsigned a = list_load<true>(&words[(size_t)w * sk]);
            add_pair<EV, SINGLE, STYLE>(pi, neighbor(a), row, cut2, m, fxi, fyi, fzi, e, v);
        }
    } else {
        const int *list = nl + (size_t)i * si;
        /* four neighbors' loads in flight: nvcc's own choice for LJ alone, which a style's
           coefficient loads (dead ones included) talk it out of (2M atoms, mixed: 2 rows a pass
           made the force pass 2-3% slower) */
#pragma unroll 4
        for (int k = s; k < cnt; k += T) {
            const int j = (int)list_load<STREAM>((const unsigned *)&list[(size_t)k * sk]);
            add_pair<EV, SINGLE, STYLE>(pi, neighbor_at<CG>(pos, j), row, cut2, m, fxi, fyi, fzi, e, v);
        }
    }
    if (T > 1) { /* the group's lanes are consecutive lanes of one warp */
        const unsigned mask = T == 32 ? 0xffffffffu : ((1u << T) - 1) << (threadIdx.x & 31 & ~(T - 1));
        for (int o = T / 2; o > 0; o >>= 1) {
            fxi += __shfl_xor_sync(mask, fxi, o, T);
            fyi += __shfl_xor_sync(mask, fyi, o, T);
            fzi += __shfl_xor_sync(mask, fzi, o, T);
            if (EV == MDL_EV_ENERGY)
                e += __shfl_xor_sync(mask, e, o, T);
            if (EV)
                v += __shfl_xor_sync(mask, v, o, T);
        }
        if (s != 0)
            return;
    }
    if (fx) { // NULL: energy and virial only
        fx[i] = fxi;
        fy[i] = fyi;
        fz[i] = fzi;
    }
    if (KICK)
        chained_kicks<SINGLE>(i, pi, fxi, fyi, fzi, ch);
    if (EV == MDL_EV_ENERGY) // each pair is seen from both atoms: half to each
        pe[i] = (mdl_real)0.5 * e;
    if (EV)
        w[i] = (mdl_real)0.5 * v;
}

template <int EV, bool SINGLE, int STYLE, int T, int LIST, bool KICK>
__global__ void __launch_bounds__(MDL_BLOCK) pair_kernel(int n, int nall, const pos_t *__restrict__ pos,
                                                       const int *__restrict__ nl, const int *__restrict__ table,
                                                       const int *__restrict__ count, int si, int sk, int capacity,
                                                       mdl_real *fx, mdl_real *fy, mdl_real *fz, mdl_real *pe,
                                                       mdl_real *w, const int *halt,
                                                       const __grid_constant__ gpu_chain ch)
{
    pair_block<EV, SINGLE, STYLE, T, LIST, KICK>(blockIdx.x, n, nall, pos, nl, table, count, si, sk, capacity, fx, fy,
                                                 fz, pe, w, halt, ch);
}

/* Lanes per atom: 8 for the smallest systems, where one thread per atom would leave most of an
   H100 idle; 4 from four_from atoms (double precision's pairs cost more, so from fewer atoms); one
   from 65,536 (the warp builder's size; 256,000 atoms: 1.96e9 atom-steps/s with 1 lane, 1.66e9
   with 2). H100, in.lj, median of 3-5 (commit 2c5b323), 8 -> 4 lanes: mixed 32,000 atoms
   1.030e9 -> 9.70e8, 37,044 1.019e9 -> 1.066e9, 48,668 1.163e9 -> 1.211e9, 62,500 1.341e9 ->
   1.396e9; double 13,500 5.60e8 -> 5.29e8, 19,652 6.74e8 -> 7.25e8, 32,000 8.66e8 -> 9.10e8,
   62,500 1.104e9 -> 1.168e9. */
static int lanes_per_atom(size_t n)
{
#ifdef MDLITE_GPU_DOUBLE
    const size_t four_from = 16000;
#else
    const size_t four_from = 35000;
#endif
    return n < four_from ? 8 : n < 65536 ? 4 : 1;
}

/* ch: the chained kernels (no energy), else the plain ones. */
template <int STYLE, int T, int LIST>
static void launch_pair(size_t n, size_t nall, int ntypes, int ev, const pos_t *p, const int *nl,
                        const int *table, const int *count, int si, int sk, int capacity, mdl_real *fx, mdl_real *fy,
                        mdl_real *fz, mdl_real *pe, mdl_real *w, const int *halt, const gpu_chain *ch)
{
    unsigned g = grid_for(n * T, MDL_BLOCK);
    const gpu_chain none = {};
#define PAIR_LAUNCH(EV, SINGLE, KICK)                                                                    \
    pair_kernel<EV, SINGLE, STYLE, T, LIST, KICK><<<g, MDL_BLOCK, 0, g_mdl_stream>>>(                     \
        (int)n, (int)nall, p, nl, table, count, si, sk, capacity, fx, fy, fz, pe, w, halt, ch ? *ch : none)
    if (ch && ntypes == 1)
        PAIR_LAUNCH(MDL_EV_NONE, true, true);
    else if (ch)
        PAIR_LAUNCH(MDL_EV_NONE, false, true);
    else if (ntypes == 1 && ev == MDL_EV_VIRIAL)
        PAIR_LAUNCH(MDL_EV_VIRIAL, true, false);
    else if (ntypes == 1 && ev == MDL_EV_ENERGY)
        PAIR_LAUNCH(MDL_EV_ENERGY, true, false);
    else if (ntypes == 1)
        PAIR_LAUNCH(MDL_EV_NONE, true, false);
    else if (ev == MDL_EV_VIRIAL)
        PAIR_LAUNCH(MDL_EV_VIRIAL, false, false);
    else if (ev == MDL_EV_ENERGY)
        PAIR_LAUNCH(MDL_EV_ENERGY, false, false);
    else
        PAIR_LAUNCH(MDL_EV_NONE, false, false);
#undef PAIR_LAUNCH
}

/* The style's kernels for the list's form and the lanes per atom. */
template <int STYLE>
static void launch_style(size_t n, size_t nall, int ntypes, const pos_t *p, const int *nl, int list,
                         const int *table, const int *count, int si, int sk, int capacity, mdl_real *fx, mdl_real *fy,
                         mdl_real *fz, int energy_virial, mdl_real *pe, mdl_real *w, const int *halt,
                         const gpu_chain *ch)
{
#define PAIR_LANES(T, LIST)                                                                                      \
    launch_pair<STYLE, T, LIST>(n, nall, ntypes, energy_virial, p, nl, table, count, si, sk, capacity, fx, fy, fz, \
                                pe, w, halt, ch)
#define PAIR_LISTS(T)                                                                                            \
    (list == LIST_PACKED     ? PAIR_LANES(T, LIST_PACKED)                                                        \
     : list == LIST_RELATIVE ? PAIR_LANES(T, LIST_RELATIVE)                                                      \
     : list == LIST_STREAMED ? PAIR_LANES(T, LIST_STREAMED)                                                      \
                             : PAIR_LANES(T, LIST_CACHED))
    const int lanes = lanes_per_atom(n);
    if (lanes == 8)
        PAIR_LISTS(8);
    else if (lanes == 4)
        PAIR_LISTS(4);
    else
        PAIR_LISTS(1);
#undef PAIR_LISTS
#undef PAIR_LANES
}

static int pair_forces(int style, size_t n, size_t nall, int ntypes, const mdl_real *pos4, const int *nl,
                       gpu_rows form, const int *table, const int *count, int si, int sk, int capacity, mdl_real *fx,
                       mdl_real *fy, mdl_real *fz, int energy_virial, mdl_real *pe, mdl_real *w, const int *halt,
                       const gpu_chain *ch)
{
    const pos_t *p = (const pos_t *)pos4;
    const int list = form == GPU_ROWS_TABLE      ? LIST_PACKED
                     : form == GPU_ROWS_RELATIVE ? LIST_RELATIVE
                     : list_streamed(n)          ? LIST_STREAMED
                                                 : LIST_CACHED;
    switch (style) {
#define STYLE_CASE(ID, NAME)                                                                                     \
    case MDL_PAIR_##ID:                                                                                          \
        launch_style<MDL_PAIR_##ID>(n, nall, ntypes, p, nl, list, table, count, si, sk, capacity, fx, fy, fz,   \
                                    energy_virial, pe, w, halt, ch);                                             \
        break;
        MDL_PAIR_STYLES(STYLE_CASE)
#undef STYLE_CASE
    default:
        mdl_error("internal: pair style %d has no GPU kernel", style);
        return 1;
    }
    MDL_LAUNCHED("pair_forces");
    return 0;
}

extern "C" int gpu_pair_forces(int style, size_t n, size_t nall, int ntypes, const mdl_real *pos4, const int *nl,
                               gpu_rows form, const int *table, const int *count, int si, int sk, int capacity,
                               mdl_real *fx, mdl_real *fy, mdl_real *fz, int energy_virial, mdl_real *pe, mdl_real *w,
                               const int *halt)
{
    return pair_forces(style, n, nall, ntypes, pos4, nl, form, table, count, si, sk, capacity, fx, fy, fz,
                       energy_virial, pe, w, halt, NULL);
}

extern "C" int gpu_pair_forces_chained(int style, size_t n, int ntypes, const mdl_real *pos4, const int *nl,
                                       gpu_rows form, const int *table, const int *count, int si, int sk, int capacity,
                                       mdl_real *fx, mdl_real *fy, mdl_real *fz, const gpu_chain *c)
{
    return pair_forces(style, n, n, ntypes, pos4, nl, form, table, count, si, sk, capacity, fx, fy, fz, MDL_EV_NONE,
                       NULL, NULL, &c->st->halt, c);
}

/* ---- the persistent step (small systems): one cooperative launch makes many plain steps ----
   Each step as the step's graph makes it -- the rebuild test's count, the forces, then both half
   kicks and the drift with the skin test (kick_drift's arithmetic) -- with the grid synchronised
   between the phases. It stops before a step whose test would rebuild, prune or halt (the graph's
   step makes that one), so the lists, the order of the atoms and every sum are those of the
   graphs' run: the same bits. */
namespace cg = cooperative_groups;

/* The thermostat a persistent step makes: none, Langevin's force, Nose-Hoover's chains. */
enum { PERSIST_NVE, PERSIST_LANGEVIN, PERSIST_CHAINS };

/* Atom i's force of step `step` with Langevin's added as langevin_kernel adds it (PERSIST_LANGEVIN);
   then its both half kicks (PERSIST_CHAINS: the chains' factor between them), drift and skin test:
   kick_drift_kernel<2>'s */
template <int THERMOSTAT>
__device__ __forceinline__ void persistent_kick(int i, const gpu_steps &a, gpu_nb_state *st, uint64_t step)
{
    constexpr bool LANGEVIN = THERMOSTAT == PERSIST_LANGEVIN, CHAINS = THERMOSTAT == PERSIST_CHAINS;
    mdl_real d2 = 0;
    real4 q = {};
    if (i < a.n) {
        const int t = a.type[i];
        mdl_real fx = a.fx[i], fy = a.fy[i], fz = a.fz[i];
        if (LANGEVIN) {
            curandStatePhilox4_32_10_t rs;
            curand_init(mdl_rng_key(a.seed, MDL_STREAM_LANGEVIN), (unsigned long long)a.id[i], 4ull * step, &rs);
            const uint4 r = curand4(&rs);
            const uint32_t words[3] = {r.x, r.y, r.z};
            double f[3];
            langevin_force(&a.lp, step, a.mass[t], a.vx[i], a.vy[i], a.vz[i], words, f);
            a.fx[i] = fx += (mdl_real)f[0];
            a.fy[i] = fy += (mdl_real)f[1];
            a.fz[i] = fz += (mdl_real)f[2];
        }
        const real4 p = kick_drift_of<2, CHAINS>(i, a.dtf * a.inv_mass[t], a.dt, fx, fy, fz, type_to_real(t), a.x, a.y,
                                                 a.z, a.vx, a.vy, a.vz, CHAINS ? __ldcg(a.nh_factor) : 1.0);
        pos_put((pos_t *)a.pos, i, p);
        q = pos_at((const pos_t *)a.pos0, i);
        d2 = displacement2(p, q);
    }
    skin_flags(0xffffffffu, d2, a.half2, a.skin2, &st->far, &st->unsafe);
    if (a.outer_half > 0)
        outer_flag(0xffffffffu, q, d2, a.outer_half, &st->far_outer);
}

/* Whether the rebuild test of the step `since` steps after the last build would do more than count
   (rebuild_test_kernel: a rebuild, a prune, or a halt on an unsafe state). Read by every thread
   between the same two synchronisations, in which nobody writes the flags. */
__device__ __forceinline__ bool test_acts(int since, const gpu_steps &a, const gpu_nb_state *st)
{
    const volatile gpu_nb_state *v = st;
    return rebuild_due(since, a.rule.every, a.rule.delay) &&
           (v->unsafe || v->far || v->far_outer || !a.rule.distance_check);
}

/* The sum of one value over RED_BLOCK threads in block_sum3's order (its warps' sums, then warp 0's
   sum of them), each thread of a MDL_BLOCK block standing for two of them (t: lo, t + MDL_BLOCK: hi);
   thread 0 gets it. */
static_assert(RED_BLOCK == 2 * MDL_BLOCK, "two of the reduction's threads per thread");
__device__ __forceinline__ double red_block_sum(double lo, double hi)
{
    __shared__ double s[RED_BLOCK / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    lo = warp_sum(lo), hi = warp_sum(hi);
    if (lane == 0)
        s[warp] = lo, s[warp + MDL_BLOCK / 32] = hi;
    __syncthreads();
    const double r = warp == 0 ? warp_sum(lane < RED_BLOCK / 32 ? s[lane] : 0.0) : 0.0;
    __syncthreads(); /* s again at the next call */
    return r;
}

/* Nose-Hoover's chained step as gpu_nose_hoover_kicked makes it: block vb of its reduce_blocks
   blocks' sum of m (v + a f)^2 (atoms last to first), its thread t's atoms those of the kernel's
   thread t (t < RED_BLOCK). */
template <bool SINGLE>
__device__ __forceinline__ double kicked_block_sum(int vb, const gpu_steps &a)
{
    double part[2];
    for (int h = 0; h < 2; h++) {
        double ke = 0;
        for (int k = vb * RED_BLOCK + h * MDL_BLOCK + threadIdx.x; k < a.n; k += a.reduce_blocks * RED_BLOCK) {
            const int i = a.n - 1 - k, t = SINGLE ? 0 : a.type[i];
            const double m = a.dtf * a.inv_mass[t];
            const double u = a.vx[i] + m * a.fx[i], v = a.vy[i] + m * a.fy[i], s = a.vz[i] + m * a.fz[i];
            ke += a.mass[t] * (u * u + v * v + s * s);
        }
        part[h] = ke;
    }
    return red_block_sum(part[0], part[1]);
}

/* The blocks' sums added in block order (gpu_nose_hoover_kicked's last block), then the chains'
   end of this step and start of the next, at the device's step `step`. Block 0. */
__device__ __forceinline__ void persistent_chains(const gpu_steps &a, gpu_nb_state *st, long long step)
{
    double part[2] = {0, 0};
    for (int h = 0; h < 2; h++)
        for (int k = h * MDL_BLOCK + threadIdx.x; k < a.reduce_blocks; k += RED_BLOCK)
            part[h] += __ldcg(&a.partials[3 * k]);
    const double sum = red_block_sum(part[0], part[1]);
    if (threadIdx.x == 0) {
        st->step = step; /* the rebuild test's count, which the chains' start reads */
        if (!st->halt)
            nh_steps(a.nh, GPU_NH_END | GPU_NH_START, sum, 0.0, a.mvv2e, a.bx, a.nh_factor, st, a.report);
    }
}

template <bool SINGLE, int STYLE, int T, int LIST, int THERMOSTAT>
__global__ void __launch_bounds__(MDL_BLOCK) persistent_steps_kernel(const __grid_constant__ gpu_steps a)
{
    cg::grid_group grid = cg::this_grid();
    gpu_nb_state *st = a.st;
    const gpu_chain none = {};
    const pos_t *pos = (const pos_t *)a.pos;
    const int pair_blocks = (int)(((long long)a.n * T + MDL_BLOCK - 1) / MDL_BLOCK);
    const int atom_blocks = (a.n + MDL_BLOCK - 1) / MDL_BLOCK;
    /* a build's overflow not yet reported, or a halted state: the graphs' step says so */
    const bool go = !*(const volatile int *)&st->halt && a.flags[1] <= st->overflow_seen;
    int since = st->since, k = 0;
    const long long step0 = st->step; /* the step before this launch's first */
    for (; go && k < a.steps && !test_acts(since + 1, a, st); k++) {
        since++;
        for (int b = blockIdx.x; b < pair_blocks; b += gridDim.x) {
            pair_block<MDL_EV_NONE, SINGLE, STYLE, T, LIST, false, true>(b, a.n, a.n, pos, a.nl, a.table, a.count, a.si, a.sk,
                                                                   a.capacity, a.fx, a.fy, a.fz, NULL, NULL,
                                                                   &st->halt, none);
            if (LIST == LIST_PACKED)
                __syncthreads();
        }
        grid.sync();
        if (THERMOSTAT == PERSIST_CHAINS) {
            for (int b = blockIdx.x; b < a.reduce_blocks; b += gridDim.x) {
                const double r = kicked_block_sum<SINGLE>(b, a);
                if (threadIdx.x == 0)
                    a.partials[3 * b] = r;
            }
            grid.sync();
            if (blockIdx.x == 0)
                persistent_chains(a, st, step0 + k + 1);
            grid.sync();
        }
        for (int b = blockIdx.x; b < atom_blocks; b += gridDim.x)
            persistent_kick<THERMOSTAT>(b * MDL_BLOCK + threadIdx.x, a, st, (uint64_t)(step0 + k + 1));
        grid.sync();
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        st->step = step0 + k;
        st->since = since;
        *a.done = k;
    }
}

template <bool SINGLE, int STYLE, int T, int LIST, int THERMOSTAT>
static int launch_persistent(const gpu_steps *a)
{
    static int per_sm = -1, sms = 0; /* co-resident blocks, asked once per kernel */
    auto kernel = persistent_steps_kernel<SINGLE, STYLE, T, LIST, THERMOSTAT>;
    if (per_sm < 0) {
        int dev;
        MDL_CUDA(cudaGetDevice(&dev));
        MDL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        MDL_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, MDL_BLOCK, 0));
    }
    const long long want = ((long long)a->n * T + MDL_BLOCK - 1) / MDL_BLOCK, most = (long long)per_sm * sms;
    if (most < 1) {
        mdl_error("internal: the persistent step's kernel fits no block on this GPU");
        return 1;
    }
    void *args[] = {(void *)a};
    MDL_CUDA(cudaLaunchCooperativeKernel((const void *)kernel, dim3((unsigned)(want < most ? want : most)),
                                         dim3(MDL_BLOCK), args, 0, g_mdl_stream));
    return 0;
}

template <int STYLE>
static int persistent_style(const gpu_steps *a, int list, int lanes)
{
#define PERSIST_THERMOSTAT(SINGLE, T, LIST)                                                                      \
    (a->langevin ? launch_persistent<SINGLE, STYLE, T, LIST, PERSIST_LANGEVIN>(a)                                \
     : a->nh     ? launch_persistent<SINGLE, STYLE, T, LIST, PERSIST_CHAINS>(a)                                  \
                 : launch_persistent<SINGLE, STYLE, T, LIST, PERSIST_NVE>(a))
#define PERSIST_LANES(T, LIST) (a->ntypes == 1 ? PERSIST_THERMOSTAT(true, T, LIST) : PERSIST_THERMOSTAT(false, T, LIST))
#define PERSIST_LISTS(T)                                                                                         \
    (list == LIST_PACKED     ? PERSIST_LANES(T, LIST_PACKED)                                                     \
     : list == LIST_RELATIVE ? PERSIST_LANES(T, LIST_RELATIVE)                                                   \
     : list == LIST_STREAMED ? PERSIST_LANES(T, LIST_STREAMED)                                                   \
                             : PERSIST_LANES(T, LIST_CACHED))
    return lanes == 8 ? PERSIST_LISTS(8) : lanes == 4 ? PERSIST_LISTS(4) : PERSIST_LISTS(1);
#undef PERSIST_LISTS
#undef PERSIST_LANES
#undef PERSIST_THERMOSTAT
}

extern "C" int gpu_persistent_steps(const gpu_steps *a)
{
    const int list = a->form == GPU_ROWS_TABLE      ? LIST_PACKED
                     : a->form == GPU_ROWS_RELATIVE ? LIST_RELATIVE
                     : list_streamed(a->n)          ? LIST_STREAMED
                                                    : LIST_CACHED;
    const int lanes = lanes_per_atom(a->n);
    int rc;
    switch (a->style) {
#define STYLE_CASE(ID, NAME)                                                                                     \
    case MDL_PAIR_##ID:                                                                                          \
        rc = persistent_style<MDL_PAIR_##ID>(a, list, lanes);                                                    \
        break;
        MDL_PAIR_STYLES(STYLE_CASE)
#undef STYLE_CASE
    default:
        mdl_error("internal: pair style %d has no persistent step", a->style);
        return 1;
    }
    if (rc)
        return 1;
    MDL_LAUNCHED("persistent_steps");
    return 0;
}

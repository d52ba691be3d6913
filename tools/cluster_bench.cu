// Stand-alone measurement: in.lj's LJ forces at N atoms by mdlite's per-atom kernel shape (one thread
// per atom over a transposed full list, as mdlite from 65,536 atoms) against cluster-pair kernels
// (clusters of 8 or 4 atoms, a warp per i-cluster; lists of the j-clusters whose bounding boxes come
// within the list radius 2.8 or the cutoff 2.5) and GROMACS's GPU layout (super-clusters of 8 x 8
// atoms with per-entry masks, each cluster pair once), all on lists built here on the host, forces
// only, float. Prints each kernel's time (median of 21), the pairs it computes and the largest force
// difference from the per-atom kernel's. Built by hand (not part of the engine):
//   nvcc -O3 -arch=sm_90 -Xcompiler -fopenmp -o cluster_bench tools/cluster_bench.cu
//   ./cluster_bench [CELLS (80: 2,048,000 atoms)]
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e = (x);                                                               \
        if (e != cudaSuccess) {                                                            \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static const float RC = 2.5f, RLIST = 2.8f;
__constant__ float c_shift[27][3];

/* LJ's F / r over r (epsilon = sigma = 1) at squared distance r2. */
__device__ __forceinline__ float lj_fpair(float r2)
{
    const float ir2 = 1.0f / r2, ir6 = ir2 * ir2 * ir2;
    return 48.0f * ir6 * (ir6 - 0.5f) * ir2;
}

// ---- per-atom: one thread per atom, transposed list (slot k of atom i at nl[k * n + i]) ----
__global__ void atom_kernel(int n, const float4 *__restrict__ p, const int *__restrict__ nl,
                            const int *__restrict__ cnt, float L, float invL, float4 *f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 pi = p[i];
    float fx = 0, fy = 0, fz = 0;
    for (int k = 0; k < cnt[i]; k++) {
        float4 pj = p[__ldg(&nl[(size_t)k * n + i])];
        float dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;
        dx -= L * rintf(dx * invL), dy -= L * rintf(dy * invL), dz -= L * rintf(dz * invL);
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < RC * RC) {
            const float fp = lj_fpair(r2);
            fx += dx * fp, fy += dy * fp, fz += dz * fp;
        }
    }
    f[i] = make_float4(fx, fy, fz, 0);
}

// ---- cluster pairs: a warp per i-cluster of 8; lane = i-atom (0-7) + 8 x quarter (0-3); each lane
// takes j-atoms quarter and quarter + 4 of every j-cluster; its list entry: j-cluster << 5 | shift ----
__global__ void cluster_kernel(int nclusters, const float4 *__restrict__ p, const int *__restrict__ start,
                               const unsigned *__restrict__ list, float4 *f)
{
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (warp >= nclusters)
        return;
    const int ia = lane & 7, q = lane >> 3, ci = warp;
    const float4 pi = p[ci * 8 + ia];
    float fx = 0, fy = 0, fz = 0;
    for (int k = start[ci]; k < start[ci + 1]; k++) {
        const unsigned e = __ldg(&list[k]);
        const int cj = (int)(e >> 5), s = (int)(e & 31);
        const float sx = c_shift[s][0], sy = c_shift[s][1], sz = c_shift[s][2];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int ja = q + 4 * h;
            const float4 pj = p[cj * 8 + ja];
            const float dx = pi.x - (pj.x + sx), dy = pi.y - (pj.y + sy), dz = pi.z - (pj.z + sz);
            const float r2 = dx * dx + dy * dy + dz * dz;
            if (r2 < RC * RC && (cj != ci || ja != ia)) {
                const float fp = lj_fpair(r2);
                fx += dx * fp, fy += dy * fp, fz += dz * fp;
            }
        }
    }
    for (int o = 8; o < 32; o <<= 1) {
        fx += __shfl_xor_sync(0xffffffffu, fx, o);
        fy += __shfl_xor_sync(0xffffffffu, fy, o);
        fz += __shfl_xor_sync(0xffffffffu, fz, o);
    }
    if (q == 0)
        f[ci * 8 + ia] = make_float4(fx, fy, fz, 0);
}

// ---- clusters of 4: a warp per i-cluster; lane = i-atom (0-3) + 4 x slot (0-7): slot s takes the
// j-clusters s, s + 8, ... of the list, all 4 of their atoms ----
__global__ void cluster4_kernel(int nclusters, const float4 *__restrict__ p, const int *__restrict__ start,
                                const unsigned *__restrict__ list, float4 *f)
{
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (warp >= nclusters)
        return;
    const int ia = lane & 3, q = lane >> 2, ci = warp;
    const float4 pi = p[ci * 4 + ia];
    float fx = 0, fy = 0, fz = 0;
    for (int k = start[ci] + q; k < start[ci + 1]; k += 8) {
        const unsigned e = __ldg(&list[k]);
        const int cj = (int)(e >> 5), s = (int)(e & 31);
        const float sx = c_shift[s][0], sy = c_shift[s][1], sz = c_shift[s][2];
#pragma unroll
        for (int ja = 0; ja < 4; ja++) {
            const float4 pj = p[cj * 4 + ja];
            const float dx = pi.x - (pj.x + sx), dy = pi.y - (pj.y + sy), dz = pi.z - (pj.z + sz);
            const float r2 = dx * dx + dy * dy + dz * dz;
            if (r2 < RC * RC && (cj != ci || ja != ia)) {
                const float fp = lj_fpair(r2);
                fx += dx * fp, fy += dy * fp, fz += dz * fp;
            }
        }
    }
    for (int o = 4; o < 32; o <<= 1) {
        fx += __shfl_xor_sync(0xffffffffu, fx, o);
        fy += __shfl_xor_sync(0xffffffffu, fy, o);
        fz += __shfl_xor_sync(0xffffffffu, fz, o);
    }
    if (q == 0)
        f[ci * 4 + ia] = make_float4(fx, fy, fz, 0);
}

// ---- super-clusters (GROMACS's GPU layout): 8 clusters of 8 atoms, a block of 64 threads per
// super-cluster, thread = i-atom ti (0-7) + 8 x j-atom tj (0-7). A list entry is a j-cluster, its
// shift and the mask of the super-cluster's clusters that meet it (cj << 13 | shift << 8 | mask);
// each cluster pair is listed once (Newton's third law: i-cluster <= j-cluster, within one cluster
// ti < tj): the j-atom's force is summed over ti by shuffles and added with an atomic per entry,
// the i-atoms' at the end ----
__global__ void __launch_bounds__(64) super_kernel(const float4 *__restrict__ p, const int *__restrict__ start,
                                                   const unsigned *__restrict__ list, float *f)
{
    __shared__ float4 xi[64];
    __shared__ float other[8][32][3];
    const int sc = blockIdx.x, t = threadIdx.x, ti = t & 7, tj = t >> 3;
    xi[t] = p[sc * 64 + t];
    __syncthreads();
    float fi[8][3];
#pragma unroll
    for (int c = 0; c < 8; c++)
        fi[c][0] = fi[c][1] = fi[c][2] = 0;
    for (int k = start[sc]; k < start[sc + 1]; k++) {
        const unsigned e = __ldg(&list[k]);
        const int cj = (int)(e >> 13), sh = (int)(e >> 8 & 31);
        const unsigned mask = e & 255u;
        const float4 q = p[cj * 8 + tj];
        const float jx = q.x + c_shift[sh][0], jy = q.y + c_shift[sh][1], jz = q.z + c_shift[sh][2];
        float gx = 0, gy = 0, gz = 0;
#pragma unroll
        for (int c = 0; c < 8; c++) {
            if (!(mask >> c & 1u))
                continue;
            const float4 a = xi[c * 8 + ti];
            const float dx = a.x - jx, dy = a.y - jy, dz = a.z - jz;
            const float r2 = dx * dx + dy * dy + dz * dz;
            if (r2 < RC * RC && (sc * 8 + c != cj || ti < tj)) {
                const float fp = lj_fpair(r2);
                fi[c][0] += dx * fp, fi[c][1] += dy * fp, fi[c][2] += dz * fp;
                gx -= dx * fp, gy -= dy * fp, gz -= dz * fp;
            }
        }
        for (int o = 1; o < 8; o <<= 1) {
            gx += __shfl_xor_sync(0xffffffffu, gx, o);
            gy += __shfl_xor_sync(0xffffffffu, gy, o);
            gz += __shfl_xor_sync(0xffffffffu, gz, o);
        }
        if (ti == 0) {
            float *fj = f + 3 * (cj * 8 + tj);
            atomicAdd(fj, gx), atomicAdd(fj + 1, gy), atomicAdd(fj + 2, gz);
        }
    }
#pragma unroll
    for (int c = 0; c < 8; c++)
#pragma unroll
        for (int d = 0; d < 3; d++) {
            float v = fi[c][d];
            v += __shfl_xor_sync(0xffffffffu, v, 8);
            v += __shfl_xor_sync(0xffffffffu, v, 16);
            fi[c][d] = v;
            if (t >= 32)
                other[c][t - 32][d] = v;
        }
    __syncthreads();
    if (t < 8) {
#pragma unroll
        for (int c = 0; c < 8; c++) {
            float *fa = f + 3 * (sc * 64 + c * 8 + ti);
            atomicAdd(fa, fi[c][0] + other[c][t][0]);
            atomicAdd(fa + 1, fi[c][1] + other[c][t][1]);
            atomicAdd(fa + 2, fi[c][2] + other[c][t][2]);
        }
    }
}

/* Clusters of m atoms: columns about (m / density)^(1/3) wide in x and y, atoms by z in each column,
   m consecutive atoms a cluster (a column's last padded with atoms far away); for each i-cluster the
   j-clusters whose bounding boxes come within `radius` (j-cluster << 5 | its periodic shift). */
struct Clusters {
    int m;
    float radius;
    std::vector<float4> pos;
    std::vector<int> id, start;
    std::vector<unsigned> list;
};

static Clusters make_clusters(const std::vector<float> &x, const std::vector<float> &y, const std::vector<float> &z,
                              int n, float Lf, int M, float radius)
{
    Clusters out;
    out.m = M, out.radius = radius;
    const double L = Lf;
    const int ncol = (int)(L / cbrt(M / 0.8442));
    const float colw = Lf / ncol;
    std::vector<std::vector<int>> col(ncol * ncol);
    for (int i = 0; i < n; i++)
        col[std::min(ncol - 1, (int)(y[i] / colw)) * ncol + std::min(ncol - 1, (int)(x[i] / colw))].push_back(i);
    std::vector<int> ccol;
    for (int q = 0; q < ncol * ncol; q++) {
        auto &v = col[q];
        std::sort(v.begin(), v.end(), [&](int p, int r) { return z[p] < z[r]; });
        for (size_t s = 0; s < v.size(); s += M) {
            for (int t = 0; t < M; t++) {
                const bool real = s + t < v.size();
                const int i = real ? v[s + t] : -1;
                out.pos.push_back(real ? make_float4(x[i], y[i], z[i], 0) : make_float4(1e6f + 10 * t, 1e6f, 1e6f, 0));
                out.id.push_back(i);
            }
            ccol.push_back(q);
        }
    }
    const int ncl = (int)ccol.size();
    std::vector<float> lo(3 * ncl), hi(3 * ncl);
    for (int k = 0; k < ncl; k++) {
        float l[3] = {1e30f, 1e30f, 1e30f}, h[3] = {-1e30f, -1e30f, -1e30f};
        for (int t = 0; t < M; t++) {
            if (out.id[k * M + t] < 0)
                continue;
            const float4 p = out.pos[k * M + t];
            const float v[3] = {p.x, p.y, p.z};
            for (int d = 0; d < 3; d++)
                l[d] = std::min(l[d], v[d]), h[d] = std::max(h[d], v[d]);
        }
        for (int d = 0; d < 3; d++)
            lo[3 * k + d] = l[d], hi[3 * k + d] = h[d];
    }
    std::vector<int> colfirst(ncol * ncol + 1, 0);
    for (int k = 0; k < ncl; k++)
        colfirst[ccol[k] + 1]++;
    for (int q = 0; q < ncol * ncol; q++)
        colfirst[q + 1] += colfirst[q];
    const int reach = (int)ceil(radius / colw) + 1;
    std::vector<std::vector<unsigned>> clist(ncl);
#pragma omp parallel for schedule(dynamic, 64)
    for (int k = 0; k < ncl; k++) {
        const int qx = ccol[k] % ncol, qy = ccol[k] / ncol;
        for (int dy = -reach; dy <= reach; dy++)
            for (int dx = -reach; dx <= reach; dx++) {
                const int q = ((qy + dy + ncol) % ncol) * ncol + (qx + dx + ncol) % ncol;
                for (int m = colfirst[q]; m < colfirst[q + 1]; m++) {
                    float d2 = 0, sh[3];
                    for (int d = 0; d < 3; d++) {
                        const float ci = 0.5f * (lo[3 * k + d] + hi[3 * k + d]), cj = 0.5f * (lo[3 * m + d] + hi[3 * m + d]);
                        sh[d] = Lf * rintf((ci - cj) / Lf); /* cj + sh: the image nearest ci */
                        const float gap = fabsf(ci - (cj + sh[d])) - 0.5f * (hi[3 * k + d] - lo[3 * k + d]) -
                                          0.5f * (hi[3 * m + d] - lo[3 * m + d]);
                        d2 += gap > 0 ? gap * gap : 0;
                    }
                    if (d2 < radius * radius) {
                        const int s = ((int)rintf(sh[2] / Lf) + 1) * 9 + ((int)rintf(sh[1] / Lf) + 1) * 3 +
                                      (int)rintf(sh[0] / Lf) + 1;
                        clist[k].push_back((unsigned)m << 5 | (unsigned)s);
                    }
                }
            }
    }
    out.start.assign(ncl + 1, 0);
    for (int k = 0; k < ncl; k++)
        out.start[k + 1] = out.start[k] + (int)clist[k].size();
    out.list.resize(out.start[ncl]);
    for (int k = 0; k < ncl; k++)
        std::copy(clist[k].begin(), clist[k].end(), out.list.begin() + out.start[k]);
    return out;
}

/* Super-clusters of 64 atoms: columns about (64 / density)^(1/3) wide, atoms by z in each, 64
   consecutive a super-cluster (the column's last padded with atoms far away), cut into 8 clusters
   of 8 (halves by z, quarters by x, eighths by y). For each super-cluster the j-clusters (of any
   super-cluster) within RC of its bounding box, with the mask of its clusters within RC of the
   j-cluster's box and not after it (each cluster pair once). */
struct Supers {
    std::vector<float4> pos;
    std::vector<int> id, start;
    std::vector<unsigned> list;
    long long slots = 0; /* pairs computed: 64 per mask bit */
};

static Supers make_supers(const std::vector<float> &x, const std::vector<float> &y, const std::vector<float> &z,
                          int n, float Lf)
{
    Supers out;
    const int ncol = (int)(Lf / cbrt(64 / 0.8442));
    const float colw = Lf / ncol;
    std::vector<std::vector<int>> col(ncol * ncol);
    for (int i = 0; i < n; i++)
        col[std::min(ncol - 1, (int)(y[i] / colw)) * ncol + std::min(ncol - 1, (int)(x[i] / colw))].push_back(i);
    std::vector<int> scol;
    const float inf = 1e30f;
    auto key = [&](const std::vector<float> &v, int i) { return i < 0 ? inf : v[i]; };
    for (int q = 0; q < ncol * ncol; q++) {
        auto &v = col[q];
        std::sort(v.begin(), v.end(), [&](int a, int b) { return z[a] < z[b]; });
        for (size_t s0 = 0; s0 < v.size(); s0 += 64) {
            std::vector<int> sl(64);
            for (int t = 0; t < 64; t++)
                sl[t] = s0 + t < v.size() ? v[s0 + t] : -1;
            for (int h = 0; h < 64; h += 32) {
                std::sort(sl.begin() + h, sl.begin() + h + 32, [&](int a, int b) { return key(x, a) < key(x, b); });
                for (int g = h; g < h + 32; g += 16)
                    std::sort(sl.begin() + g, sl.begin() + g + 16, [&](int a, int b) { return key(y, a) < key(y, b); });
            }
            for (int t = 0; t < 64; t++) {
                const int i = sl[t];
                out.pos.push_back(i >= 0 ? make_float4(x[i], y[i], z[i], 0)
                                         : make_float4(1e6f + 10 * t, 1e6f + 10 * (int)scol.size(), 1e6f, 0));
                out.id.push_back(i);
            }
            scol.push_back(q);
        }
    }
    const int ns = (int)scol.size(), ncl = 8 * ns;
    std::vector<float> lo(3 * ncl, inf), hi(3 * ncl, -inf);
    for (int k = 0; k < ncl; k++)
        for (int t = 0; t < 8; t++) {
            if (out.id[k * 8 + t] < 0)
                continue;
            const float4 p = out.pos[k * 8 + t];
            const float v[3] = {p.x, p.y, p.z};
            for (int d = 0; d < 3; d++)
                lo[3 * k + d] = std::min(lo[3 * k + d], v[d]), hi[3 * k + d] = std::max(hi[3 * k + d], v[d]);
        }
    std::vector<float> slo(3 * ns, inf), shi(3 * ns, -inf);
    for (int k = 0; k < ncl; k++)
        for (int d = 0; d < 3; d++)
            slo[3 * (k / 8) + d] = std::min(slo[3 * (k / 8) + d], lo[3 * k + d]),
                           shi[3 * (k / 8) + d] = std::max(shi[3 * (k / 8) + d], hi[3 * k + d]);
    std::vector<int> colfirst(ncol * ncol + 1, 0);
    for (int k = 0; k < ns; k++)
        colfirst[scol[k] + 1]++;
    for (int q = 0; q < ncol * ncol; q++)
        colfirst[q + 1] += colfirst[q];
    /* the squared gap between boxes a and b (b moved by sh) */
    auto gap2 = [&](const float *al, const float *ah, const float *bl, const float *bh, const float *sh) {
        float d2 = 0;
        for (int d = 0; d < 3; d++) {
            const float g = std::max(bl[d] + sh[d] - ah[d], al[d] - (bh[d] + sh[d]));
            d2 += g > 0 ? g * g : 0;
        }
        return d2;
    };
    const int reach = (int)ceil(RC / colw) + 1;
    std::vector<std::vector<unsigned>> slist(ns);
    long long slots = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : slots)
    for (int s = 0; s < ns; s++) {
        if (slo[3 * s] > shi[3 * s])
            continue;
        const int qx = scol[s] % ncol, qy = scol[s] / ncol;
        for (int dy = -reach; dy <= reach; dy++)
            for (int dx = -reach; dx <= reach; dx++) {
                const int q = ((qy + dy + ncol) % ncol) * ncol + (qx + dx + ncol) % ncol;
                for (int m = colfirst[q]; m < colfirst[q + 1]; m++)
                    for (int cj = 8 * m; cj < 8 * m + 8; cj++) {
                        if (lo[3 * cj] > hi[3 * cj] || cj < 8 * s)
                            continue;
                        float sh[3];
                        for (int d = 0; d < 3; d++) {
                            const float a = 0.5f * (slo[3 * s + d] + shi[3 * s + d]), b = 0.5f * (lo[3 * cj + d] + hi[3 * cj + d]);
                            sh[d] = Lf * rintf((a - b) / Lf);
                        }
                        if (gap2(&slo[3 * s], &shi[3 * s], &lo[3 * cj], &hi[3 * cj], sh) >= RC * RC)
                            continue;
                        unsigned mask = 0;
                        for (int c = 0; c < 8; c++) {
                            const int ci = 8 * s + c;
                            if (ci > cj || lo[3 * ci] > hi[3 * ci])
                                continue;
                            if (gap2(&lo[3 * ci], &hi[3 * ci], &lo[3 * cj], &hi[3 * cj], sh) < RC * RC)
                                mask |= 1u << c;
                        }
                        if (!mask)
                            continue;
                        const int si = ((int)rintf(sh[2] / Lf) + 1) * 9 + ((int)rintf(sh[1] / Lf) + 1) * 3 +
                                       (int)rintf(sh[0] / Lf) + 1;
                        slist[s].push_back((unsigned)cj << 13 | (unsigned)si << 8 | mask);
                        slots += 64 * __builtin_popcount(mask);
                    }
            }
        std::sort(slist[s].begin(), slist[s].end());
    }
    out.slots = slots;
    out.start.assign(ns + 1, 0);
    for (int k = 0; k < ns; k++)
        out.start[k + 1] = out.start[k] + (int)slist[k].size();
    out.list.resize(out.start[ns]);
    for (int k = 0; k < ns; k++)
        std::copy(slist[k].begin(), slist[k].end(), out.list.begin() + out.start[k]);
    return out;
}

static float median_ms(std::vector<float> t)
{
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <class K>
static float time_kernel(K launch)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int r = 0; r < 21; r++) {
        CK(cudaEventRecord(a));
        launch();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    CK(cudaGetLastError());
    return median_ms(t);
}

int main(int argc, char **argv)
{
    const int c = argc > 1 ? atoi(argv[1]) : 80;
    const int n = 4 * c * c * c;
    const double a = cbrt(4.0 / 0.8442), L = c * a;
    // fcc lattice, each atom moved up to 0.15 sigma (a liquid's density, no lattice symmetry)
    std::vector<float> x(n), y(n), z(n);
    const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    unsigned long long seed = 12345;
    auto rnd = [&]() { seed = seed * 6364136223846793005ULL + 1442695040888963407ULL; return (seed >> 11) * 0x1.0p-53; };
    for (int i = 0, m = 0; i < c; i++)
        for (int j = 0; j < c; j++)
            for (int k = 0; k < c; k++)
                for (int b = 0; b < 4; b++, m++) {
                    x[m] = (float)fmod((i + basis[b][0]) * a + 0.3 * (rnd() - 0.5) + L, L);
                    y[m] = (float)fmod((j + basis[b][1]) * a + 0.3 * (rnd() - 0.5) + L, L);
                    z[m] = (float)fmod((k + basis[b][2]) * a + 0.3 * (rnd() - 0.5) + L, L);
                }
    const float Lf = (float)L;
    auto mi = [&](float d) { return d - Lf * rintf(d / Lf); };

    // ---- per-atom: atoms sorted by cells >= RLIST, full lists ----
    const int nc = (int)(L / RLIST);
    const float cw = Lf / nc;
    std::vector<int> cell(n), order(n);
    for (int i = 0; i < n; i++) {
        int cx = std::min(nc - 1, (int)(x[i] / cw)), cy = std::min(nc - 1, (int)(y[i] / cw)),
            cz = std::min(nc - 1, (int)(z[i] / cw));
        cell[i] = (cz * nc + cy) * nc + cx;
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&](int p, int q) { return cell[p] < cell[q]; });
    std::vector<int> cstart(nc * nc * nc + 1, 0);
    for (int i = 0; i < n; i++)
        cstart[cell[i] + 1]++;
    for (int k = 0; k < nc * nc * nc; k++)
        cstart[k + 1] += cstart[k];
    std::vector<float4> pa(n);
    for (int k = 0; k < n; k++)
        pa[k] = make_float4(x[order[k]], y[order[k]], z[order[k]], 0);
    std::vector<std::vector<int>> rows(n);
    long long atom_pairs = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(+ : atom_pairs)
    for (int k = 0; k < n; k++) {
        const int i = order[k], ci = cell[i], cx = ci % nc, cy = ci / nc % nc, cz = ci / (nc * nc);
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int cc = (((cz + dz + nc) % nc) * nc + (cy + dy + nc) % nc) * nc + (cx + dx + nc) % nc;
                    for (int m = cstart[cc]; m < cstart[cc + 1]; m++) {
                        if (m == k)
                            continue;
                        float ddx = mi(pa[k].x - pa[m].x), ddy = mi(pa[k].y - pa[m].y), ddz = mi(pa[k].z - pa[m].z);
                        if (ddx * ddx + ddy * ddy + ddz * ddz < RLIST * RLIST)
                            rows[k].push_back(m);
                    }
                }
        atom_pairs += (long long)rows[k].size();
    }
    int cap = 0;
    for (auto &r : rows)
        cap = std::max(cap, (int)r.size());
    std::vector<int> nl((size_t)cap * n, 0), cnt(n);
    for (int k = 0; k < n; k++) {
        cnt[k] = (int)rows[k].size();
        for (int s = 0; s < cnt[k]; s++)
            nl[(size_t)s * n + k] = rows[k][s];
    }
    rows.clear();
    rows.shrink_to_fit();

    /* The candidates the engine's warp builder tests (warp_builder.cu): a warp per 32 atoms in cell
       order, one pass per row of cells (same y and z) among its atoms, each pass scanning the cells
       xlo - 1 .. xhi + 1 of the 9 rows around, every lane testing every candidate. */
    long long tested = 0;
    for (int w = 0; w < n; w += 32) {
        std::vector<std::array<int, 4>> rows; /* cy, cz, xlo, xhi */
        for (int k = w; k < std::min(n, w + 32); k++) {
            const int c0 = cell[order[k]], cx = c0 % nc, cy = c0 / nc % nc, cz = c0 / (nc * nc);
            bool found = false;
            for (auto &r : rows)
                if (r[0] == cy && r[1] == cz)
                    r[2] = std::min(r[2], cx), r[3] = std::max(r[3], cx), found = true;
            if (!found)
                rows.push_back({cy, cz, cx, cx});
        }
        for (const auto &r : rows)
            for (int dz = -1; dz <= 1; dz++)
                for (int dy = -1; dy <= 1; dy++) {
                    const int span = std::min(nc, r[3] - r[2] + 3);
                    for (int t = 0; t < span; t++) {
                        const int cc = (((r[1] + dz + nc) % nc) * nc + (r[0] + dy + nc) % nc) * nc +
                                       (r[2] - 1 + t + nc) % nc;
                        tested += 32LL * (cstart[cc + 1] - cstart[cc]);
                    }
                }
    }
    printf("the warp builder's scan: %d x %d x %d cells of %.3f, %.1f candidates tested per atom\n", nc, nc, nc, cw,
           (double)tested / n);

    std::vector<Clusters> variants;
    for (int m : {8, 4})
        for (float r : {RLIST, RC})
            variants.push_back(make_clusters(x, y, z, n, Lf, m, r));
    float shift[27][3];
    for (int s = 0; s < 27; s++)
        shift[s][0] = (s % 3 - 1) * Lf, shift[s][1] = (s / 3 % 3 - 1) * Lf, shift[s][2] = (s / 9 - 1) * Lf;
    CK(cudaMemcpyToSymbol(c_shift, shift, sizeof shift));

    // ---- device ----
    float4 *dpa, *dfa;
    int *dnl, *dcnt;
    CK(cudaMalloc(&dpa, n * sizeof(float4)));
    CK(cudaMalloc(&dfa, n * sizeof(float4)));
    CK(cudaMalloc(&dnl, nl.size() * sizeof(int)));
    CK(cudaMalloc(&dcnt, n * sizeof(int)));
    CK(cudaMemcpy(dpa, pa.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dnl, nl.data(), nl.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dcnt, cnt.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    const float ta = time_kernel([&] { atom_kernel<<<(n + 127) / 128, 128>>>(n, dpa, dnl, dcnt, Lf, 1 / Lf, dfa); });
    std::vector<float4> fa(n), byid(n);
    CK(cudaMemcpy(fa.data(), dfa, n * sizeof(float4), cudaMemcpyDeviceToHost));
    for (int k = 0; k < n; k++)
        byid[order[k]] = fa[k];
    printf("atoms %d, box %.4f: per-atom list %.2f pairs/atom (radius %.1f), capacity %d; per-atom kernel %.1f us\n", n,
           L, (double)atom_pairs / n, RLIST, cap, 1e3 * ta);
    for (const Clusters &v : variants) {
        float4 *dpc, *dfc;
        int *dstart;
        unsigned *dflat;
        const int ncl = (int)v.start.size() - 1;
        CK(cudaMalloc(&dpc, v.pos.size() * sizeof(float4)));
        CK(cudaMalloc(&dfc, v.pos.size() * sizeof(float4)));
        CK(cudaMalloc(&dstart, v.start.size() * sizeof(int)));
        CK(cudaMalloc(&dflat, v.list.size() * sizeof(unsigned)));
        CK(cudaMemcpy(dpc, v.pos.data(), v.pos.size() * sizeof(float4), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dstart, v.start.data(), v.start.size() * sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dflat, v.list.data(), v.list.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
        const int warps = ncl; /* a warp per i-cluster */
        const float tc = time_kernel([&] {
            if (v.m == 8)
                cluster_kernel<<<(warps * 32 + 127) / 128, 128>>>(ncl, dpc, dstart, dflat, dfc);
            else
                cluster4_kernel<<<(warps * 32 + 127) / 128, 128>>>(ncl, dpc, dstart, dflat, dfc);
        });
        std::vector<float4> fc(v.pos.size());
        CK(cudaMemcpy(fc.data(), dfc, v.pos.size() * sizeof(float4), cudaMemcpyDeviceToHost));
        double worst = 0, fmax = 0;
        for (size_t k = 0; k < v.pos.size(); k++) {
            if (v.id[k] < 0)
                continue;
            const float4 g = byid[v.id[k]], h = fc[k];
            worst = std::max(worst, (double)fabsf(g.x - h.x) + fabsf(g.y - h.y) + fabsf(g.z - h.z));
            fmax = std::max(fmax, (double)fabsf(g.x) + fabsf(g.y) + fabsf(g.z));
        }
        printf("clusters of %d, list radius %.1f: %d clusters (%.1f%% padding), %.1f j-clusters each, %.1f pairs "
               "computed per atom; cluster kernel %.1f us (per-atom / cluster %.3f); force difference %.3g of %.3g\n",
               v.m, v.radius, ncl, 100.0 * (v.pos.size() - n) / v.pos.size(), (double)v.list.size() / ncl,
               (double)v.m * v.list.size() / ncl, 1e3 * tc, ta / tc, worst, fmax);
        CK(cudaFree(dpc));
        CK(cudaFree(dfc));
        CK(cudaFree(dstart));
        CK(cudaFree(dflat));
    }
    {
        const Supers v = make_supers(x, y, z, n, Lf);
        const int ns = (int)v.start.size() - 1;
        float4 *dpc;
        float *dfc;
        int *dstart;
        unsigned *dflat;
        CK(cudaMalloc(&dpc, v.pos.size() * sizeof(float4)));
        CK(cudaMalloc(&dfc, 3 * v.pos.size() * sizeof(float)));
        CK(cudaMalloc(&dstart, v.start.size() * sizeof(int)));
        CK(cudaMalloc(&dflat, v.list.size() * sizeof(unsigned)));
        CK(cudaMemcpy(dpc, v.pos.data(), v.pos.size() * sizeof(float4), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dstart, v.start.data(), v.start.size() * sizeof(int), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dflat, v.list.data(), v.list.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
        const float tc = time_kernel([&] {
            CK(cudaMemsetAsync(dfc, 0, 3 * v.pos.size() * sizeof(float)));
            super_kernel<<<ns, 64>>>(dpc, dstart, dflat, dfc);
        });
        std::vector<float> fc(3 * v.pos.size());
        CK(cudaMemcpy(fc.data(), dfc, fc.size() * sizeof(float), cudaMemcpyDeviceToHost));
        const float tm = time_kernel([&] { CK(cudaMemsetAsync(dfc, 0, 3 * v.pos.size() * sizeof(float))); });
        double worst = 0, fmax = 0;
        for (size_t k = 0; k < v.pos.size(); k++) {
            if (v.id[k] < 0)
                continue;
            const float4 g = byid[v.id[k]];
            worst = std::max(worst, (double)fabsf(g.x - fc[3 * k]) + fabsf(g.y - fc[3 * k + 1]) + fabsf(g.z - fc[3 * k + 2]));
            fmax = std::max(fmax, (double)fabsf(g.x) + fabsf(g.y) + fabsf(g.z));
        }
        printf("super-clusters of 8 x 8, pairs once, list radius %.1f: %d super-clusters (%.1f%% padding), %.1f "
               "j-clusters each, %.1f pairs computed per atom (each pair once); kernel + zeroing %.1f us (zeroing "
               "%.1f; per-atom / super %.3f); force difference %.3g of %.3g\n",
               RC, ns, 100.0 * (v.pos.size() - n) / v.pos.size(), (double)v.list.size() / ns, (double)v.slots / n,
               1e3 * tc, 1e3 * tm, ta / tc, worst, fmax);
        CK(cudaFree(dpc));
        CK(cudaFree(dfc));
        CK(cudaFree(dstart));
        CK(cudaFree(dflat));
    }
    return 0;
}

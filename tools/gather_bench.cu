// A measurement, not part of mdlite: how the layout of the positions changes the LJ force pass's gathers.
// Build: nvcc -O3 -arch=sm_90 -Xcompiler -fopenmp tools/gather_bench.cu -o gather_bench
// Run: ./gather_bench [cells per side, default 80 = 2,048,000 atoms] [sub-cells per cell side, default 1]
//      [1: each row ordered by (j - i) mod 8]
// An fcc lattice at in.lj's density, each atom moved by up to 0.2 sigma, sorted by cell (x fastest), full
// lists within 2.8 in transposed rows (entry k of row i at k * n + i), scanned cell by cell as the builders
// do. Each kernel computes the same LJ forces (one thread per atom, minimum image) from positions laid out
// one way; the median of 21 timed runs is printed with the largest force difference from the first layout
// of its precision.
// H100, 2,048,000 atoms, 75.3 entries per row (commit c1ebd2b; ncu: L1 data-pipe wavefronts, % of peak):
//   double: AoS double4 641 us (154 M, 93%); 2 x double2 553 us (123 M); double2 + double 511 us (104 M, 79%);
//   3 x double 523 us. mixed: AoS float4 364 us (65 M, 70%); float2 + float 357 us (58 M, 63%; in mdlite,
//   blocks of 32 atoms lost 6-11% of whole runs); 3 x float 372 us; float4 through the texture
//   path 400 us (its data pipe at 75%), half of the atoms through it 410 us. Each cell's atoms ordered by 2^3,
//   3^3 or 4^3 sub-cells: within 1% of cell order for every layout. Rows ordered by (j - i) mod 8, so that
//   the lanes of a warp mostly read different 16-byte slots of their lines: slower (float4 375 us, 70 M
//   wavefronts; double2 + double 578 us, 124 M): the cell order's common lines count, not bank conflicts.
// Fewer wavefronts when each atom's entry is 16 bytes rather than 32 (double4 takes two 16-byte loads, each
// reading as many lines as one load of 16-byte entries would).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                    \
    do {                                                                                               \
        cudaError_t e_ = (call);                                                                       \
        if (e_ != cudaSuccess) {                                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));     \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

struct __align__(32) double4a {
    double x, y, z, w;
};

/* Each layout: where the three coordinates of atom j are, and how they are read. */
template <class T> struct xyz {
    T x, y, z;
};
struct AoS_d4 {
    const double4a *p;
    __device__ xyz<double> at(int j) const { const double4a q = p[j]; return {q.x, q.y, q.z}; }
};
struct Pairs_d2 { /* (x, y) and (z, w) in two arrays of 16-byte entries */
    const double2 *xy, *zw;
    __device__ xyz<double> at(int j) const
    {
        const double2 a = __ldg(&xy[j]), b = __ldg(&zw[j]);
        return {a.x, a.y, b.x};
    }
};
struct Pair_d2_d1 { /* (x, y) and z */
    const double2 *xy;
    const double *z;
    __device__ xyz<double> at(int j) const { const double2 a = __ldg(&xy[j]); return {a.x, a.y, __ldg(&z[j])}; }
};
struct SoA_d { /* three arrays of doubles */
    const double *x, *y, *z;
    __device__ xyz<double> at(int j) const { return {__ldg(&x[j]), __ldg(&y[j]), __ldg(&z[j])}; }
};
struct AoS_f4 {
    const float4 *p;
    __device__ xyz<float> at(int j) const { const float4 q = __ldg(&p[j]); return {q.x, q.y, q.z}; }
};
struct Tex_f4 { /* through the texture path */
    cudaTextureObject_t t;
    __device__ xyz<float> at(int j) const { const float4 q = tex1Dfetch<float4>(t, j); return {q.x, q.y, q.z}; }
};
struct Half_tex_f4 { /* odd atoms through the texture path, even ones through the LSU's loads */
    const float4 *p;
    cudaTextureObject_t t;
    __device__ xyz<float> at(int j) const
    {
        const float4 q = j & 1 ? tex1Dfetch<float4>(t, j) : __ldg(&p[j]);
        return {q.x, q.y, q.z};
    }
};
struct Pair_f2_f1 { /* (x, y) and z, as double precision's blocks */
    const float2 *xy;
    const float *z;
    __device__ xyz<float> at(int j) const { const float2 a = __ldg(&xy[j]); return {a.x, a.y, __ldg(&z[j])}; }
};
struct SoA_f {
    const float *x, *y, *z;
    __device__ xyz<float> at(int j) const { return {__ldg(&x[j]), __ldg(&y[j]), __ldg(&z[j])}; }
};

template <class T> __device__ __forceinline__ T min_image(T d, T len, T inv) { return d - len * rint(d * inv); }

template <class T, class L>
__global__ void __launch_bounds__(128) lj(int n, L pos, const int *__restrict__ nl, const int *__restrict__ count,
                                          T len, T cut2, T *fx, T *fy, T *fz)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const xyz<T> pi = pos.at(i);
    const T inv = (T)1 / len;
    T ax = 0, ay = 0, az = 0;
    const int c = count[i];
    const auto add = [&](xyz<T> pj) {
        const T dx = min_image(pi.x - pj.x, len, inv), dy = min_image(pi.y - pj.y, len, inv);
        const T dz = min_image(pi.z - pj.z, len, inv);
        const T r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < cut2) {
            const T r2i = (T)1 / r2, r6i = r2i * r2i * r2i, fp = r6i * ((T)48 * r6i - (T)24) * r2i;
            ax += dx * fp, ay += dy * fp, az += dz * fp;
        }
    };
    int k = 0;
    for (; k + 4 <= c; k += 4) { /* four neighbors' loads in flight together, as mdlite's packed rows */
        const int j0 = __ldg(&nl[(size_t)k * n + i]), j1 = __ldg(&nl[(size_t)(k + 1) * n + i]);
        const int j2 = __ldg(&nl[(size_t)(k + 2) * n + i]), j3 = __ldg(&nl[(size_t)(k + 3) * n + i]);
        const xyz<T> p0 = pos.at(j0), p1 = pos.at(j1), p2 = pos.at(j2), p3 = pos.at(j3);
        add(p0), add(p1), add(p2), add(p3);
    }
    for (; k < c; k++)
        add(pos.at(__ldg(&nl[(size_t)k * n + i])));
    fx[i] = ax, fy[i] = ay, fz[i] = az;
}

template <class T> static T *upload(const std::vector<T> &h)
{
    T *d;
    CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
    CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

struct Forces {
    int n;
    double *f[3];
    std::vector<double> host;
};

template <class T, class L>
static void time_layout(const char *name, int n, L pos, const int *nl, const int *count, double len, double *ref)
{
    T *f;
    CHECK(cudaMalloc(&f, 3 * (size_t)n * sizeof(T)));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> ms;
    for (int r = 0; r < 22; r++) {
        CHECK(cudaEventRecord(a));
        lj<T, L><<<(n + 127) / 128, 128>>>(n, pos, nl, count, (T)len, (T)(2.5 * 2.5), f, f + n, f + 2 * (size_t)n);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float t;
        CHECK(cudaEventElapsedTime(&t, a, b));
        if (r > 0) /* the first run warms the caches and clocks */
            ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::vector<T> h(3 * (size_t)n);
    CHECK(cudaMemcpy(h.data(), f, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (size_t k = 0; k < h.size(); k++) {
        if (std::isnan(ref[k]))
            ref[k] = (double)h[k];
        worst = std::max(worst, std::fabs((double)h[k] - ref[k]));
    }
    printf("%-28s %9.1f us (min %9.1f)  max |f - first| %.3g\n", name, 1e3 * ms[ms.size() / 2], 1e3 * ms[0], worst);
    CHECK(cudaFree(f));
}

int main(int argc, char **argv)
{
    const int cells = argc > 1 ? atoi(argv[1]) : 80, n = 4 * cells * cells * cells;
    const int sub = argc > 2 ? atoi(argv[2]) : 1; /* each cell's atoms ordered by sub x sub x sub sub-cells */
    const int spread = argc > 3 ? atoi(argv[3]) : 0; /* 1: rows ordered by (j - i) mod 8, stable */
    const double a = std::cbrt(4 / 0.8442), len = cells * a, rlist = 2.8;
    std::vector<double> x(n), y(n), z(n);
    srand(12345);
    const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    for (int c = 0, i = 0; c < cells * cells * cells; c++)
        for (int b = 0; b < 4; b++, i++) {
            const int cx = c % cells, cy = c / cells % cells, cz = c / (cells * cells);
            const double d[3] = {0.4 * rand() / RAND_MAX - 0.2, 0.4 * rand() / RAND_MAX - 0.2,
                                 0.4 * rand() / RAND_MAX - 0.2};
            double q[3] = {(cx + basis[b][0]) * a + d[0], (cy + basis[b][1]) * a + d[1], (cz + basis[b][2]) * a + d[2]};
            for (double &v : q)
                v -= len * std::floor(v / len);
            x[i] = q[0], y[i] = q[1], z[i] = q[2];
        }
    /* sort by cell, x fastest, stable */
    const int nc = (int)(len / rlist), ncell = nc * nc * nc;
    const double side = len / nc;
    auto coord = [&](double v) { return std::min(nc - 1, (int)(v / side)); };
    std::vector<int> cell(n), start(ncell + 1, 0), order(n);
    for (int i = 0; i < n; i++)
        cell[i] = (coord(z[i]) * nc + coord(y[i])) * nc + coord(x[i]), start[cell[i] + 1]++;
    for (int c = 0; c < ncell; c++)
        start[c + 1] += start[c];
    {
        std::vector<int> fill(start.begin(), start.end() - 1);
        for (int i = 0; i < n; i++)
            order[fill[cell[i]]++] = i;
    }
    if (sub > 1) { /* within each cell, by sub-cell in Morton order (stable) */
        const auto key = [&](int i) {
            const double *v[3] = {&x[i], &y[i], &z[i]};
            unsigned m = 0;
            for (int d = 0; d < 3; d++) {
                const int c = coord(*v[d]);
                const unsigned q = (unsigned)std::min(sub - 1, (int)((*v[d] - c * side) / side * sub));
                for (int bit = 0; (1 << bit) < sub; bit++)
                    m |= ((q >> bit) & 1u) << (3 * bit + d);
            }
            return m;
        };
        for (int c = 0; c < ncell; c++)
            std::stable_sort(order.begin() + start[c], order.begin() + start[c + 1],
                             [&](int p, int q) { return key(p) < key(q); });
    }
    std::vector<double> sx(n), sy(n), sz(n);
    for (int k = 0; k < n; k++)
        sx[k] = x[order[k]], sy[k] = y[order[k]], sz[k] = z[order[k]];
    /* full lists, the 27 cells in increasing (z, y, x) offset order */
    const int cap = 128;
    std::vector<int> nl((size_t)cap * n), count(n);
    int worst = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(max : worst)
    for (int i = 0; i < n; i++) {
        const int cx = coord(sx[i]), cy = coord(sy[i]), cz = coord(sz[i]);
        int m = 0;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const int c = (((cz + dz + nc) % nc) * nc + (cy + dy + nc) % nc) * nc + (cx + dx + nc) % nc;
                    for (int j = start[c]; j < start[c + 1]; j++) {
                        if (j == i)
                            continue;
                        double ex = sx[i] - sx[j], ey = sy[i] - sy[j], ez = sz[i] - sz[j];
                        ex -= len * std::rint(ex / len), ey -= len * std::rint(ey / len);
                        ez -= len * std::rint(ez / len);
                        if (ex * ex + ey * ey + ez * ez < rlist * rlist && m < cap)
                            nl[(size_t)m++ * n + i] = j;
                    }
                }
        if (spread) { /* at the same k, the warp's lanes mostly read atoms 16 bytes apart in their lines */
            std::vector<int> row(m);
            for (int k = 0; k < m; k++)
                row[k] = nl[(size_t)k * n + i];
            std::stable_sort(row.begin(), row.end(), [&](int p, int q) { return ((p - i) & 7) < ((q - i) & 7); });
            for (int k = 0; k < m; k++)
                nl[(size_t)k * n + i] = row[k];
        }
        count[i] = m;
        worst = std::max(worst, m);
    }
    long long pairs = 0;
    for (int i = 0; i < n; i++)
        pairs += count[i];
    printf("%d atoms, %d cells per side (%d^3 sub-cells), %.1f entries per row (longest %d of %d)%s\n", n, nc, sub,
           (double)pairs / n, worst, cap, spread ? ", rows ordered by (j - i) mod 8" : "");
    const int *dnl = upload(nl), *dcount = upload(count);
    std::vector<double4a> d4(n);
    std::vector<double2> dxy(n), dzw(n);
    std::vector<float4> f4(n);
    std::vector<float> fx(n), fy(n), fz(n);
    for (int k = 0; k < n; k++) {
        d4[k] = {sx[k], sy[k], sz[k], 0};
        dxy[k] = make_double2(sx[k], sy[k]), dzw[k] = make_double2(sz[k], 0);
        f4[k] = make_float4((float)sx[k], (float)sy[k], (float)sz[k], 0);
        fx[k] = (float)sx[k], fy[k] = (float)sy[k], fz[k] = (float)sz[k];
    }
    const double *gx = upload(sx), *gy = upload(sy), *gz = upload(sz);
    const double2 *gxy = upload(dxy), *gzw = upload(dzw);
    std::vector<double> refd(3 * (size_t)n, NAN), reff(3 * (size_t)n, NAN);
    for (int round = 0; round < 2; round++) { /* twice: the second says how steady the figures are */
        time_layout<double>("double: AoS double4 (now)", n, AoS_d4{upload(d4)}, dnl, dcount, len, refd.data());
        time_layout<double>("double: 2 x double2", n, Pairs_d2{gxy, gzw}, dnl, dcount, len, refd.data());
        time_layout<double>("double: double2 + double", n, Pair_d2_d1{gxy, gz}, dnl, dcount, len, refd.data());
        time_layout<double>("double: 3 x double", n, SoA_d{gx, gy, gz}, dnl, dcount, len, refd.data());
        time_layout<float>("mixed: AoS float4 (now)", n, AoS_f4{upload(f4)}, dnl, dcount, len, reff.data());
        const float4 *gf4 = upload(f4);
        cudaResourceDesc rd = {};
        rd.resType = cudaResourceTypeLinear, rd.res.linear.devPtr = (void *)gf4;
        rd.res.linear.desc = cudaCreateChannelDesc<float4>(), rd.res.linear.sizeInBytes = (size_t)n * sizeof(float4);
        cudaTextureDesc td = {};
        td.readMode = cudaReadModeElementType;
        cudaTextureObject_t tex;
        CHECK(cudaCreateTextureObject(&tex, &rd, &td, NULL));
        time_layout<float>("mixed: float4 texture", n, Tex_f4{tex}, dnl, dcount, len, reff.data());
        time_layout<float>("mixed: float4 half texture", n, Half_tex_f4{gf4, tex}, dnl, dcount, len, reff.data());
        std::vector<float2> fxy(n);
        for (int k = 0; k < n; k++)
            fxy[k] = make_float2(fx[k], fy[k]);
        time_layout<float>("mixed: float2 + float", n, Pair_f2_f1{upload(fxy), upload(fz)}, dnl, dcount, len,
                           reff.data());
        time_layout<float>("mixed: 3 x float", n, SoA_f{upload(fx), upload(fy), upload(fz)}, dnl, dcount, len,
                           reff.data());
    }
    return 0;
}

// Dynamic pruning ([neighbor] outer_skin): the inner list the forces read, made from an outer list
// at the current positions, keeping each row's order; the positions of the prune kept for the
// skin test.
#include "neighbor.cuh"

/* pos0[i]: the prune's position of atom i (p), its w the distance from the outer list's (q). */
__device__ __forceinline__ void keep_prune_position(pos_t *pos0, int i, real4 p, real4 q)
{
    p.w = sqrt(displacement2(p, q));
    pos_put(pos0, i, p);
}

#define PRUNE_CHUNK 16 /* outer entries per lane between two writes of the warp's kept entries */

/* One lane per row, a warp's 32 rows together: each lane tests PRUNE_CHUNK entries of its outer
   row and keeps the near ones in its column of the warp's ring (shared memory); then the warp
   writes the kept entries slot by slot, so that the 32 rows' slot s go out in one store (transposed
   rows are columns: a lane writing its own row alone would touch a line per entry). Packed rows
   (the warp's table says so) keep their 16-bit entries. */
__global__ void __launch_bounds__(MDL_BLOCK) prune_rows_kernel(int n, image_lengths m, const pos_t *__restrict__ pos,
                                                               const pos_t *__restrict__ pos_outer, mdl_real rlist2,
                                                               const int *__restrict__ onl,
                                                               const int *__restrict__ ocount,
                                                               const int *__restrict__ table, int *nl, int *count,
                                                               int si, int sk, int capacity, pos_t *pos0,
                                                               const int *halt)
{
    __shared__ int rings[MDL_BLOCK / 32][PRUNE_CHUNK][32];
    const unsigned all = 0xffffffffu;
    const int i = blockIdx.x * blockDim.x + threadIdx.x, lane = (int)(threadIdx.x & 31);
    if (*halt || i - lane >= n) /* whole warps: the writes below need all 32 lanes */
        return;
    int (*ring)[32] = rings[threadIdx.x >> 5];
    const int *tw = table ? table + (size_t)(i / 32) * GPU_LIST_TABLE : NULL;
    const bool packed = tw && tw[GPU_LIST_TABLE - 1] == GPU_LIST_PACKED;
    int cnt = i < n ? ocount[i] : 0;
    const bool over = cnt > (packed ? 2 * capacity : capacity); /* a packed row holds two entries per int */
    if (over) { /* the outer row did not fit: the inner one is a row past the capacity too */
        count[i] = cnt;
        cnt = 0;
    }
    const real4 pi = i < n ? pos_at(pos, i) : real4{};
    if (i < n)
        keep_prune_position(pos0, i, pi, pos_at(pos_outer, i));
    const int *in = onl + (size_t)(i < n ? i : 0) * si;
    const int last = __reduce_max_sync(all, cnt);
    int kept = 0, written = 0;
    for (int k0 = 0; k0 < last; k0 += PRUNE_CHUNK) {
        for (int k = k0; k < min(k0 + PRUNE_CHUNK, cnt); k++) {
            unsigned e = (unsigned)__ldg(&in[(size_t)(packed ? k >> 1 : k) * sk]);
            e = packed ? (e >> (16 * (k & 1))) & 0xffffu : e;
            const int j = packed ? gpu_list_unpack(tw, e) : (int)e;
            if (distance2(pi, load4(pos, j), m) < rlist2)
                ring[kept++ % PRUNE_CHUNK][lane] = (int)e;
        }
        __syncwarp();
        const int lo = __reduce_min_sync(all, written), hi = __reduce_max_sync(all, kept);
        for (int s = lo; s < hi; s++) {
            if (s < written || s >= kept)
                continue;
            const int e = ring[s % PRUNE_CHUNK][lane];
            if (packed)
                put_packed(nl, i, s, sk, e);
            else
                nl[(size_t)i * si + (size_t)s * sk] = e;
        }
        __syncwarp();
        written = kept;
    }
    if (i < n && !over)
        count[i] = kept;
}

/* T = 8 lanes per atom (few atoms; rows unpacked): lane s tests the outer row's entries s, s + 8,
   ..., and a ballot over the atom's lanes places each round's kept entries in order. */
template <int T>
__global__ void prune_kernel(int n, image_lengths m, const pos_t *__restrict__ pos,
                             const pos_t *__restrict__ pos_outer, mdl_real rlist2, const int *__restrict__ onl,
                             const int *__restrict__ ocount, int *nl, int *count, int si, int sk, int capacity,
                             pos_t *pos0, const int *halt)
{
    const int g = blockIdx.x * blockDim.x + threadIdx.x, i = g / T, s = g % T;
    if (i >= n || *halt) /* whole groups leave together */
        return;
    const real4 pi = pos_at(pos, i);
    if (s == 0)
        keep_prune_position(pos0, i, pi, pos_at(pos_outer, i));
    const int cnt = ocount[i];
    if (cnt > capacity) { /* as prune_rows_kernel */
        if (s == 0)
            count[i] = cnt;
        return;
    }
    const int *in = onl + (size_t)i * si;
    int *out = nl + (size_t)i * si;
    const int base = (int)(threadIdx.x & 31) & ~(T - 1);
    const unsigned group = ((1u << T) - 1) << base;
    int kept = 0;
    for (int k0 = 0; k0 < cnt; k0 += T) {
        const int k = k0 + s;
        int j = 0;
        bool keep = false;
        if (k < cnt) {
            j = __ldg(&in[(size_t)k * sk]);
            keep = distance2(pi, load4(pos, j), m) < rlist2;
        }
        const unsigned bits = __ballot_sync(group, keep) >> base;
        if (keep)
            out[(size_t)(kept + __popc(bits & ((1u << s) - 1))) * sk] = j;
        kept += __popc(bits);
    }
    if (s == 0)
        count[i] = kept;
}

extern "C" int gpu_prune_list(size_t n, mdl_box box, const mdl_real *pos4, const mdl_real *pos_outer, double rlist,
                              const int *onl, const int *ocount, const int *table, int *nl, int *count, int si, int sk,
                              int capacity, mdl_real *pos0, const int *halt)
{
    const image_lengths m = make_image_lengths(box);
    const pos_t *p = (const pos_t *)pos4, *po = (const pos_t *)pos_outer;
    pos_t *p0 = (pos_t *)pos0;
    const mdl_real r2 = (mdl_real)(rlist * rlist);
    if (n < 65536 && !table) /* few atoms: 8 lanes each keep the GPU busy, as in the force kernel (32,000
                                   atoms: 32 lanes 8.35e8 atom-steps/s, 8 lanes 9.46e8, 1 lane 7.69e8) */
        prune_kernel<8><<<grid_for(n * 8, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, m, p, po, r2, onl, ocount,
                                                                                    nl, count, si, sk, capacity, p0,
                                                                                    halt);
    else
        prune_rows_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, m, p, po, r2, onl, ocount,
                                                                                 table, nl, count, si, sk, capacity,
                                                                                 p0, halt);
    MDL_LAUNCHED("prune_list");
    return 0;
}

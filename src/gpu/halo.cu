// GPU kernels of the decomposition (several ranks; sort.cu selects the atoms that leave the brick
// and those that are a neighbor's ghosts; one rank's images: self_ghosts.cu): lost atoms counted, atoms and ghosts packed into
// message buffers and unpacked from them (each step's positions also written straight into another
// rank's memory, with the words that say they are there and the skin vote), the cell keys that
// keep owned atoms before ghosts, the coordinates along a triclinic box's bricks, and the index
// maps a sort leaves behind.
#include "common.cuh"

#include <cuda/atomic>

/* ---- direct writes between ranks of one node: release and acquire at system scope ---- */
__device__ __forceinline__ void store_release(unsigned long long *p, unsigned long long v)
{
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>(*p).store(v, cuda::memory_order_release);
}

__device__ __forceinline__ unsigned long long load_acquire(const unsigned long long *p)
{
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>(*const_cast<unsigned long long *>(p))
        .load(cuda::memory_order_acquire);
}

/* A ballot: the vote's number (low 32 bits) above the wish (2 bits) and the longest row (30). */
__device__ __forceinline__ unsigned long long ballot(unsigned round, int halt, int need)
{
    unsigned row = need < 0 ? 0u : need > 0x3fffffff ? 0x3fffffffu : (unsigned)need;
    return (unsigned long long)round << 32 | (unsigned long long)halt << 30 | row;
}

/* This rank's wish, into its place in every rank's box (its own included). */
__device__ void cast_vote(const gpu_peer_vote &v, const gpu_nb_state *st)
{
    unsigned long long b = ballot(v.round, st->halt, st->need);
    for (int r = 0; r < v.nranks; r++)
        store_release(v.box[r] + (size_t)(v.round & 1) * v.nranks + v.rank, b);
}

/* Every rank's ballot of this round, once all are in: their maxima into halt and need. */
__device__ void count_votes(const gpu_peer_vote &v, gpu_nb_state *st)
{
    int halt = 0, need = 0;
    for (int r = 0; r < v.nranks; r++) {
        const unsigned long long *p = v.mine + (size_t)(v.round & 1) * v.nranks + r;
        unsigned long long b;
        while ((unsigned)((b = load_acquire(p)) >> 32) != v.round)
            __nanosleep(32);
        halt = max(halt, (int)(b >> 30 & 3));
        need = max(need, (int)(b & 0x3fffffff));
    }
    st->halt = halt, st->need = need;
}

/* The launch's blocks each finish their writes (a barrier, then one thread's fence: NCCL's
   pattern); the last block then tells the receivers. */
__device__ void tell_receivers(const gpu_peer_out &o)
{
    __syncthreads();
    if (threadIdx.x != 0)
        return;
    __threadfence_system();
    if (atomicAdd(o.ticket, 1u) + 1 != gridDim.x)
        return;
    __threadfence_system();
    *o.ticket = 0;
    for (int w = 0; w < 2; w++)
        if (o.ready[w])
            store_release(o.ready[w], o.seq);
}

/* Thread 0 waits until both ways' senders have told this rank (a block's threads then read). */
__device__ void wait_for_senders(const gpu_peer_in &in)
{
    if (threadIdx.x == 0)
        for (int w = 0; w < 2; w++)
            while (in.ready[w] && load_acquire(in.ready[w]) < in.seq)
                __nanosleep(32);
    __syncthreads();
}

/* The block's items first .. first + count - 1 (W values of T each, staged in tile) into dest0
   (items below m0) or dest1 (from item m0 on), the block's threads taking consecutive words: whole
   lines go out, not each thread's scattered words (writes into another GPU travel by the line). */
template <typename T, int W>
__device__ void write_tile(const T *tile, int first, int count, int m0, T *dest0, T *dest1)
{
    __syncthreads();
    for (int j = threadIdx.x; j < count * W; j += blockDim.x) {
        int item = first + j / W;
        T *d = item < m0 ? dest0 + (size_t)item * W : dest1 + (size_t)(item - m0) * W;
        d[j % W] = tile[j];
    }
}

/* Items the block holds out of m. */
__device__ __forceinline__ int block_items(int m)
{
    return min((int)blockDim.x, m - (int)(blockIdx.x * blockDim.x));
}

/* Live owned atoms outside the brick along any decomposed dimension (after the migration: lost). */
__global__ void count_strays_kernel(int n, mdl_box box, gpu_brick bx, gpu_brick by, gpu_brick bz, const double *x,
                                    const double *y, const double *z, const int *gone, int *strays)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || gone[i])
        return;
    const gpu_brick *b[3] = {&bx, &by, &bz};
    const double p[3] = {x[i], y[i], z[i]};
    for (int d = 0; d < 3; d++)
        if (b[d]->grid > 1 && box_brick(box_along(&box, p, d), b[d]->box_lo, b[d]->box_len, b[d]->grid) != b[d]->mine) {
            atomicAdd(strays, 1);
            return;
        }
}

extern "C" int gpu_count_strays(size_t n, mdl_box box, const gpu_brick b[3], const double *x, const double *y,
                                const double *z, const int *gone, int *strays)
{
    MDL_CUDA(cudaMemsetAsync(strays, 0, sizeof(int), g_mdl_stream));
    count_strays_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, box, b[0], b[1], b[2], x, y,
                                                                                 z, gone, strays);
    MDL_LAUNCHED("count_strays");
    return 0;
}

/* out[i] = atom i's coordinate along the bricks' dimension d (box_along). */
__global__ void along_kernel(int n, mdl_box box, int d, const double *x, const double *y, const double *z, double *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double p[3] = {x[i], y[i], z[i]};
    out[i] = box_along(&box, p, d);
}

extern "C" int gpu_along(size_t n, mdl_box box, int d, const double *x, const double *y, const double *z, double *out)
{
    if (n == 0)
        return 0;
    along_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, box, d, x, y, z, out);
    MDL_LAUNCHED("along");
    return 0;
}

/* Whole atoms: id type x y z vx vy vz fx fy fz ix iy iz, as doubles (domain.c's order); the
   packed ones are marked gone. Written into the receiver's memory, it is told at the end. */
__global__ void pack_atoms_kernel(int m, const int *idx, gpu_atom_arrays a, double *buf, int *gone,
                                  gpu_peer_out out)
{
    __shared__ double tile[MDL_BLOCK * GPU_ATOM_WORDS];
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m) {
        int i = idx[k];
        double *w = tile + threadIdx.x * GPU_ATOM_WORDS;
        w[0] = (double)a.id[i];
        w[1] = a.i[3][i];
        for (int d = 0; d < 6; d++)
            w[2 + d] = a.d[d][i];
        for (int d = 0; d < 3; d++)
            w[8 + d] = (double)a.f[d][i];
        for (int d = 0; d < 3; d++)
            w[11 + d] = a.i[d][i];
        gone[i] = 1;
    }
    write_tile<double, GPU_ATOM_WORDS>(tile, blockIdx.x * blockDim.x, block_items(m), m, buf, buf);
    if (out.ticket)
        tell_receivers(out);
}

extern "C" int gpu_pack_atoms(size_t m, const int *idx, gpu_atom_arrays a, double *buf, int *gone,
                              const gpu_peer_out *out)
{
    if (m == 0)
        return 0;
    pack_atoms_kernel<<<grid_for(m, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)m, idx, a, buf, gone,
                                                                               out ? *out : gpu_peer_out{});
    MDL_LAUNCHED("pack_atoms");
    return 0;
}

/* Written by another rank (in.seq > 0): read once it has told this one, past L1. */
__global__ void unpack_atoms_kernel(int m, const double *buf, gpu_atom_arrays a, int at, int *gone, pos_t *pos,
                                    gpu_peer_in in)
{
    if (in.seq)
        wait_for_senders(in);
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    int i = at + k;
    double w[GPU_ATOM_WORDS];
    for (int j = 0; j < GPU_ATOM_WORDS; j++)
        w[j] = __ldcg(buf + (size_t)k * GPU_ATOM_WORDS + j);
    a.id[i] = (int64_t)w[0];
    a.i[3][i] = (int)w[1];
    for (int d = 0; d < 6; d++)
        a.d[d][i] = w[2 + d];
    for (int d = 0; d < 3; d++)
        a.f[d][i] = (mdl_real)w[8 + d];
    for (int d = 0; d < 3; d++)
        a.i[d][i] = (int)w[11 + d];
    gone[i] = 0;
    real4 p;
    p.x = (mdl_real)w[2], p.y = (mdl_real)w[3], p.z = (mdl_real)w[4];
    p.w = type_to_real((int)w[1]);
    pos_put(pos, i, p);
}

extern "C" int gpu_unpack_atoms(size_t m, const double *buf, gpu_atom_arrays a, size_t at, int *gone,
                                mdl_real *pos4, const gpu_peer_in *in)
{
    if (m == 0)
        return 0;
    unpack_atoms_kernel<<<grid_for(m, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>(
        (int)m, buf, a, (int)at, gone, (pos_t *)pos4, in ? *in : gpu_peer_in{});
    MDL_LAUNCHED("unpack_atoms");
    return 0;
}

/* The position of atom i plus `shift` (0, or an edge vector: its image for a neighbor), into p
   (domain.c's arithmetic). */
__device__ __forceinline__ void shifted_position(int i, const double *x, const double *y, const double *z,
                                                 double3 shift, double p[3])
{
    p[0] = x[i] + shift.x, p[1] = y[i] + shift.y, p[2] = z[i] + shift.z;
}

static double3 to_double3(const double v[3])
{
    return make_double3(v[0], v[1], v[2]);
}

/* New ghosts: positions of idx[0..m) (shifted) and species, 4 doubles each; written into the
   receiver's memory, it is told at the end. */
__global__ void pack_ghosts_kernel(int m, const int *idx, const double *x, const double *y, const double *z,
                                   const int *type, double3 shift, double *buf, gpu_peer_out out)
{
    __shared__ double tile[MDL_BLOCK * 4];
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m) {
        int i = idx[k];
        double p[3];
        shifted_position(i, x, y, z, shift, p);
        double *w = tile + threadIdx.x * 4;
        w[0] = p[0], w[1] = p[1], w[2] = p[2], w[3] = type[i];
    }
    write_tile<double, 4>(tile, blockIdx.x * blockDim.x, block_items(m), m, buf, buf);
    if (out.ticket)
        tell_receivers(out);
}

extern "C" int gpu_pack_ghosts(size_t m, const int *idx, const double *x, const double *y, const double *z,
                               const int *type, const double shift[3], double *buf, const gpu_peer_out *out)
{
    if (m == 0)
        return 0;
    pack_ghosts_kernel<<<grid_for(m, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>(
        (int)m, idx, x, y, z, type, to_double3(shift), buf, out ? *out : gpu_peer_out{});
    MDL_LAUNCHED("pack_ghosts");
    return 0;
}

/* New ghost k into slot at + k: positions, species, pos4; no longer gone. Written by another rank
   (in.seq > 0): read once it has told this one, past L1. */
__global__ void unpack_ghosts_kernel(int m, const double *buf, int at, double *x, double *y, double *z, int *type,
                                     pos_t *pos, int *gone, gpu_peer_in in)
{
    if (in.seq)
        wait_for_senders(in);
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    int i = at + k;
    const double *w = buf + (size_t)k * 4;
    double wx = __ldcg(w), wy = __ldcg(w + 1), wz = __ldcg(w + 2);
    int t = (int)__ldcg(w + 3);
    x[i] = wx, y[i] = wy, z[i] = wz;
    type[i] = t, gone[i] = 0;
    real4 p;
    p.x = (mdl_real)wx, p.y = (mdl_real)wy, p.z = (mdl_real)wz;
    p.w = type_to_real(t);
    pos_put(pos, i, p);
}

extern "C" int gpu_unpack_ghosts(size_t m, const double *buf, size_t at, double *x, double *y, double *z, int *type,
                                 mdl_real *pos4, int *gone, const gpu_peer_in *in)
{
    if (m == 0)
        return 0;
    unpack_ghosts_kernel<<<grid_for(m, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>(
        (int)m, buf, (int)at, x, y, z, type, (pos_t *)pos4, gone, in ? *in : gpu_peer_in{});
    MDL_LAUNCHED("unpack_ghosts");
    return 0;
}

/* A refresh stage, both ways: positions of idx[0 .. m), shifted in double (the first m0 by shift0
   into dest0, the rest by shift1 into dest1), as 3 values of T each (reals: the values
   pos4 will hold, as if the doubles had travelled); with `wish` (a check), this rank's wish set
   first (and cast, voting); written into the receivers' memory, they are told at the end. */
template <typename T>
__global__ void pack_positions_kernel(int m, int m0, const int *idx, const double *x, const double *y,
                                      const double *z, double3 shift0, double3 shift1, T *dest0, T *dest1,
                                      gpu_nb_state *wish, const int *flags, gpu_peer_out out, gpu_peer_vote vote)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k == 0 && wish) {
        set_wish(wish, flags);
        if (vote.box)
            cast_vote(vote, wish);
    }
    __shared__ T tile[MDL_BLOCK * 3];
    if (k < m) {
        double p[3];
        shifted_position(idx[k], x, y, z, k < m0 ? shift0 : shift1, p);
        T *w = tile + threadIdx.x * 3;
        w[0] = (T)p[0], w[1] = (T)p[1], w[2] = (T)p[2];
    }
    write_tile<T, 3>(tile, blockIdx.x * blockDim.x, block_items(m), m0, dest0, dest1);
    if (out.ticket)
        tell_receivers(out);
}

extern "C" int gpu_pack_positions(size_t m0, size_t m1, const int *idx, const double *x, const double *y,
                                  const double *z, const double shift[2][3], void *const dest[2], int wide,
                                  gpu_nb_state *wish, const int *flags, const gpu_peer_out *out,
                                  const gpu_peer_vote *vote)
{
    const size_t m = m0 + m1;
    if (m == 0 && !wish)
        return 0;
    const unsigned g = grid_for(m ? m : 1, MDL_BLOCK);
    const gpu_peer_out o = out ? *out : gpu_peer_out{};
    const gpu_peer_vote v = vote ? *vote : gpu_peer_vote{};
    const double3 s0 = to_double3(shift[0]), s1 = to_double3(shift[1]);
    if (wide)
        pack_positions_kernel<double><<<g, MDL_BLOCK, 0, g_mdl_stream>>>(
            (int)m, (int)m0, idx, x, y, z, s0, s1, (double *)dest[0], (double *)dest[1], wish,
            flags, o, v);
    else
        pack_positions_kernel<mdl_real><<<g, MDL_BLOCK, 0, g_mdl_stream>>>(
            (int)m, (int)m0, idx, x, y, z, s0, s1, (mdl_real *)dest[0], (mdl_real *)dest[1], wish,
            flags, o, v);
    MDL_LAUNCHED("pack_positions");
    return 0;
}

/* Ghost k's new position into pos4 at slot[k] (its species kept) and, WIDE (doubles), into its
   doubles; written by other ranks (in.seq > 0), once they have told this one, read past L1; with
   a vote, block 0 counts it. */
template <typename T, bool WIDE>
__global__ void unpack_positions_kernel(int m, const T *buf, const int *slot, double *x, double *y, double *z,
                                        pos_t *pos, gpu_peer_in in, gpu_peer_vote vote, gpu_nb_state *wish)
{
    if (in.seq)
        wait_for_senders(in);
    if (vote.box && blockIdx.x == 0 && threadIdx.x == 0)
        count_votes(vote, wish);
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    int i = slot[k];
    const T *w = buf + (size_t)k * 3;
    T a = __ldcg(w), b = __ldcg(w + 1), c = __ldcg(w + 2);
    if (WIDE)
        x[i] = a, y[i] = b, z[i] = c;
    real4 p = pos_at(pos, i);
    p.x = (mdl_real)a, p.y = (mdl_real)b, p.z = (mdl_real)c;
    pos_put(pos, i, p);
}

extern "C" int gpu_unpack_positions(size_t m, const void *buf, const int *slot, double *x, double *y, double *z,
                                    mdl_real *pos4, int wide, const gpu_peer_in *in, const gpu_peer_vote *vote,
                                    gpu_nb_state *wish)
{
    if (m == 0 && !vote)
        return 0;
    const unsigned g = grid_for(m ? m : 1, MDL_BLOCK);
    const gpu_peer_in i = in ? *in : gpu_peer_in{};
    const gpu_peer_vote v = vote ? *vote : gpu_peer_vote{};
    if (wide)
        unpack_positions_kernel<double, true><<<g, MDL_BLOCK, 0, g_mdl_stream>>>(
            (int)m, (const double *)buf, slot, x, y, z, (pos_t *)pos4, i, v, wish);
    else
        unpack_positions_kernel<mdl_real, false><<<g, MDL_BLOCK, 0, g_mdl_stream>>>(
            (int)m, (const mdl_real *)buf, slot, x, y, z, (pos_t *)pos4, i, v, wish);
    MDL_LAUNCHED("unpack_positions");
    return 0;
}

/* to[to_idx ? to_idx[k] : k] = from[from_idx ? from_idx[k] : k] for k < m. */
__global__ void move_values_kernel(int m, const mdl_real *from, const int *from_idx, mdl_real *to, const int *to_idx)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m)
        to[to_idx ? to_idx[k] : k] = from[from_idx ? from_idx[k] : k];
}

static int move_values(size_t m, const mdl_real *from, const int *from_idx, mdl_real *to, const int *to_idx)
{
    if (m == 0)
        return 0;
    move_values_kernel<<<grid_for(m, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)m, from, from_idx, to, to_idx);
    MDL_LAUNCHED("move_values");
    return 0;
}

extern "C" int gpu_gather_values(size_t m, const int *idx, const mdl_real *v, mdl_real *out)
{
    return move_values(m, v, idx, out, NULL);
}

extern "C" int gpu_scatter_values(size_t m, const mdl_real *in, const int *slot, mdl_real *v)
{
    return move_values(m, in, NULL, v, slot);
}

/* Sort keys: owned atoms [0, nown) by cell, ghosts after them by cell (ncells + cell), gone
   atoms last (2 ncells); perm = 0..n-1. */
__global__ void halo_keys_kernel(int n, int nown, mdl_box b, int3 nc, int ncells, const pos_t *pos, const int *gone,
                                 int *key, int *perm)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    perm[i] = i;
    if (i < nown && gone[i]) {
        key[i] = 2 * ncells;
        return;
    }
    key[i] = (i < nown ? 0 : ncells) + cell_of(pos_at(pos, i), b, nc); /* the builders' cell (common.cuh) */
}

extern "C" int gpu_halo_keys(size_t n, size_t nown, mdl_box region, const int nc[3], const mdl_real *pos4,
                             const int *gone, int *key, int *perm)
{
    int ncells = nc[0] * nc[1] * nc[2];
    halo_keys_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>(
        (int)n, (int)nown, region, make_int3(nc[0], nc[1], nc[2]), ncells, (const pos_t *)pos4, gone, key, perm);
    MDL_LAUNCHED("halo_keys");
    return 0;
}

__global__ void invert_kernel(int n, const int *perm, int *inv)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        inv[perm[i]] = i;
}

extern "C" int gpu_invert(size_t n, const int *perm, int *inv)
{
    invert_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, perm, inv);
    MDL_LAUNCHED("invert");
    return 0;
}

__global__ void remap_kernel(int m, const int *inv, int *idx)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m)
        idx[k] = inv[idx[k]];
}

extern "C" int gpu_remap(size_t m, const int *inv, int *idx)
{
    if (m == 0)
        return 0;
    remap_kernel<<<grid_for(m, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)m, inv, idx);
    MDL_LAUNCHED("remap");
    return 0;
}

// GPU kernels of the decomposition (several ranks; sort.cu selects the atoms that leave the brick
// and those that are a neighbor's ghosts): lost atoms counted, atoms and ghosts packed into
// message buffers and unpacked from them, the cell keys that keep owned atoms before ghosts, and
// the index maps a sort leaves behind.
#include "common.cuh"

/* Live owned atoms outside the brick along any decomposed dimension (after the migration: lost). */
__global__ void count_strays_kernel(int n, gpu_brick bx, gpu_brick by, gpu_brick bz, const double *x,
                                    const double *y, const double *z, const int *gone, int *strays)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || gone[i])
        return;
    const gpu_brick *b[3] = {&bx, &by, &bz};
    const double *c[3] = {x, y, z};
    for (int d = 0; d < 3; d++)
        if (b[d]->grid > 1 && box_brick(c[d][i], b[d]->box_lo, b[d]->box_len, b[d]->grid) != b[d]->mine) {
            atomicAdd(strays, 1);
            return;
        }
}

extern "C" int gpu_count_strays(size_t n, const gpu_brick b[3], const double *x, const double *y, const double *z,
                                const int *gone, int *strays)
{
    MDL_CUDA(cudaMemsetAsync(strays, 0, sizeof(int), g_mdl_stream));
    count_strays_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)n, b[0], b[1], b[2], x, y, z,
                                                                                 gone, strays);
    MDL_LAUNCHED("count_strays");
    return 0;
}

/* Whole atoms: id type x y z vx vy vz fx fy fz ix iy iz, as doubles (domain.c's order); the
   packed ones are marked gone. */
__global__ void pack_atoms_kernel(int m, const int *idx, gpu_atom_arrays a, double *buf, int *gone)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    int i = idx[k];
    double *w = buf + (size_t)k * GPU_ATOM_WORDS;
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

extern "C" int gpu_pack_atoms(size_t m, const int *idx, gpu_atom_arrays a, double *buf, int *gone)
{
    if (m == 0)
        return 0;
    pack_atoms_kernel<<<grid_for(m, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)m, idx, a, buf, gone);
    MDL_LAUNCHED("pack_atoms");
    return 0;
}

__global__ void unpack_atoms_kernel(int m, const double *buf, gpu_atom_arrays a, int at, int *gone, real4 *pos)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    int i = at + k;
    const double *w = buf + (size_t)k * GPU_ATOM_WORDS;
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
    pos[i] = p;
}

extern "C" int gpu_unpack_atoms(size_t m, const double *buf, gpu_atom_arrays a, size_t at, int *gone,
                                mdl_real *pos4)
{
    if (m == 0)
        return 0;
    unpack_atoms_kernel<<<grid_for(m, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)m, buf, a, (int)at, gone,
                                                                                 (real4 *)pos4);
    MDL_LAUNCHED("unpack_atoms");
    return 0;
}

/* Candidates [0, n) within rghost of the face below (dir 0) or above (dir 1) along c. */
/* The position of atom i shifted by `shift` along dim (its image for a neighbor), into p. */
__device__ __forceinline__ void shifted_position(int i, const double *x, const double *y, const double *z, int dim,
                                                 double shift, double p[3])
{
    p[0] = x[i], p[1] = y[i], p[2] = z[i];
    p[dim] += shift;
}

/* New ghosts: positions of idx[0..m) (shifted along dim) and species, 4 doubles each. */
__global__ void pack_ghosts_kernel(int m, const int *idx, const double *x, const double *y, const double *z,
                                   const int *type, int dim, double shift, double *buf)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    int i = idx[k];
    double p[3];
    shifted_position(i, x, y, z, dim, shift, p);
    double *w = buf + (size_t)k * 4;
    w[0] = p[0], w[1] = p[1], w[2] = p[2], w[3] = type[i];
}

extern "C" int gpu_pack_ghosts(size_t m, const int *idx, const double *x, const double *y, const double *z,
                               const int *type, int dim, double shift, double *buf)
{
    if (m == 0)
        return 0;
    pack_ghosts_kernel<<<grid_for(m, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)m, idx, x, y, z, type, dim, shift,
                                                                                buf);
    MDL_LAUNCHED("pack_ghosts");
    return 0;
}

/* New ghost k into slot at + k: positions, species, pos4; no longer gone. */
__global__ void unpack_ghosts_kernel(int m, const double *buf, int at, double *x, double *y, double *z, int *type,
                                     real4 *pos, int *gone)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    int i = at + k;
    const double *w = buf + (size_t)k * 4;
    x[i] = w[0], y[i] = w[1], z[i] = w[2];
    int t = (int)w[3];
    type[i] = t, gone[i] = 0;
    real4 p;
    p.x = (mdl_real)w[0], p.y = (mdl_real)w[1], p.z = (mdl_real)w[2];
    p.w = type_to_real(t);
    pos[i] = p;
}

extern "C" int gpu_unpack_ghosts(size_t m, const double *buf, size_t at, double *x, double *y, double *z, int *type,
                                 mdl_real *pos4, int *gone)
{
    if (m == 0)
        return 0;
    unpack_ghosts_kernel<<<grid_for(m, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>((int)m, buf, (int)at, x, y, z, type,
                                                                                  (real4 *)pos4, gone);
    MDL_LAUNCHED("unpack_ghosts");
    return 0;
}

/* This rank's wish into halt (unsafe: 2, past half the skin: 1, else 0), before the ranks'
   maximum replaces it (the step kernels after it run only when no rank wants a rebuild); the
   longest row its last build asked for (0: it fit) into need. */
__device__ __forceinline__ void set_wish(gpu_nb_state *st, const int *flags)
{
    st->halt = st->unsafe ? 2 : st->far;
    st->need = flags[1];
}

/* A refresh stage, both ways: positions of idx[0 .. m), shifted along dim in double (the first m0
   by shift0, the rest by shift1), as 3 values of T each (reals: the values pos4 will hold, as if
   the doubles had travelled); with `wish` (a check through NCCL), this rank's wish set first. */
template <typename T>
__global__ void pack_positions_kernel(int m, int m0, const int *idx, const double *x, const double *y,
                                      const double *z, int dim, double shift0, double shift1, T *buf,
                                      gpu_nb_state *wish, const int *flags)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k == 0 && wish)
        set_wish(wish, flags);
    if (k >= m)
        return;
    double p[3];
    shifted_position(idx[k], x, y, z, dim, k < m0 ? shift0 : shift1, p);
    T *w = buf + (size_t)k * 3;
    w[0] = (T)p[0], w[1] = (T)p[1], w[2] = (T)p[2];
}

extern "C" int gpu_pack_positions(size_t m0, size_t m1, const int *idx, const double *x, const double *y,
                                  const double *z, int dim, const double shift[2], void *buf, int wide,
                                  gpu_nb_state *wish, const int *flags)
{
    const size_t m = m0 + m1;
    if (m == 0 && !wish)
        return 0;
    const unsigned g = grid_for(m ? m : 1, MDL_BLOCK);
    if (wide)
        pack_positions_kernel<double><<<g, MDL_BLOCK, 0, g_mdl_stream>>>(
            (int)m, (int)m0, idx, x, y, z, dim, shift[0], shift[1], (double *)buf, wish, flags);
    else
        pack_positions_kernel<mdl_real><<<g, MDL_BLOCK, 0, g_mdl_stream>>>(
            (int)m, (int)m0, idx, x, y, z, dim, shift[0], shift[1], (mdl_real *)buf, wish, flags);
    MDL_LAUNCHED("pack_positions");
    return 0;
}

/* Ghost k's new position into pos4 at slot[k] (its species kept) and, WIDE (doubles), into its
   doubles. */
template <typename T, bool WIDE>
__global__ void unpack_positions_kernel(int m, const T *buf, const int *slot, double *x, double *y, double *z,
                                        real4 *pos)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= m)
        return;
    int i = slot[k];
    const T *w = buf + (size_t)k * 3;
    if (WIDE)
        x[i] = w[0], y[i] = w[1], z[i] = w[2];
    real4 p = pos[i];
    p.x = (mdl_real)w[0], p.y = (mdl_real)w[1], p.z = (mdl_real)w[2];
    pos[i] = p;
}

extern "C" int gpu_unpack_positions(size_t m, const void *buf, const int *slot, double *x, double *y, double *z,
                                    mdl_real *pos4, int wide)
{
    if (m == 0)
        return 0;
    if (wide)
        unpack_positions_kernel<double, true><<<grid_for(m, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>(
            (int)m, (const double *)buf, slot, x, y, z, (real4 *)pos4);
    else
        unpack_positions_kernel<mdl_real, false><<<grid_for(m, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>(
            (int)m, (const mdl_real *)buf, slot, x, y, z, (real4 *)pos4);
    MDL_LAUNCHED("unpack_positions");
    return 0;
}

/* Sort keys: owned atoms [0, nown) by cell, ghosts after them by cell (ncells + cell), gone
   atoms last (2 ncells); perm = 0..n-1. */
__global__ void halo_keys_kernel(int n, int nown, mdl_box b, int3 nc, int ncells, const real4 *pos, const int *gone,
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
    real4 p = pos[i];
    int cx = cell_coord(p.x, b.lo[0], b.len[0], nc.x), cy = cell_coord(p.y, b.lo[1], b.len[1], nc.y),
        cz = cell_coord(p.z, b.lo[2], b.len[2], nc.z);
    key[i] = (i < nown ? 0 : ncells) + (cz * nc.y + cy) * nc.x + cx;
}

extern "C" int gpu_halo_keys(size_t n, size_t nown, mdl_box region, const int nc[3], const mdl_real *pos4,
                             const int *gone, int *key, int *perm)
{
    int ncells = nc[0] * nc[1] * nc[2];
    halo_keys_kernel<<<grid_for(n, MDL_BLOCK), MDL_BLOCK, 0, g_mdl_stream>>>(
        (int)n, (int)nown, region, make_int3(nc[0], nc[1], nc[2]), ncells, (const real4 *)pos4, gone, key, perm);
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



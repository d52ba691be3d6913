// The warp builder of the cell method, from 65,536 atoms: a warp per 32 consecutive atoms, over the
// union of their cells, 32 candidates at a time tested into a bit mask per lane; rows written
// through a ring in shared memory, plain or packed through a per-warp table (gpu.h's gpu_rows).
#include "neighbor.cuh"

/* ---- the warp builder (at least 3 cells along every periodic dimension) ----
   The 32 atoms of a warp are consecutive in cell order, so they lie in one or a few rows of cells
   (cells along x with the same y and z). For the atoms of one row, the union of their 27
   neighbor cells is, in each of the 9 rows around it, the cells x_lo - 1 .. x_hi + 1: one run of
   atoms (they are sorted by cell), plus a wrapped cell at an end that crosses a periodic face (its image
   shifted by the box length; with 3 or more cells, at most one image of an atom is in range). The
   warp reads a range 32 candidates at a time into shared memory and every lane tests each of them
   against its own atom, all lanes reading the same one at once (a broadcast), so the loop waits on
   neither a global load per thread nor divergent cells. A tile's 32 tests set bits of a mask, with
   no dependence between them; the kept candidates are written after the tile. Rows of the list
   come out in the order of the 27 cells (z, then y, then x, ascending; images as reached), as a
   thread per atom would.
   Each lane keeps its newest RING_SLOTS entries in a ring in shared memory; the warp writes them
   out together when a lane's ring could overflow, and at the end, consecutive lanes to consecutive
   addresses in the transposed layout. The ring, not the row, is what sits in shared memory, so
   occupancy does not fall as the list grows. */
#define WARP_BUILD_BLOCK 128
#ifndef RING_SLOTS
#define RING_SLOTS 64 /* a power of 2 */
#endif

struct warp_rows {
    int *nl, *ring; /* ring: RING_SLOTS x 32 ints, this warp's; entry k at slot k % RING_SLOTS */
    int i, lane, capacity, si, sk;
    bool active; /* the lane has an atom */
    bool packed; /* 16-bit entries, two to an int (gpu.h); else one atom index per int */
    int k, written, at; /* entries found; entries already out of the ring; 32 x the slot of entry k */

    /* The tile's candidates whose bits are set (bit q: entry + q) go to the next slots, in order. */
    __device__ __forceinline__ void keep(int entry, unsigned bits)
    {
        for (; bits; bits &= bits - 1) {
            ring[at + lane] = entry + __ffs(bits) - 1;
            at = (at + 32) & (RING_SLOTS * 32 - 1);
            k++;
        }
    }
    /* Every lane's entries written .. k - 1 leave the ring: those the row holds (capacity ints, two
       entries to an int when packed) go to nl, row by row across the warp; the others are only
       counted. Each lane walks its address along its row rather than working it out per slot (the
       flush was a quarter of the builder's instructions). CAN_PACK: the kernel may pack rows; its
       rare warps of atom indices keep the per-slot form (the walk made that kernel slower there). */
    template <bool CAN_PACK>
    __device__ void flush()
    {
        const unsigned all = 0xffffffffu;
        const int holds = packed ? 2 * capacity : capacity;
        int to = active ? min(k, holds) : 0, from = active ? min(written, holds) : 0;
        int lo = __reduce_min_sync(all, from), hi = __reduce_max_sync(all, to);
        if (!CAN_PACK) {
            int *out = nl + (size_t)i * si + (size_t)lo * sk;
            for (int s = lo; s < hi; s++, out += sk)
                if (s >= from && s < to)
                    *out = ring[(s % RING_SLOTS) * 32 + lane];
        } else if (packed) { /* entry s: half s % 2 of int s / 2; the next int is sk further */
            unsigned short *out = (unsigned short *)nl + ((size_t)(lo >> 1) * sk + i) * 2 + (lo & 1);
            for (int s = lo; s < hi; s++) {
                if (s >= from && s < to)
                    *out = (unsigned short)ring[(s % RING_SLOTS) * 32 + lane];
                out += s & 1 ? 2 * sk - 1 : 1;
            }
        } else {
            for (int s = lo; s < hi; s++)
                if (s >= from && s < to)
                    nl[(size_t)i * si + (size_t)s * sk] = ring[(s % RING_SLOTS) * 32 + lane];
        }
        written = k;
    }
    /* Before up to 32 more entries: make room if a lane's ring could fill (the slot being offered
       must never hold an entry still in the ring). */
    template <bool CAN_PACK>
    __device__ void make_room()
    {
        if (__any_sync(0xffffffffu, k - written > RING_SLOTS - 33))
            flush<CAN_PACK>();
    }
};

/* Bit q set when candidate q of a tile (its position pj) is within the list radius of the lane's
   atom at (xi, yi, zi); r2 is negative for lanes not in this pass. */
__device__ __forceinline__ unsigned in_range(mdl_real xi, mdl_real yi, mdl_real zi, real4 pj, int q, mdl_real r2)
{
    mdl_real dx = xi - pj.x, dy = yi - pj.y, dz = zi - pj.z;
    return dx * dx + dy * dy + dz * dz < r2 ? 1u << q : 0u;
}

/* One range of candidates: atoms j0 .. j1 - 1, their image at shift (sx, sy, sz). */
struct candidates {
    int j0, j1;
    mdl_real sx, sy, sz;
};

/* Range number s (0..26) of a pass for the warp's atoms in the row of cells (y0, z0), whose cells
   along x are xlo + 1 .. xhi - 1: row s / 3 of the 9 rows around it (z, then y, ascending), and in
   it part s % 3: the wrapped cell before (the last one, through a periodic face), the cells xlo ..
   xhi inside the box, the wrapped cell after (the first one). Empty where there is nothing. */
__device__ candidates range_of_row(int s, const mdl_box &b, const image_lengths &m, int3 nc, int y0, int z0, int xlo,
                                   int xhi, const int *start, const int *end)
{
    candidates c = {0, 0, 0, 0, 0};
    int z = z0 + s / 9 - 1, y = y0 + s / 3 % 3 - 1, part = s % 3;
    if (z < 0 || z >= nc.z) {
        if (!b.periodic[2])
            return c;
        c.sz = z < 0 ? -m.len[2] : m.len[2];
        z = z < 0 ? z + nc.z : z - nc.z;
    }
    if (y < 0 || y >= nc.y) {
        if (!b.periodic[1])
            return c;
        c.sy = y < 0 ? -m.len[1] : m.len[1];
        y = y < 0 ? y + nc.y : y - nc.y;
    }
    const int row = (z * nc.y + y) * nc.x;
    int c0 = max(xlo, 0), c1 = min(xhi, nc.x - 1);
    if (part != 1) {
        if (!b.periodic[0] || (part == 0 ? xlo >= 0 : xhi < nc.x))
            return c;
        c0 = c1 = part == 0 ? nc.x - 1 : 0;
        c.sx = part == 0 ? -m.len[0] : m.len[0];
    }
    /* the atoms of cells c0 .. c1 are one run: from the first non-empty cell's start to the last's end */
    c.j0 = INT_MAX;
    for (int x = c0; x <= c1; x++)
        if (end[row + x] > start[row + x]) {
            c.j0 = min(c.j0, start[row + x]);
            c.j1 = end[row + x];
        }
    if (c.j1 == 0)
        c.j0 = 0;
    return c;
}

/* Where a pass is: range s, tile jb .. jb + 31 of it (ending at j1), ranges still to read. */
struct tile_cursor {
    int s, jb, j1;
    unsigned left;

    /* To the next tile, in this range or the next non-empty one; false past the last. */
    __device__ bool advance(const candidates &lane_range)
    {
        jb += 32;
        if (jb < j1)
            return true;
        if (!left)
            return false;
        s = __ffs(left) - 1;
        left &= left - 1;
        jb = __shfl_sync(0xffffffffu, lane_range.j0, s);
        j1 = __shfl_sync(0xffffffffu, lane_range.j1, s);
        return true;
    }
};

/* Chunks of GPU_LIST_CHUNK atoms that the lane's range needs in the table. */
__device__ __forceinline__ int chunks_of(const candidates &c)
{
    return (c.j1 - c.j0 + GPU_LIST_CHUNK - 1) >> GPU_LIST_OFFSET_BITS;
}

/* Packed lists: the lane's range gets the table's next chunks, in lane order, from `slots` on (the
   warp's count so far, advanced past them); each chunk's first atom goes into its slot. Returns the
   range's first slot. */
__device__ __forceinline__ int table_chunks(const candidates &c, int *table, int &slots)
{
    const unsigned all = 0xffffffffu;
    const int lane = threadIdx.x % 32, mine = chunks_of(c);
    int upto = mine; /* inclusive scan over the lanes */
    for (int o = 1; o < 32; o <<= 1) {
        const int v = __shfl_up_sync(all, upto, o);
        upto += lane >= o ? v : 0;
    }
    const int first = slots + upto - mine;
    for (int k = 0; k < mine; k++)
        table[first + k] = c.j0 + k * GPU_LIST_CHUNK;
    slots += __shfl_sync(all, upto, 31);
    return first;
}

/* A pass over the row of cells (y0, z0): lane s finds range s (range_of_row), all at once; the warp
   then reads the ranges in order, 32 candidates at a time into shared memory, loading the next 32
   while these are tested, and every lane tests each candidate against its own atom where mine.
   PACKED: entries are packed codes where table is not NULL (the plain kernel has no such test). */
template <bool PACKED>
__device__ void scan_row_by_warp(warp_rows &r, bool mine, real4 pi, const mdl_box &b, const image_lengths &m,
                                 int3 nc, int y0, int z0, int xlo, int xhi, const int *start, const int *end,
                                 const pos_t *__restrict__ pos, mdl_real rlist2, real4 *tile, int *table,
                                 int &slots)
{
    const unsigned all = 0xffffffffu;
    const int lane = r.lane;
    const candidates lane_range = lane < 27 ? range_of_row(lane, b, m, nc, y0, z0, xlo, xhi, start, end)
                                            : candidates{0, 0, 0, 0, 0};
    const int first_slot = PACKED && table ? table_chunks(lane_range, table, slots) : 0;
    tile_cursor at = {0, -32, 0, __ballot_sync(all, lane_range.j0 < lane_range.j1)};
    if (!at.advance(lane_range))
        return;
    const mdl_real r2 = mine ? rlist2 : (mdl_real)-1;
    real4 next = at.jb + lane < at.j1 ? load4(pos, at.jb + lane) : pi;
    for (bool more = true; more;) {
        const tile_cursor now = at;
        r.make_room<PACKED>();
        tile[lane] = next;
        __syncwarp();
        more = at.advance(lane_range);
        if (more && at.jb + lane < at.j1)
            next = load4(pos, at.jb + lane);
        const mdl_real xi = pi.x - __shfl_sync(all, lane_range.sx, now.s);
        const mdl_real yi = pi.y - __shfl_sync(all, lane_range.sy, now.s);
        const mdl_real zi = pi.z - __shfl_sync(all, lane_range.sz, now.s);
        const int self = r.i - now.jb;
        int entry = now.jb;
        if (PACKED && table) { /* tiles start 32k atoms into their range: a tile lies in one chunk */
            const int off = now.jb - __shfl_sync(all, lane_range.j0, now.s);
            entry = (__shfl_sync(all, first_slot, now.s) + (off >> GPU_LIST_OFFSET_BITS)) << GPU_LIST_OFFSET_BITS |
                    (off & (GPU_LIST_CHUNK - 1));
        }
        unsigned bits = 0; /* the tests are independent: no chain through the ring in this loop */
        if (now.j1 - now.jb >= 32) {
#pragma unroll
            for (int q = 0; q < 32; q++)
                bits |= in_range(xi, yi, zi, tile[q], q, r2);
        } else {
            for (int q = 0; q < now.j1 - now.jb; q++)
                bits |= in_range(xi, yi, zi, tile[q], q, r2);
        }
        if ((unsigned)self < 32u) /* the lane's own atom */
            bits &= ~(1u << self);
        r.keep(entry, bits);
        __syncwarp();
    }
}

/* One pass of a warp: the row of cells (y0, z0) of some of its atoms (mine), and the cells xlo + 1
   .. xhi - 1 along it that they are in; the passes' rows are taken off todo. */
struct row_pass {
    int y0, z0, xlo, xhi;
    bool mine;
};

__device__ __forceinline__ row_pass next_pass(unsigned &todo, bool active, int cx, int cy, int cz)
{
    const unsigned all = 0xffffffffu;
    const int leader = __ffs(todo) - 1;
    row_pass p;
    p.y0 = __shfl_sync(all, cy, leader), p.z0 = __shfl_sync(all, cz, leader);
    p.mine = active && cy == p.y0 && cz == p.z0;
    todo &= ~__ballot_sync(all, p.mine);
    p.xlo = __reduce_min_sync(all, p.mine ? cx : INT_MAX) - 1;
    p.xhi = __reduce_max_sync(all, p.mine ? cx : INT_MIN) + 1;
    return p;
}

/* Whether the pass must scan the ghosts as well (several ranks: the cells free_lo .. free_hi hold
   none near them). */
__device__ __forceinline__ bool pass_sees_ghosts(const row_pass &p, const int *gstart, int3 free_lo, int3 free_hi)
{
    return gstart && !(p.xlo >= free_lo.x && p.xhi <= free_hi.x && p.y0 > free_lo.y && p.y0 < free_hi.y &&
                       p.z0 > free_lo.z && p.z0 < free_hi.z);
}

/* The table slots a pass's ranges need (the warp's sum). */
__device__ __forceinline__ int pass_chunks(const row_pass &p, const mdl_box &b, const image_lengths &m, int3 nc,
                                           const int *start, const int *end)
{
    const int lane = threadIdx.x % 32;
    const int mine = lane < 27 ? chunks_of(range_of_row(lane, b, m, nc, p.y0, p.z0, p.xlo, p.xhi, start, end)) : 0;
    return __reduce_add_sync(0xffffffffu, mine);
}

/* The rows of atoms first .. first + 31 (those below n), built by their warp. With a table (packed
   lists), the warp first counts the chunks its ranges need: if they fit, its rows are written
   packed, else as atom indices, and the table's last word says which (gpu.h). */
template <bool PACKED>
__device__ void build_rows_of_warp(int n, int first, const mdl_box &b, const image_lengths &m, int3 nc,
                                   const int *start, const int *end, const int *gstart, const int *gend,
                                   int3 free_lo, int3 free_hi, const pos_t *__restrict__ pos, mdl_real rlist2,
                                   int *nl, int *count, int capacity, int si, int sk, int *flags, int *ring,
                                   real4 *tile, int *table)
{
    const unsigned all = 0xffffffffu;
    const int lane = threadIdx.x % 32, i = first + lane;
    const bool active = i < n;
    const real4 pi = load4(pos, active ? i : first);
    const int3 ci = cell_coords(pi, b, nc);
    const int cx = ci.x, cy = ci.y, cz = ci.z;
    if (PACKED) {
        table += (size_t)(first / 32) * GPU_LIST_TABLE;
        int need = 0;
        for (unsigned todo = __ballot_sync(all, active); todo;) {
            const row_pass p = next_pass(todo, active, cx, cy, cz);
            need += pass_chunks(p, b, m, nc, start, end);
            if (pass_sees_ghosts(p, gstart, free_lo, free_hi))
                need += pass_chunks(p, b, m, nc, gstart, gend);
        }
        const bool fits = need < GPU_LIST_TABLE;
        if (lane == 0)
            table[GPU_LIST_TABLE - 1] = fits ? GPU_LIST_PACKED : GPU_LIST_PLAIN;
        table = fits ? table : NULL;
    }
    warp_rows r = {nl, ring, i, lane, capacity, si, sk, active, PACKED && table, 0, 0, 0};
    int slots = 0;
    /* one pass per row of cells among the warp's atoms (one, sometimes two) */
    for (unsigned todo = __ballot_sync(all, active); todo;) {
        const row_pass p = next_pass(todo, active, cx, cy, cz);
        scan_row_by_warp<PACKED>(r, p.mine, pi, b, m, nc, p.y0, p.z0, p.xlo, p.xhi, start, end, pos, rlist2, tile,
                                 table, slots);
        if (pass_sees_ghosts(p, gstart, free_lo, free_hi)) /* the ghosts: sorted by cell after the atoms */
            scan_row_by_warp<PACKED>(r, p.mine, pi, b, m, nc, p.y0, p.z0, p.xlo, p.xhi, gstart, gend, pos, rlist2,
                                     tile, table, slots);
    }
    r.flush<PACKED>();
    if (active)
        finish_row(count, flags, i, r.k, capacity, r.packed ? 2 : 1);
}

/* Warps are independent; the block barrier at the end is for compute-sanitizer's synccheck (without
   it, synccheck reports the first barrier of the next rebuild's CUB sort as divergent, as it does
   after the per-thread build_cell_kernel: see gpu_build_cell). PACKED: rows packed where they fit
   (table, gpu.h); else the kernel is the plain one, with no trace of packing. */
template <bool PACKED, bool MOVING>
__global__ void __launch_bounds__(WARP_BUILD_BLOCK) build_cell_warp_kernel(
    int n, const __grid_constant__ gpu_grid grid, const gpu_grid *moving, const int *start, const int *end,
    const int *gstart, const int *gend, int3 free_lo, int3 free_hi, const pos_t *__restrict__ pos, mdl_real rlist2,
    int *nl, int *count, int capacity, int si, int sk, int *flags, int *table)
{
    __shared__ real4 tiles[WARP_BUILD_BLOCK];
    __shared__ int rings[WARP_BUILD_BLOCK * RING_SLOTS];
    const int warp = threadIdx.x / 32, first = blockIdx.x * WARP_BUILD_BLOCK + warp * 32;
    KERNEL_GRID(MOVING, grid, moving);
    if (first < n)
        build_rows_of_warp<PACKED>(n, first, b, m, nc, start, end, gstart, gend, free_lo, free_hi, pos, rlist2, nl,
                                   count, capacity, si, sk, flags, rings + warp * 32 * RING_SLOTS, tiles + warp * 32,
                                   table);
    __syncthreads();
}

void launch_warp_builder(size_t n, const gpu_grid &grid, const gpu_grid *moving, const int *cell_start,
                         const int *cell_end, const int *gstart, const int *gend, int3 free_lo, int3 free_hi,
                         const pos_t *p, mdl_real r2, int *nl, int *count, int capacity, int si, int sk, int *flags,
                         int *table)
{
    const unsigned g = grid_for(n, WARP_BUILD_BLOCK);
#define WARP_BUILD(PACKED, MOVING)                                                                               \
    build_cell_warp_kernel<PACKED, MOVING><<<g, WARP_BUILD_BLOCK, 0, g_mdl_stream>>>(                            \
        (int)n, grid, moving, cell_start, cell_end, gstart, gend, free_lo, free_hi, p, r2, nl, count, capacity, si, \
        sk, flags, table)
    if (table && moving)
        WARP_BUILD(true, true);
    else if (table)
        WARP_BUILD(true, false);
    else if (moving)
        WARP_BUILD(false, true);
    else
        WARP_BUILD(false, false);
#undef WARP_BUILD
}

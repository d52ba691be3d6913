// The warp builder of the cell method, from 65,536 atoms: a warp per 32 consecutive atoms, over the
// union of their cells; candidates filtered by the box around the warp's atoms, then tested 32 at a
// time into a bit mask per lane; rows written slot by slot from the masks, plain or packed through
// a per-warp table (gpu.h's gpu_rows).
#include "neighbor.cuh"

/* ---- the warp builder (at least 3 cells along every periodic dimension) ----
   The 32 atoms of a warp are consecutive in cell order, so they lie in one or a few rows of cells
   (cells along x with the same y and z). For the atoms of one row, the union of their 27
   neighbor cells is, in each of the 9 rows around it, the cells x_lo - 1 .. x_hi + 1: one run of
   atoms (they are sorted by cell), plus a wrapped cell at an end that crosses a periodic face (its image
   shifted by the box length; with 3 or more cells, at most one image of an atom is in range).
   The warp reads a range 32 candidates at a time, a lane each, and first filters them: a candidate
   farther than the list radius from the box around the pass's atoms cannot be any lane's neighbor
   (in.lj's liquid at 2,048,000 atoms: a warp reads 29 tiles of candidates, ~820 atoms, and tests
   20 tiles, ~550 of them). The kept ones are compacted
   into shared memory, and every 32 of them are tested by every lane against its own atom, all
   lanes reading the same one at once (a broadcast): 32 independent tests that shift one bit each
   into a mask. The masks of up to WARP_TILES tested tiles are held with the tiles' list entries;
   then the warp writes its rows out together, slot by slot, consecutive lanes to consecutive
   addresses in the transposed layout, each lane taking its next kept entry from its masks. Rows
   of the list come out in the order of the 27 cells (z, then y, then x, ascending; images as
   reached), as a thread per atom would.
   Per candidate the filter is one distance to a box; per kept entry the write is one slot of the
   walk. At 2,048,000 atoms of in.lj (ncu, H200, `mdlite neighbors` on the liquid) the earlier form,
   which tested every candidate and put each kept entry in a per-lane ring in shared memory, issued
   1.33e9 warp instructions a build (38% in the tests, 18% in the ring's bookkeeping, 24% in its
   flushes) and took 1.48 ms; this one issues 0.79e9 (43% in the tests) and takes 0.96 ms. */
#define WARP_BUILD_BLOCK 128
/* WARP_BUILD_BLOCKS: blocks per SM that the registers must allow: 64 registers a thread in mixed
   precision (at 2,048,000 atoms, H200, whole runs: 3.28e9 atom-steps/s against 3.24e9 at 80 and
   3.15e9 at 96), 128 in double (184 unbounded; with 64 it spills, and whole runs at 2,048,000 atoms
   took 2.01e9 against 2.08e9 before the filter).
   WARP_TILES: tested tiles held before the rows are written (even, and at most 32: `nonzero` has a
   bit per tile). Each write walks the slots where any lane's row stands, so the fewer writes the
   better, within the shared memory of WARP_BUILD_BLOCKS blocks an SM (mixed precision: 256 bytes a
   tile and 1,280 more a warp; 24 tiles leave room for 7 blocks; 22 would fit 8, not measured).
   in.lj's liquid at 256,000 atoms, `mdlite neighbors`, the builder's warp instructions and time
   (H100): mixed 16 tiles 96.9e6, 151.4 us; 20 tiles 93.7e6, 141.8 us; double 16 tiles 122.8e6,
   235.6 us; 32 tiles 120.7e6, 221.1 us. On an H200: mixed 8 tiles 108.9e6, 165 us; 24 tiles (7
   blocks) 93.3e6, 148.0 us against 148.8 for 16; double 24 tiles as 32 (no warp there fills 24). */
#ifdef MDLITE_GPU_DOUBLE
#define WARP_BUILD_BLOCKS 4
#define WARP_TILES 32
#else
#define WARP_BUILD_BLOCKS 8
#define WARP_TILES 20
#endif
#define WARP_HELD (WARP_TILES * 32 + 64) /* their entries and the candidates still untested */
static_assert(WARP_TILES % 2 == 0 && WARP_TILES <= 32, "entry e's position is e % 64 across a write");

/* The mask with candidate pj's bit shifted in at bit 0: set when pj is within the list radius of
   the lane's atom at (xi, yi, zi) (r2 negative for lanes not in this pass). d2 < r2 is the sign of
   the exact difference d2 - r2, and one funnel shift inserts it. */
__device__ __forceinline__ unsigned sign_word(float d) { return __float_as_uint(d); }
__device__ __forceinline__ unsigned sign_word(double d) { return (unsigned)__double2hiint(d); }
__device__ __forceinline__ unsigned in_range(unsigned bits, mdl_real xi, mdl_real yi, mdl_real zi, real4 pj,
                                             mdl_real r2)
{
    const mdl_real dx = xi - pj.x, dy = yi - pj.y, dz = zi - pj.z;
    const mdl_real d2 = dx * dx + dy * dy + dz * dz;
    return __funnelshift_l(sign_word(d2 - r2), bits, 1);
}

/* A warp's shared memory: candidates from the filter until their test (entry e's position at
   e % 64), each held candidate's list entry (an atom index or a packed code), and tested tile
   t's masks: lane's kept candidates of entries 32t .. 32t + 31, candidate q at bit 31 - q. */
struct warp_scratch {
    real4 pos[64];
    int entry[WARP_HELD];
    unsigned kept[WARP_TILES][32];
};

/* The box around the atoms of a pass (lo .. hi), and the filter's radius squared: a candidate farther
   from the box is no lane's neighbor. */
struct pass_box {
    mdl_real lo[3], hi[3], r2;
};

/* Where a lane's rows stand: entries written (k), entries in tested tiles still to write (pend),
   and the warp's held candidates: `tested` entries (a multiple of 32) in tested tiles, then
   `fill` untested ones of image shift (sx, sy, sz); self: where the lane's own atom waits. */
struct warp_rows {
    warp_scratch *w;
    int *nl;
    int i, lane, capacity, si, sk;
    bool active; /* the lane has an atom */
    bool packed; /* 16-bit entries, two to an int (gpu.h); else one atom index per int */
    int k, pend, tested, fill, self;
    unsigned nonzero; /* bit t: tested tile t holds some of this lane's entries */
    mdl_real sx, sy, sz;

    /* Every lane's entries of the tested tiles go to its row, slot by slot across the warp (the
       slots past what the row holds, capacity ints, two entries to an int when packed, are only
       counted); then the untested candidates move to the front (entry 32 * WARP_TILES is at
       position 0 of pos, so only their entries move). */
    template <bool CAN_PACK>
    __device__ void write_rows()
    {
        const unsigned all = 0xffffffffu;
        const int holds = packed ? 2 * capacity : capacity;
        const int lo = __reduce_min_sync(all, pend ? k : INT_MAX);
        const int hi = min(__reduce_max_sync(all, k + pend), holds); /* past holds: only counted */
        unsigned tiles = nonzero; /* the tested tiles where this lane kept candidates */
        int t = tiles ? __ffs(tiles) - 1 : 0;
        unsigned m = w->kept[t][lane];
        /* slot s: the lane's next entry where s is one of its slots, its first kept candidate of tile
           t (candidate q at bit 31 - q); then on to its next tile with entries. Lanes with none
           read an entry they do not use (q = 32 where m is 0: entry 32t + 32, in the array). */
#define WARP_NEXT_ENTRY(STORE)                                                                                  \
    {                                                                                                          \
        const bool mine = (unsigned)(s - k) < (unsigned)pend;                                                  \
        const int q = __clz(m), e = w->entry[t * 32 + q];                                                      \
        if (mine) {                                                                                            \
            STORE;                                                                                             \
            m ^= 0x80000000u >> q;                                                                             \
            if (!m) {                                                                                          \
                tiles &= tiles - 1;                                                                            \
                t = tiles ? __ffs(tiles) - 1 : 0;                                                              \
                m = w->kept[t][lane];                                                                          \
            }                                                                                                  \
        }                                                                                                      \
    }
        if (CAN_PACK && packed) { /* entry s: half s % 2 of int s / 2; the next int is sk further */
            unsigned short *out = (unsigned short *)nl + ((size_t)(lo >> 1) * sk + i) * 2 + (lo & 1);
            for (int s = lo; s < hi; out += s & 1 ? 2 * sk - 1 : 1, s++)
                WARP_NEXT_ENTRY(*out = (unsigned short)e)
        } else {
            int *out = nl + (size_t)i * si + (size_t)lo * sk;
            for (int s = lo; s < hi; s++, out += sk)
                WARP_NEXT_ENTRY(*out = e)
        }
#undef WARP_NEXT_ENTRY
        nonzero = 0;
        k += pend;
        pend = 0;
        __syncwarp();
        if (tested == WARP_TILES * 32) {
            const int e = lane < fill ? w->entry[tested + lane] : 0;
            __syncwarp();
            if (lane < fill)
                w->entry[lane] = e;
            __syncwarp();
            self = self >= tested ? self - tested : self;
            tested = 0;
        }
    }

    /* The first `count` untested candidates (all of one image shift) tested against every lane's
       atom (r2 negative: a lane not in this pass); the tile's masks are held, padded to 32. */
    template <bool CAN_PACK>
    __device__ void test(int count, real4 pi, mdl_real r2)
    {
        const real4 *c = w->pos + (tested & 63);
        const mdl_real xi = pi.x - sx, yi = pi.y - sy, zi = pi.z - sz;
        unsigned bits = 0; /* candidate q shifted in at bit 0, so it ends at bit count - 1 - q */
        if (count == 32) {
#pragma unroll
            for (int q = 0; q < 32; q++)
                bits = in_range(bits, xi, yi, zi, c[q], r2);
        } else {
            for (int q = 0; q < count; q++)
                bits = in_range(bits, xi, yi, zi, c[q], r2);
            bits <<= 32 - count;
        }
        if ((unsigned)(self - tested) < (unsigned)count) { /* the lane's own atom */
            bits &= ~(0x80000000u >> (self - tested));
            self = -1;
        }
        w->kept[tested / 32][lane] = bits;
        nonzero |= bits ? 1u << tested / 32 : 0u;
        pend += __popc(bits);
        tested += 32;
        fill = max(fill - 32, 0);
        __syncwarp();
        if (tested == WARP_TILES * 32)
            write_rows<CAN_PACK>();
    }

    /* Candidates whose shift differs from those waiting: these are tested first. */
    template <bool CAN_PACK>
    __device__ void set_shift(mdl_real x, mdl_real y, mdl_real z, real4 pi, mdl_real r2)
    {
        if (fill && (x != sx || y != sy || z != sz))
            test<CAN_PACK>(fill, pi, r2);
        sx = x, sy = y, sz = z;
    }

    /* A lane's candidate p (its entry e; the lanes read atoms jb, jb + 1, ...) where `keep`,
       appended after those waiting; a full tile of them tested. */
    template <bool CAN_PACK>
    __device__ void add(bool keep, real4 p, int e, int jb, real4 pi, mdl_real r2)
    {
        const unsigned bits = __ballot_sync(0xffffffffu, keep);
        const int at = tested + fill;
        if (keep) {
            const int to = at + __popc(bits & ((1u << lane) - 1));
            w->pos[to & 63] = p;
            w->entry[to] = e;
        }
        const int from = i - jb; /* the lane that read this lane's own atom, if any */
        if ((unsigned)from < 32u && (bits >> from & 1))
            self = at + __popc(bits & ((1u << from) - 1));
        fill += __popc(bits);
        __syncwarp();
        if (fill >= 32)
            test<CAN_PACK>(32, pi, r2);
    }
};

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
    bool opens; /* the tile is its range's first */
    mdl_real sx, sy, sz; /* the range's image shift */

    /* To the next tile, in this range or the next non-empty one; false past the last. */
    __device__ bool advance(const candidates &lane_range)
    {
        const unsigned all = 0xffffffffu;
        jb += 32;
        opens = false;
        if (jb < j1)
            return true;
        if (!left)
            return false;
        s = __ffs(left) - 1;
        left &= left - 1;
        jb = __shfl_sync(all, lane_range.j0, s);
        j1 = __shfl_sync(all, lane_range.j1, s);
        sx = __shfl_sync(all, lane_range.sx, s), sy = __shfl_sync(all, lane_range.sy, s);
        sz = __shfl_sync(all, lane_range.sz, s);
        opens = true;
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

/* The squared distance from (x, y, z) to the box lo .. hi (0 inside). */
__device__ __forceinline__ mdl_real outside2(mdl_real x, mdl_real y, mdl_real z, const pass_box &bb)
{
    const mdl_real ex = max(max(bb.lo[0] - x, x - bb.hi[0]), (mdl_real)0);
    const mdl_real ey = max(max(bb.lo[1] - y, y - bb.hi[1]), (mdl_real)0);
    const mdl_real ez = max(max(bb.lo[2] - z, z - bb.hi[2]), (mdl_real)0);
    return ex * ex + ey * ey + ez * ez;
}

/* A pass over the row of cells (y0, z0): lane s finds range s (range_of_row), all at once; the warp
   then reads the ranges in order, 32 candidates at a time (a lane each, the next 32 loaded while
   these are filtered), keeps those within the filter's radius of the pass's box and hands them to
   r, which tests them in tiles of 32 (r2: the lane's squared list radius, negative where not mine).
   PACKED: entries are packed codes where table is not NULL (the plain kernel has no such test). */
template <bool PACKED>
__device__ void scan_row_by_warp(warp_rows &r, mdl_real r2, real4 pi, const pass_box &bb, const mdl_box &b,
                                 const image_lengths &m, int3 nc, int y0, int z0, int xlo, int xhi, const int *start,
                                 const int *end, const pos_t *__restrict__ pos, int *table, int &slots)
{
    const unsigned all = 0xffffffffu;
    const int lane = r.lane;
    const candidates lane_range = lane < 27 ? range_of_row(lane, b, m, nc, y0, z0, xlo, xhi, start, end)
                                            : candidates{0, 0, 0, 0, 0};
    const int first_slot = PACKED && table ? table_chunks(lane_range, table, slots) : 0;
    tile_cursor at = {0, -32, 0, __ballot_sync(all, lane_range.j0 < lane_range.j1), false, 0, 0, 0};
    if (!at.advance(lane_range))
        return;
    real4 next = at.jb + lane < at.j1 ? load4(pos, at.jb + lane) : pi;
    for (bool more = true; more;) {
        const tile_cursor now = at;
        const real4 p = next;
        more = at.advance(lane_range);
        if (more && at.jb + lane < at.j1)
            next = load4(pos, at.jb + lane);
        if (now.opens)
            r.set_shift<PACKED>(now.sx, now.sy, now.sz, pi, r2);
        const int j = now.jb + lane;
        int entry = j;
        if (PACKED && table) { /* tiles start 32k atoms into their range: a tile lies in one chunk */
            const int off = j - __shfl_sync(all, lane_range.j0, now.s);
            entry = (__shfl_sync(all, first_slot, now.s) + (off >> GPU_LIST_OFFSET_BITS)) << GPU_LIST_OFFSET_BITS |
                    (off & (GPU_LIST_CHUNK - 1));
        }
        const bool keep = j < now.j1 && outside2(p.x + now.sx, p.y + now.sy, p.z + now.sz, bb) < bb.r2;
        r.add<PACKED>(keep, p, entry, now.jb, pi, r2);
    }
    if (r.fill)
        r.test<PACKED>(r.fill, pi, r2);
}

/* The box around the pass's atoms (mine) and the filter's radius: the list radius, a thousandth
   more, and eight roundings of the largest coordinate (a candidate the test keeps is never filtered
   out). */
__device__ pass_box box_of_pass(bool mine, real4 pi, const mdl_box &b, mdl_real rlist2)
{
    const mdl_real big = sizeof(mdl_real) == 4 ? (mdl_real)3e38f : (mdl_real)1e308;
    pass_box bb;
    bb.lo[0] = mine ? pi.x : big, bb.lo[1] = mine ? pi.y : big, bb.lo[2] = mine ? pi.z : big;
    bb.hi[0] = mine ? pi.x : -big, bb.hi[1] = mine ? pi.y : -big, bb.hi[2] = mine ? pi.z : -big;
    for (int o = 16; o; o >>= 1)
        for (int d = 0; d < 3; d++) {
            bb.lo[d] = min(bb.lo[d], __shfl_xor_sync(0xffffffffu, bb.lo[d], o));
            bb.hi[d] = max(bb.hi[d], __shfl_xor_sync(0xffffffffu, bb.hi[d], o));
        }
    double reach = 0;
    for (int d = 0; d < 3; d++)
        reach = fmax(reach, fabs(b.lo[d]) + 2 * b.len[d]);
    const double eps = sizeof(mdl_real) == 4 ? 1.1920929e-7 : 2.220446049250313e-16;
    const double rf = sqrt((double)rlist2) * 1.001 + 8 * eps * reach;
    bb.r2 = (mdl_real)(rf * rf);
    return bb;
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
                                   int *nl, int *count, int capacity, int si, int sk, int *flags, warp_scratch *w,
                                   int *table)
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
    warp_rows r = {w, nl, i, lane, capacity, si, sk, active, PACKED && table, 0, 0, 0, 0, -1, 0u, 0, 0, 0};
    int slots = 0;
    /* one pass per row of cells among the warp's atoms (one, sometimes two) */
    for (unsigned todo = __ballot_sync(all, active); todo;) {
        const row_pass p = next_pass(todo, active, cx, cy, cz);
        const pass_box bb = box_of_pass(p.mine, pi, b, rlist2);
        const mdl_real r2 = p.mine ? rlist2 : (mdl_real)-1;
        scan_row_by_warp<PACKED>(r, r2, pi, bb, b, m, nc, p.y0, p.z0, p.xlo, p.xhi, start, end, pos, table, slots);
        if (pass_sees_ghosts(p, gstart, free_lo, free_hi)) /* the ghosts: sorted by cell after the atoms */
            scan_row_by_warp<PACKED>(r, r2, pi, bb, b, m, nc, p.y0, p.z0, p.xlo, p.xhi, gstart, gend, pos, table,
                                     slots);
    }
    r.write_rows<PACKED>();
    if (active)
        finish_row(count, flags, i, r.k, capacity, r.packed ? 2 : 1);
}

/* Warps are independent; the block barrier at the end is for compute-sanitizer's synccheck (without
   it, synccheck reports the first barrier of the next rebuild's CUB sort as divergent, as it does
   after the per-thread build_cell_kernel: see gpu_build_cell). PACKED: rows packed where they fit
   (table, gpu.h); else the kernel is the plain one, with no trace of packing. */
template <bool PACKED, bool MOVING>
__global__ void __launch_bounds__(WARP_BUILD_BLOCK, WARP_BUILD_BLOCKS) build_cell_warp_kernel(
    int n, const __grid_constant__ gpu_grid grid, const gpu_grid *moving, const int *start, const int *end,
    const int *gstart, const int *gend, int3 free_lo, int3 free_hi, const pos_t *__restrict__ pos, mdl_real rlist2,
    int *nl, int *count, int capacity, int si, int sk, int *flags, int *table)
{
    __shared__ warp_scratch scratch[WARP_BUILD_BLOCK / 32];
    const int warp = threadIdx.x / 32, first = blockIdx.x * WARP_BUILD_BLOCK + warp * 32;
    KERNEL_GRID(MOVING, grid, moving);
    if (first < n)
        build_rows_of_warp<PACKED>(n, first, b, m, nc, start, end, gstart, gend, free_lo, free_hi, pos, rlist2, nl,
                                   count, capacity, si, sk, flags, scratch + warp, table);
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

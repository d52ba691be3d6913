/* The periodic box, written once for host C and CUDA: the type (orthogonal, or LAMMPS's restricted
   triclinic cell), fractional coordinates, minimum-image separations and wrapping into the box
   with image counters. */
#ifndef MDL_PHYSICS_BOX_H
#define MDL_PHYSICS_BOX_H

#include "hd.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* The box: edge vectors a = (lx, 0, 0), b = (xy, ly, 0), c = (xz, yz, lz) from the corner lo
   (LAMMPS's restricted triclinic form; tilt = xy, xz, yz, all 0 for an orthogonal box, which is then
   [lo, lo + len) per dimension); periodic[d] = 0 means open (no images along d: a 2-d system's z,
   as LAMMPS makes no ghosts along z in 2-d). dim: 2 for a 2-d system (LAMMPS's dimension 2: its
   volume is the area lx ly), 0 or 3 otherwise. */
typedef struct {
    double lo[3];
    double len[3];
    int periodic[3];
    double tilt[3]; /* xy, xz, yz */
    int dim;
} mdl_box;

static inline MDL_HD int box_is_triclinic(const mdl_box *b)
{
    return b->tilt[0] != 0 || b->tilt[1] != 0 || b->tilt[2] != 0;
}

/* Edge vector d (0: a, 1: b, 2: c) times k, added to p: the periodic image k cells away along d. */
static inline MDL_HD void box_add_edge(const mdl_box *b, int d, double k, double p[3])
{
    if (d == 0) {
        p[0] += k * b->len[0];
    } else if (d == 1) {
        p[0] += k * b->tilt[0], p[1] += k * b->len[1];
    } else {
        p[0] += k * b->tilt[1], p[1] += k * b->tilt[2], p[2] += k * b->len[2];
    }
}

/* Fractional (LAMMPS's lamda) coordinates of p: p = lo + s0 a + s1 b + s2 c, with LAMMPS's h_inv
   products (x2lamda), so that a wrap decides at the faces as LAMMPS's does. */
static inline MDL_HD void box_to_fraction(const mdl_box *b, const double p[3], double s[3])
{
    const double lx = b->len[0], ly = b->len[1], lz = b->len[2], xy = b->tilt[0], xz = b->tilt[1], yz = b->tilt[2];
    const double dx = p[0] - b->lo[0], dy = p[1] - b->lo[1], dz = p[2] - b->lo[2];
    s[0] = (1.0 / lx) * dx + (-xy / (lx * ly)) * dy + ((xy * yz - ly * xz) / (lx * ly * lz)) * dz;
    s[1] = (1.0 / ly) * dy + (-yz / (ly * lz)) * dz;
    s[2] = (1.0 / lz) * dz;
}

/* p from fractional coordinates s (LAMMPS's lamda2x). */
static inline MDL_HD void box_from_fraction(const mdl_box *b, const double s[3], double p[3])
{
    p[0] = b->len[0] * s[0] + b->tilt[0] * s[1] + b->tilt[1] * s[2] + b->lo[0];
    p[1] = b->len[1] * s[1] + b->tilt[2] * s[2] + b->lo[1];
    p[2] = b->len[2] * s[2] + b->lo[2];
}

/* p's coordinate along the box's dimension d as domain bricks cut it: p[d] in an orthogonal box; in
   a triclinic one lo + len times its fractional coordinate (LAMMPS's bricks in lamda space). */
static inline MDL_HD double box_along(const mdl_box *b, const double p[3], int d)
{
    if (!box_is_triclinic(b))
        return p[d];
    double s[3];
    box_to_fraction(b, p, s);
    return b->lo[d] + s[d] * b->len[d];
}

/* The distance between the box's two faces across dimension d, over len[d]: a slab r thick
   there spans r / (len[d] * face) of the fractional coordinate (1 for an orthogonal box). */
static inline MDL_HD double box_face_spacing(const mdl_box *b, int d)
{
    const double ly = b->len[1], lz = b->len[2], xy = b->tilt[0], xz = b->tilt[1], yz = b->tilt[2];
    if (d == 0) {
        const double u = xy / ly, w = (xy * yz - ly * xz) / (ly * lz);
        return 1.0 / sqrt(1.0 + u * u + w * w);
    }
    if (d == 1)
        return 1.0 / sqrt(1.0 + (yz / lz) * (yz / lz));
    return 1.0;
}

/* Why a box's tilts are past LAMMPS's limits (|xy| and |xz| at most lx / 2 along a periodic x, |yz|
   at most ly / 2 along a periodic y: LAMMPS's "Triclinic box skew is too large"), or not finite;
   NULL where they are within them. */
static inline const char *box_tilt_unfit(const mdl_box *b)
{
    for (int k = 0; k < 3; k++)
        if (!isfinite(b->tilt[k]))
            return "a tilt that is not a finite number";
    if (b->periodic[0] && (fabs(b->tilt[0] / b->len[0]) > 0.5 || fabs(b->tilt[1] / b->len[0]) > 0.5))
        return "|xy| or |xz| is more than half of lx (LAMMPS: triclinic box skew is too large)";
    if (b->periodic[1] && fabs(b->tilt[2] / b->len[1]) > 0.5)
        return "|yz| is more than half of ly (LAMMPS: triclinic box skew is too large)";
    return NULL;
}

/* A cell of any orientation (edge vectors a, b, c: cell[0..2], [3..5], [6..8]) as LAMMPS's
   restricted form: lengths and tilts into b (lo untouched), and the rotation rot (rows) that
   takes a vector of the cell's frame into the box's (identity where the cell is in that form
   already). Returns 0, or why it cannot be: degenerate (no volume) or left-handed. */
static inline const char *box_from_cell(const double cell[9], mdl_box *b, double rot[3][3])
{
    const double *a = cell, *bv = cell + 3, *c = cell + 6;
    const double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    double n[3] = {a[1] * bv[2] - a[2] * bv[1], a[2] * bv[0] - a[0] * bv[2], a[0] * bv[1] - a[1] * bv[0]};
    const double ln = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), vol = n[0] * c[0] + n[1] * c[1] + n[2] * c[2];
    if (!(la > 0) || !(ln > 0) || !(fabs(vol) > 1e-12 * la * ln * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2])))
        return "its edge vectors span no volume (degenerate)";
    if (vol < 0)
        return "its edge vectors are left-handed (a x b points away from c)";
    const int restricted = a[1] == 0 && a[2] == 0 && bv[2] == 0 && a[0] > 0 && bv[1] > 0;
    for (int d = 0; d < 3; d++) /* x' along a, z' along a x b */
        rot[0][d] = restricted ? d == 0 : a[d] / la, rot[2][d] = restricted ? d == 2 : n[d] / ln;
    for (int d = 0; d < 3; d++) /* y' = z' x x' */
        rot[1][d] = restricted ? d == 1 : rot[2][(d + 1) % 3] * rot[0][(d + 2) % 3] - rot[2][(d + 2) % 3] * rot[0][(d + 1) % 3];
    double v[3][3];
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 3; d++)
            v[k][d] = rot[d][0] * cell[3 * k] + rot[d][1] * cell[3 * k + 1] + rot[d][2] * cell[3 * k + 2];
    b->len[0] = v[0][0], b->len[1] = v[1][1], b->len[2] = v[2][2];
    b->tilt[0] = v[1][0], b->tilt[1] = v[2][0], b->tilt[2] = v[2][1];
    return NULL;
}

/* The unwrapped position of p with image counters im: p + im0 a + im1 b + im2 c. */
static inline MDL_HD void box_unwrap(const mdl_box *b, const double p[3], const int32_t im[3], double u[3])
{
    u[0] = p[0], u[1] = p[1], u[2] = p[2];
    for (int d = 0; d < 3; d++)
        if (im[d])
            box_add_edge(b, d, (double)im[d], u);
}

/* The volume, or in 2-d the area (LAMMPS's volume of a 2-d box in thermo and pressure). */
static inline MDL_HD double box_volume(const mdl_box *b)
{
    return b->dim == 2 ? b->len[0] * b->len[1] : b->len[0] * b->len[1] * b->len[2];
}

/* The dimensions the atoms move in: 2 or 3. */
static inline MDL_HD int box_dimension(const mdl_box *b)
{
    return b->dim == 2 ? 2 : 3;
}

/* Lengths and inverse lengths for the minimum image: 0 on open dimensions (no image taken). */
static inline MDL_HD void box_image_lengths(const mdl_box *b, double len[3], double inv[3])
{
    for (int d = 0; d < 3; d++) {
        len[d] = b->periodic[d] ? b->len[d] : 0.0;
        inv[d] = b->periodic[d] ? 1.0 / b->len[d] : 0.0;
    }
}

/* The minimum-image separation d along a dimension of length len (inv = 1 / len; 0: open), in
   type T: made for double here and for the GPU's mdl_real (float in mixed precision; CUDA's
   rint(float) overload is rintf) in gpu/common.cuh. */
#define MDL_MIN_IMAGE(T, S)                                       \
    static inline MDL_HD T min_image##S(T d, T len, T inv)        \
    {                                                             \
        return d - len * rint(d * inv);                           \
    }
MDL_MIN_IMAGE(double, )

/* Wraps one coordinate of an atom into [lo, lo + len), counting the images crossed in *image;
   returns the wrapped coordinate. Coordinates inside are returned as they are. */
/* The brick (0 .. grid - 1) holding coordinate v when [lo, lo + len) is cut into grid equal bricks;
   clamped at the faces (the domain decomposition, host and GPU). */
static inline MDL_HD int box_brick(double v, double lo, double len, int grid)
{
    const double c = floor((v - lo) / len * grid); /* clamped before the cast: NaN (a flat box) too */
    return !(c >= 0) ? 0 : c >= grid ? grid - 1 : (int)c;
}

/* How far a box's faces moved from those of the box `built` (|lo - lo'| + |hi - hi'|): pairs cross
   the faces by up to this much, which the skin test under a barostat counts (LAMMPS's boxcheck: a
   rebuild once an atom moved past (skin - it) / 2, unsafe past skin - it / 2). */
static inline MDL_HD double box_faces_moved(const mdl_box *now, const mdl_box *built)
{
    double dlo = 0, dhi = 0;
    for (int d = 0; d < 3; d++) {
        const double a = now->lo[d] - built->lo[d], h = now->lo[d] + now->len[d] - (built->lo[d] + built->len[d]);
        dlo += a * a, dhi += h * h;
    }
    return sqrt(dlo) + sqrt(dhi);
}

static inline MDL_HD double box_wrap(double x, double lo, double len, int32_t *image);

/* Wraps p into a triclinic box along its periodic dimensions, counting images: in fractional
   coordinates and back (LAMMPS's pbc between x2lamda and lamda2x). An atom inside is left as it is
   (LAMMPS round-trips every atom; here a position moves only when it leaves the box, so the
   positions a build wrapped are the ones a restart's build wraps again, to the bit). */
static inline MDL_HD void box_wrap_triclinic(const mdl_box *b, double p[3], int32_t im[3])
{
    double s[3];
    box_to_fraction(b, p, s);
    int out = 0;
    for (int d = 0; d < 3; d++)
        out |= b->periodic[d] && !(s[d] >= 0.0 && s[d] < 1.0);
    if (!out)
        return;
    for (int d = 0; d < 3; d++)
        if (b->periodic[d])
            s[d] = box_wrap(s[d], 0.0, 1.0, &im[d]);
    box_from_fraction(b, s, p);
}

/* The minimum image of separation dx in a triclinic box: each periodic fractional coordinate
   brought into [-1/2, 1/2] (edge vectors are unit steps there), so a separation shorter than half
   the distance between the box's closest faces is the nearest image. */
static inline MDL_HD void box_min_image_triclinic(const mdl_box *b, double dx[3])
{
    const mdl_box o = {{0, 0, 0}, {b->len[0], b->len[1], b->len[2]}, {1, 1, 1}, {b->tilt[0], b->tilt[1], b->tilt[2]}, 0};
    double s[3];
    box_to_fraction(&o, dx, s);
    for (int d = 0; d < 3; d++)
        if (b->periodic[d])
            s[d] -= rint(s[d]);
    box_from_fraction(&o, s, dx);
}

static inline MDL_HD double box_wrap(double x, double lo, double len, int32_t *image)
{
    if (x >= lo && x < lo + len)
        return x;
    double k = floor((x - lo) / len);
    x -= k * len;
    if (x >= lo + len) { /* rounded up to the upper face (x just below lo): the lower face of the next image */
        x = lo;
        k += 1.0;
    }
    *image += (int32_t)k;
    return x;
}

#endif

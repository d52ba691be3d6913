/* The periodic box, written once for host C and CUDA: the type, minimum-image separations and
   wrapping into the box with image counters. */
#ifndef MDL_PHYSICS_BOX_H
#define MDL_PHYSICS_BOX_H

#include "hd.h"

#include <math.h>
#include <stdint.h>

/* Orthorhombic box [lo, lo + len) per dimension; periodic[d] = 0 means open (only for demos). */
typedef struct {
    double lo[3];
    double len[3];
    int periodic[3];
} mdl_box;

static inline MDL_HD double box_volume(const mdl_box *b)
{
    return b->len[0] * b->len[1] * b->len[2];
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

static inline MDL_HD double box_wrap(double x, double lo, double len, int32_t *image)
{
    if (x >= lo && x < lo + len)
        return x;
    double k = floor((x - lo) / len);
    x -= k * len;
    if (x >= lo + len) /* rounding at the upper face */
        x = lo;
    *image += (int32_t)k;
    return x;
}

#endif

/* LAMMPS's boundary per face of an orthogonal box: periodic (p), fixed (f: an atom past the face at
   a rebuild is lost) or shrink-wrapped (s: at every rebuild the face moves to the atoms' extent
   plus a margin; m: the same, but never inside the face as the box was made). */
#ifndef MDL_PHYSICS_BOUNDARY_H
#define MDL_PHYSICS_BOUNDARY_H

#include "box.h"

enum { MDL_FACE_P, MDL_FACE_F, MDL_FACE_S, MDL_FACE_M };

/* Face k's name, 0 to 5: xlo xhi ylo yhi zlo zhi (LAMMPS's words for walls); NULL past them. */
static inline const char *boundary_face_name(int k)
{
    static const char *const faces[] = {"xlo", "xhi", "ylo", "yhi", "zlo", "zhi"};
    return k >= 0 && k < 6 ? faces[k] : NULL;
}

typedef struct {
    int face[3][2];            /* MDL_FACE_* of the lower and upper face along x, y, z */
    double small[3];           /* the shrink-wrap margin: 1e-4 of the box's length as made (LAMMPS's SMALL) */
    double min_lo[3], min_hi[3]; /* m faces: the faces as made */
} mdl_boundary;

/* LAMMPS's boundary words ("p s p", "f fs p") into face: 1, or 0 with the reason in *why. */
static inline int boundary_parse(const char *words, int face[3][2], const char **why)
{
    static const char kinds[] = "pfsm";
    int n = 0;
    *why = NULL;
    for (const char *p = words; *p;) {
        while (*p == ' ' || *p == '\t')
            p++;
        size_t len = 0;
        while (p[len] && p[len] != ' ' && p[len] != '\t')
            len++;
        if (!len)
            break;
        if (n < 3) {
            for (int k = 0; k < 2; k++) {
                const char c = len <= 2 ? p[len == 2 ? k : 0] : 0;
                int kind = 0;
                while (kind < 4 && kinds[kind] != c)
                    kind++;
                face[n][k] = kind < 4 ? kind : -1;
            }
            if (len > 2 || face[n][0] < 0 || face[n][1] < 0)
                *why = *why ? *why : "each dimension's word is p, f, s, m, or two of f, s, m (its lower and upper face)";
            else if ((face[n][0] == MDL_FACE_P) != (face[n][1] == MDL_FACE_P))
                *why = *why ? *why : "p on one face of a dimension only (LAMMPS: both sides of boundary must be periodic)";
        }
        n++, p += len;
    }
    if (n != 3)
        *why = "expected three words, one per dimension (as LAMMPS's boundary: p p p, p s p, f fs p)";
    return *why == NULL;
}

static inline int boundary_shrinks(const mdl_boundary *bd)
{
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < 2; k++)
            if (bd->face[d][k] >= MDL_FACE_S)
                return 1;
    return 0;
}

static inline int boundary_is_periodic(const mdl_boundary *bd)
{
    for (int d = 0; d < 3; d++)
        if (bd->face[d][0] != MDL_FACE_P)
            return 0;
    return 1;
}

/* The box as made (LAMMPS's set_initial_box): the margins and m faces' bounds taken from it, then
   its s faces moved out by the margin; its dimensions periodic where their faces are. */
static inline void boundary_make_box(mdl_boundary *bd, mdl_box *b)
{
    for (int d = 0; d < 3; d++) {
        bd->small[d] = 1e-4 * b->len[d];
        bd->min_lo[d] = b->lo[d], bd->min_hi[d] = b->lo[d] + b->len[d];
        double lo = b->lo[d], hi = b->lo[d] + b->len[d];
        lo -= bd->face[d][0] == MDL_FACE_S ? bd->small[d] : 0;
        hi += bd->face[d][1] == MDL_FACE_S ? bd->small[d] : 0;
        b->lo[d] = lo, b->len[d] = hi - lo;
        b->periodic[d] = bd->face[d][0] == MDL_FACE_P;
    }
}

/* The shrink-wrapped faces of b moved to the atoms' extent [lo[d], hi[d]] (every rank's) plus the
   margin (LAMMPS's reset_box); the other faces kept. */
static inline void boundary_shrink_wrap(const mdl_boundary *bd, const double lo[3], const double hi[3], mdl_box *b)
{
    for (int d = 0; d < 3; d++) {
        double blo = b->lo[d], bhi = b->lo[d] + b->len[d];
        const int f0 = bd->face[d][0], f1 = bd->face[d][1];
        if (f0 == MDL_FACE_S)
            blo = lo[d] - bd->small[d];
        else if (f0 == MDL_FACE_M)
            blo = fmin(lo[d] - bd->small[d], bd->min_lo[d]);
        if (f1 == MDL_FACE_S)
            bhi = hi[d] + bd->small[d];
        else if (f1 == MDL_FACE_M)
            bhi = fmax(hi[d] + bd->small[d], bd->min_hi[d]);
        b->lo[d] = blo, b->len[d] = bhi - blo;
    }
}

/* LAMMPS's fix wall/reflect on every atom: flat walls at faces (2 d + upper) of non-periodic
   dimensions, each at coord or, with edge, at the box's face. */
typedef struct {
    int n;
    int face[6], edge[6];
    double coord[6];
} mdl_walls;

/* An atom past a wall at coord along one dimension (upper: a wall facing down) mirrored back
   through it, its velocity along that dimension reversed (LAMMPS's wall_particle). */
static inline MDL_HD void wall_reflect(double *x, double *v, int upper, double coord)
{
    if (upper ? *x > coord : *x < coord) {
        *x = coord - (*x - coord);
        *v = -*v;
    }
}

/* The first face (2 d + upper) that position p lies beyond along a non-periodic dimension of b
   ([lo, lo + len) inside, as LAMMPS's exchange keeps an atom; a 2-d system's z, periodic in LAMMPS,
   is not a face), or -1. */
static inline int boundary_face_left(const mdl_box *b, const double p[3])
{
    for (int d = 0; d < 3; d++) {
        if (b->periodic[d] || (d == 2 && b->dim == 2))
            continue;
        if (p[d] < b->lo[d])
            return 2 * d;
        if (p[d] >= b->lo[d] + b->len[d])
            return 2 * d + 1;
    }
    return -1;
}

#endif

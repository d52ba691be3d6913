/* LAMMPS's regions that name atoms by where they are (block, sphere, cylinder, inside or out, and
   their intersections or unions), as the groups, type edits, deletions and lattice fills of [system]
   read them: their words and the inside test. */
#ifndef MDL_PHYSICS_REGION_H
#define MDL_PHYSICS_REGION_H

#include "../util/util.h"

#include <math.h>
#include <string.h>

enum { MDL_REGION_BLOCK, MDL_REGION_SPHERE, MDL_REGION_CYLINDER };

/* block: b = xlo xhi ylo yhi zlo zhi; sphere: centre c and radius r; cylinder: along axis through
   c's other two coordinates, radius r, from lo to hi along the axis; out: the atoms outside it
   (LAMMPS's side out). Faces belong to the inside, as LAMMPS's. */
typedef struct {
    int style, axis, out;
    double b[6], c[3], r, lo, hi;
} mdl_region;

/* The region of words w[0 ..]: "block XLO XHI YLO YHI ZLO ZHI", "sphere X Y Z R" or "cylinder x|y|z C1
   C2 R LO HI" (box units), then "out" or nothing. The words it takes, or 0 where they are not one. */
static inline int region_parse(char *const *w, int n, mdl_region *r)
{
    memset(r, 0, sizeof *r);
    const int cyl = n >= 1 && !strcmp(w[0], "cylinder"), need = n < 1 ? 0 : !strcmp(w[0], "block") ? 6
                                                                : !strcmp(w[0], "sphere") ? 4 : cyl ? 6 : 0;
    if (!need || n < 1 + need)
        return 0;
    double v[6];
    for (int k = cyl; k < need; k++)
        if (mdl_parse_double(w[1 + k], &v[k]) != 0) /* a finite number */
            return 0;
    if (w[0][0] == 'b') {
        r->style = MDL_REGION_BLOCK;
        memcpy(r->b, v, sizeof r->b);
    } else if (w[0][0] == 's') {
        r->style = MDL_REGION_SPHERE, r->c[0] = v[0], r->c[1] = v[1], r->c[2] = v[2], r->r = v[3];
    } else {
        if (strlen(w[1]) != 1 || !strchr("xyz", w[1][0]))
            return 0;
        r->style = MDL_REGION_CYLINDER, r->axis = w[1][0] - 'x';
        r->c[r->axis == 0 ? 1 : 0] = v[1], r->c[r->axis == 2 ? 1 : 2] = v[2], r->r = v[3], r->lo = v[4], r->hi = v[5];
    }
    if (r->r < 0)
        return 0;
    r->out = n > 1 + need && !strcmp(w[1 + need], "out");
    return 1 + need + r->out;
}

/* Whether p is in the region (its faces included; out: the complement). */
static inline int region_inside(const mdl_region *r, const double p[3])
{
    int in = 1;
    if (r->style == MDL_REGION_BLOCK) {
        for (int d = 0; d < 3; d++)
            in &= p[d] >= r->b[2 * d] && p[d] <= r->b[2 * d + 1];
    } else {
        double s = 0;
        for (int d = 0; d < 3; d++)
            if (r->style == MDL_REGION_SPHERE || d != r->axis)
                s += (p[d] - r->c[d]) * (p[d] - r->c[d]);
        in = sqrt(s) <= r->r; /* as LAMMPS compares them */
        if (r->style == MDL_REGION_CYLINDER)
            in &= p[r->axis] >= r->lo && p[r->axis] <= r->hi;
    }
    return in != r->out;
}

/* A region of one or more parts: "R and R ..." (in every part, LAMMPS's region intersect) or "R or
   R ..." (in any, LAMMPS's region union), each R as region_parse reads it. */
enum { MDL_REGION_PARTS = 8 };
typedef struct {
    int n, any;
    mdl_region part[MDL_REGION_PARTS];
} mdl_region_set;

/* The region of words w[0 ..], its parts joined by one of "and" or "or": the words it takes, or 0
   where they are not one (a word after a part that is neither is left to the caller). */
static inline int region_set_parse(char *const *w, int n, mdl_region_set *set)
{
    memset(set, 0, sizeof *set);
    for (int used = 0;;) {
        const int k = set->n < MDL_REGION_PARTS ? region_parse(w + used, n - used, &set->part[set->n]) : 0;
        if (!k)
            return 0;
        set->n++, used += k;
        const int join = used < n ? !strcmp(w[used], "and") ? 1 : !strcmp(w[used], "or") ? 2 : 0 : 0;
        if (!join)
            return used;
        if (set->n > 1 && (join == 2) != set->any)
            return 0; /* "and" and "or" in one region: LAMMPS nests regions, mdlite takes one level */
        set->any = join == 2, used++;
    }
}

/* Whether p is in the region of parts. */
static inline int region_set_inside(const mdl_region_set *set, const double p[3])
{
    for (int k = 0; k < set->n; k++)
        if (region_inside(&set->part[k], p) == set->any)
            return set->any;
    return !set->any;
}

#endif

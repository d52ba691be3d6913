/* The run's health check: what makes a state unusable (non-finite forces, velocities, positions,
   or an atom that moved more than the skin since the list was built), found atom by atom. */
#ifndef MDL_HEALTH_H
#define MDL_HEALTH_H

#include "../physics/box.h"

#include <stddef.h>
#include <stdint.h>

/* MDL_HEALTH_BOX: a barostat moved the box's faces past what the list's skin covers (value: how far);
   MDL_HEALTH_LOST + face (2 d + upper, 0..5): the atom lies past that non-periodic face at a rebuild
   (value: its coordinate along d), as LAMMPS loses it */
enum { MDL_HEALTH_OK, MDL_HEALTH_FORCE, MDL_HEALTH_VELOCITY, MDL_HEALTH_POSITION, MDL_HEALTH_MOVED, MDL_HEALTH_BOX,
       MDL_HEALTH_LOST };

typedef struct {
    int what;      /* MDL_HEALTH_* */
    int64_t id;    /* the atom's global id */
    double value;  /* the bad value, or the displacement for MDL_HEALTH_MOVED */
} mdl_health;

/* Arrays of one quantity's x, y and z components, per atom (any order; id[i] names atom i). */
typedef struct {
    const double *x, *y, *z;
} mdl_vec3_arrays;

/* The worst problem among n atoms: a non-finite force, else velocity, else position (lowest id
   first), else the largest displacement from pos0 when it exceeds limit; h->what = OK if none. */
void health_scan(size_t n, const int64_t *id, mdl_vec3_arrays pos, mdl_vec3_arrays pos0, mdl_vec3_arrays vel,
                 mdl_vec3_arrays frc, double limit, mdl_health *h);

/* The worst of n findings (one per rank), by health_scan's order: a force before a velocity
   before a position (the lowest id among equals), else the largest move. */
mdl_health health_worst(const mdl_health *all, int n);
/* Every rank's finding gathered, and the worst of them (health_worst) in *h on every rank. */
int health_agree(mdl_health *h);

/* A barostat's box at `step` that the run cannot go on with: its volume past 10 times or under a
   tenth of volume0 (the set-up's), an edge shorter than twice the list cutoff rlist (the minimum
   image; not along the axes of `ghosted`, bit d: nh_box_unfit), or bricks that no longer fit (brick_why, from domain_set_box; NULL: they fit). Says
   which (rank 0) and returns MDL_ERUN; else MDL_OK. */
int barostat_runaway(const mdl_box *b, double volume0, double rlist, int ghosted, const char *brick_why, long step);

/* "step S: atom I: ..." for h, with the skin and the step of the last build. */
void health_report(const mdl_health *h, long step, long last_build, double skin);

#endif

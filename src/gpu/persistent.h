/* The persistent step's parameters and launch (force.cu), on plain device pointers as gpu.h's drivers. */
#ifndef MDL_GPU_PERSISTENT_H
#define MDL_GPU_PERSISTENT_H

#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The persistent step (small systems, one rank; velocity Verlet alone, with Langevin's force, or with
   Nose-Hoover's chains in a fixed box as gpu_nose_hoover_kicked makes them): up to
   `steps` plain steps in one cooperative launch, each the graphs' step of the chained kind (the
   rebuild test's count, the forces of gpu_pair_forces into fx (with `langevin`, gpu_langevin's force
   of the device's step added), then gpu_kick_drift's two kicks
   and drift with its skin test, in place in pos4) with the grid synchronised between the phases;
   it stops before a step whose rebuild test would rebuild, prune or halt, or when a build's
   overflow is not yet reported (flags[1]), and leaves st's step and since counted and the steps
   made in *done (device memory). The same bits as the graphs' steps. */
typedef struct {
    int style, ntypes, n, steps;
    gpu_rebuild_rule rule;
    const int *nl, *table, *count, *flags;
    gpu_rows form;
    int si, sk, capacity;
    mdl_real *pos, *fx, *fy, *fz;
    const mdl_real *pos0;
    const int *type;
    double *x, *y, *z, *vx, *vy, *vz;
    double dtf, dt, inv_mass[MDL_MAX_SPECIES];
    mdl_real half2, skin2, outer_half; /* gpu_kick_drift's squares of the skin test */
    gpu_nb_state *st;
    int *done;
    int langevin;                    /* Langevin's force (lp, seed; masses and ids), or none */
    mdl_langevin lp;
    uint64_t seed;
    const int64_t *id;
    double mass[MDL_MAX_SPECIES];
    mdl_nh *nh;                      /* Nose-Hoover's chains (no barostat; NULL: none): their factor, */
    double *nh_factor, *partials;    /* the sums' scratch (3 per reduce_blocks block), the box */
    int reduce_blocks;               /* gpu_reduce_blocks(n) */
    double mvv2e;
    gpu_box_state *bx;
    long long *report;
} gpu_steps;
int gpu_persistent_steps(const gpu_steps *a);

#ifdef __cplusplus
}
#endif

#endif

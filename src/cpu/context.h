/* The CPU backend's state, shared by its table (backend.c) and its Nose-Hoover operations
   (nose_hoover.c). */
#ifndef MDL_CPU_CONTEXT_H
#define MDL_CPU_CONTEXT_H

#include "../core/backend.h"
#include "../core/health.h"
#include "../parallel/domain.h"
#include "force.h"
#include "integrate.h"
#include "neighbor.h"

typedef struct {
    mdl_system s;             /* owned atoms [0, dm.nlocal) in cell-sorted order, then ghosts; s.id maps back */
    mdl_domain dm;            /* this rank's brick, the ghosts' exchanges */
    mdl_box region;           /* the lists' box: the brick and its ghosts on decomposed axes (open), the
                                 whole box on the others */
    size_t natoms;            /* on all ranks */
    size_t scratch_atoms;     /* room in x0, y0, z0, perm, scratch */
    double comm_seconds;      /* in domain.c's exchanges (a migration's wrap included) */
    mdl_units u;
    double tail[2];           /* the pair potential's tail correction (mdl_pair_table.tail) */
    cpu_pair_table pairs;
    double dt, skin, rneigh;
    int brute;                /* method = brute */
    int check, delay, distance_check, since, started; /* steps between skin tests; steps since the last build */
    long builds, dangerous, last_build, unsafe_step; /* unsafe_step: -1 while healthy */
    long step;                /* the last step update_neighbors saw */
    int threads;
    double inv_mass[MDL_MAX_SPECIES];
    double *x0, *y0, *z0;     /* positions at the last build */
    double *now;              /* a restart building its checkpoint's lists: the owned atoms' positions to
                                 take back after that build, x then y then z (NULL: none) */
    long restart_since;       /* its steps since that build (-1: none) */
    mdl_box box_now;          /* and its box now, to take back after that build */
    int32_t *perm;
    void *scratch;            /* n doubles for permutations */
    cpu_cells cells;
    cpu_ghost_bins ghosts;
    cpu_nlist nl;
    cpu_force_scratch fscratch;
    double pe, virial;        /* of the last energy_virial force call */
    int nose_hoover;          /* the chains of nh act (nose_hoover_init was called) */
    mdl_nh nh;
    double boxscale;          /* the barostat's box factor for this step's two remaps */
    double centre[3], box_hi[3]; /* the dilation's fixed point; the box's upper faces (LAMMPS keeps them) */
    mdl_box built;            /* the box at the last build (the skin test counts its faces' motion) */
    double volume0;           /* the barostat's reference volume (its run's first; a runaway's reference) */
    long step_now;            /* the step begin_step opened */
    double box_moved;         /* > 0: the box's faces moved this far past the skin (unsafe) */
    uint32_t *groups;         /* every atom's groups, by id (mdl_system.groups; NULL: all alone) */
    uint32_t thermo_group;    /* thermo's temperature and kinetic energy are this group's (MDL_GROUP_ALL: every atom's) */
    uint32_t pressure_group;  /* ... and the pressure's kinetic part this one's */
    int thermo_components, pressure_components; /* ... of these velocity components (bits 1 x, 2 y, 4 z; 7 all) */
    double fix_energy;        /* this rank's share of the last force fixes' energy that counts (indent's) */
    double fix_out[MDL_MAX_FORCE_FIXES][4]; /* ... and of each one's outputs (backend.h's force_fix_outputs) */
    mdl_health lost;          /* the first atom this rank found past a fixed face (MDL_HEALTH_LOST + face) */
    struct cpu_analysis {     /* on-the-fly analysis (analysis.c) */
        mdl_analysis_spec spec;
        double *origin;       /* the MSD's origins by id: x y z per atom, every rank all atoms' */
        double *rdf, *msd;    /* this rank's sums (backend.h's mdl_analysis_sums) */
        long samples;
        double volume_sum;
        int failed;           /* a thread's counts could not be allocated */
    } an;
    mdl_observables thermo_rows[MDL_THERMO_SLOTS]; /* reduce_start's results */
    int nslots, slot_fields;
    struct cpu_slot {
        void *a[MDL_FIELD_ARRAYS]; /* a frame in id order (system_field_arrays' order); NULL: not yet used */
        int fields;
        mdl_observables obs;
    } *slots;
} cpu_ctx;

/* The kinetic energy of this rank's atoms. */
static inline double cpu_local_kinetic(cpu_ctx *c)
{
    mdl_system *s = &c->s;
    return 0.5 * c->u.mvv2e * sum_mv2(c->dm.nlocal, s->mass, s->type, s->vx, s->vy, s->vz, c->threads);
}

/* Nose-Hoover's operations of the backend table (backend.h), and the barostat's half-step box
   motion around integrate_first's drift (the box and every owned atom dilated about the centre;
   a box that ran away stops the run). */
int cpu_nose_hoover_init(void *p, const mdl_nh *nh);
int cpu_nose_hoover_state(void *p, mdl_nh *out);
/* A half step of the chains (and barostat), the velocities scaled: start, before the first kick,
   on what they hold; else after the second, on the kicked velocities' temperature and the new
   forces' virial (all ranks' sums); `step`: the step the half belongs to (the start's target). */
int cpu_nose_hoover_half(cpu_ctx *c, int start, long step);
int cpu_remap_box(cpu_ctx *c);

/* At a rebuild (boundary.c): shrink-wrapped faces moved to the atoms; *lost: an atom on some rank
   lies past a non-periodic face (c->lost names this rank's first), and the state is then unusable. */
int cpu_apply_boundary(cpu_ctx *c, int *lost);
/* The backend table's reflect_walls (boundary.c). */
int cpu_reflect_walls(void *p, const mdl_walls *w);

/* Groups (groups.c): a group's kinetic energy and atom count over all ranks; the backend table's
   force_fixes and thermo_group. */
int cpu_group_kinetic(cpu_ctx *c, uint32_t group, int components, double *kinetic, double *count);
int cpu_force_fixes(void *p, const mdl_force_fixes *ff);
int cpu_force_fix_outputs(void *p, double out[][4], int n);
int cpu_force_fix_energy(void *p, const mdl_force_fixes *ff);
int cpu_thermo_group(void *p, uint32_t temperature, int temperature_components, uint32_t pressure,
                     int pressure_components);

/* The observables' operations of the backend table (observe.c). */
/* The observables now into o (all ranks' sums). */
int cpu_reduce(void *p, mdl_observables *o);
int cpu_reduce_start(void *p, int slot);
int cpu_reduce_poll(void *p, int slot, mdl_observables *o, int wait);
int cpu_force_norms(void *p, double out[2]);
int cpu_pressure_tensor(void *p, double kinetic[6], double virial[6]);
int cpu_atom_energies(void *p, double *e);
int cpu_neighbor_rows(void *p, int **rows_out, size_t **start_out); /* the half list as full rows, by id */

/* On-the-fly analysis's operations of the backend table (analysis.c), and its release. */
int cpu_analysis_start(void *p, const mdl_analysis_spec *spec);
int cpu_analysis_sample(void *p, int rdf, int msd_row);
int cpu_analysis_read(void *p, mdl_analysis_sums *out);
int cpu_analysis_resume(void *p, const mdl_analysis_sums *in);
void cpu_analysis_free(cpu_ctx *c);

#endif

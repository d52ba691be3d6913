/* The backend interface: the table of operations that the CPU and GPU backends fill and that
   the driver (run.c) calls, so the backend is a run-time choice. */
#ifndef MDL_BACKEND_H
#define MDL_BACKEND_H

#include "../config/config.h"
#include "health.h"
#include "../system/potential.h"
#include "../physics/analysis.h"
#include "../physics/langevin.h"
#include "../physics/nose_hoover.h"
#include "../physics/observables.h"
#include "../physics/rng.h"
#include "../physics/thermostat.h"
#include "../system/system.h"
#include "../physics/units.h"

/* Neighbor-list methods and GPU list layouts (backend parameters, named in the config). */
enum mdl_nl_method { MDL_NL_CELL, MDL_NL_BRUTE, MDL_NL_BRUTE_ATOMIC };
enum mdl_nl_layout { MDL_NL_TRANSPOSED, MDL_NL_ROW };

/* Everything a backend needs to know about the run, fixed at creation: typed values, never the
   configuration itself. */
typedef struct {
    const mdl_units *units;
    const mdl_pair_table *pairs;
    double timestep, skin;
    int check;         /* steps between skin tests (physics/rebuild.h: LAMMPS's every) */
    int delay;         /* no test before this many steps after a build */
    int distance_check; /* 0: rebuild when due, without the skin test */
    enum mdl_nl_method method;
    enum mdl_nl_layout layout;
    int max_neighbors; /* GPU list capacity per atom at the start; 0: from the density */
    int threads;       /* CPU threads (0: OpenMP default) */
    int grid[3];       /* bricks along x, y, z, one per rank (0 0 0: one) */
    double rghost;     /* the ghost cutoff: at least the largest list cutoff of the run */
    /* the GPU's choices that a user makes ([neighbor] outer_skin, list, grow; [run] gpu_comm,
       gpu_arrays, gpu_step; [output] rebuild_timeline: docs/CONFIG.md); the CPU has none of them */
    double outer_skin; /* one rank: lists pruned from an outer list this much longer (0: built directly) */
    enum mdl_list_form list_form;
    int grow;          /* the list grows past max_neighbors (0: rows past it take a slower pass) */
    enum mdl_gpu_comm comm;
    enum mdl_gpu_arrays arrays;
    enum mdl_gpu_step step_mode; /* one GPU: graphs, the persistent step, or the size rule's choice (auto) */
    int rebuild_timeline; /* ranks: the rebuild to time stage by stage (0: none) */
    /* a restart's lists: the positions at its checkpoint's last build (N x 3, by id) and the steps
       since; the backend builds from them, its atoms in the order of that build, so that the run
       goes on as if never stopped (NULL: from the positions given) */
    const double *build;
    long build_since;
    const mdl_box *build_box;  /* the box they were built in (a barostat's moves it since) */
    const int32_t *build_order; /* N, by id: each atom's place in the order of that build, where the
                                   backend that wrote it keeps one not of positions alone (one GPU's
                                   order follows from the builds before; NULL: none) */
} mdl_setup;

/* The backend set-up of a configured run (method and layout by name). */
mdl_setup backend_setup(const mdl_config *cfg, const mdl_units *u, const mdl_pair_table *pt);

typedef struct {
    double pairs;        /* in the neighbor list at the last build */
    size_t device_bytes; /* device memory held (0 on the CPU) */
    long builds;         /* neighbor list builds after the set-up build */
    long dangerous;      /* builds on the first step a check was allowed (as LAMMPS counts them); without
                            the distance check, builds that found an atom past half the skin */
    long last_build;     /* the step of the last build */
    int capacity;        /* GPU: list entries per atom (0 on the CPU) */
    double comm_seconds; /* this rank's time in exchanges with other ranks */
    size_t owned, ghosts; /* this rank's atoms and ghost atoms */
    const char *exchange; /* how ranks exchange atoms (NULL: one rank) */
    long grown;          /* GPU ranks: times this rank's per-atom arrays grew for arrivals and ghosts */
    long folded;         /* steps whose chained kicks ran in the force pass (MDL_FORCES_THEN_KICKS) */
    long persistent;     /* steps made by advance_plain */
    long prunes;         /* pruned lists: inner lists made from the outer list, builds not counted */
    double outer_skin;   /* pruned lists: the outer list's skin (0: lists not pruned) */
    const char *cell_sort; /* GPU: how atoms are sorted by cell (NULL: they are not) */
    mdl_box built;       /* the box the list was last built in (a checkpoint keeps it with its build; the
                            GPU: its box, where its build is kept: a fixed one) */
} mdl_backend_stats;

/* what compute_forces computes: forces; forces, energy and virial; energy and virial only (the
   forces given at creation, a restart's, stay as they are); forces, with the step's next call
   integrate_second(then_first = 1) and nothing in between: the backend may fold those kicks and
   the drift into the force pass (the GPU on one rank does, and writes no forces), and that call
   then has nothing left to do; forces and the virial alone, for a barostat's steps (the energy of
   the last call with energy is kept; a backend may compute it anyway) */
/* On-the-fly analysis's sums since analysis_start, all ranks' (arrays the caller sized from the
   spec: npairs * rdf_bins and msd_rows * ntypes) */
typedef struct {
    double *rdf;       /* [pair][bin]: list pairs within rdf_max, rdf_pair_weight times each */
    long rdf_samples;
    double volume_sum; /* the box's volume at each RDF sample, summed */
    double *msd;       /* [row][species]: sum over the species' atoms of |unwrapped - origin|^2 */
    double *origin;    /* natoms x 3 by id: the MSD's origin (read: given where wanted, else NULL) */
} mdl_analysis_sums;

enum { MDL_FORCES, MDL_FORCES_ENERGY, MDL_ENERGY_ONLY, MDL_FORCES_THEN_KICKS, MDL_FORCES_VIRIAL };
/* What the force pass of `what` sums besides the forces (physics/pair_styles.h's enum mdl_ev). */
static inline int mdl_ev_of(int what)
{
    return what == MDL_FORCES_VIRIAL ? MDL_EV_VIRIAL
           : what == MDL_FORCES_ENERGY || what == MDL_ENERGY_ONLY ? MDL_EV_ENERGY
                                                                  : MDL_EV_NONE;
}
enum { MDL_THERMOSTAT_POST_FORCE = 1, MDL_THERMOSTAT_END_OF_STEP = 2 };
#define MDL_THERMO_SLOTS 8
#define MDL_STEP_KINDS 16

typedef struct {
    const char *name;
    /* allocate the backend's state for s, the whole system (its whole state is copied:
       positions, velocities, forces, images, species, ids, box, masses); with setup->grid, the
       CPU keeps the atoms of this rank's brick (domain.c) */
    int (*create)(void **ctx, const mdl_setup *setup, const mdl_system *s);
    void (*destroy)(void *ctx);
    /* after integrate_first at every step: every `check` steps since the last build the skin test
       and, when an atom moved more than skin/2, a rebuild -- decided where the state is (GPU: on
       the device; the host does not wait; several GPU ranks may rebuild at end_step). An atom
       past the whole skin, or a position not finite, makes the state unsafe: no more rebuilds,
       the step kernels stop, health reports the step */
    int (*update_neighbors)(void *ctx, long step);
    /* *unsafe_step: the step update_neighbors found the state unsafe, or -1 (GPU: as far as the
       device has got; never waits) */
    int (*health)(void *ctx, long *unsafe_step);
    /* after an unsafe state or non-finite observables: the atom at fault, found on the host */
    int (*diagnose)(void *ctx, mdl_health *h);
    /* wrap into the box, (re)sort, build the list at once (set-up, `mdlite neighbors`) */
    int (*build_neighbors)(void *ctx);
    /* a new skin, between steps (skin = auto): the list is built again at once */
    int (*set_skin)(void *ctx, double skin);
    /* MDL_FORCES, MDL_FORCES_ENERGY (thermo and frame steps) or MDL_ENERGY_ONLY (a restart's set-up) */
    int (*compute_forces)(void *ctx, int what);
    /* a step's calls are bracketed by begin_step and end_step. kind (0..MDL_STEP_KINDS-1) names
       the sequence of calls that will follow (steps of one kind make the same calls with the same
       arguments, but for `step`); -1: a step whose calls are not to be recorded. The GPU records
       each kind once as a CUDA graph and replays it, its calls in between doing nothing (the
       Langevin kernel then takes the step from the device's step count). *redo: none of the
       calls since update_neighbors took effect, because a rebuild was found due that the backend
       has now made (several GPU ranks: the step was queued before the ranks' shared skin
       decision reached the host); the caller makes them again, then calls end_step again */
    int (*begin_step)(void *ctx, long step, int kind);
    int (*end_step)(void *ctx, int *redo);
    /* plain steps from `step` on, at most `steps` of them, made at once where the backend can: steps
       of velocity Verlet alone, with Langevin's force (langevin, seed; NULL: none) or with the
       backend's Nose-Hoover chains (nose_hoover_init), and no other thermostat, fix, wall or barostat, no energy, none looked at in between (each chained into
       the next, the last step's chained into the first), each what
       begin_step .. end_step would make of it, to the bit. *done: how many it made (0: none; the
       caller makes the next one itself). The GPU makes them in one launch (docs/ARCHITECTURE.md's
       rule), stopping before a step that rebuilds the lists, and waits for it. NULL: a backend
       without. */
    int (*advance_plain)(void *ctx, long step, long steps, const mdl_langevin *langevin, uint64_t seed, long *done);
    /* velocity Verlet: half kick + drift, then (after forces) the second half kick; with
       then_first, the next step's half kick + drift follow at once (GPU: in the same pass over
       the atoms, the same arithmetic) and that step makes no integrate_first call */
    int (*integrate_first)(void *ctx);
    int (*integrate_second)(void *ctx, int then_first);
    /* thermostat primitives; the core decides which, when and how strongly (thermostat.c):
       add Langevin's force (noise from the block `step` of each atom's subsequence), and scale
       velocities by thermostat_factor(s, current T, dof, step) (rescale, Berendsen, csvr) */
    int (*langevin)(void *ctx, const mdl_langevin *p, uint64_t seed, long step);
    /* LAMMPS's fix wall/reflect after the drift: each atom past a wall mirrored back (NULL: a
       backend without walls; a run with walls is refused on it) */
    int (*reflect_walls)(void *ctx, const mdl_walls *w);
    int (*scale_to_temperature)(void *ctx, const mdl_scaling *s, long step);
    /* the fixes on groups' forces (physics/groups.h), in order, after the thermostat's force at every
       step, at the set-up's forces and at a minimiser's every evaluation; and the groups whose
       temperature and kinetic energy, and whose kinetic part of the pressure (scalar and tensor),
       the observables report from then on (LAMMPS's thermo_modify temp; MDL_GROUP_ALL: every atom), of
       these velocity components (bits 1 x, 2 y, 4 z; 7 all: LAMMPS's temp/partial). NULL: a backend without groups (a
       run that uses groups is refused on it, at create: mdl_system.groups) */
    int (*force_fixes)(void *ctx, const mdl_force_fixes *ff);
    int (*thermo_group)(void *ctx, uint32_t temperature, int temperature_components, uint32_t pressure,
                        int pressure_components);
    /* each force fix's outputs of its last evaluation, summed over every rank (collective): out[k] its
       energy (counted or not) and, of a wall, the force on it (LAMMPS's f_ID[k]), of an indenter the
       force on it along x, y, z. NULL: thermo's f_ID columns are refused on this backend */
    int (*force_fix_outputs)(void *ctx, double out[][4], int n);
    /* the force fixes' energy and outputs of the forces as they stand (a restart's, the fixes in them
       already), the forces left as they are. NULL: a backend without groups */
    int (*force_fix_energy)(void *ctx, const mdl_force_fixes *ff);
    /* Nose-Hoover's chains and barostat (physics/nose_hoover.h), owned where the atoms are (GPU:
       in device memory; no host wait per step), made part of the integrator as LAMMPS's fix nvt
       replaces fix nve's. init, after the set-up's forces with energy: the chains' constants and
       state (a checkpoint's, or at rest; vol0 = 0: this box's volume), masses set on this
       temperature and virial. From then on integrate_first begins with nh_start_of_step (the
       velocities scaled; with a barostat the box and atoms dilated by its factor before and after
       the drift: a runaway box stops the run, MDL_ERUN, naming the step) and integrate_second ends
       with nh_end_of_step on the kicked velocities' temperature and the last forces' virial (a
       barostat's steps compute it: MDL_FORCES_VIRIAL); with then_first the next step's start
       follows within it. state: the chains now (waits for the device). reduce_* and snapshots
       report the box and ecouple. nh = NULL: the chains stop, the integrator is velocity Verlet
       again and a barostat's box stays where it is (a stage of another ensemble follows). */
    int (*nose_hoover_init)(void *ctx, const mdl_nh *nh);
    int (*nose_hoover_state)(void *ctx, mdl_nh *out);
    /* observables without stalls: start queues the reduction into slot (0..MDL_THERMO_SLOTS-1)
       of the kinetic energy now and the potential energy and virial of the last force call with
       energy, with its copy to host memory (CPU: computes it now); poll fills o when it has
       arrived and returns MDL_OK, or MDL_NOT_READY (wait = 0), or waits for it (wait = 1) */
    int (*reduce_start)(void *ctx, int slot);
    int (*reduce_poll)(void *ctx, int slot, mdl_observables *o, int wait);
    /* thermo's extras, between steps, waited for (every rank: all ranks' sums): the forces' largest
       component and two-norm (LAMMPS's fmax, fnorm) into out[0], out[1]; sum m v_a v_b (in energy
       units) and the last force call's virial tensor, xx yy zz xy xz yz (LAMMPS's pxx ... pyz);
       NULL where the backend has none */
    int (*force_norms)(void *ctx, double out[2]);
    int (*pressure_tensor)(void *ctx, double kinetic[6], double virial[6]);
    /* on-the-fly analysis (physics/analysis.h), between steps: start sets the MSD's origin (every
       atom's unwrapped position now) and empties the sums; sample adds the RDF's pairs of the
       current list within rdf_max (rdf) and the MSD's sums into row msd_row (>= 0) (GPU: queued,
       no wait); read waits and gives the sums of all ranks */
    int (*analysis_start)(void *ctx, const mdl_analysis_spec *spec);
    int (*analysis_sample)(void *ctx, int rdf, int msd_row);
    int (*analysis_read)(void *ctx, mdl_analysis_sums *out);
    /* after start: the sums and origin of a checkpoint (all ranks' totals, given to every rank)
       instead of empty ones and this state's positions, so that a restart continues the averages */
    int (*analysis_resume)(void *ctx, const mdl_analysis_sums *in);
    /* the current full list in id order: row i (the ids of i's neighbors, in no particular order)
       is rows[start[i] .. start[i+1]) (both malloc'ed; `mdlite neighbors`) */
    int (*neighbor_rows)(void *ctx, int **rows, size_t **start);
    /* pairs in the list, builds and device memory, for the summary (waits for queued work) */
    int (*stats)(void *ctx, mdl_backend_stats *out);
    /* wait for queued work (the CPU's calls are synchronous: nothing to wait for) */
    int (*synchronize)(void *ctx);
    /* asynchronous snapshots for the writer thread (writer.c). A slot holds one frame: the fields
       asked for (MDL_DUMP_* bits) in id order and the observables of the last energy_virial force
       call. alloc: a table of nslots slots, each allocated on its first use with room for
       max_fields; start (main thread) captures the state into a slot (GPU: queued on the compute
       stream, into id order in device memory; never waits); finish (writer thread) completes it
       (GPU: copies it to pinned memory on a copy stream and waits for that), points frame's
       per-atom arrays of those fields into the slot (the other arrays are left alone) and fills
       obs */
    int (*snapshot_alloc)(void *ctx, int nslots, int max_fields);
    int (*snapshot_start)(void *ctx, int slot, int fields);
    int (*snapshot_finish)(void *ctx, int slot, mdl_system *frame, mdl_observables *obs);
    /* minimisation: the atoms moved to xyz (unwrapped, x y z per atom in id order, every atom on
       every rank), wrapped with their images, and the lists built again (one GPU; CPU ranks) */
    int (*set_positions)(void *ctx, const double *xyz);
    /* FIRE: the atoms' velocities set to v (id order, every atom's on every rank), as LAMMPS's FIRE
       moves the atoms' own */
    int (*set_velocities)(void *ctx, const double *v);
    /* libmdlite: the atoms moved to xyz as set_positions moves them, the list kept while no atom is
       more than half the skin from where it was built (else built again) */
    int (*move_atoms)(void *ctx, const double *xyz);
    /* each atom's potential energy (id order, every atom's on every rank) at the last force call
       with energy: half of each pair's, and EAM's embedding energy (no tail correction, as LAMMPS's
       pe/atom); NULL where the backend has none */
    int (*atom_energies)(void *ctx, double *e);
    /* the initial velocities' normal deviates (rng.h), drawn where this backend draws */
    mdl_normals_fn draw_normals;
} mdl_backend_ops;

extern const mdl_backend_ops mdl_cpu_backend;
#ifdef MDLITE_HAVE_GPU
extern const mdl_backend_ops mdl_gpu_backend;
#endif

/* The backend named "cpu" or "gpu"; NULL (with a message) when this build has no such backend. */
const mdl_backend_ops *backend_lookup(const char *name);
/* The observables now, waited for (through thermo slot 0: not while rows are queued). */
int backend_observe(const mdl_backend_ops *ops, void *ctx, mdl_observables *o);

#endif

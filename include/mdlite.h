/* libmdlite: the mdlite molecular-dynamics engine as a C11 library, behind this one header. */
#ifndef MDLITE_H
#define MDLITE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A simulation: opaque, made by mdlite_new and freed by mdlite_free. Handles share nothing: any
   number of them may live in one process; one thread at a time uses a handle. The library keeps
   one table of the handles alive, so that a freed one is recognised and refused. */
typedef struct mdlite_sim mdlite_sim;

/* Every call returns one of these. Where it is not MDLITE_OK, mdlite_message says what is wrong
   (naming the key, line, array or value), and the handle is as it was before the call. */
enum {
    MDLITE_OK = 0,
    MDLITE_ERUN = 1,   /* the run went wrong: a position not finite, an atom lost, no memory, no GPU */
    MDLITE_EINPUT = 2, /* bad input: a config key or value, an array, a file */
    MDLITE_ESTATE = 3  /* not now: nothing loaded yet, or not a live handle (freed, or never made) */
};

/* An empty handle (NULL: out of memory). It prints nothing unless mdlite_set_echo asks it to. */
mdlite_sim *mdlite_new(void);
/* Frees the handle and everything it holds; NULL or a handle already freed: nothing. */
void mdlite_free(mdlite_sim *sim);
/* What the handle's last call said (errors, warnings and notes, one "kind: text" line each; "" when
   nothing). For a handle that is not alive (NULL, freed), what this thread's last such call said. */
const char *mdlite_message(const mdlite_sim *sim);
/* echo = 1: messages go to stderr and a run's output to stdout as they come (as `mdlite run`). */
int mdlite_set_echo(mdlite_sim *sim, int echo);

/* How a config is loaded: overrides "section.key=value" applied after the file, in order (`mdlite
   run --set`); a LAMMPS script's variables (-var NAME VALUE...: nvars names, counts[k] values each,
   values flattened); command, the command line recorded in the outputs' metadata (NULL: none);
   run_only = 1: the config is for mdlite_run alone (no system is set up at load). */
typedef struct {
    int nsets;
    const char *const *sets;
    int nvars;
    const char *const *var_names;
    const int *var_counts;
    const char *const *var_values;
    const char *command;
    int run_only;
} mdlite_load_options;

/* A simulation from a config: an INI file or a LAMMPS input script, as `mdlite run` reads them
   (docs/CONFIG.md, docs/LAMMPS.md), its system set up and its first forces computed. opt NULL:
   no overrides. A handle that holds a simulation drops it first. */
int mdlite_load_file(mdlite_sim *sim, const char *path, const mdlite_load_options *opt);
/* The same from text, named `name` in messages (relative paths in it are the working folder's). */
int mdlite_load_text(mdlite_sim *sim, const char *text, const char *name, const mdlite_load_options *opt);

/* Atoms given as arrays. Positions and the cell in one frame: edge vectors a, b, c from the origin,
   any orientation (right-handed; the engine turns them into LAMMPS's restricted form and every
   vector it returns back into this frame). Every cell is periodic. */
typedef struct {
    size_t natoms;
    int nspecies;                /* at most 8 */
    const char *const *species;  /* nspecies names: an EAM file's elements where the potential is one */
    const double *masses;        /* nspecies masses (NULL: [system] mass.X or mass, or the EAM file's) */
    const int *types;            /* natoms species indices, 0 .. nspecies-1 */
    const double *positions;     /* natoms x 3 */
    const double *cell;          /* 9: a, b, c */
    const double *velocities;    /* natoms x 3 (NULL: at rest) */
} mdlite_atoms;

/* A simulation of given atoms under config keys "section.key" = value ("system.units" = "metal",
   "potential.style" = "eam/alloy", "potential.file" = "Cu_u3.eam", "neighbor.skin" = "1.0",
   "run.backend" = "gpu", ...): every key of docs/CONFIG.md but those that make atoms (lattice,
   input, box, temperature). Messages name a key by its place: "keys:3" is keys[2]. */
int mdlite_load_atoms(mdlite_sim *sim, const mdlite_atoms *atoms, int nkeys, const char *const *keys,
                      const char *const *values);

/* The state. Arrays are natoms x 3, by atom (the order given, or a config's atom ids), in the
   caller's frame; positions unwrapped (where they were set, plus the motion since). */
int mdlite_natoms(mdlite_sim *sim, size_t *natoms);
int mdlite_nspecies(mdlite_sim *sim, int *nspecies);
int mdlite_get_positions(mdlite_sim *sim, double *positions);
int mdlite_set_positions(mdlite_sim *sim, const double *positions);
int mdlite_get_velocities(mdlite_sim *sim, double *velocities);
int mdlite_set_velocities(mdlite_sim *sim, const double *velocities);
/* The cell's edge vectors a, b, c (9). set: scale_atoms = 1 keeps the atoms' fractional
   coordinates (they move with the cell), 0 keeps their positions. */
int mdlite_get_cell(mdlite_sim *sim, double cell[9]);
int mdlite_set_cell(mdlite_sim *sim, const double cell[9], int scale_atoms);
int mdlite_get_types(mdlite_sim *sim, int *types);
int mdlite_set_types(mdlite_sim *sim, const int *types);
/* The step count: 0 at load; steps and minimisation iterations add to it. */
int mdlite_get_step(mdlite_sim *sim, long *step);

/* Of the positions now, computed once and kept until the state changes: the potential energy
   (the tail correction included where the config asks for it); the forces; the virial tensor
   W_ab = sum r_a f_b, xx yy zz xy xz yz, in energy units (the stress is -W / volume; CPU backend);
   each atom's potential energy (half of each pair's, EAM's embedding; CPU backend). A neighbor
   list is kept between calls while no atom has moved more than half the skin. */
int mdlite_energy(mdlite_sim *sim, double *energy);
int mdlite_forces(mdlite_sim *sim, double *forces);
int mdlite_virial(mdlite_sim *sim, double virial[6]);
int mdlite_atom_energies(mdlite_sim *sim, double *energies);

/* nsteps of the configured ensemble ([run] ensemble, timestep, thermostat) from the state now;
   writes no file. A Nose-Hoover chain goes on from the last call's. */
int mdlite_step(mdlite_sim *sim, long nsteps);
/* LAMMPS's minimize etol ftol maxiter maxeval with min_style style ("cg" or "fire"; NULL: "cg"),
   the cell fixed. */
int mdlite_minimize(mdlite_sim *sim, const char *style, double etol, double ftol, long maxiter, long maxeval);

/* The thermo observables now, totals in the config's units. */
typedef struct {
    long step;
    double time, temperature, kinetic, potential, total, pressure, volume;
} mdlite_thermo;
int mdlite_get_thermo(mdlite_sim *sim, mdlite_thermo *row);

/* The configured run with every output it configures (thermo file, trajectory, checkpoint, data
   file, analysis): what `mdlite run` does. From a config (file or text), on its own state, not
   the handle's. restart: a checkpoint to continue (NULL: none); profile: a timeline file (NULL:
   none); quiet: no table on stdout; overwrite: replace outputs that exist. Returns the status of
   `mdlite run` (0, 1, 2, or 128 + the signal that stopped it). */
typedef struct {
    const char *restart;
    const char *profile;
    int quiet;
    int overwrite;
} mdlite_run_options;
int mdlite_run(mdlite_sim *sim, const mdlite_run_options *opt);
/* The state now as a LAMMPS data file (the engine's box frame). */
int mdlite_write_data(mdlite_sim *sim, const char *path);

/* "0.1.0"; 1 when this library has the GPU backend. */
const char *mdlite_version(void);
int mdlite_has_gpu(void);
/* A program that runs under mpirun calls these first and last (ranks of one run); the status it
   returns is mdlite_finish's. Without MPI in the build: nothing. */
int mdlite_init(int *argc, char ***argv);
int mdlite_finish(int status);

#ifdef __cplusplus
}
#endif

#endif

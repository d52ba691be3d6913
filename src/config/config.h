/* The run configuration: every key of DESIGN.md's INI schema, its defaults and its validation. */
#ifndef MDL_CONFIG_H
#define MDL_CONFIG_H

#include "lammps_script.h"
#include "../util/strbuf.h"
#include "../physics/boundary.h"
#include "../physics/computes.h"
#include "../physics/crystal.h"
#include "../physics/ensembles.h"
#include "../physics/groups.h"
#include "../physics/nose_hoover.h"
#include "../physics/pair_styles.h"
#include "../physics/species.h"
#include "../util/util.h"

#include <stdio.h>

enum mdl_input_format { MDL_INPUT_AUTO, MDL_INPUT_DATA, MDL_INPUT_XYZ, MDL_INPUT_XY };
enum mdl_list_form { MDL_LIST_AUTO, MDL_LIST_PLAIN, MDL_LIST_PACKED };
enum mdl_gpu_comm { MDL_COMM_AUTO, MDL_COMM_DIRECT, MDL_COMM_NCCL, MDL_COMM_MPI };
enum mdl_gpu_arrays { MDL_ARRAYS_SPARE, MDL_ARRAYS_TIGHT };
enum mdl_gpu_step { MDL_GPU_STEP_AUTO, MDL_GPU_STEP_GRAPHS, MDL_GPU_STEP_PERSISTENT };
enum mdl_dump_field { MDL_DUMP_POSITION = 1, MDL_DUMP_VELOCITY = 2, MDL_DUMP_FORCE = 4, MDL_DUMP_IMAGE = 8,
                      MDL_DUMP_ALL = 15,
                      MDL_DUMP_BUILD = 16 /* the positions at the last list build: a checkpoint's, where the
                                             backend keeps its lists' order by position (the CPU) */ };

#define MDL_MAX_STAGES 64


/* One key as it was set: where it came from, for messages naming file:line. */
#define MDL_AUTO (-2.0) /* a double key given as "auto" (e.g. [neighbor] skin) */

typedef struct {
    char section[32];
    char key[64];
    char *value;
    char origin[MDL_PATH_LEN + 32]; /* "file:line" or "--set" */
    int inherited;            /* a stage's from the configuration or stages before it (no warnings again) */
} mdl_entry;

/* LAMMPS's FIRE 2.0 parameters (min_modify; its defaults: 20, 1.1, 0.5, 0.25, 0.99, 10, 0.02,
   eulerimplicit, yes, yes, 2000). */
enum { MDL_FIRE_EULER_IMPLICIT, MDL_FIRE_VERLET, MDL_FIRE_LEAPFROG, MDL_FIRE_EULER_EXPLICIT };
typedef struct {
    long delaystep, vdfmax;
    double dtgrow, dtshrink, alpha0, alphashrink, tmax, tmin;
    int integrator, halfstepback, initialdelay;
} mdl_fire_params;

typedef struct {
    char a[MDL_NAME_LEN], b[MDL_NAME_LEN];
    double param[MDL_PAIR_MAX_PARAMS]; /* the style's keys' values, in its order */
    double cutoff;                     /* < 0: the global cutoff */
} mdl_pair_coeff;

typedef struct mdl_config_s {
    char path[MDL_PATH_LEN];  /* the config file */
    char *text;               /* its whole text, kept for output metadata */
    char command[2048];       /* the command line that ran it ("" outside `mdlite run`; output metadata) */
    char restart_from[MDL_PATH_LEN]; /* --restart's file ("": a new run; output metadata) */

    /* [system] */
    char units[16];
    char lattice[8];          /* "" when input is used */
    char input[MDL_PATH_LEN]; /* resolved path, "" when a lattice is used */
    int input_format;         /* MDL_INPUT_AUTO (from the name and the first line), _DATA, _XYZ, _XY */
    double density, lattice_constant; /* 0 when not given */
    int cells[3];
    char set_types[MDL_PATH_LEN]; /* edits of the atoms' species once made: "type A B, block X0 X1 Y0 Y1 Z0 Z1 B, all B" */
    char groups[MDL_PATH_LEN]; /* LAMMPS's groups as made once the atoms are: "NAME HOW ARGS, ..." (HOW block,
                                  type, id, union, subtract, intersect, empty); a name again adds atoms */
    int ngroups;              /* ... their names, all first: group k is bit 1 << k */
    char group_name[MDL_MAX_GROUPS][MDL_GROUP_NAME_LEN];
    int groups_used;          /* a stage's fixes, thermostat or thermo act on a group other than all */
    char lattice_regions[MDL_PATH_LEN]; /* the lattice's points in regions, each of a species (LAMMPS's
                                           create_atoms TYPE region): "A block ..., B sphere ..." */
    int delete_atoms_first;   /* delete_atoms before the velocities are made (LAMMPS's delete_atoms before any velocity
                                 command), not after their edits */
    char delete_atoms[MDL_PATH_LEN]; /* regions whose atoms are removed after the velocities (LAMMPS's
                                        delete_atoms region): "block ..., sphere ..." */
    char velocity_edits[MDL_PATH_LEN]; /* LAMMPS's velocity commands after the initial velocities:
                                          "create|set|ramp|scale GROUP ARGS, ..." (box units) */
    char stage_velocity_edits[MDL_PATH_LEN]; /* a stage's own, made as it begins (LAMMPS's velocity between
                                                runs), in velocity_edits' form; "": none */
    int dimension;            /* 3, or 2: a 2-d system (LAMMPS's dimension 2), its atoms in the plane z = 0 */
    char boundary[MDL_PATH_LEN]; /* LAMMPS's boundary: per dimension p, or f, s, m for both faces or two
                                    letters (lower, upper face); "" is p p p */
    double mass;              /* for species without their own mass.X */
    int nmass;
    char mass_species[MDL_MAX_SPECIES][MDL_NAME_LEN];
    double mass_value[MDL_MAX_SPECIES];
    double temperature;       /* < 0: not given */
    unsigned long seed;
    int velocities;           /* 0 maxwell (mdlite's), 1 lammps-all, 2 lammps-geom (LAMMPS's velocity create) */
    int velocity_dist;        /* lammps-*: 0 uniform, 1 gaussian */
    double box[3];            /* all 0: not given */
    double box_origin[3];     /* the box's lower corner (default 0 0 0) */
    double tilt[3];           /* xy xz yz: a triclinic box (LAMMPS's restricted form); 0 0 0 orthogonal */
    double lattice_a[3][3];   /* lattice = custom: a1 a2 a3 (default the unit vectors) */
    mdl_lattice_basis lattice_basis; /* lattice = custom: the basis atoms in fractions of a1 a2 a3 */
    int lattice_orient[9];    /* the box's x, y, z in the lattice's axes (default 1 0 0, 0 1 0, 0 0 1) */
    double lattice_origin[3]; /* a fraction of the spacing the lattice is shifted by */
    double lattice_spacing[3]; /* all 0: the rotated cell's bounding box (LAMMPS's default) */
    int nspecies;             /* lattice species and their fractions */
    char species[MDL_MAX_SPECIES][MDL_NAME_LEN];
    double composition[MDL_MAX_SPECIES];

    /* [potential] */
    int style;                /* enum mdl_pair_style */
    double param[MDL_PAIR_NSTYLES][MDL_PAIR_MAX_PARAMS]; /* each style's global keys (NaN: not given) */
    double cutoff;
    int shift;
    int tail;                 /* [potential] tail: LAMMPS's pair_modify tail yes (energy and pressure) */
    char exclude[MDL_PATH_LEN]; /* [potential] exclude: species pairs that do not interact, "A B, C D" */
    int npair;
    mdl_pair_coeff pair[MDL_MAX_SPECIES * (MDL_MAX_SPECIES + 1) / 2];
    char eam_file[MDL_PATH_LEN];  /* eam/alloy, eam/fs: file (resolved; "" when not given) */
    int nfile;                    /* eam: file.X, each species' funcfl file */
    char file_species[MDL_MAX_SPECIES][MDL_NAME_LEN];
    char file_path[MDL_MAX_SPECIES][MDL_PATH_LEN];
    int nelement;                 /* eam/alloy, eam/fs: element.X, the file's element species X is */
    char element_species[MDL_MAX_SPECIES][MDL_NAME_LEN];
    char element_name[MDL_MAX_SPECIES][MDL_NAME_LEN];

    /* [neighbor] */
    double skin;
    int skin_auto;            /* skin = auto: tuned by the run (skin_tuner.c) from the default */
    int check;                /* steps between skin tests (LAMMPS's every) */
    int delay;                /* no test before this many steps after a build (LAMMPS's delay) */
    int distance_check;       /* 0: rebuild when due, without the skin test (LAMMPS's check no) */
    char method[16];
    char layout[16];
    int max_neighbors;        /* 0: auto */
    double outer_skin;        /* GPU, one rank: lists pruned from an outer list this much longer; 0: off */
    int list_form;            /* GPU: MDL_LIST_AUTO, MDL_LIST_PLAIN, MDL_LIST_PACKED */
    int grow;                 /* GPU: the list grows past max_neighbors (else rows past it take a slower pass) */

    /* [run] */
    char backend[8];
    long steps;
    long reset_timestep;      /* a stage's: the step number its first step is shown as (LAMMPS's reset_timestep
                                 before its run), the later stages counting on from it; -1: none */
    double timestep;
    int ensemble;
    double target_temperature; /* < 0: not given */
    double final_temperature;  /* the target at the stage's last step (LAMMPS's Tstop); < 0: not given (the target's) */
    double tau;
    int every;
    int chain;                /* Nose-Hoover: thermostats in the chain (LAMMPS's tchain) */
    double target_pressure;   /* npt-nose-hoover (LAMMPS's Pstart = Pstop) */
    double pressure_tau;      /* the barostat's relaxation time (LAMMPS's Pdamp); < 0: not given */
    int pressure_chain;       /* thermostats on the barostat (LAMMPS's pchain) */
    int min_style;            /* ensemble = minimize: 0 cg */
    int fresh_chains;         /* a stage's own chains = fresh: Nose-Hoover's chains and barostat start at rest
                                 although the stage before ran the same ensemble (a new LAMMPS fix) */
    double etol, ftol;        /* minimize: LAMMPS's stopping tolerances (0: not used) */
    long maxeval;             /* minimize: force evaluations at most (0: no limit) */
    double dmax;              /* minimize: the largest move of a line search's first step (0: LAMMPS's 0.1) */
    char fire_keys[MDL_PATH_LEN]; /* min_style fire: LAMMPS's min_modify FIRE keywords and values, as given */
    mdl_fire_params fire;     /* ... read: LAMMPS's defaults where not given */
    char wall_keys[MDL_PATH_LEN]; /* [run] wall_reflect: FACE COORD|EDGE ... (LAMMPS's fix wall/reflect, box units) */
    mdl_walls walls;          /* ... read */
    char force_fix_keys[MDL_PATH_LEN]; /* [run] force_fixes: "setforce|addforce|aveforce GROUP FX FY FZ, ..." */
    mdl_force_fixes force_fixes; /* ... read, their groups as bits */
    char force_fix_ids[MDL_PATH_LEN]; /* their `id NAME` words for thermo's f_ID: "NAME=wall|indent:K,K;..." */
    char thermostat_group_name[MDL_PATH_LEN]; /* the group a scaling or Langevin thermostat acts on */
    uint32_t thermostat_group; /* ... its bit */
    int thermostat_components; /* ... the velocity components it measures and scales (bits 1 x, 2 y, 4 z; 7 all:
                                  LAMMPS's compute temp/partial as a scaling thermostat's fix_modify temp) */
    double rescale_window;    /* nvt-rescale: no rescaling while |T - target| is within it (LAMMPS's window) */
    int threads;              /* 0: OpenMP default */
    int processors[3];        /* MPI bricks along x, y, z (product = ranks); 0 0 0: auto */
    int gpu_comm;             /* GPU ranks: MDL_COMM_AUTO, _DIRECT, _NCCL, _MPI */
    int gpu_arrays;           /* GPU ranks: MDL_ARRAYS_SPARE (room for arrivals) or MDL_ARRAYS_TIGHT */
    int gpu_step;             /* one GPU: enum mdl_gpu_step (the persistent step where the size rule says: auto) */

    /* [output] */
    int thermo;
    char thermo_file[MDL_PATH_LEN];
    char thermo_columns[MDL_PATH_LEN]; /* LAMMPS's thermo_style custom names ("": mdlite's columns) */
    char thermo_variables[MDL_PATH_LEN]; /* the formulas of its v_NAME columns: "NAME=FORMULA;..." */
    char thermo_balance_id[64]; /* LAMMPS's fix balance's ID and threshold: its f_ID columns on one rank */
    char thermo_compute_keys[MDL_PATH_LEN]; /* [output] thermo_computes: "ID STYLE GROUP ARGS; ..." (c_ID columns) */
    mdl_computes computes;    /* ... read, their groups as bits */
    double balance_threshold;
    int thermo_file_mdlite;   /* the CSV keeps mdlite's columns (thermo_file_columns = mdlite) */
    int thermo_norm;          /* energies per atom (LAMMPS's thermo_modify norm yes) or totals */
    char thermo_format[MDL_PATH_LEN]; /* the table's formats: "line=F F ...;int=F;float=F;N=F" ("": LAMMPS's) */
    char thermo_group_name[MDL_PATH_LEN]; /* the group of thermo's temperature (LAMMPS's thermo_modify temp) */
    uint32_t thermo_group;    /* ... its bit */
    int thermo_components;    /* ... its velocity components (bits 1 x, 2 y, 4 z; 7 all) */
    char thermo_pressure_group_name[MDL_PATH_LEN]; /* the group of the pressure's kinetic part ("": thermo_group's;
                                                      LAMMPS's thermo_press keeps thermo_modify temp's) */
    uint32_t thermo_pressure_group;
    int thermo_pressure_components;
    int thermo_multi;         /* the table as LAMMPS's thermo_modify line multi (keyword = value lines) */
    char log_file[MDL_PATH_LEN]; /* what the run prints, also into this file ("": none) */
    int log_append;
    char trajectory[MDL_PATH_LEN];
    char data_file[MDL_PATH_LEN]; /* a LAMMPS data file written at the end of the run or stage ("": none) */
    int dump_every;
    int dump_fields;
    char dump_columns[MDL_PATH_LEN]; /* a LAMMPS text dump's columns (dump custom's names; "": not one) */
    int unwrapped;            /* [output] positions = unwrapped: frames hold x + image x edge (no image) */
    int compress;             /* deflate H5MD per-atom data */
    int flush_every;          /* flush the trajectory (and write the checkpoint) every N frames */
    int checkpoint;           /* H5MD: write the restart checkpoint at flushes and the last frame */
    int async;                /* writer thread + slots */
    int buffers;              /* slots (at most) */
    int throttle_ms;          /* test only: slow the writer down */
    int sync_phases;          /* wait for the device at each phase boundary: exact phase times */
    int rebuild_timeline;     /* GPU ranks: time the K-th rebuild stage by stage (0: none) */

    /* [analysis] */
    int rdf_every;            /* 0: no RDF */
    int rdf_bins;
    double rdf_max;           /* < 0: the largest pair cutoff */
    char rdf_file[MDL_PATH_LEN];
    int msd_every;            /* 0: no MSD */
    int msd_origins;          /* the MSD's time origins (0 or 1: the stage's start alone), */
    int msd_origin_every;     /* steps apart (0: msd_every) */
    char msd_file[MDL_PATH_LEN];

    /* [stage:NAME] sections, in the order they first appear: each stage's whole configuration (the
       keys of this one, then every stage's up to it; a stage that sets ensemble drops the ensemble
       keys before it). 0 stages: one run of this configuration. */
    int nstages;
    struct mdl_config_s *stages;
    char stage_name[32];      /* a stage's name ("" outside stages) */
    char stage_origin[MDL_PATH_LEN + 32]; /* a stage's: "file:line" of its section's first key */
    char open_stage[MDL_PATH_LEN + 96]; /* reading the file: "file:line: [stage:NAME]" of a stage's
                                           section no value has been read in yet ("": none) */

    int nentries;
    mdl_entry *entries;
    const lammps_script_vars *script_vars; /* while loading: a script's command-line variables */
    int given_atoms;          /* the atoms come from the caller (libmdlite's arrays): no lattice or input */
} mdl_config;

/* Reads and validates a config file, then applies "section.key=value" overrides (in order).
   Returns MDL_OK, or MDL_EINPUT after printing "file:line: [section] key: why". */
int config_load(mdl_config *cfg, const char *path, int noverrides, char *const *overrides);
/* The same, a LAMMPS script given its command line's variables (-var NAME VALUE ...; NULL: none). */
int config_load_script(mdl_config *cfg, const char *path, int noverrides, char *const *overrides,
                       const lammps_script_vars *vars);
/* The same from text (malloc'ed, taken over) named `name` in messages (a config file's directory
   resolves its relative paths: none without a '/'), line_of (malloc'ed, taken over; NULL: each line
   its own) the line each of its nlines lines is named by; given_atoms: the atoms come from the
   caller, [system] names no lattice or input. */
int config_load_text(mdl_config *cfg, const char *name, char *text, int *line_of, int nlines, int given_atoms,
                     int noverrides, char *const *overrides);
void config_destroy(mdl_config *cfg);

/* What a run's forces are computed from, as text: the pair potential's keys and, where the
   ensemble adds a force to every atom (Langevin), its keys. A checkpoint records it; a restart
   whose text differs recomputes the forces instead of using the checkpoint's. */
void config_force_origin(const mdl_config *cfg, char *out, size_t size);
/* The stages as a checkpoint records them, "NAME ENSEMBLE; ..." ("" without stages): a restart
   whose stages differ says so, and does not continue a stage's analysis that changed (their steps
   may change: that is how a run is lengthened or cut). */
void config_stage_plan(const mdl_config *cfg, char *out, size_t size);
/* The configuration in effect, as INI text: every key set in the file or by --set (the value
   that counts; "; --set" after an override), section by section; malloc'ed (NULL: no memory). */
char *config_effective_text(const mdl_config *cfg);
/* Whether the ensemble is a Nose-Hoover one (chains, and for npt a barostat, in the integrator). */
int config_nose_hoover(int ensemble);
/* The ensemble's name as the config spells it. */
const char *config_ensemble_name(int ensemble);
const char *config_style_name(int style); /* [potential] style's name: "lj", "eam/alloy" */
/* The unquoted text of a K_TEXT key (a stage's: its own section's, not one of the stages before it)
   into out ("" when it is not set): MDL_OK, or MDL_ERUN without memory. */
int config_text(const mdl_config *cfg, const char *section, const char *key, mdl_buf *out);
/* [system] boundary's faces (physics/boundary.h's MDL_FACE_*): 1, or 0 where its text is not one
   (with the reason in why). */
int config_boundary(const mdl_config *cfg, int face[3][2], const char **why);
/* [output] dump_columns: LAMMPS's dump custom columns mdlite writes, in its names' order. */
enum { MDL_COL_ID, MDL_COL_TYPE, MDL_COL_X, MDL_COL_XS = MDL_COL_X + 3, MDL_COL_XU = MDL_COL_XS + 3,
       MDL_COL_IX = MDL_COL_XU + 3, MDL_COL_VX = MDL_COL_IX + 3, MDL_COL_FX = MDL_COL_VX + 3,
       MDL_COL_MASS = MDL_COL_FX + 3, MDL_COL_COUNT };
#define MDL_DUMP_MAX_COLUMNS 32
/* The words of text (id type x y z xs ys zs xu yu zu ix iy iz vx vy vz fx fy fz mass) into cols[*n];
   *fields: the MDL_DUMP_* fields the frames need for them. 1, or 0 with *bad at the first word that
   is not one (NULL: no word at all). */
int config_dump_columns(const char *text, int *cols, int *n, int *fields, const char **bad);
const char *config_dump_column_name(int c);
/* [system] groups: the bit of group `name` (all: bit 0; 0: no such group); and whether a definition
   depends on types (by type, or of groups of which one did before it: *typed, their bits, is
   updated): its group's bit, else 0. Those are made after set_types, the others before it. */
uint32_t config_group_bit(const mdl_config *cfg, const char *name);
/* [output] thermo_computes into cfg->computes: 1, or 0 after the message naming the key. */
int config_read_computes(mdl_config *cfg);
uint32_t config_group_type_dependent(const mdl_config *cfg, const char *definition, uint32_t *typed);
/* 1 when the key was set (in the file or by --set), 0 when it keeps its default. */
int config_has(const mdl_config *cfg, const char *section, const char *key);
/* Where a key was set ("file:line", "--set"), or the file name when it was left at its default. */
const char *config_origin(const mdl_config *cfg, const char *section, const char *key);

#endif

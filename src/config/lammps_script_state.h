/* The state of a LAMMPS script being converted (lammps_script.c reads its lines; lammps_vars.c
   holds its variables; lammps_commands.c, lammps_box_commands.c and lammps_run_commands.c run
   each command into mdlite's keys). Every text grows as it needs: nothing is cut to a fixed buffer. */
#ifndef MDL_LAMMPS_SCRIPT_STATE_H
#define MDL_LAMMPS_SCRIPT_STATE_H

#include "lammps_script.h"
#include "../physics/crystal.h"
#include "../physics/region.h"
#include "../util/strbuf.h"
#include "../util/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* One INI key as the script stands: its section, name, value and the script line that set it. */
typedef struct {
    char *section, *key, *value;
    int line;
} setting;

typedef struct {
    setting *s;
    int n, cap;
} settings;

/* The variable styles mdlite takes (LAMMPS's names). */
enum { V_INDEX, V_LOOP, V_WORLD, V_UNIVERSE, V_ULOOP, V_STRING, V_GETENV, V_EQUAL, V_INTERNAL, V_FORMAT, V_ATOM };
/* V_ATOM: an atom-style formula, kept so a script may define one; any use of it is refused (mdlite
   evaluates no per-atom formula). */

typedef struct {
    char *name;
    int style;
    char *value;          /* the text substituted; V_EQUAL: the formula; V_FORMAT: the equal variable */
    char *format;         /* V_FORMAT: its C format */
    int busy;             /* being evaluated: a reference back to it is a cycle */
    long evaluated;       /* V_EQUAL, V_FORMAT: the generation of `cached` (-1: none) */
    double cached;
} script_var;

typedef struct {
    char *id, *style;
    char **args;
    int nargs, line;
    long made;            /* its number among the fix commands (a fix made again is a new one) */
    char group[32];       /* its group ID */
    char temp[64];        /* fix_modify temp: its temperature compute's ID ("": its own, on its group) */
    int energy;           /* fix_modify energy yes: its energy counts in pe (fix indent's) */
} script_fix;

typedef struct {
    char *id;
    double b[6];    /* xlo xhi ylo yhi zlo zhi in box units (units lattice: scaled as the region was made) */
    double tilt[3]; /* prism: xy xz yz in box units */
    int prism;
    int unbounded; /* a bound is INF (LAMMPS's -BIG or BIG) */
    int shape;     /* 0 block or prism, MDL_REGION_SPHERE (centre c, radius r) or MDL_REGION_CYLINDER (along
                      axis through c's other two coordinates, radius r, from lo to hi) */
    int axis, out; /* out: LAMMPS's side out */
    double c[3], r, lo, hi;
    int nparts, any; /* intersect (any 0) or union (any 1) of the regions parts[..] (simple ones) */
    int parts[MDL_REGION_PARTS];
} script_region;

/* What a run or minimize saved: the keys then, and the text printed before it. */
typedef struct {
    settings keys;
    mdl_buf data_files; /* write_data after it: paths separated by newlines */
    mdl_buf screen, log; /* print and echo before it (each channel's whole text) */
    int line;
    long made;           /* the fix commands before it */
    int nfix;            /* the fixes in force at it */
} script_run;

typedef struct script {
    const char *path;       /* the script file (messages) */
    char *dir;              /* its folder, absolute, ending in '/' */
    const char *file;       /* the file being read now (an include's) */
    int line;               /* the command's first line there */
    const char *cmd;        /* its name */
    int depth;              /* include depth */
    script_var *var;
    int nvar, var_cap;
    long generation;        /* bumped at every variable command: the equal variables' caches */
    int stepping;           /* formulas evaluated as at step `at_step` (step and dt bound): script_linear_in_step */
    int deferring;          /* a print's text: formulas of thermo keywords and computes left to the run */
    char changed_since_run[32]; /* the first command since the last run that is not print, variable, echo or log */
    long at_step;
    settings now;           /* the keys as the script stands */
    script_run *runs;
    int nruns, runs_cap;
    script_fix *fixes;
    int nfix, fix_cap;
    long fixes_made;        /* fix commands so far */
    script_region *regions;
    int nregion, region_cap;
    char lattice[8], units[8]; /* the lattice command's style ("": none yet) */
    mdl_lattice_spec lat;   /* its arguments (lat.style points at lattice) */
    mdl_lattice_basis lat_basis; /* custom: its basis */
    mdl_crystal crystal;    /* the lattice itself: its scale and spacings */
    int box_region;         /* create_box's region (its index) */
    int dimension;          /* the dimension command's 2 or 3 (0: not given, 3) */
    int ntypes, box_made, atoms_made, velocity_made, stop;
    int deleted;            /* a delete_atoms command was made: 1 after a velocity command, 2 before any */
    mdl_buf fills;          /* create_atoms so far: [system] lattice_regions' entries ("T box" or "T REGION") */
    int nfills, fill_whole; /* fill_whole: the first fills the box, of that type (0: a region) */
    long lattice_made, fill_lattice; /* lattice commands so far; the count at the first create_atoms */
    char dump_id[64];       /* the dump's ID ("": none) */
    long thermo_every;      /* thermo N (0: the first and last steps of each run) */
    int thermo_custom;
    int data_velocities;    /* read_data: 1 the file has Velocities, -1 it has none */
    int data_masses;        /* read_data: its Masses section */
    long data_atoms;        /* read_data: the header's atom count */
    char mix[16];
    unsigned char *pair_set; /* [ntypes x ntypes]: pair_coeff gave i j (the mixing check) */
    mdl_buf screen, log;    /* print and echo since the last run */
    int echo_screen, echo_log;
    char *log_file;         /* the log command's file (NULL: none) */
    int log_append;
    mdl_buf initial_data;   /* write_data before the first run: paths separated by newlines */
    mdl_buf groups;         /* the group command's IDs, each followed by a newline */
    mdl_buf computes;       /* compute ID GROUP temp: "ID GROUP" lines */
    mdl_buf unread_computes; /* compute ID GROUP property/atom: "ID" lines (nothing mdlite runs reads them) */
    mdl_buf thermo_computes; /* every compute thermo may print: "ID STYLE GROUP ARGS;" ([output] thermo_computes) */
    mdl_buf typed_groups;   /* the groups with a definition of types (by type, or of such groups) */
    settings data_keys;     /* the keys at the last of them (a change before the first run is refused) */
    int data_line;
} script;

/* A message naming the script's file, line and command; MDL_EINPUT. */
int script_fail(script *sc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define fail script_fail

/* Keys: set (a copy of value; MDL_ERUN without memory), found, dropped. */
int settings_set(settings *st, const char *section, const char *key, const char *value, int line);
const setting *settings_find(const settings *st, const char *key);
void settings_drop(settings *st, const char *key);
/* Every key whose name begins with prefix dropped. */
void settings_drop_prefix(settings *st, const char *prefix);
int settings_copy(settings *to, const settings *from);
void settings_free(settings *st);
/* A key of sc->now from a format, at the command's line. */
int setf(script *sc, const char *section, const char *key, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A key of sc->now whose value is the words w[from .. nw), blank-separated. */
int setf_words(script *sc, const char *section, const char *key, char **w, int from, int nw);

/* The file at path, which a command reads (read_data, include, pair_coeff), a readable regular
   file: MDL_OK, or one message naming the script's line, the file and why (a FIFO or a device is
   refused before anything opens it). */
int script_input_file(script *sc, const char *path, const char *what);
/* A path as the run opens it: absolute, a relative one from the script's folder (malloc'ed). */
char *script_path(script *sc, const char *path);
/* Text for the next run's screen and log (or the end's): screen, log or both. */
/* In a print's substituted text, where a formula left to the run begins: (FORMULA:FORMAT) follows it;
   script_say writes it as the INI's `$(`, and every other '$' as `$$`. */
#define MDL_SCRIPT_DEFERRED '\001'
int script_say(script *sc, const char *text, int screen, int log);

/* ---- variables (lammps_vars.c) ---- */
int cmd_variable(script *sc, char **w, int nw);
/* $x, ${name} and $(formula[:format]) replaced in line, outside quotes (or everywhere: quoted = 1),
   into out. */
int script_substitute(script *sc, const char *line, mdl_buf *out, int quoted);
/* Equal variable NAME as a line in LAMMPS's step: its value at step 0 and its change per step, where
   its formula (of step, dt and what the script knows) is one; MDL_EINPUT naming it otherwise. */
int script_linear_in_step(script *sc, const char *name, double *at0, double *per_step);
/* The value of a formula (immediate or an equal variable's). */
int script_evaluate(script *sc, const char *formula, double *out);
/* The formulas of the v_NAME words of columns (a thermo_style custom), "NAME=FORMULA;...", into out. */
int script_thermo_variables(script *sc, const char *columns, mdl_buf *out);
/* The index of region id, or -1. */
int script_find_region(script *sc, const char *id);
/* Region id's words as [system] groups, set_types and delete_atoms read them (physics/region.h: block,
   sphere, cylinder, then out), appended to out; a prism, or no such region: a message naming what
   (the command `what` needs). */
int script_region_words(script *sc, const char *id, const char *what, mdl_buf *out);
/* group, set, compute, balance (lammps_group_commands.c; lammps_system_command asks it): 1 when w[0]
   is none. */
int lammps_group_command(script *sc, char **w, int nw);
/* Whether group id exists (all does); the group of compute temp id into group (0: no such compute). */
int script_group_exists(const script *sc, const char *id);
int script_temp_compute(const script *sc, const char *id, char group[32], char components[4]);
/* The compute id (its first n characters) thermo may print: its vector's length (temp 6, com 3, reduce
   its inputs; a scalar's 1), or 0 for none of that ID. */
int script_compute_size(const script *sc, const char *id, size_t n);
/* Whether keyword key is among the keyword-value pairs w[from ..]. */
int script_keyword_given(char **w, int nw, int from, const char *key);
/* A velocity command other than the first `velocity all create`, as a [system] velocity_edits edit (after
   a run: [run] stage_velocity_edits, the next run's)
   (values in box units; a temp compute as its group). */
int script_velocity_edit(script *sc, char **w, int nw);
/* A variable from mdlite's command line (-var NAME VALUE ...): an index variable. */
int script_define_index(script *sc, const char *name, char **values, int nvalues);
void script_free_vars(script *sc);

/* ---- commands (lammps_commands.c: the system; lammps_run_commands.c: runs and output) ---- */
/* One command (its words, variables substituted, quotes removed) into sc's keys: MDL_OK, or a
   message and MDL_EINPUT (MDL_ERUN: out of memory); 1 when the command is not one of the file's. */
int lammps_system_command(script *sc, char **w, int nw);
/* lattice, region, create_box, create_atoms (lammps_box_commands.c; lammps_system_command asks it). */
int lammps_box_command(script *sc, char **w, int nw);
int lammps_run_command(script *sc, char **w, int nw);
/* The first atom type without a mass (mass, a data file's Masses, an EAM pair_coeff), or 0. */
int script_type_without_mass(const script *sc);
/* The style of a pair_style or fix without an accelerator suffix (/opt, /omp, /gpu, /kk, ...). */
const char *script_base_style(const char *style, char *out, size_t size);
/* A number, with a message naming the word when it is not one. */
int script_number(script *sc, const char *word, double *v);
int script_count(script *sc, const char *word, long lo, long hi, long *v);
/* The step the script's runs have reached (their steps summed; after a minimize: refused, its
   iterations unknown until it runs). */
int script_step_now(script *sc, long *step);
/* The argument count between lo and hi (hi >= 1000: no upper bound), else a message. */
int expect_args(script *sc, int nw, int lo, int hi);
/* Type range I, *, *J, I*, I*J (LAMMPS's bounds) of 1..n into [*lo, *hi]. */
int script_type_range(script *sc, const char *word, int n, int *lo, int *hi);

/* Whether a fix style changes no number (balance, property/atom: lammps_thermostats.c, which passes them
   over; lammps_run_commands.c checks their arguments). */
int script_bookkeeping_fix_style(const char *style);
/* The fix wall/reflect commands in force, as [run] wall_reflect (in box units) for this run
   (lammps_walls.c); a wall at a variable's coordinate refused with its fix's line. */
int script_walls(script *sc);

/* The ensemble of the fixes in force at a run as [run] keys, the walls and group fixes with it; the
   ensemble's keys dropped before another is set (lammps_thermostats.c). */
int script_ensemble_of_fixes(script *sc, long steps);
/* A fix in force whose style mdlite has no meaning for (at a run or a minimisation), named with its
   line: MDL_EINPUT; else MDL_OK. */
int script_unknown_fix_style(script *sc);
void script_drop_ensemble_keys(script *sc);

/* Fixes on groups (lammps_group_fixes.c): the styles that set or add to forces, the styles that take
   a group other than all; at a run, the force fixes in force as [run] force_fixes and the
   thermostat's group as [run] thermostat_group; fix_modify temp; thermo_modify temp's group. */
int script_force_fix_style(const char *style);
/* fix wall/lj93, wall/lj126, wall/harmonic: walls on the faces, as [run] force_fixes items. */
int script_wall_fix_style(const char *style);
int script_fix_takes_group(const char *style);
/* Those styles as "a, b, c" into out (for messages). */
const char *script_group_fix_styles(char *out, size_t size);
int script_group_fixes(script *sc, const script_fix *thermostat);
int script_cmd_fix_modify(script *sc, char **w, int nw);
int script_thermo_temp(script *sc, const char *id);

/* dump, undump and dump_modify (lammps_dump_commands.c). */
int script_cmd_dump(script *sc, char **w, int nw);
int script_cmd_dump_modify(script *sc, char **w, int nw);

#endif

/* The ensembles, one line each in MDL_ENSEMBLES: everything that knows them (the [run] ensemble
   key's choices, the [run] keys each reads, the LAMMPS fix that stands for it and that fix's
   arguments, what the core calls at which stage) is generated from it or reads ensemble_info. A
   velocity-scaling thermostat is a unit physics/NAME.h (NAME_setup: its constants; NAME_factor: the
   factor at temperature T, written once for host C and CUDA), listed again in MDL_SCALING. */
#ifndef MDL_PHYSICS_ENSEMBLES_H
#define MDL_PHYSICS_ENSEMBLES_H

#include "csvr.h"
#include "rescale.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* What the core does for an ensemble: nothing past velocity Verlet; scale the velocities at the end of
   a step (the backend's scale_to_temperature, with the unit's factor); add a force after the force
   call (Langevin's); nothing itself, the backend's integrator running chains (Nose-Hoover's); an
   energy minimisation (core/minimize.c) instead of steps. */
enum { MDL_ACT_NONE, MDL_ACT_SCALE, MDL_ACT_FORCE, MDL_ACT_CHAINS, MDL_ACT_MINIMIZE };

/* The [run] keys an ensemble reads, and whether it may act on a group ([run] thermostat_group). */
enum {
    MDL_READS_TARGET = 1,   /* target_temperature */
    MDL_READS_TAU = 2,      /* tau */
    MDL_READS_EVERY = 4,    /* every */
    MDL_READS_WINDOW = 8,   /* rescale_window */
    MDL_READS_CHAIN = 16,   /* chain, chains */
    MDL_READS_PRESSURE = 32, /* target_pressure, pressure_tau, pressure_chain: a barostat */
    MDL_ON_GROUP = 64,
    MDL_READS_RAMP = 128    /* final_temperature: a target moving over the run */
};

/* X(ID, name, action, reads, LAMMPS fix, its arguments): the arguments as LAMMPS's documentation
   writes them, Tstart and Tstop the target temperature at the run's first and last step ([run]
   target_temperature and final_temperature; equal where the ensemble does not read MDL_READS_RAMP),
   DAMP the time constant ([run] tau), SEED a positive integer (mdlite's stream is its own, keyed by
   [system] seed), N the steps between scalings ([run] every), WINDOW the rescaling's window, a
   number a value it must have; NULL: the converter's own rule (fix nvt and npt's keywords). */
#define MDL_THERMOSTAT_READS (MDL_READS_TARGET | MDL_READS_RAMP | MDL_ON_GROUP)
#define MDL_CHAINS_READS (MDL_READS_TARGET | MDL_READS_RAMP | MDL_READS_TAU | MDL_READS_CHAIN)
#define MDL_ENSEMBLES(X)                                                                                        \
    X(NVE, "nve", MDL_ACT_NONE, 0, "nve", "")                                                                   \
    X(NVT_RESCALE, "nvt-rescale", MDL_ACT_SCALE, MDL_THERMOSTAT_READS | MDL_READS_EVERY | MDL_READS_WINDOW,     \
      "temp/rescale", "N Tstart Tstop WINDOW 1.0")                                                              \
    X(NVT_BERENDSEN, "nvt-berendsen", MDL_ACT_SCALE, MDL_THERMOSTAT_READS | MDL_READS_TAU, "temp/berendsen",    \
      "Tstart Tstop DAMP")                                                                                      \
    X(NVT_LANGEVIN, "nvt-langevin", MDL_ACT_FORCE, MDL_THERMOSTAT_READS | MDL_READS_TAU, "langevin",            \
      "Tstart Tstop DAMP SEED")                                                                                 \
    X(NVT_NOSE_HOOVER, "nvt-nose-hoover", MDL_ACT_CHAINS, MDL_CHAINS_READS, "nvt", NULL)                        \
    X(NPT_NOSE_HOOVER, "npt-nose-hoover", MDL_ACT_CHAINS, MDL_CHAINS_READS | MDL_READS_PRESSURE, "npt", NULL)   \
    X(MINIMIZE, "minimize", MDL_ACT_MINIMIZE, 0, NULL, NULL)                                                    \
    X(NVT_CSVR, "nvt-csvr", MDL_ACT_SCALE, MDL_THERMOSTAT_READS | MDL_READS_TAU, "temp/csvr",                   \
      "Tstart Tstop DAMP SEED")

/* The scaling thermostats (MDL_ACT_SCALE), X(ID, unit): unit_setup and unit_factor. */
#define MDL_SCALING(X)                \
    X(NVT_RESCALE, rescale)           \
    X(NVT_BERENDSEN, berendsen)       \
    X(NVT_CSVR, csvr)

enum mdl_ensemble {
#define MDL_ENSEMBLE_ENUM(ID, name, action, reads, fix, args) MDL_##ID,
    MDL_ENSEMBLES(MDL_ENSEMBLE_ENUM)
#undef MDL_ENSEMBLE_ENUM
    MDL_NENSEMBLES
};

/* "nve|nvt-rescale|...": [run] ensemble's choices, in the enum's order */
#define MDL_ENSEMBLE_CHOICE(ID, name, action, reads, fix, args) "|" name
#define MDL_ENSEMBLE_CHOICES ((MDL_ENSEMBLES(MDL_ENSEMBLE_CHOICE)) + 1)

typedef struct {
    const char *name;
    int action, reads;
    const char *lammps_fix, *lammps_args;
} mdl_ensemble_info;

/* Its line (NULL: no such ensemble). */
static inline const mdl_ensemble_info *ensemble_info(int id)
{
    static const mdl_ensemble_info table[] = {
#define MDL_ENSEMBLE_INFO(ID, name, action, reads, fix, args) {name, action, reads, fix, args},
        MDL_ENSEMBLES(MDL_ENSEMBLE_INFO)
#undef MDL_ENSEMBLE_INFO
    };
    return id >= 0 && id < MDL_NENSEMBLES ? &table[id] : NULL;
}

/* The [run] keys it reads (MDL_READS_*, MDL_ON_GROUP; 0: no such ensemble). */
static inline int ensemble_reads(int id)
{
    const mdl_ensemble_info *e = ensemble_info(id);
    return e ? e->reads : 0;
}

/* The names of the ensembles that read `flag`, "a, b, c", into out (for messages). */
static inline const char *ensembles_reading(int flag, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (int id = 0; id < MDL_NENSEMBLES && n < size; id++)
        if (ensemble_reads(id) & flag)
            n += (size_t)snprintf(out + n, size - n, "%s%s", n ? ", " : "", ensemble_info(id)->name);
    return out;
}

/* The LAMMPS fix of the ensemble named `name` (the name where it has none). */
static inline const char *ensemble_lammps_fix(const char *name)
{
    for (int id = 0; id < MDL_NENSEMBLES; id++)
        if (!strcmp(ensemble_info(id)->name, name) && ensemble_info(id)->lammps_fix)
            return ensemble_info(id)->lammps_fix;
    return name;
}

/* The ensemble of a thermostat that LAMMPS writes as fix `style` beside fix nve (ensemble_info's
   lammps_args given), or -1. */
static inline int ensemble_of_lammps_thermostat(const char *style)
{
    for (int id = 0; id < MDL_NENSEMBLES; id++) {
        const mdl_ensemble_info *e = ensemble_info(id);
        if (e->lammps_fix && e->lammps_args && e->lammps_args[0] && strcmp(e->lammps_fix, style) == 0)
            return id;
    }
    return -1;
}

#endif

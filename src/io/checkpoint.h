/* The --restart reader: the checkpoint of an mdlite H5MD file, validated. */
#ifndef MDL_IO_CHECKPOINT_H
#define MDL_IO_CHECKPOINT_H

#include "../system/system.h"
#include "trajectory.h"

/* Reads the checkpoint of an H5MD file written by mdlite into s (which must already hold the
   configured species and masses and the same atom count): positions, velocities, forces, images,
   box; *step and *time of the checkpoint. Validated (finite, sane step, `units`, count, atoms in
   the box); errors name the file (MDL_EINPUT). */
int h5md_read_checkpoint(const char *path, mdl_system *s, const char *units, long *step, double *time);

/* The checkpoint's attribute "forces" (what its forces were computed from, config_force_origin)
   into out; "" where the file has none. */
void h5md_checkpoint_forces(const char *path, char *out, size_t size);
/* The checkpoint's attribute "thermostat" (Nose-Hoover's chains and barostat, nh_pack's layout)
   into out (at most max values); returns how many, 0 where the file has none. */
int h5md_checkpoint_thermostat(const char *path, double *out, int max);
/* The checkpoint's analysis of the stage it is in (checkpoint/analysis; malloc'ed, free with
   analysis_checkpoint_free), or NULL where it has none. */
mdl_analysis_checkpoint *h5md_checkpoint_analysis(const char *path);
/* The checkpoint's attribute "stages_from": the step where the first [stage:NAME] of the run that
   wrote it began; -1 where the file has none. */
long h5md_checkpoint_stages_from(const char *path);

#endif

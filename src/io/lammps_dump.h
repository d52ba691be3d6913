/* LAMMPS's text dumps (dump atom, dump custom) of a frame, for the trajectory writer. */
#ifndef MDL_LAMMPS_DUMP_H
#define MDL_LAMMPS_DUMP_H

#include "../config/config.h"
#include "../system/system.h"

#include <stdio.h>

/* One frame of s (id order, wrapped positions with images) at step, as LAMMPS's dump custom prints
   it, its box's faces those of bd. */
void lammps_dump_frame(FILE *o, const mdl_system *s, const mdl_boundary *bd, long step, const int *cols, int n);

#endif

/* Coordinate file readers: xyz, extended XYZ (Lattice=, Properties=, pbc=), LAMMPS data files
   (data_file.h) and the 2-column .xy format. */
#ifndef MDL_READERS_H
#define MDL_READERS_H

#include "../system/system.h"

/* Reads atoms into s (species, positions, and velocities/masses when the file has them). format:
   'd' a LAMMPS data file, 'x' xyz or extended XYZ, '2' two columns, 0 from the name (NAME.data,
   NAME.lmp, data.NAME; .xyz, .extxyz; .xy) and else from the first line.
   *has_box is set when the file defines the box (extended XYZ Lattice=); otherwise the box is the
   atoms' bounding box with open boundaries. Errors name file:line; returns MDL_OK or MDL_EINPUT. */
int read_coordinates(const char *path, int format, mdl_system *s, int *has_box);

/* Checks every atom lies inside a periodic box (wrapping those within rounding of the upper face).
   Errors name the file and the atom's line. */
int check_atoms_in_box(const char *path, mdl_system *s);

#endif

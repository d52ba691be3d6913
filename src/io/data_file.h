/* LAMMPS data files (atom_style atomic, orthogonal boxes): read as a coordinate file, written at
   the end of a run or stage in write_data's layout. */
#ifndef MDL_DATA_FILE_H
#define MDL_DATA_FILE_H

#include "text_lines.h"
#include "../system/system.h"

/* A path LAMMPS users give data files: NAME.data, NAME.lmp, or data.NAME. */
int is_data_file(const char *path);

/* Reads the data file on r into s: the box (any origin), species "1" .. "N" (the atom types; a
   Masses line's comment of one name, "1 63.546 # Cu", names its species),
   masses (Masses), atoms by id (ids 1 .. natoms, each once; atom id k is index k - 1), image
   flags, velocities (Velocities). Atoms outside the box are mapped into it with their image
   flags, as LAMMPS's read_data does. Errors name file:line; MDL_OK or MDL_EINPUT. */
int read_data_file(line_reader *r, mdl_system *s);

/* s (in id order, with positions, velocities and images) as write_data writes it: header, box,
   Masses, Atoms # atomic (id type x y z ix iy iz), Velocities; numbers to 17 digits, so that a
   file read back holds the same doubles. units and step go into the title line. */
int write_data_file(const char *path, const mdl_system *s, const char *units, long step);

#endif

/* The atoms' groups made from [system] groups, and [system] velocity_edits (LAMMPS's velocity command on
   groups) applied to the initial velocities. */
#ifndef MDL_ATOM_GROUPS_H
#define MDL_ATOM_GROUPS_H

#include "../config/config.h"
#include "system.h"
#include "../physics/units.h"

/* s->groups by id from the definitions in order (a name again adds atoms, as LAMMPS's group
   command); NULL where no group is defined. The definitions that depend on types (by type, or of a
   group with such a definition before them) are made after [system] set_types (after_types = 1),
   the others before it (after_types = 0): those never see a type. MDL_EINPUT names the key. */
int system_make_groups(const mdl_config *cfg, mdl_system *s, int after_types);
/* [system] set_types' edits in order, on the atoms once made. MDL_EINPUT names the key. */
int system_set_types(const mdl_config *cfg, mdl_system *s);
/* [system] delete_atoms: the atoms in any of its regions removed, the others' ids made 1 .. N in their
   order and their groups with them (LAMMPS's delete_atoms region R, compress yes). MDL_EINPUT names
   the key (no atom left among them). */
int system_delete_atoms(const mdl_config *cfg, mdl_system *s);
/* The edits in order, on s's velocities in id order. MDL_EINPUT names the key. */
int system_velocity_edits(const mdl_config *cfg, const mdl_units *u, mdl_system *s);
/* The edits of [section] key (its text edits, in velocity_edits' form) on s's velocities in id order;
   check: their words checked, nothing changed. MDL_EINPUT names the key. */
int system_edit_velocities(const mdl_config *cfg, const mdl_units *u, mdl_system *s, const char *section,
                           const char *key, const char *edits, int check);

#endif

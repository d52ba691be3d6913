/* The particle system on the host: structure of arrays sized by a capacity, species, box. */
#ifndef MDL_SYSTEM_H
#define MDL_SYSTEM_H

#include "../physics/boundary.h"
#include "../physics/box.h"
#include "../physics/groups.h"
#include "../physics/species.h"

#include <stddef.h>
#include <stdint.h>

/* The most atoms a run may have (atom indices are 32-bit on the GPU). */
#define MDL_MAX_ATOMS 2147483647L

typedef struct {
    size_t n;        /* atoms in use: [0, n) */
    size_t capacity; /* allocated per-atom slots */
    double *x, *y, *z;
    double *vx, *vy, *vz;
    double *fx, *fy, *fz;
    int32_t *ix, *iy, *iz; /* periodic image counters */
    double *bx, *by, *bz;  /* positions at the last neighbor-list build: a checkpoint's frame only (NULL
                              elsewhere; never grown with the others) */
    int32_t *border;       /* with them, each atom's place (by id) in the order of a backend whose order
                              is not one of the build's positions alone (one GPU); a view, never freed
                              here (NULL: the positions say the order) */
    int32_t *type;         /* species index into species[] */
    int64_t *id;           /* global atom id, 0-based, fixed for the whole run */
    uint32_t *groups;      /* by id: each atom's groups (bit k: [system] groups' k-th, bit 0 all); NULL:
                              every atom is in all alone. Owned; a backend keeps its own copy */

    int ntypes;
    char species[MDL_MAX_SPECIES][MDL_NAME_LEN];
    double mass[MDL_MAX_SPECIES];
    mdl_box box;
    mdl_boundary bound;  /* its faces (all periodic: zeros) and their shrink-wrap rule */
    int has_velocities;  /* velocities came from the input file */
    int has_masses;      /* masses came from the input file */
} mdl_system;

/* The per-atom arrays of the dump fields, in the order x y z vx vy vz fx fy fz (double), ix iy iz
   (int32) and bx by bz (double, MDL_DUMP_BUILD: a checkpoint's): array a belongs to field
   1 << (a / 3) (MDL_DUMP_*). system_field_arrays gives their addresses, so snapshot slots can
   point a frame's arrays at their own memory. */
enum { MDL_FIELD_ARRAYS = 15, MDL_GROWN_ARRAYS = 12 /* those system_reserve grows */ };
void system_field_arrays(mdl_system *s, void **addr[MDL_FIELD_ARRAYS]);
/* Points s's arrays of the given fields at arrays[a] (NULL: every array NULL), as a view. */
void system_point_fields(mdl_system *s, void *const arrays[MDL_FIELD_ARRAYS], int fields);
/* A frame's atoms between ranks: the given fields of atoms [0, n) of s, one atom after another (its
   id, then one double per array; images exact as doubles) in a malloc'ed buffer, *words per atom;
   and back, into arrays[] (system_field_arrays' order) of natoms atoms at index id. */
double *system_pack_frame(mdl_system *s, size_t n, int fields, int threads, int *words);
void system_unpack_frame(void *const arrays[MDL_FIELD_ARRAYS], size_t natoms, int fields, const double *all,
                         int words, int threads);
static inline int field_of_array(int a)
{
    return 1 << (a / 3);
}
static inline int field_array_is_double(int a)
{
    return a < 9 || a >= 12;
}
static inline size_t field_array_bytes(int a)
{
    return field_array_is_double(a) ? sizeof(double) : sizeof(int32_t);
}

int system_init(mdl_system *s, size_t capacity);
void system_destroy(mdl_system *s);
/* Frees the per-atom arrays of the dump fields (system_field_arrays), keeping types and ids. */
void system_free_fields(mdl_system *s);
/* Grows the per-atom arrays to at least `capacity` slots, keeping contents. */
int system_reserve(mdl_system *s, size_t capacity);
/* Appends one atom at rest; returns its index, or -1 when out of memory. */
long system_add_atom(mdl_system *s, int type, double x, double y, double z);
/* The box becomes the atoms' bounding box, open on every side. */
void system_bounding_box(mdl_system *s);
/* Index of a species by name, adding it when `add` is set; -1 when unknown or full. */
int system_species_index(mdl_system *s, const char *name, int add);
/* 1 when name names species t: its name, or its type number t + 1 where no species has that name
   (a data file's types, whose Masses comments name their species, as LAMMPS's commands name them). */
int system_species_matches(const mdl_system *s, int t, const char *name);
/* "A 3200, B 800": each species' name and atom count, into out. */
void system_species_counts(const mdl_system *s, char *out, size_t size);

#endif

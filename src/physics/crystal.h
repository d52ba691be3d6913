/* LAMMPS's lattice command as arithmetic: a style's basis and primitive vectors, or a custom
   cell; the scale (lj units: from a reduced density), the orientation, the spacings and the origin;
   lattice coordinates to box coordinates and back. The converter of LAMMPS scripts (region units
   lattice) and the builder of lattices (create_atoms) share it. */
#ifndef MDL_PHYSICS_CRYSTAL_H
#define MDL_PHYSICS_CRYSTAL_H

#define MDL_MAX_BASIS 64 /* basis atoms of a custom lattice */

typedef struct {
    int n;
    double v[MDL_MAX_BASIS][3];
} mdl_lattice_basis;

/* What a lattice command says: style, its scale (an edge; lj units: a reduced density), and its
   keywords (a and basis for custom only; spacing all 0: not given). */
typedef struct {
    const char *style; /* sc bcc fcc hcp diamond custom; 2-d: sq sq2 hex */
    double scale, density; /* one of them above 0 */
    double a[3][3];        /* custom: a1 a2 a3 */
    const mdl_lattice_basis *basis;
    int orient[9];
    double origin[3], spacing[3];
} mdl_lattice_spec;

typedef struct {
    int nbasis;
    double basis[MDL_MAX_BASIS][3];
    double prim[3][3], rot[3][3]; /* primitive vectors as columns; normalised orient vectors as rows */
    double scale, spacing[3], origin[3];
} mdl_crystal;

/* Whether name is a style crystal_make knows. */
int crystal_style_known(const char *name);
/* The dimension a style belongs to: 2 for sq, sq2 and hex, 3 for the others (LAMMPS's rule). */
int crystal_style_dimension(const char *name);
/* The lattice of spec (LAMMPS's: scale from density (nbasis / (V density))^(1/3) with V the cell's
   volume (1/2 for the 2-d styles), spacings given times the scale or the rotated cell's bounding box). */
void crystal_make(const mdl_lattice_spec *spec, mdl_crystal *c);
/* Lattice coordinates to box coordinates, in LAMMPS's order of operations (lattice2box). */
void crystal_to_box(const mdl_crystal *c, double p[3]);
/* Box coordinates to lattice coordinates (for bounds). */
void crystal_from_box(const mdl_crystal *c, double p[3]);
/* The volume of a unit cell in box units. */
double crystal_cell_volume(const mdl_crystal *c);

#endif

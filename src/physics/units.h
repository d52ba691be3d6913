/* Unit systems (LAMMPS lj and metal) with LAMMPS's own conversion constants. */
#ifndef MDL_UNITS_H
#define MDL_UNITS_H

typedef struct {
    const char *name;
    double boltz;   /* Boltzmann constant in energy/temperature */
    double mvv2e;   /* mass*velocity^2 -> energy */
    double ftm2v;   /* force/mass*time -> velocity */
    double nktv2p;  /* energy/volume -> pressure */
    double dt;      /* default timestep */
    double skin;    /* default neighbor skin */
    double mv2d;    /* mass/volume -> density (metal: amu/A^3 -> g/cm^3, LAMMPS's) */
} mdl_units;

/* Fills *u for "lj", "metal" or "real"; returns 0, or -1 for an unknown name. */
int units_lookup(const char *name, mdl_units *u);

#endif

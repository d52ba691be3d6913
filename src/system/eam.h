/* EAM potentials (LAMMPS pair_style eam, eam/alloy, eam/fs): the DYNAMO funcfl and setfl files and
   Finnis-Sinclair's, each value checked as it is read; their tables on LAMMPS's grids, splined as
   LAMMPS splines them, for the configured species. */
#ifndef MDL_SYSTEM_EAM_H
#define MDL_SYSTEM_EAM_H

#include "../config/config.h"
#include "../physics/eam.h"
#include "system.h"

typedef struct {
    int nrho, nr;                 /* grid points of F(rho) and of rho(r), r phi(r) */
    double drho, dr, rdrho, rdr;  /* spacings and their inverses */
    double rhomax, cut;           /* F's last grid point (LAMMPS's linear extension past it); the cutoff */
    int nfrho, nrhor, nz2r;       /* tables of each kind */
    double *frho, *rhor, *z2r;    /* splines: table k, point m (0..n) at (k * (n + 1) + m) * MDL_EAM_COEFF */
    int type2frho[MDL_MAX_SPECIES];
    int type2rhor[MDL_MAX_SPECIES][MDL_MAX_SPECIES]; /* [i][j]: the density at j from i (LAMMPS's order) */
    int type2z2r[MDL_MAX_SPECIES][MDL_MAX_SPECIES];
    double mass[MDL_MAX_SPECIES]; /* from the files */
    char element[MDL_MAX_SPECIES][MDL_NAME_LEN]; /* each species' element as the files name it ("": none) */
    char cut_key[MDL_NAME_LEN + 8]; /* the [potential] key of the file whose cutoff it is */
} mdl_eam;

/* Whether the configured style is an EAM one. */
int eam_style(const mdl_config *cfg);
/* Reads the configuration's EAM file(s) for the species of s and builds the tables; errors name
   the file and line (or the key) and are MDL_EINPUT. eam_free releases them. */
int eam_build(const mdl_config *cfg, const mdl_system *s, mdl_eam *out);
void eam_free(mdl_eam *e);
/* The species' masses from the files into s->mass (a config mass for an EAM species: MDL_EINPUT);
   a species named by its type number alone (a data file's, LAMMPS's types) takes the name of its
   element, so that trajectories and data files say what the atoms are. */
int eam_masses(const mdl_config *cfg, mdl_system *s);

#endif

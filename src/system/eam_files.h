/* EAM potential files as LAMMPS reads them (eam_files.c): DYNAMO funcfl files and setfl / fs files,
   their grids and tables as written, each line checked with file:line messages. */
#ifndef MDL_EAM_FILES_H
#define MDL_EAM_FILES_H

#include "../physics/species.h"

typedef struct {
    int nrho, nr;
    double drho, dr, cut;
} eam_grid;

typedef struct {
    char name[MDL_NAME_LEN];  /* setfl, fs: as the file names it; funcfl: its Z's symbol ("" when none) */
    double mass;
    double *frho, *rhor, *zr; /* funcfl: Z(r); setfl/fs: rhor holds nrhor arrays of nr + 1 */
    eam_grid g;
} eam_element;

typedef struct {
    int nelem;
    eam_element el[MDL_MAX_SPECIES];
    double *z2r[MDL_MAX_SPECIES][MDL_MAX_SPECIES]; /* setfl/fs: r phi for i >= j */
    eam_grid g;
} eam_file;

/* A funcfl file (pair_style eam) into e; a setfl (fs = 0) or fs file into f: MDL_OK, or MDL_EINPUT
   naming file and line (a file of the other kind named as such), MDL_ERUN without memory. */
int eam_read_funcfl(const char *path, eam_element *e);
int eam_read_setfl(const char *path, int fs, eam_file *f);
void eam_file_free(eam_file *f);
/* Why the file at path is not of the kind its style reads (setfl: eam/alloy or eam/fs, else eam),
   judged from its first lines, or NULL (of that kind, or neither: the reader says what is wrong). */
const char *eam_kind_mismatch(const char *path, int setfl);
/* n + 1 doubles for a table (NULL, with a message, without memory). */
double *eam_table(int n);

#endif

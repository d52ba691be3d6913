/* HDF5 building blocks of the H5MD writer and the checkpoint reader: the library's set-up, attributes,
   strings, time series. */
#ifndef MDL_IO_H5MD_SERIES_H
#define MDL_IO_H5MD_SERIES_H

#include "trajectory.h"

#include <hdf5.h>

/* An H5MD time-dependent element: value [frames x dims], step and time (own, or hard links). */
typedef struct {
    hid_t group, step, time, value;
    int owner;   /* writes step/time (the others hard-link them) */
    int rank;    /* of one frame: 0 (scalar), 1 or 2 */
    hsize_t dims[2];
} series;

/* Before any HDF5 call, on every thread: the library gets no exit-time clean-up (a file whose close
   failed on a full disk would be flushed again there, and HDF5 1.10 crashes doing it: every file is
   closed by mdlite or left as it was written), and prints no error stacks (our messages name the
   file; error printing is set per thread). */
void h5_enter(void);

/* "path: H5MD: what failed: errno's reason"; returns MDL_ERUN. */
int h5md_fail(const char *path, const char *what);

herr_t attr_string(hid_t obj, const char *name, const char *value);
herr_t attr_strings(hid_t obj, const char *name, const char **values, hsize_t count);
herr_t attr_ints(hid_t obj, const char *name, const int *v, hsize_t count); /* count 0: scalar */
herr_t attr_doubles(hid_t obj, const char *name, const double *v, hsize_t count, int create);
herr_t dataset_string(hid_t parent, const char *name, const char *value);
/* An H5MD file to append to holds positions of this run's convention (parameters/positions:
   wrapped or unwrapped): MDL_OK (a file that records none: a note), else MDL_EINPUT naming both. */
int h5md_same_positions(hid_t file, const char *path, int unwrapped);
/* The string dataset at path into buf (cut to size): 1, or 0 and "" where there is none. */
int dataset_read_string(hid_t file, const char *path, char *buf, size_t size);
/* group/name (the group made with its parents where missing; a table there already replaced): rows x
   cols doubles (cols 0: a vector), with a "unit" attribute unless unit is NULL. */
herr_t dataset_table(hid_t file, const char *group, const char *name, const double *v, hsize_t rows, hsize_t cols,
                     const char *unit);

/* A stage's analysis into checkpoint/analysis (replacing what was there; a NULL a leaves none):
   checkpoint/analysis/header (AN_HEADER values, the layout below; a file written before the MSD's
   origins has no AN_ORIGINS and AN_ORIGIN_EVERY, which read as 1), rdf, msd and origin (msd_origins x natoms rows;
   io/checkpoint.c reads it back). */
enum { AN_STAGE, AN_START, AN_NTYPES, AN_BINS, AN_ROWS, AN_RMAX, AN_VOLUME, AN_SAMPLES, AN_NATOMS, AN_ORIGINS,
       AN_ORIGIN_EVERY, AN_HEADER };
int checkpoint_analysis_put(hid_t file, const char *path, const mdl_analysis_checkpoint *a);
/* The stages' results that ended before the checkpoint into checkpoint/results/K (K = 0, 1, ...;
   what was there replaced; NULL: none): name, header (RES_HEADER values in this order), r, g,
   msd, d (io/checkpoint.c reads them back). */
enum { RES_NBINS, RES_ROWS, RES_SAMPLES, RES_HAS_D, RES_D_FIRST, RES_D_LAST, RES_D_ROWS, RES_HEADER };
int checkpoint_results_put(hid_t file, const char *path, const mdl_analysis_results *r, int ntypes);

/* The series group/name (value of `rank` frame dims d0 x d1; step and time of its own, or hard
   links to owner's); unit attributes only with `units`. Errors name path; MDL_OK or MDL_ERUN. */
int series_create(const char *path, int units, series *s, hid_t parent, const char *name, hid_t type, int rank,
                  hsize_t d0, hsize_t d1, const series *owner, int compress, const char *unit);
int series_open(const char *path, series *s, hid_t parent, const char *name, int rank, hsize_t d0, hsize_t d1,
                int owner);
/* Writes frame number `frame` (and its step and time when s owns them). */
int series_append(const char *path, hsize_t frame, series *s, hid_t memtype, const void *buf, long step,
                  double time);
void series_close(series *s);

#endif

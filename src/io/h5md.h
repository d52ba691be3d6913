/* The H5MD writer behind trajectory.c (HDF5 C library). */
#ifndef MDL_H5MD_H
#define MDL_H5MD_H

#include "trajectory.h"

typedef struct h5md_file h5md_file;

int h5md_open(h5md_file **h, const mdl_config *cfg, const mdl_units *u, const mdl_system *s, int append,
              const char *target);
int h5md_write(h5md_file *h, const mdl_frame *f);
int h5md_flush(h5md_file *h);
int h5md_close(h5md_file *h);
int h5md_put_table(h5md_file *h, const char *group, const char *name, const double *v, size_t rows, size_t cols,
                   const char *unit);

#endif

/* Writes thermo rows: a fixed-width table for people, %.17g CSV for programs. */
#include "thermo.h"

#include "util.h"

#include <errno.h>
#include <string.h>

int thermo_open(mdl_thermo *t, const char *path, size_t natoms, int quiet)
{
    memset(t, 0, sizeof *t);
    t->natoms = (double)natoms;
    t->quiet = quiet;
    snprintf(t->path, sizeof t->path, "%s", path);
    if (path[0]) {
        t->csv = fopen(path, "w");
        if (!t->csv) {
            mdl_error("%s: cannot write the thermo file: %s", path, strerror(errno));
            return MDL_EINPUT;
        }
        fprintf(t->csv, "%s\n", MDL_THERMO_HEADER);
    }
    if (!quiet)
        printf("%10s %12s %14s %14s %14s %14s %14s\n", "Step", "Time", "Temp", "PotEng", "KinEng", "TotEng",
               "Press");
    return MDL_OK;
}

int thermo_write(mdl_thermo *t, long step, double time, const mdl_observables *o)
{
    double pe = o->potential / t->natoms, ke = o->kinetic / t->natoms;
    if (!t->quiet) {
        printf("%10ld %12.6g %14.8g %14.8g %14.8g %14.8g %14.8g\n", step, time, o->temperature, pe, ke, pe + ke,
               o->pressure);
        fflush(stdout);
    }
    if (t->csv) {
        fprintf(t->csv, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", step, time, o->temperature, pe, ke, pe + ke,
                o->pressure);
        if (fflush(t->csv) != 0 || ferror(t->csv)) {
            mdl_error("%s: cannot write the thermo file: %s", t->path, strerror(errno));
            return MDL_ERUN;
        }
    }
    return MDL_OK;
}

int thermo_close(mdl_thermo *t)
{
    int rc = MDL_OK;
    if (t->csv && fclose(t->csv) != 0) {
        mdl_error("%s: cannot finish the thermo file: %s", t->path, strerror(errno));
        rc = MDL_ERUN;
    }
    t->csv = NULL;
    return rc;
}

/* Writes thermo rows: a fixed-width table for people, %.17g CSV for programs. */
#define _POSIX_C_SOURCE 200809L
#include "thermo.h"

#include "../util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Keeps the header and the rows before step `from` of an existing CSV, cuts the rest; an empty
   file gets the header. MDL_EINPUT when the file is not a thermo CSV. */
static int cut_rows(mdl_thermo *t, long from)
{
    char line[4096];
    long kept = 0;
    rewind(t->csv);
    if (!fgets(line, sizeof line, t->csv)) {
        fprintf(t->csv, "%s\n", MDL_THERMO_HEADER);
        return MDL_OK;
    }
    if (strncmp(line, MDL_THERMO_HEADER, strlen(MDL_THERMO_HEADER)) != 0) {
        mdl_error("%s: cannot append to it: its first line is not mdlite's thermo header", t->path);
        return MDL_EINPUT;
    }
    kept = ftell(t->csv);
    while (fgets(line, sizeof line, t->csv) && atol(line) < from && strchr(line, '\n'))
        kept = ftell(t->csv);
    if (fflush(t->csv) != 0 || ftruncate(fileno(t->csv), kept) != 0 || fseek(t->csv, kept, SEEK_SET) != 0) {
        mdl_error("%s: cannot append to the thermo file: %s", t->path, strerror(errno));
        return MDL_ERUN;
    }
    return MDL_OK;
}

void thermo_header(const mdl_thermo *t)
{
    if (!t->quiet)
        printf("%10s %12s %14s %14s %14s %14s %14s %14s %14s\n", "Step", "Time", "Temp", "PotEng", "KinEng", "TotEng",
               "Press", "Volume", "Conserved");
}

int thermo_open(mdl_thermo *t, const char *path, size_t natoms, int quiet, long append_from)
{
    memset(t, 0, sizeof *t);
    t->natoms = (double)natoms;
    t->quiet = quiet;
    snprintf(t->path, sizeof t->path, "%s", path);
    if (path[0]) {
        /* the file is already claimed (created, locked, empty unless appending): never truncate here */
        t->csv = fopen(path, append_from >= 0 ? "r+" : "w");
        if (!t->csv) {
            mdl_error("%s: cannot write the thermo file: %s", path, strerror(errno));
            return MDL_EINPUT;
        }
        int rc = append_from >= 0 ? cut_rows(t, append_from) : MDL_OK;
        if (append_from < 0)
            fprintf(t->csv, "%s\n", MDL_THERMO_HEADER);
        if (rc != MDL_OK) {
            fclose(t->csv);
            t->csv = NULL;
            return rc;
        }
    }
    thermo_header(t);
    return MDL_OK;
}

int thermo_write(mdl_thermo *t, long step, double time, const mdl_observables *o)
{
    double pe = o->potential / t->natoms, ke = o->kinetic / t->natoms, conserved = pe + ke + o->ecouple / t->natoms;
    if (!t->quiet) {
        printf("%10ld %12.6g %14.8g %14.8g %14.8g %14.8g %14.8g %14.8g %14.8g\n", step, time, o->temperature, pe, ke,
               pe + ke, o->pressure, o->volume, conserved);
        fflush(stdout);
    }
    if (t->csv) {
        fprintf(t->csv, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", step, time, o->temperature, pe, ke,
                pe + ke, o->pressure, o->volume, conserved);
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

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
        fprintf(t->csv, "%s\n", t->header);
        return MDL_OK;
    }
    if (strncmp(line, t->header, strlen(t->header)) != 0 || (line[strlen(t->header)] != '\n' &&
                                                            line[strlen(t->header)] != '\0')) {
        mdl_error("%s: cannot append to it: its first line is not this run's thermo header (%s)", t->path,
                  t->header);
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

/* LAMMPS's thermo_style custom keywords mdlite has: name, the table's label, an energy (per atom
   with norm). */
enum { C_STEP, C_TIME, C_TEMP, C_PE, C_KE, C_ETOTAL, C_PRESS, C_VOL, C_DENSITY, C_LX, C_LY, C_LZ, C_ENTHALPY,
       C_ECONSERVE, C_COUNT };
static const struct {
    const char *name, *label;
} COLUMNS[C_COUNT] = {{"step", "Step"},     {"time", "Time"},   {"temp", "Temp"},     {"pe", "PotEng"},
                      {"ke", "KinEng"},     {"etotal", "TotEng"}, {"press", "Press"},  {"vol", "Volume"},
                      {"density", "Density"}, {"lx", "Lx"},       {"ly", "Ly"},         {"lz", "Lz"},
                      {"enthalpy", "Enthalpy"}, {"econserve", "Econserve"}};

/* Column c's value in a row (LAMMPS's thermo keywords; norm: energies, and enthalpy's p V, per atom). */
static double column(const mdl_thermo *t, int c, long step, double time, const mdl_observables *o)
{
    const double per = t->norm ? t->natoms : 1.0, etotal = (o->potential + o->kinetic) / per;
    switch (c) {
    case C_STEP: return (double)step;
    case C_TIME: return time;
    case C_TEMP: return o->temperature;
    case C_PE: return o->potential / per;
    case C_KE: return o->kinetic / per;
    case C_ETOTAL: return etotal;
    case C_PRESS: return o->pressure;
    case C_VOL: return o->volume;
    case C_DENSITY: return t->mass * t->mv2d / o->volume;
    case C_LX: case C_LY: case C_LZ: return o->box_len[c - C_LX];
    case C_ENTHALPY: return etotal + o->pressure * (o->volume / per) / t->nktv2p;
    default: return (o->potential + o->kinetic + o->ecouple) / per;
    }
}

/* The columns named in `names` (LAMMPS's words, space-separated) into t; the CSV's header. */
static int parse_columns(mdl_thermo *t, const char *names, const char *origin)
{
    char buf[MDL_PATH_LEN];
    snprintf(buf, sizeof buf, "%s", names);
    t->header[0] = '\0';
    for (char *save = NULL, *w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
        int c = 0;
        while (c < C_COUNT && strcmp(COLUMNS[c].name, w) != 0)
            c++;
        if (c == C_COUNT || t->ncol == MDL_THERMO_MAX_COLUMNS) {
            mdl_error("%s: [output] thermo_columns: '%s' is not one of step time temp pe ke etotal press vol density "
                      "lx ly lz enthalpy econserve%s", origin, w, c < C_COUNT ? " (too many columns)" : "");
            return MDL_EINPUT;
        }
        t->col[t->ncol++] = c;
        snprintf(t->header + strlen(t->header), sizeof t->header - strlen(t->header), "%s%s", t->ncol > 1 ? "," : "",
                 w);
    }
    if (t->ncol == 0 || t->col[0] != C_STEP) { /* rows are cut and appended by their step */
        mdl_error("%s: [output] thermo_columns: the first column must be step", origin);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

int thermo_check_style(const mdl_thermo_style *style)
{
    mdl_thermo t;
    memset(&t, 0, sizeof t);
    return style->columns && style->columns[0] ? parse_columns(&t, style->columns, style->origin) : MDL_OK;
}

void thermo_header(const mdl_thermo *t)
{
    if (t->quiet)
        return;
    if (t->ncol == 0) {
        printf("%10s %12s %14s %14s %14s %14s %14s %14s %14s\n", "Step", "Time", "Temp", "PotEng", "KinEng",
               "TotEng", "Press", "Volume", "Conserved");
        return;
    }
    for (int k = 0; k < t->ncol; k++)
        printf(k == 0 ? "%10s" : " %14s", COLUMNS[t->col[k]].label);
    printf("\n");
}

int thermo_open(mdl_thermo *t, const char *path, size_t natoms, int quiet, long append_from,
                const mdl_thermo_style *style)
{
    memset(t, 0, sizeof *t);
    t->natoms = (double)natoms;
    t->quiet = quiet;
    t->norm = style->norm;
    t->mass = style->mass, t->nktv2p = style->u->nktv2p, t->mv2d = style->u->mv2d;
    snprintf(t->header, sizeof t->header, "%s", MDL_THERMO_HEADER);
    if (style->columns && style->columns[0])
        MDL_TRY(parse_columns(t, style->columns, style->origin));
    t->csv_default = style->csv_default;
    if (t->csv_default) /* the table's columns on the screen, mdlite's in the CSV */
        snprintf(t->header, sizeof t->header, "%s", MDL_THERMO_HEADER);
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
            fprintf(t->csv, "%s\n", t->header);
        if (rc != MDL_OK) {
            fclose(t->csv);
            t->csv = NULL;
            return rc;
        }
    }
    thermo_header(t);
    return MDL_OK;
}

/* A row of LAMMPS's columns: the table (%14.8g; step as an integer) and the CSV (%.17g). */
static void write_columns(mdl_thermo *t, long step, double time, const mdl_observables *o)
{
    for (int k = 0; k < t->ncol && !t->quiet; k++) {
        if (t->col[k] == C_STEP)
            printf(k == 0 ? "%10ld" : " %14ld", step);
        else
            printf(" %14.8g", column(t, t->col[k], step, time, o));
    }
    if (!t->quiet)
        printf("\n"), fflush(stdout);
    for (int k = 0; k < t->ncol && t->csv && !t->csv_default; k++) {
        if (t->col[k] == C_STEP)
            fprintf(t->csv, k == 0 ? "%ld" : ",%ld", step);
        else
            fprintf(t->csv, ",%.17g", column(t, t->col[k], step, time, o));
    }
    if (t->csv && !t->csv_default)
        fputc('\n', t->csv);
}

int thermo_write(mdl_thermo *t, long step, double time, const mdl_observables *o)
{
    const double per = t->norm ? t->natoms : 1.0;
    double pe = o->potential / per, ke = o->kinetic / per, conserved = pe + ke + o->ecouple / per;
    if (t->ncol > 0)
        write_columns(t, step, time, o);
    if (t->ncol == 0 || t->csv_default) {
        if (!t->quiet && t->ncol == 0) {
            printf("%10ld %12.6g %14.8g %14.8g %14.8g %14.8g %14.8g %14.8g %14.8g\n", step, time, o->temperature, pe,
                   ke, pe + ke, o->pressure, o->volume, conserved);
            fflush(stdout);
        }
        if (t->csv)
            fprintf(t->csv, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", step, time, o->temperature, pe,
                    ke, pe + ke, o->pressure, o->volume, conserved);
    }
    if (t->csv && (fflush(t->csv) != 0 || ferror(t->csv))) {
        mdl_error("%s: cannot write the thermo file: %s", t->path, strerror(errno));
        return MDL_ERUN;
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

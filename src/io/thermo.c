/* Writes thermo rows: the table for people (LAMMPS's columns and formats, thermo_modify format and
   line multi, or mdlite's own), %.17g CSV for programs. The CSV's energies say in their names whether
   they are per atom. */
#define _POSIX_C_SOURCE 200809L
#include "thermo.h"

#include "thermo_columns.h"
#include "../util/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* mdlite's own columns: the CSV's, and the table's without thermo_columns. */
static void own_header(char *out, size_t size, int norm)
{
    const char *per = norm ? "_per_atom" : "";
    snprintf(out, size, "step,time,temperature,potential_energy%s,kinetic_energy%s,total_energy%s,pressure,volume,"
             "conserved%s", per, per, per, per);
}

/* Keeps the header and the rows before step `from` of an existing CSV, cuts the rest; an empty
   file gets the header. MDL_EINPUT when the file is not this run's kind of thermo CSV. */
static int cut_rows(mdl_thermo *t, long from)
{
    char line[4096];
    long kept = 0;
    rewind(t->csv);
    if (!fgets(line, sizeof line, t->csv)) {
        fprintf(t->csv, "%s\n", t->header);
        return MDL_OK;
    }
    line[strcspn(line, "\r\n")] = '\0';
    if (strcmp(line, t->header) != 0) {
        char other[1024];
        own_header(other, sizeof other, !t->norm);
        const int norm_differs = strcmp(line, other) == 0;
        mdl_error("%s: cannot append to it: %s (its first line is '%.200s', this run's '%s')", t->path,
                  norm_differs ? t->norm ? "its energies are totals and this run's per atom (thermo_norm)"
                                         : "its energies are per atom and this run's totals (thermo_norm)"
                               : "it holds other columns than this run's",
                  line, t->header);
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

/* A C format LAMMPS's thermo_modify format takes: text and one conversion %[-+ #0][width][.prec]
   and d, i, e, E, f, F, g or G (an l or ll before d or i is allowed). */
static int format_ok(const char *f)
{
    int conversions = 0;
    for (const char *p = f; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        p++;
        p += strspn(p, "-+ #0");
        for (int d = 0; isdigit((unsigned char)*p); p++)
            if (++d > 3)
                return 0;
        if (*p == '.')
            for (int d = 0; isdigit((unsigned char)*++p);)
                if (++d > 3)
                    return 0;
        if (*p == 'l')
            p += p[1] == 'l' ? 2 : 1;
        if (!*p || !strchr("dieEfFgG", *p))
            return 0;
        conversions++;
    }
    return conversions == 1 && strlen(f) < 64;
}

/* The formats "line=F F ...;int=F;float=F;N=F" into each column's (column N over int or float over
   line, as LAMMPS ranks them). */
static int parse_formats(mdl_thermo *t, const char *spec, const char *origin)
{
    char *copy = strdup(spec ? spec : ""), *save = NULL;
    char *line = NULL, *fint = NULL, *ffloat = NULL, *col[MDL_THERMO_MAX_COLUMNS] = {0};
    int rc = copy ? MDL_OK : MDL_ERUN;
    for (char *part = copy ? strtok_r(copy, ";", &save) : NULL; part && rc == MDL_OK; part = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(part, '=');
        long n = 0;
        if (eq)
            *eq++ = '\0';
        if (eq && !strcmp(part, "line"))
            line = eq;
        else if (eq && !strcmp(part, "int") && format_ok(eq))
            fint = eq;
        else if (eq && !strcmp(part, "float") && format_ok(eq))
            ffloat = eq;
        else if (eq && mdl_parse_long(part, &n) == 0 && n >= 1 && n <= t->ncol && format_ok(eq))
            col[n - 1] = eq;
        else {
            mdl_error("%s: [output] thermo_format: '%s%s%s': expected line, int, float or a column 1 to %d, each with "
                      "one C conversion (%%d, %%g, %%f, %%e, ... with flags, width and precision)",
                      origin, part, eq ? "=" : "", eq ? eq : "", t->ncol);
            rc = MDL_EINPUT;
        }
    }
    char *save2 = NULL, *w = line ? strtok_r(line, " \t", &save2) : NULL;
    for (int k = 0; k < t->ncol && rc == MDL_OK; k++, w = w ? strtok_r(NULL, " \t", &save2) : NULL) {
        const char *f = col[k] ? col[k] : thermo_integer(t->col[k]) ? fint : ffloat;
        if (!f && w && format_ok(w))
            f = w;
        else if (!f && w) {
            mdl_error("%s: [output] thermo_format: line: '%s' is not one C conversion", origin, w);
            rc = MDL_EINPUT;
        }
        if (f && rc == MDL_OK && !(t->fmt[k] = strdup(f)))
            rc = MDL_ERUN;
    }
    free(copy);
    return rc;
}

/* The LAMMPS columns named in `names` into t; the CSV's header. */
static int parse_columns(mdl_thermo *t, const char *names, const char *origin, int csv_default, const char *vars,
                         const char *fixes)
{
    char *buf = strdup(names);
    if (!buf)
        return MDL_ERUN;
    t->header[0] = '\0';
    int rc = MDL_OK;
    for (char *save = NULL, *w = strtok_r(buf, " \t,", &save); w && rc == MDL_OK; w = strtok_r(NULL, " \t,", &save)) {
        const int c = !strncmp(w, "v_", 2)   ? thermo_variable_add(t, w, vars ? vars : "", origin)
                      : !strncmp(w, "f_", 2) ? thermo_fix_add(t, w, fixes ? fixes : "", origin)
                      : !strncmp(w, "c_", 2) ? thermo_compute_add(t, w, origin)
                                             : thermo_column_index(w);
        if (c < 0 && (!strncmp(w, "v_", 2) || !strncmp(w, "f_", 2) || !strncmp(w, "c_", 2))) {
            rc = MDL_EINPUT;
            break;
        }
        if (c < 0 || t->ncol == MDL_THERMO_MAX_COLUMNS) {
            mdl_error("%s: [output] thermo_columns: '%s' %s", origin, w,
                      c < 0 ? "is not a thermo keyword mdlite has; it has:" : "is one column too many (64 at most)");
            if (c < 0)
                fprintf(stderr, "  %s\n", thermo_column_names());
            rc = MDL_EINPUT;
            break;
        }
        t->col[t->ncol++] = c;
        snprintf(t->header + strlen(t->header), sizeof t->header - strlen(t->header), "%s%s", t->ncol > 1 ? "," : "",
                 w);
    }
    free(buf);
    if (rc == MDL_OK)
        rc = thermo_check_variables(t, origin);
    if (rc == MDL_OK && !csv_default && (t->ncol == 0 || t->col[0] != thermo_column_index("step"))) {
        mdl_error("%s: [output] thermo_columns: the first column must be step (the CSV's rows are cut and appended by "
                  "it)", origin);
        rc = MDL_EINPUT;
    }
    return rc;
}

static void free_formats(mdl_thermo *t)
{
    for (int k = 0; k < t->ncol; k++)
        free(t->fmt[k]), t->fmt[k] = NULL;
    for (int j = 0; j < t->nvar; j++)
        free(t->var_label[j]), free(t->var_formula[j]), t->var_label[j] = t->var_formula[j] = NULL;
    t->nvar = 0, t->nfixcol = 0, t->ncompcol = 0;
}

int thermo_check_style(const mdl_thermo_style *style)
{
    mdl_thermo t;
    memset(&t, 0, sizeof t);
    t.computes = style->computes;
    int rc = MDL_OK;
    if (style->columns && style->columns[0])
        rc = parse_columns(&t, style->columns, style->origin, style->csv_default, style->variables, style->fixes);
    if (rc == MDL_OK && style->formats && style->formats[0])
        rc = parse_formats(&t, style->formats, style->formats_origin);
    free_formats(&t);
    return rc;
}

int thermo_check_message_formula(const mdl_thermo_style *style, const char *formula, mdl_buf *why)
{
    mdl_thermo t;
    memset(&t, 0, sizeof t);
    t.computes = style->computes;
    int rc = style->columns && style->columns[0]
                 ? parse_columns(&t, style->columns, style->origin, style->csv_default, style->variables, style->fixes)
                 : MDL_OK;
    if (rc == MDL_OK)
        rc = thermo_check_formula(&t, formula, why);
    free_formats(&t);
    return rc;
}

int thermo_restyle(mdl_thermo *t, const mdl_thermo_style *style)
{
    char header[sizeof t->header];
    memcpy(header, t->header, sizeof header); /* the CSV's, which a stage does not change */
    free_formats(t);
    t->ncol = 0;
    t->multi = style->multi;
    t->computes = style->computes;
    int rc = style->columns && style->columns[0] ? parse_columns(t, style->columns, style->origin, t->csv_default, style->variables, style->fixes)
                                                  : MDL_OK;
    if (rc == MDL_OK && style->formats && style->formats[0])
        rc = parse_formats(t, style->formats, style->formats_origin);
    memcpy(t->header, header, sizeof header);
    return rc;
}

int thermo_needs(const mdl_thermo *t)
{
    int needs = t->multi ? MDL_THERMO_NEEDS_CLOCK : 0;
    for (int k = 0; k < t->ncol; k++)
        needs |= thermo_needs_of(t, t->col[k]);
    return needs;
}

void thermo_header(const mdl_thermo *t)
{
    if (t->quiet || t->multi)
        return;
    if (t->ncol == 0) {
        mdl_say("%10s %12s %14s %14s %14s %14s %14s %14s %14s\n", "Step", "Time", "Temp", "PotEng", "KinEng",
                "TotEng", "Press", "Volume", "Conserved");
        return;
    }
    for (int k = 0; k < t->ncol; k++) /* LAMMPS's: each name and a blank */
        mdl_say("%s ", thermo_label(t, t->col[k]));
    mdl_say("\n");
}

int thermo_open(mdl_thermo *t, mdl_outfile *out, size_t natoms, int quiet, long append_from,
                const mdl_thermo_style *style)
{
    memset(t, 0, sizeof *t);
    t->natoms = (double)natoms;
    t->quiet = quiet;
    t->norm = style->norm;
    t->multi = style->multi;
    t->mass = style->mass, t->nktv2p = style->u->nktv2p, t->mv2d = style->u->mv2d, t->mvv2e = style->u->mvv2e;
    t->computes = style->computes;
    own_header(t->header, sizeof t->header, t->norm);
    if (style->columns && style->columns[0])
        MDL_TRY(parse_columns(t, style->columns, style->origin, style->csv_default, style->variables, style->fixes));
    if (style->formats && style->formats[0])
        MDL_TRY(parse_formats(t, style->formats, style->formats_origin));
    t->csv_default = style->csv_default;
    if (t->csv_default || t->ncol == 0) /* the table's columns on the screen, mdlite's in the CSV */
        own_header(t->header, sizeof t->header, t->norm);
    t->out = out;
    if (out) {
        snprintf(t->path, sizeof t->path, "%s", out->path);
        /* the file is claimed (an empty temporary file, or the file itself to append to) */
        t->csv = fopen(outfile_target(out), append_from >= 0 ? "r+" : "w");
        if (!t->csv) {
            mdl_error("%s: cannot write the thermo file: %s", t->path, strerror(errno));
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

/* A value in the table: the column's format (an integer one with an integer, a float one with a
   float, whichever the column is) or LAMMPS's default (%8ld, %12.8g; line multi: %14ld, %14.4f). */
static void say_value(const mdl_thermo *t, int k, double v)
{
    const int integer = thermo_integer(t->col[k]);
    const char *f = t->fmt[k];
    if (!f) {
        if (integer)
            mdl_say(t->multi ? "%14lld" : "%8lld", (long long)v);
        else
            mdl_say(t->multi ? "%14.4f" : "%12.8g", v);
        return;
    }
    const char *p = f;
    while ((p = strchr(p, '%')) && p[1] == '%')
        p += 2;
    p += 1 + strspn(p + 1, "-+ #0123456789.");
    const char *conv = p + strspn(p, "l"); /* format_ok: one of dieEfFgG */
    const int int_conv = *conv == 'd' || *conv == 'i';
    char spec[160];
    snprintf(spec, sizeof spec, "%.*s%s%s", (int)(p - f), f, int_conv ? "ll" : "", conv);
    if (int_conv)
        mdl_say(spec, (long long)v);
    else
        mdl_say(spec, v);
}

/* A row of LAMMPS's columns: the table (one line, or multi's lines) and the CSV (%.17g). */
static void write_columns(mdl_thermo *t, long step, double time, const mdl_observables *o, const mdl_thermo_extra *x)
{
    mdl_thermo_extra shown = *x; /* the table's steps: shifted, elapsed and elaplong as they were */
    shown.first -= t->step_shift, shown.run_first -= t->step_shift;
    if (!t->quiet && t->multi)
        mdl_say("---------------- Step %8ld ----- CPU = %11.4f (sec) ----------------", step - t->step_shift, x->cpu);
    for (int k = 0; k < t->ncol && !t->quiet; k++) {
        if (t->multi)
            mdl_say("%s%-8s = ", k % 3 == 0 ? "\n" : "", thermo_label(t, t->col[k]));
        say_value(t, k, thermo_value(t, t->col[k], step - t->step_shift, time, o, &shown));
        mdl_say(" ");
    }
    if (!t->quiet)
        mdl_say("\n"), mdl_say_flush();
    for (int k = 0; k < t->ncol && t->csv && !t->csv_default; k++) {
        const double v = thermo_value(t, t->col[k], step, time, o, x);
        if (thermo_integer(t->col[k]))
            fprintf(t->csv, k == 0 ? "%lld" : ",%lld", (long long)v);
        else
            fprintf(t->csv, k == 0 ? "%.17g" : ",%.17g", v);
    }
    if (t->csv && !t->csv_default)
        fputc('\n', t->csv);
}

int thermo_write(mdl_thermo *t, long step, double time, const mdl_observables *o, const mdl_thermo_extra *x)
{
    const double per = t->norm ? t->natoms : 1.0;
    double pe = (o->potential + o->fix_energy) / per, ke = o->kinetic / per, conserved = pe + ke + o->ecouple / per;
    if (t->ncol > 0)
        write_columns(t, step, time, o, x);
    if (t->ncol == 0 || t->csv_default) {
        if (!t->quiet && t->ncol == 0) {
            mdl_say("%10ld %12.6g %14.8g %14.8g %14.8g %14.8g %14.8g %14.8g %14.8g\n", step - t->step_shift, time,
                    o->temperature, pe, ke, pe + ke, o->pressure, o->volume, conserved);
            mdl_say_flush();
        }
        if (t->csv)
            fprintf(t->csv, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", step, time, o->temperature, pe,
                    ke, pe + ke, o->pressure, o->volume, conserved);
    }
    if (t->csv && (fflush(t->csv) != 0 || ferror(t->csv))) {
        mdl_error("%s: cannot write the thermo file: %s", t->path, strerror(errno));
        return MDL_ERUN;
    }
    if (t->failed)
        return MDL_ERUN;
    return t->csv ? outfile_publish(t->out) : MDL_OK; /* its first row is in: the file takes its name */
}

int thermo_close(mdl_thermo *t)
{
    int rc = MDL_OK;
    if (t->csv && fclose(t->csv) != 0) {
        mdl_error("%s: cannot finish the thermo file: %s", t->path, strerror(errno));
        rc = MDL_ERUN;
    }
    t->csv = NULL;
    free_formats(t);
    return rc;
}

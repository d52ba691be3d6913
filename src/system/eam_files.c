/* EAM potential files as LAMMPS reads them: the lines, numbers and tables of DYNAMO funcfl files and
   of setfl / Finnis-Sinclair files, with file:line messages; a file of the other kind named as such. */
#define _POSIX_C_SOURCE 200809L
#include "eam_files.h"

#include "../physics/elements.h"

#include "../util/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- a potential file's lines and numbers --------------------------------------------------- */

typedef struct {
    FILE *f;
    const char *path;
    long line;
    long bytes;            /* the file's size: no table it claims may hold more values than it could */
    char buf[4096];
    char *next;            /* the rest of buf's tokens (NULL: read the next line) */
} eam_reader;

static int fail_at(const eam_reader *r, const char *why)
{
    mdl_error("%s:%ld: %s", r->path, r->line, why);
    return MDL_EINPUT;
}

/* The next line into buf (MDL_EINPUT at the file's end or on a line too long). */
static int next_line(eam_reader *r, const char *expect)
{
    if (!fgets(r->buf, sizeof r->buf, r->f)) {
        r->line++;
        char why[160];
        snprintf(why, sizeof why, "the file ends where %s should be", expect);
        return fail_at(r, why);
    }
    r->line++;
    if (!strchr(r->buf, '\n') && !feof(r->f))
        return fail_at(r, "a line longer than 4,095 characters");
    r->next = r->buf;
    return MDL_OK;
}

/* The next whitespace-separated token of the current line (NULL: none left). */
static char *token(eam_reader *r)
{
    char *t = r->next ? r->next + strspn(r->next, " \t\r\n\f\v") : NULL;
    if (!t || !*t) {
        r->next = NULL;
        return NULL;
    }
    char *end = t + strcspn(t, " \t\r\n\f\v");
    r->next = *end ? end + 1 : end;
    *end = '\0';
    return t;
}

static int parse_number(const eam_reader *r, const char *t, const char *what, double *v)
{
    if (mdl_parse_double(t, v) != 0 || !isfinite(*v)) {
        char why[200];
        snprintf(why, sizeof why, "%s: '%.40s' is not a finite number", what, t);
        return fail_at(r, why);
    }
    return MDL_OK;
}

static int parse_count(const eam_reader *r, const char *t, const char *what, long most, int *n)
{
    double v;
    MDL_TRY(parse_number(r, t, what, &v));
    if (v != floor(v) || v < 1 || v > (double)most) {
        char why[200];
        snprintf(why, sizeof why, "%s = %.40s: not a count from 1 to %ld (what the file's size could hold)", what, t,
                 most);
        return fail_at(r, why);
    }
    *n = (int)v;
    return MDL_OK;
}

/* n numbers into v[1..n] (LAMMPS's 1-based tables), several to a line, the table ending at a
   line's end. */
static int read_table(eam_reader *r, int n, double *v, const char *what)
{
    for (int i = 1; i <= n;) {
        MDL_TRY(next_line(r, what));
        for (char *t; i <= n && (t = token(r)); i++)
            MDL_TRY(parse_number(r, t, what, &v[i]));
        if (i > n && token(r))
            return fail_at(r, "more numbers on the line than the table holds (a count that disagrees with the "
                              "numbers present?)");
    }
    return MDL_OK;
}

/* The rest of the file holds no number (a count smaller than the numbers present). */
static int nothing_after(eam_reader *r)
{
    while (fgets(r->buf, sizeof r->buf, r->f)) {
        r->line++;
        r->next = r->buf;
        if (token(r))
            return fail_at(r, "numbers past the last table (a count that disagrees with the numbers present?)");
    }
    return MDL_OK;
}

/* "nrho drho nr dr cut": the grids, each spacing positive and the cutoff within the r grid. */

static int read_grid(eam_reader *r, eam_grid *g)
{
    MDL_TRY(next_line(r, "the grid line (nrho drho nr dr cutoff)"));
    const char *t[5];
    for (int k = 0; k < 5; k++)
        if (!(t[k] = token(r)))
            return fail_at(r, "expected nrho drho nr dr cutoff");
    const long most = r->bytes / 2 + 1;
    MDL_TRY(parse_count(r, t[0], "nrho", most, &g->nrho));
    MDL_TRY(parse_number(r, t[1], "drho", &g->drho));
    MDL_TRY(parse_count(r, t[2], "nr", most, &g->nr));
    MDL_TRY(parse_number(r, t[3], "dr", &g->dr));
    MDL_TRY(parse_number(r, t[4], "cutoff", &g->cut));
    if (g->nrho < 5 || g->nr < 5)
        return fail_at(r, "nrho and nr must be at least 5 (LAMMPS's splines take 5 points)");
    if (!(g->drho > 0) || !(g->dr > 0))
        return fail_at(r, "drho and dr must be positive");
    if (!(g->cut > 0) || g->cut > g->nr * g->dr * (1 + 1e-12)) /* files often end the table one dr short of it */
        return fail_at(r, "the cutoff must be positive and within the r table (nr dr)");
    return MDL_OK;
}

static int open_reader(eam_reader *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    MDL_TRY(mdl_check_input_file(path, "potential file"));
    struct stat st;
    if (!(r->f = fopen(path, "r")) || fstat(fileno(r->f), &st) != 0) {
        mdl_error("%s: cannot open the potential file: %s", path, strerror(errno));
        if (r->f)
            fclose(r->f);
        r->f = NULL;
        return MDL_EINPUT;
    }
    r->bytes = (long)st.st_size;
    return MDL_OK;
}

/* ---- the files --------------------------------------------------------------------------------- */

/* One element's tables as read (1-based), on the file's grid. */

void eam_file_free(eam_file *f)
{
    for (int i = 0; i < f->nelem; i++) {
        free(f->el[i].frho), free(f->el[i].rhor), free(f->el[i].zr);
        for (int j = 0; j <= i; j++)
            free(f->z2r[i][j]);
    }
    memset(f, 0, sizeof *f);
}

double *eam_table(int n)
{
    return mdl_alloc((size_t)(n + 1) * sizeof(double), "EAM tables");
}

/* Which kind of EAM file path looks like from its first lines: 'f' a DYNAMO funcfl file (line 2
   "Z mass a lattice", line 3 the grid's five numbers), 's' a setfl or fs file (line 4 "N el1 ..
   elN"), 0 neither (the reader then says what is wrong where). */
static int file_kind(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[4][512];
    int n = 0;
    while (f && n < 4 && fgets(line[n], sizeof line[n], f))
        n++;
    if (f)
        fclose(f);
    double a, b, c, d, e;
    int z;
    char word[64];
    if (n >= 3 && sscanf(line[1], "%d %lf %lf %63s", &z, &a, &b, word) == 4 &&
        sscanf(line[2], "%lf %lf %lf %lf %lf", &a, &b, &c, &d, &e) == 5)
        return 'f';
    int count, used = 0;
    if (n == 4 && sscanf(line[3], "%d%n", &count, &used) == 1 && count >= 1) {
        const char *p = line[3] + used;
        int names = 0;
        while (sscanf(p, "%63s%n", word, &used) == 1 && !(word[0] >= '0' && word[0] <= '9'))
            names++, p += used;
        if (names == count)
            return 's';
    }
    return 0;
}

const char *eam_kind_mismatch(const char *path, int setfl)
{
    const int kind = file_kind(path);
    if (!kind || kind == (setfl ? 's' : 'f'))
        return NULL;
    return kind == 'f' ? "a DYNAMO funcfl file (one element): LAMMPS's pair_style eam reads it, one per type (pair_coeff "
                         "I I FILE; [potential] style = eam, file.X)"
                       : "a setfl file (its elements named on line 4): LAMMPS's pair_style eam/alloy or eam/fs reads it "
                         "(pair_coeff * * FILE E1 E2 ...; [potential] file, element.X)";
}

/* A DYNAMO funcfl file: comment; "Z mass a lattice"; the grid; F(rho), Z(r), rho(r). */
int eam_read_funcfl(const char *path, eam_element *e)
{
    eam_reader r;
    MDL_TRY(open_reader(&r, path));
    int rc = next_line(&r, "the comment line");
    if (rc == MDL_OK)
        rc = next_line(&r, "the element line (Z mass lattice-constant lattice)");
    const char *z_text = rc == MDL_OK ? token(&r) : NULL, *m = z_text ? token(&r) : NULL;
    if (rc == MDL_OK && !m)
        rc = fail_at(&r, "expected Z mass lattice-constant lattice");
    long z = 0;
    if (rc == MDL_OK && mdl_parse_long(z_text, &z) == 0) /* the element's atomic number: its symbol names it */
        mdl_element_symbol((int)z, e->name);
    if (rc == MDL_OK)
        rc = parse_number(&r, m, "mass", &e->mass);
    if (rc == MDL_OK && !(e->mass > 0))
        rc = fail_at(&r, "the mass must be positive");
    if (rc == MDL_OK)
        rc = read_grid(&r, &e->g);
    if (rc == MDL_OK && !((e->frho = eam_table(e->g.nrho)) && (e->zr = eam_table(e->g.nr)) && (e->rhor = eam_table(e->g.nr))))
        rc = MDL_ERUN;
    if (rc == MDL_OK)
        rc = read_table(&r, e->g.nrho, e->frho, "F(rho)");
    if (rc == MDL_OK)
        rc = read_table(&r, e->g.nr, e->zr, "Z(r)");
    if (rc == MDL_OK)
        rc = read_table(&r, e->g.nr, e->rhor, "rho(r)");
    if (rc == MDL_OK)
        rc = nothing_after(&r);
    fclose(r.f);
    return rc;
}

/* A setfl (alloy) or Finnis-Sinclair (fs) file: 3 comment lines; "N el1 .. elN"; the grid; per
   element "Z mass a lattice", F(rho) and rho(r) (fs: N of them, rho from each element); then r phi
   for each pair i >= j. */
int eam_read_setfl(const char *path, int fs, eam_file *f)
{
    eam_reader r;
    MDL_TRY(open_reader(&r, path));
    int rc = MDL_OK;
    for (int k = 0; k < 3 && rc == MDL_OK; k++)
        rc = next_line(&r, "the three comment lines");
    if (rc == MDL_OK)
        rc = next_line(&r, "the elements line (N names)");
    const char *t = rc == MDL_OK ? token(&r) : NULL;
    if (rc == MDL_OK)
        rc = t ? parse_count(&r, t, "the number of elements", MDL_MAX_SPECIES, &f->nelem)
               : fail_at(&r, "expected the number of elements and their names");
    for (int i = 0; i < f->nelem && rc == MDL_OK; i++) {
        const char *name = token(&r);
        if (!name || !species_name_valid(name))
            rc = fail_at(&r, "expected as many element names (letters, digits, '_' or '-') as the count says");
        else
            mdl_copy(f->el[i].name, MDL_NAME_LEN, name);
    }
    if (rc == MDL_OK && token(&r))
        rc = fail_at(&r, "more element names than the count says");
    if (rc == MDL_OK)
        rc = read_grid(&r, &f->g);
    const int nrhor = fs ? f->nelem : 1;
    for (int i = 0; i < f->nelem && rc == MDL_OK; i++) {
        eam_element *e = &f->el[i];
        rc = next_line(&r, "an element's line (Z mass lattice-constant lattice)");
        const char *z = rc == MDL_OK ? token(&r) : NULL, *m = z ? token(&r) : NULL;
        if (rc == MDL_OK)
            rc = m ? parse_number(&r, m, "mass", &e->mass) : fail_at(&r, "expected Z mass lattice-constant lattice");
        if (rc == MDL_OK && !(e->mass > 0))
            rc = fail_at(&r, "the mass must be positive");
        if (rc == MDL_OK && !((e->frho = eam_table(f->g.nrho)) &&
                              (e->rhor = mdl_alloc((size_t)nrhor * (f->g.nr + 1) * sizeof(double), "EAM tables"))))
            rc = MDL_ERUN;
        if (rc == MDL_OK)
            rc = read_table(&r, f->g.nrho, e->frho, "F(rho)");
        for (int j = 0; j < nrhor && rc == MDL_OK; j++)
            rc = read_table(&r, f->g.nr, e->rhor + (size_t)j * (f->g.nr + 1), "rho(r)");
    }
    for (int i = 0; i < f->nelem && rc == MDL_OK; i++)
        for (int j = 0; j <= i && rc == MDL_OK; j++)
            rc = (f->z2r[i][j] = eam_table(f->g.nr)) ? read_table(&r, f->g.nr, f->z2r[i][j], "r phi(r)") : MDL_ERUN;
    if (rc == MDL_OK)
        rc = nothing_after(&r);
    fclose(r.f);
    return rc;
}


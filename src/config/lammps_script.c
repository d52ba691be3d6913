/* LAMMPS input scripts into mdlite's INI: the lines (continuations, comments), variables (index,
   and equal with arithmetic), each command through lammps_commands.c, one stage per run. */
#define _POSIX_C_SOURCE 200809L
#include "lammps_script.h"
#include "lammps_script_state.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>

static int eval_var(script *sc, int k, double *out, int depth);

typedef struct {
    script *sc;
    const char *p;
    int depth, bad;
} expr;

static double parse_sum(expr *e);

static void skip_blanks(expr *e)
{
    while (*e->p == ' ' || *e->p == '\t')
        e->p++;
}

static double parse_atom(expr *e)
{
    skip_blanks(e);
    if (*e->p == '(') {
        e->p++;
        double v = parse_sum(e);
        skip_blanks(e);
        if (*e->p != ')')
            e->bad = 1;
        else
            e->p++;
        return v;
    }
    if (*e->p == '-' || *e->p == '+') {
        int neg = *e->p++ == '-';
        double v = parse_atom(e);
        return neg ? -v : v;
    }
    if (strncmp(e->p, "v_", 2) == 0) {
        char name[32];
        int n = 0;
        for (e->p += 2; (isalnum((unsigned char)*e->p) || *e->p == '_') && n < 31; e->p++)
            name[n++] = *e->p;
        name[n] = '\0';
        double v = 0;
        int k = find_var(e->sc, name);
        if (k < 0 || eval_var(e->sc, k, &v, e->depth + 1) != MDL_OK)
            e->bad = 1;
        return v;
    }
    char *end;
    double v = strtod(e->p, &end);
    if (end == e->p)
        e->bad = 1;
    e->p = end;
    return v;
}

static double parse_power(expr *e)
{
    double v = parse_atom(e);
    skip_blanks(e);
    if (*e->p == '^') {
        e->p++;
        return pow(v, parse_power(e));
    }
    return v;
}

static double parse_product(expr *e)
{
    double v = parse_power(e);
    for (skip_blanks(e); *e->p == '*' || *e->p == '/'; skip_blanks(e)) {
        char op = *e->p++;
        double w = parse_power(e);
        v = op == '*' ? v * w : v / w;
    }
    return v;
}

static double parse_sum(expr *e)
{
    double v = parse_product(e);
    for (skip_blanks(e); *e->p == '+' || *e->p == '-'; skip_blanks(e)) {
        char op = *e->p++;
        double w = parse_product(e);
        v = op == '+' ? v + w : v - w;
    }
    return v;
}

static int eval_var(script *sc, int k, double *out, int depth)
{
    expr e = {sc, sc->var[k].value, depth, depth > 32};
    *out = e.bad ? 0 : parse_sum(&e);
    skip_blanks(&e);
    if (e.bad || *e.p || !isfinite(*out))
        return fail(sc, "variable %s: '%s' is not arithmetic mdlite evaluates (numbers, v_NAME, + - * / ^ and "
                        "parentheses)", sc->var[k].name, sc->var[k].value);
    return MDL_OK;
}

/* A variable's value as LAMMPS substitutes it: an index variable's text, an equal variable's
   number as "%.15g". */
static int var_text(script *sc, const char *name, char *out, size_t size)
{
    int k = find_var(sc, name);
    if (k < 0)
        return fail(sc, "variable %s is not defined", name);
    if (!sc->var[k].equal) {
        snprintf(out, size, "%s", sc->var[k].value);
        return MDL_OK;
    }
    double v;
    MDL_TRY(eval_var(sc, k, &v, 0));
    snprintf(out, size, "%.15g", v);
    return MDL_OK;
}

/* $x and ${name} replaced in line (into out). */
static int substitute(script *sc, const char *line, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = line; *p; p++) {
        char name[64] = "", val[256];
        if (*p != '$') {
            if (n + 1 < size)
                out[n++] = *p;
            continue;
        }
        if (p[1] == '{') {
            const char *end = strchr(p + 2, '}');
            if (!end || end - p - 2 >= (long)sizeof name)
                return fail(sc, "a ${ without its }");
            memcpy(name, p + 2, (size_t)(end - p - 2));
            p = end;
        } else if (p[1] == '(') {
            return fail(sc, "immediate expressions $(...) are not evaluated; use an equal-style variable");
        } else if (p[1]) {
            name[0] = *++p;
        }
        MDL_TRY(var_text(sc, name, val, sizeof val));
        int m = snprintf(out + n, n < size ? size - n : 0, "%s", val);
        n += m > 0 ? (size_t)m : 0;
    }
    if (n >= size)
        return fail(sc, "the line is too long once its variables are substituted");
    out[n] = '\0';
    return MDL_OK;
}

/* ---- the script's lines, and the INI text -------------------------------------------------- */

int lammps_script_detect(const char *text)
{
    const char *p = text;
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3;
    while (*p) {
        p += strspn(p, " \t\r\n");
        if (*p == '#' || *p == ';') {
            p += strcspn(p, "\n");
            continue;
        }
        if (!*p || *p == '[')
            return 0;
        const size_t n = strcspn(p, "\n"); /* key = value (an INI line outside a section): not a script */
        return memchr(p, '=', n) == NULL;
    }
    return 0;
}

typedef struct {
    char *text;
    size_t len, cap;
    int *line_of;
    int lines, lines_cap;
} ini_out;

static int emit(ini_out *o, int line, const char *fmt, ...)
{
    char buf[1200];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf)
        return MDL_EINPUT;
    if (o->len + (size_t)n + 2 > o->cap) {
        size_t cap = 2 * (o->cap + (size_t)n + 2);
        char *t = realloc(o->text, cap);
        if (!t)
            return MDL_ERUN;
        o->text = t, o->cap = cap;
    }
    if (o->lines == o->lines_cap) {
        int cap = 2 * o->lines_cap + 16, *l = realloc(o->line_of, (size_t)cap * sizeof *l);
        if (!l)
            return MDL_ERUN;
        o->line_of = l, o->lines_cap = cap;
    }
    memcpy(o->text + o->len, buf, (size_t)n);
    o->len += (size_t)n;
    o->text[o->len++] = '\n';
    o->text[o->len] = '\0';
    o->line_of[o->lines++] = line;
    return MDL_OK;
}

static int is_stage_key(const char *key)
{
    static const char *const keys[] = {"steps", "ensemble", "target_temperature", "tau", "every", "chain",
                                       "target_pressure", "pressure_tau", "pressure_chain", "thermo",
                                       "dump_every", "data_file", "etol", "ftol", "maxeval", "dmax", "min_style"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (!strcmp(keys[k], key))
            return 1;
    return 0;
}

/* The sections' keys of the first run (all of them with one run, else those a stage cannot set),
   then one [stage:runK] per run; a key a stage cannot set must not change between runs. */
static int write_ini(script *sc, ini_out *o)
{
    static const char *const sections[] = {"system", "potential", "neighbor", "run", "output"};
    const settings *first = sc->runs[0];
    const int staged = sc->nruns > 1;
    for (int r = 1; r < sc->nruns; r++)
        for (int k = 0; k < sc->runs[r]->n; k++) {
            const setting *a = &sc->runs[r]->s[k], *b = find_key(first, a->key);
            if (!is_stage_key(a->key) && (!b || strcmp(a->value, b->value) != 0)) {
                sc->line = a->line, sc->cmd = "run";
                return fail(sc, "%s changes between runs (line %d): mdlite's stages change the ensemble, thermo, "
                                "dump_every and data_file only", a->key, a->line);
            }
        }
    MDL_TRY(emit(o, 1, "; converted by mdlite from the LAMMPS script %s", sc->path));
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
        MDL_TRY(emit(o, sc->run_line[0], "[%s]", sections[s]));
        if (!strcmp(sections[s], "output")) { /* beside the script, with mdlite's columns */
            MDL_TRY(emit(o, sc->run_line[0], "thermo_file = %sthermo.csv", sc->dir));
            MDL_TRY(emit(o, sc->run_line[0], "thermo_file_columns = mdlite"));
        }
        for (int k = 0; k < first->n; k++)
            if (!strcmp(first->s[k].section, sections[s]) && (!staged || !is_stage_key(first->s[k].key)))
                MDL_TRY(emit(o, first->s[k].line, "%s = %s", first->s[k].key, first->s[k].value));
    }
    for (int r = 0; r < sc->nruns && staged; r++) {
        MDL_TRY(emit(o, sc->run_line[r], "[stage:run%d]", r + 1));
        for (int k = 0; k < sc->runs[r]->n; k++)
            if (is_stage_key(sc->runs[r]->s[k].key))
                MDL_TRY(emit(o, sc->runs[r]->s[k].line, "%s = %s", sc->runs[r]->s[k].key, sc->runs[r]->s[k].value));
    }
    return MDL_OK;
}

/* lj/cut with several types: LAMMPS mixes geometrically by default, mdlite by Lorentz-Berthelot,
   so every cross pair must be listed unless the script asks for arithmetic mixing. */
static int check_mixing(script *sc)
{
    const setting *st = find_key(sc->runs[0], "style");
    if (!st || strcmp(st->value, "lj") != 0 || !strcmp(sc->mix, "arithmetic") || sc->ntypes < 2)
        return MDL_OK;
    for (int i = 1; i <= sc->ntypes; i++)
        for (int j = i + 1; j <= sc->ntypes; j++) {
            int listed = 0;
            for (int k = 0; k < sc->npairs_listed; k++)
                listed |= (atoi(sc->listed[k][0]) == i && atoi(sc->listed[k][1]) == j) ||
                          (atoi(sc->listed[k][0]) == j && atoi(sc->listed[k][1]) == i);
            if (!listed) {
                sc->line = sc->run_line[0], sc->cmd = "pair_coeff";
                return fail(sc, "pair %d %d is not listed: LAMMPS would mix it geometrically, mdlite mixes "
                                "Lorentz-Berthelot; list it, or say pair_modify mix arithmetic", i, j);
            }
        }
    return MDL_OK;
}

/* One command line (its continuations joined, comment cut) substituted and run. */
static int script_line(script *sc, char *line)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    static char expanded[8192];
    MDL_TRY(substitute(sc, line, expanded, sizeof expanded));
    char *w[MAX_WORDS + 1], *save = NULL;
    int nw = 0;
    for (char *t = strtok_r(expanded, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
        if (nw == MAX_WORDS)
            return fail(sc, "more than %d words", MAX_WORDS);
        if (t[0] == '"' || t[0] == '\'')
            return fail(sc, "quoted arguments are not read");
        w[nw++] = t;
    }
    return nw ? lammps_command(sc, w, nw) : MDL_OK;
}

int lammps_script_convert(const char *path, const char *text, char **ini, int **line_of, int *nlines)
{
    script *sc = calloc(1, sizeof *sc);
    char *copy = strdup(text);
    if (!sc || !copy) {
        free(sc);
        free(copy);
        return MDL_ERUN;
    }
    sc->path = path;
    snprintf(sc->units, sizeof sc->units, "lj");
    snprintf(sc->mix, sizeof sc->mix, "geometric");
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(sc->dir, sizeof sc->dir, "%.*s/", (int)(slash - path), path);
    int rc = MDL_OK, line = 1;
    for (char *p = copy; *p && rc == MDL_OK;) {
        char *cmd = p;
        sc->line = line;
        for (;;) { /* the command's lines: a line ending in & goes on */
            char *nl = strchr(p, '\n');
            char *end = nl ? nl : p + strlen(p);
            char *last = end;
            while (last > p && (last[-1] == ' ' || last[-1] == '\t' || last[-1] == '\r'))
                last--;
            p = nl ? nl + 1 : end;
            line += nl != NULL;
            if (last > cmd && last[-1] == '&' && nl) {
                last[-1] = ' ', *nl = ' ';
                continue;
            }
            *end = '\0';
            break;
        }
        sc->cmd = NULL;
        rc = script_line(sc, cmd);
    }
    if (rc == MDL_OK && !sc->nruns) {
        sc->cmd = "run";
        rc = fail(sc, "the script has no run: nothing to do");
    }
    if (rc == MDL_OK)
        rc = check_mixing(sc);
    ini_out o = {0};
    if (rc == MDL_OK)
        rc = write_ini(sc, &o);
    for (int r = 0; r < sc->nruns; r++)
        free(sc->runs[r]);
    free(sc);
    free(copy);
    if (rc != MDL_OK) {
        free(o.text);
        free(o.line_of);
        return rc;
    }
    *ini = o.text, *line_of = o.line_of, *nlines = o.lines;
    return MDL_OK;
}

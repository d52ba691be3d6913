/* A LAMMPS script's variables: the variable command (index, loop, world, universe, uloop, string,
   getenv, equal, internal, format, delete; atom defined but never used), $-substitution, and formulas evaluated once per
   definition (a cache per generation) with references back to a variable refused as a cycle. */
#define _POSIX_C_SOURCE 200809L
#include "lammps_script_state.h"
#include "lammps_expr.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>

static const char *const STYLES[] = {"index", "loop", "world", "universe", "uloop", "string",
                                     "getenv", "equal", "internal", "format", "atom"};

static int find_var(const script *sc, const char *name)
{
    for (int k = 0; k < sc->nvar; k++)
        if (strcmp(sc->var[k].name, name) == 0)
            return k;
    return -1;
}

static void free_var(script_var *v)
{
    free(v->name);
    free(v->value);
    free(v->format);
}

void script_free_vars(script *sc)
{
    for (int k = 0; k < sc->nvar; k++)
        free_var(&sc->var[k]);
    free(sc->var);
    sc->var = NULL, sc->nvar = sc->var_cap = 0;
}

static int var_value(script *sc, int k, double *out, mdl_buf *why);

/* v_name in a formula. */
static int formula_var(void *user, const char *name, double *out, mdl_buf *why)
{
    script *sc = user;
    int k = find_var(sc, name);
    if (k < 0) {
        buf_clear(why);
        return buf_addf(why, "v_%s: no variable %s", name, name) == MDL_OK ? MDL_EINPUT : MDL_ERUN;
    }
    return var_value(sc, k, out, why);
}

/* Variable k as a number (an equal's formula evaluated once per generation; another style's text
   read as a number, as LAMMPS reads it in a formula). */
/* The thermo keywords a script's formula may name as it is read: xlat, ylat, zlat (the lattice's
   spacings; 1 without a lattice, LAMMPS's lattice none 1.0). Others are evaluated during a run. */
/* The box's keywords (vol, lx, ly, lz, xlo .. zhi, xy, xz, yz) where the script knows the box as LAMMPS
   has it now: create_box's region, where no face is shrink-wrapped (LAMMPS widens those) and no run had
   a barostat. MDL_OK with its value, or MDL_EINPUT. */
static int box_keyword(const script *sc, const char *name, double *out)
{
    static const char *const KEYS[] = {"xlo", "xhi", "ylo", "yhi", "zlo", "zhi", "lx", "ly", "lz", "xy", "xz", "yz", "vol"};
    int k = 0;
    while (k < 13 && strcmp(KEYS[k], name) != 0)
        k++;
    if (k == 13 || !sc->box_made || sc->box_region < 0)
        return MDL_EINPUT;
    const setting *bd = settings_find(&sc->now, "boundary"); /* a shrink-wrapped face: LAMMPS's box is not the region's */
    int moved = bd && (strchr(bd->value, 's') || strchr(bd->value, 'm'));
    for (int r = 0; r < sc->nruns && !moved; r++) {
        const setting *e = settings_find(&sc->runs[r].keys, "ensemble");
        moved = e && (strstr(e->value, "npt") || strstr(e->value, "nph"));
    }
    if (moved)
        return MDL_EINPUT;
    const double *b = sc->regions[sc->box_region].b, *tilt = sc->regions[sc->box_region].tilt;
    const double len[3] = {b[1] - b[0], b[3] - b[2], b[5] - b[4]};
    *out = k < 6 ? b[k] : k < 9 ? len[k - 6] : k < 12 ? (sc->regions[sc->box_region].prism ? tilt[k - 9] : 0.0)
         : len[0] * len[1] * (sc->dimension == 2 ? 1.0 : len[2]); /* vol: the area in 2-d, as LAMMPS's */
    return MDL_OK;
}

static int script_keyword(void *user, const char *name, double *out, mdl_buf *why)
{
    const script *sc = user;
    if (!strncmp(name, "c_", 2)) { /* a thermo column's formula takes it (io/thermo_columns.c) */
        buf_clear(why);
        return buf_addf(why, "%s: computes in formulas are evaluated during a run; mdlite evaluates variables as it "
                        "reads the script (a thermo column's v_NAME may read one)", name) == MDL_OK ? MDL_EINPUT : MDL_ERUN;
    }
    if (sc->stepping && !strcmp(name, "step")) {
        *out = (double)sc->at_step;
        return MDL_OK;
    }
    if (!strcmp(name, "dt")) { /* the script's timestep, or its units' default (LAMMPS's; one for the whole run) */
        const setting *dt = settings_find(&sc->now, "timestep");
        *out = dt ? atof(dt->value) : !strcmp(sc->units, "metal") ? 0.001 : !strcmp(sc->units, "real") ? 1.0 : 0.005;
        return MDL_OK;
    }
    static const char *const lat[] = {"xlat", "ylat", "zlat"};
    for (int d = 0; d < 3; d++)
        if (!strcmp(name, lat[d]) && !sc->box_made) {
            buf_addf(why, "'%s' before the box exists (LAMMPS: variable evaluation before simulation box is defined)",
                     name);
            return MDL_EINPUT;
        } else if (!strcmp(name, lat[d])) {
            *out = sc->lattice[0] ? sc->crystal.spacing[d] : 1.0;
            return MDL_OK;
        }
    if (box_keyword(sc, name, out) == MDL_OK)
        return MDL_OK;
    buf_addf(why, "'%s': a thermo keyword, or a word LAMMPS's formulas do not have; mdlite evaluates variables as it "
             "reads the script, where LAMMPS evaluates thermo keywords during a run (xlat, ylat, zlat excepted; the "
             "box's vol, lx .. zhi, xy, xz, yz where it cannot have moved)", name);
    return MDL_EINPUT;
}

static int thermo_formula(script *sc, const char *name, int depth, mdl_buf *out);
static int defer(script *sc, const char *formula, int inlined, const char *fmt, mdl_buf *out, const char *why_now);

static int var_value(script *sc, int k, double *out, mdl_buf *why)
{
    script_var *v = &sc->var[k];
    if (v->style == V_FORMAT) {
        int j = find_var(sc, v->value);
        if (j < 0 || sc->var[j].style != V_EQUAL) {
            buf_clear(why);
            buf_addf(why, "format variable %s: %s is not an equal-style variable", v->name, v->value);
            return MDL_EINPUT;
        }
        return var_value(sc, j, out, why);
    }
    if (v->style == V_ATOM) {
        buf_clear(why);
        buf_addf(why, "v_%s: %s is an atom-style variable, which mdlite defines but does not evaluate (LAMMPS: "
                      "atom-style variable in equal-style variable formula)", v->name, v->name);
        return MDL_EINPUT;
    }
    if (v->style != V_EQUAL) {
        if (mdl_parse_double(v->value, out) == 0)
            return MDL_OK;
        buf_clear(why);
        buf_addf(why, "variable %s = '%s' is not a number", v->name, v->value);
        return MDL_EINPUT;
    }
    if (v->evaluated == sc->generation) {
        *out = v->cached;
        return MDL_OK;
    }
    if (v->busy) {
        buf_clear(why);
        buf_addf(why, "variable %s refers back to itself (a circular definition)", v->name);
        return MDL_EINPUT;
    }
    v->busy = 1;
    mdl_buf inner = {0};
    int rc = lammps_expr_eval_thermo(v->value, formula_var, script_keyword, sc, out, &inner);
    v = &sc->var[k];
    v->busy = 0;
    if (rc == MDL_OK) {
        v->cached = *out, v->evaluated = sc->generation;
    } else if (strstr(buf_str(&inner), "variable ") == buf_str(&inner) || strstr(buf_str(&inner), "v_") == buf_str(&inner)) {
        buf_clear(why);
        buf_add(why, buf_str(&inner)); /* a reference's reason: said once, where it arose */
    } else {
        buf_clear(why);
        buf_addf(why, "variable %s = '%s': %s", v->name, v->value, buf_str(&inner));
    }
    buf_free(&inner);
    return rc;
}

int script_linear_in_step(script *sc, const char *name, double *at0, double *per_step)
{
    const int k = find_var(sc, name);
    if (k < 0 || sc->var[k].style != V_EQUAL)
        return script_fail(sc, "v_%s: %s", name, k < 0 ? "no such variable" : "not an equal-style variable");
    static const long steps[4] = {0, 1, 1000, 1048576};
    double v[4];
    mdl_buf why = {0};
    int rc = MDL_OK;
    for (int s = 0; s < 4 && rc == MDL_OK; s++) { /* each step's value afresh (no cached value of another step) */
        sc->stepping = 1, sc->at_step = steps[s], sc->generation++;
        rc = var_value(sc, k, &v[s], &why);
    }
    sc->stepping = 0, sc->generation++;
    if (rc == MDL_EINPUT)
        script_fail(sc, "v_%s: %s", name, buf_str(&why));
    buf_free(&why);
    MDL_TRY(rc);
    *at0 = v[0], *per_step = (v[3] - v[0]) / (double)steps[3];
    const double tol = 1e-12 * (fabs(v[0]) + fabs(v[3]) + 1.0);
    for (int s = 1; s < 3; s++)
        if (!(fabs(v[s] - (v[0] + (double)steps[s] * *per_step)) <= tol))
            return script_fail(sc, "v_%s: its values at steps 0, 1, 1000 and 1048576 (%.17g, %.17g, %.17g, %.17g) lie on "
                               "no line: mdlite moves an indenter at a constant speed", name, v[0], v[1], v[2], v[3]);
    return MDL_OK;
}

int script_evaluate(script *sc, const char *formula, double *out)
{
    mdl_buf why = {0};
    int rc = lammps_expr_eval_thermo(formula, formula_var, script_keyword, sc, out, &why);
    if (rc == MDL_EINPUT)
        script_fail(sc, "'%s': %s", formula, buf_str(&why));
    buf_free(&why);
    return rc;
}

/* A variable's text as LAMMPS substitutes it: an equal's number as %.15g, a format's with its
   format, another style's current value. */
static int var_text(script *sc, const char *name, mdl_buf *out)
{
    int k = find_var(sc, name);
    if (k < 0)
        return script_fail(sc, "variable %s is not defined", name);
    if (sc->var[k].style == V_ATOM)
        return script_fail(sc, "${%s}: %s is an atom-style variable, which has no text to substitute (LAMMPS: "
                           "substitution for illegal variable %s)", name, name, name);
    if (sc->var[k].style != V_EQUAL && sc->var[k].style != V_FORMAT)
        return buf_add(out, sc->var[k].value);
    double v;
    mdl_buf why = {0};
    int rc = var_value(sc, k, &v, &why);
    if (rc == MDL_EINPUT && sc->deferring) { /* ${e} of e equal pe after a run: the run's to evaluate */
        const int j = sc->var[k].style == V_FORMAT ? find_var(sc, sc->var[k].value) : k;
        mdl_buf f = {0};
        rc = thermo_formula(sc, sc->var[j].name, 0, &f);
        if (rc == MDL_OK)
            rc = defer(sc, buf_str(&f), 1, sc->var[k].style == V_FORMAT ? sc->var[k].format : "%.15g", out, buf_str(&why));
        buf_free(&f), buf_free(&why);
        return rc;
    }
    if (rc == MDL_EINPUT)
        script_fail(sc, "%s", buf_str(&why));
    buf_free(&why);
    MDL_TRY(rc);
    return buf_addf(out, sc->var[k].style == V_FORMAT ? sc->var[k].format : "%.15g", v);
}

/* $(formula[:format]) at p ('$' '(' ...): its text into out, *end past its ')'. */
static int immediate(script *sc, const char *p, mdl_buf *out, const char **end)
{
    int depth = 0;
    const char *q = p + 2;
    for (; *q && !(*q == ')' && depth == 0); q++)
        depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
    if (!*q)
        return script_fail(sc, "$( without its ): an immediate formula must close on its line");
    mdl_buf f = {0};
    MDL_TRY(buf_addn(&f, p + 2, (size_t)(q - p - 2)));
    char fmt[32] = "%.20g", *colon = strrchr(f.s, ':');
    int rc = MDL_OK;
    if (colon && colon[1] == '%') { /* LAMMPS's check: %[width].precision then e f g (E F G) */
        const char *c = colon + 2;
        while (isdigit((unsigned char)*c) || *c == ' ')
            c++;
        int ok = *c == '.' && isdigit((unsigned char)c[1]);
        for (c += ok; ok && isdigit((unsigned char)*c); c++)
            ;
        ok = ok && strchr("efgEFG", *c) && *c && !c[1] && strlen(colon + 1) < sizeof fmt;
        if (!ok)
            rc = script_fail(sc, "$(%s): '%s' is not a format LAMMPS takes (%%[width].precision and e, f or g)",
                             f.s, colon + 1);
        else
            snprintf(fmt, sizeof fmt, "%s", colon + 1), *colon = '\0';
    }
    double v;
    mdl_buf why = {0};
    if (rc == MDL_OK && sc->deferring) { /* a print's $(pe) after a run: the run's to evaluate */
        rc = lammps_expr_eval_thermo(f.s, formula_var, script_keyword, sc, &v, &why);
        rc = rc == MDL_EINPUT ? defer(sc, f.s, 0, fmt, out, buf_str(&why)) : rc == MDL_OK ? buf_addf(out, fmt, v) : rc;
    } else if (rc == MDL_OK) {
        rc = script_evaluate(sc, f.s, &v);
        if (rc == MDL_OK)
            rc = buf_addf(out, fmt, v);
    }
    buf_free(&f), buf_free(&why);
    *end = q;
    return rc;
}

int script_substitute(script *sc, const char *line, mdl_buf *out, int quoted)
{
    buf_clear(out);
    MDL_TRY(buf_add(out, ""));
    int quote = 0; /* 1 single, 2 double, 3 triple */
    for (const char *p = line; *p; p++) {
        if (!quote && !quoted && (!strncmp(p, "\"\"\"", 3) || *p == '"' || *p == '\'')) {
            quote = !strncmp(p, "\"\"\"", 3) ? 3 : *p == '"' ? 2 : 1;
            MDL_TRY(buf_addn(out, p, quote == 3 ? 3 : 1));
            p += quote == 3 ? 2 : 0;
            continue;
        }
        if (quote && ((quote == 3 && !strncmp(p, "\"\"\"", 3)) || (quote == 2 && *p == '"') || (quote == 1 && *p == '\''))) {
            MDL_TRY(buf_addn(out, p, quote == 3 ? 3 : 1));
            p += quote == 3 ? 2 : 0;
            quote = 0;
            continue;
        }
        if (*p != '$' || quote) {
            MDL_TRY(buf_addn(out, p, 1));
            continue;
        }
        if (p[1] == '{') {
            const char *end = strchr(p + 2, '}');
            if (!end)
                return script_fail(sc, "a ${ without its }");
            mdl_buf name = {0};
            int rc = buf_addn(&name, p + 2, (size_t)(end - p - 2));
            if (rc == MDL_OK)
                rc = var_text(sc, buf_str(&name), out);
            buf_free(&name);
            MDL_TRY(rc);
            p = end;
        } else if (p[1] == '(') {
            MDL_TRY(immediate(sc, p, out, &p));
        } else if (p[1]) {
            char name[2] = {p[1], '\0'};
            MDL_TRY(var_text(sc, name, out));
            p++;
        } else {
            return script_fail(sc, "a $ at the end of the line names no variable");
        }
    }
    return MDL_OK;
}

static int new_var(script *sc, const char *name, int style, const char *value, const char *format)
{
    if (sc->nvar == sc->var_cap) {
        int cap = 2 * sc->var_cap + 16;
        script_var *v = mdl_realloc(sc->var, (size_t)cap * sizeof *v, "variables");
        if (!v)
            return MDL_ERUN;
        sc->var = v, sc->var_cap = cap;
    }
    script_var *v = &sc->var[sc->nvar];
    *v = (script_var){mdl_strdup(name), style, mdl_strdup(value), format ? mdl_strdup(format) : NULL, 0, -1, 0};
    if (!v->name || !v->value || (format && !v->format)) {
        free_var(v);
        return MDL_ERUN;
    }
    sc->nvar++;
    return MDL_OK;
}

int script_define_index(script *sc, const char *name, char **values, int nvalues)
{
    (void)nvalues; /* the first value: next (which moves on) is not a command mdlite takes */
    return new_var(sc, name, V_INDEX, values[0], NULL);
}

/* variable NAME loop N [pad], loop N1 N2 [pad]: its first value. */
static int loop_value(script *sc, char **w, int nw, mdl_buf *out)
{
    int pad = nw > 4 && !strcmp(w[nw - 1], "pad");
    int nargs = nw - 3 - pad;
    long a, b;
    if (nargs < 1 || nargs > 2)
        return script_fail(sc, "loop: expected N or N1 N2, then pad");
    MDL_TRY(script_count(sc, w[3], 0, 2000000000L, &a));
    b = a;
    if (nargs == 2) {
        MDL_TRY(script_count(sc, w[4], 0, 2000000000L, &b));
        if (b < a)
            return script_fail(sc, "loop %ld %ld: N2 below N1", a, b);
    } else if (a < 1) {
        return script_fail(sc, "loop %ld: N must be 1 or more", a);
    }
    long first = nargs == 2 ? a : 1;
    int width = 0;
    for (long m = b; pad && m > 0; m /= 10)
        width++;
    return buf_addf(out, "%0*ld", pad ? width : 0, first);
}

/* The value a new variable of style k holds. */
static int first_value(script *sc, int k, char **w, int nw, mdl_buf *out)
{
    switch (k) {
    case V_LOOP: case V_ULOOP:
        return loop_value(sc, w, nw, out);
    case V_STRING: case V_EQUAL: case V_ATOM:
        for (int a = 3; a < nw; a++) /* LAMMPS joins the words of an unquoted formula */
            MDL_TRY(buf_addf(out, "%s%s", a > 3 ? " " : "", w[a]));
        return MDL_OK;
    case V_GETENV: {
        const char *e = getenv(w[3]);
        return buf_add(out, e ? e : "");
    }
    case V_INTERNAL: {
        double v;
        MDL_TRY(script_number(sc, w[3], &v));
        return buf_add(out, w[3]);
    }
    case V_FORMAT:
        return buf_add(out, w[3]);
    default: /* index, world, universe: the first value */
        return buf_add(out, w[3]);
    }
}

int cmd_variable(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 2, 100000));
    int k = find_var(sc, w[1]);
    sc->generation++;
    if (!strcmp(w[2], "delete")) {
        if (k >= 0) {
            free_var(&sc->var[k]);
            sc->var[k] = sc->var[--sc->nvar];
        }
        return MDL_OK;
    }
    int style = 0, nstyles = (int)(sizeof STYLES / sizeof STYLES[0]);
    while (style < nstyles && strcmp(STYLES[style], w[2]) != 0)
        style++;
    if (style == nstyles)
        return script_fail(sc, "style %s: mdlite takes the styles index, loop, world, universe, uloop, string, "
                               "getenv, equal, internal, format, atom (defined, not evaluated) and delete (vector, file, "
                               "python and timer variables are evaluated during a run)", w[2]);
    if (nw < 4)
        return script_fail(sc, "variable %s %s: a value is missing", w[1], w[2]);
    for (const char *c = w[1]; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return script_fail(sc, "variable name '%s': letters, digits and underscores only", w[1]);
    if (style == V_FORMAT && nw != 5)
        return script_fail(sc, "variable %s format: expected an equal-style variable and a format", w[1]);
    if (k >= 0 && sc->var[k].style != style)
        return script_fail(sc, "variable %s is a %s variable: LAMMPS cannot redefine it as %s", w[1],
                           STYLES[sc->var[k].style], w[2]);
    if (k >= 0 && style <= V_ULOOP) /* LAMMPS: an index, loop, world, universe or uloop defined again is kept */
        return MDL_OK;
    if ((style == V_WORLD || style == V_UNIVERSE) && nw != 4)
        return script_fail(sc, "%s variable %s: one value per partition, and mdlite runs one partition", w[2], w[1]);
    char *format = NULL;
    if (style == V_FORMAT) {
        const char *f = w[4];
        int ok = f[0] == '%' && strchr("efgEFG", f[strlen(f) - 1]) && strlen(f) < 32;
        for (const char *c = f + 1; ok && c[1]; c++)
            ok = isdigit((unsigned char)*c) || *c == '.' || *c == '-' || *c == '+' || *c == ' ' || *c == '0';
        if (!ok)
            return script_fail(sc, "variable %s format: '%s' is not a floating-point format (%%[flags][width]"
                                   "[.precision] and e, f or g)", w[1], f);
        format = w[4];
    }
    mdl_buf value = {0};
    int rc = first_value(sc, style, w, nw, &value);
    if (rc == MDL_OK && k >= 0) { /* string, getenv, equal, internal, format: replaced */
        free_var(&sc->var[k]);
        sc->var[k] = sc->var[--sc->nvar];
    }
    if (rc == MDL_OK)
        rc = new_var(sc, w[1], style, buf_str(&value), format);
    buf_free(&value);
    return rc;
}

/* A formula's text as a run evaluates it: its v_ references written in (thermo_formula), xlat, ylat and
   zlat as their numbers, its blanks left out. */
static int inline_text(script *sc, const char *text, int depth, mdl_buf *out)
{
    int rc = MDL_OK;
    for (const char *p = text; *p && rc == MDL_OK; p++) {
        if (!strncmp(p, "v_", 2) && (p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
            const char *q = p + 2;
            while (isalnum((unsigned char)*q) || *q == '_')
                q++;
            char ref[256];
            snprintf(ref, sizeof ref, "%.*s", (int)(q - p - 2), p + 2);
            rc = thermo_formula(sc, ref, depth + 1, out);
            p = q - 1;
        } else if (strchr("xyz", *p) && !strncmp(p + 1, "lat", 3) && !(isalnum((unsigned char)p[4]) || p[4] == '_') &&
                   (p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
            double lat;
            const char word[5] = {p[0], 'l', 'a', 't', '\0'};
            rc = script_keyword(sc, word, &lat, &(mdl_buf){0});
            rc = rc ? rc : buf_addf(out, "(%.17g)", lat);
            p += 3;
        } else if (!isspace((unsigned char)*p)) {
            rc = buf_addf(out, "%c", *p);
        }
    }
    return rc;
}

/* Variable `name`'s formula as a v_NAME thermo column evaluates it during a run: its v_ references
   written in (an equal's formula in parentheses, another style's value as it reads in a formula),
   xlat, ylat and zlat as their numbers (the lattice's spacings, as the script knows them now), its
   blanks left out. */
static int thermo_formula(script *sc, const char *name, int depth, mdl_buf *out)
{
    const int k = find_var(sc, name);
    if (k < 0)
        return script_fail(sc, "thermo column v_%s: no variable %s (LAMMPS: could not find thermo custom variable "
                           "name)", name, name);
    script_var *v = &sc->var[k];
    if (v->style == V_ATOM)
        return script_fail(sc, "thermo column v_%s: %s is an atom-style variable, which mdlite does not evaluate",
                           name, name);
    if (v->style != V_EQUAL)
        return depth ? buf_add(out, v->value)
                     : script_fail(sc, "thermo column v_%s: %s is not an equal-style variable (LAMMPS: thermo custom "
                                   "variable is not equal-style variable)", name, name);
    if (depth > 16 || v->busy)
        return script_fail(sc, "thermo column v_%s: its variables refer back to themselves", name);
    v->busy = 1;
    int rc = buf_add(out, "(");
    if (rc == MDL_OK)
        rc = inline_text(sc, v->value, depth, out);
    sc->var[k].busy = 0;
    return rc == MDL_OK ? buf_add(out, ")") : rc;
}

/* Any word or variable a thermo formula may have, as 1 (the run checks them): whether a formula is one a run
   evaluates. */
static int dry_word(void *user, const char *name, double *out, mdl_buf *why)
{
    (void)user, (void)name, (void)why;
    *out = 1.0;
    return MDL_OK;
}

/* A print's formula of thermo keywords or computes, which LAMMPS evaluates as it reads the print after a
   run: into out as MDL_SCRIPT_DEFERRED (FORMULA:FORMAT), its variables written in, for the run to evaluate
   on its last state as it prints the text; why_now, the reason it could not be evaluated now. */
static int defer(script *sc, const char *formula, int inlined, const char *fmt, mdl_buf *out, const char *why_now)
{
    if (!sc->deferring)
        return script_fail(sc, "%s", why_now);
    if (!sc->nruns)
        return script_fail(sc, "%s; before the first run there is no state for a print to read it of", why_now);
    if (sc->changed_since_run[0])
        return script_fail(sc, "%s; a print's run-time values come from the state as the last run left it, and %s "
                           "came after that run", why_now, sc->changed_since_run);
    mdl_buf inl = {0}, why = {0};
    int rc = inlined ? buf_add(&inl, formula) : inline_text(sc, formula, 0, &inl);
    double v;
    if (rc == MDL_OK && lammps_expr_eval_thermo(buf_str(&inl), dry_word, dry_word, sc, &v, &why) != MDL_OK)
        rc = script_fail(sc, "%s", why_now);
    if (rc == MDL_OK)
        rc = buf_addf(out, "%c(%s:%s)", MDL_SCRIPT_DEFERRED, buf_str(&inl), fmt);
    buf_free(&inl), buf_free(&why);
    return rc;
}

int script_thermo_variables(script *sc, const char *columns, mdl_buf *out)
{
    char word[256];
    for (const char *p = columns; *p;) {
        p += strspn(p, " \t");
        const size_t n = strcspn(p, " \t");
        if (n > 2 && n < sizeof word && !strncmp(p, "v_", 2)) {
            snprintf(word, sizeof word, "%.*s", (int)n, p);
            MDL_TRY(buf_addf(out, "%s%s=", out->len ? ";" : "", word + 2));
            MDL_TRY(thermo_formula(sc, word + 2, 0, out));
        }
        p += n;
    }
    return MDL_OK;
}

/* LAMMPS's equal-style formulas by recursive descent, one function per precedence level (lowest
   first: || and |^, &&, == and !=, < <= > >=, + and -, * / %, ^, then unary - and !), with its math
   functions, its constants and its errors (division and modulo by zero, domains of sqrt, ln, log,
   asin, acos). */
#define _POSIX_C_SOURCE 200809L
#include "lammps_expr.h"

#include "../util/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p, *start;
    lammps_var_fn var, keyword; /* keyword: a thermo keyword's value (NULL: refused) */
    void *user;
    mdl_buf *why;
    int rc; /* MDL_OK until the first error, whose reason is in why */
} parser;

static double parse_or(parser *e);

static double error(parser *e, int rc, const char *fmt, const char *arg)
{
    if (e->rc == MDL_OK) {
        buf_clear(e->why);
        if (buf_addf(e->why, fmt, arg) != MDL_OK)
            rc = MDL_ERUN;
        e->rc = rc;
    }
    return 0;
}

static void skip_blanks(parser *e)
{
    while (*e->p == ' ' || *e->p == '\t')
        e->p++;
}

/* The next operator when it is op (consumed), else 0. */
static int take(parser *e, const char *op)
{
    skip_blanks(e);
    size_t n = strlen(op);
    if (strncmp(e->p, op, n) != 0)
        return 0;
    if (n == 1 && (op[0] == '<' || op[0] == '>' || op[0] == '!') && e->p[1] == '=')
        return 0; /* "<" is not the start of "<=" */
    e->p += n;
    return 1;
}

/* A number as LAMMPS reads one: digits, a point, an exponent (no sign, no inf or nan). */
static double number(parser *e)
{
    const char *q = e->p;
    while (isdigit((unsigned char)*q) || *q == '.')
        q++;
    if ((*q == 'e' || *q == 'E') && (isdigit((unsigned char)q[1]) ||
                                     ((q[1] == '+' || q[1] == '-') && isdigit((unsigned char)q[2])))) {
        q += 2;
        while (isdigit((unsigned char)*q))
            q++;
    } else if (*q == 'e' || *q == 'E') {
        q++; /* LAMMPS takes "1e" as 1 */
    }
    char text[128];
    size_t n = (size_t)(q - e->p);
    int points = 0;
    for (size_t k = 0; k < n; k++)
        points += e->p[k] == '.';
    if (n >= sizeof text || points > 1 || (n == 1 && points == 1))
        return error(e, MDL_EINPUT, "'%s' is not a number", e->p);
    memcpy(text, e->p, n);
    text[n] = '\0';
    e->p = q;
    return strtod(text, NULL);
}

/* LAMMPS's rounding: halves up. */
static double round_half_up(double a)
{
    return a - floor(a) >= 0.5 ? ceil(a) : floor(a);
}

/* name(args): LAMMPS's math functions of one argument and atan2; the others refused. */
static double function(parser *e, const char *name)
{
    double a[2] = {0, 0};
    int n = 0;
    skip_blanks(e);
    if (*e->p != ')')
        for (;;) {
            double v = parse_or(e);
            if (n < 2)
                a[n] = v;
            n++;
            if (!take(e, ","))
                break;
        }
    if (!take(e, ")"))
        return error(e, MDL_EINPUT, "%s(: a missing ')'", name);
    static const char *const one[] = {"sqrt", "exp", "ln", "log", "abs", "sin", "cos", "tan",
                                      "asin", "acos", "atan", "ceil", "floor", "round"};
    int k = 0, nk = (int)(sizeof one / sizeof one[0]);
    while (k < nk && strcmp(one[k], name) != 0)
        k++;
    if (k == nk && strcmp(name, "atan2") != 0) {
        static const char *const at_run[] = {"random", "normal", "ramp", "stagger", "logfreq", "logfreq2",
                                             "logfreq3", "stride", "stride2", "vdisplace", "swiggle", "cwiggle",
                                             "sum", "min", "max", "ave", "trap", "slope", "gmask", "rmask",
                                             "grmask", "next", "is_active", "is_defined", "is_available",
                                             "is_file", "extract_setting", "label2type", "is_typelabel"};
        for (size_t j = 0; j < sizeof at_run / sizeof at_run[0]; j++)
            if (!strcmp(at_run[j], name))
                return error(e, MDL_EINPUT, "%s(): LAMMPS evaluates it during a run (random numbers, the "
                             "timestep, computes or fixes); mdlite evaluates variables as it reads the script", name);
        return error(e, MDL_EINPUT, "%s(): not a math function LAMMPS has (sqrt exp ln log abs sin cos tan asin "
                     "acos atan atan2 ceil floor round), or a group function mdlite does not evaluate", name);
    }
    if (n != (k == nk ? 2 : 1))
        return error(e, MDL_EINPUT, "%s(): the wrong number of arguments", name);
    switch (k) {
    case 0: return a[0] < 0 ? error(e, MDL_EINPUT, "sqrt%s of a negative value", "()") : sqrt(a[0]);
    case 1: return exp(a[0]);
    case 2: return a[0] <= 0 ? error(e, MDL_EINPUT, "ln%s of zero or a negative value", "()") : log(a[0]);
    case 3: return a[0] <= 0 ? error(e, MDL_EINPUT, "log%s of zero or a negative value", "()") : log10(a[0]);
    case 4: return fabs(a[0]);
    case 5: return sin(a[0]);
    case 6: return cos(a[0]);
    case 7: return tan(a[0]);
    case 8: return fabs(a[0]) > 1 ? error(e, MDL_EINPUT, "asin%s of a value outside [-1, 1]", "()") : asin(a[0]);
    case 9: return fabs(a[0]) > 1 ? error(e, MDL_EINPUT, "acos%s of a value outside [-1, 1]", "()") : acos(a[0]);
    case 10: return atan(a[0]);
    case 11: return ceil(a[0]);
    case 12: return floor(a[0]);
    case 13: return round_half_up(a[0]);
    default: return atan2(a[0], a[1]);
    }
}

/* A word: a constant (PI, version, yes/no, on/off, true/false), v_NAME, a function, or a thermo
   keyword (refused: LAMMPS evaluates those during a run). */
static double word(parser *e)
{
    const char *q = e->p;
    while (isalnum((unsigned char)*q) || *q == '_' || *q == '[' || *q == ']')
        q++;
    char name[256];
    size_t n = (size_t)(q - e->p);
    if (n >= sizeof name)
        return error(e, MDL_EINPUT, "a name longer than 255 characters: %s", e->p);
    memcpy(name, e->p, n);
    name[n] = '\0';
    e->p = q;
    if (take(e, "("))
        return function(e, name);
    if (!strncmp(name, "v_", 2)) {
        double v = 0;
        if (e->rc == MDL_OK && (e->rc = e->var(e->user, name + 2, &v, e->why)) != MDL_OK)
            return 0;
        return v;
    }
    static const struct {
        const char *name;
        double value;
    } constants[] = {{"PI", 3.14159265358979323846}, {"version", 20210929}, {"yes", 1}, {"no", 0}, {"on", 1}, {"off", 0},
                     {"true", 1}, {"false", 0}};
    for (size_t k = 0; k < sizeof constants / sizeof constants[0]; k++)
        if (!strcmp(constants[k].name, name))
            return constants[k].value;
    if ((!strncmp(name, "c_", 2) && !e->keyword) || !strncmp(name, "f_", 2)) /* a compute's: the keyword's to say */
        return error(e, MDL_EINPUT, "%s: computes and fixes in formulas are evaluated during a run; mdlite "
                     "evaluates variables as it reads the script", name);
    if (name[0] && e->keyword) {
        double v = 0;
        if (e->rc == MDL_OK && (e->rc = e->keyword(e->user, name, &v, e->why)) != MDL_OK)
            return 0;
        return v;
    }
    if (name[0])
        return error(e, MDL_EINPUT, "'%s': a thermo keyword, or a word LAMMPS's formulas do not have; mdlite "
                     "evaluates variables as it reads the script, where LAMMPS evaluates thermo keywords during a "
                     "run", name);
    return error(e, MDL_EINPUT, "a syntax error at '%s'", e->p);
}

static double parse_unary(parser *e)
{
    skip_blanks(e);
    if (take(e, "-"))
        return -parse_unary(e);
    if (take(e, "!"))
        return parse_unary(e) == 0.0 ? 1.0 : 0.0;
    if (take(e, "(")) {
        double v = parse_or(e);
        if (!take(e, ")"))
            return error(e, MDL_EINPUT, "a '(' without its ')'%s", "");
        return v;
    }
    if (isdigit((unsigned char)*e->p) || *e->p == '.')
        return number(e);
    if (isalpha((unsigned char)*e->p) || *e->p == '_')
        return word(e);
    return error(e, MDL_EINPUT, *e->p ? "a syntax error at '%s'" : "a formula that ends too soon%s", e->p);
}

static double parse_power(parser *e)
{
    double v = parse_unary(e);
    while (e->rc == MDL_OK && take(e, "^"))
        v = pow(v, parse_unary(e)); /* left to right, as LAMMPS: 2^3^2 = 64 */
    return v;
}

static double parse_product(parser *e)
{
    double v = parse_power(e);
    while (e->rc == MDL_OK) {
        int op = take(e, "*") ? '*' : take(e, "/") ? '/' : take(e, "%") ? '%' : 0;
        if (!op)
            break;
        double w = parse_power(e);
        if (op != '*' && w == 0.0)
            return error(e, MDL_EINPUT, op == '/' ? "division by zero%s" : "modulo zero (%% 0)%s", "");
        v = op == '*' ? v * w : op == '/' ? v / w : fmod(v, w);
    }
    return v;
}

static double parse_sum(parser *e)
{
    double v = parse_product(e);
    while (e->rc == MDL_OK) {
        int op = take(e, "+") ? '+' : take(e, "-") ? '-' : 0;
        if (!op)
            break;
        double w = parse_product(e);
        v = op == '+' ? v + w : v - w;
    }
    return v;
}

static double parse_compare(parser *e)
{
    double v = parse_sum(e);
    while (e->rc == MDL_OK) {
        int op = take(e, "<=") ? 1 : take(e, ">=") ? 2 : take(e, "<") ? 3 : take(e, ">") ? 4 : 0;
        if (!op)
            break;
        double w = parse_sum(e);
        v = (op == 1 ? v <= w : op == 2 ? v >= w : op == 3 ? v < w : v > w) ? 1.0 : 0.0;
    }
    return v;
}

static double parse_equal(parser *e)
{
    double v = parse_compare(e);
    while (e->rc == MDL_OK) {
        int op = take(e, "==") ? 1 : take(e, "!=") ? 2 : 0;
        if (!op)
            break;
        double w = parse_compare(e);
        v = (op == 1 ? v == w : v != w) ? 1.0 : 0.0;
    }
    return v;
}

static double parse_and(parser *e)
{
    double v = parse_equal(e);
    while (e->rc == MDL_OK && take(e, "&&")) {
        double w = parse_equal(e);
        v = v != 0.0 && w != 0.0 ? 1.0 : 0.0;
    }
    return v;
}

static double parse_or(parser *e)
{
    double v = parse_and(e);
    while (e->rc == MDL_OK) {
        int op = take(e, "||") ? 1 : take(e, "|^") ? 2 : 0;
        if (!op)
            break;
        double w = parse_and(e);
        v = (op == 1 ? v != 0.0 || w != 0.0 : (v != 0.0) != (w != 0.0)) ? 1.0 : 0.0;
    }
    return v;
}

int lammps_expr_eval(const char *formula, lammps_var_fn var, void *user, double *out, mdl_buf *why)
{
    return lammps_expr_eval_thermo(formula, var, NULL, user, out, why);
}

int lammps_expr_eval_thermo(const char *formula, lammps_var_fn var, lammps_var_fn keyword, void *user, double *out,
                            mdl_buf *why)
{
    parser e = {formula, formula, var, keyword, user, why, MDL_OK};
    double v = parse_or(&e);
    skip_blanks(&e);
    if (e.rc == MDL_OK && *e.p)
        error(&e, MDL_EINPUT, "a syntax error at '%s'", e.p);
    if (e.rc == MDL_OK && !isfinite(v))
        error(&e, MDL_EINPUT, "the value is not a finite number (%s)", isnan(v) ? "nan" : "an overflow");
    *out = v;
    return e.rc;
}

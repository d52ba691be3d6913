/* A converted script's state and its helpers: messages naming the script's file and line, the keys
   as the script stands (set, found, dropped, copied at each run), paths from the script's folder,
   printed text for the runs, numbers and type ranges read as LAMMPS reads them. */
#define _POSIX_C_SOURCE 200809L
#include "lammps_script_state.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int script_input_file(script *sc, const char *path, const char *what)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return fail(sc, "%s: cannot open the %s: %s", path, what, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return fail(sc, "%s: a directory, not a %s", path, what);
    if (!S_ISREG(st.st_mode)) /* a FIFO would block the read */
        return fail(sc, "%s: not a regular file (a FIFO, device or socket); give a %s", path, what);
    if (access(path, R_OK) != 0)
        return fail(sc, "%s: cannot read the %s: %s", path, what, strerror(errno));
    return MDL_OK;
}

int script_fail(script *sc, const char *fmt, ...)
{
    mdl_buf msg = {0};
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text) {
        va_start(ap, fmt);
        vsnprintf(text, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    mdl_error("%s:%d: %s%s%s", sc->file ? sc->file : sc->path, sc->line, sc->cmd ? sc->cmd : "", sc->cmd ? ": " : "",
              text ? text : fmt);
    free(text);
    buf_free(&msg);
    return MDL_EINPUT;
}

char *script_path(script *sc, const char *path)
{
    mdl_buf b = {0};
    if (buf_addf(&b, "%s%s", path[0] == '/' ? "" : sc->dir, path) != MDL_OK)
        return NULL;
    return b.s;
}

int script_say(script *sc, const char *text, int screen, int log)
{
    mdl_buf t = {0};
    int rc = buf_add(&t, "");
    for (const char *p = text; *p && rc == MDL_OK; p++)
        rc = *p == '$' ? buf_add(&t, "$$") : *p == MDL_SCRIPT_DEFERRED ? buf_add(&t, "$") : buf_addn(&t, p, 1);
    if (rc == MDL_OK && screen)
        rc = buf_addf(&sc->screen, "%s\n", buf_str(&t));
    if (rc == MDL_OK && log)
        rc = buf_addf(&sc->log, "%s\n", buf_str(&t));
    buf_free(&t);
    return rc;
}

int settings_set(settings *st, const char *section, const char *key, const char *value, int line)
{
    int k = 0;
    while (k < st->n && strcmp(st->s[k].key, key) != 0)
        k++;
    char *v = mdl_strdup(value);
    if (!v)
        return MDL_ERUN;
    if (k == st->n) {
        if (st->n == st->cap) {
            int cap = 2 * st->cap + 32;
            setting *s = mdl_realloc(st->s, (size_t)cap * sizeof *s, "script keys");
            if (!s) {
                free(v);
                return MDL_ERUN;
            }
            st->s = s, st->cap = cap;
        }
        st->s[k] = (setting){mdl_strdup(section), mdl_strdup(key), NULL, line};
        if (!st->s[k].section || !st->s[k].key) {
            free(st->s[k].section), free(st->s[k].key), free(v);
            return MDL_ERUN;
        }
        st->n++;
    }
    free(st->s[k].value);
    st->s[k].value = v;
    st->s[k].line = line;
    return MDL_OK;
}

const setting *settings_find(const settings *st, const char *key)
{
    for (int k = 0; k < st->n; k++)
        if (strcmp(st->s[k].key, key) == 0)
            return &st->s[k];
    return NULL;
}

static void drop_at(settings *st, int k)
{
    free(st->s[k].section), free(st->s[k].key), free(st->s[k].value);
    memmove(&st->s[k], &st->s[k + 1], (size_t)(st->n - k - 1) * sizeof *st->s); /* the order kept */
    st->n--;
}

void settings_drop(settings *st, const char *key)
{
    for (int k = 0; k < st->n; k++)
        if (strcmp(st->s[k].key, key) == 0) {
            drop_at(st, k);
            return;
        }
}

void settings_drop_prefix(settings *st, const char *prefix)
{
    for (int k = st->n - 1; k >= 0; k--)
        if (strncmp(st->s[k].key, prefix, strlen(prefix)) == 0)
            drop_at(st, k);
}

void settings_free(settings *st)
{
    while (st->n)
        drop_at(st, st->n - 1);
    free(st->s);
    *st = (settings){0};
}

int settings_copy(settings *to, const settings *from)
{
    *to = (settings){0};
    for (int k = 0; k < from->n; k++)
        MDL_TRY(settings_set(to, from->s[k].section, from->s[k].key, from->s[k].value, from->s[k].line));
    return MDL_OK;
}

int setf(script *sc, const char *section, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *v = n >= 0 ? mdl_alloc((size_t)n + 1, "script key") : NULL;
    if (!v)
        return MDL_ERUN;
    va_start(ap, fmt);
    vsnprintf(v, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int rc = settings_set(&sc->now, section, key, v, sc->line);
    free(v);
    return rc;
}

int setf_words(script *sc, const char *section, const char *key, char **w, int from, int nw)
{
    mdl_buf v = {0};
    int rc = MDL_OK;
    for (int k = from; k < nw && rc == MDL_OK; k++)
        rc = buf_addf(&v, "%s%s", k > from ? " " : "", w[k]);
    if (rc == MDL_OK)
        rc = setf(sc, section, key, "%s", buf_str(&v));
    buf_free(&v);
    return rc;
}

int script_number(script *sc, const char *word, double *v)
{
    if (mdl_parse_double(word, v) != 0)
        return fail(sc, "'%s' is not a number", word);
    return MDL_OK;
}

int script_count(script *sc, const char *word, long lo, long hi, long *v)
{
    if (mdl_parse_long(word, v) != 0 || *v < lo || *v > hi)
        return fail(sc, "'%s' is not a whole number from %ld to %ld", word, lo, hi);
    return MDL_OK;
}

int expect_args(script *sc, int nw, int lo, int hi)
{
    if (nw - 1 < lo || nw - 1 > hi)
        return fail(sc, hi == lo ? "expected %d argument%s, found %d" : hi >= 1000 ? "expected at least %d argument%s, found %d"
                                                                          : "expected %d or more argument%s, found %d",
                    lo, lo == 1 ? "" : "s", nw - 1);
    return MDL_OK;
}

int script_type_range(script *sc, const char *word, int n, int *lo, int *hi)
{
    const char *star = strchr(word, '*');
    long a = 1, b = n;
    char head[32] = "";
    if (!star) {
        if (script_count(sc, word, 1, n, &a) != MDL_OK)
            return fail(sc, "'%s': not an atom type from 1 to %d", word, n);
        b = a;
    } else if (star - word < (long)sizeof head) {
        memcpy(head, word, (size_t)(star - word));
        if ((head[0] && mdl_parse_long(head, &a) != 0) || (star[1] && mdl_parse_long(star + 1, &b) != 0) ||
            a < 1 || b > n || a > b)
            return fail(sc, "'%s': not a range of atom types within 1 to %d (I, *, *J, I*, I*J)", word, n);
    } else {
        return fail(sc, "'%s': not a type range", word);
    }
    *lo = (int)a, *hi = (int)b;
    return MDL_OK;
}

const char *script_base_style(const char *style, char *out, size_t size)
{
    static const char *const suffixes[] = {"/kk/device", "/kk/host", "/kk", "/gpu", "/omp", "/opt", "/intel"};
    snprintf(out, size, "%s", style);
    for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
        size_t n = strlen(out), m = strlen(suffixes[k]);
        if (n > m && !strcmp(out + n - m, suffixes[k])) {
            out[n - m] = '\0';
            break;
        }
    }
    return out;
}

int script_step_now(script *sc, long *step)
{
    *step = 0;
    for (int r = 0; r < sc->nruns; r++) {
        const setting *e = settings_find(&sc->runs[r].keys, "ensemble"), *n = settings_find(&sc->runs[r].keys, "steps");
        const setting *reset = settings_find(&sc->runs[r].keys, "reset_timestep"); /* LAMMPS's count from there */
        if (e && !strcmp(e->value, "minimize"))
            return fail(sc, "after the minimize of line %d: its steps are its iterations, which mdlite knows only "
                            "once it has run", sc->runs[r].line);
        *step = (reset ? atol(reset->value) : *step) + (n ? atol(n->value) : 0);
    }
    const setting *reset = settings_find(&sc->now, "reset_timestep"); /* one since the last run */
    *step = reset ? atol(reset->value) : *step;
    return MDL_OK;
}

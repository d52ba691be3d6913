/* A converted script's keys and its INI text: the settings as the script stands (set, found,
   dropped, copied at each run), and the INI written from the runs: the keys of the first run, then
   one [stage:NAME] per run, per further write_data after it (a stage of 0 steps) and per
   write_data before the first run; text values quoted as the INI reader reads them. */
#define _POSIX_C_SOURCE 200809L
#include "lammps_ini.h"

#include "stage_keys.h"

#include <stdlib.h>

/* ---- the INI text -------------------------------------------------------------------------- */

typedef struct {
    mdl_buf text;
    int *line_of;
    int lines, cap;
} ini_out;

/* One INI line from script line `line`. */
static int emit(ini_out *o, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int emit(ini_out *o, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? mdl_alloc((size_t)n + 1, "INI line") : NULL;
    if (!s)
        return MDL_ERUN;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int rc = buf_addf(&o->text, "%s\n", s);
    free(s);
    MDL_TRY(rc);
    if (o->lines == o->cap) {
        int cap = 2 * o->cap + 64, *l = mdl_realloc(o->line_of, (size_t)cap * sizeof *l, "INI lines");
        if (!l)
            return MDL_ERUN;
        o->line_of = l, o->cap = cap;
    }
    o->line_of[o->lines++] = line;
    return MDL_OK;
}

/* key = "text" (ini.h's quoting) when text is not empty. */
static int emit_text(ini_out *o, int line, const char *key, const char *text)
{
    if (!text[0])
        return MDL_OK;
    mdl_buf q = {0};
    int rc = buf_add_quoted(&q, text);
    if (rc == MDL_OK)
        rc = emit(o, line, "%s = %s", key, buf_str(&q));
    buf_free(&q);
    return rc;
}

/* What one stage of the INI is: a run's keys, its steps (-1: the run's own), its data file, the
   text printed before it. */
typedef struct {
    const script_run *run;
    int zero;             /* a stage of 0 steps (a further write_data) */
    const char *data;     /* "" none */
    size_t data_len;
    const char *screen, *log;
    char name[48];
} ini_stage;

/* Keys a stage cannot set must not change between runs. */
static int check_unchanging(script *sc)
{
    const settings *first = &sc->runs[0].keys;
    for (int r = 1; r < sc->nruns; r++) {
        const settings *now = &sc->runs[r].keys;
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < (pass ? first->n : now->n); k++) {
                const setting *a = pass ? &first->s[k] : &now->s[k];
                const setting *b = settings_find(pass ? now : first, a->key);
                if (config_stage_key_section(a->key) || (b && !strcmp(a->value, b->value)))
                    continue;
                sc->line = pass ? sc->runs[r].line : a->line, sc->cmd = "run";
                return fail(sc, "%s changes between runs (line %d): mdlite's stages change the fixes, thermo, the dump's "
                                "interval and data files only", a->key, pass ? sc->runs[r].line : a->line);
            }
    }
    return MDL_OK;
}

/* The stages: per run, the run, then one of 0 steps per further data file; write_data before the
   first run, stages of 0 steps before it. */
static int plan_stages(script *sc, ini_stage **out, int *n)
{
    int cap = 0;
    for (int r = 0; r < sc->nruns; r++)
        cap += 1 + (int)sc->runs[r].data_files.len;
    cap += (int)sc->initial_data.len + 1;
    ini_stage *st = mdl_calloc((size_t)cap, sizeof *st, "stages");
    if (!st)
        return MDL_ERUN;
    int k = 0;
    for (const char *p = buf_str(&sc->initial_data); *p; p += strcspn(p, "\n") + 1) {
        st[k] = (ini_stage){&sc->runs[0], 1, p, strcspn(p, "\n"), k ? "" : buf_str(&sc->runs[0].screen),
                            k ? "" : buf_str(&sc->runs[0].log), ""};
        snprintf(st[k].name, sizeof st[k].name, "data%d", k + 1);
        k++;
    }
    const int initial = k;
    for (int r = 0; r < sc->nruns; r++) {
        const char *p = buf_str(&sc->runs[r].data_files);
        const int said = r == 0 && initial;
        st[k] = (ini_stage){&sc->runs[r], 0, p, strcspn(p, "\n"), said ? "" : buf_str(&sc->runs[r].screen),
                            said ? "" : buf_str(&sc->runs[r].log), ""};
        snprintf(st[k].name, sizeof st[k].name, "run%d", r + 1);
        k++;
        for (int d = 2; *p && *(p += strcspn(p, "\n") + 1); d++, k++) {
            st[k] = (ini_stage){&sc->runs[r], 1, p, strcspn(p, "\n"), "", "", ""};
            snprintf(st[k].name, sizeof st[k].name, "run%d_data%d", r + 1, d);
        }
    }
    *out = st, *n = k;
    return MDL_OK;
}

static const char *const SECTIONS[] = {"system", "potential", "neighbor", "run", "output"};

static int write_sections(script *sc, ini_out *o, const ini_stage *first, int staged)
{
    const settings *keys = &first->run->keys;
    const int line = first->run->line;
    for (size_t s = 0; s < sizeof SECTIONS / sizeof SECTIONS[0]; s++) {
        MDL_TRY(emit(o, line, "[%s]", SECTIONS[s]));
        if (!strcmp(SECTIONS[s], "output")) { /* beside the script, with mdlite's columns */
            MDL_TRY(emit(o, line, "thermo_file = %sthermo.csv", sc->dir));
            MDL_TRY(emit(o, line, "thermo_file_columns = mdlite"));
            if (sc->log_file)
                MDL_TRY(emit(o, line, "log_file = %s", sc->log_file));
            if (sc->log_append)
                MDL_TRY(emit(o, line, "log_append = yes"));
            MDL_TRY(emit_text(o, sc->line, "end_message", buf_str(&sc->screen)));
            if (sc->log_file)
                MDL_TRY(emit_text(o, sc->line, "end_log_message", buf_str(&sc->log)));
        }
        for (int k = 0; k < keys->n; k++)
            if (!strcmp(keys->s[k].section, SECTIONS[s]) && (!staged || !config_stage_key_section(keys->s[k].key)))
                MDL_TRY(emit(o, keys->s[k].line, "%s = %s", keys->s[k].key, keys->s[k].value));
        if (!staged && !strcmp(SECTIONS[s], "output") && first->data[0])
            MDL_TRY(emit(o, line, "data_file = %.*s", (int)first->data_len, first->data));
        if (!staged && !strcmp(SECTIONS[s], "run")) {
            MDL_TRY(emit_text(o, line, "message", first->screen));
            if (sc->log_file)
                MDL_TRY(emit_text(o, line, "log_message", first->log));
        }
    }
    return MDL_OK;
}

static int write_stage(script *sc, ini_out *o, const ini_stage *st)
{
    const settings *keys = &st->run->keys;
    const int line = st->run->line;
    MDL_TRY(emit(o, line, "[stage:%s]", st->name));
    for (int k = 0; k < keys->n; k++)
        if (config_stage_key_section(keys->s[k].key) &&
            !(st->zero && (!strcmp(keys->s[k].key, "steps") || !strcmp(keys->s[k].key, "stage_velocity_edits") ||
                           !strcmp(keys->s[k].key, "thermo"))))
            MDL_TRY(emit(o, keys->s[k].line, "%s = %s", keys->s[k].key, keys->s[k].value));
    if (st->zero) { /* a write_data: the state, no row (the runs print theirs) */
        MDL_TRY(emit(o, line, "steps = 0"));
        MDL_TRY(emit(o, line, "thermo = 0"));
    }
    if (st->data[0])
        MDL_TRY(emit(o, line, "data_file = %.*s", (int)st->data_len, st->data));
    MDL_TRY(emit_text(o, line, "message", st->screen));
    if (sc->log_file)
        MDL_TRY(emit_text(o, line, "log_message", st->log));
    return MDL_OK;
}

int script_write_ini(script *sc, char **ini, int **line_of, int *nlines)
{
    MDL_TRY(check_unchanging(sc));
    ini_stage *st;
    int n;
    MDL_TRY(plan_stages(sc, &st, &n));
    ini_out o = {0};
    int rc = emit(&o, 1, "; converted by mdlite from the LAMMPS script %s", sc->path);
    if (rc == MDL_OK)
        rc = write_sections(sc, &o, &st[0], n > 1);
    for (int k = 0; k < n && n > 1 && rc == MDL_OK; k++)
        rc = write_stage(sc, &o, &st[k]);
    free(st);
    if (rc != MDL_OK) {
        buf_free(&o.text);
        free(o.line_of);
        return rc;
    }
    *ini = o.text.s, *line_of = o.line_of, *nlines = o.lines;
    return MDL_OK;
}

/* A run's messages (a script's print and echo before a run and after the last): printed on the screen
   and in the log, each $(FORMULA:FORMAT) in them evaluated on the state as it is then over the thermo
   keywords and computes of the table of the stage that ended (`$$`: a dollar sign), and checked before
   the first step. */
#include "run_state.h"

#include <stdio.h>
#include <string.h>

/* The formula of the $( at p: its text into f, its format into fmt ("%.20g" where none), *end at
   its ')'. 0 where it does not close. */
static int split_formula(const char *p, mdl_buf *f, char fmt[32], const char **end)
{
    int depth = 0;
    const char *q = p + 2;
    for (; *q && !(*q == ')' && depth == 0); q++)
        depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
    if (!*q)
        return 0;
    buf_clear(f);
    if (buf_addn(f, p + 2, (size_t)(q - p - 2)) != MDL_OK)
        return 0;
    char *colon = strrchr(f->s, ':');
    snprintf(fmt, 32, "%s", colon && strlen(colon + 1) < 32 ? colon + 1 : "%.20g");
    if (colon)
        *colon = '\0';
    *end = q;
    return 1;
}

/* text with its formulas evaluated on the state now (step `step`) into out. */
static int expand(run_state *r, const char *text, long step, mdl_buf *out)
{
    mdl_observables o;
    mdl_thermo_extra x;
    int observed = 0, rc = buf_add(out, "");
    mdl_buf f = {0}, why = {0};
    for (const char *p = text; *p && rc == MDL_OK; p++) {
        char fmt[32];
        if (p[0] == '$' && p[1] == '$') {
            rc = buf_add(out, "$"), p++;
        } else if (p[0] == '$' && p[1] == '(' && split_formula(p, &f, fmt, &p)) {
            if (!observed)
                rc = backend_observe(r->ops, r->ctx, &o), rc = rc ? rc : run_thermo_extras(r, step, &x), observed = 1;
            double v = 0;
            if (rc == MDL_OK && thermo_formula_value(&r->thermo, buf_str(&f), step, step_time(r, step), &o, &x, &v, &why)) {
                mdl_error("the message printed at step %ld: $(%s): %s", step, buf_str(&f), buf_str(&why));
                rc = MDL_ERUN;
            }
            if (rc == MDL_OK)
                rc = buf_addf(out, fmt, v);
        } else {
            rc = buf_addn(out, p, 1);
        }
    }
    buf_free(&f), buf_free(&why);
    return rc;
}

/* The texts of keys (section, key) and (section, log_key) of cfg as they read at step `step`. */
static int texts(run_state *r, const mdl_config *cfg, const char *section, const char *key, const char *log_key,
                 long step, mdl_buf *screen, mdl_buf *log)
{
    mdl_buf a = {0}, b = {0};
    int rc = config_text(cfg, section, key, &a);
    if (rc == MDL_OK)
        rc = config_text(cfg, section, log_key, &b);
    if (rc == MDL_OK)
        rc = expand(r, buf_str(&a), step, screen);
    if (rc == MDL_OK)
        rc = expand(r, buf_str(&b), step, log);
    buf_free(&a), buf_free(&b);
    return rc;
}

void run_say_message(const run_state *r, const mdl_buf *screen, const mdl_buf *log)
{
    if (r->rank == 0 && !r->quiet)
        mdl_say_to(buf_str(screen), 1, 0);
    if (r->rank == 0)
        mdl_say_to(buf_str(log), 0, 1);
}

int run_stage_message(run_state *r, const mdl_config *st)
{
    mdl_buf screen = {0}, log = {0};
    int rc = texts(r, st, "run", "message", "log_message", r->final_step, &screen, &log);
    if (rc == MDL_OK)
        run_say_message(r, &screen, &log);
    buf_free(&screen), buf_free(&log);
    return rc;
}

int run_end_message(run_state *r, mdl_buf *screen, mdl_buf *log)
{
    return texts(r, r->base, "output", "end_message", "end_log_message", r->final_step, screen, log);
}

/* Each formula of key (section, key) of cfg checked on the table of stage `before` (-1: there is no
   run before it, and it may have none). */
static int check_text(const run_state *r, const mdl_config *cfg, const char *section, const char *key, int before)
{
    mdl_buf text = {0}, f = {0}, why = {0};
    int rc = config_text(cfg, section, key, &text);
    const mdl_config *st = before < 0 ? NULL : r->base->nstages ? &r->base->stages[before] : r->base;
    for (const char *p = buf_str(&text); *p && rc == MDL_OK; p++) {
        char fmt[32];
        if (p[0] == '$' && p[1] == '$') {
            p++;
        } else if (p[0] == '$' && p[1] == '(' && split_formula(p, &f, fmt, &p)) {
            mdl_thermo_style style = st ? run_thermo_style(st, r->atoms_mass, r->units) : (mdl_thermo_style){0};
            const char *bad = !st ? "a formula before the first run, which has no state yet"
                            : thermo_check_message_formula(&style, buf_str(&f), &why) ? buf_str(&why)
                            : !strchr("eEfFgG", fmt[strlen(fmt) - 1]) || fmt[0] != '%' || strchr(fmt + 1, '%')
                                ? "its format: %[width][.precision] and e, f or g" : NULL;
            if (bad) {
                mdl_error("%s: [%s] %s: $(%s): %s", config_origin(cfg, section, key), section, key, buf_str(&f), bad);
                rc = MDL_EINPUT;
            }
        } else if (p[0] == '$') {
            mdl_error("%s: [%s] %s: a '$' that begins no $(FORMULA) ($$ prints one)", config_origin(cfg, section, key),
                      section, key);
            rc = MDL_EINPUT;
        }
    }
    buf_free(&text), buf_free(&f), buf_free(&why);
    return rc;
}

int run_check_messages(const run_state *r)
{
    const int n = r->base->nstages ? r->base->nstages : 1;
    for (int k = 0; k < n; k++) {
        const mdl_config *st = r->base->nstages ? &r->base->stages[k] : r->base;
        MDL_TRY(check_text(r, st, "run", "message", k - 1));
        MDL_TRY(check_text(r, st, "run", "log_message", k - 1));
    }
    MDL_TRY(check_text(r, r->base, "output", "end_message", n - 1));
    return check_text(r, r->base, "output", "end_log_message", n - 1);
}

/* LAMMPS input scripts into mdlite's INI: the lines as LAMMPS reads them (& continuations, triple
   quotes, # comments outside quotes, $-substitution, quoted words), the input commands (echo,
   include, log, print, quit, variable), each other command through lammps_commands.c or
   lammps_run_commands.c, and the INI text: the first run's keys, then one [stage:runK] per run. */
#define _DEFAULT_SOURCE /* realpath */
#define _POSIX_C_SOURCE 200809L
#include "lammps_script.h"
#include "lammps_script_state.h"
#include "lammps_ini.h"

#include "../util/strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

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
        size_t n = strcspn(p, "\n"); /* key = value (an INI line outside a section): not a script */
        const char *hash = memchr(p, '#', n);
        n = hash ? (size_t)(hash - p) : n; /* "units lj # a = b" is a script */
        return memchr(p, '=', n) == NULL;
    }
    return 0;
}

/* ---- one command's text: lines, comments, words ------------------------------------------ */

/* The triple quotes in text. */
static int triples(const char *text)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, "\"\"\"")); p += 3)
        n++;
    return n;
}

/* The command starting at *p (its & continuations joined, a triple-quoted text's lines kept) into
   cmd; *p moves past it, *line by the lines it took. */
static int read_command(const char **p, int *line, mdl_buf *cmd)
{
    buf_clear(cmd);
    MDL_TRY(buf_add(cmd, ""));
    for (;;) {
        const char *nl = strchr(*p, '\n'), *end = nl ? nl : *p + strlen(*p);
        const char *last = end;
        while (last > *p && isspace((unsigned char)last[-1]))
            last--;
        const int more = nl != NULL;
        if (last > *p && last[-1] == '&' && more) { /* LAMMPS: the & and the line break go */
            MDL_TRY(buf_addn(cmd, *p, (size_t)(last - 1 - *p)));
            *p = nl + 1, (*line)++;
            continue;
        }
        MDL_TRY(buf_addn(cmd, *p, (size_t)(end - *p)));
        *p = more ? nl + 1 : end;
        if (triples(buf_str(cmd)) % 2 == 1 && more) { /* a triple-quoted text goes on */
            MDL_TRY(buf_add(cmd, "\n"));
            (*line)++;
            continue;
        }
        return MDL_OK;
    }
}

/* Cuts a # comment outside quotes. */
static void cut_comment(char *s)
{
    int quote = 0;
    for (char *p = s; *p; p++) {
        if (!quote && *p == '#') {
            *p = '\0';
            return;
        }
        if (!quote && !strncmp(p, "\"\"\"", 3))
            quote = 3, p += 2;
        else if (!quote && (*p == '"' || *p == '\''))
            quote = *p == '"' ? 2 : 1;
        else if (quote == 3 && !strncmp(p, "\"\"\"", 3))
            quote = 0, p += 2;
        else if ((quote == 2 && *p == '"') || (quote == 1 && *p == '\''))
            quote = 0;
    }
}

typedef struct {
    char **w;
    int n, cap;
} words;

/* s split into words in place as LAMMPS splits them: a quoted text is one word without its quotes,
   and a closing quote is followed by a blank or the end. */
static int split_words(script *sc, char *s, words *out)
{
    out->n = 0;
    for (char *p = s;;) {
        p += strspn(p, " \t\r\n\v\f");
        if (!*p)
            return MDL_OK;
        char *start = p, *stop;
        if (!strncmp(p, "\"\"\"", 3) || *p == '"' || *p == '\'') {
            const int triple = !strncmp(p, "\"\"\"", 3);
            start = p + (triple ? 3 : 1);
            stop = triple ? strstr(start, "\"\"\"") : strchr(start, *p);
            if (!stop)
                return fail(sc, "unbalanced quotes: a %s without its closing one", triple ? "\"\"\"" : *p == '"' ? "\"" : "'");
            p = stop + (triple ? 3 : 1);
            if (*p && !isspace((unsigned char)*p))
                return fail(sc, "a closing quote must be followed by a blank (LAMMPS's rule)");
        } else {
            stop = p + strcspn(p, " \t\r\n\v\f");
            p = stop;
        }
        if (out->n + 1 >= out->cap) {
            int cap = 2 * out->cap + 16;
            char **w = mdl_realloc(out->w, (size_t)cap * sizeof *w, "words");
            if (!w)
                return MDL_ERUN;
            out->w = w, out->cap = cap;
        }
        out->w[out->n++] = start;
        out->w[out->n] = NULL;
        if (*p)
            p++;
        *stop = '\0';
    }
}

/* ---- the input commands ------------------------------------------------------------------ */

static int convert_text(script *sc, const char *file, const char *text);

static int cmd_echo(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 1, 1));
    static const char *const modes[] = {"none", "screen", "log", "both"};
    for (int k = 0; k < 4; k++)
        if (!strcmp(w[1], modes[k])) {
            sc->echo_screen = k & 1, sc->echo_log = (k & 2) != 0;
            return MDL_OK;
        }
    return fail(sc, "'%s': echo takes none, screen, log or both", w[1]);
}

/* include FILE: its commands here; paths are the main script's folder's, as LAMMPS's are the
   working directory's. */
static int cmd_include(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 1, 1));
    if (sc->depth >= 16)
        return fail(sc, "include: more than 16 files deep (an include of itself?)");
    char *path = script_path(sc, w[1]), *text = NULL;
    size_t len;
    int rc = path ? script_input_file(sc, path, "script to include") : MDL_ERUN;
    if (rc == MDL_OK && (rc = mdl_read_text(path, "included script", (size_t)16 << 20, &text, &len)) != MDL_OK)
        fail(sc, "%s: the file named here could not be read whole (the message above says why)", w[1]);
    if (rc == MDL_OK && memchr(text, '\0', len))
        rc = fail(sc, "%s: a NUL byte: not a text file", w[1]);
    if (rc == MDL_OK) {
        const char *file = sc->file;
        const int line = sc->line;
        sc->depth++;
        rc = convert_text(sc, path, text);
        sc->depth--;
        sc->file = file, sc->line = line;
    }
    free(text);
    free(path);
    return rc;
}

/* log FILE [append], log none: mdlite's one log file, holding what the run prints. */
static int cmd_log(script *sc, char **w, int nw)
{
    MDL_TRY(expect_args(sc, nw, 1, 2));
    if (nw == 3 && strcmp(w[2], "append") != 0)
        return fail(sc, "'%s': log takes FILE [append]", w[2]);
    if (!strcmp(w[1], "none")) {
        if (sc->log_file)
            return fail(sc, "log none after log %s: mdlite writes one log file for the whole run", sc->log_file);
        return MDL_OK;
    }
    char *path = script_path(sc, w[1]);
    if (!path)
        return MDL_ERUN;
    if (sc->log_file && strcmp(sc->log_file, path) != 0) {
        int rc = fail(sc, "a second log file (%s after %s): mdlite writes one log file for the whole run", w[1],
                      sc->log_file);
        free(path);
        return rc;
    }
    free(sc->log_file);
    sc->log_file = path;
    sc->log_append = nw == 3;
    return MDL_OK;
}

/* print TEXT... [screen yes|no] [universe yes|no]: printed before the next run (or at the end). */
static int cmd_print(script *sc, char **w, int nw)
{
    int last = nw, screen = 1;
    while (last - 2 >= 2 && (!strcmp(w[last - 2], "screen") || !strcmp(w[last - 2], "universe") ||
                             !strcmp(w[last - 2], "file") || !strcmp(w[last - 2], "append"))) {
        const char *k = w[last - 2], *v = w[last - 1];
        if (!strcmp(k, "file") || !strcmp(k, "append"))
            return fail(sc, "print ... %s %s: mdlite prints on the screen and in the log, not into other files", k, v);
        if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
            return fail(sc, "print ... %s %s: yes or no", k, v);
        if (!strcmp(k, "screen"))
            screen = !strcmp(v, "yes");
        last -= 2;
    }
    mdl_buf text = {0}, out = {0};
    int rc = MDL_OK;
    for (int k = 1; k < last && rc == MDL_OK; k++)
        rc = buf_addf(&text, "%s%s", k > 1 ? " " : "", w[k]);
    if (strchr(buf_str(&text), MDL_SCRIPT_DEFERRED))
        rc = fail(sc, "a control character (\\001) in the text");
    sc->deferring = 1;
    if (rc == MDL_OK) /* LAMMPS substitutes the text again, quotes or not */
        rc = script_substitute(sc, buf_str(&text), &out, 1);
    sc->deferring = 0;
    if (rc == MDL_OK)
        rc = script_say(sc, buf_str(&out), screen, 1);
    buf_free(&text);
    buf_free(&out);
    return rc;
}

static int input_command(script *sc, char **w, int nw)
{
    if (!strcmp(w[0], "echo"))
        return cmd_echo(sc, w, nw);
    if (!strcmp(w[0], "include"))
        return cmd_include(sc, w, nw);
    if (!strcmp(w[0], "log"))
        return cmd_log(sc, w, nw);
    if (!strcmp(w[0], "print"))
        return cmd_print(sc, w, nw);
    if (!strcmp(w[0], "variable"))
        return cmd_variable(sc, w, nw);
    if (!strcmp(w[0], "quit")) {
        sc->stop = 1;
        return MDL_OK;
    }
    static const char *const later[] = {"label", "jump", "next", "if", "clear", "shell", "python", "partition",
                                        "plugin"};
    for (size_t k = 0; k < sizeof later / sizeof later[0]; k++)
        if (!strcmp(w[0], later[k]))
            return fail(sc, "not a command mdlite runs: it reads a script once, top to bottom, into one run "
                            "(docs/LAMMPS.md lists the commands it takes)");
    return 1;
}

/* One command's text: echoed, its comment cut, substituted (echoed again when that changed it),
   split and run. */
static int script_command(script *sc, mdl_buf *cmd, mdl_buf *expanded, words *wd)
{
    if (sc->echo_screen || sc->echo_log)
        MDL_TRY(script_say(sc, buf_str(cmd), sc->echo_screen, sc->echo_log));
    cut_comment(cmd->s);
    MDL_TRY(script_substitute(sc, buf_str(cmd), expanded, 0));
    if ((sc->echo_screen || sc->echo_log) && strcmp(buf_str(expanded), buf_str(cmd)) != 0)
        MDL_TRY(script_say(sc, buf_str(expanded), sc->echo_screen, sc->echo_log));
    MDL_TRY(split_words(sc, expanded->s, wd));
    if (!wd->n)
        return MDL_OK;
    sc->cmd = wd->w[0];
    int rc = input_command(sc, wd->w, wd->n);
    if (rc == 1 && !sc->changed_since_run[0]) /* a print after it reads no state of the run before it */
        snprintf(sc->changed_since_run, sizeof sc->changed_since_run, "%s", wd->w[0]);
    if (rc == 1)
        rc = lammps_system_command(sc, wd->w, wd->n);
    if (rc == 1)
        rc = lammps_run_command(sc, wd->w, wd->n);
    if (rc == 1)
        rc = fail(sc, "not a command mdlite runs (docs/LAMMPS.md lists those it does)");
    return rc;
}

static int convert_text(script *sc, const char *file, const char *text)
{
    mdl_buf cmd = {0}, expanded = {0};
    words wd = {0};
    int rc = MDL_OK, line = 1;
    sc->file = file;
    const char *p = text;
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3;
    while (*p && rc == MDL_OK && !sc->stop) {
        sc->line = line;
        sc->cmd = NULL;
        rc = read_command(&p, &line, &cmd);
        line++;
        if (rc == MDL_OK)
            rc = script_command(sc, &cmd, &expanded, &wd);
        sc->file = file;
    }
    buf_free(&cmd);
    buf_free(&expanded);
    free(wd.w);
    return rc;
}

/* The script's folder, absolute, with its '/'. */
static char *script_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    mdl_buf dir = {0};
    if (buf_addn(&dir, slash ? path : ".", slash ? (size_t)(slash - path + (slash == path)) : 1) != MDL_OK)
        return NULL;
    char *real = realpath(dir.s, NULL);
    buf_free(&dir);
    if (!real)
        return NULL;
    mdl_buf b = {0};
    int rc = buf_addf(&b, "%s%s", real, strcmp(real, "/") ? "/" : "");
    free(real);
    return rc == MDL_OK ? b.s : NULL;
}

static void free_script(script *sc)
{
    for (int r = 0; r < sc->nruns; r++) {
        settings_free(&sc->runs[r].keys);
        buf_free(&sc->runs[r].data_files);
        buf_free(&sc->runs[r].screen);
        buf_free(&sc->runs[r].log);
    }
    free(sc->runs);
    for (int k = 0; k < sc->nfix; k++) {
        free(sc->fixes[k].id);
        free(sc->fixes[k].style);
        for (int a = 0; a < sc->fixes[k].nargs; a++)
            free(sc->fixes[k].args[a]);
        free(sc->fixes[k].args);
    }
    free(sc->fixes);
    for (int k = 0; k < sc->nregion; k++)
        free(sc->regions[k].id);
    free(sc->regions);
    settings_free(&sc->now);
    script_free_vars(sc);
    buf_free(&sc->screen);
    buf_free(&sc->log);
    buf_free(&sc->initial_data);
    buf_free(&sc->groups);
    buf_free(&sc->fills);
    buf_free(&sc->computes);
    buf_free(&sc->unread_computes);
    buf_free(&sc->thermo_computes);
    buf_free(&sc->typed_groups);
    settings_free(&sc->data_keys);
    free(sc->pair_set);
    free(sc->log_file);
    free(sc->dir);
    free(sc);
}

int lammps_script_convert(const char *path, const char *text, const lammps_script_vars *vars, char **ini,
                          int **line_of, int *nlines)
{
    script *sc = mdl_calloc(1, sizeof *sc, "script");
    if (!sc)
        return MDL_ERUN;
    sc->path = path;
    snprintf(sc->units, sizeof sc->units, "lj");
    snprintf(sc->mix, sizeof sc->mix, "geometric");
    int rc = (sc->dir = script_dir(path)) ? MDL_OK : MDL_ERUN;
    if (rc != MDL_OK)
        mdl_error("%s: cannot find the script's folder: %s", path, strerror(errno));
    sc->line = 1;
    sc->echo_log = 1; /* LAMMPS's default: echo log */
    if (rc == MDL_OK) /* LAMMPS 29Sep2021's neigh_modify default: every 1 delay 10 check yes */
        rc = setf(sc, "neighbor", "delay", "10");
    for (int k = 0; vars && k < vars->n && rc == MDL_OK; k++)
        rc = script_define_index(sc, vars->name[k], vars->values[k], vars->nvalues[k]);
    if (rc == MDL_OK)
        rc = convert_text(sc, path, text);
    sc->file = path;
    if (rc == MDL_OK && !sc->nruns) {
        sc->cmd = "run";
        rc = fail(sc, "the script has no run or minimize: nothing to do");
    }
    if (rc == MDL_OK)
        rc = script_write_ini(sc, ini, line_of, nlines);
    free_script(sc);
    return rc;
}

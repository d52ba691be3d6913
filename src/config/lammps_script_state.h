/* The state of a LAMMPS script being converted (lammps_script.c reads its lines and variables and
   writes the INI; lammps_commands.c runs each command into mdlite's keys). */
#ifndef MDL_LAMMPS_SCRIPT_STATE_H
#define MDL_LAMMPS_SCRIPT_STATE_H

#include "../util/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { MAX_WORDS = 64, MAX_KEYS = 96, MAX_VARS = 64, MAX_FIXES = 8, MAX_REGIONS = 8, MAX_RUNS = 64 };

typedef struct {
    char section[12], key[40], value[1024];
    int line;
} setting;

typedef struct {
    setting s[MAX_KEYS];
    int n;
} settings;

typedef struct {
    char id[32], style[24];
    char args[MAX_WORDS][64];
    int nargs, line;
} fix;

typedef struct {
    const char *path;
    char dir[1024];  /* the script's folder, "" for the working one */
    int line;        /* the command's first line */
    const char *cmd; /* its name */
    struct {
        char name[32], value[256];
        int equal;
    } var[MAX_VARS];
    int nvar;
    settings now;                /* the keys as the script stands */
    settings *runs[MAX_RUNS];    /* the keys at each run */
    int run_line[MAX_RUNS], nruns;
    fix fixes[MAX_FIXES];
    int nfix;
    struct {
        char id[32];
        double b[6];
        int lattice_units;
    } region[MAX_REGIONS];
    int nregion;
    char lattice[8], units[8];
    double scale; /* the lattice's edge (LAMMPS's scale) */
    int ntypes, box_made, velocity_made, thermo_set;
    int data_velocities; /* read_data: 1 the file has Velocities, -1 it has none */
    char mix[16];
    int npairs_listed;
    char listed[64][2][8];
} script;

/* A message naming the script's line and command; MDL_EINPUT. */
static inline int fail(script *sc, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mdl_error("%s:%d: %s%s%s", sc->path, sc->line, sc->cmd ? sc->cmd : "", sc->cmd ? ": " : "", msg);
    return MDL_EINPUT;
}

static inline void set_key(settings *st, const char *section, const char *key, const char *value, int line)
{
    int k = 0;
    while (k < st->n && strcmp(st->s[k].key, key) != 0)
        k++;
    if (k == st->n && st->n < MAX_KEYS)
        st->n++;
    if (k == MAX_KEYS)
        return;
    snprintf(st->s[k].section, sizeof st->s[k].section, "%s", section);
    snprintf(st->s[k].key, sizeof st->s[k].key, "%s", key);
    snprintf(st->s[k].value, sizeof st->s[k].value, "%s", value);
    st->s[k].line = line;
}

static inline void setf(script *sc, const char *section, const char *key, const char *fmt, ...)
{
    char v[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    set_key(&sc->now, section, key, v, sc->line);
}

static inline void drop_key(settings *st, const char *key)
{
    for (int k = 0; k < st->n; k++)
        if (strcmp(st->s[k].key, key) == 0) {
            st->s[k] = st->s[--st->n];
            return;
        }
}

static inline const setting *find_key(const settings *st, const char *key)
{
    for (int k = 0; k < st->n; k++)
        if (strcmp(st->s[k].key, key) == 0)
            return &st->s[k];
    return NULL;
}

static inline int find_var(const script *sc, const char *name)
{
    for (int k = 0; k < sc->nvar; k++)
        if (strcmp(sc->var[k].name, name) == 0)
            return k;
    return -1;
}

/* Words [from, to) joined by blanks into out, cut to fit. */
static inline void join_words(char *out, size_t size, char **w, int from, int to)
{
    size_t n = 0;
    out[0] = '\0';
    for (int k = from; k < to && n + 1 < size; k++) {
        int m = snprintf(out + n, size - n, "%s%s", k > from ? " " : "", w[k]);
        n = m < 0 ? size : n + (size_t)m;
    }
}

/* One command (its words, variables substituted) into sc's keys: MDL_OK, or a message and
   MDL_EINPUT (MDL_ERUN: out of memory). */
int lammps_command(script *sc, char **w, int nw);

#endif

/* A small INI reader: the whole file read and checked first (regular file, size, read errors, NUL
   bytes), then [section] and key = value lines handed to a callback with their line numbers. */
#define _POSIX_C_SOURCE 200809L
#include "ini.h"

#include "lammps_script.h"
#include "../util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* Past a quoted value's closing quote ("..." with backslash escapes), or s itself. */
static char *past_quotes(char *s)
{
    s += strspn(s, " \t");
    if (*s != '"')
        return s;
    for (char *p = s + 1; *p; p++) {
        if (*p == '\\' && p[1])
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return s;
}

/* Cuts an inline comment: ';' or '#' at the start or after a blank, past a quoted value. */
static void cut_comment(char *s)
{
    for (char *p = past_quotes(s); *p; p++)
        if ((*p == ';' || *p == '#') && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
            *p = '\0';
            return;
        }
}

/* One line; returns 0, or 1 after printing a syntax error. */
static int parse_line(const char *path, int line, char *s, char *section, size_t section_size,
                      ini_handler on_key, void *user, int *stop)
{
    s = trim(s);
    if (*s == '\0' || *s == ';' || *s == '#')
        return 0;
    if (*s == '[') {
        char *end = strchr(s, ']');
        if (end)
            cut_comment(end + 1);
        if (!end || *trim(end + 1) != '\0') {
            mdl_error("%s:%d: syntax error: expected [section]", path, line);
            return 1;
        }
        *end = '\0';
        mdl_copy(section, section_size, trim(s + 1));
        return on_key(user, section, NULL, NULL, line) != 0;
    }
    char *eq = strpbrk(s, "=:");
    if (!eq || eq == s) {
        mdl_error("%s:%d: syntax error (expected [section] or key = value)", path, line);
        return 1;
    }
    *eq = '\0';
    char *key = trim(s), *value = eq + 1;
    cut_comment(value);
    value = trim(value);
    if (*key == '\0') {
        mdl_error("%s:%d: syntax error: a value without a key", path, line);
        return 1;
    }
    int rc = on_key(user, section, key, value, line);
    if (rc < 0)
        *stop = 1;
    return rc != 0;
}

int ini_parse(const char *path, const lammps_script_vars *vars, char **text_out, ini_handler on_key, void *user)
{
    char *text;
    size_t len;
    int rc = mdl_read_text(path, "config file", (size_t)16 << 20, &text, &len);
    if (rc != MDL_OK)
        return rc;
    if (memchr(text, '\0', len)) {
        size_t at = (size_t)((char *)memchr(text, '\0', len) - text);
        int line = 1;
        for (size_t i = 0; i < at; i++)
            line += text[i] == '\n';
        mdl_error("%s:%d: a NUL byte (not a text file?)", path, line);
        free(text);
        return MDL_EINPUT;
    }
    return ini_parse_text(path, text, vars, NULL, 0, text_out, on_key, user);
}

int ini_parse_text(const char *path, char *text, const lammps_script_vars *vars, int *line_of, int nlines,
                   char **text_out, ini_handler on_key, void *user)
{
    if (lammps_script_detect(text)) { /* a LAMMPS script: its INI, each line's script line */
        char *ini;
        free(line_of);
        int rc = lammps_script_convert(path, text, vars, &ini, &line_of, &nlines);
        free(text);
        if (rc != MDL_OK)
            return rc;
        text = ini;
    }
    char *copy = strdup(text), section[64] = "";
    if (!copy) {
        free(text);
        free(line_of);
        return MDL_ERUN;
    }
    char *s = copy;
    if ((unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF)
        s += 3; /* UTF-8 byte order mark */
    int nerr = 0, stop = 0;
    for (int line = 1; s && !stop; line++) {
        if (nerr == 20) {
            mdl_error("%s: 20 errors; stopping (is this an INI file?)", path);
            break;
        }
        char *next = strchr(s, '\n');
        if (next)
            *next++ = '\0';
        const int at = !line_of ? line : line_of[line <= nlines ? line - 1 : nlines - 1];
        nerr += parse_line(path, at, s, section, sizeof section, on_key, user, &stop);
        s = next;
    }
    if (!stop && nerr < 20)
        nerr += on_key(user, NULL, NULL, NULL, 0) != 0;
    free(copy);
    free(line_of);
    if (stop)
        nerr++;
    if (nerr || !text_out)
        free(text);
    else
        *text_out = text;
    return nerr ? (stop ? MDL_ERUN : MDL_EINPUT) : MDL_OK;
}

/* Lines of a text input file: the reader, fields and numbers with file:line messages. */
#define _POSIX_C_SOURCE 200809L
#include "text_lines.h"

#include "../util/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The next line without its end; NULL at the end of the file, or (r->bad, with a message) at a
   line holding a NUL byte, which would cut the line short without a word. */
char *next_line(line_reader *r)
{
    ssize_t n = getline(&r->buf, &r->cap, r->fp);
    if (n < 0)
        return NULL;
    r->line++;
    const char *nul = memchr(r->buf, '\0', (size_t)n);
    if (nul) {
        mdl_error("%s:%d: column %ld: a NUL byte (not a text file?)", r->path, r->line, (long)(nul - r->buf) + 1);
        r->bad = 1;
        return NULL;
    }
    while (n > 0 && (r->buf[n - 1] == '\n' || r->buf[n - 1] == '\r'))
        r->buf[--n] = '\0';
    return r->buf;
}

/* s for a message: bytes outside printable ASCII as \xNN, cut to fit (with "..."). */
const char *escaped(const char *s, char *out, size_t size)
{
    size_t k = 0;
    for (; *s && k + 8 < size; s++) {
        unsigned char c = (unsigned char)*s;
        k += (size_t)snprintf(out + k, size - k, c >= 32 && c < 127 ? "%c" : "\\x%02x", c);
    }
    snprintf(out + k, size - k, "%s", *s ? "..." : "");
    return out;
}

int is_blank(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

/* Splits s in place on blanks; returns the number of fields (at most max). */
int split_fields(char *s, char **fields, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(s, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (n == max)
            return max + 1;
        fields[n++] = tok;
    }
    return n;
}

int parse_coord(line_reader *r, const char *field, int column, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(field, &end);
    if (end == field || *end != '\0') {
        mdl_error("%s:%d: column %d: '%s' is not a number", r->path, r->line, column, field);
        return MDL_EINPUT;
    }
    if (!isfinite(v) || errno == ERANGE) {
        mdl_error("%s:%d: column %d: '%s' is not a finite number", r->path, r->line, column, field);
        return MDL_EINPUT;
    }
    *out = v;
    return MDL_OK;
}


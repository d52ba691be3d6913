/* Lines of a text input file with file:line messages: the reader, fields, numbers (shared by the
   coordinate readers and the LAMMPS data file reader). */
#ifndef MDL_TEXT_LINES_H
#define MDL_TEXT_LINES_H

#include <stdio.h>

typedef struct {
    const char *path;
    size_t size; /* of the file, in bytes */
    FILE *fp;
    char *buf;
    size_t cap;
    int line;
    int bad; /* a line held a NUL byte: refused, with its message */
} line_reader;

/* The next line without its end; NULL at the end of the file, or (r->bad, with a message) at a
   line holding a NUL byte, which would cut the line short without a word. */
char *next_line(line_reader *r);
/* s for a message: bytes outside printable ASCII as \xNN, cut to fit (with "..."). */
const char *escaped(const char *s, char *out, size_t size);
int is_blank(const char *s);
/* Splits s in place on blanks; returns the number of fields (max + 1 when there are more). */
int split_fields(char *s, char **fields, int max);
/* A finite number in field `column` of the current line, or a message naming file:line. */
int parse_coord(line_reader *r, const char *field, int column, double *out);

#endif

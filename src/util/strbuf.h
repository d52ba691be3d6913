/* Growable strings: text that is never cut to a fixed buffer (a script's lines, words and values). */
#ifndef MDL_STRBUF_H
#define MDL_STRBUF_H

#include <stddef.h>

typedef struct {
    char *s;    /* NUL-terminated ("" before the first append: never NULL once used) */
    size_t len, cap;
} mdl_buf;

/* Appends n bytes of text (0: MDL_OK; MDL_ERUN when memory runs out, the buffer as it was). */
int buf_addn(mdl_buf *b, const char *text, size_t n);
int buf_add(mdl_buf *b, const char *text);
int buf_addf(mdl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_clear(mdl_buf *b);
void buf_free(mdl_buf *b);
/* The text, "" for a buffer never appended to. */
const char *buf_str(const mdl_buf *b);
/* text in double quotes with \\ \" \n \t \r and \xHH escapes (an INI value the reader cuts no
   comment in); buf_unquote reads such a value back (MDL_EINPUT when it is not one). */
int buf_add_quoted(mdl_buf *b, const char *text);
int buf_unquote(const char *value, mdl_buf *out);
/* A malloc'ed copy of text (NULL: out of memory, with a message). */
char *mdl_strdup(const char *text);

#endif

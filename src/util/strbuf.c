/* Growable strings: appended to in place, doubled when full. */
#include "strbuf.h"

#include "util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(mdl_buf *b, size_t more)
{
    if (b->len + more + 1 <= b->cap)
        return MDL_OK;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + more + 1) {
        if (cap > ((size_t)-1) / 2)
            return MDL_ERUN;
        cap *= 2;
    }
    char *s = mdl_realloc(b->s, cap, "text");
    if (!s)
        return MDL_ERUN;
    b->s = s, b->cap = cap;
    return MDL_OK;
}

int buf_addn(mdl_buf *b, const char *text, size_t n)
{
    MDL_TRY(reserve(b, n));
    memcpy(b->s + b->len, text, n);
    b->len += n;
    b->s[b->len] = '\0';
    return MDL_OK;
}

int buf_add(mdl_buf *b, const char *text)
{
    return buf_addn(b, text, strlen(text));
}

int buf_addf(mdl_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return MDL_ERUN;
    MDL_TRY(reserve(b, (size_t)n));
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return MDL_OK;
}

void buf_clear(mdl_buf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
}

void buf_free(mdl_buf *b)
{
    free(b->s);
    *b = (mdl_buf){0};
}

const char *buf_str(const mdl_buf *b)
{
    return b->s ? b->s : "";
}

char *mdl_strdup(const char *text)
{
    size_t n = strlen(text) + 1;
    char *s = mdl_alloc(n, "text");
    if (s)
        memcpy(s, text, n);
    return s;
}

int buf_add_quoted(mdl_buf *b, const char *text)
{
    MDL_TRY(buf_add(b, "\""));
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        const char *esc = *p == '\n' ? "\\n" : *p == '\t' ? "\\t" : *p == '\r' ? "\\r" : *p == '"' ? "\\\""
                        : *p == '\\' ? "\\\\" : NULL;
        if (esc)
            MDL_TRY(buf_add(b, esc));
        else if (*p < 0x20 || *p == 0x7f)
            MDL_TRY(buf_addf(b, "\\x%02x", *p));
        else
            MDL_TRY(buf_addn(b, (const char *)p, 1));
    }
    return buf_add(b, "\"");
}

int buf_unquote(const char *value, mdl_buf *out)
{
    buf_clear(out);
    MDL_TRY(buf_add(out, ""));
    size_t n = strlen(value);
    if (n < 2 || value[0] != '"' || value[n - 1] != '"')
        return MDL_EINPUT;
    for (size_t k = 1; k + 1 < n; k++) {
        char c = value[k];
        if (c == '"')
            return MDL_EINPUT;
        if (c == '\\') {
            c = value[++k];
            if (c == 'x' && k + 2 < n - 1 && isxdigit((unsigned char)value[k + 1]) && isxdigit((unsigned char)value[k + 2])) {
                char hex[3] = {value[k + 1], value[k + 2], '\0'};
                c = (char)strtol(hex, NULL, 16), k += 2;
            } else if (c == 'n' || c == 't' || c == 'r') {
                c = c == 'n' ? '\n' : c == 't' ? '\t' : '\r';
            } else if (c != '"' && c != '\\') {
                return MDL_EINPUT;
            }
        }
        MDL_TRY(buf_addn(out, &c, 1));
    }
    return MDL_OK;
}

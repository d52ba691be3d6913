/* Error reporting, checked allocation, clock and strict number parsing shared by all of mdlite. */
#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static int g_rank, g_muted;
static FILE *g_log; /* the run's log file (mdl_set_log), NULL: none */
static _Thread_local mdl_capture *g_capture; /* this thread's messages go here (mdl_capture_set) */

mdl_capture *mdl_capture_set(mdl_capture *c)
{
    mdl_capture *was = g_capture;
    g_capture = c;
    return was;
}

/* Appends "KIND: " and the formatted text, a line, to the capture. */
static void capture_add(mdl_capture *c, const char *kind, const char *fmt, va_list ap)
{
    char line[4096];
    const int k = snprintf(line, sizeof line, "%s: ", kind);
    vsnprintf(line + k, sizeof line - (size_t)k, fmt, ap);
    const size_t n = strlen(line);
    if (c->len + n + 2 > c->cap) {
        const size_t cap = 2 * (c->len + n + 2) + 256;
        char *t = realloc(c->text, cap);
        if (!t)
            return; /* the message is lost, the call's status still says what happened */
        c->text = t, c->cap = cap;
    }
    memcpy(c->text + c->len, line, n);
    c->len += n;
    c->text[c->len++] = '\n';
    c->text[c->len] = '\0';
}

void mdl_capture_clear(mdl_capture *c)
{
    c->len = 0;
    if (c->text)
        c->text[0] = '\0';
}

void mdl_set_log(FILE *log)
{
    g_log = log;
}

/* Whether this thread's screen output is shown (not while a capture without echo takes it). */
static int on_screen(void)
{
    return !g_capture || g_capture->echo;
}

void mdl_say(const char *fmt, ...)
{
    va_list ap;
    if (on_screen()) {
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
    }
    if (g_log) {
        va_start(ap, fmt);
        vfprintf(g_log, fmt, ap);
        va_end(ap);
    }
}

void mdl_say_flush(void)
{
    fflush(stdout);
    if (g_log)
        fflush(g_log);
}

void mdl_say_to(const char *text, int screen, int log)
{
    if (screen && on_screen())
        fputs(text, stdout);
    if (log && g_log)
        fputs(text, g_log);
}

void mdl_message_rank(int rank)
{
    g_rank = rank;
}

void mdl_message_mute(int mute)
{
    g_muted = mute && g_rank > 0;
}

/* "mdlite: " or "mdlite (rank N): " */
static void message_start(const char *kind)
{
    if (g_rank > 0)
        fprintf(stderr, "mdlite (rank %d): %s: ", g_rank, kind);
    else
        fprintf(stderr, "mdlite: %s: ", kind);
}

static void message(const char *kind, const char *fmt, va_list ap)
{
    if (g_muted)
        return;
    va_list copy;
    if (g_capture) {
        va_copy(copy, ap);
        capture_add(g_capture, kind, fmt, copy);
        va_end(copy);
    }
    if (on_screen()) {
        va_copy(copy, ap);
        message_start(kind);
        vfprintf(stderr, fmt, copy);
        fputc('\n', stderr);
        va_end(copy);
    }
    if (g_log) { /* the log holds the messages too, as LAMMPS's does */
        fprintf(g_log, "mdlite: %s: ", kind);
        vfprintf(g_log, fmt, ap);
        fputc('\n', g_log);
        fflush(g_log);
    }
}

void mdl_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message("error", fmt, ap);
    va_end(ap);
}

void mdl_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message("note", fmt, ap);
    va_end(ap);
}

void mdl_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message("warning", fmt, ap);
    va_end(ap);
}

void *mdl_alloc(size_t nbytes, const char *what)
{
    void *p = malloc(nbytes ? nbytes : 1);
    if (!p)
        mdl_error("out of memory allocating %zu bytes for %s", nbytes, what);
    return p;
}

void *mdl_realloc(void *old, size_t nbytes, const char *what)
{
    void *p = realloc(old, nbytes ? nbytes : 1);
    if (!p)
        mdl_error("out of memory growing %s to %zu bytes", what, nbytes);
    return p;
}

void *mdl_calloc(size_t n, size_t size, const char *what)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        mdl_error("out of memory allocating %zu x %zu bytes for %s", n, size, what);
    return p;
}


void mdl_copy(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memmove(dst, src, n);
    dst[n] = '\0';
}

double mdl_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double mdl_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

int mdl_check_input_file(const char *path, const char *what)
{
    struct stat st;
    if (path[0] == '\0') {
        mdl_error("empty file name for the %s", what);
        return MDL_EINPUT;
    }
    if (stat(path, &st) != 0) {
        mdl_error("%s: cannot open %s: %s", path, what, strerror(errno));
        return MDL_EINPUT;
    }
    if (S_ISDIR(st.st_mode)) {
        mdl_error("%s: is a directory, not a %s", path, what);
        return MDL_EINPUT;
    }
    if (!S_ISREG(st.st_mode)) {
        mdl_error("%s: is not a regular file (a device, pipe or socket); give a %s", path, what);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

int mdl_in_range(const char *text, double v, double lo, double hi, int lo_open, char *why, size_t size)
{
    if ((lo_open && v <= lo) || (!lo_open && v < lo) || !(v == v)) {
        snprintf(why, size, "'%s' must be %s %g", text, lo_open ? ">" : ">=", lo);
        return 0;
    }
    if (v > hi) {
        snprintf(why, size, "'%s' must be <= %g", text, hi);
        return 0;
    }
    return 1;
}

int mdl_mul_size(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b)
        return -1;
    *out = a * b;
    return 0;
}

size_t mdl_memory_available(void)
{
    size_t avail = 0;
    FILE *fp = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib;
    while (fp && fgets(line, sizeof line, fp))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
            avail = (size_t)kib * 1024;
            break;
        }
    if (fp)
        fclose(fp);
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (avail == 0 || rl.rlim_cur < avail))
        avail = (size_t)rl.rlim_cur;
    return avail;
}

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static int only_blanks(const char *s)
{
    s = skip_blanks(s);
    return *s == '\0' || *s == '\n' || *s == '\r';
}

int mdl_parse_double(const char *s, double *out)
{
    char *end;
    s = skip_blanks(s);
    if (*s == '\0')
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || !only_blanks(end) || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int mdl_parse_long(const char *s, long *out)
{
    char *end;
    s = skip_blanks(s);
    if (*s == '\0')
        return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || !only_blanks(end) || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

/* "CPU use": how many cores the loop kept busy against the threads it had; a warning when far
   fewer (other programs took the cores). */
void mdl_print_cpu_use(double cpu, double loop, int threads, const char *backend)
{
    double used = loop > 0 ? cpu / loop : 0;
    const char *policy = getenv("OMP_WAIT_POLICY");
    if (strcmp(backend, "cpu") != 0) { /* the host thread drives the device */
        mdl_say("CPU use = %.2f cores (host)\n", used);
        return;
    }
    mdl_say("CPU use = %.2f of %d thread%s (%.0f%%), OpenMP waits %s%s\n", used, threads, threads == 1 ? "" : "s",
           100 * used / threads, policy ? policy : "active (libgomp default)",
           getenv("MDLITE_BUSY_AT_START") ? " (the machine was busy at start)" : "");
    if (loop > 0.5 && used < 0.7 * threads)
        mdl_warn("the run had %.2f of its %d threads' CPU time: other programs use the cores; fewer threads "
                 "([run] threads) may run faster", used, threads);
}

void mdl_print_performance(size_t natoms, long steps, double loop, double dt, const char *time_unit, double per_day)
{
    if (steps == 0) /* a run 0 has no speed (LAMMPS prints none) */
        return;
    const double rate = loop > 0 ? (double)steps / loop : 0.0;
    mdl_say("Performance: %.6g atom-steps/s, %.6g timesteps/s, %.6g %s/day\n", rate * (double)natoms, rate,
           rate * dt * per_day, time_unit);
}

int mdl_has_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), m = strlen(suffix);
    return n >= m && strcasecmp(path + n - m, suffix) == 0;
}

int mdl_read_text(const char *path, const char *what, size_t max_bytes, char **text, size_t *len)
{
    int rc = mdl_check_input_file(path, what);
    if (rc != MDL_OK)
        return rc;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        mdl_error("%s: cannot open %s: %s", path, what, strerror(errno));
        return MDL_EINPUT;
    }
    size_t cap = 4096, n = 0;
    char *buf = mdl_alloc(cap, what);
    rc = buf ? MDL_OK : MDL_ERUN;
    while (rc == MDL_OK) {
        if (n + 1 == cap) {
            char *grown = cap > max_bytes ? NULL : mdl_realloc(buf, 2 * cap, what);
            if (!grown) {
                if (cap > max_bytes)
                    mdl_error("%s: %s larger than %zu bytes", path, what, max_bytes);
                rc = cap > max_bytes ? MDL_EINPUT : MDL_ERUN;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
        if (got == 0)
            break;
    }
    if (rc == MDL_OK && ferror(fp)) {
        mdl_error("%s: read error in %s: %s", path, what, strerror(errno));
        rc = MDL_EINPUT;
    }
    fclose(fp);
    if (rc != MDL_OK) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return MDL_OK;
}

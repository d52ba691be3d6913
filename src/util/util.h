/* Small shared helpers: error reporting, status codes, checked allocation, wall clock. */
#ifndef MDL_UTIL_H
#define MDL_UTIL_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus /* the CUDA files report errors through it too */
extern "C" {
#endif

/* The longest file path mdlite keeps (config, input, outputs). */
#define MDL_PATH_LEN 1024

/* Status codes returned through the call chain (and used as exit statuses). */
enum { MDL_OK = 0, MDL_ERUN = 1, MDL_EINPUT = 2, MDL_NOT_READY = 3 /* an asynchronous result is pending */ };

/* Returns from the calling function with the status of expr unless it is MDL_OK. */
#define MDL_TRY(expr)              \
    do {                           \
        int rc_ = (expr);          \
        if (rc_ != MDL_OK)         \
            return rc_;            \
    } while (0)

/* Print "mdlite: error: ..." to stderr. */
void mdl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mdl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "mdlite: note: ...": what mdlite did in the user's stead (a mass taken from a file). */
void mdl_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The run's screen output: on stdout and, when a log is set, in the log file too (messages go
   there as well). mdl_say_to: text to the screen, the log or both. */
void mdl_set_log(FILE *log);
void mdl_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mdl_say_to(const char *text, int screen, int log);
void mdl_say_flush(void);
/* Under several MPI ranks: rank > 0 prefixes its messages with "(rank N)", and says nothing while
   muted (work every rank repeats, whose messages rank 0 prints once). */
void mdl_message_rank(int rank);
/* A thread's messages (error, warning, note: "error: ..." lines) into a buffer instead of stderr,
   and its screen output (mdl_say) kept off the screen, unless echo (shown as well); a run's log
   file gets both either way: libmdlite's handles, which print nothing unless asked. set returns
   the capture it replaces (NULL: none). */
typedef struct {
    char *text; /* malloc'ed, NUL-terminated (NULL: nothing yet) */
    size_t len, cap;
    int echo;
} mdl_capture;
mdl_capture *mdl_capture_set(mdl_capture *c);
void mdl_capture_clear(mdl_capture *c);
void mdl_message_mute(int mute);

/* Allocation that reports the size on failure and returns NULL (callers return MDL_ERUN). */
void *mdl_alloc(size_t nbytes, const char *what);
void *mdl_realloc(void *p, size_t nbytes, const char *what);
void *mdl_calloc(size_t n, size_t size, const char *what);

/* Copies src into dst[size] (always terminated, truncating when too long). */
void mdl_copy(char *dst, size_t size, const char *src);


/* Monotonic wall clock in seconds. */
double mdl_wtime(void);
/* CPU seconds (user + system) this process has used. */
double mdl_cpu_seconds(void);

/* Checks that path names a readable regular file (not a directory, device or pipe); `what` names
   it in the message ("config file", "coordinate file"). MDL_OK or MDL_EINPUT. */
int mdl_check_input_file(const char *path, const char *what);

/* Reads a whole regular file (at most max_bytes) into *text, NUL-terminated and malloc'ed; `what`
   names it in messages ("config file"). Directories, FIFOs, devices and read errors get their own
   messages (MDL_EINPUT; MDL_ERUN without memory). */
int mdl_read_text(const char *path, const char *what, size_t max_bytes, char **text, size_t *len);

/* a * b into *out; -1 (out untouched) when it overflows size_t. */
int mdl_mul_size(size_t a, size_t b, size_t *out);

/* Memory this process can still take, in bytes (MemAvailable, bounded by RLIMIT_AS); 0 when
   unknown. Estimates below check large allocations against it before making them. */
size_t mdl_memory_available(void);

/* Physical values lie within [1e-30, 1e30] in magnitude, or are 0 where 0 is allowed: their products and
   powers in a run stay finite in double. Every reader holds values to ranges and says so the same way. */
#define MDL_BIG 1e30
#define MDL_SMALLEST 1e-30
/* 1 when v (read from text) lies within [lo, hi] (lo_open: above lo); else 0 and why holds the
   reason, as every reader states it: "'TEXT' must be >= LO", "> LO" or "<= HI". */
int mdl_in_range(const char *text, double v, double lo, double hi, int lo_open, char *why, size_t size);

/* Strict number parsing: the whole string (after trimming blanks) must be a finite number. */
int mdl_parse_double(const char *s, double *out);
int mdl_parse_long(const char *s, long *out);
/* 1 when path ends with suffix, letters of either case (".xyz", ".H5MD"). */
int mdl_has_suffix(const char *path, const char *suffix);

#ifdef __cplusplus
}
#endif

/* "CPU use": how many cores a loop of `loop` seconds and `cpu` CPU seconds kept busy against its
   threads (backend "cpu"; else the host's cores); a warning when far fewer. */
void mdl_print_cpu_use(double cpu, double loop, int threads, const char *backend);
/* "Performance: ... atom-steps/s, ... timesteps/s, ... <time_unit>/day" for `steps` steps of dt
   in `loop` seconds (per_day: the run's time units in a day's worth of dt, e.g. 86400 tau or
   86.4 ns per ps of a day). */
void mdl_print_performance(size_t natoms, long steps, double loop, double dt, const char *time_unit, double per_day);

#endif

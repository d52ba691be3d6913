/* Small shared helpers: error reporting, status codes, checked allocation, wall clock. */
#ifndef MDL_UTIL_H
#define MDL_UTIL_H

#include <stddef.h>

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
/* Under several MPI ranks: rank > 0 prefixes its messages with "(rank N)", and says nothing while
   muted (work every rank repeats, whose messages rank 0 prints once). */
void mdl_message_rank(int rank);
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

/* a * b into *out; -1 (out untouched) when it overflows size_t. */
int mdl_mul_size(size_t a, size_t b, size_t *out);

/* Memory this process can still take, in bytes (MemAvailable, bounded by RLIMIT_AS); 0 when
   unknown. Estimates below check large allocations against it before making them. */
size_t mdl_memory_available(void);

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

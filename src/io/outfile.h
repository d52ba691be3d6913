/* Output files that never destroy data: paths compared by identity, no output that is an input
   or another output, a lock held before any truncation, existing files kept as backups. */
#ifndef MDL_OUTFILE_H
#define MDL_OUTFILE_H

#include "../util/util.h"

/* 1 when a and b name the same file (same device and inode when both exist; else the same
   canonical directory and name). */
int same_file(const char *a, const char *b);

/* A named path for the checks below: its role in messages ("[output] trajectory", "--restart"). */
typedef struct {
    const char *path; /* NULL or "": not used */
    const char *role;
} mdl_named_path;

/* No output may be an input or another output, except outputs[allow_out] = inputs[allow_in]
   (the trajectory a restart continues; -1: no exception). MDL_OK or MDL_EINPUT naming both. */
int outputs_check(const mdl_named_path *inputs, int ninputs, const mdl_named_path *outputs, int noutputs,
                  int allow_out, int allow_in);

/* An output file of this run. It is written under a temporary name beside its own ("#NAME.partial.PID#")
   and takes its name once it has its content (outfile_publish): a run that fails or stops before that
   leaves no empty or half file, and an earlier file of that name stays where it is until the new one
   replaces it (kept as "#NAME.N#", N = 1..99, unless overwrite). An append writes the file itself. */
typedef struct {
    char path[MDL_PATH_LEN + 32];  /* its name */
    char temp[MDL_PATH_LEN + 64];  /* the name it is written under until published ("": its own) */
    const char *role;              /* in messages: "[output] trajectory" */
    int fd;                        /* the lock on what is written (-1: none) */
    int overwrite, published;
} mdl_outfile;

/* Claims path: refused (MDL_EINPUT, naming the role) while another process holds the file; append:
   the file itself, locked; else the temporary file, created empty and locked. */
int outfile_claim(mdl_outfile *o, const char *path, const char *role, int append, int overwrite);
/* Whether path could be claimed now (no other process holds it): MDL_OK or MDL_EINPUT. */
int outfile_check_free(const char *path, const char *role);
/* The name the writer opens (the temporary one until published). */
const char *outfile_target(const mdl_outfile *o);
/* It has its content: the temporary file takes its name, an earlier file there kept as #NAME.N#
   (with overwrite: replaced). Nothing once done, or for an append. MDL_ERUN when the rename fails. */
int outfile_publish(mdl_outfile *o);
/* The claim ends: the temporary file removed if it was never published; the lock released. */
void outfile_release(mdl_outfile *o);
/* A whole file written at once (a data file, a profile): claimed, written by write(user, name) into
   the temporary file, published; on failure removed. */
int outfile_write_whole(const char *path, const char *role, int overwrite, int (*write)(void *user, const char *name),
                        void *user);

#endif

/* Output files that never destroy data: paths compared by identity, no output that is an input
   or another output, a lock held before any truncation, existing files kept as backups. */
#ifndef MDL_OUTFILE_H
#define MDL_OUTFILE_H

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

/* Claims an output file for this run: opens it without truncating, takes an exclusive lock
   (refused, exit 2, while another process writes or reads it), then, unless append or
   overwrite, renames an existing non-empty file to "#name.N#" (N = 1..99, the first free) and
   claims a new one. The lock lasts until outfile_release. *fd_out gets the descriptor. */
int outfile_claim(const char *path, const char *role, int append, int overwrite, int *fd_out);
void outfile_release(int fd);
/* A claimed output that will not be written (a later claim failed): released, and removed when
   it is still the empty file the claim left. */
void outfile_abandon(const char *path, int fd);

#endif

/* Communication between ranks: MPI where the build has it, one rank otherwise, behind one set of
   calls so that the engine has a single code path whatever the rank count. */
#ifndef MDL_COMM_H
#define MDL_COMM_H

#include <stddef.h>

/* Starts MPI where built with it and started by an MPI launcher (MPI_Init); a no-op otherwise
   (one rank). Returns MDL_OK or MDL_ERUN. */
int comm_init(int *argc, char ***argv);
void comm_finalize(void);
int comm_rank(void);
int comm_size(void);
/* The rank among those on this node (one GPU each): Open MPI's, MPICH's or Slurm's variable, else
   comm_rank(). */
int comm_local_rank(void);

/* Sends `bytes` of `out` to rank `to` while receiving up to `cap` bytes from rank `from` into `in`;
   *got: the bytes received. The same rank on both sides is a copy. MDL_OK or MDL_ERUN (message). */
int comm_exchange(const void *out, size_t bytes, int to, void *in, size_t cap, int from, size_t *got);
/* The byte counts first, so that the receiver can make room: *incoming is what `from` will send. */
int comm_exchange_count(size_t outgoing, int to, size_t *incoming, int from);

/* Sums of n doubles over ranks, added in rank order on every rank (the same bits run after run
   for one rank count); max of a long; logical or of an int. */
int comm_sum_doubles(double *v, int n);
int comm_max_long(long *v);
int comm_max_double(double *v);
int comm_or_int(int *v);
/* Rank 0's `bytes` at p, to every rank. */
int comm_broadcast(void *p, size_t bytes);
/* Every rank's n doubles, in rank order, into all[size * n] on every rank. */
int comm_allgather_doubles(const double *v, int n, double *all);
int comm_allgather_bytes(const void *v, size_t bytes, void *all); /* every rank's bytes, in rank order */
/* Rank 0 gets every rank's doubles (n of them here, any count per rank) one after the other in
   rank order, in *all (malloc'ed, *total of them; with one rank, v itself: not copied); other
   ranks get *all = NULL. */
int comm_gather_root(const double *v, size_t n, double **all, size_t *total);
/* The end of the program: with an error on this rank, waits a while for the others (an error
   every rank met ends them all cleanly), then stops them all (MPI_Abort) so that none waits
   forever; MPI_Finalize otherwise. Returns rc. */
int comm_end(int rc);

#endif

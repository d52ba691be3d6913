/* Communication between ranks: MPI calls where MDLITE_HAVE_MPI is defined and MPI is running,
   the one-rank answer otherwise (a build without MPI, or a command that never starts it). */
#define _POSIX_C_SOURCE 200809L
#include "comm.h"

#include "../util/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef MDLITE_HAVE_MPI
#include <mpi.h>

static int started_mpi; /* we called MPI_Init, so we call MPI_Finalize */

/* MPI is running (initialised and not yet finalised). */
static int mpi_on(void)
{
    int on = 0, off = 0;
    MPI_Initialized(&on);
    if (on)
        MPI_Finalized(&off);
    return on && !off;
}

static int failed(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    mdl_error("MPI: %s: %s", what, msg);
    return MDL_ERUN;
}

/* A rank, or none (-1: past an open face). */
static int peer(int r)
{
    return r < 0 ? MPI_PROC_NULL : r;
}
#endif

/* One rank: nothing to talk to. */
static int alone(void)
{
    return comm_size() == 1;
}

#ifdef MDLITE_HAVE_MPI
/* Started by an MPI launcher (mpirun, mpiexec, srun with PMI/PMIx): Open MPI's, PMI's or PMIx's
   variables are set. */
static int launched_by_mpi(void)
{
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++)
        if (getenv(vars[k]))
            return 1;
    return 0;
}
#endif

int comm_init(int *argc, char ***argv)
{
#ifdef MDLITE_HAVE_MPI
    int on = 0;
    MPI_Initialized(&on);
    if (on || !launched_by_mpi()) /* a plain start is one rank: no MPI (its singleton start is slow) */
        return MDL_OK;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        mdl_error("MPI_Init failed");
        return MDL_ERUN;
    }
    started_mpi = 1;
#else
    (void)argc, (void)argv;
#endif
    return MDL_OK;
}

void comm_finalize(void)
{
#ifdef MDLITE_HAVE_MPI
    if (started_mpi && mpi_on())
        MPI_Finalize();
    started_mpi = 0;
#endif
}

int comm_rank(void)
{
    int r = 0;
#ifdef MDLITE_HAVE_MPI
    if (mpi_on())
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
#endif
    return r;
}

int comm_size(void)
{
    int s = 1;
#ifdef MDLITE_HAVE_MPI
    if (mpi_on())
        MPI_Comm_size(MPI_COMM_WORLD, &s);
#endif
    return s;
}

int comm_local_rank(void)
{
    const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++) {
        const char *v = getenv(vars[k]);
        if (v && *v)
            return atoi(v);
    }
    return comm_rank();
}

int comm_exchange(const void *out, size_t bytes, int to, void *in, size_t cap, int from, size_t *got)
{
    if (alone()) { /* every neighbor is this rank (or none) */
        if (bytes > cap) {
            mdl_error("internal: a message of %zu bytes into %zu", bytes, cap);
            return MDL_ERUN;
        }
        if (bytes && to >= 0 && from >= 0)
            memmove(in, out, bytes);
        *got = to >= 0 && from >= 0 ? bytes : 0;
        return MDL_OK;
    }
#ifdef MDLITE_HAVE_MPI
    if (bytes > (size_t)INT_MAX || cap > (size_t)INT_MAX) {
        mdl_error("MPI: a message of %zu bytes is over MPI's int count", bytes > cap ? bytes : cap);
        return MDL_ERUN;
    }
    MPI_Status st;
    int rc = MPI_Sendrecv(out, (int)bytes, MPI_BYTE, peer(to), 7, in, (int)cap, MPI_BYTE, peer(from), 7, MPI_COMM_WORLD,
                          &st);
    if (rc != MPI_SUCCESS)
        return failed("exchange", rc);
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    *got = (size_t)count;
#endif
    return MDL_OK;
}

int comm_exchange_count(size_t outgoing, int to, size_t *incoming, int from)
{
    if (alone()) {
        *incoming = to >= 0 && from >= 0 ? outgoing : 0;
        return MDL_OK;
    }
#ifdef MDLITE_HAVE_MPI
    unsigned long long o = outgoing, i = 0;
    int rc = MPI_Sendrecv(&o, 1, MPI_UNSIGNED_LONG_LONG, peer(to), 8, &i, 1, MPI_UNSIGNED_LONG_LONG, peer(from), 8,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return failed("exchange of counts", rc);
    *incoming = (size_t)i;
#endif
    return MDL_OK;
}

int comm_sum_doubles(double *v, int n)
{
    if (alone())
        return MDL_OK;
    int size = comm_size();
    double *all = malloc((size_t)size * n * sizeof *all);
    if (!all) {
        mdl_error("out of memory for a sum over ranks");
        return MDL_ERUN;
    }
    int rc = comm_allgather_doubles(v, n, all); /* then added in rank order: the same sum every run */
    for (int k = 0; k < n && rc == MDL_OK; k++) {
        double s = 0;
        for (int r = 0; r < size; r++)
            s += all[(size_t)r * n + k];
        v[k] = s;
    }
    free(all);
    return rc;
}

#ifdef MDLITE_HAVE_MPI
/* One value reduced over all ranks, in place. */
static int allreduce(void *v, MPI_Datatype type, MPI_Op op, const char *what)
{
    int rc = MPI_Allreduce(MPI_IN_PLACE, v, 1, type, op, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? MDL_OK : failed(what, rc);
}
#define ALLREDUCE(v, type, op, what) (alone() ? MDL_OK : allreduce(v, type, op, what))
#else
#define ALLREDUCE(v, type, op, what) ((void)(v), MDL_OK)
#endif

int comm_max_long(long *v)
{
    return ALLREDUCE(v, MPI_LONG, MPI_MAX, "max");
}

int comm_max_double(double *v)
{
    return ALLREDUCE(v, MPI_DOUBLE, MPI_MAX, "max");
}

int comm_or_int(int *v)
{
    return ALLREDUCE(v, MPI_INT, MPI_LOR, "or");
}

int comm_broadcast(void *p, size_t bytes)
{
    if (alone())
        return MDL_OK;
#ifdef MDLITE_HAVE_MPI
    int rc = MPI_Bcast(p, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return failed("broadcast", rc);
#else
    (void)p, (void)bytes;
#endif
    return MDL_OK;
}

int comm_allgather_bytes(const void *v, size_t bytes, void *all)
{
    if (alone()) {
        memcpy(all, v, bytes);
        return MDL_OK;
    }
#ifdef MDLITE_HAVE_MPI
    if (bytes > (size_t)INT_MAX) {
        mdl_error("MPI: a gather of %zu bytes per rank is over MPI's int count", bytes);
        return MDL_ERUN;
    }
    int rc = MPI_Allgather(v, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return failed("gather", rc);
#endif
    return MDL_OK;
}

int comm_allgather_doubles(const double *v, int n, double *all)
{
    return comm_allgather_bytes(v, (size_t)n * sizeof *v, all);
}

#ifdef MDLITE_HAVE_MPI
/* Rank 0: the counts of every rank and their displacements (counts[size + r]); *sum the total. */
static int gather_counts(int mine, int **counts, size_t *sum)
{
    int size = comm_size(), root = comm_rank() == 0;
    *counts = NULL, *sum = 0;
    if (root && !(*counts = calloc((size_t)size * 2, sizeof **counts))) {
        mdl_error("out of memory for a gather over ranks");
        MPI_Abort(MPI_COMM_WORLD, MDL_ERUN); /* the others are in the gather: none can go on */
    }
    int rc = MPI_Gather(&mine, 1, MPI_INT, *counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return failed("gather of counts", rc);
    for (int r = 0; root && r < size; r++) {
        (*counts)[size + r] = (int)*sum;
        *sum += (size_t)(*counts)[r];
    }
    if (*sum > (size_t)INT_MAX) {
        mdl_error("%zu doubles gathered on rank 0: over MPI's int count", *sum);
        MPI_Abort(MPI_COMM_WORLD, MDL_ERUN);
    }
    return MDL_OK;
}
#endif

int comm_gather_root(const double *v, size_t n, double **all, size_t *total)
{
    *all = NULL, *total = 0;
    if (alone()) {
        *all = (double *)v;
        *total = n;
        return MDL_OK;
    }
#ifdef MDLITE_HAVE_MPI
    if (n > (size_t)INT_MAX) {
        mdl_error("MPI: %zu doubles from one rank are over MPI's int count", n);
        MPI_Abort(MPI_COMM_WORLD, MDL_ERUN);
    }
    int size = comm_size(), *counts;
    size_t sum;
    MDL_TRY(gather_counts((int)n, &counts, &sum));
    if (counts && !(*all = mdl_alloc((sum ? sum : 1) * sizeof **all, "a gathered frame")))
        MPI_Abort(MPI_COMM_WORLD, MDL_ERUN);
    int rc = MPI_Gatherv(v, (int)n, MPI_DOUBLE, *all, counts, counts ? counts + size : NULL, MPI_DOUBLE, 0,
                         MPI_COMM_WORLD);
    free(counts);
    if (rc != MPI_SUCCESS) {
        free(*all);
        *all = NULL;
        return failed("gather", rc);
    }
    *total = sum;
#endif
    return MDL_OK;
}

int comm_end(int rc)
{
#ifdef MDLITE_HAVE_MPI
    if (!alone() && rc != MDL_OK) {
        MPI_Request req;
        int done = 0;
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        for (double t0 = mdl_wtime(); !done && mdl_wtime() - t0 < 10.0;) {
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
            if (!done) {
                struct timespec ts = {0, 1000000};
                nanosleep(&ts, NULL);
            }
        }
        if (!done) { /* another rank is waiting for this one in a collective: stop them all */
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, rc);
        }
    }
#endif
    comm_finalize();
    return rc;
}

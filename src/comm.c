/* Communication between ranks: MPI calls where MDLITE_HAVE_MPI is defined, one rank otherwise. */
#include "comm.h"

#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifdef MDLITE_HAVE_MPI
#include <mpi.h>

static int started_mpi; /* we called MPI_Init, so we call MPI_Finalize */

int comm_init(int *argc, char ***argv)
{
    int on = 0;
    MPI_Initialized(&on);
    if (on)
        return MDL_OK;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        mdl_error("MPI_Init failed");
        return MDL_ERUN;
    }
    started_mpi = 1;
    return MDL_OK;
}

void comm_finalize(void)
{
    if (started_mpi)
        MPI_Finalize();
    started_mpi = 0;
}

int comm_rank(void)
{
    int r = 0, on = 0;
    MPI_Initialized(&on);
    if (on)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int comm_size(void)
{
    int s = 1, on = 0;
    MPI_Initialized(&on);
    if (on)
        MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
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

int comm_exchange(const void *out, size_t bytes, int to, void *in, size_t cap, int from, size_t *got)
{
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
    return MDL_OK;
}

int comm_exchange_count(size_t outgoing, int to, size_t *incoming, int from)
{
    unsigned long long o = outgoing, i = 0;
    int rc = MPI_Sendrecv(&o, 1, MPI_UNSIGNED_LONG_LONG, peer(to), 8, &i, 1, MPI_UNSIGNED_LONG_LONG, peer(from), 8,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return failed("exchange of counts", rc);
    *incoming = (size_t)i;
    return MDL_OK;
}

int comm_sum_doubles(double *v, int n)
{
    int size = comm_size();
    if (size == 1)
        return MDL_OK;
    double *all = malloc((size_t)size * n * sizeof *all);
    if (!all) {
        mdl_error("out of memory for a sum over ranks");
        return MDL_ERUN;
    }
    int rc = MPI_Allgather(v, n, MPI_DOUBLE, all, n, MPI_DOUBLE, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        for (int k = 0; k < n; k++) {
            double s = 0;
            for (int r = 0; r < size; r++)
                s += all[(size_t)r * n + k];
            v[k] = s;
        }
    free(all);
    return rc == MPI_SUCCESS ? MDL_OK : failed("sum", rc);
}

int comm_max_long(long *v)
{
    int rc = MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? MDL_OK : failed("max", rc);
}

int comm_or_int(int *v)
{
    int rc = MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? MDL_OK : failed("or", rc);
}

#else /* one rank */

int comm_init(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return MDL_OK;
}
void comm_finalize(void) {}
int comm_rank(void)
{
    return 0;
}
int comm_size(void)
{
    return 1;
}

int comm_exchange(const void *out, size_t bytes, int to, void *in, size_t cap, int from, size_t *got)
{
    (void)to, (void)from;
    if (bytes > cap) {
        mdl_error("internal: a message of %zu bytes into %zu", bytes, cap);
        return MDL_ERUN;
    }
    if (bytes)
        memmove(in, out, bytes);
    *got = bytes;
    return MDL_OK;
}

int comm_exchange_count(size_t outgoing, int to, size_t *incoming, int from)
{
    (void)to, (void)from;
    *incoming = outgoing;
    return MDL_OK;
}

int comm_sum_doubles(double *v, int n)
{
    (void)v, (void)n;
    return MDL_OK;
}
int comm_max_long(long *v)
{
    (void)v;
    return MDL_OK;
}
int comm_or_int(int *v)
{
    (void)v;
    return MDL_OK;
}
#endif

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

/* Collects timeline intervals (thread-safe) and writes them as CSV. */
#include "profile.h"

#include "outfile.h"
#include "../util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int profile_init(mdl_profile *p)
{
    memset(p, 0, sizeof *p);
    p->t0 = mdl_wtime();
    return pthread_mutex_init(&p->mu, NULL) == 0 ? MDL_OK : MDL_ERUN;
}

static void add_interval(mdl_profile *p, mdl_interval one)
{
    pthread_mutex_lock(&p->mu);
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 4096;
        mdl_interval *iv = realloc(p->iv, cap * sizeof *iv);
        if (!iv) {
            pthread_mutex_unlock(&p->mu);
            return; /* a profile is best effort; the run goes on */
        }
        p->iv = iv;
        p->cap = cap;
    }
    p->iv[p->n++] = one;
    pthread_mutex_unlock(&p->mu);
}

void profile_add(mdl_profile *p, int lane, long step, double start, double end)
{
    if (p)
        add_interval(p, (mdl_interval){lane, step, start, end, NULL});
}

void profile_phase(mdl_profile *p, const char *what, double start)
{
    if (p)
        add_interval(p, (mdl_interval){MDL_LANE_RUN, -1, start - p->t0, mdl_wtime() - p->t0, what});
}

static int by_start(const void *a, const void *b)
{
    double x = ((const mdl_interval *)a)->start, y = ((const mdl_interval *)b)->start;
    return (x > y) - (x < y);
}

static int write_profile(void *user, const char *name)
{
    mdl_profile *p = user;
    static const char *LANES[] = {"compute", "copy", "write", "run"};
    const char *path = name;
    FILE *f = fopen(name, "w");
    if (!f) {
        mdl_error("%s: --profile: cannot write: %s", path, strerror(errno));
        return MDL_ERUN;
    }
    qsort(p->iv, p->n, sizeof *p->iv, by_start);
    fprintf(f, "lane,step,start_s,end_s,what\n");
    for (size_t i = 0; i < p->n; i++)
        fprintf(f, "%s,%ld,%.9f,%.9f,%s\n", LANES[p->iv[i].lane], p->iv[i].step, p->iv[i].start, p->iv[i].end,
                p->iv[i].what ? p->iv[i].what : "");
    if (fclose(f) != 0) {
        mdl_error("%s: --profile: cannot write: %s", path, strerror(errno));
        return MDL_ERUN;
    }
    return MDL_OK;
}

int profile_write(mdl_profile *p, const char *path, int overwrite)
{
    return outfile_write_whole(path, "--profile file", overwrite, write_profile, p);
}

void profile_destroy(mdl_profile *p)
{
    free(p->iv);
    pthread_mutex_destroy(&p->mu);
    memset(p, 0, sizeof *p);
}

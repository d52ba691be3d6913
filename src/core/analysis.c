/* On-the-fly analysis of a stage: its sampling steps, the backend's sums turned into g(r)
   (MDAnalysis InterRDF's normalisation), the MSD per species and the diffusion coefficient from
   its slope, written as CSV rows with the stage's name. */
#include "analysis.h"

#include "../parallel/comm.h"
#include "../util/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The MSD's table of a stage grows with its length: its rows (steps / msd_every + 2) are refused
   past what a checkpoint holds (1e8) or, with every copy of them (the backend's sums, the host's,
   the checkpoint's), past the memory available. */
static int check_msd_table(const mdl_config *c, int ntypes)
{
    if (c->msd_every <= 0)
        return MDL_OK;
    const double rows = (double)c->steps / c->msd_every + 2, bytes = rows * (8.0 + 3 * 8.0 * (1 + ntypes));
    const double avail = (double)mdl_memory_available();
    if (rows <= 1e8 && (avail <= 0 || bytes <= avail))
        return MDL_OK;
    mdl_error("%s: [analysis] msd_every = %d: %.3g MSD rows over %ld steps (%.3g GiB%s); at most 1e8 rows and the "
              "memory available: sample less often", config_origin(c, "analysis", "msd_every"), c->msd_every, rows,
              c->steps, bytes / 1073741824.0, rows <= 1e8 ? ", more than is available" : "");
    return MDL_EINPUT;
}

/* rdf_max past the pair cutoff: g(r) then counts every pair (rdf_all_pairs), up to half the
   distance between the box's closest faces (the minimum image; an orthogonal box's shortest edge),
   in a fixed box, on one rank. */
static int check_rdf_range(const mdl_config *c, double cutmax, const mdl_box *box, int nranks)
{
    if (c->rdf_every <= 0 || c->rdf_max <= cutmax * (1 + 1e-12))
        return MDL_OK;
    double half = INFINITY; /* half the distance between the closest faces (a triclinic box's are tilted) */
    for (int d = 0; d < 3; d++)
        half = fmin(half, 0.5 * box->len[d] * box_face_spacing(box, d));
    const char *why = c->rdf_max > half ? "is past half the distance between the box's closest faces (the minimum image)"
                    : c->ensemble == MDL_NPT_NOSE_HOOVER ? "needs a fixed box, and this stage's barostat moves it"
                    : nranks > 1 ? "counts every pair of atoms, which one rank holds, not several" : NULL;
    if (!why)
        return MDL_OK;
    mdl_error("%s: [analysis] rdf_max: %g, past the largest pair cutoff %g, %s (that half: %g)",
              config_origin(c, "analysis", "rdf_max"), c->rdf_max, cutmax, why, half);
    return MDL_EINPUT;
}

int analysis_check(const mdl_config *cfg, double cutmax, int ntypes, const mdl_box *box, int nranks)
{
    const mdl_config *c = cfg;
    for (int k = 0; k < (cfg->nstages ? cfg->nstages : 1); k++) {
        if (cfg->nstages)
            c = &cfg->stages[k];
        MDL_TRY(check_rdf_range(c, cutmax, box, nranks));
        MDL_TRY(check_msd_table(c, ntypes));
    }
    return MDL_OK;
}

int analysis_wanted(const mdl_config *cfg, int rdf)
{
    if (!cfg->nstages)
        return (rdf ? cfg->rdf_every : cfg->msd_every) > 0;
    for (int k = 0; k < cfg->nstages; k++)
        if ((rdf ? cfg->stages[k].rdf_every : cfg->stages[k].msd_every) > 0)
            return 1;
    return 0;
}

static FILE *open_csv(const char *target, const char *path)
{
    FILE *f = fopen(target, "w");
    if (!f)
        mdl_error("%s: cannot write: %s", path, strerror(errno));
    return f;
}

/* A file whose rows are in: flushed, and it takes its name (outfile.h). */
static int publish_csv(FILE *f, mdl_outfile *out)
{
    if (!f || fflush(f) != 0)
        return f ? MDL_ERUN : MDL_OK;
    return outfile_publish(out);
}

/* A new result for the stage that ends (rank 0), or NULL. */
static mdl_analysis_result *new_result(mdl_analysis_out *o, const char *stage)
{
    mdl_analysis_result *grown = mdl_realloc(o->results, (size_t)(o->nresults + 1) * sizeof *grown, "analysis");
    if (!grown)
        return NULL;
    o->results = grown;
    mdl_analysis_result *res = &o->results[o->nresults++];
    memset(res, 0, sizeof *res);
    snprintf(res->stage, sizeof res->stage, "%s", stage); /* "" without stages: "run" in the H5MD file */
    return res;
}

/* A result's rows in the CSV files (those open), as the stage's end wrote them. */
static void print_result(const mdl_analysis_out *o, const mdl_analysis_result *res)
{
    const int nt = o->ntypes, npairs = nt * (nt + 1) / 2;
    for (int k = 0; o->rdf && res->g && k < res->nbins; k++) {
        fprintf(o->rdf, "%s,%ld,%.10g", res->stage, res->samples, res->r[k]);
        for (int q = 0; q < npairs; q++)
            fprintf(o->rdf, ",%.17g", res->g[(size_t)q * res->nbins + k]);
        fprintf(o->rdf, "\n");
    }
    for (int k = 0; o->msd && res->msd && k < res->rows; k++) {
        const double *row = res->msd + (size_t)k * (2 + nt);
        fprintf(o->msd, "%s,%ld,%.10g", res->stage, (long)row[0], row[1]);
        for (int t = 0; t < nt; t++)
            fprintf(o->msd, ",%.17g", row[2 + t]);
        fprintf(o->msd, "\n");
    }
    if (!o->msd || !res->has_d)
        return;
    fprintf(o->msd, "# stage %s: D from the slope of the msd over steps %ld to %ld (%d samples), in %s^2/%s:", res->stage,
            res->d_first, res->d_last, res->d_rows, o->length, o->time);
    for (int t = 0; t < nt; t++)
        fprintf(o->msd, " D_%s = %.8g", o->species[t], res->d[t]);
    fprintf(o->msd, "\n");
}

int analysis_open(mdl_analysis_out *o, const mdl_config *cfg, const mdl_system *s, const mdl_analysis_results *ended,
                  mdl_outfile *rdf, mdl_outfile *msd)
{
    memset(o, 0, sizeof *o);
    const int metal = strcmp(cfg->units, "metal") == 0;
    const int real = strcmp(cfg->units, "real") == 0;
    o->length = metal || real ? "Angstrom" : "sigma";
    o->time = metal ? "ps" : real ? "fs" : "tau";
    o->ntypes = s->ntypes;
    for (int t = 0; t < s->ntypes; t++)
        memcpy(o->species[t], s->species[t], MDL_NAME_LEN);
    for (size_t i = 0; i < s->n; i++)
        o->count[s->type[i]] += 1;
    if (comm_rank() > 0)
        return MDL_OK;
    o->rdf_out = rdf, o->msd_out = msd;
    if (analysis_wanted(cfg, 1)) {
        if (!(o->rdf = open_csv(outfile_target(rdf), cfg->rdf_file)))
            return MDL_ERUN;
        fprintf(o->rdf, "# mdlite radial distribution function g(r) of each species pair, averaged over each stage's "
                        "samples: pairs / (samples * N_a * N_b / <V> * shell volume), N_b = N_a - 1 for a pair of one "
                        "species (MDAnalysis InterRDF's normalisation)\n# r: bin centre in %s; g: dimensionless\n"
                        "stage,samples,r", o->length);
        for (int a = 0; a < o->ntypes; a++)
            for (int b = a; b < o->ntypes; b++)
                fprintf(o->rdf, ",g_%s-%s", o->species[a], o->species[b]);
        fprintf(o->rdf, "\n");
    }
    if (analysis_wanted(cfg, 0)) {
        if (!(o->msd = open_csv(outfile_target(msd), cfg->msd_file)))
            return MDL_ERUN;
        fprintf(o->msd, "# mdlite mean squared displacement of each species from unwrapped positions (image counters), "
                        "origin at the stage's first step (with [analysis] msd_origins = K, the mean over K origins "
                        "in the stage's first half: a row's step is its lag after the stage's first)\n# time in %s; "
                        "msd in %s^2\nstage,step,time", o->time,
                o->length);
        for (int a = 0; a < o->ntypes; a++)
            fprintf(o->msd, ",msd_%s", o->species[a]);
        fprintf(o->msd, "\n");
    }
    int ok = 1; /* a restart's: the stages that ended before it, theirs from here on */
    mdl_analysis_results *c = ended ? analysis_results_copy(ended->r, ended->n, o->ntypes, &ok) : NULL;
    if (!ok)
        return MDL_ERUN;
    if (c)
        o->results = c->r, o->nresults = c->n, free(c);
    for (int k = 0; k < o->nresults; k++)
        print_result(o, &o->results[k]);
    return MDL_OK;
}

void analysis_close(mdl_analysis_out *o)
{
    if (o->nresults) { /* a file holding only its header never takes its name */
        publish_csv(o->rdf, o->rdf_out);
        publish_csv(o->msd, o->msd_out);
    }
    if (o->rdf)
        fclose(o->rdf);
    if (o->msd)
        fclose(o->msd);
    o->rdf = o->msd = NULL;
    for (int k = 0; k < o->nresults; k++) {
        free(o->results[k].r);
        free(o->results[k].g);
        free(o->results[k].msd);
    }
    free(o->results);
    o->results = NULL, o->nresults = 0;
}

int analysis_write_trajectory(const mdl_analysis_out *o, mdl_traj *t)
{
    const int nt = o->ntypes, metal = strcmp(o->time, "ps") == 0; /* lj: no unit attributes (H5MD's units module) */
    char group[96], name[48], unit[32];
    for (int k = 0; k < o->nresults; k++) {
        const mdl_analysis_result *res = &o->results[k];
        if (res->g) {
            snprintf(group, sizeof group, "analysis/%s/rdf", res->stage[0] ? res->stage : "run");
            MDL_TRY(traj_put_table(t, group, "r", res->r, (size_t)res->nbins, 0, metal ? o->length : NULL));
            for (int a = 0, q = 0; a < nt; a++)
                for (int b = a; b < nt; b++, q++) {
                    snprintf(name, sizeof name, "g_%s-%s", o->species[a], o->species[b]);
                    const double *g = res->g + (size_t)q * res->nbins;
                    MDL_TRY(traj_put_table(t, group, name, g, (size_t)res->nbins, 0, NULL));
                }
        }
        if (res->msd) {
            snprintf(group, sizeof group, "analysis/%s/msd", res->stage[0] ? res->stage : "run");
            MDL_TRY(traj_put_table(t, group, "step_time_msd", res->msd, (size_t)res->rows, (size_t)(2 + nt), NULL));
            snprintf(unit, sizeof unit, "%s^2 %s-1", o->length, o->time); /* H5MD's unit syntax */
            for (int a = 0; a < nt && res->has_d; a++) {
                snprintf(name, sizeof name, "D_%s", o->species[a]);
                MDL_TRY(traj_put_table(t, group, name, &res->d[a], 1, 0, metal ? unit : NULL));
            }
        }
    }
    return MDL_OK;
}

/* The configured origins: msd_origins, msd_origin_every / msd_every samples apart. */
static int origins_of(const mdl_config *cfg)
{
    return cfg->msd_origins > 1 ? cfg->msd_origins : 1;
}

static int origin_spacing(const mdl_config *cfg)
{
    return cfg->msd_origin_every > 0 ? cfg->msd_origin_every / cfg->msd_every : 1;
}

/* Whether checkpoint k holds this stage's analysis as this run samples it. */
static int resumes(const mdl_analysis *a, const mdl_analysis_checkpoint *k, int ntypes, size_t natoms)
{
    return k && k->stage == a->stage && k->start <= a->start && k->ntypes == ntypes &&
           (k->rdf != NULL) == (a->spec.rdf_bins > 0) && (k->msd != NULL) == a->spec.msd &&
           (!k->rdf || (k->rdf_bins == a->spec.rdf_bins && k->rdf_max == a->spec.rdf_max)) &&
           (!k->msd || (k->natoms == natoms && k->msd_origins == origins_of(a->cfg) &&
                        k->origin_every == origin_spacing(a->cfg)));
}

/* The checkpoint's sums into the backend: the stage's samples go on from the restart. */
static int resume(mdl_analysis *a, const mdl_analysis_checkpoint *k)
{
    const int nt = k->ntypes;
    double *msd = k->msd ? mdl_calloc((size_t)a->spec.msd_rows * nt, sizeof(double), "MSD") : NULL;
    if (k->msd && !msd)
        return MDL_ERUN;
    for (int r = 0; r < k->msd_rows && r < a->spec.msd_rows; r++) {
        a->msd_step[r] = (long)k->msd[(size_t)r * (1 + nt)];
        for (int t = 0; t < nt; t++)
            msd[(size_t)r * nt + t] = k->msd[(size_t)r * (1 + nt) + 1 + t];
    }
    a->msd_rows = k->msd_rows < a->spec.msd_rows ? k->msd_rows : a->spec.msd_rows;
    mdl_analysis_sums in = {k->rdf, k->rdf_samples, k->volume_sum, msd, k->origin};
    const int rc = a->ops->analysis_resume(a->ctx, &in);
    free(msd);
    return rc;
}

/* [analysis] msd_origins: K origins msd_origin_every steps apart from the stage's first step (those
   past its end are not taken). Its samples must be evenly spaced: with several origins the stage
   starts on a multiple of msd_every, and msd_origin_every is one. */
static int plan_origins(mdl_analysis *a)
{
    const mdl_config *cfg = a->cfg;
    a->spec.msd_origins = origins_of(cfg), a->spec.origin_every = origin_spacing(cfg);
    if (a->spec.msd_origins == 1)
        return MDL_OK;
    if (cfg->msd_origin_every > 0 && cfg->msd_origin_every % cfg->msd_every != 0) {
        mdl_error("%s: [analysis] msd_origin_every = %d: not a multiple of msd_every = %d",
                  config_origin(cfg, "analysis", "msd_origin_every"), cfg->msd_origin_every, cfg->msd_every);
        return MDL_EINPUT;
    }
    if (a->start % cfg->msd_every != 0) {
        mdl_error("%s: [analysis] msd_origins = %d: the stage starts at step %ld, not a multiple of msd_every = %d, "
                  "so its samples are not evenly spaced; make the stages before it multiples of msd_every",
                  config_origin(cfg, "analysis", "msd_origins"), a->spec.msd_origins, a->start, cfg->msd_every);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

/* How many origins have reached lag `lag` once `samples` samples are taken (physics/analysis.h). */
static int origins_at_lag(const mdl_analysis_spec *sp, int lag, int samples)
{
    int n = 0;
    for (int k = 0; k < sp->msd_origins; k++)
        n += k * sp->origin_every + lag < samples;
    return n;
}

int analysis_begin(mdl_analysis *a, const mdl_analysis_begin *b)
{
    const mdl_config *cfg = b->cfg;
    memset(a, 0, sizeof *a);
    a->cfg = cfg, a->ops = b->ops, a->ctx = b->ctx, a->start = b->start, a->end = b->end, a->time0 = b->time0;
    a->dt = cfg->timestep, a->stage = b->stage;
    a->on = cfg->rdf_every > 0 || cfg->msd_every > 0;
    if (!a->on && b->resume && comm_rank() == 0) /* a restart that changed the stage: said, never silent */
        fprintf(stderr, "mdlite: the checkpoint's analysis (g(r) and MSD since step %ld) is not continued: this "
                        "stage samples none\n", b->resume->start);
    if (!a->on)
        return MDL_OK;
    a->spec.rdf_bins = cfg->rdf_every > 0 ? cfg->rdf_bins : 0;
    a->spec.rdf_max = cfg->rdf_max > 0 ? cfg->rdf_max : b->cutmax;
    a->spec.rdf_all_pairs = a->spec.rdf_max > b->cutmax * (1 + 1e-12); /* past the list: every pair */
    a->spec.msd = cfg->msd_every > 0;
    const int resumed = resumes(a, b->resume, b->ntypes, b->natoms);
    if (resumed) /* the stage began before the restart: its time and the MSD's origin are its start's */
        a->time0 -= (double)(a->start - b->resume->start) * a->dt, a->start = b->resume->start;
    else if (b->resume && comm_rank() == 0)
        fprintf(stderr, "mdlite: the checkpoint's analysis is %s: this stage's averages and the MSD's origin start "
                        "at step %ld\n", b->resume->stage != a->stage ? "another stage's" : "sampled otherwise",
                a->start);
    if (a->spec.msd) {
        a->spec.msd_rows = (int)((a->end - a->start) / cfg->msd_every + 2);
        MDL_TRY(plan_origins(a));
        if (!(a->msd_step = mdl_calloc((size_t)a->spec.msd_rows, sizeof *a->msd_step, "MSD steps")))
            return MDL_ERUN;
    }
    MDL_TRY(a->ops->analysis_start(a->ctx, &a->spec));
    return resumed ? resume(a, b->resume) : analysis_sample(a, a->start);
}

int analysis_checkpoint(const mdl_analysis *a, size_t natoms, int ntypes, mdl_analysis_checkpoint **out)
{
    *out = NULL;
    if (!a->on)
        return MDL_OK;
    mdl_analysis_checkpoint *k = mdl_calloc(1, sizeof *k, "the analysis's checkpoint");
    const size_t nr = (size_t)ntypes * (ntypes + 1) / 2 * a->spec.rdf_bins, nm = (size_t)a->spec.msd_rows * ntypes;
    mdl_analysis_sums m = {0};
    m.rdf = mdl_calloc(nr ? nr : 1, sizeof(double), "RDF");
    m.msd = mdl_calloc(nm ? nm : 1, sizeof(double), "MSD");
    m.origin = a->spec.msd ? mdl_alloc((size_t)a->spec.msd_origins * natoms * 3 * sizeof(double), "the MSD's origins")
                           : NULL;
    int rc = k && m.rdf && m.msd && (!a->spec.msd || m.origin) ? a->ops->analysis_read(a->ctx, &m) : MDL_ERUN;
    if (rc == MDL_OK && comm_rank() == 0) {
        *k = (mdl_analysis_checkpoint){a->stage, a->start, ntypes, a->spec.rdf_bins, a->msd_rows, a->spec.rdf_max,
                                       m.volume_sum, m.rdf_samples, nr ? m.rdf : NULL, NULL,
                                       a->spec.msd ? m.origin : NULL, natoms, a->spec.msd_origins,
                                       a->spec.origin_every};
        m.rdf = nr ? NULL : m.rdf, m.origin = NULL;
        if (a->spec.msd && (k->msd = mdl_alloc((size_t)a->msd_rows * (1 + ntypes) * sizeof(double) + 1, "MSD"))) {
            for (int r = 0; r < a->msd_rows; r++) {
                k->msd[(size_t)r * (1 + ntypes)] = (double)a->msd_step[r];
                memcpy(k->msd + (size_t)r * (1 + ntypes) + 1, m.msd + (size_t)r * ntypes, ntypes * sizeof(double));
            }
        } else if (a->spec.msd)
            rc = MDL_ERUN;
        *out = rc == MDL_OK ? k : NULL;
        k = rc == MDL_OK ? NULL : k;
    }
    analysis_checkpoint_free(k);
    free(m.rdf);
    free(m.msd);
    free(m.origin);
    return rc;
}

/* Samples at the steps that are multiples of each _every (as thermo rows and frames are), and the
   MSD's origin at the stage's first step. */
static int rdf_step(const mdl_analysis *a, long step)
{
    return a->cfg->rdf_every > 0 && step % a->cfg->rdf_every == 0;
}

static int msd_step(const mdl_analysis *a, long step)
{
    return a->cfg->msd_every > 0 && (step % a->cfg->msd_every == 0 || step == a->start);
}

int analysis_is_step(const mdl_analysis *a, long step)
{
    return a->on && (rdf_step(a, step) || msd_step(a, step));
}

int analysis_sample(mdl_analysis *a, long step)
{
    if (!analysis_is_step(a, step))
        return MDL_OK;
    int row = -1;
    if (msd_step(a, step) && a->msd_rows < a->spec.msd_rows) {
        row = a->msd_rows++;
        a->msd_step[row] = step;
    }
    return a->ops->analysis_sample(a->ctx, rdf_step(a, step), row);
}

/* g(r) of each species pair into res (InterRDF's normalisation); MDL_ERUN when out of memory. */
static int rdf_result(const mdl_analysis *a, const mdl_analysis_out *o, const mdl_analysis_sums *m,
                      mdl_analysis_result *res)
{
    const int nbins = a->spec.rdf_bins, nt = o->ntypes, npairs = nt * (nt + 1) / 2;
    if (!(res->r = mdl_calloc((size_t)nbins, sizeof(double), "RDF")) ||
        !(res->g = mdl_calloc((size_t)nbins * npairs, sizeof(double), "RDF")))
        return MDL_ERUN;
    res->nbins = nbins, res->samples = m->rdf_samples;
    const double rmax = a->spec.rdf_max, volume = m->volume_sum / (double)m->rdf_samples;
    for (int k = 0; k < nbins; k++) {
        const double lo = rdf_edge(k, rmax, nbins), hi = rdf_edge(k + 1, rmax, nbins);
        const double shell = 4.0 / 3.0 * 3.14159265358979323846 * (hi * hi * hi - lo * lo * lo);
        res->r[k] = 0.5 * (lo + hi);
        for (int p = 0, q = 0; p < nt; p++)
            for (int r = p; r < nt; r++, q++) {
                const double pairs = o->count[p] * (p == r ? o->count[p] - 1 : o->count[r]);
                const double norm = (double)m->rdf_samples * shell * pairs / volume;
                res->g[(size_t)q * nbins + k] = norm > 0 ? m->rdf[(size_t)q * nbins + k] / norm : 0.0;
            }
    }
    return MDL_OK;
}

/* D of each species: a sixth of the least-squares slope of its MSD over the second half of the
   stage's samples (at least two), into res; said on stdout unless quiet. */
static void diffusion(const mdl_analysis *a, const mdl_analysis_out *o, const double *msd, int quiet,
                      mdl_analysis_result *res)
{
    const int nt = o->ntypes, rows = a->msd_rows;
    const double tlast = (double)(a->msd_step[rows - 1] - a->start) * a->dt;
    int first = 0;
    while (first < rows && (double)(a->msd_step[first] - a->start) * a->dt < 0.5 * tlast)
        first++;
    if (rows - first < 2)
        return;
    res->has_d = 1, res->d_first = a->msd_step[first], res->d_last = a->msd_step[rows - 1], res->d_rows = rows - first;
    for (int t = 0; t < nt; t++) {
        double st = 0, sm = 0, stt = 0, stm = 0, n = rows - first;
        for (int k = first; k < rows; k++) {
            const double x = (double)(a->msd_step[k] - a->start) * a->dt, y = msd[(size_t)k * nt + t] / o->count[t];
            st += x, sm += y, stt += x * x, stm += x * y;
        }
        res->d[t] = (n * stm - st * sm) / (n * stt - st * st) / 6.0;
    }
    if (quiet)
        return;
    mdl_say("Diffusion coefficient (MSD slope over steps %ld to %ld) =", res->d_first, res->d_last);
    for (int t = 0; t < nt; t++)
        mdl_say(" %s %.6g", o->species[t], res->d[t]);
    mdl_say(" %s^2/%s\n", o->length, o->time);
}

/* The MSD's rows (step, time, each species' msd) and D into res; MDL_ERUN when out of memory. */
static int msd_result(const mdl_analysis *a, const mdl_analysis_out *o, const double *msd, int quiet,
                      mdl_analysis_result *res)
{
    const int nt = o->ntypes, w = 2 + nt;
    if (!(res->msd = mdl_calloc((size_t)a->msd_rows * w, sizeof(double), "MSD")))
        return MDL_ERUN;
    res->rows = a->msd_rows;
    double *mean = mdl_alloc((size_t)a->msd_rows * nt * sizeof *mean, "MSD"); /* over the origins */
    if (!mean)
        return MDL_ERUN;
    for (int k = 0; k < a->msd_rows; k++) {
        const int n = origins_at_lag(&a->spec, k, a->msd_rows);
        double *row = res->msd + (size_t)k * w;
        row[0] = (double)a->msd_step[k], row[1] = a->time0 + (double)(a->msd_step[k] - a->start) * a->dt;
        for (int t = 0; t < nt; t++) {
            mean[(size_t)k * nt + t] = msd[(size_t)k * nt + t] / (n > 0 ? n : 1);
            row[2 + t] = mean[(size_t)k * nt + t] / o->count[t];
        }
    }
    diffusion(a, o, mean, quiet, res);
    free(mean);
    return MDL_OK;
}

void analysis_discard(mdl_analysis *a)
{
    free(a->msd_step);
    a->msd_step = NULL;
    a->on = 0;
}

int analysis_end(mdl_analysis *a, mdl_analysis_out *o, int quiet)
{
    if (!a->on)
        return MDL_OK;
    const int nt = o->ntypes;
    mdl_analysis_sums m = {0};
    m.rdf = mdl_calloc((size_t)(nt * (nt + 1) / 2) * (a->spec.rdf_bins ? a->spec.rdf_bins : 1), sizeof(double), "RDF");
    m.msd = mdl_calloc((size_t)(a->spec.msd_rows ? a->spec.msd_rows : 1) * nt, sizeof(double), "MSD");
    int rc = m.rdf && m.msd ? a->ops->analysis_read(a->ctx, &m) : MDL_ERUN;
    mdl_analysis_result *res = rc == MDL_OK && (o->rdf || o->msd) ? new_result(o, a->cfg->stage_name) : NULL;
    if (rc == MDL_OK && (o->rdf || o->msd) && !res)
        rc = MDL_ERUN;
    if (rc == MDL_OK && res && o->rdf && a->spec.rdf_bins && m.rdf_samples > 0)
        rc = rdf_result(a, o, &m, res);
    if (rc == MDL_OK && res && o->msd && a->msd_rows > 0)
        rc = msd_result(a, o, m.msd, quiet, res);
    if (rc == MDL_OK && res)
        print_result(o, res);
    if (rc == MDL_OK && res) /* rows are in: the files take their names */
        rc = publish_csv(o->rdf, o->rdf_out) != MDL_OK || publish_csv(o->msd, o->msd_out) != MDL_OK ? MDL_ERUN : MDL_OK;
    if (rc == MDL_OK && ((o->rdf && fflush(o->rdf) != 0) || (o->msd && fflush(o->msd) != 0))) {
        mdl_error("writing the analysis files (%s, %s): %s", a->cfg->rdf_file, a->cfg->msd_file, strerror(errno));
        rc = MDL_ERUN;
    }
    free(m.rdf);
    free(m.msd);
    free(a->msd_step);
    a->msd_step = NULL;
    a->on = 0;
    return rc;
}

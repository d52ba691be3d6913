/* `mdlite compare CONFIG [--steps N] [--set k=v]...`: builds one initial state, runs it on both
   backends, prints step-0 force differences, thermo differences per thermo step and the speed ratio. */
#include "compare.h"

#include "../core/backend.h"
#include "../config/config.h"
#include "../core/run.h"
#include "../system/setup.h"
#include "../util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double compare_force_scale(const mdl_config *cfg, const double *fx, const double *fy, const double *fz, size_t n)
{
    double sum = 0, pair = potential_force_scale(cfg);
    for (size_t i = 0; i < n; i++)
        sum += fx[i] * fx[i] + fy[i] * fy[i] + fz[i] * fz[i];
    return fmax(n ? sqrt(sum / (double)n) : 0.0, pair);
}

void compare_forces(const double *const a[3], const double *const b[3], size_t n, double f0, double *rms,
                    double *worst)
{
    double sum = 0, big = 0;
    for (size_t i = 0; i < n; i++) {
        double d2 = 0;
        for (int k = 0; k < 3; k++)
            d2 += (b[k][i] - a[k][i]) * (b[k][i] - a[k][i]);
        sum += d2;
        big = fmax(big, d2);
    }
    *rms = n ? sqrt(sum / (double)n) / f0 : 0.0;
    *worst = sqrt(big) / f0;
}

#ifdef MDLITE_HAVE_GPU
typedef struct {
    mdl_stepper st;
    mdl_observables *obs; /* one per thermo row */
    double loop;
    mdl_backend_stats stats; /* at the end */
} side;

/* Runs s0 on one backend; forces0 is pointed at its step-0 forces (a snapshot, in id order). */
static int run_side(side *sd, const mdl_backend_ops *ops, const mdl_config *cfg, const mdl_setup *setup,
                    const mdl_system *s0, mdl_system *forces0, int nrows)
{
    sd->st = (mdl_stepper){.ops = ops, .cfg = cfg, .units = setup->units, .natoms = s0->n, .run_end = cfg->steps};
    sd->obs = calloc((size_t)nrows, sizeof *sd->obs);
    if (!sd->obs || ops->create(&sd->st.ctx, setup, s0) != MDL_OK || stepper_setup(&sd->st, 0, 0) != MDL_OK ||
        ops->snapshot_alloc(sd->st.ctx, 1, MDL_DUMP_FORCE) != MDL_OK ||
        ops->snapshot_start(sd->st.ctx, 0, MDL_DUMP_FORCE) != MDL_OK ||
        ops->snapshot_finish(sd->st.ctx, 0, forces0, &sd->obs[0]) != MDL_OK)
        return MDL_ERUN;
    int row = 1;
    double t0 = mdl_wtime();
    for (long step = 1; step <= cfg->steps; step++) {
        int energy = is_thermo_step(cfg, step, cfg->steps);
        if (stepper_advance(&sd->st, step, energy, !energy && step < cfg->steps) != MDL_OK)
            return MDL_ERUN;
        if (energy && backend_observe(ops, sd->st.ctx, &sd->obs[row++]) != MDL_OK)
            return MDL_ERUN;
    }
    sd->loop = mdl_wtime() - t0;
    return ops->stats(sd->st.ctx, &sd->stats);
}

static double rel(double a, double b)
{
    return fabs(a - b) / fmax(fabs(b), 1e-300);
}

static void report(const mdl_config *cfg, const mdl_system *fc, const mdl_system *fg, const side *c, const side *g,
                   size_t n)
{
    const double *a[3] = {fc->fx, fc->fy, fc->fz}, *b[3] = {fg->fx, fg->fy, fg->fz};
    double f0 = compare_force_scale(cfg, fc->fx, fc->fy, fc->fz, n), rms, worst;
    compare_forces(a, b, n, f0, &rms, &worst);
    printf("step 0 forces: rms |F_gpu - F_cpu| / F0 = %.3e, max |dF| / F0 = %.3e (F0 = %.4g, the larger of the "
           "rms force and the largest pair force scale, epsilon/sigma for LJ)\n", rms, worst, f0);
    printf("%10s %12s %12s %12s %12s %12s   (relative differences, GPU vs CPU)\n", "step", "temperature",
           "pot_energy", "kin_energy", "tot_energy", "pressure");
    int row = 0;
    double worst_row = 0;
    for (long step = 0; step <= cfg->steps; step++) {
        if (step != 0 && !is_thermo_step(cfg, step, cfg->steps))
            continue;
        const mdl_observables *a = &c->obs[row], *b = &g->obs[row];
        double d[5] = {rel(b->temperature, a->temperature), rel(b->potential, a->potential),
                       rel(b->kinetic, a->kinetic), rel(b->potential + b->kinetic, a->potential + a->kinetic),
                       fabs(b->pressure - a->pressure) / fmax(fabs(a->pressure), 1.0)};
        printf("%10ld %12.3e %12.3e %12.3e %12.3e %12.3e\n", step, d[0], d[1], d[2], d[3], d[4]);
        for (int k = 0; k < 5; k++)
            worst_row = fmax(worst_row, d[k]);
        row++;
    }
    printf("largest thermo difference: %.3e\n", worst_row);
    printf("neighbor list builds: cpu %ld (%ld dangerous), gpu %ld (%ld dangerous)", c->stats.builds,
           c->stats.dangerous, g->stats.builds, g->stats.dangerous);
    if (g->stats.outer_skin > 0)
        printf(" + %ld prunes of an outer list (skin %g)", g->stats.prunes, g->stats.outer_skin);
    printf("\n");
    printf("loop time: cpu %.4g s, gpu %.4g s; speed ratio gpu/cpu = %.3g (%zu atoms, %ld steps)\n", c->loop, g->loop,
           g->loop > 0 ? c->loop / g->loop : 0.0, n, cfg->steps);
}

#endif

int compare_main(int argc, char **argv)
{
#ifndef MDLITE_HAVE_GPU
    (void)argc, (void)argv;
    mdl_error("compare: needs the GPU backend, which this build does not have");
    return MDL_EINPUT;
#else
    const char *path = NULL;
    long steps = -1; /* --steps: the run's (a staged config's first stage's) */
    char **sets = calloc((size_t)argc + 1, sizeof *sets);
    int nset = 0, rc = MDL_OK;
    for (int i = 0; i < argc && rc == MDL_OK; i++) {
        long v;
        if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            if (mdl_parse_long(argv[++i], &v) != 0 || v < 0) {
                mdl_error("compare: --steps needs a count");
                rc = MDL_EINPUT;
            }
            steps = v;
        } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
            sets[nset++] = argv[++i];
        } else if (!path && argv[i][0] != '-') {
            path = argv[i];
        } else {
            mdl_error("compare: unexpected argument %s (usage: mdlite compare CONFIG [--steps N] [--set k=v])", argv[i]);
            rc = MDL_EINPUT;
        }
    }
    if (rc == MDL_OK && !path) {
        mdl_error("compare: missing CONFIG");
        rc = MDL_EINPUT;
    }
    mdl_config cfg;
    mdl_units u;
    mdl_system s, fc, fg;
    mdl_pair_table pt = {0};
    side c, g;
    memset(&c, 0, sizeof c), memset(&g, 0, sizeof g);
    memset(&s, 0, sizeof s), memset(&fc, 0, sizeof fc), memset(&fg, 0, sizeof fg);
    int loaded = 0;
    if (rc == MDL_OK) {
        char *cpu_set = "run.backend=cpu";
        sets[nset++] = cpu_set; /* validate as a CPU run: brute-atomic is checked on the GPU side */
        rc = config_load(&cfg, path, nset, sets);
        loaded = 1;
    }
    mdl_config one; /* what is compared: the configuration, or a staged one's first stage */
    memset(&one, 0, sizeof one);
    if (rc == MDL_OK) {
        one = cfg.nstages ? cfg.stages[0] : cfg;
        if (steps >= 0)
            one.steps = steps;
        if (cfg.nstages)
            printf("compare: %s has %d stages: comparing the first, %s (%s, %ld steps)\n", path, cfg.nstages,
                   one.stage_name, config_ensemble_name(one.ensemble), one.steps);
        units_lookup(cfg.units, &u);
        rc = system_init(&s, 0);
    }
    if (rc == MDL_OK)
        rc = system_setup(&cfg, &u, &s, mdl_cpu_backend.draw_normals); /* one state for both backends */
    if (rc == MDL_OK)
        rc = stepper_groups(&cfg, &mdl_gpu_backend, &s);
    if (rc == MDL_OK)
        rc = potential_build(&cfg, &s, &pt);
    int nrows = (int)(one.thermo > 0 ? one.steps / one.thermo + 2 : 2);
    if (rc == MDL_OK) {
        mdl_setup setup = backend_setup(&one, &u, &pt);
        rc = run_side(&c, &mdl_cpu_backend, &one, &setup, &s, &fc, nrows);
        if (rc == MDL_OK)
            rc = run_side(&g, &mdl_gpu_backend, &one, &setup, &s, &fg, nrows);
        if (rc == MDL_OK)
            report(&one, &fc, &fg, &c, &g, s.n);
    }
    if (c.st.ctx)
        mdl_cpu_backend.destroy(c.st.ctx);
    if (g.st.ctx)
        mdl_gpu_backend.destroy(g.st.ctx);
    free(c.obs), free(g.obs), free(sets);
    potential_destroy(&pt);
    system_destroy(&s);
    if (loaded)
        config_destroy(&cfg);
    return rc;
#endif
}

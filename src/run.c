/* The driver loop: set-up, velocity Verlet through the backend table, thermo, timers, summary. */
#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include "backend.h"
#include "potential.h"
#include "setup.h"
#include "thermo.h"
#include "util.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { PH_NEIGHBOR, PH_FORCE, PH_INTEGRATE, PH_THERMO, PH_OUTPUT, PH_COUNT };
static const char *PHASE_NAMES[PH_COUNT] = {"Neighbor", "Force", "Integrate", "Thermo", "Output"};

typedef struct {
    double t[PH_COUNT];
    double mark;
} phase_timers;

static void phase_start(phase_timers *pt)
{
    pt->mark = mdl_wtime();
}

static void phase_stop(phase_timers *pt, int phase)
{
    double now = mdl_wtime();
    pt->t[phase] += now - pt->mark;
    pt->mark = now;
}

typedef struct {
    const mdl_backend_ops *ops;
    void *ctx;
    const mdl_config *cfg;
    mdl_thermo thermo;
    phase_timers timers;
    mdl_neighbor_stats nb;
    long last_build;    /* step of the last neighbor build */
    size_t natoms;
    int progress;       /* draw a progress line (stdout is a terminal) */
    double next_progress;
} run_state;

#define CALL(expr)                 \
    do {                           \
        int rc_ = (expr);          \
        if (rc_ != MDL_OK)         \
            return rc_;            \
    } while (0)

static void clear_progress(run_state *r)
{
    if (r->progress) {
        fputs("\r\033[K", stdout);
        fflush(stdout);
    }
}

static void draw_progress(run_state *r, long step, double t0)
{
    double now = mdl_wtime();
    if (!r->progress || now < r->next_progress)
        return;
    r->next_progress = now + 0.5;
    double done = (double)step / (double)r->cfg->steps, el = now - t0;
    double eta = done > 0 ? el * (1.0 - done) / done : 0;
    printf("\r\033[K  step %ld / %ld  (%.0f%%)  %.3g atom-steps/s  ETA %d:%02d", step, r->cfg->steps, 100 * done,
           el > 0 ? (double)r->natoms * (double)step / el : 0.0, (int)(eta / 60), (int)eta % 60);
    fflush(stdout);
}

static int write_thermo(run_state *r, long step)
{
    mdl_observables o;
    CALL(r->ops->reduce(r->ctx, &o));
    clear_progress(r);
    return thermo_write(&r->thermo, step, (double)step * r->cfg->timestep, &o);
}

static int is_thermo_step(const mdl_config *cfg, long step)
{
    return cfg->thermo > 0 && (step % cfg->thermo == 0 || step == cfg->steps);
}

/* One velocity-Verlet step, in LAMMPS's order. */
static int advance(run_state *r, long step)
{
    const mdl_backend_ops *ops = r->ops;
    const mdl_config *cfg = r->cfg;
    int energy = is_thermo_step(cfg, step);
    phase_start(&r->timers);
    CALL(ops->integrate_first(r->ctx));
    phase_stop(&r->timers, PH_INTEGRATE);
    if ((step - r->last_build) % cfg->check == 0) {
        int rebuild;
        CALL(ops->neighbor_check(r->ctx, &rebuild));
        if (rebuild) {
            CALL(ops->build_neighbors(r->ctx));
            r->nb.builds++;
            if (step - r->last_build == cfg->check)
                r->nb.dangerous++;
            r->last_build = step;
        }
    }
    phase_stop(&r->timers, PH_NEIGHBOR);
    CALL(ops->compute_forces(r->ctx, energy));
    CALL(ops->thermostat(r->ctx, step, MDL_THERMOSTAT_POST_FORCE));
    phase_stop(&r->timers, PH_FORCE);
    CALL(ops->integrate_second(r->ctx));
    CALL(ops->thermostat(r->ctx, step, MDL_THERMOSTAT_END_OF_STEP));
    phase_stop(&r->timers, PH_INTEGRATE);
    if (energy)
        CALL(write_thermo(r, step));
    phase_stop(&r->timers, PH_THERMO);
    return MDL_OK;
}

static void print_summary(run_state *r, double loop, int threads)
{
    const mdl_config *cfg = r->cfg;
    double sum = 0;
    clear_progress(r);
    printf("Loop time of %.6g s on %d thread%s (%s backend) for %ld steps with %zu atoms\n", loop, threads,
           threads == 1 ? "" : "s", r->ops->name, cfg->steps, r->natoms);
    printf("Performance: %.6g atom-steps/s\n", loop > 0 ? (double)r->natoms * (double)cfg->steps / loop : 0.0);
    printf("\n%-10s | %12s | %7s\n", "Phase", "time (s)", "%total");
    printf("-----------+--------------+--------\n");
    for (int p = 0; p < PH_COUNT; p++) {
        sum += r->timers.t[p];
        printf("%-10s | %12.6g | %6.2f\n", PHASE_NAMES[p], r->timers.t[p], loop > 0 ? 100 * r->timers.t[p] / loop : 0);
    }
    double other = loop - sum > 0 ? loop - sum : 0;
    printf("%-10s | %12.6g | %6.2f\n\n", "Other", other, loop > 0 ? 100 * other / loop : 0);
    printf("Neighbor pairs = %.0f (%.4g per atom)\n", r->nb.neighbors, r->nb.neighbors / (double)r->natoms);
    printf("Neighbor list builds = %ld\n", r->nb.builds);
    printf("Dangerous builds = %ld\n", r->nb.dangerous);
}

static int run_loop(run_state *r)
{
    const mdl_config *cfg = r->cfg;
    phase_start(&r->timers);
    CALL(r->ops->build_neighbors(r->ctx));
    r->last_build = 0;
    CALL(r->ops->compute_forces(r->ctx, 1));
    CALL(r->ops->thermostat(r->ctx, 0, MDL_THERMOSTAT_POST_FORCE));
    if (cfg->thermo > 0)
        CALL(write_thermo(r, 0));
    double t0 = mdl_wtime();
    memset(&r->timers, 0, sizeof r->timers);
    for (long step = 1; step <= cfg->steps; step++) {
        CALL(advance(r, step));
        draw_progress(r, step, t0);
    }
    double loop = mdl_wtime() - t0;
    r->nb.neighbors = r->ops->neighbor_count(r->ctx);
    print_summary(r, loop, cfg->threads > 0 ? cfg->threads : omp_get_max_threads());
    return MDL_OK;
}

int run_simulation(const mdl_config *cfg, int quiet)
{
    mdl_units u;
    mdl_system s;
    mdl_pair_table pt;
    units_lookup(cfg->units, &u);
    const mdl_backend_ops *ops = backend_lookup(cfg->backend);
    if (!ops)
        return MDL_EINPUT;
    if (system_init(&s, 0) != MDL_OK)
        return MDL_ERUN;
    int rc = system_setup(cfg, &u, &s);
    if (rc == MDL_OK)
        rc = potential_build(cfg, &s, &pt);
    if (rc == MDL_OK)
        rc = check_cutoff_fits(cfg, &s, &pt);
    run_state r;
    memset(&r, 0, sizeof r);
    r.ops = ops;
    r.cfg = cfg;
    r.natoms = s.n;
    r.progress = !quiet && isatty(STDOUT_FILENO);
    if (rc == MDL_OK) {
        mdl_setup setup = {cfg, &u, &pt, cfg->skin, cfg->threads};
        if (cfg->threads > 0)
            omp_set_num_threads(cfg->threads);
        rc = ops->create(&r.ctx, &setup, &s);
    }
    if (rc == MDL_OK && !quiet)
        printf("mdlite: %zu atoms, %d species, box %g x %g x %g, %s units, %s backend, %ld steps\n", s.n, s.ntypes,
               s.box.len[0], s.box.len[1], s.box.len[2], u.name, ops->name, cfg->steps);
    system_destroy(&s); /* the backend holds the state from here on */
    int thermo_open_rc = MDL_ERUN;
    if (rc == MDL_OK)
        rc = thermo_open_rc = thermo_open(&r.thermo, cfg->thermo_file, r.natoms, quiet);
    if (rc == MDL_OK)
        rc = run_loop(&r);
    if (thermo_open_rc == MDL_OK) {
        int crc = thermo_close(&r.thermo);
        if (rc == MDL_OK)
            rc = crc;
    }
    if (r.ctx)
        ops->destroy(r.ctx);
    return rc;
}

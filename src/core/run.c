/* The driver loop: set-up, velocity Verlet through the backend table, thermo, timers, summary. */
#define _POSIX_C_SOURCE 200809L
#include "run.h"

#include "plan.h"

#include "backend.h"
#include "../parallel/comm.h"
#include "../system/potential.h"
#include "../system/setup.h"
#include "skin_tuner.h"
#include "../io/thermo.h"
#include "../io/outfile.h"
#include "../io/profile.h"
#include "../io/checkpoint.h"
#include "../io/trajectory.h"
#include "../io/writer.h"
#include "../util/util.h"

#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *PHASE_NAMES[PH_COUNT] = {"Neighbor", "Force", "Integrate", "Thermo", "Output"};
enum { RANK_STATS = PH_COUNT + 3 }; /* per rank, gathered for the summary: phases, comm, atoms, ghosts */

typedef struct {
    mdl_stepper st;
    const mdl_backend_ops *ops;
    void *ctx;
    const mdl_config *cfg;
    const mdl_units *units;
    mdl_thermo thermo;
    mdl_traj *traj;     /* NULL without a trajectory */
    mdl_writer *writer; /* asynchronous output ([output] async = yes) */
    mdl_profile *prof;  /* --profile */
    long frames;        /* frames written by this run (the flush/checkpoint schedule) */
    long last_frame;    /* step of the last frame handed out (the writer may not have written it yet) */
    long thermo_step[MDL_THERMO_SLOTS]; /* queued thermo rows (GPU): FIFO [thermo_head, thermo_tail) */
    long thermo_head, thermo_tail;
    mdl_system snap;    /* with a trajectory: the set-up system, kept as the frames' metadata
                           (species, masses, types, ids) */
    long first_step, final_step;
    double first_time;
    int restarted;      /* from a checkpoint */
    int forces_given;   /* the checkpoint's forces hold: computed from what this run computes them from */
    double thermostat_state[MDL_NH_STATE]; /* the checkpoint's (Nose-Hoover's chains and barostat) */
    int nstate;
    int append;         /* continuing the restart file itself: its last frame is our first */
    int fd_thermo, fd_traj, fd_profile; /* locks on the output files (outfile_claim), -1: none */
    size_t natoms;
    int progress;       /* draw a progress line (stdout is a terminal) */
    double cpu;         /* CPU seconds of the loop */
    mdl_backend_stats stats; /* at the end of the loop */
    mdl_skin_tuner tuner;    /* skin = auto */
    double cutmax;           /* the largest pair cutoff */
    int quiet;
    double next_progress;
    int rank, nranks;
    int grid[3];             /* bricks along x, y, z */
    double volume_sum;       /* over the thermo rows (a barostat's average volume) */
    char species_counts[MDL_MAX_SPECIES * (MDL_NAME_LEN + 24)]; /* "A 3200, B 800" */
    long volume_rows;
} run_state;

static double step_time(const run_state *r, long step)
{
    return r->first_time + (double)(step - r->first_step) * r->cfg->timestep;
}

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
    long done_steps = step - r->first_step;
    double done = (double)done_steps / (double)r->cfg->steps, el = now - t0;
    double eta = done > 0 ? el * (1.0 - done) / done : 0;
    printf("\r\033[K  step %ld / %ld  (%.0f%%)  %.3g atom-steps/s  ETA %d:%02d", step, r->final_step, 100 * done,
           el > 0 ? (double)r->natoms * (double)done_steps / el : 0.0, (int)(eta / 60), (int)eta % 60);
    fflush(stdout);
}

/* Which observable of o is not finite, or NULL. */
static const char *nonfinite_observable(const mdl_observables *o)
{
    return !isfinite(o->potential) ? "potential energy" : !isfinite(o->kinetic) ? "kinetic energy"
         : !isfinite(o->pressure) ? "pressure" : NULL;
}

static int write_thermo_row(run_state *r, long step, const mdl_observables *o)
{
    MDL_TRY(stepper_check_health(&r->st, step)); /* a row after an unsafe step is not printed */
    clear_progress(r);
    const char *bad = nonfinite_observable(o);
    if (bad)
        return stepper_unhealthy(&r->st, step, bad);
    r->volume_sum += o->volume;
    r->volume_rows++;
    return thermo_write(&r->thermo, step, step_time(r, step), o);
}

/* A trajectory frame of the current state (forces computed with energy and virial), handed to
   the writer (async = no: written before this returns). Every flush_every-th frame and the last
   flush the file and, with output.checkpoint, carry the checkpoint. */
static int write_frame(run_state *r, long step, int last)
{
    double t0 = mdl_wtime();
    int flush = last || (r->frames + 1) % r->cfg->flush_every == 0;
    mdl_frame f = {step, step_time(r, step), &r->snap, NULL, flush && r->cfg->checkpoint, flush, {0}, 0};
    MDL_TRY(thermostat_state(&r->st.thermostat, r->ops, r->ctx, f.thermostat, &f.nstate));
    r->frames++;
    r->last_frame = step;
    MDL_TRY(r->ops->synchronize(r->ctx)); /* the device is there: was the state healthy? */
    MDL_TRY(stepper_check_health(&r->st, step));
    int fields = f.checkpoint ? MDL_DUMP_ALL : r->cfg->dump_fields;
    if (r->writer)
        MDL_TRY(writer_submit(r->writer, &f, fields));
    else /* another rank than 0: its atoms to rank 0's frame */
        MDL_TRY(r->ops->snapshot_start(r->ctx, 0, fields));
    r->st.timers.t[PH_OUTPUT] += mdl_wtime() - t0;
    r->st.timers.mark = mdl_wtime();
    return MDL_OK;
}

/* Prints the queued thermo rows whose results have arrived, in order; wait: all of them. */
static int drain_thermo(run_state *r, int wait)
{
    while (r->thermo_head < r->thermo_tail) {
        int slot = (int)(r->thermo_head % MDL_THERMO_SLOTS);
        mdl_observables o;
        int rc = r->ops->reduce_poll(r->ctx, slot, &o, wait);
        if (rc == MDL_NOT_READY)
            return MDL_OK;
        MDL_TRY(rc);
        MDL_TRY(write_thermo_row(r, r->thermo_step[slot], &o));
        r->thermo_head++;
    }
    return MDL_OK;
}

/* Queues this step's thermo row; waits only when every slot is pending. */
static int queue_thermo(run_state *r, long step)
{
    if (r->thermo_tail - r->thermo_head == MDL_THERMO_SLOTS) {
        int slot = (int)(r->thermo_head % MDL_THERMO_SLOTS);
        mdl_observables o;
        MDL_TRY(r->ops->reduce_poll(r->ctx, slot, &o, 1));
        MDL_TRY(write_thermo_row(r, r->thermo_step[slot], &o));
        r->thermo_head++;
    }
    int slot = (int)(r->thermo_tail % MDL_THERMO_SLOTS);
    MDL_TRY(r->ops->reduce_start(r->ctx, slot));
    r->thermo_step[slot] = step;
    r->thermo_tail++;
    return MDL_OK;
}

static volatile sig_atomic_t g_stop_signal = 0;

/* (every rank: rank 0 writes the frames that all of them gather) */
static int is_dump_step(const run_state *r, long step)
{
    return r->cfg->trajectory[0] && (step % r->cfg->dump_every == 0 || step == r->final_step);
}

static int advance(run_state *r, long step)
{
    int thermo = is_thermo_step(r->cfg, step, r->final_step), dump = is_dump_step(r, step);
    double t0 = r->prof ? mdl_wtime() : 0;
    /* the next step's first half kick may go with this step's last unless a row, a frame or a
       stop looks at the state in between */
    int chain = !thermo && !dump && step < r->final_step && !g_stop_signal && !skin_tuner_boundary(&r->tuner, step);
    MDL_TRY(stepper_advance(&r->st, step, thermo || dump, chain));
    if (r->prof)
        profile_add(r->prof, MDL_LANE_COMPUTE, step, t0 - r->prof->t0, mdl_wtime() - r->prof->t0);
    if (thermo)
        MDL_TRY(queue_thermo(r, step)); /* GPU: printed when it arrives, no wait here */
    phase_stop(&r->st.timers, PH_THERMO);
    if (dump)
        MDL_TRY(write_frame(r, step, step == r->final_step));
    if (r->thermo_head < r->thermo_tail)
        MDL_TRY(drain_thermo(r, 0));
    phase_stop(&r->st.timers, PH_THERMO);
    MDL_TRY(skin_tuner_after(&r->tuner, r->ops, r->ctx, step, r->quiet));
    r->st.timers.mark = mdl_wtime();
    return MDL_OK;
}

/* The phases, the time in exchanges between ranks (taken out of Neighbor, where it happens) and
   the atoms and ghosts of every rank, gathered: mine[RANK_STATS] -> all[nranks * RANK_STATS]. */
static int gather_rank_stats(run_state *r, double *all)
{
    double mine[RANK_STATS];
    for (int p = 0; p < PH_COUNT; p++)
        mine[p] = r->st.timers.t[p];
    mine[PH_NEIGHBOR] -= r->stats.comm_seconds; /* (the GPU's is timed on the device: never below 0) */
    if (mine[PH_NEIGHBOR] < 0)
        mine[PH_NEIGHBOR] = 0;
    mine[PH_COUNT] = r->stats.comm_seconds;
    mine[PH_COUNT + 1] = (double)r->stats.owned;
    mine[PH_COUNT + 2] = (double)r->stats.ghosts;
    return comm_allgather_doubles(mine, RANK_STATS, all);
}

/* min, average and max of column k of the ranks' stats */
static void rank_spread(const run_state *r, const double *all, int k, double out[3])
{
    out[0] = out[2] = all[k], out[1] = 0;
    for (int q = 0; q < r->nranks; q++) {
        double v = all[q * RANK_STATS + k];
        out[0] = v < out[0] ? v : out[0];
        out[2] = v > out[2] ? v : out[2];
        out[1] += v / r->nranks;
    }
}

static void print_phases(const run_state *r, const double *all, double loop)
{
    const char *names[PH_COUNT + 1];
    for (int p = 0; p < PH_COUNT; p++)
        names[p] = PHASE_NAMES[p];
    names[PH_COUNT] = "Comm";
    int several = r->nranks > 1;
    double sum = 0, v[3];
    printf("\n%-10s | %12s | %7s%s\n", "Phase", several ? "avg time (s)" : "time (s)", "%total",
           several ? " | min time (s) | max time (s)" : "");
    printf("-----------+--------------+--------%s\n", several ? "+--------------+-------------" : "");
    for (int p = 0; p <= PH_COUNT; p++) {
        if (p == PH_COUNT && !several)
            continue;
        rank_spread(r, all, p, v);
        sum += v[1];
        printf("%-10s | %12.6g | %6.2f", names[p], v[1], loop > 0 ? 100 * v[1] / loop : 0);
        if (several)
            printf(" | %12.6g | %12.6g", v[0], v[2]);
        printf("\n");
    }
    double other = loop - sum > 0 ? loop - sum : 0;
    printf("%-10s | %12.6g | %6.2f\n\n", "Other", other, loop > 0 ? 100 * other / loop : 0);
}

static void print_decomposition(const run_state *r, const double *all)
{
    if (r->nranks == 1)
        return;
    double a[3], g[3];
    rank_spread(r, all, PH_COUNT + 1, a);
    rank_spread(r, all, PH_COUNT + 2, g);
    printf("Decomposition = %d x %d x %d bricks on %d ranks (exchanges: %s)\n", r->grid[0], r->grid[1], r->grid[2],
           r->nranks, r->stats.exchange ? r->stats.exchange : "none");
    printf("Atoms per rank = %.0f to %.0f (imbalance max/avg %.3f); ghosts per rank = %.0f to %.0f\n", a[0], a[2],
           a[1] > 0 ? a[2] / a[1] : 0, g[0], g[2]);
}

static void print_summary(run_state *r, double loop, int threads, const double *all)
{
    const mdl_config *cfg = r->cfg;
    clear_progress(r);
    printf("Loop time of %.6g s on %d thread%s%s (%s backend) for %ld steps with %zu atoms\n", loop, threads,
           threads == 1 ? "" : "s", r->nranks > 1 ? " per rank" : "", r->ops->name, cfg->steps, r->natoms);
    const int metal = strcmp(cfg->units, "metal") == 0; /* ps steps: ns/day; lj: tau/day */
    mdl_print_performance(r->natoms, cfg->steps, loop, cfg->timestep, metal ? "ns" : "tau", metal ? 86.4 : 86400.0);
    printf("Species = %s; ensemble = %s", r->species_counts, config_ensemble_name(cfg->ensemble));
    if (cfg->ensemble == MDL_NPT_NOSE_HOOVER && r->volume_rows > 0) {
        const double v = r->volume_sum / (double)r->volume_rows;
        printf(": average volume %.6g, density %.6g atoms per unit volume (%ld thermo rows)", v,
               (double)r->natoms / v, r->volume_rows);
    }
    printf("\n");
    print_phases(r, all, loop);
    printf("Neighbor pairs = %.0f (%.4g per atom)\n", r->stats.pairs, r->stats.pairs / (double)r->natoms);
    printf("Neighbor list builds = %ld\n", r->stats.builds);
    if (r->stats.outer_skin > 0)
        printf("Neighbor list prunes = %ld (outer list skin %g)\n", r->stats.prunes, r->stats.outer_skin);
    printf("Dangerous builds = %ld\n", r->stats.dangerous);
    print_decomposition(r, all);
    size_t b = r->stats.device_bytes;
    if (b)
        printf("Device memory = %.1f MiB (%.0f bytes/atom), neighbor list capacity %d per atom\n", b / 1048576.0,
               (double)b / (double)r->natoms, r->stats.capacity);
    if (r->stats.cell_sort)
        printf("Cell sort = %s\n", r->stats.cell_sort);
    if (r->stats.folded)
        printf("Steps with the kicks in the force pass = %ld\n", r->stats.folded);
    if (r->stats.grown)
        printf("Atom arrays grown = %ld times (rank 0: arrivals and ghosts past their room)\n", r->stats.grown);
    mdl_print_cpu_use(r->cpu, loop, threads, r->ops->name);
    if (r->st.sync_phases)
        printf("(sync_phases = yes: phases synchronised with the device)\n");
}

static void on_stop_signal(int sig)
{
    g_stop_signal = sig;
}

/* SIGINT/SIGTERM: finish the step, write a last frame, close every file, exit 130/143. */
static void catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* A signal to any rank stops them all at the same step. */
static int agree_on_signal(const run_state *r)
{
    if (r->nranks == 1)
        return MDL_OK;
    long sig = g_stop_signal;
    MDL_TRY(comm_max_long(&sig));
    g_stop_signal = (sig_atomic_t)sig;
    return MDL_OK;
}

static const char *signal_name(int sig)
{
    return sig == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)";
}

static int stop_on_signal(run_state *r, long step)
{
    int sig = g_stop_signal;
    clear_progress(r);
    if (r->rank == 0)
        fprintf(stderr, "mdlite: %s at step %ld: writing the last frame and closing the files\n", signal_name(sig),
                step);
    MDL_TRY(drain_thermo(r, 1));
    if (r->cfg->trajectory[0] && r->last_frame != step) {
        MDL_TRY(r->ops->compute_forces(r->ctx, MDL_ENERGY_ONLY)); /* energy and virial for the frame */
        MDL_TRY(write_frame(r, step, 1));
    }
    return 128 + sig;
}

static int run_loop(run_state *r)
{
    const mdl_config *cfg = r->cfg;
    r->st = (mdl_stepper){.ops = r->ops, .ctx = r->ctx, .cfg = cfg, .units = r->units,
                          .sync_phases = cfg->sync_phases, .natoms = r->natoms,
                          .thermostat_state = r->thermostat_state, .nstate = r->nstate};
    MDL_TRY(stepper_setup(&r->st, r->first_step, r->forces_given)); /* a restart continues exactly */
    mdl_observables o;
    MDL_TRY(backend_observe(r->ops, r->ctx, &o));
    if (cfg->thermo > 0)
        MDL_TRY(write_thermo_row(r, r->first_step, &o));
    if (cfg->trajectory[0] && !r->append)
        MDL_TRY(write_frame(r, r->first_step, r->final_step == r->first_step));
    if (r->append) /* the file's last frame is the checkpoint's step */
        r->last_frame = r->first_step;
    MDL_TRY(skin_tuner_start(&r->tuner, r->ops, r->ctx, cfg->skin_auto, r->cutmax, r->first_step, cfg->steps));
    MDL_TRY(agree_on_signal(r));
    if (g_stop_signal) /* during the set-up: the files hold its frame and row */
        return stop_on_signal(r, r->first_step);
    double t0 = mdl_wtime(), c0 = mdl_cpu_seconds();
    for (long step = r->first_step + 1; step <= r->final_step; step++) {
        MDL_TRY(advance(r, step));
        draw_progress(r, step, t0);
        MDL_TRY(agree_on_signal(r));
        if (g_stop_signal && !r->st.first_done) /* else one more step, unchained */
            return stop_on_signal(r, step);
    }
    MDL_TRY(drain_thermo(r, 1));
    MDL_TRY(r->ops->synchronize(r->ctx));
    double loop = mdl_wtime() - t0;
    MDL_TRY(comm_max_double(&loop)); /* the slowest rank's */
    r->cpu = mdl_cpu_seconds() - c0;
    MDL_TRY(r->ops->stats(r->ctx, &r->stats));
    double *all = mdl_alloc((size_t)r->nranks * RANK_STATS * sizeof *all, "the summary");
    int rc = all ? gather_rank_stats(r, all) : MDL_ERUN;
    if (rc == MDL_OK && r->rank == 0)
        print_summary(r, loop, cfg->threads > 0 ? cfg->threads : omp_get_max_threads(), all);
    free(all);
    return rc;
}

/* Restart: the configured system with the checkpoint's state, step and time. */
static int load_restart(const char *path, mdl_system *s, run_state *r)
{
    if (!path)
        return MDL_OK;
    MDL_TRY(h5md_read_checkpoint(path, s, r->cfg->units, &r->first_step, &r->first_time));
    r->restarted = 1;
    /* forces that depend on the ensemble (Langevin's) or the potential are recomputed when the
       run computes them otherwise: never a thermostat's force carried into NVE */
    char was[4096], now[4096];
    h5md_checkpoint_forces(path, was, sizeof was);
    config_force_origin(r->cfg, now, sizeof now);
    r->forces_given = strcmp(was, now) == 0;
    r->nstate = h5md_checkpoint_thermostat(path, r->thermostat_state, MDL_NH_STATE);
    if (!r->forces_given && r->rank == 0)
        fprintf(stderr, "mdlite: %s: its forces were computed from %s; this run computes them from %s: "
                "recomputed at step %ld\n", path, was[0] ? was : "settings it does not record", now, r->first_step);
    r->append = r->cfg->trajectory[0] && same_file(r->cfg->trajectory, path);
    return MDL_OK;
}

/* Every output checked against the inputs and each other, then claimed (locked; an existing
   file kept as a backup unless appending or --overwrite). */
static int claim_outputs(run_state *r, const mdl_run_options *opt)
{
    const mdl_config *cfg = r->cfg;
    mdl_named_path in[] = {{cfg->path, "config file"}, {cfg->input, "[system] input"}, {opt->restart, "--restart file"}};
    mdl_named_path out[] = {{cfg->thermo_file, "[output] thermo_file"}, {cfg->trajectory, "[output] trajectory"},
                            {opt->profile, "--profile file"}};
    MDL_TRY(outputs_check(in, 3, out, 3, r->append ? 1 : -1, r->append ? 2 : -1));
    int rc = MDL_OK;
    if (opt->profile)
        rc = outfile_claim(opt->profile, out[2].role, 0, opt->overwrite, &r->fd_profile);
    if (rc == MDL_OK && cfg->trajectory[0])
        rc = outfile_claim(cfg->trajectory, out[1].role, r->append, opt->overwrite, &r->fd_traj);
    if (rc == MDL_OK && cfg->thermo_file[0])
        rc = outfile_claim(cfg->thermo_file, out[0].role, r->append, opt->overwrite, &r->fd_thermo);
    if (rc != MDL_OK) { /* no empty file left behind by the claims that went through */
        outfile_abandon(opt->profile, r->fd_profile);
        r->fd_profile = -1;
        if (!r->append) {
            outfile_abandon(cfg->trajectory, r->fd_traj);
            r->fd_traj = -1;
        }
    }
    return rc;
}

/* The trajectory file, made from the set-up system s (in id order). */
static int open_output(run_state *r, const mdl_units *u, const mdl_system *s)
{
    if (!r->cfg->trajectory[0])
        return MDL_OK;
    MDL_TRY(traj_open(&r->traj, r->cfg, u, s, r->append));
    if (r->append && traj_last_step(r->traj) != r->first_step) {
        mdl_error("%s: its last frame is step %ld but its checkpoint step %ld; cannot append", r->cfg->trajectory,
                  traj_last_step(r->traj), r->first_step);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

int run_simulation(const mdl_config *cfg, const mdl_run_options *opt)
{
    mdl_run_options mine = *opt;
    if (comm_rank() > 0) /* rank 0 alone prints and writes; every rank reads a restart */
        mine.profile = NULL, mine.quiet = 1;
    opt = &mine;
    const char *restart = opt->restart, *profile = opt->profile;
    int quiet = opt->quiet;
    mdl_profile prof_store;
    mdl_units u;
    mdl_system s;
    mdl_pair_table pt;
    units_lookup(cfg->units, &u);
    catch_stop_signals(); /* before any output file is made: a signal never leaves half a file */
    const mdl_backend_ops *ops = backend_lookup(cfg->backend);
    if (!ops)
        return MDL_EINPUT;
    if (system_init(&s, 0) != MDL_OK)
        return MDL_ERUN;
    run_state r;
    memset(&r, 0, sizeof r);
    r.fd_thermo = r.fd_traj = r.fd_profile = -1;
    r.ops = ops;
    r.cfg = cfg;
    r.units = &u;
    r.rank = comm_rank(), r.nranks = comm_size();
    r.quiet = quiet;
    mdl_message_mute(1); /* every rank sets up the same system: rank 0 says what goes wrong */
    if (profile && profile_init(&prof_store) == MDL_OK)
        r.prof = &prof_store;
    if (cfg->threads > 0) /* before the set-up, whose velocity draws run in parallel too */
        omp_set_num_threads(cfg->threads);
    double t = mdl_wtime();
    int rc = system_setup(cfg, &u, &s, ops->draw_normals);
    if (rc == MDL_OK)
        rc = load_restart(restart, &s, &r);
    if (rc == MDL_OK)
        rc = potential_build(cfg, &s, &pt);
    if (rc == MDL_OK)
        rc = check_cutoff_fits(cfg, &s, &pt);
    r.natoms = s.n;
    r.final_step = r.first_step + cfg->steps;
    r.last_frame = -1;
    r.progress = !quiet && isatty(STDOUT_FILENO) && r.nranks == 1; /* mpirun's output is usually kept */
    r.cutmax = pt.cutmax;
    profile_phase(r.prof, "set-up", t);
    /* the backend first: a run that cannot start on it (no GPU) prints nothing else and leaves no file */
    t = mdl_wtime();
    if (rc == MDL_OK) {
        mdl_setup setup = backend_setup(cfg, &u, &pt);
        rc = run_choose_grid(cfg, ops->name, r.nranks, &s, &pt, &setup);
        if (rc == MDL_OK)
            rc = run_check_gpu_keys(cfg, ops->name, r.nranks, &s, &pt);
        memcpy(r.grid, setup.grid, sizeof r.grid);
        if (rc == MDL_OK)
            rc = ops->create(&r.ctx, &setup, &s);
    }
    mdl_message_mute(0);
    profile_phase(r.prof, "backend create", t);
    system_species_counts(&s, r.species_counts, sizeof r.species_counts);
    if (rc == MDL_OK && !quiet)
        printf("mdlite: %zu atoms, %d species, box %g x %g x %g, %s units, %s backend, steps %ld to %ld\n", s.n,
               s.ntypes, s.box.len[0], s.box.len[1], s.box.len[2], u.name, ops->name, r.first_step, r.final_step);
    if (rc == MDL_OK && !quiet && r.nranks > 1)
        printf("mdlite: %d ranks, %d x %d x %d bricks\n", r.nranks, r.grid[0], r.grid[1], r.grid[2]);
    int thermo_open_rc = MDL_ERUN;
    t = mdl_wtime();
    if (agree_on_signal(&r) == MDL_OK && g_stop_signal && rc == MDL_OK) { /* before any file exists */
        if (r.rank == 0)
            fprintf(stderr, "mdlite: %s during the set-up: no output file was written\n", signal_name(g_stop_signal));
        rc = 128 + g_stop_signal;
    }
    if (rc == MDL_OK && r.rank == 0)
        rc = claim_outputs(&r, opt);
    if (rc == MDL_OK)
        rc = thermo_open_rc = thermo_open(&r.thermo, r.rank == 0 ? cfg->thermo_file : "", r.natoms, quiet,
                                          r.append ? r.first_step : -1);
    if (rc == MDL_OK && r.rank == 0)
        rc = open_output(&r, &u, &s);
    if (r.nranks > 1) { /* a file rank 0 could not open stops every rank */
        int bad = rc != MDL_OK;
        if (comm_or_int(&bad) == MDL_OK && bad && rc == MDL_OK)
            rc = MDL_EINPUT;
    }
    profile_phase(r.prof, "open output", t);
    t = mdl_wtime();
    /* the backend holds the state from here on; s lives on as the frames' metadata */
    if (r.traj)
        r.snap = s;
    else
        system_destroy(&s);
    if (rc == MDL_OK && r.traj)
        rc = writer_start(&r.writer, r.traj, ops, r.ctx, &r.snap, cfg->async ? cfg->buffers : 0,
                          cfg->checkpoint ? MDL_DUMP_ALL : cfg->dump_fields, cfg->throttle_ms, r.prof);
    profile_phase(r.prof, "writer start", t);
    t = mdl_wtime();
    if (rc == MDL_OK)
        rc = run_loop(&r);
    profile_phase(r.prof, "loop", t);
    if (r.writer) /* from here the writer needs only the snapshot's types and ids: free the
                     rest while it writes the last frames */
        system_free_fields(&r.snap);
    /* close everything whatever happened, so that frames already written stay readable */
    t = mdl_wtime();
    int crc = writer_stop(r.writer);
    if (crc != MDL_OK && (rc == MDL_OK || rc >= 128))
        rc = crc;
    profile_phase(r.prof, "writer drain", t);
    t = mdl_wtime();
    crc = traj_close(r.traj);
    if (rc == MDL_OK || rc >= 128)
        rc = crc != MDL_OK && rc == MDL_OK ? crc : rc;
    if (thermo_open_rc == MDL_OK) {
        crc = thermo_close(&r.thermo);
        if (rc == MDL_OK)
            rc = crc;
    }
    profile_phase(r.prof, "close files", t);
    t = mdl_wtime();
    if (r.ctx)
        ops->destroy(r.ctx);
    system_destroy(&r.snap);
    profile_phase(r.prof, "backend destroy", t);
    if (r.prof) { /* only into a file this run claimed (never over an input) */
        crc = r.fd_profile >= 0 ? profile_write(r.prof, profile) : MDL_OK;
        if (rc == MDL_OK)
            rc = crc;
        profile_destroy(r.prof);
    }
    outfile_release(r.fd_thermo);
    outfile_release(r.fd_traj);
    outfile_release(r.fd_profile);
    return rc;
}

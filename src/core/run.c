/* The driver loop: set-up, velocity Verlet through the backend table, thermo, timers, summary. */
#define _POSIX_C_SOURCE 200809L
#include "run_state.h"

#include "plan.h"

#include "backend.h"
#include "../parallel/comm.h"
#include "../system/potential.h"
#include "../system/setup.h"
#include "analysis.h"
#include "skin_tuner.h"
#include "stages.h"
#include "stop_signal.h"
#include "summary.h"
#include "../io/thermo.h"
#include "../io/outfile.h"
#include "../io/profile.h"
#include "../io/checkpoint.h"
#include "../io/trajectory.h"
#include "../io/writer.h"
#include "minimize.h"
#include "../util/util.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

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

/* (every rank: rank 0 writes the frames that all of them gather) */
static int is_dump_step(const run_state *r, long step)
{
    return r->cfg->trajectory[0] && (step % r->cfg->dump_every == 0 || step == r->final_step);
}

static int advance(run_state *r, long step)
{
    int thermo = is_thermo_step(r->cfg, step, r->final_step), dump = is_dump_step(r, step);
    int sample = analysis_is_step(&r->an, step);
    double t0 = r->prof ? mdl_wtime() : 0;
    /* the next step's first half kick may go with this step's last unless a row, a frame, a
       sample or a stop looks at the state in between */
    int chain = !thermo && !dump && !sample && step < r->final_step && !stop_signal() &&
                !skin_tuner_boundary(&r->tuner, step);
    MDL_TRY(stepper_advance(&r->st, step, thermo || dump, chain));
    if (sample)
        MDL_TRY(analysis_sample(&r->an, step)); /* GPU: queued, no wait */
    if (r->prof)
        profile_add(r->prof, MDL_LANE_COMPUTE, step, t0 - r->prof->t0, mdl_wtime() - r->prof->t0);
    if (thermo)
        MDL_TRY(run_queue_thermo(r, step)); /* GPU: printed when it arrives, no wait here */
    phase_stop(&r->st.timers, PH_THERMO);
    if (dump)
        MDL_TRY(run_write_frame(r, step, step == r->final_step));
    if (r->thermo_head < r->thermo_tail)
        MDL_TRY(run_drain_thermo(r, 0));
    phase_stop(&r->st.timers, PH_THERMO);
    MDL_TRY(skin_tuner_after(&r->tuner, r->ops, r->ctx, step, r->quiet));
    r->st.timers.mark = mdl_wtime();
    return MDL_OK;
}

/* How many steps from `step` on are plain (advance's chain without a row, frame, sample, stop or the
   skin tuner's boundary), at most 10,000 (a stop signal waits for them). *end: where the last scan
   stopped; the steps before it are plain (what is plain changes only at a step that is not), so a
   step is scanned once, not at every step before it (without thermo rows each step scanned 10,000:
   `mdlite run input/lj_melt.ini --set system.cells="5 5 5" --set run.steps=20000 --set output.thermo=0
   --set run.threads=1`, the 2-core development VM, median of 5 alternated: 7,341 steps/s, now 9,884). */
static long plain_steps(const run_state *r, long step, long *end)
{
    if (r->prof || stop_signal())
        return 0;
    if (step >= *end) {
        long s = step;
        for (; s - step < 10000 && s < r->final_step; s++)
            if (is_thermo_step(r->cfg, s, r->final_step) || is_dump_step(r, s) || analysis_is_step(&r->an, s) ||
                skin_tuner_boundary(&r->tuner, s))
                break;
        *end = s;
    }
    return *end - step;
}

/* A stop signal at `step`: the rows, a last frame, and the analysis of the samples taken so far. */
static int stop_on_signal(run_state *r, long step)
{
    int sig = stop_signal();
    run_clear_progress(r);
    if (r->rank == 0)
        fprintf(stderr, "mdlite: %s at step %ld: writing the last frame and closing the files\n",
                stop_signal_name(sig), step);
    MDL_TRY(run_drain_thermo(r, 1));
    /* the last frame and its checkpoint (on a frame's step that was not a checkpoint's: the
       checkpoint alone), so that a restart continues from this step */
    if (r->cfg->trajectory[0] && (r->last_frame != step || (r->cfg->checkpoint && r->last_checkpoint != step))) {
        MDL_TRY(r->ops->compute_forces(r->ctx, MDL_ENERGY_ONLY)); /* energy and virial for the frame */
        MDL_TRY(run_write_frame(r, step, 1));
    }
    MDL_TRY(analysis_end(&r->an, &r->an_out, r->quiet));
    return 128 + sig;
}

/* The stage r->cfg from r->first_step to r->final_step, on the state the backend holds: its set-up
   (forces kept where `forces_given`), its first row and frame unless the stage before wrote them
   (continued), the loop, the analysis's rows and the summary. */
static int run_stage(run_state *r, int continued)
{
    const mdl_config *cfg = r->cfg;
    r->stage_wall0 = mdl_wtime(), r->row_wall = 0; /* thermo's cpu, tpcpu and spcpu: this stage's */
    r->thermo.step_shift = stages_step_shift(r->base, r->stages_from, r->stage); /* reset_timestep's */
    r->st = (mdl_stepper){.ops = r->ops, .ctx = r->ctx, .cfg = cfg, .units = r->units,
                          .sync_phases = cfg->sync_phases, .natoms = r->natoms,
                          .thermostat_state = r->nstate ? r->thermostat_state : NULL, .nstate = r->nstate,
                          .run_begin = r->final_step - cfg->steps, .run_end = r->final_step};
    MDL_TRY(stepper_setup(&r->st, r->first_step, r->forces_given)); /* a restart continues exactly */
    MDL_TRY(minimize_prepare(r)); /* FIRE's atoms at rest before its first row, as LAMMPS's setup */
    mdl_backend_stats before = {0}; /* the counts of the stages before: the summary says this one's */
    if (continued) {
        MDL_TRY(r->ops->stats(r->ctx, &before));
        r->builds0 = before.builds, r->dangerous0 = before.dangerous; /* thermo's nbuild, ndanger: this run's */
    }
    if (continued && r->row_again && cfg->thermo != 0) { /* velocities edited: the step's row again, as LAMMPS's */
        mdl_observables o;
        MDL_TRY(backend_observe(r->ops, r->ctx, &o));
        MDL_TRY(run_write_thermo_row(r, r->first_step, &o, NULL));
    } else if (!continued) {
        mdl_observables o;
        MDL_TRY(backend_observe(r->ops, r->ctx, &o));
        if (cfg->thermo != 0)
            MDL_TRY(run_write_thermo_row(r, r->first_step, &o, NULL));
        if (cfg->trajectory[0] && !r->append)
            MDL_TRY(run_write_frame(r, r->first_step, r->final_step == r->first_step));
        if (r->append) /* the file's last frame is the checkpoint's step */
            r->last_frame = r->first_step;
        MDL_TRY(skin_tuner_start(&r->tuner, r->ops, r->ctx, cfg->skin_auto, r->cutmax, r->first_step, cfg->steps));
    }
    if (cfg->ensemble == MDL_MINIMIZE) { /* a minimisation: its iterations are its steps */
        const int rc = minimize_stage(r);
        if (rc != MDL_OK && rc < 128)
            return rc;
        if (cfg->trajectory[0]) /* stopped too (a signal): the last iteration's state is written */
            MDL_TRY(run_write_frame(r, r->final_step, 1));
        MDL_TRY(run_write_data(r, r->final_step));
        if (rc >= 128 && r->rank == 0)
            fprintf(stderr, "mdlite: %s during the minimisation: its last iteration's state (step %ld) is written%s%s%s\n",
                    stop_signal_name(rc - 128), r->final_step, cfg->trajectory[0] ? " to the trajectory" : "",
                    run_data_file(r->base, r->stage)[0] ? " and the data file " : "", run_data_file(r->base, r->stage));
        return rc;
    }
    const mdl_analysis_begin b = {cfg,       r->ops,   r->ctx,    r->first_step, r->final_step,
                                  step_time(r, r->first_step), r->cutmax, r->stage, r->an_out.ntypes,
                                  r->natoms, continued ? NULL : r->resume};
    MDL_TRY(analysis_begin(&r->an, &b));
    MDL_TRY(stop_signal_agree(r->nranks));
    if (stop_signal()) /* during the set-up: the files hold its frame and row */
        return stop_on_signal(r, r->first_step);
    double t0 = mdl_wtime(), c0 = mdl_cpu_seconds();
    long plain_end = 0; /* plain_steps' */
    for (long step = r->first_step + 1; step <= r->final_step; step++) {
        long plain = plain_steps(r, step, &plain_end), done = 0;
        if (plain > 0)
            MDL_TRY(stepper_advance_plain(&r->st, step, plain, &done));
        if (done > 0)
            step += done - 1, r->st.timers.mark = mdl_wtime();
        else
            MDL_TRY(advance(r, step));
        draw_progress(r, step, t0);
        MDL_TRY(stop_signal_agree(r->nranks));
        if (stop_signal() && !r->st.first_done) /* else one more step, unchained */
            return stop_on_signal(r, step);
    }
    MDL_TRY(run_drain_thermo(r, 1));
    MDL_TRY(r->ops->synchronize(r->ctx));
    double loop = mdl_wtime() - t0;
    MDL_TRY(comm_max_double(&loop)); /* the slowest rank's */
    r->cpu = mdl_cpu_seconds() - c0;
    MDL_TRY(r->ops->stats(r->ctx, &r->stats));
    r->stats.builds -= before.builds, r->stats.dangerous -= before.dangerous, r->stats.prunes -= before.prunes;
    r->stats.folded -= before.folded, r->stats.persistent -= before.persistent, r->stats.grown -= before.grown, r->stats.comm_seconds -= before.comm_seconds;
    run_clear_progress(r);
    mdl_summary m = {cfg, r->ops->name, r->natoms, r->nranks, {r->grid[0], r->grid[1], r->grid[2]}, &r->st.timers,
                     &r->stats, r->species_counts, r->volume_sum, r->volume_rows, r->final_step, r->cpu,
                     cfg->threads > 0 ? cfg->threads : omp_get_max_threads(), r->st.sync_phases};
    if (r->final_step == r->first_step && cfg->steps > 0) { /* a restart at its last step */
        if (r->rank == 0)
            mdl_say("mdlite: stage %s ended at step %ld, before the restart\n", cfg->stage_name, r->final_step);
    } else
        MDL_TRY(summary_print(&m, loop));
    MDL_TRY(run_write_data(r, r->final_step));
    return analysis_end(&r->an, &r->an_out, r->quiet);
}

/* From one stage to the next on the same backend: the chains' state carried where the
   Nose-Hoover ensemble stays, else they stop; forces kept unless what makes them changes
   (Langevin's force: recomputed). */
static int next_stage(run_state *r, const mdl_config *next, int *restyled)
{
    const mdl_config *now = r->cfg;
    /* after a minimisation the time goes on from where it began: LAMMPS's rows count its iterations as
       steps of time, and its next run sets the clock back to the time before it */
    if (now->ensemble == MDL_MINIMIZE)
        r->first_time = step_time(r, r->first_step), r->time_step = r->final_step;
    r->nstate = 0;
    if (stages_same_chains(now, next))
        MDL_TRY(thermostat_state(&r->st.thermostat, r->ops, r->ctx, r->thermostat_state, &r->nstate));
    else if (config_nose_hoover(now->ensemble))
        MDL_TRY(r->ops->nose_hoover_init(r->ctx, NULL));
    char was[4096], will[4096];
    config_force_origin(now, was, sizeof was);
    config_force_origin(next, will, sizeof will);
    r->forces_given = strcmp(was, will) == 0;
    r->first_step = r->final_step;
    r->final_step += next->steps;
    const int restyle = strcmp(now->thermo_columns, next->thermo_columns) || strcmp(now->thermo_format, next->thermo_format) ||
                        strcmp(now->thermo_compute_keys, next->thermo_compute_keys) || now->thermo_group != next->thermo_group ||
                        now->thermo_components != next->thermo_components ||
                        strcmp(now->thermo_variables, next->thermo_variables) ||
                        now->thermo_multi != next->thermo_multi;
    r->cfg = next;
    r->volume_sum = 0, r->volume_rows = 0;
    *restyled = restyle;
    if (restyle) { /* the stage's own table (a LAMMPS run's thermo_style) */
        const mdl_thermo_style style = run_thermo_style(next, r->atoms_mass, r->units);
        MDL_TRY(thermo_restyle(&r->thermo, &style));
        MDL_TRY(run_check_thermo_backend(r));
    }
    return MDL_OK;
}

static void stage_banner(const run_state *r)
{
    if (r->base->nstages && !r->quiet)
        mdl_say("\nmdlite: stage %s (%d of %d): %s, steps %ld to %ld\n", r->cfg->stage_name, r->stage + 1,
               r->base->nstages, config_ensemble_name(r->cfg->ensemble), r->first_step, r->final_step);
    mdl_say_flush(); /* a program reading the output sees where the run is */
}

/* Whether the run or any stage minimises (what 0: ensemble = minimize), writes a data file (1) or has
   computes (2: thermo's c_ID, a snapshot at their rows). */
static int any_stage(const mdl_config *base, int what)
{
    for (int k = 0; k < (base->nstages ? base->nstages : 1); k++) {
        const mdl_config *st = base->nstages ? &base->stages[k] : base;
        if (what == 0 ? st->ensemble == MDL_MINIMIZE : what == 1 ? run_data_file(base, k)[0] != '\0' : st->computes.n > 0)
            return 1;
    }
    return 0;
}

/* A minimisation runs on one GPU or on CPU ranks, and not from a checkpoint (its stage ends when
   it converges, so the stages' schedule is the run's own). */
static int check_minimize(const mdl_config *base, const char *backend, int nranks, const char *restart)
{
    if (!any_stage(base, 0) || ((nranks == 1 || !strcmp(backend, "cpu")) && !restart))
        return MDL_OK;
    const mdl_config *st = base;
    for (int k = 0; k < base->nstages && st->ensemble != MDL_MINIMIZE; k++)
        st = &base->stages[k];
    mdl_error("%s: [run] ensemble = minimize: minimisation runs on one GPU or on CPU ranks, not from a --restart "
              "(this run: %s backend, %d rank%s%s)", config_origin(st, "run", "ensemble"), backend, nranks,
              nranks == 1 ? "" : "s", restart ? ", a restart" : "");
    return MDL_EINPUT;
}

/* The stages in order from the one the run starts in. A stage of no steps is a run 0 (its set-up
   with its forces, its row); one without rows too (thermo = 0) writes its data file alone (a further
   write_data). A stage's first row is the last one's step again where it tells something new: edited
   velocities, a reset_timestep, other columns, no row of that step yet, or a run 0 before (LAMMPS's
   next run prints it). */
static int run_loop(run_state *r)
{
    MDL_TRY(run_stage(r, 0)); /* its banner came before the thermo table's header */
    int run0_before = r->cfg->steps == 0 && r->cfg->thermo != 0, row_done = r->cfg->thermo != 0;
    while (r->base->nstages && r->stage + 1 < r->base->nstages) {
        const mdl_config *next = &r->base->stages[++r->stage];
        MDL_TRY(run_stage_message(r, next)); /* on the state and table of the stage that ended */
        int restyled;
        MDL_TRY(next_stage(r, next, &restyled));
        MDL_TRY(run_stage_velocities(r, &r->row_again));
        r->row_again |= restyled || run0_before || !row_done || next->steps == 0 ||
                        stages_step_shift(r->base, r->stages_from, r->stage) !=
                            stages_step_shift(r->base, r->stages_from, r->stage - 1);
        if (next->steps == 0 && next->thermo == 0) { /* a further write_data: its data file of this state */
            MDL_TRY(run_write_data(r, r->final_step));
            continue;
        }
        stage_banner(r);
        if (r->cfg->thermo != 0)
            thermo_header(&r->thermo);
        MDL_TRY(run_stage(r, 1));
        run0_before = next->steps == 0 && next->thermo != 0, row_done = next->thermo != 0;
    }
    return MDL_OK;
}

/* The stage the run starts in (r->stage, r->cfg) and its last step: with stages, their schedule
   from the checkpoint's stages_from (a restart of a staged run goes on in its stage) or from this
   run's first step; the checkpoint's forces kept where the stage computes them alike. */
static int choose_stage(run_state *r, const char *restart)
{
    const mdl_config *base = r->base;
    r->final_step = r->first_step + base->steps;
    if (base->nstages) {
        r->stages_from = restart ? r->ck.stages_from : -1;
        if (r->stages_from < 0 || r->stages_from > r->first_step)
            r->stages_from = r->first_step;
        MDL_TRY(stages_find(base, r->stages_from, r->first_step, restart, &r->stage, &r->final_step));
        r->cfg = &base->stages[r->stage];
        if (restart && stages_changed(base, r->stage, r->ck.stage_plan, restart))
            r->resume = NULL; /* that stage's samples are not this one's (r->ck keeps them to free) */
    }
    MDL_TRY(stages_check_shifts(base, r->stages_from));
    if (!restart)
        return MDL_OK;
    if (!base->nstages && base->final_temperature != base->target_temperature &&
        (ensemble_reads(base->ensemble) & MDL_READS_RAMP)) {
        mdl_error("%s: [run] final_temperature: this run's target moves from its first step, which a restart "
                  "without stages would make step %ld; a staged run ([stage:NAME]) restarts along its ramp",
                  config_origin(base, "run", "final_temperature"), r->first_step);
        return MDL_EINPUT;
    }
    if (r->rank == 0)
        thermostat_say_restart(r->cfg, r->thermostat_state, r->nstate, restart, r->first_step);
    char now[4096];
    config_force_origin(r->cfg, now, sizeof now);
    r->forces_given = strcmp(r->ck.forces, now) == 0;
    if (!r->forces_given && r->rank == 0)
        fprintf(stderr, "mdlite: %s: its forces were computed from %s; this run computes them from %s: "
                "recomputed at step %ld\n", restart, r->ck.forces[0] ? r->ck.forces : "settings it does not record",
                now, r->first_step);
    return MDL_OK;
}

/* Restart: the configured system with the checkpoint's state, step and time. */
static int load_restart(const char *path, mdl_system *s, run_state *r)
{
    if (!path)
        return MDL_OK;
    MDL_TRY(h5md_read_checkpoint(path, s, r->cfg->units, &r->ck));
    const mdl_checkpoint *ck = &r->ck;
    r->first_step = ck->step, r->first_time = ck->time, r->time_step = ck->step;
    /* the times of the run never stopped: from its time origin, where its timestep is this run's */
    if (ck->time_origin_step >= 0 &&
        fabs(ck->time_origin + (double)(ck->step - ck->time_origin_step) * r->cfg->timestep - ck->time) <=
            1e-12 * fmax(1.0, fabs(ck->time)))
        r->first_time = ck->time_origin, r->time_step = ck->time_origin_step;
    r->restarted = 1;
    /* forces that depend on the ensemble (Langevin's) or the potential are recomputed when the
       run computes them otherwise (choose_stage): never a thermostat's force carried into NVE */
    memcpy(r->thermostat_state, ck->thermostat, sizeof r->thermostat_state); /* the stages move it on */
    r->nstate = ck->nstate;
    r->resume = ck->analysis;
    r->append = r->cfg->trajectory[0] && same_file(r->cfg->trajectory, path);
    if (r->append && ck->last_frame_step != ck->step) { /* before any output is touched */
        mdl_error("%s: its last frame is step %ld but its checkpoint step %ld; cannot append (restart into "
                  "another trajectory file)", path, ck->last_frame_step, ck->step);
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
    mdl_pair_table pt = {0};
    units_lookup(cfg->units, &u);
    stop_signal_catch(); /* before any output file is made: a signal never leaves half a file */
    const mdl_backend_ops *ops = backend_lookup(cfg->backend);
    if (!ops)
        return MDL_EINPUT;
    if (system_init(&s, 0) != MDL_OK)
        return MDL_ERUN;
    run_state r;
    memset(&r, 0, sizeof r);
    r.o_thermo.fd = r.o_traj.fd = r.o_rdf.fd = r.o_msd.fd = r.o_log.fd = -1;
    r.overwrite = opt->overwrite;
    if (cfg->log_file[0] && r.rank == 0 && (r.log_early = open_memstream(&r.log_text, &r.log_len)))
        mdl_set_log(r.log_early); /* what is printed before the log file opens goes into it too */
    r.ops = ops;
    r.cfg = r.base = cfg;
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
        rc = stepper_groups(cfg, ops, &s);
    if (rc == MDL_OK)
        rc = run_check_stage_velocities(cfg, &u, &s);
    if (rc == MDL_OK)
        rc = load_restart(restart, &s, &r);
    if (rc == MDL_OK)
        rc = potential_build(cfg, &s, &pt);
    if (rc == MDL_OK)
        rc = check_minimize(cfg, ops->name, r.nranks, restart);
    if (rc == MDL_OK)
        rc = analysis_check(cfg, pt.cutmax, s.ntypes, &s.box, r.nranks);
    if (rc == MDL_OK)
        rc = choose_stage(&r, restart);
    if (!r.restarted)
        r.time_step = r.first_step;
    r.natoms = s.n;
    r.last_frame = r.last_checkpoint = -1;
    r.progress = !quiet && isatty(STDOUT_FILENO) && r.nranks == 1; /* mpirun's output is usually kept */
    r.cutmax = pt.cutmax;
    profile_phase(r.prof, "set-up", t);
    /* the backend first: a run that cannot start on it (no GPU) prints nothing else and leaves no file */
    t = mdl_wtime();
    if (rc == MDL_OK) {
        mdl_setup setup = backend_setup(cfg, &u, &pt);
        for (int d = 0; d < 3; d++) /* the checkpoint keeps the build box's geometry; its faces are the system's */
            r.ck.build_box.periodic[d] = s.box.periodic[d];
        r.ck.build_box.dim = s.box.dim;
        if (r.restarted && checkpoint_lists_hold(&r.ck, &s, cfg->skin)) /* the checkpoint's lists again */
            setup.build = r.ck.build, setup.build_since = r.first_step - r.ck.build_step, setup.build_box = &r.ck.build_box,
            setup.build_order = r.ck.build_order;
        else if (r.restarted && r.rank == 0)
            mdl_warn("%s: the checkpoint keeps no neighbor-list build this run can make again (%s): the lists are "
                     "built from its positions, and the run goes on exact to rounding, not bit for bit", restart,
                     r.ck.build ? "its box is not this run's, or its atoms moved past this run's skin"
                                : "written by a GPU run under a barostat, with an outer list or on several ranks");
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
        mdl_say("mdlite: %zu atoms, %d species, box %g x %g x %g, %s units, %s backend, steps %ld to %ld\n", s.n,
               s.ntypes, s.box.len[0], s.box.len[1], s.box.len[2], u.name, ops->name, r.first_step,
               stages_end(cfg, cfg->nstages ? r.stages_from : r.first_step));
    if (rc == MDL_OK && !quiet && r.nranks > 1)
        mdl_say("mdlite: %d ranks, %d x %d x %d bricks\n", r.nranks, r.grid[0], r.grid[1], r.grid[2]);
    double mass = 0; /* the atoms' (thermo's density) */
    for (size_t i = 0; i < s.n; i++)
        mass += s.mass[s.type[i]];
    r.atoms_mass = mass;
    if (rc == MDL_OK)
        rc = run_check_messages(&r);
    if (rc == MDL_OK && !r.restarted)
        rc = run_stage_message(&r, r.cfg);
    if (rc == MDL_OK)
        stage_banner(&r);
    int thermo_open_rc = MDL_ERUN;
    t = mdl_wtime();
    if (stop_signal_agree(r.nranks) == MDL_OK && stop_signal() && rc == MDL_OK) { /* before any file exists */
        if (r.rank == 0)
            fprintf(stderr, "mdlite: %s during the set-up: no output file was written\n",
                    stop_signal_name(stop_signal()));
        rc = 128 + stop_signal();
    }
    const mdl_thermo_style style = run_thermo_style(r.cfg, mass, &u);
    for (int k = 0; k < (cfg->nstages ? cfg->nstages : 1) && rc == MDL_OK; k++) { /* before any file is claimed */
        const mdl_config *st = cfg->nstages ? &cfg->stages[k] : cfg;
        const mdl_thermo_style each = run_thermo_style(st, mass, &u);
        rc = thermo_check_style(&each);
        if (rc == MDL_OK && !cfg->thermo_file_mdlite && cfg->thermo_file[0] && strcmp(st->thermo_columns, r.cfg->thermo_columns)) {
            mdl_error("%s: [output] thermo_columns: stage %s's are not stage %s's, and the thermo file holds one set "
                      "(thermo_file_columns = thermo; with mdlite's, each stage's table may have its own)",
                      config_origin(st, "output", "thermo_columns"), st->stage_name, r.cfg->stage_name);
            rc = MDL_EINPUT;
        }
    }
    if (rc == MDL_OK && r.rank == 0)
        rc = run_claim_outputs(&r, opt);
    if (rc == MDL_OK)
        rc = thermo_open_rc = thermo_open(&r.thermo, r.rank == 0 && cfg->thermo_file[0] ? &r.o_thermo : NULL,
                                          r.natoms, quiet, r.append ? r.first_step : -1, &style);
    if (rc == MDL_OK)
        rc = run_check_thermo_backend(&r);
    if (rc == MDL_OK && r.rank == 0)
        rc = run_open_output(&r, &u, &s);
    if (rc == MDL_OK)
        rc = analysis_open(&r.an_out, cfg, &s, r.ck.results, &r.o_rdf, &r.o_msd);
    if (r.nranks > 1) { /* a file rank 0 could not open stops every rank */
        int bad = rc != MDL_OK;
        if (comm_or_int(&bad) == MDL_OK && bad && rc == MDL_OK)
            rc = MDL_EINPUT;
    }
    profile_phase(r.prof, "open output", t);
    t = mdl_wtime();
    /* the backend holds the state from here on; s lives on as the frames' metadata */
    /* the run's own snapshots (data files, minimisation): the writer's spare slot, or one */
    const int data = any_stage(cfg, 1) || any_stage(cfg, 0) || run_stage_velocities_used(cfg) || any_stage(cfg, 2);
    const int data_fields = data ? MDL_DUMP_POSITION | MDL_DUMP_VELOCITY | MDL_DUMP_IMAGE |
                                       (any_stage(cfg, 0) || any_stage(cfg, 2) ? MDL_DUMP_FORCE : 0) : 0;
    if (r.traj || data)
        r.snap = s;
    else
        system_destroy(&s);
    if (rc == MDL_OK && r.traj)
        rc = writer_start(&r.writer, r.traj, ops, r.ctx, &r.snap, cfg->async ? cfg->buffers : 0,
                          (cfg->checkpoint ? MDL_DUMP_ALL | MDL_DUMP_BUILD : cfg->dump_fields) | data_fields,
                          cfg->throttle_ms, r.prof);
    if (rc == MDL_OK && data && r.rank == 0)
        rc = r.writer ? (r.data_slot = writer_spare_slot(r.writer), MDL_OK) : ops->snapshot_alloc(r.ctx, 1, data_fields);
    profile_phase(r.prof, "writer start", t);
    t = mdl_wtime();
    mdl_buf end_screen = {0}, end_log = {0}; /* read on the last state, said once the files are closed */
    if (rc == MDL_OK)
        rc = run_loop(&r);
    if (rc == MDL_OK)
        rc = run_end_message(&r, &end_screen, &end_log);
    analysis_discard(&r.an); /* what a stage that stopped on an error still held */
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
    if (r.traj && (rc == MDL_OK || rc >= 128)) { /* a stopped run's too: the stages' samples so far */
        crc = analysis_write_trajectory(&r.an_out, r.traj);
        rc = crc != MDL_OK ? crc : rc;
    }
    crc = traj_close(r.traj);
    if (rc == MDL_OK || rc >= 128)
        rc = crc != MDL_OK && rc == MDL_OK ? crc : rc;
    if (thermo_open_rc == MDL_OK) {
        crc = thermo_close(&r.thermo);
        if (rc == MDL_OK)
            rc = crc;
    }
    analysis_close(&r.an_out);
    profile_phase(r.prof, "close files", t);
    t = mdl_wtime();
    if (r.ctx)
        ops->destroy(r.ctx);
    system_destroy(&r.snap);
    profile_phase(r.prof, "backend destroy", t);
    if (r.prof) { /* only where the outputs were checked (never over an input) */
        crc = thermo_open_rc == MDL_OK ? profile_write(r.prof, profile, opt->overwrite) : MDL_OK;
        if (rc == MDL_OK)
            rc = crc;
        profile_destroy(r.prof);
    }
    if (rc == MDL_OK)
        run_say_message(&r, &end_screen, &end_log);
    buf_free(&end_screen), buf_free(&end_log);
    outfile_release(&r.o_thermo); /* what never got content goes: no empty file */
    outfile_release(&r.o_traj);
    outfile_release(&r.o_rdf);
    outfile_release(&r.o_msd);
    mdl_set_log(NULL);
    if (r.log_early)
        fclose(r.log_early);
    free(r.log_text);
    if (r.log && fclose(r.log) != 0 && rc == MDL_OK) {
        mdl_error("%s: [output] log_file: cannot finish writing: %s", cfg->log_file, strerror(errno));
        rc = MDL_ERUN;
    }
    outfile_release(&r.o_log);
    checkpoint_free(&r.ck); /* resume is its analysis */
    potential_destroy(&pt); /* an EAM style's tables, which the backend read until its end */
    return rc;
}

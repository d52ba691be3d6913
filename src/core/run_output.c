/* A run's rows, frames and output files: thermo rows queued and printed in order, trajectory frames
   with their checkpoints, the outputs claimed and opened (run.c drives them). */
#define _POSIX_C_SOURCE 200809L
#include "run_state.h"

#include "../config/config_schema.h"
#include "../io/data_file.h"
#include "../io/outfile.h"
#include "../system/computes.h"
#include "../parallel/comm.h"
#include "../util/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

void run_clear_progress(run_state *r)
{
    if (r->progress) {
        fputs("\r\033[K", stdout);
        mdl_say_flush();
    }
}

/* Which observable of o is not finite, or NULL. */
static const char *nonfinite_observable(const mdl_observables *o)
{
    return !isfinite(o->potential) ? "potential energy" : !isfinite(o->kinetic) ? "kinetic energy"
         : !isfinite(o->pressure) ? "pressure" : NULL;
}

static int thermo_snapshot(run_state *r, mdl_thermo_extra *x, const double *energy);

/* The computes' values of the state now (system/computes.h), of a snapshot that rank 0 takes and
   evaluates, every rank given them. */
static int thermo_computes(run_state *r, mdl_thermo_extra *x)
{
    double *energy = NULL; /* each atom's, where a pe/atom is read (every rank takes part) */
    for (int j = 0; j < r->cfg->computes.n && !energy; j++)
        if (r->cfg->computes.c[j].style == MDL_COMPUTE_PE_ATOM && computes_read_by_reduce(&r->cfg->computes, j)) {
            if (!(energy = mdl_alloc((r->natoms ? r->natoms : 1) * sizeof *energy, "pe/atom")))
                return MDL_ERUN;
            const int erc = r->ops->atom_energies(r->ctx, energy);
            if (erc != MDL_OK) {
                free(energy);
                return erc;
            }
        }
    const int rc = thermo_snapshot(r, x, energy);
    free(energy);
    return rc;
}

/* The computes' values of a snapshot of the state (energy: the atoms' potential energies or NULL). */
static int thermo_snapshot(run_state *r, mdl_thermo_extra *x, const double *energy)
{
    MDL_TRY(r->ops->snapshot_start(r->ctx, r->data_slot, MDL_DUMP_POSITION | MDL_DUMP_VELOCITY | MDL_DUMP_FORCE |
                                                             MDL_DUMP_IMAGE));
    int rc = MDL_OK;
    if (r->rank == 0) {
        mdl_system frame = r->snap; /* a view: the per-atom arrays are pointed into the slot */
        mdl_observables obs;
        rc = r->ops->snapshot_finish(r->ctx, r->data_slot, &frame, &obs);
        for (int d = 0; d < 3 && rc == MDL_OK && obs.volume > 0; d++) /* the box now (a barostat moves it) */
            frame.box.lo[d] = obs.box_lo[d], frame.box.len[d] = obs.box_len[d], frame.box.tilt[d] = obs.box_tilt[d];
        frame.n = r->natoms;
        if (rc == MDL_OK)
            rc = computes_evaluate(&r->cfg->computes, &frame, energy, r->units, r->cutmax, x->compute);
    }
    if (r->nranks > 1) {
        int bad = rc != MDL_OK;
        MDL_TRY(comm_or_int(&bad));
        if (bad)
            return rc != MDL_OK ? rc : MDL_ERUN;
        MDL_TRY(comm_broadcast(x->compute, sizeof x->compute));
    }
    return rc;
}

/* The extras a row's columns need, of the state now (backend.h's force_norms and pressure_tensor: all
   ranks' sums; the counters; the clocks since the stage began and since the last row). */
int run_thermo_extras(run_state *r, long step, mdl_thermo_extra *x)
{
    const int needs = thermo_needs(&r->thermo);
    const double now = mdl_wtime(), t = step_time(r, step);
    /* the stage's first step (a minimisation's: where it began; it ends before its steps are done) */
    const long first = r->cfg->ensemble == MDL_MINIMIZE ? r->first_step : r->final_step - r->cfg->steps;
    *x = (mdl_thermo_extra){.run_first = first, .first = first,
                            .dt = r->cfg->timestep, .cpu = now - r->stage_wall0};
    if (needs & MDL_THERMO_NEEDS_CLOCK && r->row_wall > 0 && now > r->row_wall && step > r->row_step) {
        x->tpcpu = (t - r->row_time) / (now - r->row_wall);
        x->spcpu = (double)(step - r->row_step) / (now - r->row_wall);
    }
    r->row_wall = now, r->row_step = step, r->row_time = t;
    if (needs & MDL_THERMO_NEEDS_STATS) {
        mdl_backend_stats st;
        MDL_TRY(r->ops->stats(r->ctx, &st));
        x->nbuild = st.builds - r->builds0, x->ndanger = st.dangerous - r->dangerous0; /* since the stage began */
    }
    double norms[2] = {0, 0};
    if (needs & MDL_THERMO_NEEDS_FORCES)
        MDL_TRY(r->ops->force_norms(r->ctx, norms));
    x->fmax = norms[0], x->fnorm = norms[1];
    if (needs & MDL_THERMO_NEEDS_TENSOR)
        MDL_TRY(r->ops->pressure_tensor(r->ctx, x->kinetic, x->virial));
    if (needs & MDL_THERMO_NEEDS_FIXES)
        MDL_TRY(r->ops->force_fix_outputs(r->ctx, x->fix_out, r->cfg->force_fixes.n));
    if (needs & MDL_THERMO_NEEDS_COMPUTES)
        MDL_TRY(thermo_computes(r, x));
    if (needs & MDL_THERMO_NEEDS_BALANCE) { /* one process, as LAMMPS's: an imbalance of 1, balanced at each check
                                               (f_ID and f_ID[3] set) where that is above the threshold */
        mdl_backend_stats st;
        MDL_TRY(r->ops->stats(r->ctx, &st));
        const double balanced = 1.0 > r->cfg->balance_threshold ? 1.0 : 0.0;
        x->balance[0] = balanced, x->balance[1] = (double)st.owned, x->balance[2] = 0, x->balance[3] = balanced;
    }
    return MDL_OK;
}

mdl_thermo_style run_thermo_style(const mdl_config *cfg, double mass, const mdl_units *u)
{
    return (mdl_thermo_style){cfg->thermo_columns, config_origin(cfg, "output", "thermo_columns"), cfg->thermo_norm,
                              cfg->thermo_file_mdlite, cfg->thermo_format, config_origin(cfg, "output", "thermo_format"),
                              cfg->thermo_multi, mass, u, cfg->thermo_variables,
                              config_origin(cfg, "output", "thermo_variables"), cfg->force_fix_ids, &cfg->computes};
}

int run_check_thermo_backend(const run_state *r)
{
    const int needs = thermo_needs(&r->thermo);
    int pe_atom = 0;
    for (int j = 0; j < r->cfg->computes.n; j++)
        pe_atom |= r->cfg->computes.c[j].style == MDL_COMPUTE_PE_ATOM && computes_read_by_reduce(&r->cfg->computes, j);
    const char *what = needs & MDL_THERMO_NEEDS_COMPUTES && pe_atom && !r->ops->atom_energies ? "compute pe/atom"
                     : needs & MDL_THERMO_NEEDS_FORCES && !r->ops->force_norms ? "fmax and fnorm"
                     : needs & MDL_THERMO_NEEDS_TENSOR && !r->ops->pressure_tensor ? "pxx pyy pzz pxy pxz pyz"
                     : needs & MDL_THERMO_NEEDS_FIXES && !r->ops->force_fix_outputs ? "a fix's f_ID columns" : NULL;
    if (!what && needs & MDL_THERMO_NEEDS_BALANCE && comm_size() > 1) { /* mdlite's bricks are not LAMMPS's */
        mdl_error("%s: [output] thermo_balance_id: fix balance's columns on %d ranks: mdlite's decomposition is not "
                  "LAMMPS's (one rank prints LAMMPS's one-process values)", config_origin(r->cfg, "output",
                  "thermo_balance_id"), comm_size());
        return MDL_EINPUT;
    }
    if (!what)
        return MDL_OK;
    mdl_error("%s: [output] thermo_columns: the %s backend does not compute %s; the cpu backend does",
              config_origin(r->cfg, "output", "thermo_columns"), r->ops->name, what);
    return MDL_EINPUT;
}

int run_write_thermo_row(run_state *r, long step, const mdl_observables *o, const mdl_thermo_extra *x)
{
    MDL_TRY(stepper_check_health(&r->st, step)); /* a row after an unsafe step is not printed */
    run_clear_progress(r);
    const char *bad = nonfinite_observable(o);
    if (bad)
        return stepper_unhealthy(&r->st, step, bad);
    if (step >= r->final_step - r->cfg->steps / 2) { /* the stage's last half: a barostat's average */
        r->volume_sum += o->volume;
        r->volume_rows++;
    }
    mdl_thermo_extra now;
    if (!x) {
        MDL_TRY(run_thermo_extras(r, step, &now));
        x = &now;
    }
    return thermo_write(&r->thermo, step, step_time(r, step), o, x);
}

/* A trajectory frame of the current state (forces computed with energy and virial), handed to
   the writer (async = no: written before this returns). Every flush_every-th frame and the last
   flush the file and, with output.checkpoint, carry the checkpoint. */
int run_write_frame(run_state *r, long step, int last)
{
    double t0 = mdl_wtime();
    const int again = r->last_frame == step; /* a stop on a frame's step: its checkpoint */
    int flush = last || (r->frames + 1) % r->cfg->flush_every == 0;
    mdl_frame f = {step, step_time(r, step), &r->snap, NULL, flush && r->cfg->checkpoint, flush, again, {0}, 0,
                   -1, {{0}, {0}, {0}, {0}, 0}, r->base->nstages > 0, r->stages_from, NULL, {(double)r->time_step, r->first_time}, NULL, "", {NULL}, 0};
    f.every = r->cfg->dump_every;
    MDL_TRY(thermostat_state(&r->st.thermostat, r->ops, r->ctx, f.thermostat, &f.nstate));
    if (f.checkpoint) /* the stage's: a Langevin stage's forces hold its force */
        config_force_origin(r->cfg, f.force_origin, sizeof f.force_origin);
    if (f.checkpoint) { /* the list's last build: a restart rebuilds that list (where kept, MDL_DUMP_BUILD) */
        mdl_backend_stats st;
        MDL_TRY(r->ops->stats(r->ctx, &st));
        f.last_build = st.last_build, f.build_box = st.built;
    }
    if (f.checkpoint) /* the stage's analysis so far: a restart continues it (every rank: sums) */
        MDL_TRY(analysis_checkpoint(&r->an, r->natoms, r->an_out.ntypes, &f.analysis));
    r->frames += !again;
    r->last_frame = step;
    if (f.checkpoint)
        r->last_checkpoint = step;
    MDL_TRY(r->ops->synchronize(r->ctx)); /* the device is there: was the state healthy? */
    MDL_TRY(stepper_check_health(&r->st, step));
    int fields = f.checkpoint ? MDL_DUMP_ALL | MDL_DUMP_BUILD : r->cfg->dump_fields;
    int ok = 1; /* the ended stages' results with the checkpoint: a restart's files hold them too */
    if (r->writer && f.checkpoint)
        f.results = analysis_results_copy(r->an_out.results, r->an_out.nresults, r->an_out.ntypes, &ok);
    if (!ok) {
        analysis_checkpoint_free(f.analysis);
        return MDL_ERUN;
    }
    if (r->writer)
        MDL_TRY(writer_submit(r->writer, &f, fields)); /* which frees f.analysis and f.results once written */
    else /* another rank than 0: its atoms to rank 0's frame */
        MDL_TRY(r->ops->snapshot_start(r->ctx, 0, fields));
    r->st.timers.t[PH_OUTPUT] += mdl_wtime() - t0;
    r->st.timers.mark = mdl_wtime();
    return MDL_OK;
}

/* Prints the queued thermo rows whose results have arrived, in order; wait: all of them. */
int run_drain_thermo(run_state *r, int wait)
{
    while (r->thermo_head < r->thermo_tail) {
        int slot = (int)(r->thermo_head % MDL_THERMO_SLOTS);
        mdl_observables o;
        int rc = r->ops->reduce_poll(r->ctx, slot, &o, wait);
        if (rc == MDL_NOT_READY)
            return MDL_OK;
        MDL_TRY(rc);
        MDL_TRY(run_write_thermo_row(r, r->thermo_step[slot], &o, &r->thermo_extra[slot]));
        r->thermo_head++;
    }
    return MDL_OK;
}

/* Queues this step's thermo row; waits only when every slot is pending. */
int run_queue_thermo(run_state *r, long step)
{
    if (r->thermo_tail - r->thermo_head == MDL_THERMO_SLOTS) {
        int slot = (int)(r->thermo_head % MDL_THERMO_SLOTS);
        mdl_observables o;
        MDL_TRY(r->ops->reduce_poll(r->ctx, slot, &o, 1));
        MDL_TRY(run_write_thermo_row(r, r->thermo_step[slot], &o, &r->thermo_extra[slot]));
        r->thermo_head++;
    }
    int slot = (int)(r->thermo_tail % MDL_THERMO_SLOTS);
    MDL_TRY(run_thermo_extras(r, step, &r->thermo_extra[slot])); /* of this step's state, as the row's */
    MDL_TRY(r->ops->reduce_start(r->ctx, slot));
    r->thermo_step[slot] = step;
    r->thermo_tail++;
    return MDL_OK;
}

const char *run_data_file(const mdl_config *base, int stage)
{
    if (!base->nstages)
        return base->data_file;
    char section[48];
    snprintf(section, sizeof section, "stage:%s", base->stages[stage].stage_name);
    if (config_find_entry(base, section, "data_file")) /* the stage's own */
        return base->stages[stage].data_file;
    return stage == base->nstages - 1 ? base->data_file : ""; /* [output]'s: at the run's end */
}

/* The data files the stages write (each once) into out[5 ..]; their count. */
static int data_file_outputs(const mdl_config *base, mdl_named_path *out)
{
    int n = 0;
    for (int k = 0; k < (base->nstages ? base->nstages : 1); k++) {
        const char *path = run_data_file(base, k);
        int seen = !path[0];
        for (int j = 0; j < n && !seen; j++)
            seen = strcmp(out[5 + j].path, path) == 0;
        if (!seen)
            out[5 + n++] = (mdl_named_path){path, "[output] data_file"};
    }
    return n;
}

/* Every output checked against the inputs and each other, then claimed (outfile.h: written under a
   temporary name until it has content; an append writes the file itself); the data files and the
   profile, written whole later, only checked to be free. */
int run_claim_outputs(run_state *r, const mdl_run_options *opt)
{
    const mdl_config *cfg = r->cfg;
    mdl_named_path in[] = {{cfg->path, "config file"}, {cfg->input, "[system] input"}, {opt->restart, "--restart file"}};
    mdl_named_path out[6 + MDL_MAX_STAGES] = {{cfg->thermo_file, "[output] thermo_file"}, {cfg->trajectory, "[output] trajectory"},
                            {opt->profile, "--profile file"},
                            {analysis_wanted(r->base, 1) ? r->base->rdf_file : NULL, "[analysis] rdf_file"},
                            {analysis_wanted(r->base, 0) ? r->base->msd_file : NULL, "[analysis] msd_file"},
                            {cfg->log_file, "[output] log_file"}};
    const int ndata = data_file_outputs(r->base, out + 1);
    MDL_TRY(outputs_check(in, 3, out, 6 + ndata, r->append ? 1 : -1, r->append ? 2 : -1));
    int rc = MDL_OK;
    for (int k = 0; k < ndata && rc == MDL_OK; k++)
        rc = outfile_check_free(out[6 + k].path, out[6 + k].role);
    if (rc == MDL_OK && opt->profile)
        rc = outfile_check_free(opt->profile, out[2].role);
    if (rc == MDL_OK && cfg->log_file[0])
        rc = outfile_claim(&r->o_log, cfg->log_file, out[5].role, cfg->log_append, opt->overwrite);
    if (rc == MDL_OK && cfg->trajectory[0])
        rc = outfile_claim(&r->o_traj, cfg->trajectory, out[1].role, r->append, opt->overwrite);
    if (rc == MDL_OK && cfg->thermo_file[0])
        rc = outfile_claim(&r->o_thermo, cfg->thermo_file, out[0].role, r->append, opt->overwrite);
    if (rc == MDL_OK && out[3].path)
        rc = outfile_claim(&r->o_rdf, out[3].path, out[3].role, 0, opt->overwrite);
    if (rc == MDL_OK && out[4].path)
        rc = outfile_claim(&r->o_msd, out[4].path, out[4].role, 0, opt->overwrite);
    if (rc == MDL_OK && cfg->log_file[0])
        rc = run_open_log(r);
    return rc; /* the claims made are released (their temporary files removed) by the run's end */
}

/* The log file: what was printed so far (kept in memory since the run began), then the rest. */
int run_open_log(run_state *r)
{
    const char *name = outfile_target(&r->o_log);
    if (!(r->log = fopen(name, r->cfg->log_append ? "a" : "w"))) {
        mdl_error("%s: [output] log_file: cannot write: %s", r->cfg->log_file, strerror(errno));
        return MDL_EINPUT;
    }
    mdl_set_log(NULL);
    if (r->log_early) {
        fclose(r->log_early);
        r->log_early = NULL;
        fwrite(r->log_text, 1, r->log_len, r->log);
        free(r->log_text);
        r->log_text = NULL;
    }
    fflush(r->log);
    mdl_set_log(r->log);
    return outfile_publish(&r->o_log); /* it has its content: the run's first lines */
}

/* The trajectory file, made from the set-up system s (in id order). */
int run_open_output(run_state *r, const mdl_units *u, const mdl_system *s)
{
    if (!r->cfg->trajectory[0])
        return MDL_OK;
    return traj_open(&r->traj, r->base, u, s, r->append, &r->o_traj); /* an append's last frame checked by the restart */
}

/* The state now as a LAMMPS data file (every rank gathers to rank 0, which writes it), where the
   stage writes one. */
static int write_frame_data(void *user, const char *name)
{
    const run_state *r = user;
    return write_data_file(name, &r->data_frame, r->units->name, r->data_step);
}

int run_write_data(run_state *r, long step)
{
    const char *path = run_data_file(r->base, r->stage);
    if (!path[0])
        return MDL_OK;
    const int fields = MDL_DUMP_POSITION | MDL_DUMP_VELOCITY | MDL_DUMP_IMAGE;
    MDL_TRY(r->ops->snapshot_start(r->ctx, r->data_slot, fields));
    if (r->rank != 0)
        return MDL_OK;
    mdl_system frame = r->snap; /* a view: the per-atom arrays are pointed into the slot */
    mdl_observables obs;
    MDL_TRY(r->ops->snapshot_finish(r->ctx, r->data_slot, &frame, &obs));
    for (int d = 0; d < 3 && obs.volume > 0; d++) /* the box now (a barostat moves it) */
        frame.box.lo[d] = obs.box_lo[d], frame.box.len[d] = obs.box_len[d], frame.box.tilt[d] = obs.box_tilt[d];
    r->data_frame = frame, r->data_step = step;
    MDL_TRY(outfile_write_whole(path, "[output] data_file", r->overwrite, write_frame_data, r));
    if (!r->quiet)
        mdl_say("mdlite: data file %s written (step %ld)\n", path, step);
    return MDL_OK;
}

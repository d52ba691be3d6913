/* Energy minimisation as LAMMPS's min_style cg does it -- Polak-Ribiere directions restarted every
   3N iterations or when not downhill, its quadratic line search (backtracking from a step of at
   most dmax, then the secant projection) -- or its fire (FIRE 2.0), and their stopping rules,
   operation for operation. The vectors live here, in id order (CPU ranks: every rank holds them
   all, rank 0's broadcast, and makes the same decisions); the backend computes the energy and
   forces of the positions set_positions gives it (through the run's own snapshot slot). */
#include "minimize.h"

#include "stop_signal.h"
#include "../parallel/comm.h"
#include "../util/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LAMMPS's min_linesearch.cpp constants */
#define ALPHA_MAX 1.0
#define ALPHA_REDUCE 0.5
#define BACKTRACK_SLOPE 0.4
#define QUADRATIC_TOL 0.1
#define EMACH 1.0e-8
#define EPS_QUAD 1.0e-28
#define EPS_ENERGY 1.0e-8

enum { MIN_MAXITER, MIN_MAXEVAL, MIN_ETOL, MIN_FTOL, MIN_DOWNHILL, MIN_ZEROALPHA, MIN_ZEROFORCE, MIN_ZEROQUAD,
       MIN_MAXVDOTF, MIN_STOPPED };
static const char *const STOP_REASON[] = {"max iterations",  "max force evaluations",         "energy tolerance",
                                          "force tolerance", "search direction is not downhill",
                                          "linesearch alpha is zero", "forces are zero",
                                          "quadratic factors are zero",
                                          "max iterations with v.f negative", "a stop signal"};

typedef struct {
    run_state *r;
    size_t n3;          /* 3 N degrees of freedom */
    double *x, *x0, *f, *g, *h; /* unwrapped positions, the line search's start, forces, CG's g and h */
    double energy;      /* per atom when thermo_norm (LAMMPS's normflag), else the total */
    double eprevious;   /* before the last iteration */
    double norm;        /* 1 / N with thermo_norm, else 1 */
    mdl_observables obs; /* of the last evaluation */
    long evals;
} minimizer;

/* Several ranks: rank 0's vector (and observables) to every rank, so that each makes the same
   decisions on the same numbers. */
static int share(const minimizer *m, double *v, mdl_observables *obs)
{
    if (m->r->nranks == 1)
        return MDL_OK;
    MDL_TRY(comm_broadcast(v, m->n3 * sizeof *v));
    return obs ? comm_broadcast(obs, sizeof *obs) : MDL_OK;
}

/* The backend's forces (id order) and energy at its positions now. */
static int read_forces(minimizer *m)
{
    run_state *r = m->r;
    MDL_TRY(r->ops->compute_forces(r->ctx, MDL_FORCES_ENERGY));
    if (r->ops->force_fixes) /* LAMMPS's min_post_force */
        MDL_TRY(r->ops->force_fixes(r->ctx, &r->cfg->force_fixes));
    MDL_TRY(r->ops->snapshot_start(r->ctx, r->data_slot, MDL_DUMP_FORCE)); /* every rank's atoms to rank 0 */
    if (r->rank == 0) {
        mdl_system frame = r->snap;
        MDL_TRY(r->ops->snapshot_finish(r->ctx, r->data_slot, &frame, &m->obs));
        for (size_t i = 0; i < m->n3 / 3; i++)
            m->f[3 * i] = frame.fx[i], m->f[3 * i + 1] = frame.fy[i], m->f[3 * i + 2] = frame.fz[i];
    }
    MDL_TRY(share(m, m->f, &m->obs));
    m->energy = (m->obs.potential + m->obs.fix_energy) * m->norm; /* LAMMPS's pe, fix_modify energy included */
    return MDL_OK;
}

/* LAMMPS's alpha_step: x = x0 + alpha h, then the energy and forces there. */
static int alpha_step(minimizer *m, double alpha)
{
    for (size_t i = 0; i < m->n3; i++) {
        m->x[i] = m->x0[i];
        if (alpha > 0.0)
            m->x[i] += alpha * m->h[i];
    }
    MDL_TRY(m->r->ops->set_positions(m->r->ctx, m->x));
    m->evals++; /* LAMMPS's neval: the line searches' evaluations */
    return read_forces(m);
}

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* LAMMPS's linemin_quadratic from the positions x (energy eoriginal) along h: *fail 0, or a stop
   reason; returns MDL_OK or an error. */
static int line_search(minimizer *m, double eoriginal, const mdl_config *cfg, int *fail)
{
    double fdothall = dot(m->f, m->h, m->n3) * m->norm;
    double hmax = 0;
    for (size_t i = 0; i < m->n3; i++)
        hmax = fmax(hmax, fabs(m->h[i]));
    *fail = fdothall <= 0.0 ? MIN_DOWNHILL : hmax == 0.0 ? MIN_ZEROFORCE : 0;
    if (*fail)
        return MDL_OK;
    const double alphamax = fmin(ALPHA_MAX, (cfg->dmax > 0 ? cfg->dmax : 0.1) / hmax);
    memcpy(m->x0, m->x, m->n3 * sizeof *m->x);
    double alpha = alphamax, engprev = eoriginal, alphaprev = 0.0, fhprev = fdothall;
    for (;;) {
        MDL_TRY(alpha_step(m, alpha));
        const double fh = dot(m->f, m->h, m->n3) * m->norm, delfh = fh - fhprev;
        if (fabs(fh) < EPS_QUAD || fabs(delfh) < EPS_QUAD) {
            *fail = MIN_ZEROQUAD;
            return alpha_step(m, 0.0);
        }
        /* ready for the quadratic projection (the secant method): alpha0 */
        const double relerr = fabs(1.0 - (0.5 * (alpha - alphaprev) * (fh + fhprev) + m->energy) / engprev);
        const double alpha0 = alpha - (alpha - alphaprev) * fh / delfh;
        if (relerr <= QUADRATIC_TOL && alpha0 > 0.0 && alpha0 < alphamax) {
            MDL_TRY(alpha_step(m, alpha0));
            if (m->energy - eoriginal < EMACH)
                return MDL_OK;
        }
        const double de_ideal = -BACKTRACK_SLOPE * alpha * fdothall, de = m->energy - eoriginal;
        if (de <= de_ideal)
            return MDL_OK;
        fhprev = fh, engprev = m->energy, alphaprev = alpha;
        alpha *= ALPHA_REDUCE;
        if (alpha <= 0.0 || de_ideal >= -EMACH) {
            *fail = MIN_ZEROALPHA;
            return alpha_step(m, 0.0);
        }
    }
}

/* A thermo row of the state now (the last evaluation's observables) at `step`. */
static int row(minimizer *m, long step)
{
    return run_write_thermo_row(m->r, step, &m->obs, NULL);
}

/* LAMMPS's MinCG::iterate: *reason, why it stopped; *niter, the iterations made; m->eprevious, the
   energy before the last one. MDL_OK or an error. */
static int iterate(minimizer *m, long maxiter, long *niter, int *reason)
{
    run_state *r = m->r;
    const mdl_config *cfg = r->cfg;
    const long nlimit = m->n3 < 2147483647 ? (long)m->n3 : 2147483647;
    memcpy(m->h, m->f, m->n3 * sizeof *m->f);
    memcpy(m->g, m->f, m->n3 * sizeof *m->f);
    double gg = dot(m->f, m->f, m->n3);
    for (long iter = 0; iter < maxiter; iter++) {
        const long step = r->first_step + ++*niter;
        const double eprevious = m->eprevious = m->energy;
        int fail;
        MDL_TRY(line_search(m, m->energy, cfg, &fail));
        if (cfg->thermo > 0 && step % cfg->thermo == 0)
            MDL_TRY(row(m, step));
        *reason = fail;
        if (fail)
            return MDL_OK;
        *reason = MIN_MAXEVAL;
        if (cfg->maxeval > 0 && m->evals >= cfg->maxeval)
            return MDL_OK;
        *reason = MIN_ETOL;
        if (fabs(m->energy - eprevious) < cfg->etol * 0.5 * (fabs(m->energy) + fabs(eprevious) + EPS_ENERGY))
            return MDL_OK;
        const double ff = dot(m->f, m->f, m->n3), fg = dot(m->f, m->g, m->n3);
        *reason = MIN_FTOL;
        if (cfg->ftol > 0.0 && ff < cfg->ftol * cfg->ftol)
            return MDL_OK;
        double beta = fmax(0.0, (ff - fg) / gg); /* Polak-Ribiere */
        if ((*niter + 1) % nlimit == 0)
            beta = 0.0;
        gg = ff;
        for (size_t i = 0; i < m->n3; i++)
            m->g[i] = m->f[i], m->h[i] = m->g[i] + beta * m->h[i];
        if (dot(m->g, m->h, m->n3) <= 0.0) /* not downhill: start again from the gradient */
            memcpy(m->h, m->g, m->n3 * sizeof *m->g);
        *reason = MIN_STOPPED;
        MDL_TRY(stop_signal_agree(r->nranks));
        if (stop_signal())
            return MDL_OK;
    }
    *reason = MIN_MAXITER;
    return MDL_OK;
}

/* The FIRE velocities' mixing: (1 - alpha) v + alpha |v| f / |f| where v . f > 0 (*mix), with the
   timestep grown and alpha shrunk past delaystep; else v = 0 after half a step back (halfstepback),
   the timestep shrunk and alpha reset (past delaystep from the start with initialdelay). Returns 1
   past the negative steps allowed (vdfmax), else 0. */
static int fire_mix(minimizer *m, double *v, long step, long start, long *last_negative, long *negatives,
                    double *dt, double *alpha, double *scale1, double *scale2, int *mix)
{
    const mdl_fire_params *p = &m->r->cfg->fire;
    const double vdotf = dot(v, m->f, m->n3), dtmax = p->tmax * m->r->cfg->timestep,
                 dtmin = p->tmin * m->r->cfg->timestep;
    *mix = vdotf > 0.0;
    if (*mix) {
        const double vdotv = dot(v, v, m->n3), fdotf = dot(m->f, m->f, m->n3);
        *negatives = 0;
        *scale1 = 1.0 - *alpha;
        *scale2 = fdotf <= 1e-20 ? 0.0 : *alpha * sqrt(vdotv / fdotf);
        if (step - *last_negative > p->delaystep) {
            *dt = fmin(*dt * p->dtgrow, dtmax);
            *alpha *= p->alphashrink;
        }
        return 0;
    }
    *last_negative = step;
    if (!(step - start < p->delaystep && p->initialdelay)) {
        *alpha = p->alpha0;
        if (*dt * p->dtshrink >= dtmin)
            *dt *= p->dtshrink;
    }
    if (p->vdfmax > 0 && ++*negatives > p->vdfmax)
        return 1;
    for (size_t i = 0; p->halfstepback && i < m->n3; i++) /* inertia correction: half a step back */
        m->x[i] -= 0.5 * *dt * v[i];
    memset(v, 0, m->n3 * sizeof *v);
    return 0;
}

/* v += dtf / m f, for every atom. */
static void fire_kick(minimizer *m, double *v, double dtf)
{
    for (size_t i = 0; i < m->n3; i++)
        v[i] += dtf / m->h[i / 3] * m->f[i];
}

/* One move of FIRE's integrator (LAMMPS's: 0 semi-implicit Euler, 1 velocity Verlet, 2 leapfrog, 3
   explicit Euler) over dtv, the mixing applied where *mix, then the forces at the new positions. */
static int fire_move(minimizer *m, double *v, double dtv, int integrator, int mix, double scale1, double scale2)
{
    run_state *r = m->r;
    const double dtf = (integrator == MDL_FIRE_VERLET ? 0.5 : 1.0) * dtv * r->units->ftm2v;
    for (size_t i = 0; i < m->n3; i++) {
        const double dtfm = dtf / m->h[i / 3];
        if (integrator != MDL_FIRE_EULER_EXPLICIT)
            v[i] += dtfm * m->f[i];
        if (mix)
            v[i] = scale1 * v[i] + scale2 * m->f[i];
        m->x[i] += dtv * v[i];
        if (integrator == MDL_FIRE_EULER_EXPLICIT)
            v[i] += dtfm * m->f[i];
    }
    m->eprevious = m->energy;
    MDL_TRY(r->ops->set_positions(r->ctx, m->x));
    MDL_TRY(r->ops->set_velocities(r->ctx, v)); /* the row's kinetic energy */
    m->evals++;
    MDL_TRY(read_forces(m));
    if (integrator != MDL_FIRE_VERLET)
        return MDL_OK;
    fire_kick(m, v, dtf); /* its second half kick, after the forces: the row's velocities */
    MDL_TRY(r->ops->set_velocities(r->ctx, v));
    const double potential = m->obs.potential, fix_energy = m->obs.fix_energy;
    MDL_TRY(backend_observe(r->ops, r->ctx, &m->obs));
    m->obs.potential = potential, m->obs.fix_energy = fix_energy;
    return MDL_OK;
}

/* FIRE's start: the atoms at rest (m->g, their velocities, and the backend's), their masses in m->h. */
static int fire_start(minimizer *m)
{
    run_state *r = m->r;
    memset(m->g, 0, m->n3 * sizeof *m->g);
    for (size_t i = 0; i < m->n3 / 3; i++)
        m->h[i] = r->snap.mass[r->snap.type[i]];
    return r->ops->set_velocities(r->ctx, m->g);
}

/* The step over which no coordinate moves more than dmax at velocities v. */
static double fire_step_bound(const minimizer *m, const double *v, double dt, double dmax)
{
    for (size_t i = 0; i < m->n3; i++)
        if (dt * fabs(v[i]) > dmax)
            dt = dmax / fabs(v[i]);
    return dt;
}

/* An iteration's end in both FIRE styles: its thermo row, then LAMMPS's stopping tests (the
   energy's only `delay` past the last negative v . f; no maxeval) and a signal; *done, *reason. */
static int fire_end(minimizer *m, long step, long since_negative, long delay, int *done, int *reason)
{
    const mdl_config *cfg = m->r->cfg;
    if (cfg->thermo > 0 && step % cfg->thermo == 0)
        MDL_TRY(row(m, step));
    *done = 1;
    *reason = MIN_ETOL;
    if (cfg->etol > 0.0 && since_negative > delay &&
        fabs(m->energy - m->eprevious) < cfg->etol * 0.5 * (fabs(m->energy) + fabs(m->eprevious) + EPS_ENERGY))
        return MDL_OK;
    *reason = MIN_FTOL;
    if (cfg->ftol > 0.0 && dot(m->f, m->f, m->n3) < cfg->ftol * cfg->ftol)
        return MDL_OK;
    *reason = MIN_STOPPED;
    MDL_TRY(stop_signal_agree(m->r->nranks));
    *done = stop_signal() != 0;
    return MDL_OK;
}

/* LAMMPS's min_style fire (FIRE 2.0, its min_modify keys: [run] fire; after velocities are reset,
   the forces where the atoms stand bound the step, as LAMMPS's flagv0): *reason, *niter.
   Its velocities are the atoms' own, as LAMMPS's: zeroed at the start, moved at each iteration
   (thermo's temperature and pressure show them) and left to the run after it. */
static int fire_iterate(minimizer *m, long maxiter, long *niter, int *reason)
{
    run_state *r = m->r;
    const mdl_config *cfg = r->cfg;
    double *v = m->g, *mass = m->h; /* the atoms' velocities, at rest, and masses */
    MDL_TRY(fire_start(m));
    double dt = cfg->timestep, alpha = cfg->fire.alpha0, scale1 = 0, scale2 = 0;
    long last_negative = r->first_step, negatives = 0;
    int reset = 1; /* the velocities were set to 0 */
    const double dmax = cfg->dmax > 0 ? cfg->dmax : 0.1;
    if (cfg->fire.integrator == MDL_FIRE_LEAPFROG) { /* its half step back before the loop */
        MDL_TRY(r->ops->set_positions(r->ctx, m->x));
        m->evals++;
        MDL_TRY(read_forces(m));
        for (size_t i = 0; i < m->n3; i++)
            v[i] = -0.5 * dt * r->units->ftm2v / mass[i / 3] * m->f[i];
    }
    for (long iter = 0; iter < maxiter; iter++) {
        const long step = r->first_step + ++*niter;
        int mix;
        *reason = MIN_MAXVDOTF;
        if (fire_mix(m, v, step, r->first_step, &last_negative, &negatives, &dt, &alpha, &scale1, &scale2, &mix))
            return MDL_OK;
        reset |= !mix;
        if (reset) { /* the velocities one step from rest here bound the step */
            MDL_TRY(r->ops->set_positions(r->ctx, m->x));
            m->evals++;
            MDL_TRY(read_forces(m));
            for (size_t i = 0; i < m->n3; i++)
                v[i] = dt * r->units->ftm2v / mass[i / 3] * m->f[i];
        }
        const double dtv = fire_step_bound(m, v, dt, dmax);
        if (reset)
            memset(v, 0, m->n3 * sizeof *v);
        reset = 0;
        MDL_TRY(fire_move(m, v, dtv, cfg->fire.integrator, mix, scale1, scale2));
        int done;
        MDL_TRY(fire_end(m, step, step - last_negative, cfg->fire.delaystep, &done, reason));
        if (done)
            return MDL_OK;
    }
    *reason = MIN_MAXITER;
    return MDL_OK;
}

/* LAMMPS's min_style fire/old (its FIRE before 2.0: explicit Euler, v mixed as soon as v . f > 0,
   no minimum timestep, delaystep 5, alpha0 0.1, its own constants whatever min_modify says but
   dmax); the atoms' own velocities, as fire's. */
static int fire_old_iterate(minimizer *m, long maxiter, long *niter, int *reason)
{
    run_state *r = m->r;
    const mdl_config *cfg = r->cfg;
    double *v = m->g;
    MDL_TRY(fire_start(m));
    double dt = cfg->timestep, alpha = 0.1;
    const double dtmax = 10.0 * cfg->timestep, dmax = cfg->dmax > 0 ? cfg->dmax : 0.1;
    long last_negative = r->first_step;
    for (long iter = 0; iter < maxiter; iter++) {
        const long step = r->first_step + ++*niter;
        if (dot(v, m->f, m->n3) > 0.0) {
            const double vdotv = dot(v, v, m->n3), fdotf = dot(m->f, m->f, m->n3);
            const double scale1 = 1.0 - alpha, scale2 = fdotf == 0.0 ? 0.0 : alpha * sqrt(vdotv / fdotf);
            for (size_t i = 0; i < m->n3; i++)
                v[i] = scale1 * v[i] + scale2 * m->f[i];
            if (step - last_negative > 5)
                dt = fmin(dt * 1.1, dtmax), alpha *= 0.99;
        } else {
            last_negative = step, dt *= 0.5, alpha = 0.1;
            memset(v, 0, m->n3 * sizeof *v);
        }
        MDL_TRY(fire_move(m, v, fire_step_bound(m, v, dt, dmax), MDL_FIRE_EULER_EXPLICIT, 0, 0.0, 0.0));
        int done;
        MDL_TRY(fire_end(m, step, step - last_negative, 5, &done, reason));
        if (done)
            return MDL_OK;
    }
    *reason = MIN_MAXITER;
    return MDL_OK;
}

/* The positions now, unwrapped, in id order. */
static int read_positions(minimizer *m)
{
    run_state *r = m->r;
    MDL_TRY(r->ops->snapshot_start(r->ctx, r->data_slot, MDL_DUMP_POSITION | MDL_DUMP_IMAGE));
    if (r->rank == 0) {
        mdl_system frame = r->snap;
        mdl_observables obs;
        MDL_TRY(r->ops->snapshot_finish(r->ctx, r->data_slot, &frame, &obs));
        const mdl_box b = {{0, 0, 0}, {obs.box_len[0], obs.box_len[1], obs.box_len[2]}, {1, 1, 1},
                           {obs.box_tilt[0], obs.box_tilt[1], obs.box_tilt[2]}, 0};
        for (size_t i = 0; i < m->n3 / 3; i++) {
            const double p[3] = {frame.x[i], frame.y[i], frame.z[i]};
            const int32_t im[3] = {frame.ix[i], frame.iy[i], frame.iz[i]};
            box_unwrap(&b, p, im, m->x + 3 * i);
        }
    }
    return share(m, m->x, NULL);
}

static void print_stats(const minimizer *m, int reason, double einitial, double eprev, long niter, double t)
{
    const run_state *r = m->r;
    if (r->quiet || r->rank != 0)
        return;
    double fmax_ = 0;
    for (size_t i = 0; i < m->n3 / 3; i++)
        fmax_ = fmax(fmax_, sqrt(dot(m->f + 3 * i, m->f + 3 * i, 3)));
    mdl_say("Loop time of %g s for %ld iterations with %zu atoms\n\nMinimization stats:\n", t, niter, m->n3 / 3);
    mdl_say("  Stopping criterion = %s\n  Energy initial, next-to-last, final =\n    %22.17g %22.17g %22.17g\n",
           STOP_REASON[reason], einitial, eprev, m->energy);
    mdl_say("  Iterations, force evaluations = %ld %ld\n  Force two-norm, max component norm = %.17g %.17g\n",
           niter, m->evals, sqrt(dot(m->f, m->f, m->n3)), fmax_);
}

int minimize_prepare(run_state *r)
{
    if (r->cfg->ensemble != MDL_MINIMIZE || r->cfg->min_style == 0)
        return MDL_OK;
    double *zero = mdl_calloc(3 * r->natoms + 1, sizeof *zero, "FIRE's velocities");
    int rc = zero ? r->ops->set_velocities(r->ctx, zero) : MDL_ERUN;
    free(zero);
    return rc;
}

int minimize_stage(run_state *r)
{
    minimizer m = {.r = r, .n3 = 3 * r->natoms, .norm = r->cfg->thermo_norm ? 1.0 / (double)r->natoms : 1.0};
    double *all = mdl_alloc(5 * m.n3 * sizeof *all, "minimisation vectors");
    if (!all)
        return MDL_ERUN;
    m.x = all, m.x0 = all + m.n3, m.f = all + 2 * m.n3, m.g = all + 3 * m.n3, m.h = all + 4 * m.n3;
    const double t0 = mdl_wtime();
    long niter = 0;
    int rc = read_positions(&m);
    if (rc == MDL_OK)
        rc = read_forces(&m);
    const double einitial = m.energy;
    m.eprevious = m.energy;
    int reason = MIN_MAXITER;
    if (rc == MDL_OK && r->cfg->steps > 0)
        rc = (r->cfg->min_style == 2 ? fire_old_iterate : r->cfg->min_style == 1 ? fire_iterate : iterate)(
            &m, r->cfg->steps, &niter, &reason);
    r->final_step = r->first_step + niter;
    const mdl_config *cfg = r->cfg; /* the last iteration's row, as LAMMPS prints it */
    if (rc == MDL_OK && niter > 0 && cfg->thermo != 0 && (cfg->thermo < 0 || r->final_step % cfg->thermo != 0))
        rc = row(&m, r->final_step);
    if (rc == MDL_OK)
        print_stats(&m, reason, einitial, m.eprevious, niter, mdl_wtime() - t0);
    free(all);
    return rc == MDL_OK && reason == MIN_STOPPED ? 128 + stop_signal() : rc;
}

/* libmdlite's engine: the caller's atoms on a backend, moved, evaluated, stepped and minimised
   between calls (the same set-up, stepper and minimiser as `mdlite run`). */
#define _POSIX_C_SOURCE 200809L
#include "engine.h"

#include "../core/minimize.h"
#include "../core/plan.h"
#include "../core/run_state.h"
#include "../io/data_file.h"
#include "../physics/box.h"
#include "../system/setup.h"
#include "../util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* v (3) through the rows of m (transpose: the columns) into out. */
static void rotate(const double m[3][3], const double *v, double *out, int transpose)
{
    double r[3];
    for (int d = 0; d < 3; d++)
        r[d] = transpose ? m[0][d] * v[0] + m[1][d] * v[1] + m[2][d] * v[2]
                         : m[d][0] * v[0] + m[d][1] * v[1] + m[d][2] * v[2];
    memcpy(out, r, sizeof r);
}

/* The box's tilts brought within half the edge below them by adding whole edges (the same
   lattice of images: LAMMPS's flips). */
static void reduce_tilts(mdl_box *b)
{
    double *t = b->tilt;
    if (fabs(t[2]) > 0.5 * b->len[1]) { /* c -= k b */
        const double k = round(t[2] / b->len[1]);
        t[2] -= k * b->len[1], t[1] -= k * t[0];
    }
    if (fabs(t[1]) > 0.5 * b->len[0]) /* c -= k a */
        t[1] -= round(t[1] / b->len[0]) * b->len[0];
    if (fabs(t[0]) > 0.5 * b->len[0]) /* b -= k a */
        t[0] -= round(t[0] / b->len[0]) * b->len[0];
}

/* The box and rotation of a caller's cell; MDL_EINPUT naming why it cannot be one. */
static int cell_to_box(const double cell[9], mdl_box *b, double rot[3][3])
{
    for (int k = 0; k < 9; k++)
        if (!isfinite(cell[k]) || fabs(cell[k]) > MDL_BIG) {
            mdl_error("cell: number %d of 9 is %g (a finite number of magnitude at most 1e30)", k + 1, cell[k]);
            return MDL_EINPUT;
        }
    const char *why = box_from_cell(cell, b, rot);
    if (why) {
        mdl_error("cell: %s", why);
        return MDL_EINPUT;
    }
    reduce_tilts(b);
    for (int d = 0; d < 3; d++)
        b->lo[d] = 0, b->periodic[d] = 1;
    return MDL_OK;
}

/* The caller's cell of the box b seen through rot. */
static void box_to_cell(const mdl_box *b, const double rot[3][3], double cell[9])
{
    const double edge[3][3] = {{b->len[0], 0, 0}, {b->tilt[0], b->len[1], 0}, {b->tilt[1], b->tilt[2], b->len[2]}};
    for (int k = 0; k < 3; k++)
        rotate(rot, edge[k], cell + 3 * k, 1);
}

static int check_finite(const double *v, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]) || fabs(v[i]) > MDL_BIG) {
            mdl_error("%s: atom %zu's %c is %g (a finite number of magnitude at most 1e30)", what, i / 3,
                      "xyz"[i % 3], v[i]);
            return MDL_EINPUT;
        }
    return MDL_OK;
}

/* The given atoms into e->s and the caller's arrays. */
static int take_atoms(mdl_engine *e, const engine_atoms *g)
{
    mdl_system *s = &e->s;
    MDL_TRY(cell_to_box(g->cell, &s->box, e->rot));
    memcpy(e->cell, g->cell, sizeof e->cell);
    MDL_TRY(check_finite(g->positions, 3 * g->n, "positions"));
    if (g->velocities)
        MDL_TRY(check_finite(g->velocities, 3 * g->n, "velocities"));
    for (int t = 0; t < g->nspecies; t++) {
        if (system_species_index(s, g->species[t], 0) >= 0 || system_species_index(s, g->species[t], 1) != t) {
            mdl_error("species: '%s' (number %d) is named twice, or is not a name of 1 to %d characters",
                      g->species[t], t, MDL_NAME_LEN - 1);
            return MDL_EINPUT;
        }
        if (g->masses && !(g->masses[t] > 0 && g->masses[t] <= MDL_BIG)) {
            mdl_error("masses: species %s's is %g (a mass is > 0)", g->species[t], g->masses[t]);
            return MDL_EINPUT;
        }
        s->mass[t] = g->masses ? g->masses[t] : 0;
    }
    s->has_masses = g->masses != NULL, s->has_velocities = g->velocities != NULL;
    MDL_TRY(system_reserve(s, g->n));
    for (size_t i = 0; i < g->n; i++) {
        if (g->types[i] < 0 || g->types[i] >= g->nspecies) {
            mdl_error("types: atom %zu's is %d (species are 0 to %d)", i, g->types[i], g->nspecies - 1);
            return MDL_EINPUT;
        }
        s->type[i] = g->types[i], s->id[i] = (int64_t)i;
    }
    s->n = g->n;
    memcpy(e->pos, g->positions, 3 * g->n * sizeof *e->pos);
    if (g->velocities)
        memcpy(e->vel, g->velocities, 3 * g->n * sizeof *e->vel);
    return system_assign_masses(&e->cfg, s);
}

/* The configured system's atoms, unwrapped, as the caller's (the box's own frame). */
static void take_system(mdl_engine *e)
{
    const mdl_system *s = &e->s;
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < 3; k++)
            e->rot[d][k] = d == k;
    for (size_t i = 0; i < s->n; i++) {
        const double p[3] = {s->x[i], s->y[i], s->z[i]};
        const int32_t im[3] = {s->ix[i], s->iy[i], s->iz[i]};
        const int64_t a = s->id[i];
        box_unwrap(&s->box, p, im, e->pos + 3 * a);
        e->vel[3 * a] = s->vx[i], e->vel[3 * a + 1] = s->vy[i], e->vel[3 * a + 2] = s->vz[i];
    }
    box_to_cell(&s->box, e->rot, e->cell);
}

int engine_start(mdl_engine *e, const engine_atoms *given)
{
    units_lookup(e->cfg.units, &e->u);
    e->ops = backend_lookup(e->cfg.backend);
    if (!e->ops)
        return MDL_EINPUT;
    MDL_TRY(system_init(&e->s, 0));
    e->from_atoms = given != NULL;
    if (!given)
        MDL_TRY(system_setup(&e->cfg, &e->u, &e->s, e->ops->draw_normals));
    MDL_TRY(stepper_groups(&e->cfg, e->ops, &e->s));
    const size_t n = given ? given->n : e->s.n;
    if (n == 0) {
        mdl_error("atoms: none (a simulation needs at least one)");
        return MDL_EINPUT;
    }
    e->pos = mdl_calloc(3 * n, sizeof *e->pos, "positions");
    e->vel = mdl_calloc(3 * n, sizeof *e->vel, "velocities");
    e->force = mdl_calloc(3 * n, sizeof *e->force, "forces");
    if (!e->pos || !e->vel || !e->force)
        return MDL_ERUN;
    if (given) {
        MDL_TRY(take_atoms(e, given));
    } else {
        take_system(e);
    }
    MDL_TRY(potential_build(&e->cfg, &e->s, &e->pt));
    e->pending = ENGINE_REMADE;
    return MDL_OK;
}

void engine_destroy(mdl_engine *e)
{
    if (e->ctx)
        e->ops->destroy(e->ctx);
    e->ctx = NULL;
    potential_destroy(&e->pt);
    system_destroy(&e->s);
    free(e->pos), free(e->vel), free(e->force);
    e->pos = e->vel = e->force = NULL;
}

/* The caller's state into e->s in the box's frame, wrapped with images, and a backend made from it. */
static int remake(mdl_engine *e)
{
    mdl_system *s = &e->s;
    for (size_t i = 0; i < s->n; i++) {
        double p[3], v[3];
        int32_t k[3] = {0, 0, 0};
        rotate(e->rot, e->pos + 3 * i, p, 0);
        rotate(e->rot, e->vel + 3 * i, v, 0);
        if (box_is_triclinic(&s->box))
            box_wrap_triclinic(&s->box, p, k);
        for (int d = 0; d < 3 && !box_is_triclinic(&s->box); d++)
            p[d] = box_wrap(p[d], s->box.lo[d], s->box.len[d], &k[d]);
        s->x[i] = p[0], s->y[i] = p[1], s->z[i] = p[2], s->vx[i] = v[0], s->vy[i] = v[1], s->vz[i] = v[2];
        s->ix[i] = k[0], s->iy[i] = k[1], s->iz[i] = k[2], s->fx[i] = s->fy[i] = s->fz[i] = 0;
    }
    if (e->ctx)
        e->ops->destroy(e->ctx);
    e->ctx = NULL;
    mdl_setup setup = backend_setup(&e->cfg, &e->u, &e->pt);
    MDL_TRY(run_choose_grid(&e->cfg, e->ops->name, 1, s, &e->pt, &setup));
    MDL_TRY(run_check_gpu_keys(&e->cfg, e->ops->name, 1, s, &e->pt));
    MDL_TRY(e->ops->create(&e->ctx, &setup, s));
    MDL_TRY(e->ops->build_neighbors(e->ctx));
    return e->ops->snapshot_alloc(e->ctx, 1, MDL_DUMP_ALL);
}

/* The caller's positions in the box's frame (unwrapped) into buf. */
static void box_positions(const mdl_engine *e, double *buf)
{
    for (size_t i = 0; i < e->s.n; i++)
        rotate(e->rot, e->pos + 3 * i, buf + 3 * i, 0);
}

/* What the caller changed, given to the backend. */
static int push(mdl_engine *e)
{
    if (e->pending == ENGINE_REMADE) {
        MDL_TRY(remake(e));
        e->stepper_ready = e->evaluated = e->forces_read = 0;
    } else if (e->pending == ENGINE_MOVED) {
        double *buf = mdl_alloc(3 * e->s.n * sizeof *buf, "positions");
        if (!buf)
            return MDL_ERUN;
        box_positions(e, buf);
        const int rc = e->ops->move_atoms(e->ctx, buf);
        free(buf);
        MDL_TRY(rc);
        e->stepper_ready = e->evaluated = e->forces_read = 0;
    }
    e->pending = ENGINE_IN_STEP;
    return MDL_OK;
}

/* The backend's fields into a frame (views into its snapshot slot) with its observables. */
static int snapshot(mdl_engine *e, int fields, mdl_system *frame, mdl_observables *o)
{
    *frame = e->s;
    MDL_TRY(e->ops->snapshot_start(e->ctx, 0, fields));
    return e->ops->snapshot_finish(e->ctx, 0, frame, o);
}

/* The backend's positions and velocities (and its box, which a barostat moves) as the caller's. */
static int pull(mdl_engine *e)
{
    if (!e->host_stale)
        return MDL_OK;
    mdl_system f;
    mdl_observables o;
    MDL_TRY(snapshot(e, MDL_DUMP_POSITION | MDL_DUMP_VELOCITY | MDL_DUMP_IMAGE, &f, &o));
    mdl_box *b = &e->s.box;
    const int moved = memcmp(b->len, o.box_len, sizeof b->len) || memcmp(b->tilt, o.box_tilt, sizeof b->tilt);
    memcpy(b->lo, o.box_lo, sizeof b->lo), memcpy(b->len, o.box_len, sizeof b->len);
    memcpy(b->tilt, o.box_tilt, sizeof b->tilt);
    if (moved)
        box_to_cell(b, e->rot, e->cell);
    for (size_t i = 0; i < e->s.n; i++) {
        const double p[3] = {f.x[i], f.y[i], f.z[i]}, v[3] = {f.vx[i], f.vy[i], f.vz[i]};
        const int32_t im[3] = {f.ix[i], f.iy[i], f.iz[i]};
        double u[3];
        box_unwrap(b, p, im, u);
        rotate(e->rot, u, e->pos + 3 * i, 1);
        rotate(e->rot, v, e->vel + 3 * i, 1);
    }
    e->host_stale = 0;
    return MDL_OK;
}

int engine_positions(mdl_engine *e, double *out)
{
    MDL_TRY(pull(e));
    memcpy(out, e->pos, 3 * e->s.n * sizeof *out);
    return MDL_OK;
}

int engine_cell(mdl_engine *e, double cell[9])
{
    MDL_TRY(pull(e));
    memcpy(cell, e->cell, sizeof e->cell);
    return MDL_OK;
}

int engine_velocities(mdl_engine *e, double *out)
{
    MDL_TRY(pull(e));
    memcpy(out, e->vel, 3 * e->s.n * sizeof *out);
    return MDL_OK;
}

int engine_set_positions(mdl_engine *e, const double *xyz)
{
    MDL_TRY(check_finite(xyz, 3 * e->s.n, "positions"));
    MDL_TRY(pull(e));
    memcpy(e->pos, xyz, 3 * e->s.n * sizeof *xyz);
    if (e->pending == ENGINE_IN_STEP)
        e->pending = ENGINE_MOVED;
    e->evaluated = e->forces_read = 0;
    return MDL_OK;
}

int engine_set_velocities(mdl_engine *e, const double *v)
{
    MDL_TRY(check_finite(v, 3 * e->s.n, "velocities"));
    MDL_TRY(pull(e));
    memcpy(e->vel, v, 3 * e->s.n * sizeof *v);
    e->pending = ENGINE_REMADE;
    return MDL_OK;
}

int engine_set_cell(mdl_engine *e, const double cell[9], int scale)
{
    mdl_box b = e->s.box;
    double rot[3][3];
    MDL_TRY(cell_to_box(cell, &b, rot));
    MDL_TRY(pull(e));
    if (scale) { /* fractions of the old cell's edges, onto the new ones */
        double inv[3][3], m[3][3];
        for (int k = 0; k < 9; k++)
            m[k / 3][k % 3] = e->cell[k];
        const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                inv[c][r] = (m[(r + 1) % 3][(c + 1) % 3] * m[(r + 2) % 3][(c + 2) % 3] -
                             m[(r + 1) % 3][(c + 2) % 3] * m[(r + 2) % 3][(c + 1) % 3]) / det;
        for (size_t i = 0; i < e->s.n; i++) {
            double f[3], *p = e->pos + 3 * i;
            for (int d = 0; d < 3; d++)
                f[d] = p[0] * inv[0][d] + p[1] * inv[1][d] + p[2] * inv[2][d];
            for (int d = 0; d < 3; d++)
                p[d] = f[0] * cell[d] + f[1] * cell[3 + d] + f[2] * cell[6 + d];
        }
    }
    e->s.box = b;
    memcpy(e->rot, rot, sizeof rot);
    memcpy(e->cell, cell, sizeof e->cell);
    e->pending = ENGINE_REMADE;
    return MDL_OK;
}

int engine_set_types(mdl_engine *e, const int *types)
{
    for (size_t i = 0; i < e->s.n; i++)
        if (types[i] < 0 || types[i] >= e->s.ntypes) {
            mdl_error("types: atom %zu's is %d (species are 0 to %d)", i, types[i], e->s.ntypes - 1);
            return MDL_EINPUT;
        }
    MDL_TRY(pull(e));
    for (size_t i = 0; i < e->s.n; i++)
        e->s.type[i] = types[i];
    e->pending = ENGINE_REMADE;
    return MDL_OK;
}

/* Forces, energy and virial of the positions now, computed where they are not. */
static int evaluate(mdl_engine *e)
{
    MDL_TRY(push(e));
    if (e->evaluated)
        return MDL_OK;
    MDL_TRY(e->ops->compute_forces(e->ctx, MDL_FORCES_ENERGY));
    MDL_TRY(backend_observe(e->ops, e->ctx, &e->obs));
    if (!isfinite(e->obs.potential) || !isfinite(e->obs.virial)) {
        mdl_error("the potential energy or virial of these positions is not finite (atoms on top of each other?)");
        return MDL_ERUN;
    }
    if (ensemble_info(e->cfg.ensemble)->action == MDL_ACT_FORCE) /* its force is added again before a step */
        e->stepper_ready = 0;
    e->evaluated = 1, e->forces_read = 0;
    return MDL_OK;
}

int engine_energy(mdl_engine *e, double *energy)
{
    MDL_TRY(evaluate(e));
    *energy = e->obs.potential;
    return MDL_OK;
}

int engine_forces(mdl_engine *e, double *out)
{
    MDL_TRY(evaluate(e));
    if (!e->forces_read) {
        mdl_system f;
        mdl_observables o;
        MDL_TRY(snapshot(e, MDL_DUMP_FORCE, &f, &o));
        for (size_t i = 0; i < e->s.n; i++) {
            const double v[3] = {f.fx[i], f.fy[i], f.fz[i]};
            rotate(e->rot, v, e->force + 3 * i, 1);
        }
        e->forces_read = 1;
    }
    memcpy(out, e->force, 3 * e->s.n * sizeof *out);
    return MDL_OK;
}

int engine_virial(mdl_engine *e, double w[6])
{
    MDL_TRY(evaluate(e));
    if (!e->ops->pressure_tensor) {
        mdl_error("the virial tensor: the %s backend computes its trace alone (the CPU backend has the tensor)",
                  e->ops->name);
        return MDL_EINPUT;
    }
    double kinetic[6], v[6];
    MDL_TRY(e->ops->pressure_tensor(e->ctx, kinetic, v));
    const double t[3][3] = {{v[0], v[3], v[4]}, {v[3], v[1], v[5]}, {v[4], v[5], v[2]}};
    double u[3][3]; /* R^T t R */
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            u[a][b] = 0;
            for (int c = 0; c < 3; c++)
                for (int d = 0; d < 3; d++)
                    u[a][b] += e->rot[c][a] * t[c][d] * e->rot[d][b];
        }
    w[0] = u[0][0], w[1] = u[1][1], w[2] = u[2][2], w[3] = u[0][1], w[4] = u[0][2], w[5] = u[1][2];
    return MDL_OK;
}

int engine_atom_energies(mdl_engine *e, double *out)
{
    MDL_TRY(evaluate(e));
    if (!e->ops->atom_energies) {
        mdl_error("per-atom energies: the %s backend has none (the CPU backend has them)", e->ops->name);
        return MDL_EINPUT;
    }
    return e->ops->atom_energies(e->ctx, out);
}

int engine_observe(mdl_engine *e, mdl_observables *o)
{
    MDL_TRY(evaluate(e));
    MDL_TRY(backend_observe(e->ops, e->ctx, &e->obs)); /* the kinetic energy of the velocities now */
    *o = e->obs;
    return MDL_OK;
}

int engine_step(mdl_engine *e, long nsteps)
{
    MDL_TRY(push(e));
    if (!e->stepper_ready) {
        e->st = (mdl_stepper){.ops = e->ops, .ctx = e->ctx, .cfg = &e->cfg, .units = &e->u, .natoms = e->s.n,
                              .thermostat_state = e->nh_n ? e->nh_state : NULL, .nstate = e->nh_n,
                              .run_begin = 0, .run_end = e->cfg.steps}; /* a moving target: over steps 0 to steps */
        MDL_TRY(stepper_setup(&e->st, e->step, 0));
        e->stepper_ready = e->evaluated = 1, e->forces_read = 0;
    }
    for (long k = 1; k <= nsteps; k++) {
        const int last = k == nsteps;
        e->step++;
        e->host_stale = 1, e->evaluated = 0, e->forces_read = 0;
        MDL_TRY(stepper_advance(&e->st, e->step, last, !last));
    }
    MDL_TRY(stepper_check_health(&e->st, e->step));
    MDL_TRY(backend_observe(e->ops, e->ctx, &e->obs));
    if (!isfinite(e->obs.potential) || !isfinite(e->obs.kinetic))
        return stepper_unhealthy(&e->st, e->step, !isfinite(e->obs.potential) ? "potential energy" : "kinetic energy");
    e->evaluated = 1;
    if (config_nose_hoover(e->cfg.ensemble)) /* carried over a remade backend */
        MDL_TRY(thermostat_state(&e->st.thermostat, e->ops, e->ctx, e->nh_state, &e->nh_n));
    return MDL_OK;
}

int engine_minimize(mdl_engine *e, int style, double etol, double ftol, long maxiter, long maxeval)
{
    MDL_TRY(push(e));
    mdl_config m = e->cfg; /* a view: its keys' memory stays e->cfg's */
    m.ensemble = MDL_MINIMIZE, m.min_style = style, m.etol = etol, m.ftol = ftol, m.steps = maxiter;
    m.maxeval = maxeval, m.thermo = 0, m.nstages = 0;
    run_state r;
    memset(&r, 0, sizeof r);
    r.ops = e->ops, r.ctx = e->ctx, r.cfg = r.base = &m, r.units = &e->u, r.snap = e->s, r.natoms = e->s.n;
    r.quiet = 1, r.nranks = 1, r.first_step = e->step, r.data_slot = 0;
    e->host_stale = 1, e->stepper_ready = 0, e->evaluated = e->forces_read = 0;
    MDL_TRY(minimize_stage(&r));
    e->step = r.final_step;
    MDL_TRY(backend_observe(e->ops, e->ctx, &e->obs));
    e->evaluated = 1;
    return MDL_OK;
}

int engine_write_data(mdl_engine *e, const char *path)
{
    MDL_TRY(push(e));
    mdl_system f;
    mdl_observables o;
    MDL_TRY(snapshot(e, MDL_DUMP_POSITION | MDL_DUMP_VELOCITY | MDL_DUMP_IMAGE, &f, &o));
    memcpy(f.box.lo, o.box_lo, sizeof f.box.lo), memcpy(f.box.len, o.box_len, sizeof f.box.len);
    memcpy(f.box.tilt, o.box_tilt, sizeof f.box.tilt);
    return write_data_file(path, &f, e->cfg.units, e->step);
}

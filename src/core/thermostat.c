/* The thermostat policy: the core turns the configured ensemble into calls of the backends'
   primitives (langevin, scale_to_temperature) at the right stage and step; Nose-Hoover's chain
   is integrated here, on the temperature the backend reports. */
#include "thermostat.h"

#include "../util/util.h"

#include <math.h>
#include <string.h>

void thermostat_init(mdl_thermostat *t, const mdl_config *cfg, const mdl_units *u, size_t natoms)
{
    memset(t, 0, sizeof *t);
    t->ensemble = cfg->ensemble;
    t->target = cfg->target_temperature;
    t->coupling = cfg->ensemble == MDL_NVT_BERENDSEN ? cfg->timestep / cfg->tau : 1.0;
    t->every = cfg->every;
    t->seed = cfg->seed;
    t->langevin = (mdl_langevin){cfg->target_temperature, cfg->tau, cfg->timestep, u->boltz, u->mvv2e, u->ftm2v};
    t->nh.chain = cfg->chain;
    t->nh.tdof = 3.0 * (double)natoms - 3.0; /* as mdl_temperature counts them */
    t->nh.boltz = u->boltz;
    t->nh.t_freq = cfg->tau > 0 ? 1.0 / cfg->tau : 0.0;
    t->nh.dt = cfg->timestep;
}

/* The chain's masses at temperature `target` (LAMMPS recomputes them at every half step; every
   product here is in LAMMPS's order, so that the two agree to the last bits). */
static void nh_masses(mdl_nose_hoover *nh, double target)
{
    nh->eta_mass[0] = nh->tdof * nh->boltz * target / (nh->t_freq * nh->t_freq);
    for (int k = 1; k < nh->chain; k++)
        nh->eta_mass[k] = nh->boltz * target / (nh->t_freq * nh->t_freq);
}

int thermostat_setup(mdl_thermostat *t, const mdl_backend_ops *ops, void *ctx, const double *state, int nstate)
{
    if (t->ensemble != MDL_NVT_NOSE_HOOVER)
        return MDL_OK;
    mdl_nose_hoover *nh = &t->nh;
    const int m = nh->chain;
    if (state && nstate == 1 + 2 * m && (int)state[0] == m)
        for (int k = 0; k < m; k++)
            nh->eta[k] = state[1 + k], nh->eta_dot[k] = state[1 + m + k];
    mdl_observables o;
    MDL_TRY(backend_observe(ops, ctx, &o));
    nh->t_current = o.temperature;
    nh_masses(nh, t->target);
    for (int k = 1; k < m; k++)
        nh->eta_dotdot[k] = (nh->eta_mass[k - 1] * nh->eta_dot[k - 1] * nh->eta_dot[k - 1] - nh->boltz * t->target) /
                            nh->eta_mass[k];
    return MDL_OK;
}

/* Half a step of the chain (LAMMPS fix_nh's nhc_temp_integrate, one loop, no drag) on the
   temperature it last saw; returns the factor it scales the velocities by (and t_current by its
   square). */
static double nh_half_step(mdl_nose_hoover *nh, double target)
{
    const int m = nh->chain;
    const double dthalf = 0.5 * nh->dt, dt4 = 0.25 * nh->dt, dt8 = 0.125 * nh->dt;
    const double kt = nh->boltz * target, ke_target = nh->tdof * nh->boltz * target;
    double *v = nh->eta_dot, *a = nh->eta_dotdot;
    const double *q = nh->eta_mass;
    nh_masses(nh, target);
    a[0] = q[0] > 0 ? (nh->tdof * nh->boltz * nh->t_current - ke_target) / q[0] : 0.0;
    for (int k = m - 1; k > 0; k--) {
        const double e = exp(-dt8 * v[k + 1]);
        v[k] = (v[k] * e + a[k] * dt4) * e;
    }
    const double e0 = exp(-dt8 * v[1]);
    v[0] = (v[0] * e0 + a[0] * dt4) * e0;
    const double factor = exp(-dthalf * v[0]);
    nh->t_current *= factor * factor;
    a[0] = q[0] > 0 ? (nh->tdof * nh->boltz * nh->t_current - ke_target) / q[0] : 0.0;
    for (int k = 0; k < m; k++)
        nh->eta[k] += dthalf * v[k];
    v[0] = (v[0] * e0 + a[0] * dt4) * e0;
    for (int k = 1; k < m; k++) {
        const double e = exp(-dt8 * v[k + 1]);
        v[k] *= e;
        a[k] = (q[k - 1] * v[k - 1] * v[k - 1] - kt) / q[k];
        v[k] = (v[k] + a[k] * dt4) * e;
    }
    return factor;
}

int thermostat_acts(const mdl_thermostat *t, long step, int stage)
{
    if (t->ensemble == MDL_NVT_NOSE_HOOVER)
        return stage == MDL_THERMOSTAT_START_OF_STEP || stage == MDL_THERMOSTAT_END_OF_STEP;
    if (stage == MDL_THERMOSTAT_POST_FORCE)
        return t->ensemble == MDL_NVT_LANGEVIN;
    if (stage != MDL_THERMOSTAT_END_OF_STEP)
        return 0;
    return t->ensemble == MDL_NVT_BERENDSEN || (t->ensemble == MDL_NVT_RESCALE && step % t->every == 0);
}

/* Nose-Hoover's half step: at the end of a step on the temperature the backend reports now, at
   the start on the one the chain kept (as LAMMPS's final and initial integrations); the velocities
   scaled to the temperature the chain leaves. */
static int nose_hoover(mdl_thermostat *t, const mdl_backend_ops *ops, void *ctx, int stage)
{
    mdl_nose_hoover *nh = &t->nh;
    if (stage == MDL_THERMOSTAT_END_OF_STEP) {
        mdl_observables o;
        MDL_TRY(backend_observe(ops, ctx, &o));
        nh->t_current = o.temperature;
    }
    nh_half_step(nh, t->target); /* the chain moves even with the atoms at rest, as LAMMPS's does */
    return nh->t_current > 0 ? ops->scale_to_temperature(ctx, nh->t_current, 1.0) : MDL_OK;
}

int thermostat_apply(mdl_thermostat *t, const mdl_backend_ops *ops, void *ctx, long step, int stage)
{
    if (!thermostat_acts(t, step, stage))
        return MDL_OK;
    if (t->ensemble == MDL_NVT_NOSE_HOOVER)
        return nose_hoover(t, ops, ctx, stage);
    if (stage == MDL_THERMOSTAT_POST_FORCE)
        return ops->langevin(ctx, &t->langevin, t->seed, step);
    return ops->scale_to_temperature(ctx, t->target, t->coupling);
}

double thermostat_energy(const mdl_thermostat *t)
{
    if (t->ensemble != MDL_NVT_NOSE_HOOVER)
        return 0.0;
    const mdl_nose_hoover *nh = &t->nh;
    const double kt = nh->boltz * t->target, ke_target = nh->tdof * nh->boltz * t->target;
    double e = ke_target * nh->eta[0] + 0.5 * nh->eta_mass[0] * nh->eta_dot[0] * nh->eta_dot[0];
    for (int k = 1; k < nh->chain; k++)
        e += kt * nh->eta[k] + 0.5 * nh->eta_mass[k] * nh->eta_dot[k] * nh->eta_dot[k];
    return e;
}

int thermostat_state(const mdl_thermostat *t, double *out)
{
    if (t->ensemble != MDL_NVT_NOSE_HOOVER)
        return 0;
    const int m = t->nh.chain;
    out[0] = m;
    for (int k = 0; k < m; k++)
        out[1 + k] = t->nh.eta[k], out[1 + m + k] = t->nh.eta_dot[k];
    return 1 + 2 * m;
}

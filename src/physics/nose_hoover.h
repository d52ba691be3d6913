/* Nose-Hoover chains and the MTK barostat, written once for host C and CUDA: LAMMPS's fix nvt and
   fix npt ... iso (fix_nh: tchain/pchain M, tloop/ploop 1, drag 0, mtk yes, dilate all about the
   box centre), their half steps in LAMMPS's order and arithmetic. The backend that owns the atoms
   owns this state too (the CPU in host memory, the GPU in device memory): it feeds in the
   temperature and the virial it has, and scales velocities and the box by the factors it gets. */
#ifndef MDL_PHYSICS_NOSE_HOOVER_H
#define MDL_PHYSICS_NOSE_HOOVER_H

#include "hd.h"
#include "ramp.h"

#include <math.h>

#define MDL_MAX_CHAIN 16 /* thermostats in a chain at most */
/* The state a checkpoint keeps: M, eta[M], eta_dot[M], then with a barostat P, omega, omega_dot,
   vol0, etap[P], etap_dot[P] and, where kept, the box's upper faces and fixed point (3 + 3). */
#define MDL_NH_STATE (1 + 2 * MDL_MAX_CHAIN + 4 + 2 * MDL_MAX_CHAIN + 6)

typedef struct {
    /* constants */
    int tchain, pchain;  /* thermostats on the atoms, on the barostat */
    int barostat;        /* 1: isotropic pressure coupling (npt), 0: none (nvt) */
    double dt, boltz, nktv2p;
    double tdof, natoms; /* 3N - 3 degrees of freedom (as mdl_temperature counts them); N */
    double t_target, t_freq; /* target temperature (now: nh_target_at); 1 / tau */
    mdl_ramp t_ramp;     /* the target over the run (LAMMPS's Tstart Tstop) */
    double p_target, p_freq; /* target pressure; 1 / pressure_tau */
    /* the thermostat chain (eta_dot[M] = 0) */
    double eta[MDL_MAX_CHAIN], eta_dot[MDL_MAX_CHAIN + 1], eta_dotdot[MDL_MAX_CHAIN], eta_mass[MDL_MAX_CHAIN];
    /* the barostat: the box's log-strain rate omega_dot, its mass; the barostat's own chain */
    double omega, omega_dot, omega_mass, mtk_term2, vol0;
    double etap[MDL_MAX_CHAIN], etap_dot[MDL_MAX_CHAIN + 1], etap_dotdot[MDL_MAX_CHAIN], etap_mass[MDL_MAX_CHAIN];
    double t_current;    /* the temperature the chain last saw, scaled with the velocities */
    double virial;       /* sum r.f of the last force call (the pressure's) */
    double ptail;        /* the pair potential's tail correction: P += ptail / V^2 (mdl_finish_observables) */
    /* the box's upper faces and the dilation's fixed point as the barostat keeps them (LAMMPS's boxhi
       and fixedpoint; from lo + len they round otherwise), where box_hi_set: a restart's, the CPU's */
    double box_hi[3], box_centre[3];
    int box_hi_set;
} mdl_nh;

/* What a half step asks of the atoms: scale every velocity by vscale; with a barostat, the box
   (and every position, about the box centre) by boxscale before and again after the drift. */
typedef struct {
    double vscale, boxscale;
} mdl_nh_factors;

/* The masses (LAMMPS's setup: the chain's from the target, tau and the degrees of freedom; the
   barostat's from (N + 1) kT and pressure_tau, kT of the run's first target, which they keep), and
   the chains' forces from their velocities. */
static inline MDL_HD void nh_setup(mdl_nh *nh, double t_current)
{
    const double kt = nh->boltz * nh->t_target, kt0 = nh->boltz * nh->t_ramp.start;
    nh->t_current = t_current;
    nh->eta_mass[0] = nh->tdof * nh->boltz * nh->t_target / (nh->t_freq * nh->t_freq);
    for (int k = 1; k < nh->tchain; k++)
        nh->eta_mass[k] = nh->boltz * nh->t_target / (nh->t_freq * nh->t_freq);
    for (int k = 1; k < nh->tchain; k++)
        nh->eta_dotdot[k] = (nh->eta_mass[k - 1] * nh->eta_dot[k - 1] * nh->eta_dot[k - 1] - kt) / nh->eta_mass[k];
    nh->eta_dot[nh->tchain] = 0.0;
    if (!nh->barostat)
        return;
    nh->omega_mass = (nh->natoms + 1) * kt0 / (nh->p_freq * nh->p_freq);
    for (int k = 0; k < nh->pchain; k++)
        nh->etap_mass[k] = kt0 / (nh->p_freq * nh->p_freq);
    for (int k = 1; k < nh->pchain; k++)
        nh->etap_dotdot[k] = (nh->etap_mass[k - 1] * nh->etap_dot[k - 1] * nh->etap_dot[k - 1] - kt) / nh->etap_mass[k];
    nh->etap_dot[nh->pchain] = 0.0;
}

/* Half a step of a chain x (velocities v, forces a, masses q, length m) whose first thermostat
   is driven by f0(ke) = (ke - ke0) / q[0]: the outer half steps of the tail, the first, the
   positions, and back (LAMMPS's nhc_temp_integrate and nhc_press_integrate, one loop, no drag).
   *ke is the kinetic energy the chain acts on; it returns the factor that energy's velocities
   are scaled by (*ke by its square). */
static inline MDL_HD double nh_chain_half(int m, double *x, double *v, double *a, const double *q, double *ke,
                                          double ke0, double kt, double dt)
{
    const double dthalf = 0.5 * dt, dt4 = 0.25 * dt, dt8 = 0.125 * dt;
    a[0] = q[0] > 0 ? (*ke - ke0) / q[0] : 0.0;
    for (int k = m - 1; k > 0; k--) {
        const double e = exp(-dt8 * v[k + 1]);
        v[k] = (v[k] * e + a[k] * dt4) * e;
    }
    const double e0 = exp(-dt8 * v[1]);
    v[0] = (v[0] * e0 + a[0] * dt4) * e0;
    const double factor = exp(-dthalf * v[0]);
    *ke *= factor * factor;
    a[0] = q[0] > 0 ? (*ke - ke0) / q[0] : 0.0;
    for (int k = 0; k < m; k++)
        x[k] += dthalf * v[k];
    v[0] = (v[0] * e0 + a[0] * dt4) * e0;
    for (int k = 1; k < m; k++) {
        const double e = exp(-dt8 * v[k + 1]);
        v[k] *= e;
        a[k] = (q[k - 1] * v[k - 1] * v[k - 1] - kt) / q[k];
        v[k] = (v[k] + a[k] * dt4) * e;
    }
    return factor;
}

/* The target at step `step` (LAMMPS's compute_temp_target, at the start of each step). */
static inline MDL_HD void nh_target_at(mdl_nh *nh, uint64_t step)
{
    if (nh->t_ramp.stop != nh->t_ramp.start) /* a fixed target stays as set (ramp_value's start exactly) */
        nh->t_target = ramp_value(&nh->t_ramp, step);
}

/* The thermostat chain's half step on t_current; returns the velocities' factor. Its masses follow
   the target (LAMMPS's eta_mass_flag: the chain's frequency kept as the target moves). */
static inline MDL_HD double nh_temp_half(mdl_nh *nh)
{
    if (nh->t_ramp.stop != nh->t_ramp.start) { /* a fixed target's are nh_setup's */
        nh->eta_mass[0] = nh->tdof * nh->boltz * nh->t_target / (nh->t_freq * nh->t_freq);
        for (int k = 1; k < nh->tchain; k++)
            nh->eta_mass[k] = nh->boltz * nh->t_target / (nh->t_freq * nh->t_freq);
    }
    double ke = nh->tdof * nh->boltz * nh->t_current;
    const double factor = nh_chain_half(nh->tchain, nh->eta, nh->eta_dot, nh->eta_dotdot, nh->eta_mass, &ke,
                                        nh->tdof * nh->boltz * nh->t_target, nh->boltz * nh->t_target, nh->dt);
    nh->t_current *= factor * factor;
    return factor;
}

/* The barostat chain's half step, on twice the barostat's kinetic energy (three equal strain
   rates); it scales omega_dot. Its first thermostat's target is kT (LAMMPS's iso). */
static inline MDL_HD void nh_press_half(mdl_nh *nh)
{
    const double kt = nh->boltz * nh->t_target;
    double ke = 0.0;
    for (int d = 0; d < 3; d++)
        ke += nh->omega_mass * nh->omega_dot * nh->omega_dot;
    nh->omega_dot *= nh_chain_half(nh->pchain, nh->etap, nh->etap_dot, nh->etap_dotdot, nh->etap_mass, &ke, kt, kt,
                                   nh->dt);
}

/* The pressure of temperature t and the stored virial in volume v (LAMMPS's compute pressure). */
static inline MDL_HD double nh_pressure(const mdl_nh *nh, double t, double volume)
{
    return ((nh->tdof * nh->boltz * t + nh->virial) / 3.0 * (1.0 / volume) + nh->ptail / (volume * volume)) *
           nh->nktv2p;
}

/* Half a step of the barostat's velocity (LAMMPS's nh_omega_dot, iso, mtk yes), and the MTK term
   the velocities' factor carries. */
static inline MDL_HD void nh_omega_half(mdl_nh *nh, double volume)
{
    const double p = nh_pressure(nh, nh->t_current, volume);
    const double mtk1 = nh->tdof * nh->boltz * nh->t_current / (3 * nh->natoms);
    const double f = (p - nh->p_target) * volume / (nh->omega_mass * nh->nktv2p) + mtk1 / nh->omega_mass;
    nh->omega_dot += f * (0.5 * nh->dt);
    nh->mtk_term2 = (nh->omega_dot + nh->omega_dot + nh->omega_dot) / (3 * nh->natoms);
}

/* The barostat's half-step factor of the velocities (applied twice in a half step). */
static inline MDL_HD double nh_press_factor(const mdl_nh *nh)
{
    return exp(-0.25 * nh->dt * (nh->omega_dot + nh->mtk_term2));
}

/* Before the first half kick of step `step` (LAMMPS's initial_integrate up to nve_v): the
   barostat's chain, the step's target, the thermostat's chain, the barostat; the box's half-step factor for the drift's
   two remaps. */
static inline MDL_HD mdl_nh_factors nh_start_of_step(mdl_nh *nh, double volume, uint64_t step)
{
    mdl_nh_factors out = {1.0, 1.0};
    if (nh->barostat) /* on the last step's target, as LAMMPS's nhc_press_integrate comes first */
        nh_press_half(nh);
    nh_target_at(nh, step);
    out.vscale = nh_temp_half(nh);
    if (!nh->barostat)
        return out;
    nh_omega_half(nh, volume);
    const double fp = nh_press_factor(nh);
    out.vscale *= fp * fp;
    out.boxscale = exp(0.5 * nh->dt * nh->omega_dot);
    nh->omega += nh->dt * nh->omega_dot; /* two remaps of half a step (LAMMPS's book-keeping) */
    return out;
}

/* After the second half kick, from the kinetic temperature t_kick of the kicked velocities
   (LAMMPS's final_integrate): the barostat's velocity factor, the barostat on the new virial,
   the thermostat's chain, the barostat's chain. */
static inline MDL_HD mdl_nh_factors nh_end_of_step(mdl_nh *nh, double t_kick, double volume)
{
    mdl_nh_factors out = {1.0, 1.0};
    double fp = nh->barostat ? nh_press_factor(nh) : 1.0;
    nh->t_current = t_kick * (fp * fp) * (fp * fp);
    if (nh->barostat)
        nh_omega_half(nh, volume);
    out.vscale = fp * fp * nh_temp_half(nh);
    if (nh->barostat)
        nh_press_half(nh);
    return out;
}

/* Why a barostat's box (edges len) is one the run cannot go on with: 1, its volume past 10 times or
   under a tenth of volume0; 2 + d, edge d under twice the list cutoff rlist where it takes the
   minimum image (not an axis of `ghosted`, bit d: ghosts are its images; the CPU passes rlist 0:
   its ghosts take any edge, and a NaN edge still fails); 0: neither. The health check says which
   (barostat_runaway). */
static inline MDL_HD int nh_box_unfit(const double len[3], double volume0, double rlist, int ghosted)
{
    const double ratio = len[0] * len[1] * len[2] / volume0;
    if (!(ratio <= 10 && ratio >= 0.1))
        return 1;
    for (int d = 0; d < 3; d++)
        if (!(len[d] >= (ghosted >> d & 1 ? 0.0 : 2 * rlist)))
            return 2 + d;
    return 0;
}

/* The box [lo, hi) scaled by e about the fixed point c on every axis (LAMMPS's remap keeps lo and
   hi; len = hi - lo). A triclinic box's tilts scale with it (nh_scale_tilts). */
static inline MDL_HD void nh_scale_box(double lo[3], double hi[3], double len[3], const double c[3], double e)
{
    for (int d = 0; d < 3; d++) {
        lo[d] = (lo[d] - c[d]) * e + c[d];
        hi[d] = (hi[d] - c[d]) * e + c[d];
        len[d] = hi[d] - lo[d];
    }
}

/* A triclinic box's tilts scaled with its edges (fix npt's default scalexy, scalexz, scaleyz yes:
   xy by y's factor, xz and yz by z's; iso's factors are one). */
static inline MDL_HD void nh_scale_tilts(double tilt[3], double e)
{
    tilt[0] *= e, tilt[1] *= e, tilt[2] *= e;
}

/* A coordinate carried from a box edge lo (inv = 1 / its length) to the same fraction of the
   edge [lo2, lo2 + len2) (LAMMPS's x2lamda and lamda2x). */
static inline MDL_HD double nh_remap(double x, double lo, double inv, double lo2, double len2)
{
    return len2 * (inv * (x - lo)) + lo2;
}

/* The energy the chains and the barostat hold (LAMMPS's ecouple), a total in energy units. The
   barostat chain's first thermostat counts kT per unit of etap[0], the target its half steps drive
   the barostat's one degree of freedom to; LAMMPS 29Sep2021 counts 3 kT there, so that its sum
   drifts with etap[0] (4,000 atoms, 15,000 steps: 3.6e-3 per atom; with kT 8.6e-5). */
static inline MDL_HD double nh_energy(const mdl_nh *nh, double volume)
{
    const double kt = nh->boltz * nh->t_target;
    double e = nh->tdof * kt * nh->eta[0] + 0.5 * nh->eta_mass[0] * nh->eta_dot[0] * nh->eta_dot[0];
    for (int k = 1; k < nh->tchain; k++)
        e += kt * nh->eta[k] + 0.5 * nh->eta_mass[k] * nh->eta_dot[k] * nh->eta_dot[k];
    if (!nh->barostat)
        return e;
    for (int d = 0; d < 3; d++)
        e += 0.5 * nh->omega_dot * nh->omega_dot * nh->omega_mass + nh->p_target * (volume - nh->vol0) / (3 * nh->nktv2p);
    e += kt * nh->etap[0] + 0.5 * nh->etap_mass[0] * nh->etap_dot[0] * nh->etap_dot[0];
    for (int k = 1; k < nh->pchain; k++)
        e += kt * nh->etap[k] + 0.5 * nh->etap_mass[k] * nh->etap_dot[k] * nh->etap_dot[k];
    return e;
}

/* The state a checkpoint keeps (MDL_NH_STATE values at most); returns how many. */
static inline int nh_pack(const mdl_nh *nh, double *out)
{
    int n = 0, m = nh->tchain, p = nh->pchain;
    out[n++] = m;
    for (int k = 0; k < m; k++)
        out[n++] = nh->eta[k];
    for (int k = 0; k < m; k++)
        out[n++] = nh->eta_dot[k];
    if (!nh->barostat)
        return n;
    out[n++] = p, out[n++] = nh->omega, out[n++] = nh->omega_dot, out[n++] = nh->vol0;
    for (int k = 0; k < p; k++)
        out[n++] = nh->etap[k];
    for (int k = 0; k < p; k++)
        out[n++] = nh->etap_dot[k];
    for (int d = 0; d < 3 && nh->box_hi_set; d++) /* the upper faces and fixed point, where kept (the CPU's) */
        out[n++] = nh->box_hi[d];
    for (int d = 0; d < 3 && nh->box_hi_set; d++)
        out[n++] = nh->box_centre[d];
    return n;
}

/* Whether in[0, n) (finite values) has nh_pack's layout: chain lengths whole numbers in 1 ..
   MDL_MAX_CHAIN, as many values as they call for, a positive reference volume; *m and *p the
   lengths (*p 0: no barostat). Checked before nh_unpack casts them. */
static inline int nh_state_valid(const double *in, int n, int *m, int *p)
{
    *m = *p = 0;
    if (n < 3 || !(in[0] >= 1 && in[0] <= MDL_MAX_CHAIN) || in[0] != (double)(int)in[0])
        return 0;
    *m = (int)in[0];
    const int base = 1 + 2 * *m;
    if (n == base)
        return 1;
    const double *b = in + base;
    if (n < base + 4 || !(b[0] >= 1 && b[0] <= MDL_MAX_CHAIN) || b[0] != (double)(int)b[0] || !(b[3] > 0))
        return 0;
    *p = (int)b[0];
    return n == base + 4 + 2 * *p || n == base + 10 + 2 * *p; /* the faces and fixed point, where kept */
}

/* A checkpoint's state (nh_pack's layout, n values) into nh: the thermostat chain when its length
   is this run's, the barostat when the checkpoint has one of this run's chain length; what does
   not match stays at rest. */
static inline void nh_unpack(mdl_nh *nh, const double *in, int n)
{
    const int m = n > 0 ? (int)in[0] : 0;
    if (m < 1 || m > MDL_MAX_CHAIN || n < 1 + 2 * m)
        return;
    if (m == nh->tchain)
        for (int k = 0; k < m; k++)
            nh->eta[k] = in[1 + k], nh->eta_dot[k] = in[1 + m + k];
    const double *b = in + 1 + 2 * m;
    const int p = n > 1 + 2 * m ? (int)b[0] : 0;
    const int faces = n == 1 + 2 * m + 10 + 2 * p;
    if (!nh->barostat || p != nh->pchain || (n != 1 + 2 * m + 4 + 2 * p && !faces))
        return;
    nh->omega = b[1], nh->omega_dot = b[2], nh->vol0 = b[3];
    for (int k = 0; k < p; k++)
        nh->etap[k] = b[4 + k], nh->etap_dot[k] = b[4 + p + k];
    for (int d = 0; d < 3 && faces; d++)
        nh->box_hi[d] = b[4 + 2 * p + d], nh->box_centre[d] = b[7 + 2 * p + d];
    nh->box_hi_set = faces;
}

#endif

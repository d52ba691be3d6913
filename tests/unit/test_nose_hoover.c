/* Nose-Hoover's chains and barostat (physics/nose_hoover.h): the checkpoint layout round-trips and
   refuses what does not match; the chains alone conserve their extended energy. */
#include "physics/nose_hoover.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

static mdl_nh make_nh(int tchain, int pchain, int barostat)
{
    mdl_nh nh;
    memset(&nh, 0, sizeof nh);
    nh.tchain = tchain, nh.pchain = pchain, nh.barostat = barostat;
    nh.dt = 0.005, nh.boltz = 1.0, nh.nktv2p = 1.0;
    nh.natoms = 1000, nh.tdof = 2997;
    nh.t_target = 1.0, nh.t_freq = 1.0 / 0.1;
    nh.t_ramp = (mdl_ramp){1.0, 1.0, 0, 0};
    nh.p_target = 0.5, nh.p_freq = 1.0 / 0.5;
    nh.virial = -800.0;
    nh_setup(&nh, 1.7);
    return nh;
}

/* a few steps with the atoms' temperature following the chains' factors only */
static void advance(mdl_nh *nh, double *t, double *volume, int steps)
{
    for (int k = 0; k < steps; k++) {
        mdl_nh_factors f = nh_start_of_step(nh, *volume, (uint64_t)k + 1);
        *t *= f.vscale * f.vscale;
        *volume *= f.boxscale * f.boxscale * f.boxscale * f.boxscale * f.boxscale * f.boxscale;
        f = nh_end_of_step(nh, *t, *volume);
        *t *= f.vscale * f.vscale;
    }
}

Test(nose_hoover, state_round_trips)
{
    for (int baro = 0; baro < 2; baro++) {
        mdl_nh a = make_nh(4, 2, baro);
        double t = 1.7, v = 1000.0;
        advance(&a, &t, &v, 50);
        double packed[MDL_NH_STATE];
        int n = nh_pack(&a, packed);
        cr_assert_eq(n, baro ? 1 + 2 * 4 + 4 + 2 * 2 : 1 + 2 * 4);
        mdl_nh b = make_nh(4, 2, baro);
        nh_unpack(&b, packed, n);
        for (int k = 0; k < 4; k++)
            cr_assert(b.eta[k] == a.eta[k] && b.eta_dot[k] == a.eta_dot[k]);
        if (baro) {
            cr_assert(b.omega_dot == a.omega_dot && b.omega == a.omega && b.vol0 == a.vol0);
            for (int k = 0; k < 2; k++)
                cr_assert(b.etap[k] == a.etap[k] && b.etap_dot[k] == a.etap_dot[k]);
        }
    }
}

Test(nose_hoover, mismatched_or_hostile_state_stays_at_rest)
{
    mdl_nh a = make_nh(3, 3, 1);
    double t = 1.7, v = 1000.0;
    advance(&a, &t, &v, 20);
    double packed[MDL_NH_STATE];
    int n = nh_pack(&a, packed);
    mdl_nh other = make_nh(2, 3, 1); /* another thermostat chain: that part stays at rest */
    nh_unpack(&other, packed, n);
    cr_assert(other.eta_dot[0] == 0 && other.omega_dot == a.omega_dot);
    mdl_nh pchain = make_nh(3, 1, 1); /* the thermostat matches, the barostat's chain does not */
    nh_unpack(&pchain, packed, n);
    cr_assert(pchain.eta_dot[0] == a.eta_dot[0] && pchain.omega_dot == 0);
    const double hostile[][3] = {{NAN, 0, 0}, {1e9, 0, 0}, {-3, 0, 0}, {16, 0, 0}, {0, 0, 0}};
    for (size_t k = 0; k < sizeof hostile / sizeof hostile[0]; k++) {
        mdl_nh c = make_nh(3, 3, 1);
        nh_unpack(&c, hostile[k], 3);
        cr_assert(c.eta_dot[0] == 0 && c.eta[0] == 0 && c.omega_dot == 0);
    }
    mdl_nh d = make_nh(3, 3, 1);
    nh_unpack(&d, packed, 0);
    cr_assert(d.eta_dot[0] == 0);
}

/* Without forces the atoms' kinetic energy changes only by the chains' scaling: that energy plus
   the chains' (ecouple) is conserved to the splitting's error, O(dt^2) (halving dt divides the
   worst deviation over the same time by 4), and the temperature relaxes to the target. A wrong
   sign, mass, energy term or order of the half steps breaks one or the other. */
static double worst_deviation(double dt, double tau, double *mean_t)
{
    mdl_nh nh = make_nh(3, 3, 0);
    nh.dt = dt, nh.t_freq = 1.0 / tau;
    nh_setup(&nh, 1.7);
    double t = 1.7, v = 1000.0, worst = 0;
    const double e0 = 0.5 * nh.tdof * t + nh_energy(&nh, v);
    const int steps = (int)(100.0 / dt);
    *mean_t = 0;
    for (int k = 0; k < steps; k++) {
        advance(&nh, &t, &v, 1);
        worst = fmax(worst, fabs(0.5 * nh.tdof * t + nh_energy(&nh, v) - e0) / e0);
        if (k >= steps / 2)
            *mean_t += t / (steps - steps / 2);
    }
    return worst;
}

Test(nose_hoover, chains_alone_conserve_their_energy)
{
    double mean, mean2;
    const double w = worst_deviation(0.005, 0.5, &mean), w2 = worst_deviation(0.0025, 0.5, &mean2);
    cr_assert(w < 1e-5, "extended energy moves by %g (relative), dt 0.005, tau 0.5", w);
    cr_assert(w / w2 > 3.5 && w / w2 < 4.5, "halving dt divides the deviation by %g, not 4", w / w2);
    cr_assert(fabs(mean - 1.0) < 0.02 && fabs(mean2 - 1.0) < 0.02, "mean temperatures %g, %g; target 1", mean, mean2);
}

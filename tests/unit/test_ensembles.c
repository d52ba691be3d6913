/* The ensembles' registry (physics/ensembles.h): every line is whole (a scaling thermostat has a
   factor, a LAMMPS fix's arguments are words the converter reads, the [run] choices are the names in
   the enum's order) and the scaling units do what their fixes do. */
#include "physics/thermostat.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

Test(ensembles, every_scaling_thermostat_has_a_factor)
{
    for (int id = 0; id < MDL_NENSEMBLES; id++) {
        if (ensemble_info(id)->action != MDL_ACT_SCALE)
            continue;
        const mdl_scaling s = thermostat_scaling(id, (mdl_ramp){1.0, 1.0, 0, 100}, 0.005, 0.1, 12345, 0.0, 1);
        const double f = thermostat_factor(&s, 2.0, 3000.0, 7);
        cr_expect(f > 0 && f < 1, "%s: factor %g at twice its target", ensemble_info(id)->name, f);
    }
    const mdl_scaling none = thermostat_scaling(MDL_NVE, (mdl_ramp){1.0, 1.0, 0, 100}, 0.005, 0.1, 1, 0.0, 1);
    cr_expect_eq(thermostat_factor(&none, 2.0, 3000.0, 7), 1.0);
}

Test(ensembles, rescale_berendsen_csvr_factors)
{
    mdl_scaling s = thermostat_scaling(MDL_NVT_RESCALE, (mdl_ramp){1.0, 1.0, 0, 100}, 0.005, 0.1, 1, 0.0, 1);
    cr_expect_float_eq(thermostat_factor(&s, 2.0, 30, 0), sqrt(0.5), 1e-15);
    s = thermostat_scaling(MDL_NVT_RESCALE, (mdl_ramp){1.0, 1.0, 0, 100}, 0.005, 0.1, 1, 0.5, 1); /* inside its window: no scaling */
    cr_expect_eq(thermostat_factor(&s, 1.4, 30, 0), 1.0);
    cr_expect_float_eq(thermostat_factor(&s, 1.6, 30, 0), sqrt(1.0 / 1.6), 1e-15);
    s = thermostat_scaling(MDL_NVT_BERENDSEN, (mdl_ramp){1.0, 1.0, 0, 100}, 0.005, 0.1, 1, 0.0, 1); /* dt / tau = 0.05 of the way */
    cr_expect_float_eq(thermostat_factor(&s, 2.0, 30, 0), sqrt(1.0 + 0.05 * (0.5 - 1.0)), 1e-15);
    s = thermostat_scaling(MDL_NVT_CSVR, (mdl_ramp){1.0, 1.0, 0, 100000}, 0.005, 0.1, 1, 0.0, 1);
    cr_expect_float_eq(s.c1, exp(-0.05), 1e-15);
    /* csvr: keyed by the step (the same factor again), another step another factor; its mean kinetic
       energy after scaling moves toward the target's by 1 - c1 */
    cr_expect_eq(thermostat_factor(&s, 2.0, 300, 4), thermostat_factor(&s, 2.0, 300, 4));
    cr_expect_neq(thermostat_factor(&s, 2.0, 300, 4), thermostat_factor(&s, 2.0, 300, 5));
    double mean = 0;
    const int n = 20000;
    for (int k = 0; k < n; k++) {
        const double f = thermostat_factor(&s, 2.0, 300, (uint64_t)k);
        mean += 2.0 * f * f / n;
    }
    const double expect = 2.0 * s.c1 + 1.0 * (1 - s.c1);
    cr_expect(fabs(mean - expect) < 5e-4, "csvr: mean T after scaling %.6f, expected %.6f", mean, expect);
}

/* LAMMPS's Tstart Tstop: linear over the run, the start exactly where it does not move */
Test(ensembles, moving_target)
{
    const mdl_ramp up = {300.0, 1800.0, 1000, 2000};
    cr_expect_eq(ramp_value(&up, 1000), 300.0);
    cr_expect_float_eq(ramp_value(&up, 1250), 675.0, 1e-12);
    cr_expect_eq(ramp_value(&up, 2000), 1800.0);
    cr_expect_eq(ramp_value(&up, 2500), 1800.0); /* past the end: the last target */
    const mdl_ramp still = {0.1 + 0.2, 0.1 + 0.2, 0, 7};
    for (uint64_t k = 0; k <= 7; k++)
        cr_expect_eq(ramp_value(&still, k), 0.1 + 0.2);
    const mdl_ramp none = {2.0, 3.0, 5, 5}; /* a run of no steps */
    cr_expect_eq(ramp_value(&none, 5), 2.0);
    /* the scaling thermostats follow it: Berendsen at a step halfway scales toward 1.5 */
    const mdl_scaling b = thermostat_scaling(MDL_NVT_BERENDSEN, (mdl_ramp){1.0, 2.0, 0, 100}, 0.005, 0.1, 1, 0.0, 1);
    cr_expect_float_eq(thermostat_factor(&b, 1.2, 30, 50), sqrt(1.0 + 0.05 * (1.5 / 1.2 - 1.0)), 1e-15);
    const mdl_scaling r = thermostat_scaling(MDL_NVT_RESCALE, (mdl_ramp){1.0, 2.0, 0, 100}, 0.005, 0.1, 1, 0.0, 1);
    cr_expect_float_eq(thermostat_factor(&r, 1.2, 30, 100), sqrt(2.0 / 1.2), 1e-15);
}

Test(ensembles, lammps_arguments_are_words_the_converter_reads)
{
    static const char *const known[] = {"Tstart", "Tstop", "DAMP", "SEED", "N", "WINDOW"};
    for (int id = 0; id < MDL_NENSEMBLES; id++) {
        const mdl_ensemble_info *e = ensemble_info(id);
        if (!e->lammps_args)
            continue;
        char words[128];
        snprintf(words, sizeof words, "%s", e->lammps_args);
        int targets = 0;
        for (char *save = NULL, *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
            int ok = 0;
            for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
                ok |= !strcmp(w, known[k]);
            char *end;
            (void)strtod(w, &end);
            cr_expect(ok || (*end == '\0' && end != w), "%s: argument word '%s'", e->name, w);
            targets += !strcmp(w, "Tstart") + !strcmp(w, "Tstop");
            cr_expect(strcmp(w, "DAMP") || (e->reads & MDL_READS_TAU), "%s: DAMP without reading tau", e->name);
            cr_expect(strcmp(w, "N") || (e->reads & MDL_READS_EVERY), "%s: N without reading every", e->name);
            cr_expect(strcmp(w, "WINDOW") || (e->reads & MDL_READS_WINDOW), "%s: WINDOW without reading it", e->name);
        }
        cr_expect(targets == 0 || targets == 2, "%s: T start and stop", e->name);
        cr_expect(!e->lammps_args[0] || ensemble_of_lammps_thermostat(e->lammps_fix) == id, "%s: its fix %s",
                  e->name, e->lammps_fix);
    }
}

Test(ensembles, choices_are_the_names_in_order)
{
    char choices[512];
    snprintf(choices, sizeof choices, "%s", MDL_ENSEMBLE_CHOICES);
    int id = 0;
    for (char *save = NULL, *w = strtok_r(choices, "|", &save); w; w = strtok_r(NULL, "|", &save), id++)
        cr_expect_str_eq(w, ensemble_info(id)->name);
    cr_expect_eq(id, MDL_NENSEMBLES);
    cr_expect_null(ensemble_info(MDL_NENSEMBLES));
    for (int k = 0; k < MDL_NENSEMBLES; k++) {
        const int a = ensemble_info(k)->action, r = ensemble_reads(k);
        cr_expect(a == MDL_ACT_NONE || a == MDL_ACT_MINIMIZE || (r & MDL_READS_TARGET), "%s: a thermostat without "
                  "a target", ensemble_info(k)->name);
    }
}

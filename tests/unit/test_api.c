/* libmdlite's C interface: two handles at once, state in and out, evaluations that agree with each
   other and with a fresh handle, and every refusal (api_cases.h). */
#include "api_cases.h"

#include <criterion/criterion.h>
#include <stdlib.h>

Test(api, two_handles_live_apart)
{
    double pos[3 * API_ATOMS], cell[9], f[3 * API_ATOMS], e1, e2;
    int rc1, rc2;
    api_fcc(1.6796, pos, cell);
    mdlite_sim *a = api_lj(&rc1, pos, cell, NULL);
    api_fcc(1.60, pos, cell);
    mdlite_sim *b = api_lj(&rc2, pos, cell, NULL);
    cr_assert_eq(rc1, MDLITE_OK, "%s", mdlite_message(a));
    cr_assert_eq(rc2, MDLITE_OK, "%s", mdlite_message(b));
    cr_assert_eq(mdlite_energy(a, &e1), MDLITE_OK);
    cr_assert_eq(mdlite_energy(b, &e2), MDLITE_OK);
    cr_assert(e1 != e2, "two blocks of two densities: %g %g", e1, e2);
    cr_assert_eq(mdlite_step(a, 20), MDLITE_OK, "%s", mdlite_message(a));
    double again;
    cr_assert_eq(mdlite_energy(b, &again), MDLITE_OK);
    cr_assert_eq(again, e2, "b is untouched by a's steps");
    cr_assert_eq(mdlite_forces(b, f), MDLITE_OK);
    double sum[3] = {0, 0, 0};
    for (int i = 0; i < API_ATOMS; i++)
        for (int d = 0; d < 3; d++)
            sum[d] += f[3 * i + d];
    for (int d = 0; d < 3; d++)
        cr_assert(fabs(sum[d]) < 1e-10, "the forces sum to zero: %g", sum[d]);
    mdlite_free(a);
    mdlite_free(b);
}

Test(api, positions_in_and_out_and_a_fresh_handle_agrees)
{
    double pos[3 * API_ATOMS], cell[9], got[3 * API_ATOMS], f1[3 * API_ATOMS], f2[3 * API_ATOMS], e1, e2, per[API_ATOMS];
    int rc;
    api_fcc(1.6796, pos, cell);
    mdlite_sim *a = api_lj(&rc, pos, cell, NULL);
    for (int i = 0; i < 3 * API_ATOMS; i++)
        pos[i] += 0.05 * cos(3.0 * i); /* moved, some out of the cell */
    pos[0] -= 2.0;
    cr_assert_eq(mdlite_set_positions(a, pos), MDLITE_OK);
    cr_assert_eq(mdlite_get_positions(a, got), MDLITE_OK);
    cr_assert_eq(memcmp(got, pos, sizeof pos), 0, "positions come back as set (unwrapped)");
    mdlite_sim *b = api_lj(&rc, pos, cell, NULL);
    cr_assert_eq(mdlite_energy(a, &e1), MDLITE_OK);
    cr_assert_eq(mdlite_energy(b, &e2), MDLITE_OK);
    cr_assert(fabs(e1 - e2) <= 1e-12 * fabs(e2), "%.17g %.17g", e1, e2);
    cr_assert_eq(mdlite_forces(a, f1), MDLITE_OK);
    cr_assert_eq(mdlite_forces(b, f2), MDLITE_OK);
    for (int i = 0; i < 3 * API_ATOMS; i++)
        cr_assert(fabs(f1[i] - f2[i]) < 1e-12);
    cr_assert_eq(mdlite_atom_energies(a, per), MDLITE_OK);
    double sum = 0;
    for (int i = 0; i < API_ATOMS; i++)
        sum += per[i];
    cr_assert(fabs(sum - e1) <= 1e-12 * fabs(e1));
    mdlite_thermo row;
    cr_assert_eq(mdlite_get_thermo(a, &row), MDLITE_OK);
    cr_assert_eq(row.potential, e1);
    cr_assert_eq(row.kinetic, 0.0);
    mdlite_free(a);
    mdlite_free(b);
}

Test(api, refusals_leave_the_handle_as_it_was)
{
    double pos[3 * API_ATOMS], cell[9];
    int rc;
    api_fcc(1.6796, pos, cell);
    mdlite_sim *sim = api_lj(&rc, pos, cell, NULL);
    cr_assert_eq(rc, MDLITE_OK);
    cr_assert_eq(api_refusals(sim, pos, stderr), 0);
    cr_assert_eq(api_load_refusals(pos, cell, stderr), 0);
    mdlite_free(sim);
    mdlite_sim *empty = mdlite_new();
    double e;
    cr_assert_eq(mdlite_energy(empty, &e), MDLITE_ESTATE);
    cr_assert(strstr(mdlite_message(empty), "nothing loaded"));
    cr_assert_eq(mdlite_load_file(empty, "/nonexistent.ini", NULL), MDLITE_EINPUT);
    cr_assert(strstr(mdlite_message(empty), "/nonexistent.ini"), "%s", mdlite_message(empty));
    mdlite_free(empty);
    mdlite_free(empty); /* a second free: nothing */
    cr_assert_eq(mdlite_set_echo(empty, 1), MDLITE_ESTATE);
    cr_assert(strstr(mdlite_message(empty), "mdlite_set_echo: not a live handle"), "%s", mdlite_message(empty));
}

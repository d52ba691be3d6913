/* Both backends through the table on a tiny system: set-up, 100 NVE steps by the stepper, queued
   thermo rows; energy conserved on each, and the GPU (where a device is found) equal to the CPU. */
#include "core/backend.h"
#include "config/config.h"
#include "helpers.h"
#include "system/potential.h"
#include "system/setup.h"
#include "core/stepper.h"
#include "util/util.h"

#include <criterion/criterion.h>
#include <math.h>

static const char *TINY = "[system]\nlattice = fcc\ndensity = 0.8442\ncells = 4 4 4\ntemperature = 1.44\n"
                          "[potential]\nshift = yes\n[run]\nsteps = 100\n[neighbor]\nmethod = cell\n";

/* Runs cfg on ops; fills the total energy per atom at step 0 and at the end. 0: done; 1: no such
   backend here (no GPU). */
static int run_tiny(const mdl_backend_ops *ops, const mdl_config *cfg, double e[2])
{
    mdl_units u;
    mdl_system s;
    mdl_pair_table pt;
    units_lookup(cfg->units, &u);
    system_init(&s, 0);
    cr_assert_eq(system_setup(cfg, &u, &s, mdl_cpu_backend.draw_normals), MDL_OK);
    cr_assert_eq(potential_build(cfg, &s, &pt), MDL_OK);
    mdl_setup setup = backend_setup(cfg, &u, &pt);
    mdl_stepper st = {.ops = ops, .cfg = cfg, .units = &u};
    if (ops->create(&st.ctx, &setup, &s) != MDL_OK) {
        if (st.ctx)
            ops->destroy(st.ctx);
        system_destroy(&s);
        return 1;
    }
    cr_assert_eq(stepper_setup(&st, 0, 0), MDL_OK);
    mdl_observables o;
    cr_assert_eq(backend_observe(ops, st.ctx, &o), MDL_OK);
    e[0] = (o.kinetic + o.potential) / (double)s.n;
    for (long step = 1; step <= cfg->steps; step++)
        cr_assert_eq(stepper_advance(&st, step, step == cfg->steps, step % 7 != 0 && step < cfg->steps), MDL_OK);
    cr_assert_eq(ops->reduce_start(st.ctx, 0), MDL_OK);
    cr_assert_eq(ops->reduce_poll(st.ctx, 0, &o, 1), MDL_OK);
    e[1] = (o.kinetic + o.potential) / (double)s.n;
    mdl_backend_stats stats;
    cr_assert_eq(ops->stats(st.ctx, &stats), MDL_OK);
    cr_assert(stats.pairs > 30.0 * (double)s.n / 2, "the list holds the pairs of the fcc shells within 2.8");
    ops->destroy(st.ctx);
    system_destroy(&s);
    return 0;
}

Test(backends, both_through_the_table)
{
    char path[256];
    mdl_config cfg;
    cr_assert_eq(config_load(&cfg, write_temp(".ini", TINY, path, sizeof path), 0, NULL), MDL_OK);
    double cpu[2], gpu[2];
    cr_assert_eq(run_tiny(&mdl_cpu_backend, &cfg, cpu), 0);
    cr_assert(fabs(cpu[1] - cpu[0]) < 1e-4 * fabs(cpu[0]), "CPU energy %g -> %g", cpu[0], cpu[1]);
    cr_assert(cpu[0] < -4.0 && cpu[0] > -5.0, "in.lj's total energy per atom at T = 1.44: %g", cpu[0]);
#ifdef MDLITE_HAVE_GPU
    if (run_tiny(&mdl_gpu_backend, &cfg, gpu) == 0) {
        cr_assert(fabs(gpu[0] - cpu[0]) < 1e-6 * fabs(cpu[0]), "step 0: GPU %.10g, CPU %.10g", gpu[0], cpu[0]);
        cr_assert(fabs(gpu[1] - cpu[1]) < 1e-5 * fabs(cpu[1]), "step 100: GPU %.10g, CPU %.10g", gpu[1], cpu[1]);
    }
#else
    (void)gpu;
#endif
    config_destroy(&cfg);
    unlink(path);
}

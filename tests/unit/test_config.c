/* Unit tests of the configuration: defaults, values, --set overrides, unit-dependent defaults,
   bad input. */
#include "config/config.h"
#include "helpers.h"
#include "util/util.h"

#include <criterion/criterion.h>
#include <string.h>

static const char *BASE = "[system]\nlattice = fcc\ndensity = 0.8442\ncells = 3 4 5\ntemperature = 1.0\n";

Test(config, defaults_and_values)
{
    char path[256], text[1024];
    snprintf(text, sizeof text, "%s[run]\nsteps = 7\nensemble = nvt-berendsen\ntarget_temperature = 2\ntau = 0.5\n", BASE);
    mdl_config c;
    cr_assert_eq(config_load(&c, write_temp(".ini", text, path, sizeof path), 0, NULL), MDL_OK);
    cr_assert_eq(c.cells[1], 4);
    cr_assert_eq(c.steps, 7);
    cr_assert_eq(c.ensemble, MDL_NVT_BERENDSEN);
    cr_assert_float_eq(c.timestep, 0.005, 0);
    cr_assert_float_eq(c.skin, 0.3, 0);
    cr_assert_float_eq(c.cutoff, 2.5, 0);
    cr_assert_eq(c.thermo, 10);
    cr_assert_str_eq(c.method, "cell");
    config_destroy(&c);
    unlink(path);
}

Test(config, overrides_win_and_name_their_origin)
{
    char path[256];
    char *sets[] = {"run.steps=42", "neighbor.skin=0.4"};
    mdl_config c;
    cr_assert_eq(config_load(&c, write_temp(".ini", BASE, path, sizeof path), 2, sets), MDL_OK);
    cr_assert_eq(c.steps, 42);
    cr_assert_float_eq(c.skin, 0.4, 0);
    cr_assert_str_eq(config_origin(&c, "run", "steps"), "--set");
    char expect[300];
    snprintf(expect, sizeof expect, "%s:3", path);
    cr_assert_str_eq(config_origin(&c, "system", "density"), expect);
    config_destroy(&c);
    unlink(path);
}

Test(config, metal_defaults)
{
    char path[256];
    const char *text = "[system]\nunits = metal\nlattice = fcc\nlattice_constant = 5.385\ncells = 4 4 4\n"
                       "temperature = 60\n[potential]\nepsilon = 0.0104\nsigma = 3.405\ncutoff = 10\n";
    mdl_config c;
    cr_assert_eq(config_load(&c, write_temp(".ini", text, path, sizeof path), 0, NULL), MDL_OK);
    cr_assert_float_eq(c.timestep, 0.001, 0);
    cr_assert_float_eq(c.skin, 2.0, 0);
    config_destroy(&c);
    unlink(path);
}

static int load_fails(const char *text)
{
    char path[256];
    mdl_config c;
    int rc = config_load(&c, write_temp(".ini", text, path, sizeof path), 0, NULL);
    config_destroy(&c);
    unlink(path);
    return rc == MDL_EINPUT;
}

Test(config, rejects_bad_input)
{
    char t[1024];
    cr_assert(load_fails("[system]\nlattice = fcc\ncells = 3 3 3\ntemperature = 1\n"), "no density");
    snprintf(t, sizeof t, "%s[sytem]\nunits = lj\n", BASE);
    cr_assert(load_fails(t), "unknown section");
    snprintf(t, sizeof t, "%s[run]\nstep = 3\n", BASE);
    cr_assert(load_fails(t), "unknown key");
    snprintf(t, sizeof t, "%s[run]\nsteps = 3x\n", BASE);
    cr_assert(load_fails(t), "malformed integer");
    snprintf(t, sizeof t, "%s[run]\ntimestep = -0.1\n", BASE);
    cr_assert(load_fails(t), "negative timestep");
    snprintf(t, sizeof t, "%sinput = a.xyz\n", BASE);
    cr_assert(load_fails(t), "lattice and input");
    snprintf(t, sizeof t, "%slattice_constant = 1.5\n", BASE);
    cr_assert(load_fails(t), "density and lattice_constant");
    snprintf(t, sizeof t, "%s[run]\nensemble = nvt-langevin\ntarget_temperature = 1\n", BASE);
    cr_assert(load_fails(t), "langevin without tau");
    snprintf(t, sizeof t, "%s[neighbor]\nmethod = brute-atomic\n", BASE);
    cr_assert(load_fails(t), "GPU method on the CPU");
    snprintf(t, sizeof t, "%s[potential]\ncutoff = nan\n", BASE);
    cr_assert(load_fails(t), "NaN cutoff");
    snprintf(t, sizeof t, "%sdensity = 0.9\n", BASE);
    cr_assert(load_fails(t), "key set twice");
    cr_assert(load_fails("[system]\nlattice fcc\n"), "syntax error");
}

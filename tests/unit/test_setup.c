/* Configuration parsing, lattices, velocities, readers and the random-number generator. */
#include "config.h"
#include "helpers.h"
#include "backend.h"
#include "lattice.h"
#include "readers.h"
#include "physics/rng.h"
#include "units.h"
#include "util.h"

#include <criterion/criterion.h>
#include <math.h>
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

static mdl_config lattice_config(const char *lattice, int nx, int ny, int nz)
{
    mdl_config c;
    memset(&c, 0, sizeof c);
    strcpy(c.lattice, lattice);
    c.density = 0.8442;
    c.cells[0] = nx, c.cells[1] = ny, c.cells[2] = nz;
    c.nspecies = 1;
    strcpy(c.species[0], "A");
    c.composition[0] = 1;
    c.seed = 1234;
    return c;
}

Test(lattice, counts_and_density)
{
    const char *names[] = {"fcc", "bcc", "sc"};
    int basis[] = {4, 2, 1};
    for (int k = 0; k < 3; k++) {
        mdl_config c = lattice_config(names[k], 3, 4, 5);
        mdl_system s;
        system_init(&s, 0);
        cr_assert_eq(lattice_build(&c, &s), 0);
        cr_assert_eq(s.n, (size_t)(60 * basis[k]));
        cr_assert_float_eq((double)s.n / box_volume(&s.box), 0.8442, 1e-12, "%s density", names[k]);
        for (size_t i = 0; i < s.n; i++)
            cr_assert(s.x[i] >= 0 && s.x[i] < s.box.len[0] && s.z[i] >= 0 && s.z[i] < s.box.len[2]);
        system_destroy(&s);
    }
}

Test(lattice, composition_is_exact_and_seeded)
{
    mdl_config c = lattice_config("fcc", 5, 5, 5);
    c.nspecies = 2;
    strcpy(c.species[1], "B");
    c.composition[0] = 0.8, c.composition[1] = 0.2;
    mdl_system a, b;
    system_init(&a, 0), system_init(&b, 0);
    lattice_build(&c, &a);
    lattice_build(&c, &b);
    size_t nb = 0;
    for (size_t i = 0; i < a.n; i++) {
        nb += a.type[i] == 1;
        cr_assert_eq(a.type[i], b.type[i]);
    }
    cr_assert_eq(nb, 100);
    cr_assert_eq(a.type[0] + a.type[1] + a.type[2] + a.type[3] + a.type[4] + a.type[5] + a.type[6] < 7, 1,
                 "species should be shuffled, not in blocks");
    system_destroy(&a), system_destroy(&b);
}

Test(lattice, maxwell_boltzmann_exact_temperature_zero_momentum)
{
    mdl_config c = lattice_config("fcc", 4, 4, 4);
    mdl_system s;
    mdl_units u;
    units_lookup("metal", &u);
    system_init(&s, 0);
    lattice_build(&c, &s);
    s.mass[0] = 39.95;
    cr_assert_eq(velocities_create(&s, &u, 60.0, 87287, NULL), MDL_OK);
    double T = mdl_temperature(kinetic_energy(&s, &u), s.n, &u);
    cr_assert_float_eq(T, 60.0, 1e-10);
    double p[3] = {0, 0, 0}, v2 = 0;
    for (size_t i = 0; i < s.n; i++)
        p[0] += s.vx[i], p[1] += s.vy[i], p[2] += s.vz[i], v2 += s.vx[i] * s.vx[i];
    for (int d = 0; d < 3; d++)
        cr_assert(fabs(p[d]) < 1e-12 * sqrt(v2 * s.n));
    double vx0 = s.vx[5];
    cr_assert_eq(velocities_create(&s, &u, 60.0, 87288, velocity_normals_host), MDL_OK);
    cr_assert(s.vx[5] != vx0, "another seed gives other velocities");
    system_destroy(&s);
}

Test(readers, extended_xyz_with_velocities_and_masses)
{
    char path[256];
    const char *text = "3\nLattice=\"10 0 0 0 11 0 0 0 12\" Properties=species:S:1:pos:R:3:velo:R:3:mass:R:1 "
                       "pbc=\"T T T\" time=0.5\n"
                       "Ar 1 2 3 0.1 0.2 0.3 39.95\nAr 4 5 6 -0.1 0 0 39.95\nKr 7 8 9 0 0 0.5 83.8\n";
    mdl_system s;
    int has_box;
    system_init(&s, 0);
    cr_assert_eq(read_coordinates(write_temp(".xyz", text, path, sizeof path), &s, &has_box), MDL_OK);
    cr_assert(has_box && s.has_velocities && s.has_masses);
    cr_assert_eq(s.n, 3);
    cr_assert_eq(s.ntypes, 2);
    cr_assert_float_eq(s.box.len[1], 11.0, 0);
    cr_assert_float_eq(s.vz[2], 0.5, 0);
    cr_assert_float_eq(s.mass[1], 83.8, 0);
    cr_assert_eq(s.type[2], 1);
    system_destroy(&s);
    unlink(path);
}

static int read_fails(const char *suffix, const char *text)
{
    char path[256];
    mdl_system s;
    int has_box;
    system_init(&s, 0);
    int rc = read_coordinates(write_temp(suffix, text, path, sizeof path), &s, &has_box);
    system_destroy(&s);
    unlink(path);
    return rc == MDL_EINPUT;
}

Test(readers, rejects_bad_files)
{
    cr_assert(read_fails(".xyz", "3\ncomment\nAr 0 0 0\nAr 1 1 1\n"), "truncated");
    cr_assert(read_fails(".xyz", "2\ncomment\nAr 0 0 0\nAr 1 x 1\n"), "non-numeric");
    cr_assert(read_fails(".xyz", "2\ncomment\nAr 0 0 0\nAr 1 nan 1\n"), "NaN");
    cr_assert(read_fails(".xyz", "0\ncomment\n"), "zero atoms");
    cr_assert(read_fails(".xy", "1 2\n3\n"), "one column");
    cr_assert(read_fails(".xy", "\n\n"), "empty");
    cr_assert(read_fails(".xyz", "1\nLattice=\"1 1 0 0 1 0 0 0 1\"\nAr 0 0 0\n"), "triclinic");
}

Test(readers, xy_two_columns_blank_lines_ignored)
{
    char path[256];
    mdl_system s;
    int has_box;
    system_init(&s, 0);
    cr_assert_eq(read_coordinates(write_temp(".txt", "0 0\n\n1.5 2\n  \n3 -1\n", path, sizeof path), &s, &has_box), 0);
    cr_assert_eq(s.n, 3);
    cr_assert(!has_box && !s.box.periodic[0]);
    cr_assert_float_eq(s.y[2], -1.0, 0);
    system_destroy(&s);
    unlink(path);
}

Test(rng, philox_known_answers)
{
    /* Random123's published test vectors for Philox4x32-10 */
    mdl_u32x4 zero = {{0, 0, 0, 0}};
    mdl_u32x4 r = mdl_philox(zero, 0, 0);
    cr_assert_eq(r.v[0], 0x6627e8d5u);
    cr_assert_eq(r.v[1], 0xe169c58du);
    cr_assert_eq(r.v[2], 0xbc57ac4cu);
    cr_assert_eq(r.v[3], 0x9b00dbd8u);
    mdl_u32x4 pi = {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}};
    r = mdl_philox(pi, 0xa4093822u, 0x299f31d0u);
    cr_assert_eq(r.v[0], 0xd16cfe09u);
    cr_assert_eq(r.v[1], 0x94fdcceb);
    cr_assert_eq(r.v[2], 0x5001e420u);
    cr_assert_eq(r.v[3], 0x24126ea1u);
}

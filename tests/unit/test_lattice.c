/* Unit tests of the lattices and the initial velocities: counts, density, composition, exact
   temperature and zero momentum. */
#include "core/backend.h"
#include "config/config.h"
#include "system/lattice.h"
#include "physics/units.h"
#include "util/util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

static mdl_config lattice_config(const char *lattice, int nx, int ny, int nz)
{
    mdl_config c;
    memset(&c, 0, sizeof c);
    strcpy(c.lattice, lattice);
    for (int d = 0; d < 3; d++) /* the lattice's default axes (config_defaults') */
        c.lattice_orient[4 * d] = 1, c.lattice_a[d][d] = 1.0;
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
    cr_assert_eq(velocities_create(&s, &u, 60.0, 87287, mdl_cpu_backend.draw_normals), MDL_OK);
    double T = mdl_temperature(kinetic_energy(&s, &u), s.n, 3, &u);
    cr_assert_float_eq(T, 60.0, 1e-10);
    double p[3] = {0, 0, 0}, v2 = 0;
    for (size_t i = 0; i < s.n; i++)
        p[0] += s.vx[i], p[1] += s.vy[i], p[2] += s.vz[i], v2 += s.vx[i] * s.vx[i];
    for (int d = 0; d < 3; d++)
        cr_assert(fabs(p[d]) < 1e-12 * sqrt(v2 * s.n));
    double vx0 = s.vx[5];
    cr_assert_eq(velocities_create(&s, &u, 60.0, 87288, mdl_cpu_backend.draw_normals), MDL_OK);
    cr_assert(s.vx[5] != vx0, "another seed gives other velocities");
    system_destroy(&s);
}

/* A coordinate a rounding below the box's lower face wraps to lo + len, which rounds to the upper face:
   it is put on the lower face of the next image, and its image counter says so (its unwrapped
   position x + image * len is where it was, not one box length away). */
Test(lattice, wrap_at_a_rounding_tie_keeps_the_image)
{
    const double len = 22.653923, lo = 0.0, xs[] = {-1e-17, -4e-16, -len - 1e-15, 2 * len - 1e-15, 0.5};
    for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++) {
        int32_t image = 0;
        const double w = box_wrap(xs[k], lo, len, &image);
        cr_expect(w >= lo && w < lo + len, "x = %g wrapped to %.17g, outside [0, len)", xs[k], w);
        cr_expect(fabs(w + image * len - xs[k]) < 1e-12, "x = %g: wrapped %.17g with image %d unwraps to %.17g",
                  xs[k], w, image, w + image * len);
    }
}

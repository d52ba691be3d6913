/* Unit tests of the coordinate readers: extended XYZ with velocities and masses, .xy, bad files. */
#include "helpers.h"
#include "io/readers.h"
#include "util/util.h"

#include <criterion/criterion.h>
#include <string.h>

Test(readers, extended_xyz_with_velocities_and_masses)
{
    char path[256];
    const char *text = "3\nLattice=\"10 0 0 0 11 0 0 0 12\" Properties=species:S:1:pos:R:3:velo:R:3:mass:R:1 "
                       "pbc=\"T T T\" time=0.5\n"
                       "Ar 1 2 3 0.1 0.2 0.3 39.95\nAr 4 5 6 -0.1 0 0 39.95\nKr 7 8 9 0 0 0.5 83.8\n";
    mdl_system s;
    int has_box;
    system_init(&s, 0);
    cr_assert_eq(read_coordinates(write_temp(".xyz", text, path, sizeof path), 0, &s, &has_box), MDL_OK);
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
    int rc = read_coordinates(write_temp(suffix, text, path, sizeof path), 0, &s, &has_box);
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
    cr_assert(read_fails(".xyz", "1\nLattice=\"1 0 0 0 1 0 0 0 -1\"\nAr 0 0 0\n"), "left-handed cell");
    cr_assert(read_fails(".xyz", "1\nLattice=\"1 0 0 0 1 0 1 1 0\"\nAr 0 0 0\n"), "degenerate cell");
    cr_assert(read_fails(".xyz", "1\nLattice=\"2 0 0 1.5 2 0 0 0 2\"\nAr 0 0 0\n"), "tilt past LAMMPS's limit");
}

Test(readers, xy_two_columns_blank_lines_ignored)
{
    char path[256];
    mdl_system s;
    int has_box;
    system_init(&s, 0);
    cr_assert_eq(read_coordinates(write_temp(".txt", "0 0\n\n1.5 2\n  \n3 -1\n", path, sizeof path), 0, &s, &has_box), 0);
    cr_assert_eq(s.n, 3);
    cr_assert(!has_box && !s.box.periodic[0]);
    cr_assert_float_eq(s.y[2], -1.0, 0);
    system_destroy(&s);
    unlink(path);
}

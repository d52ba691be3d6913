/* Unit tests of the counter-based random numbers: Random123's published Philox4x32-10 vectors. */
#include "physics/rng.h"

#include <criterion/criterion.h>

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

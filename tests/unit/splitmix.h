/* splitmix64: the tests' own stream of 64-bit numbers, to draw keys, subsequences and offsets. */
#ifndef MDL_TEST_SPLITMIX_H
#define MDL_TEST_SPLITMIX_H

static inline unsigned long long splitmix64(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif

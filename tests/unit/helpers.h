/* Shared helpers for the unit tests: random configurations and a tiny config writer. */
#ifndef MDL_TEST_HELPERS_H
#define MDL_TEST_HELPERS_H

#include "system/system.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* xorshift64*: a test-local generator, independent of mdlite's own. */
static inline double test_uniform(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

/* n atoms uniformly at random in an L[0] x L[1] x L[2] periodic box, types 0..ntypes-1. */
static inline void random_system(mdl_system *s, size_t n, const double L[3], int ntypes, uint64_t seed)
{
    system_init(s, n);
    for (int t = 0; t < ntypes; t++) {
        char name[8];
        snprintf(name, sizeof name, "T%d", t);
        system_species_index(s, name, 1);
        s->mass[t] = 1.0 + t;
    }
    for (int d = 0; d < 3; d++) {
        s->box.lo[d] = 0;
        s->box.len[d] = L[d];
        s->box.periodic[d] = 1;
    }
    for (size_t i = 0; i < n; i++) {
        double x = test_uniform(&seed) * L[0], y = test_uniform(&seed) * L[1], z = test_uniform(&seed) * L[2];
        system_add_atom(s, (int)(test_uniform(&seed) * ntypes) % ntypes, x, y, z);
    }
}

/* Writes text to a fresh temporary file and returns its path (static buffer per call site). */
static inline const char *write_temp(const char *suffix, const char *text, char *path, size_t size)
{
    static int counter = 0;
    snprintf(path, size, "/tmp/mdlite-test-%d-%d%s", (int)getpid(), counter++, suffix);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

#endif

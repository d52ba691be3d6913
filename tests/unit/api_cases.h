/* libmdlite's calls on small systems, shared by the Criterion tests (test_api.c) and the valgrind run
   of every refusal (api_leaks.c): an fcc block of atoms and the refusals each call must make. */
#ifndef MDL_TEST_API_CASES_H
#define MDL_TEST_API_CASES_H

#include "mdlite.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define API_CELLS 3
#define API_ATOMS (4 * API_CELLS * API_CELLS * API_CELLS)

/* An fcc block of spacing a, each atom moved by a fixed small pattern; cell 9. */
static inline void api_fcc(double a, double *pos, double *cell)
{
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    int k = 0;
    for (int i = 0; i < API_CELLS; i++)
        for (int j = 0; j < API_CELLS; j++)
            for (int l = 0; l < API_CELLS; l++)
                for (int b = 0; b < 4; b++, k++) {
                    pos[3 * k] = (i + basis[b][0]) * a + 0.03 * sin(7.0 * k);
                    pos[3 * k + 1] = (j + basis[b][1]) * a + 0.03 * sin(11.0 * k);
                    pos[3 * k + 2] = (l + basis[b][2]) * a + 0.03 * sin(13.0 * k);
                }
    for (int d = 0; d < 9; d++)
        cell[d] = d % 4 == 0 ? a * API_CELLS : 0;
}

/* A simulation of the block under LJ (lj units) from arrays, its status into *rc. */
static inline mdlite_sim *api_lj(int *rc, const double *pos, const double *cell, const double *masses)
{
    static const char *keys[] = {"potential.style", "potential.cutoff", "neighbor.skin"};
    static const char *values[] = {"lj", "2.5", "0.3"};
    static const char *species[] = {"A"};
    static int types[API_ATOMS];
    mdlite_atoms atoms = {API_ATOMS, 1, species, masses, types, pos, cell, NULL};
    mdlite_sim *sim = mdlite_new();
    *rc = mdlite_load_atoms(sim, &atoms, 3, keys, values);
    return sim;
}

/* Every refusal libmdlite makes on bad input to a live simulation: 0 when each is refused with
   its status and a message that names what is wrong, and the energy stays what it was. */
static inline int api_refusals(mdlite_sim *sim, const double *pos, FILE *log)
{
    double e0, e1, bad[3 * API_ATOMS], w[6];
    int failures = 0, types[API_ATOMS];
    if (mdlite_energy(sim, &e0) != MDLITE_OK)
        return 1;
    memcpy(bad, pos, sizeof bad);
    bad[3 * 5 + 1] = NAN;
#define REFUSED(call, status, text)                                                                    \
    do {                                                                                               \
        const int rc_ = (call);                                                                        \
        if (rc_ != (status) || !strstr(mdlite_message(sim), (text))) {                                 \
            fprintf(log, "%s: status %d, message '%s'\n", #call, rc_, mdlite_message(sim));            \
            failures++;                                                                                \
        }                                                                                              \
    } while (0)
    REFUSED(mdlite_set_positions(sim, bad), MDLITE_EINPUT, "positions: atom 5's y is nan");
    REFUSED(mdlite_set_positions(sim, NULL), MDLITE_EINPUT, "positions is NULL");
    for (int i = 0; i < API_ATOMS; i++)
        types[i] = i == 7 ? 2 : 0;
    REFUSED(mdlite_set_types(sim, types), MDLITE_EINPUT, "types: atom 7's is 2");
    const double flat[9] = {1, 0, 0, 0, 1, 0, 2, 2, 0};
    REFUSED(mdlite_set_cell(sim, flat, 0), MDLITE_EINPUT, "degenerate");
    REFUSED(mdlite_step(sim, -1), MDLITE_EINPUT, "nsteps is -1");
    REFUSED(mdlite_minimize(sim, "sd", 0, 1e-8, 10, 10), MDLITE_EINPUT, "style 'sd'");
    REFUSED(mdlite_virial(sim, NULL), MDLITE_EINPUT, "virial is NULL");
    REFUSED(mdlite_run(sim, NULL), MDLITE_ESTATE, "came as arrays");
    if (mdlite_energy(sim, &e1) != MDLITE_OK || e1 != e0 || mdlite_virial(sim, w) != MDLITE_OK) {
        fprintf(log, "after the refusals: energy %.17g, was %.17g\n", e1, e0);
        failures++;
    }
    return failures;
#undef REFUSED
}

/* The refusals of loading: no atoms, a negative mass, an unknown key, NULL arrays; 0 when each is
   refused with a message naming it. */
static inline int api_load_refusals(const double *pos, const double *cell, FILE *log)
{
    int failures = 0;
    static const char *species[] = {"A"};
    static int types[API_ATOMS];
    const double negative[1] = {-1.0};
    const char *keys[] = {"potential.style", "potential.epsilonn"}, *values[] = {"lj", "1"};
    struct {
        mdlite_atoms atoms;
        int nkeys, status;
        const char *text;
    } cases[] = {
        {{0, 1, species, NULL, types, pos, cell, NULL}, 1, MDLITE_EINPUT, "natoms is 0"},
        {{API_ATOMS, 1, species, negative, types, pos, cell, NULL}, 1, MDLITE_EINPUT, "masses: species A's is -1"},
        {{API_ATOMS, 1, species, NULL, types, pos, cell, NULL}, 2, MDLITE_EINPUT, "keys:2: [potential] epsilonn"},
        {{API_ATOMS, 1, species, NULL, types, NULL, cell, NULL}, 1, MDLITE_EINPUT, "positions is NULL"},
        {{API_ATOMS, 0, species, NULL, types, pos, cell, NULL}, 1, MDLITE_EINPUT, "nspecies is 0"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mdlite_sim *sim = mdlite_new();
        const int rc = mdlite_load_atoms(sim, &cases[k].atoms, cases[k].nkeys, keys, values);
        double e;
        if (rc != cases[k].status || !strstr(mdlite_message(sim), cases[k].text) ||
            mdlite_energy(sim, &e) != MDLITE_ESTATE) {
            fprintf(log, "load case %zu: status %d, message '%s'\n", k, rc, mdlite_message(sim));
            failures++;
        }
        mdlite_free(sim);
        double x;
        if (mdlite_energy(sim, &x) != MDLITE_ESTATE || !strstr(mdlite_message(sim), "not a live handle")) {
            fprintf(log, "a freed handle: '%s'\n", mdlite_message(sim));
            failures++;
        }
    }
    return failures;
}

#endif

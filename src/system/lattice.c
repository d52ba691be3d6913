/* Lattice construction, species assignment and Maxwell-Boltzmann velocities. */
#include "lattice.h"

#include "../physics/observables.h"
#include "../physics/rng.h"
#include "../util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double FCC[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
static const double BCC[2][3] = {{0, 0, 0}, {0.5, 0.5, 0.5}};
static const double SC[1][3] = {{0, 0, 0}};

/* Species by composition: exact counts (largest remainder), positions chosen by a seeded shuffle. */
static int assign_species(const mdl_config *cfg, mdl_system *s)
{
    size_t n = s->n, count[MDL_MAX_SPECIES], total = 0;
    for (int t = 0; t < cfg->nspecies; t++) {
        count[t] = (size_t)floor(cfg->composition[t] * (double)n + 1e-9);
        total += count[t];
    }
    for (int t = 0; total < n; t = (t + 1) % cfg->nspecies, total++)
        count[t]++;
    size_t k = 0;
    for (int t = 0; t < cfg->nspecies; t++)
        for (size_t c = 0; c < count[t]; c++)
            s->type[k++] = t;
    for (size_t i = n - 1; i > 0; i--) { /* Fisher-Yates, reproducible from the seed */
        mdl_u32x4 r = mdl_random_block(mdl_rng_key(cfg->seed, MDL_STREAM_SPECIES), i, 0);
        uint64_t w = ((uint64_t)r.v[0] << 32) | r.v[1];
        size_t j = (size_t)(w % (uint64_t)(i + 1));
        int32_t tmp = s->type[i];
        s->type[i] = s->type[j];
        s->type[j] = tmp;
    }
    return MDL_OK;
}

static int basis_of(const mdl_config *cfg, const double (**basis)[3])
{
    if (strcmp(cfg->lattice, "bcc") == 0) {
        *basis = BCC;
        return 2;
    }
    if (strcmp(cfg->lattice, "sc") == 0) {
        *basis = SC;
        return 1;
    }
    *basis = FCC;
    return 4;
}

size_t lattice_atom_count(const mdl_config *cfg)
{
    const double(*basis)[3];
    size_t nb = (size_t)basis_of(cfg, &basis); /* cells are at most 4096 each: no overflow */
    return (size_t)cfg->cells[0] * (size_t)cfg->cells[1] * (size_t)cfg->cells[2] * nb;
}

int lattice_build(const mdl_config *cfg, mdl_system *s)
{
    const double(*basis)[3];
    int nb = basis_of(cfg, &basis);
    double a = cfg->lattice_constant > 0 ? cfg->lattice_constant : cbrt(nb / cfg->density);
    size_t n = lattice_atom_count(cfg);
    if (n > (size_t)MDL_MAX_ATOMS) {
        mdl_error("%s: [system] cells: %d %d %d make %zu atoms, more than mdlite handles (%ld)",
                  config_origin(cfg, "system", "cells"), cfg->cells[0], cfg->cells[1], cfg->cells[2], n,
                  (long)MDL_MAX_ATOMS);
        return MDL_EINPUT;
    }
    if (system_reserve(s, n) != MDL_OK)
        return MDL_ERUN;
    for (int t = 0; t < cfg->nspecies; t++)
        system_species_index(s, cfg->species[t], 1);
    for (int d = 0; d < 3; d++) {
        s->box.lo[d] = 0;
        s->box.len[d] = a * cfg->cells[d];
        s->box.periodic[d] = 1;
    }
    for (int k = 0; k < cfg->cells[2]; k++)
        for (int j = 0; j < cfg->cells[1]; j++)
            for (int i = 0; i < cfg->cells[0]; i++)
                for (int b = 0; b < nb; b++)
                    system_add_atom(s, 0, a * (i + basis[b][0]), a * (j + basis[b][1]), a * (k + basis[b][2]));
    return assign_species(cfg, s);
}

double kinetic_energy(const mdl_system *s, const mdl_units *u)
{
    double sum = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += s->mass[s->type[i]] * (s->vx[i] * s->vx[i] + s->vy[i] * s->vy[i] + s->vz[i] * s->vz[i]);
    return 0.5 * u->mvv2e * sum;
}

int velocities_create(mdl_system *s, const mdl_units *u, double T, unsigned long seed, mdl_normals_fn draw)
{
    double p[3] = {0, 0, 0}, mtot = 0;
    double *g = mdl_alloc(3 * s->n * sizeof *g, "initial velocities");
    if (!g || draw(mdl_rng_key(seed, MDL_STREAM_VELOCITY), s->n, s->id, g) != MDL_OK) {
        free(g);
        return MDL_ERUN;
    }
    for (size_t i = 0; i < s->n; i++) {
        double scale = sqrt(u->boltz * (T > 0 ? T : 1.0) / (s->mass[s->type[i]] * u->mvv2e));
        s->vx[i] = scale * g[3 * i];
        s->vy[i] = scale * g[3 * i + 1];
        s->vz[i] = scale * g[3 * i + 2];
    }
    free(g);
    for (size_t i = 0; i < s->n; i++) { /* in atom order, so the sums do not depend on the threads */
        double m = s->mass[s->type[i]];
        p[0] += m * s->vx[i];
        p[1] += m * s->vy[i];
        p[2] += m * s->vz[i];
        mtot += m;
    }
    for (size_t i = 0; i < s->n; i++) {
        s->vx[i] -= p[0] / mtot;
        s->vy[i] -= p[1] / mtot;
        s->vz[i] -= p[2] / mtot;
    }
    double t_now = mdl_temperature(kinetic_energy(s, u), s->n, u);
    double f = t_now > 0 ? sqrt(T / t_now) : 0.0;
    for (size_t i = 0; i < s->n; i++) {
        s->vx[i] *= f;
        s->vy[i] *= f;
        s->vz[i] *= f;
    }
    return MDL_OK;
}

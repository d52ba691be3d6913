/* Lattices as LAMMPS's lattice and create_atoms make them (fcc, bcc, sc, hcp, diamond, custom;
   oriented, shifted, in any box or in regions of it), species assignment and Maxwell-Boltzmann
   velocities. */
#include "lattice.h"

#include "../physics/observables.h"
#include "../physics/region.h"
#include "../physics/rng.h"
#include "../util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The lattice of cfg's [system] keys. */
static void lattice_of(const mdl_config *cfg, mdl_crystal *c)
{
    mdl_lattice_spec sp = {cfg->lattice, cfg->lattice_constant, cfg->density, {{0}}, &cfg->lattice_basis, {0}, {0}, {0}};
    memcpy(sp.a, cfg->lattice_a, sizeof sp.a);
    memcpy(sp.orient, cfg->lattice_orient, sizeof sp.orient);
    memcpy(sp.origin, cfg->lattice_origin, sizeof sp.origin);
    memcpy(sp.spacing, cfg->lattice_spacing, sizeof sp.spacing);
    crystal_make(&sp, c);
}

/* The box the lattice fills: cells along its spacings from 0, or [box] with its origin and tilts. */
static void lattice_box(const mdl_config *cfg, const mdl_crystal *L, mdl_box *b)
{
    *b = (mdl_box){{0, 0, 0}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}, 0};
    for (int d = 0; d < 3; d++) {
        if (cfg->cells[0] > 0) {
            b->len[d] = cfg->cells[d] * L->spacing[d];
        } else {
            b->lo[d] = cfg->box_origin[d], b->len[d] = cfg->box[d];
            b->tilt[d] = cfg->tilt[d];
        }
    }
}

/* One fill of the lattice: the whole box (species by composition where species < 0) or a region's
   points, of one species ([system] lattice_regions). */
enum { MAX_FILLS = 64 };
typedef struct {
    int species, whole;
    mdl_region_set region;
} lattice_fill;

/* The fills of cfg: [system] lattice_regions' entries ("SPECIES box" or "SPECIES REGION"), or the
   whole box by composition. A bad entry: MDL_EINPUT, named where report is set. */
static int read_fills(const mdl_config *cfg, lattice_fill *f, int *n, int report)
{
    *n = 0;
    if (!cfg->lattice_regions[0]) {
        f[0] = (lattice_fill){-1, 1, {0}}, *n = 1;
        return MDL_OK;
    }
    char copy[MDL_PATH_LEN], *save = NULL;
    mdl_copy(copy, sizeof copy, cfg->lattice_regions);
    for (char *d = strtok_r(copy, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
        char entry[MDL_PATH_LEN], *w[128], *s2 = NULL;
        mdl_copy(entry, sizeof entry, d);
        int nw = 0;
        for (char *t = strtok_r(d, " \t", &s2); t && nw < 128; t = strtok_r(NULL, " \t", &s2))
            w[nw++] = t;
        lattice_fill *e = &f[*n < MAX_FILLS ? *n : 0];
        e->species = -1;
        for (int t = 0; nw && t < cfg->nspecies; t++)
            if (!strcmp(cfg->species[t], w[0]))
                e->species = t;
        e->whole = nw == 2 && !strcmp(w[1], "box");
        if (*n == MAX_FILLS || e->species < 0 ||
            (!e->whole && (nw < 2 || region_set_parse(w + 1, nw - 1, &e->region) != nw - 1))) {
            if (report)
                mdl_error("%s: [system] lattice_regions: '%s': expected 'SPECIES box' or 'SPECIES REGION', SPECIES one "
                          "of [system] species and REGION as [system] groups writes one (at most %d entries)",
                          config_origin(cfg, "system", "lattice_regions"), entry, MAX_FILLS);
            return MDL_EINPUT;
        }
        (*n)++;
    }
    return MDL_OK;
}

/* The lattice points inside box b, in LAMMPS's create_atoms order (cells k, j, i over the box's
   bounding box in lattice coordinates, then the basis), each kept where it lies in the box shrunk
   by 1e-6 of it at the lower faces and twice that at the upper ones (LAMMPS's epsilon: of the
   fractional coordinate in a triclinic box, of each length in an orthogonal one), so that of two
   periodic images on the faces exactly one is made. Along a non-periodic dimension (face: the
   boundary's faces) the box is [lo, hi) as made, its shrink-wrapped faces out by 1e-4 of its length,
   as LAMMPS's create_box makes it; those of fill f's region alone (LAMMPS: the region's test before
   the box's). Appended to s where s is given; returns how many. */
static size_t fill_box(const mdl_crystal *L, const mdl_box *b, const int face[3][2], const lattice_fill *f,
                       mdl_system *s)
{
    const int tri = box_is_triclinic(b);
    double blo[3] = {INFINITY, INFINITY, INFINITY}, bhi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int corner = 0; corner < 8; corner++) { /* the box's bounding box */
        const double f[3] = {corner & 1, (corner >> 1) & 1, (corner >> 2) & 1};
        double p[3];
        box_from_fraction(b, f, p);
        for (int d = 0; d < 3; d++)
            blo[d] = fmin(blo[d], p[d]), bhi[d] = fmax(bhi[d], p[d]);
    }
    double lmin[3] = {INFINITY, INFINITY, INFINITY}, lmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int corner = 0; corner < 8; corner++) { /* its corners in lattice coordinates */
        double p[3] = {corner & 1 ? bhi[0] : blo[0], corner & 2 ? bhi[1] : blo[1], corner & 4 ? bhi[2] : blo[2]};
        crystal_from_box(L, p);
        for (int d = 0; d < 3; d++)
            lmin[d] = fmin(lmin[d], p[d]), lmax[d] = fmax(lmax[d], p[d]);
    }
    int lo[3], hi[3];
    double sublo[3], subhi[3];
    for (int d = 0; d < 3; d++) {
        lo[d] = (int)lmin[d] - 1 - (lmin[d] < 0), hi[d] = (int)lmax[d] + 1;
        const double eps = tri ? 1e-6 : b->len[d] * 1e-6;
        sublo[d] = (tri ? 0 : b->lo[d]) - eps;
        subhi[d] = (tri ? 1 : b->lo[d] + b->len[d]) - 2 * eps;
        if (face[d][0] != MDL_FACE_P) { /* config_boundary: orthogonal */
            sublo[d] = b->lo[d] - (face[d][0] == MDL_FACE_S ? 1e-4 * b->len[d] : 0);
            subhi[d] = b->lo[d] + b->len[d] + (face[d][1] == MDL_FACE_S ? 1e-4 * b->len[d] : 0);
        }
    }
    size_t n = 0;
    for (int k = lo[2]; k <= hi[2]; k++)
        for (int j = lo[1]; j <= hi[1]; j++)
            for (int i = lo[0]; i <= hi[0]; i++)
                for (int m = 0; m < L->nbasis; m++) {
                    double x[3] = {i + L->basis[m][0], j + L->basis[m][1], k + L->basis[m][2]}, c[3];
                    crystal_to_box(L, x);
                    if (!f->whole && !region_set_inside(&f->region, x))
                        continue;
                    if (tri)
                        box_to_fraction(b, x, c);
                    else
                        memcpy(c, x, sizeof c);
                    if (c[0] < sublo[0] || c[0] >= subhi[0] || c[1] < sublo[1] || c[1] >= subhi[1] ||
                        c[2] < sublo[2] || c[2] >= subhi[2])
                        continue;
                    if (s)
                        system_add_atom(s, f->species < 0 ? 0 : f->species, x[0], x[1], x[2]);
                    n++;
                }
    return n;
}

size_t lattice_atom_count(const mdl_config *cfg)
{
    mdl_crystal L;
    mdl_box b;
    lattice_of(cfg, &L);
    lattice_box(cfg, &L, &b);
    const double cells = box_volume(&b) / crystal_cell_volume(&L);
    if (!(cells * L.nbasis < 4.0 * (double)MDL_MAX_ATOMS)) /* far too many: never the loop */
        return (size_t)MDL_MAX_ATOMS + 1;
    int face[3][2], nf;
    const char *why;
    lattice_fill f[MAX_FILLS];
    if (!config_boundary(cfg, face, &why) || read_fills(cfg, f, &nf, 0) != MDL_OK)
        return 0; /* config_check_system: a valid boundary; lattice_build names a bad fill */
    size_t n = 0;
    for (int k = 0; k < nf; k++)
        n += fill_box(&L, &b, face, &f[k], NULL);
    return n;
}

double lattice_volume(const mdl_config *cfg)
{
    mdl_crystal L;
    mdl_box b;
    lattice_of(cfg, &L);
    lattice_box(cfg, &L, &b);
    return box_volume(&b);
}

int lattice_build(const mdl_config *cfg, mdl_system *s)
{
    mdl_crystal L;
    lattice_of(cfg, &L);
    size_t n = lattice_atom_count(cfg);
    if (n > (size_t)MDL_MAX_ATOMS) {
        mdl_error("%s: [system] %s: the lattice makes more than mdlite handles (%ld atoms)",
                  config_origin(cfg, "system", cfg->cells[0] > 0 ? "cells" : "box"), cfg->cells[0] > 0 ? "cells" : "box",
                  (long)MDL_MAX_ATOMS);
        return MDL_EINPUT;
    }
    if (system_reserve(s, n > 0 ? n : 1) != MDL_OK)
        return MDL_ERUN;
    for (int t = 0; t < cfg->nspecies; t++)
        system_species_index(s, cfg->species[t], 1);
    lattice_box(cfg, &L, &s->box);
    int face[3][2], nf;
    const char *why;
    lattice_fill f[MAX_FILLS];
    MDL_TRY(read_fills(cfg, f, &nf, 1));
    for (int k = 0; k < nf && config_boundary(cfg, face, &why); k++)
        fill_box(&L, &s->box, face, &f[k], s);
    return s->n > 0 && f[0].species < 0 ? assign_species(cfg, s) : MDL_OK;
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
        s->vz[i] = box_dimension(&s->box) == 2 ? 0.0 : scale * g[3 * i + 2]; /* a 2-d system stays in its plane */
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
    double t_now = mdl_temperature(kinetic_energy(s, u), s->n, box_dimension(&s->box), u);
    double f = t_now > 0 ? sqrt(T / t_now) : 0.0;
    for (size_t i = 0; i < s->n; i++) {
        s->vx[i] *= f;
        s->vy[i] *= f;
        s->vz[i] *= f;
    }
    return MDL_OK;
}

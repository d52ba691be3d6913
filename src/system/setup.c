/* Initial system for a run: lattice or file, masses, box, velocities, with input checks. */
#include "setup.h"

#include "eam.h"
#include "lattice.h"
#include "../io/data_file.h"
#include "../io/readers.h"
#include "atom_groups.h"
#include "lammps_velocity.h"
#include "../util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An input whose masses are per type (a LAMMPS data file's Masses): keys and potentials may
   replace them, as LAMMPS's mass and pair_coeff commands do after read_data. */
static int typed_masses(const mdl_config *cfg, const mdl_system *s)
{
    return s->has_masses && cfg->input[0] &&
           (cfg->input_format == MDL_INPUT_DATA || (cfg->input_format == MDL_INPUT_AUTO && is_data_file(cfg->input)));
}

int system_assign_masses(const mdl_config *cfg, mdl_system *s)
{
    if (eam_style(cfg)) { /* the files' masses, as LAMMPS's pair_coeff sets them over a data file's */
        double given[MDL_MAX_SPECIES];
        memcpy(given, s->mass, sizeof given);
        MDL_TRY(eam_masses(cfg, s));
        for (int t = 0; t < s->ntypes && s->has_masses; t++)
            if (fabs(given[t] - s->mass[t]) > 1e-12 * s->mass[t]) {
                if (!typed_masses(cfg, s)) {
                    mdl_error("%s: [potential] style %s takes the masses from its file(s): species %s's is %.17g "
                              "there and %.17g in %s", config_origin(cfg, "potential", "style"),
                              config_style_name(cfg->style), s->species[t], s->mass[t], given[t], cfg->input);
                    return MDL_EINPUT;
                }
                mdl_note("%s: species %s: the mass %.10g of its Masses section is replaced by %.10g from the "
                         "potential file, as LAMMPS's pair_coeff sets it", cfg->input, s->species[t], given[t], s->mass[t]);
            }
        return MDL_OK;
    }
    if (s->has_masses && config_has(cfg, "system", "mass")) { /* every atom's mass is in the file */
        mdl_error("%s: [system] mass: contradicts the masses in %s (they are used as read); remove one",
                  config_origin(cfg, "system", "mass"), cfg->input);
        return MDL_EINPUT;
    }
    for (int k = 0; k < cfg->nmass; k++) {
        char key[64];
        snprintf(key, sizeof key, "mass.%s", cfg->mass_species[k]);
        int t = system_species_index(s, cfg->mass_species[k], 0);
        if (t < 0) {
            mdl_error("%s: [system] %s: no species '%s' in the system", config_origin(cfg, "system", key), key,
                      cfg->mass_species[k]);
            return MDL_EINPUT;
        }
        if (s->has_masses && !typed_masses(cfg, s)) {
            mdl_error("%s: [system] %s: contradicts the masses in %s", config_origin(cfg, "system", key), key,
                      cfg->input);
            return MDL_EINPUT;
        }
        if (s->has_masses && s->mass[t] != cfg->mass_value[k])
            mdl_note("%s: [system] %s = %.10g replaces the mass %.10g of %s's Masses section (as LAMMPS's mass "
                     "command after read_data)", config_origin(cfg, "system", key), key, cfg->mass_value[k],
                     s->mass[t], cfg->input);
        s->mass[t] = cfg->mass_value[k];
    }
    for (int t = 0; t < s->ntypes; t++)
        if (!(s->mass[t] > 0))
            s->mass[t] = cfg->mass;
    return MDL_OK;
}

static int read_input(const mdl_config *cfg, mdl_system *s)
{
    int has_box = 0;
    static const int formats[] = {0, 'd', 'x', '2'}; /* [system] input_format */
    int rc = read_coordinates(cfg->input, formats[cfg->input_format], s, &has_box);
    if (rc != MDL_OK)
        return rc;
    int given = cfg->box[0] > 0;
    if (has_box && given) {
        mdl_error("%s: [system] box: contradicts the box of %s (its Lattice=, or a data file's header); give the "
                  "box in one place",
                  config_origin(cfg, "system", "box"), cfg->input);
        return MDL_EINPUT;
    }
    if (!has_box && !given) {
        mdl_error("%s: [system] box: missing: %s has no Lattice=, so the box must be given as box = Lx Ly Lz",
                  config_origin(cfg, "system", "box"), cfg->input);
        return MDL_EINPUT;
    }
    if (given)
        for (int d = 0; d < 3; d++) {
            s->box.lo[d] = cfg->box_origin[d];
            s->box.len[d] = cfg->box[d];
            s->box.periodic[d] = 1;
            s->box.tilt[d] = cfg->tilt[d];
        }
    const char *why = given ? box_tilt_unfit(&s->box) : NULL;
    if (why) {
        mdl_error("%s: [system] tilt: %s", config_origin(cfg, "system", "tilt"), why);
        return MDL_EINPUT;
    }
    for (int d = 0; d < 3; d++)
        if (!s->box.periodic[d]) {
            mdl_error("%s:2: pbc= has F for dimension %d; mdlite runs periodic boxes only", cfg->input, d + 1);
            return MDL_EINPUT;
        }
    return check_atoms_in_box(cfg->input, s);
}

/* Refuses, before allocating, a run whose memory (a lower estimate: the set-up system, the
   backend's copy, its half neighbor list at this density, the output's copy) is more than the
   machine has available. */
static int check_memory(const mdl_config *cfg, size_t n, double density, const char *origin)
{
    double rc = isnan(cfg->cutoff) ? 0 : cfg->cutoff; /* metal units: no global cutoff where every pair has its own */
    for (int k = 0; k < cfg->npair; k++)
        rc = fmax(rc, cfg->pair[k].cutoff);
    const double rl = rc + (cfg->skin > 0 ? cfg->skin : 0);
    double half_pairs = 0.5 * density * 4.18879020478639 * rl * rl * rl;
    double per_atom = 3 * 96.0 + 64.0 + 6.0 * half_pairs; /* bytes */
    double need = per_atom * (double)n, avail = (double)mdl_memory_available();
    if (avail > 0 && need > avail) {
        mdl_error("%s: %zu atoms need about %.3g GiB of memory (%.3g bytes per atom at this density), more than "
                  "the %.3g GiB available", origin, n, need / 1073741824.0, per_atom, avail / 1073741824.0);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

static int build_lattice(const mdl_config *cfg, mdl_system *s)
{
    const mdl_box tilted = {{0, 0, 0}, {cfg->box[0], cfg->box[1], cfg->box[2]}, {1, 1, 1},
                            {cfg->tilt[0], cfg->tilt[1], cfg->tilt[2]}, 0};
    const char *why = cfg->cells[0] > 0 ? NULL : box_tilt_unfit(&tilted);
    if (why) {
        mdl_error("%s: [system] tilt: %s", config_origin(cfg, "system", "tilt"), why);
        return MDL_EINPUT;
    }
    size_t n = lattice_atom_count(cfg);
    char origin[MDL_PATH_LEN + 64];
    const char *key = cfg->cells[0] > 0 ? "cells" : "box";
    snprintf(origin, sizeof origin, "%s: [system] %s", config_origin(cfg, "system", key), key);
    if (n <= (size_t)MDL_MAX_ATOMS && n > 0 && check_memory(cfg, n, (double)n / lattice_volume(cfg), origin) != MDL_OK)
        return MDL_EINPUT;
    return lattice_build(cfg, s);
}

/* [system] velocities: mdlite's Maxwell-Boltzmann draw, or LAMMPS's velocity create. */
static int create_velocities(const mdl_config *cfg, const mdl_units *u, mdl_system *s, mdl_normals_fn draw)
{
    if (s->n == 1 && (cfg->velocities != 0 || cfg->temperature > 0)) { /* no degree of freedom left */
        mdl_error("%s: [system] temperature: one atom has no thermal motion once its momentum is zeroed, so no "
                  "temperature to create (LAMMPS's velocity create stops there too: a 0.0 temperature to rescale)",
                  config_origin(cfg, "system", "temperature"));
        return MDL_EINPUT;
    }
    if (cfg->velocities == 0) {
        if (config_has(cfg, "system", "velocity_dist"))
            mdl_warn("%s: [system] velocity_dist: not used by velocities = maxwell",
                     config_origin(cfg, "system", "velocity_dist"));
        return velocities_create(s, u, cfg->temperature, cfg->seed, draw);
    }
    if (cfg->seed > 2147483647UL) {
        mdl_error("%s: [system] seed: %lu: LAMMPS's velocity create takes seeds 1 .. 2147483647",
                  config_origin(cfg, "system", "seed"), cfg->seed);
        return MDL_EINPUT;
    }
    velocities_lammps(s, u, cfg->temperature, (int)cfg->seed, cfg->velocities == 1 ? MDL_VEL_LOOP_ALL : MDL_VEL_LOOP_GEOM,
                      cfg->velocity_dist == 1);
    return MDL_OK;
}

/* [system] boundary: the faces of the box as made (LAMMPS's create_box and read_data: shrink-wrapped
   ones moved out by their margin), every atom inside it along its non-periodic dimensions. */
static int make_boundary(const mdl_config *cfg, mdl_system *s)
{
    const char *why;
    if (!config_boundary(cfg, s->bound.face, &why)) /* config_check_system: valid */
        return MDL_EINPUT;
    if (boundary_is_periodic(&s->bound))
        return MDL_OK;
    boundary_make_box(&s->bound, &s->box);
    for (size_t i = 0; i < s->n; i++) {
        const double p[3] = {s->x[i], s->y[i], s->z[i]};
        const int f = boundary_face_left(&s->box, p);
        if (f >= 0) {
            mdl_error("%s: [system] boundary: atom %ld lies outside the box's %c%s face (%.17g), which is not "
                      "periodic", config_origin(cfg, "system", "boundary"), (long)s->id[i] + 1, "xyz"[f / 2],
                      f % 2 ? "hi" : "lo", p[f / 2]);
            return MDL_EINPUT;
        }
    }
    return MDL_OK;
}

/* [system] dimension = 2: a 2-d box (its volume the area lx ly, no periodic images along z, as LAMMPS
   makes no ghosts along z in 2-d), its atoms in the plane z = 0 and at rest along z. There the z
   force on every atom is 0 and stays so: LAMMPS's fix enforce2d holds nothing else in place. */
static int make_2d(const mdl_config *cfg, mdl_system *s)
{
    if (cfg->dimension != 2)
        return MDL_OK;
    const char *origin = config_origin(cfg, "system", "dimension");
    if (s->box.tilt[1] != 0 || s->box.tilt[2] != 0) {
        mdl_error("%s: [system] dimension: 2, but the box has an xz or yz tilt (LAMMPS: cannot skew triclinic box "
                  "in z for 2d simulation)", origin);
        return MDL_EINPUT;
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->z[i] != 0 || (s->has_velocities && s->vz[i] != 0)) {
            mdl_error("%s: [system] dimension: 2, but atom %ld has %s = %.17g: a 2-d system's atoms lie in the plane "
                      "z = 0, at rest along z", origin, (long)s->id[i] + 1, s->z[i] != 0 ? "z" : "vz",
                      s->z[i] != 0 ? s->z[i] : s->vz[i]);
            return MDL_EINPUT;
        }
    s->box.dim = 2;
    s->box.periodic[2] = 0;
    return MDL_OK;
}

int system_setup(const mdl_config *cfg, const mdl_units *u, mdl_system *s, mdl_normals_fn draw)
{
    int rc = cfg->input[0] ? read_input(cfg, s) : build_lattice(cfg, s);
    if (rc == MDL_OK && cfg->input[0])
        rc = check_memory(cfg, s->n, (double)s->n / box_volume(&s->box), cfg->input);
    if (rc != MDL_OK)
        return rc;
    if (s->n < 1) {
        mdl_error("%s: the system has no atoms; a run needs at least 1", cfg->input[0] ? cfg->input : cfg->path);
        return MDL_EINPUT;
    }
    if ((rc = make_boundary(cfg, s)) != MDL_OK || (rc = make_2d(cfg, s)) != MDL_OK ||
        (rc = system_make_groups(cfg, s, 0)) != MDL_OK || (rc = system_set_types(cfg, s)) != MDL_OK ||
        (rc = system_make_groups(cfg, s, 1)) != MDL_OK ||
        (rc = system_assign_masses(cfg, s)) != MDL_OK || (cfg->delete_atoms_first && (rc = system_delete_atoms(cfg, s))))
        return rc;
    if (s->has_velocities && cfg->temperature >= 0 && cfg->velocities) { /* LAMMPS's velocity create after read_data */
        mdl_note("%s: [system] velocities = %s replaces the velocities read from %s, as LAMMPS's velocity create "
                 "does", config_origin(cfg, "system", "velocities"), cfg->velocities == 1 ? "lammps-all" : "lammps-geom",
                 cfg->input);
        s->has_velocities = 0;
    }
    if (s->has_velocities) {
        if (cfg->temperature >= 0) {
            mdl_error("%s: [system] temperature: contradicts the velocities in %s (they are used as read); "
                      "remove one", config_origin(cfg, "system", "temperature"), cfg->input);
            return MDL_EINPUT;
        }
        MDL_TRY(system_velocity_edits(cfg, u, s));
        return cfg->delete_atoms_first ? MDL_OK : system_delete_atoms(cfg, s);
    }
    if (cfg->temperature < 0) {
        mdl_error("%s: [system] temperature: missing: initial velocities need a temperature",
                  config_origin(cfg, "system", "temperature"));
        return MDL_EINPUT;
    }
    MDL_TRY(create_velocities(cfg, u, s, draw));
    MDL_TRY(system_velocity_edits(cfg, u, s));
    return cfg->delete_atoms_first ? MDL_OK : system_delete_atoms(cfg, s);
}

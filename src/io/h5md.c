/* The H5MD 1.1 writer (HDF5 C library): particles/trajectory with position, velocity, force,
   image and box/edges sharing one step/time pair, observables, parameters, and mdlite's
   full-precision checkpoint for exact restarts. */
#define _POSIX_C_SOURCE 200809L
#include "h5md.h"

#include "h5md_series.h"

#include "frame_check.h"
#include "../util/util.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 1 eV/Angstrom in kJ mol-1 Angstrom-1 (MDAnalysis has no eV-based force unit). */
#define EV_TO_KJMOL 96.48533212331002

struct h5md_file {
    char path[MDL_PATH_LEN];
    hid_t file;
    series pos, vel, frc, img, edges, obs[5];
    series dt;       /* observables/dt: the time between frames (MDAnalysis's frame spacing) */
    int has_dt;      /* 0: a file written before it, appended to */
    double frame_dt; /* dump_every x timestep */
    int fields;
    int has_obs;
    hid_t st_species, st_mass, st_id; /* open until the first frame fills them */
    hid_t ck_pos, ck_vel, ck_frc, ck_img, ck_group;
    int checkpoint; /* output.checkpoint */
    hsize_t nframes;
    size_t n;
    double force_factor;
    float *fbuf;
    int32_t *ibuf;
    double *dbuf;
    int units;   /* write unit attributes (metal) */
    char force_origin[4096]; /* config_force_origin: the checkpoint's attribute "forces" */
    char stage_plan[8192];   /* config_stage_plan: the checkpoint's attribute "stage_plan" */
};

static const char *OBS_NAMES[5] = {"temperature", "potential_energy", "kinetic_energy", "total_energy", "pressure"};
static const char *OBS_UNITS[5] = {"K", "eV", "eV", "eV", "bar"};

static int fail_h5(const h5md_file *h, const char *what)
{
    return h5md_fail(h->path, what);
}

#define H5TRY(expr, what)                     \
    do {                                      \
        if ((expr) < 0)                       \
            return fail_h5(h, what);          \
    } while (0)

/* ---- open / create ---------------------------------------------------------------------------- */

static hid_t checkpoint_dataset(hid_t g, const char *name, hid_t type, size_t n)
{
    hsize_t dims[2] = {n, 3};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(g, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sclose(space);
    return d;
}

/* checkpoint/build_order: n int32 values (< 0 on failure). */
static herr_t write_build_order(h5md_file *h, const int32_t *order, size_t n)
{
    hsize_t dims = n;
    hid_t space = H5Screate_simple(1, &dims, NULL);
    hid_t d = space < 0 ? -1 : H5Dcreate2(h->ck_group, "build_order", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT,
                                          H5P_DEFAULT);
    herr_t rc = d < 0 ? -1 : H5Dwrite(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, order);
    if (d >= 0)
        H5Dclose(d);
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

/* species, mass and id: created with the file, filled by the first frame's write (so that, with
   asynchronous output, the writer thread rather than the set-up pays for them). */
static int create_static(h5md_file *h, hid_t part, const mdl_system *s)
{
    hsize_t n = s->n;
    hid_t space = H5Screate_simple(1, &n, NULL);
    h->st_species = H5Dcreate2(part, "species", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    h->st_mass = H5Dcreate2(part, "mass", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    h->st_id = H5Dcreate2(part, "id", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sclose(space);
    int rc = h->st_species < 0 || h->st_mass < 0 || h->st_id < 0 ? -1 : 0;
    const char *names[MDL_MAX_SPECIES];
    for (int t = 0; t < s->ntypes; t++)
        names[t] = s->species[t];
    if (rc >= 0)
        rc = attr_strings(h->st_species, "names", names, (hsize_t)s->ntypes);
    if (rc >= 0 && h->units)
        rc = attr_string(h->st_mass, "unit", "g mol-1");
    return rc < 0 ? fail_h5(h, "creating species, mass and id") : MDL_OK;
}

static void close_static(h5md_file *h)
{
    hid_t d[3] = {h->st_species, h->st_mass, h->st_id};
    for (int k = 0; k < 3; k++)
        if (d[k] > 0)
            H5Dclose(d[k]);
    h->st_species = h->st_mass = h->st_id = 0;
}

static int write_static(h5md_file *h, const mdl_system *s)
{
    double *mass = h->dbuf;
    for (size_t i = 0; i < s->n; i++) {
        h->ibuf[i] = s->type[i];
        mass[i] = s->mass[s->type[i]];
    }
    int rc = H5Dwrite(h->st_species, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, h->ibuf);
    if (rc >= 0)
        rc = H5Dwrite(h->st_mass, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, mass);
    if (rc >= 0)
        rc = H5Dwrite(h->st_id, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, s->id);
    close_static(h);
    return rc < 0 ? fail_h5(h, "writing species, mass and id") : MDL_OK;
}

/* The run's provenance into group g: the configuration in effect, the command line, the file a
   restart continued from. */
static int write_provenance(h5md_file *h, hid_t g, const mdl_config *cfg)
{
    char *effective = config_effective_text(cfg);
    herr_t written = effective ? dataset_string(g, "effective_config", effective) : -1;
    free(effective);
    H5TRY(written, "writing the effective configuration");
    H5TRY(dataset_string(g, "command_line", cfg->command), "writing the command line");
    H5TRY(dataset_string(g, "restart_from", cfg->restart_from), "writing the restart's source");
    return MDL_OK;
}

/* A restart appending to this file: its provenance in parameters/continued/K (K = 1, 2, ...). */
static int record_continuation(h5md_file *h, const mdl_config *cfg)
{
    hid_t par, cont, g;
    H5TRY(par = H5Gopen2(h->file, "parameters", H5P_DEFAULT), "opening parameters");
    if (H5Lexists(par, "continued", H5P_DEFAULT) <= 0)
        H5TRY(cont = H5Gcreate2(par, "continued", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "recording the restart");
    else
        H5TRY(cont = H5Gopen2(par, "continued", H5P_DEFAULT), "recording the restart");
    H5G_info_t info;
    H5TRY(H5Gget_info(cont, &info), "recording the restart");
    char name[32];
    snprintf(name, sizeof name, "%llu", (unsigned long long)info.nlinks + 1);
    H5TRY(g = H5Gcreate2(cont, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "recording the restart");
    int rc = write_provenance(h, g, cfg);
    H5Gclose(g), H5Gclose(cont), H5Gclose(par);
    return rc;
}

static int create_layout(h5md_file *h, const mdl_config *cfg, const mdl_system *s)
{
    int compress = cfg->compress;
    hid_t f = h->file;
    /* h5md: version, author, creator */
    hid_t g;
    int version[2] = {1, 1};
    H5TRY(g = H5Gcreate2(f, "h5md", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating h5md");
    H5TRY(attr_ints(g, "version", version, 2), "writing the version");
    hid_t a, c;
    H5TRY(a = H5Gcreate2(g, "author", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating author");
    const char *user = getenv("USER");
    H5TRY(attr_string(a, "name", user && user[0] ? user : "mdlite user"), "writing author");
    H5Gclose(a);
    H5TRY(c = H5Gcreate2(g, "creator", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating creator");
    H5TRY(attr_string(c, "name", "mdlite"), "writing creator");
    H5TRY(attr_string(c, "version", MDLITE_VERSION), "writing creator");
    H5Gclose(c);
    if (h->units) { /* the unit attributes below follow H5MD's units module */
        hid_t m, un;
        int module_version[2] = {1, 0};
        H5TRY(m = H5Gcreate2(g, "modules", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating modules");
        H5TRY(un = H5Gcreate2(m, "units", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating the units module");
        H5TRY(attr_ints(un, "version", module_version, 2), "writing the units module");
        H5Gclose(un);
        H5Gclose(m);
    }
    H5Gclose(g);

    /* particles/trajectory */
    hid_t parts, traj, box;
    H5TRY(parts = H5Gcreate2(f, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating particles");
    H5TRY(traj = H5Gcreate2(parts, "trajectory", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating trajectory");
    const series *owner = NULL;
    size_t n = s->n;
    struct {
        int field;
        series *s;
        const char *name;
        hid_t type;
        const char *unit;
    } fs[] = {{MDL_DUMP_POSITION, &h->pos, "position", H5T_IEEE_F32LE, "Angstrom"},
              {MDL_DUMP_VELOCITY, &h->vel, "velocity", H5T_IEEE_F32LE, "Angstrom ps-1"},
              {MDL_DUMP_FORCE, &h->frc, "force", H5T_IEEE_F32LE, "kJ mol-1 Angstrom-1"},
              {MDL_DUMP_IMAGE, &h->img, "image", H5T_STD_I32LE, NULL}};
    for (int k = 0; k < 4; k++) {
        if (!(h->fields & fs[k].field))
            continue;
        if (series_create(h->path, h->units, fs[k].s, traj, fs[k].name, fs[k].type, 2, n, 3, owner, compress, fs[k].unit) != MDL_OK)
            return MDL_ERUN;
        if (!owner)
            owner = fs[k].s;
    }
    H5TRY(box = H5Gcreate2(traj, "box", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating box");
    int dim = 3;
    const char *boundary[3]; /* H5MD's: "none" along a non-periodic dimension (a 2-d system's z is LAMMPS's periodic one) */
    for (int d = 0; d < 3; d++)
        boundary[d] = s->box.periodic[d] || (d == 2 && s->box.dim == 2) ? "periodic" : "none";
    H5TRY(attr_ints(box, "dimension", &dim, 0), "writing box dimension");
    H5TRY(attr_strings(box, "boundary", boundary, 3), "writing box boundary");
    if (series_create(h->path, h->units, &h->edges, box, "edges", H5T_IEEE_F64LE, 2, 3, 3, owner, 0, "Angstrom") != MDL_OK)
        return MDL_ERUN;
    H5Gclose(box);
    if (create_static(h, traj, s) != MDL_OK)
        return MDL_ERUN;
    H5Gclose(traj);
    H5Gclose(parts);

    /* observables, on the trajectory's steps */
    hid_t obs;
    H5TRY(obs = H5Gcreate2(f, "observables", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating observables");
    for (int k = 0; k < 5; k++)
        if (series_create(h->path, h->units, &h->obs[k], obs, OBS_NAMES[k], H5T_IEEE_F64LE, 0, 0, 0, owner, 0, OBS_UNITS[k]) != MDL_OK)
            return MDL_ERUN;
    if (series_create(h->path, h->units, &h->dt, obs, "dt", H5T_IEEE_F64LE, 0, 0, 0, owner, 0, "ps") != MDL_OK)
        return MDL_ERUN;
    h->has_dt = 1;
    H5Gclose(obs);

    /* parameters: the configuration and the program */
    hid_t par;
    H5TRY(par = H5Gcreate2(f, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating parameters");
    H5TRY(dataset_string(par, "config", cfg->text ? cfg->text : ""), "writing the configuration");
    if (write_provenance(h, par, cfg) != MDL_OK)
        return MDL_ERUN;
    H5TRY(dataset_string(par, "program_version", "mdlite " MDLITE_VERSION), "writing the version");
    H5TRY(dataset_string(par, "units", cfg->units), "writing the units");
    H5TRY(dataset_string(par, "positions", cfg->unwrapped ? "unwrapped" : "wrapped"), "writing the positions' convention");
    H5Gclose(par);

    /* mdlite's checkpoint: the last frame in double precision, forces included */
    if (!cfg->checkpoint)
        return MDL_OK;
    H5TRY(h->ck_group = H5Gcreate2(f, "checkpoint", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating checkpoint");
    H5TRY(h->ck_pos = checkpoint_dataset(h->ck_group, "position", H5T_IEEE_F64LE, n), "creating checkpoint");
    H5TRY(h->ck_vel = checkpoint_dataset(h->ck_group, "velocity", H5T_IEEE_F64LE, n), "creating checkpoint");
    H5TRY(h->ck_frc = checkpoint_dataset(h->ck_group, "force", H5T_IEEE_F64LE, n), "creating checkpoint");
    H5TRY(h->ck_img = checkpoint_dataset(h->ck_group, "image", H5T_STD_I32LE, n), "creating checkpoint");
    double zero[3] = {0, 0, 0};
    H5TRY(attr_doubles(h->ck_group, "step", zero, 0, 1), "creating checkpoint");
    H5TRY(attr_doubles(h->ck_group, "time", zero, 0, 1), "creating checkpoint");
    for (int k = 0; k < 3; k++)
        H5TRY(attr_doubles(h->ck_group, k == 0 ? "box_lo" : k == 1 ? "box_length" : "box_tilt", zero, 3, 1),
              "creating checkpoint");
    H5TRY(attr_string(h->ck_group, "note", "mdlite restart data: the last frame in double precision (wrapped "
                                            "positions, images, velocities, forces in the run's units)"),
          "creating checkpoint");
    return MDL_OK;
}

/* Appending: the checkpoint to keep up to date (none needed with output.checkpoint = no). */
static int open_checkpoint(h5md_file *h)
{
    if (!h->checkpoint && H5Lexists(h->file, "checkpoint", H5P_DEFAULT) <= 0)
        return MDL_OK;
    H5TRY(h->ck_group = H5Gopen2(h->file, "checkpoint", H5P_DEFAULT), "opening checkpoint");
    H5TRY(h->ck_pos = H5Dopen2(h->ck_group, "position", H5P_DEFAULT), "opening checkpoint");
    H5TRY(h->ck_vel = H5Dopen2(h->ck_group, "velocity", H5P_DEFAULT), "opening checkpoint");
    H5TRY(h->ck_frc = H5Dopen2(h->ck_group, "force", H5P_DEFAULT), "opening checkpoint");
    H5TRY(h->ck_img = H5Dopen2(h->ck_group, "image", H5P_DEFAULT), "opening checkpoint");
    return MDL_OK;
}

static int open_layout(h5md_file *h)
{
    hid_t traj, box, obs;
    size_t n = h->n;
    H5TRY(traj = H5Gopen2(h->file, "particles/trajectory", H5P_DEFAULT), "opening particles/trajectory");
    int owner = 1;
    struct {
        int field;
        series *s;
        const char *name;
    } fs[] = {{MDL_DUMP_POSITION, &h->pos, "position"}, {MDL_DUMP_VELOCITY, &h->vel, "velocity"},
              {MDL_DUMP_FORCE, &h->frc, "force"}, {MDL_DUMP_IMAGE, &h->img, "image"}};
    for (int k = 0; k < 4; k++) {
        int present = H5Lexists(traj, fs[k].name, H5P_DEFAULT) > 0;
        if (present != !!(h->fields & fs[k].field)) {
            mdl_error("%s: cannot append: the file's fields differ from [output] dump_fields", h->path);
            return MDL_EINPUT;
        }
        if (present && series_open(h->path, fs[k].s, traj, fs[k].name, 2, n, 3, owner) != MDL_OK)
            return MDL_ERUN;
        if (present)
            owner = 0;
    }
    H5TRY(box = H5Gopen2(traj, "box", H5P_DEFAULT), "opening box");
    if (series_open(h->path, &h->edges, box, "edges", 2, 3, 3, 0) != MDL_OK)
        return MDL_ERUN;
    H5Gclose(box);
    H5Gclose(traj);
    H5TRY(obs = H5Gopen2(h->file, "observables", H5P_DEFAULT), "opening observables");
    for (int k = 0; k < 5; k++)
        if (series_open(h->path, &h->obs[k], obs, OBS_NAMES[k], 0, 0, 0, 0) != MDL_OK)
            return MDL_ERUN;
    h->has_dt = H5Lexists(obs, "dt", H5P_DEFAULT) > 0;
    if (h->has_dt && series_open(h->path, &h->dt, obs, "dt", 0, 0, 0, 0) != MDL_OK)
        return MDL_ERUN;
    H5Gclose(obs);
    if (open_checkpoint(h) != MDL_OK)
        return MDL_ERUN;
    /* frames so far: the length of the shared step dataset */
    series *first = h->pos.owner ? &h->pos : h->vel.owner ? &h->vel : h->frc.owner ? &h->frc : &h->img;
    hid_t sp = H5Dget_space(first->step);
    hsize_t dims[1] = {0};
    H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Sclose(sp);
    h->nframes = dims[0]; /* the last is the checkpoint's (the restart's reader checked it) */
    return MDL_OK;
}

int h5md_open(h5md_file **out, const mdl_config *cfg, const mdl_units *u, const mdl_system *s, int append,
              const char *target)
{
    h5_enter();
    h5md_file *h = calloc(1, sizeof *h);
    if (!h)
        return MDL_ERUN;
    *out = h;
    mdl_copy(h->path, sizeof h->path, cfg->trajectory);
    h->n = s->n;
    h->fields = traj_fields_written(cfg);
    h->frame_dt = cfg->dump_every * cfg->timestep;
    h->checkpoint = cfg->checkpoint;
    h->units = strcmp(u->name, "metal") == 0;
    h->force_factor = h->units ? EV_TO_KJMOL : 1.0;
    config_force_origin(cfg, h->force_origin, sizeof h->force_origin);
    config_stage_plan(cfg, h->stage_plan, sizeof h->stage_plan);
    h->fbuf = malloc(9 * s->n * sizeof(float));
    h->ibuf = malloc(3 * s->n * sizeof(int32_t));
    h->dbuf = malloc(3 * s->n * sizeof(double));
    if (!h->fbuf || !h->ibuf || !h->dbuf) {
        mdl_error("%s: out of memory for the H5MD buffers", h->path);
        return MDL_ERUN;
    }
    errno = 0;
    /* run.c holds an exclusive lock on the file (outfile_claim); HDF5's own lock, taken on a
       second descriptor, would clash with it */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_file_locking(fapl, 0, 1);
    if (append) {
        h->file = H5Fopen(target, H5F_ACC_RDWR, fapl);
        H5Pclose(fapl);
        if (h->file < 0) {
            mdl_error("%s: cannot open the trajectory to append to it", h->path);
            return MDL_EINPUT;
        }
        MDL_TRY(h5md_same_positions(h->file, h->path, cfg->unwrapped));
        int rc = open_layout(h);
        return rc == MDL_OK ? record_continuation(h, cfg) : rc;
    }
    h->file = H5Fcreate(target, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (h->file < 0) {
        mdl_error("%s: [output] trajectory: cannot create the file%s%s", h->path, errno ? ": " : "",
                  errno ? strerror(errno) : "");
        return MDL_EINPUT;
    }
    int rc = create_layout(h, cfg, s);
    if (rc == MDL_OK && H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0)
        rc = fail_h5(h, "flushing");
    return rc;
}

/* ---- frames ------------------------------------------------------------------------------------ */

/* Interleaves x, y, z (times f) as float; the first atom whose value is not finite as a float
   (not finite, or beyond single precision), or -1. */
static long pack3(float *out, const double *x, const double *y, const double *z, size_t n, double f)
{
    int finite = 1;
    for (size_t i = 0; i < n; i++) {
        out[3 * i] = (float)(x[i] * f);
        out[3 * i + 1] = (float)(y[i] * f);
        out[3 * i + 2] = (float)(z[i] * f);
        finite &= isfinite(out[3 * i]) & isfinite(out[3 * i + 1]) & isfinite(out[3 * i + 2]);
    }
    for (size_t i = 0; !finite && i < 3 * n; i++)
        if (!isfinite(out[i]))
            return (long)(i / 3);
    return -1;
}

static void pack3d(double *out, const double *x, const double *y, const double *z, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        out[3 * i] = x[i];
        out[3 * i + 1] = y[i];
        out[3 * i + 2] = z[i];
    }
}

static void pack3i(int32_t *out, const int32_t *x, const int32_t *y, const int32_t *z, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        out[3 * i] = x[i];
        out[3 * i + 1] = y[i];
        out[3 * i + 2] = z[i];
    }
}

static int write_checkpoint(h5md_file *h, const mdl_frame *f)
{
    const mdl_system *s = f->s;
    size_t n = s->n;
    /* a checkpoint with a non-finite value would poison every restart: keep the last good one */
    if (frame_nonfinite(h->path, f->step, "position", s->x, s->y, s->z, n) ||
        frame_nonfinite(h->path, f->step, "velocity", s->vx, s->vy, s->vz, n) ||
        frame_nonfinite(h->path, f->step, "force", s->fx, s->fy, s->fz, n))
        return MDL_ERUN;
    pack3d(h->dbuf, s->x, s->y, s->z, n);
    H5TRY(H5Dwrite(h->ck_pos, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, h->dbuf), "writing the checkpoint");
    pack3d(h->dbuf, s->vx, s->vy, s->vz, n);
    H5TRY(H5Dwrite(h->ck_vel, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, h->dbuf), "writing the checkpoint");
    pack3d(h->dbuf, s->fx, s->fy, s->fz, n);
    H5TRY(H5Dwrite(h->ck_frc, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, h->dbuf), "writing the checkpoint");
    pack3i(h->ibuf, s->ix, s->iy, s->iz, n);
    H5TRY(H5Dwrite(h->ck_img, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, h->ibuf), "writing the checkpoint");
    double step = (double)f->step;
    H5TRY(attr_doubles(h->ck_group, "step", &step, 0, 0), "writing the checkpoint");
    H5TRY(attr_doubles(h->ck_group, "time", &f->time, 0, 0), "writing the checkpoint");
    if (H5Aexists(h->ck_group, "time_origin") > 0)
        H5TRY(H5Adelete(h->ck_group, "time_origin"), "writing the checkpoint");
    H5TRY(attr_doubles(h->ck_group, "time_origin", f->time_origin, 2, 1), "writing the checkpoint");
    H5TRY(attr_doubles(h->ck_group, "box_lo", s->box.lo, 3, 0), "writing the checkpoint");
    H5TRY(attr_doubles(h->ck_group, "box_length", s->box.len, 3, 0), "writing the checkpoint");
    H5TRY(attr_doubles(h->ck_group, "box_tilt", s->box.tilt, 3, H5Aexists(h->ck_group, "box_tilt") <= 0),
          "writing the checkpoint");
    /* a restart may continue this file otherwise (another backend: no build positions) */
    const char *redone[] = {"forces", "thermostat", "stages_from", "build_step", "stage_plan", "build_box_lo",
                            "build_box_length", "build_box_tilt"};
    for (size_t k = 0; k < sizeof redone / sizeof redone[0]; k++)
        if (H5Aexists(h->ck_group, redone[k]) > 0)
            H5TRY(H5Adelete(h->ck_group, redone[k]), "writing the checkpoint");
    for (int k = 0; k < 2; k++) {
        const char *name = k ? "build_order" : "build_position";
        if (H5Lexists(h->ck_group, name, H5P_DEFAULT) > 0)
            H5TRY(H5Ldelete(h->ck_group, name, H5P_DEFAULT), "writing the checkpoint");
    }
    if (s->bx && f->last_build >= 0 && f->last_build <= f->step) { /* the lists' last build, to build again */
        hid_t d;
        pack3d(h->dbuf, s->bx, s->by, s->bz, n);
        H5TRY(d = checkpoint_dataset(h->ck_group, "build_position", H5T_IEEE_F64LE, n), "writing the checkpoint");
        herr_t rc = H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, h->dbuf);
        H5Dclose(d);
        H5TRY(rc, "writing the checkpoint");
        const double built = (double)f->last_build;
        H5TRY(attr_doubles(h->ck_group, "build_step", &built, 0, 1), "writing the checkpoint");
        H5TRY(attr_doubles(h->ck_group, "build_box_lo", f->build_box.lo, 3, 1), "writing the checkpoint");
        H5TRY(attr_doubles(h->ck_group, "build_box_length", f->build_box.len, 3, 1), "writing the checkpoint");
        H5TRY(attr_doubles(h->ck_group, "build_box_tilt", f->build_box.tilt, 3, 1), "writing the checkpoint");
        if (s->border) /* the backend's order at that build, by id (its order is not the positions' alone) */
            H5TRY(write_build_order(h, s->border, n), "writing the checkpoint");
    }
    H5TRY(attr_string(h->ck_group, "forces", f->force_origin[0] ? f->force_origin : h->force_origin),
          "writing the checkpoint");
    if (f->nstate > 0)
        H5TRY(attr_doubles(h->ck_group, "thermostat", f->thermostat, (hsize_t)f->nstate, 1), "writing the checkpoint");
    if (f->staged) {
        const double from = (double)f->stages_from;
        H5TRY(attr_doubles(h->ck_group, "stages_from", &from, 0, 1), "writing the checkpoint");
        H5TRY(attr_string(h->ck_group, "stage_plan", h->stage_plan), "writing the checkpoint");
    }
    if (checkpoint_results_put(h->file, h->path, f->results, f->s->ntypes) != 0)
        return MDL_ERUN;
    return checkpoint_analysis_put(h->file, h->path, f->analysis) == 0 ? MDL_OK : MDL_ERUN;
}

/* Packs the frame's float fields into fbuf (position, velocity, force, 3n each); MDL_ERUN with
   a message, before anything is written, when a value is not finite. */
static int pack_frame(h5md_file *h, const mdl_frame *f)
{
    const mdl_system *s = f->s;
    size_t n = s->n;
    struct {
        int field;
        const double *x, *y, *z;
        double factor;
        const char *name;
    } fs[3] = {{MDL_DUMP_POSITION, f->at[0] ? f->at[0] : s->x, f->at[0] ? f->at[1] : s->y, f->at[0] ? f->at[2] : s->z,
                1.0, "position"},
               {MDL_DUMP_VELOCITY, s->vx, s->vy, s->vz, 1.0, "velocity"},
               {MDL_DUMP_FORCE, s->fx, s->fy, s->fz, h->force_factor, "force"}};
    for (int k = 0; k < 3; k++) {
        long bad = (h->fields & fs[k].field) ? pack3(h->fbuf + 3 * n * (size_t)k, fs[k].x, fs[k].y, fs[k].z, n,
                                                     fs[k].factor) : -1;
        if (bad >= 0) {
            mdl_error("%s: frame at step %ld: atom %ld: the %s (%g %g %g) is not finite in single precision; the "
                      "frame is not written (the file keeps the frames before it)", h->path, f->step, bad,
                      fs[k].name, fs[k].x[bad], fs[k].y[bad], fs[k].z[bad]);
            return MDL_ERUN;
        }
    }
    return MDL_OK;
}

int h5md_write(h5md_file *h, const mdl_frame *f)
{
    h5_enter();
    if (f->checkpoint_only) /* the frame is in the file already: its checkpoint alone */
        return f->checkpoint ? write_checkpoint(h, f) : MDL_OK;
    const mdl_system *s = f->s;
    size_t n = s->n;
    if (pack_frame(h, f) != MDL_OK)
        return MDL_ERUN;
    if (h->st_id > 0 && write_static(h, s) != MDL_OK)
        return MDL_ERUN;
    series *fs[3] = {&h->pos, &h->vel, &h->frc};
    for (int k = 0; k < 3; k++)
        if ((h->fields & (1 << k)) &&
            series_append(h->path, h->nframes, fs[k], H5T_NATIVE_FLOAT, h->fbuf + 3 * n * (size_t)k, f->step, f->time) != MDL_OK)
            return MDL_ERUN;
    if (h->fields & MDL_DUMP_IMAGE) {
        pack3i(h->ibuf, s->ix, s->iy, s->iz, n);
        if (series_append(h->path, h->nframes, &h->img, H5T_NATIVE_INT32, h->ibuf, f->step, f->time) != MDL_OK)
            return MDL_ERUN;
    }
    /* rows: the edge vectors a, b, c (H5MD's triclinic box; an orthogonal box's a diagonal) */
    double edges[9] = {s->box.len[0], 0, 0, s->box.tilt[0], s->box.len[1], 0, s->box.tilt[1], s->box.tilt[2], s->box.len[2]};
    if (series_append(h->path, h->nframes, &h->edges, H5T_NATIVE_DOUBLE, edges, f->step, f->time) != MDL_OK)
        return MDL_ERUN;
    if (f->obs) {
        /* pe as thermo's: with the energy of the fixes that count theirs (fix indent's energy yes) */
        double na = (double)n, pe = (f->obs->potential + f->obs->fix_energy) / na, ke = f->obs->kinetic / na;
        double v[5] = {f->obs->temperature, pe, ke, pe + ke, f->obs->pressure};
        for (int k = 0; k < 5; k++)
            if (series_append(h->path, h->nframes, &h->obs[k], H5T_NATIVE_DOUBLE, &v[k], f->step, f->time) != MDL_OK)
                return MDL_ERUN;
        if (h->has_dt &&
            series_append(h->path, h->nframes, &h->dt, H5T_NATIVE_DOUBLE, &h->frame_dt, f->step, f->time) != MDL_OK)
            return MDL_ERUN;
    }
    if (f->checkpoint && write_checkpoint(h, f) != MDL_OK)
        return MDL_ERUN;
    h->nframes++;
    return MDL_OK;
}

int h5md_flush(h5md_file *h)
{
    h5_enter();
    errno = 0;
    H5TRY(H5Fflush(h->file, H5F_SCOPE_GLOBAL), "flushing");
    return MDL_OK;
}

int h5md_put_table(h5md_file *h, const char *group, const char *name, const double *v, size_t rows, size_t cols,
                   const char *unit)
{
    h5_enter();
    H5TRY(dataset_table(h->file, group, name, v, rows, cols, unit), "writing the analysis");
    return MDL_OK;
}

int h5md_close(h5md_file *h)
{
    if (!h)
        return MDL_OK;
    h5_enter();
    int rc = MDL_OK;
    if (h->file > 0) {
        series *all[] = {&h->pos, &h->vel, &h->frc, &h->img, &h->edges, &h->obs[0], &h->obs[1], &h->obs[2], &h->obs[3], &h->obs[4], &h->dt};
        for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
            series_close(all[k]);
        close_static(h);
        hid_t ck[] = {h->ck_pos, h->ck_vel, h->ck_frc, h->ck_img};
        for (int k = 0; k < 4; k++)
            if (ck[k] > 0)
                H5Dclose(ck[k]);
        if (h->ck_group > 0)
            H5Gclose(h->ck_group);
        errno = 0;
        if (H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0 || H5Fclose(h->file) < 0)
            rc = fail_h5(h, "closing");
    }
    free(h->fbuf), free(h->ibuf), free(h->dbuf), free(h);
    return rc;
}

/* Reads and validates the checkpoint of an mdlite H5MD file for --restart: every value finite,
   a sane step and time, the run's units, the configured atom count and species, a real box with
   the atoms inside it. Every message names the restart file. */
#include "checkpoint.h"

#include "../util/util.h"
#include "h5md_series.h"

#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *path;
    hid_t file, group;
    size_t n;
} ck_reader;

static int ck_fail(const ck_reader *r, const char *what)
{
    mdl_error("%s: --restart: %s", r->path, what);
    H5Eclear2(H5E_DEFAULT);
    return MDL_EINPUT;
}

static int read_n3(const ck_reader *r, const char *name, hid_t memtype, void *buf)
{
    hid_t d = H5Dopen2(r->group, name, H5P_DEFAULT);
    if (d < 0) {
        mdl_error("%s: --restart: no checkpoint/%s (not a trajectory written by mdlite?)", r->path, name);
        return MDL_EINPUT;
    }
    hid_t sp = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    int rank = sp < 0 ? -1 : H5Sget_simple_extent_ndims(sp);
    if (rank == 2)
        H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Sclose(sp);
    herr_t rc = -1;
    if (rank == 2 && dims[0] == r->n && dims[1] == 3)
        rc = H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    H5Dclose(d);
    if (rank != 2 || dims[1] != 3) {
        mdl_error("%s: --restart: checkpoint/%s is not an N x 3 array", r->path, name);
        return MDL_EINPUT;
    }
    if (dims[0] != r->n) {
        mdl_error("%s: --restart: checkpoint/%s holds %llu atoms, the configuration %zu", r->path, name,
                  (unsigned long long)dims[0], r->n);
        return MDL_EINPUT;
    }
    return rc < 0 ? ck_fail(r, "cannot read the checkpoint (damaged file?)") : MDL_OK;
}

/* A scalar or `count`-vector double attribute of the checkpoint group, every element finite. */
static int read_attr(const ck_reader *r, const char *name, double *v, int count)
{
    hid_t a = H5Aopen(r->group, name, H5P_DEFAULT);
    hid_t sp = a < 0 ? -1 : H5Aget_space(a);
    hssize_t have = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
    herr_t rc = have == count ? H5Aread(a, H5T_NATIVE_DOUBLE, v) : -1;
    if (sp >= 0)
        H5Sclose(sp);
    if (a >= 0)
        H5Aclose(a);
    if (rc < 0) {
        mdl_error("%s: --restart: checkpoint attribute %s missing or not %d number%s", r->path, name, count,
                  count == 1 ? "" : "s");
        return MDL_EINPUT;
    }
    for (int k = 0; k < count; k++)
        if (!isfinite(v[k])) {
            mdl_error("%s: --restart: checkpoint attribute %s is %g", r->path, name, v[k]);
            return MDL_EINPUT;
        }
    return MDL_OK;
}

/* The units the file was written in: the checkpoint's attribute, or /parameters/units. */
static int check_units(const ck_reader *r, const char *units)
{
    char buf[32] = "";
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, H5T_VARIABLE);
    char *v = NULL;
    hid_t d = H5Lexists(r->file, "parameters/units", H5P_DEFAULT) > 0 ? H5Dopen2(r->file, "parameters/units", H5P_DEFAULT) : -1;
    hid_t ft = d >= 0 ? H5Dget_type(d) : -1;
    if (ft >= 0 && H5Tget_class(ft) == H5T_STRING)
        H5Tset_cset(str, H5Tget_cset(ft));
    if (ft >= 0 && H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) > 0 &&
        H5Dread(d, str, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0 && v) {
        mdl_copy(buf, sizeof buf, v);
        H5free_memory(v);
    } else if (ft >= 0 && H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) == 0 && H5Tget_size(ft) < sizeof buf) {
        hid_t fixed = H5Tcopy(H5T_C_S1);
        H5Tset_size(fixed, H5Tget_size(ft) + 1);
        H5Tset_cset(fixed, H5Tget_cset(ft));
        if (H5Dread(d, fixed, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
            buf[0] = '\0';
        H5Tclose(fixed);
    }
    if (ft >= 0)
        H5Tclose(ft);
    if (d >= 0)
        H5Dclose(d);
    H5Tclose(str);
    if (!buf[0])
        return ck_fail(r, "no parameters/units (not a trajectory written by mdlite?)");
    if (strcmp(buf, units) != 0) {
        mdl_error("%s: --restart: the file was written in %s units, the configuration has %s", r->path, buf, units);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

static int check_finite(const ck_reader *r, const char *name, const double *d)
{
    for (size_t i = 0; i < 3 * r->n; i++)
        if (!isfinite(d[i])) {
            mdl_error("%s: --restart: checkpoint/%s of atom %zu is %g", r->path, name, i / 3, d[i]);
            return MDL_EINPUT;
        }
    return MDL_OK;
}

/* Step, time and box: written (a zero box is the checkpoint of a run stopped before its first
   flush), sane, and the atoms inside the box. */
static int read_header(const ck_reader *r, long *step, double *time, double lo[3], double len[3])
{
    double st;
    if (read_attr(r, "step", &st, 1) || read_attr(r, "time", time, 1) || read_attr(r, "box_lo", lo, 3) ||
        read_attr(r, "box_length", len, 3))
        return MDL_EINPUT;
    if (len[0] == 0 && len[1] == 0 && len[2] == 0)
        return ck_fail(r, "the checkpoint was never written (the run stopped before its first flush); restart from "
                          "another file, or start anew");
    for (int d = 0; d < 3; d++)
        if (!(len[d] > 0))
            return ck_fail(r, "the checkpoint's box has a length that is not positive");
    if (st < 0 || st > 9.0e15 || st != floor(st)) {
        mdl_error("%s: --restart: checkpoint step %g is not a step number", r->path, st);
        return MDL_EINPUT;
    }
    *step = (long)st;
    return MDL_OK;
}

static int read_state(const ck_reader *r, mdl_system *s, const double lo[3], const double len[3])
{
    size_t n = r->n;
    double *d = malloc(3 * n * sizeof *d);
    int32_t *im = malloc(3 * n * sizeof *im);
    int rc = d && im ? MDL_OK : MDL_ERUN;
    double *dst[3][3] = {{s->x, s->y, s->z}, {s->vx, s->vy, s->vz}, {s->fx, s->fy, s->fz}};
    const char *names[3] = {"position", "velocity", "force"};
    for (int k = 0; k < 3 && rc == MDL_OK; k++) {
        rc = read_n3(r, names[k], H5T_NATIVE_DOUBLE, d);
        if (rc == MDL_OK)
            rc = check_finite(r, names[k], d);
        for (size_t i = 0; i < n && rc == MDL_OK; i++)
            dst[k][0][i] = d[3 * i], dst[k][1][i] = d[3 * i + 1], dst[k][2][i] = d[3 * i + 2];
    }
    for (size_t i = 0; i < n && rc == MDL_OK; i++)
        for (int c = 0; c < 3; c++) {
            double v = dst[0][c][i];
            /* wrapped at the last build: since then an atom moved less than the skin */
            if (v < lo[c] - len[c] || v > lo[c] + 2 * len[c]) {
                mdl_error("%s: --restart: atom %zu: %c = %.17g is far outside the checkpoint's box [%.17g, %.17g)",
                          r->path, i, "xyz"[c], v, lo[c], lo[c] + len[c]);
                rc = MDL_EINPUT;
                break;
            }
        }
    if (rc == MDL_OK)
        rc = read_n3(r, "image", H5T_NATIVE_INT32, im);
    for (size_t i = 0; i < 3 * n && rc == MDL_OK; i++)
        if (im[i] > (1 << 30) || im[i] < -(1 << 30)) {
            mdl_error("%s: --restart: checkpoint/image of atom %zu is %d", r->path, i / 3, im[i]);
            rc = MDL_EINPUT;
        }
    for (size_t i = 0; i < n && rc == MDL_OK; i++)
        s->ix[i] = im[3 * i], s->iy[i] = im[3 * i + 1], s->iz[i] = im[3 * i + 2];
    free(d);
    free(im);
    return rc;
}

int h5md_read_checkpoint(const char *path, mdl_system *s, const char *units, long *step, double *time)
{
    h5_enter();
    if (mdl_check_input_file(path, "--restart file") != MDL_OK)
        return MDL_EINPUT;
    ck_reader r = {path, H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), -1, s->n};
    if (r.file < 0)
        return ck_fail(&r, "cannot open as an HDF5 file (not H5MD, or in use by a run writing it)");
    r.group = H5Lexists(r.file, "checkpoint", H5P_DEFAULT) > 0 ? H5Gopen2(r.file, "checkpoint", H5P_DEFAULT) : -1;
    int rc = r.group < 0 ? ck_fail(&r, "no checkpoint group (written with [output] checkpoint = no, or not an "
                                       "H5MD file written by mdlite)")
                         : check_units(&r, units);
    double lo[3], len[3];
    long st = 0;
    if (rc == MDL_OK)
        rc = read_header(&r, &st, time, lo, len);
    if (rc == MDL_OK)
        rc = read_state(&r, s, lo, len);
    if (rc == MDL_OK) {
        for (int k = 0; k < 3; k++)
            s->box.lo[k] = lo[k], s->box.len[k] = len[k], s->box.periodic[k] = 1;
        *step = st;
        s->has_velocities = 1;
    }
    if (r.group >= 0)
        H5Gclose(r.group);
    H5Fclose(r.file);
    return rc;
}

/* The checkpoint's attribute `name` of the file at path (*file open, to close with
   close_attribute), or -1 where the file or the attribute is not there. */
static hid_t open_attribute(const char *path, const char *name, hid_t *file)
{
    h5_enter();
    *file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    return *file < 0 || H5Aexists_by_name(*file, "checkpoint", name, H5P_DEFAULT) <= 0
               ? -1
               : H5Aopen_by_name(*file, "checkpoint", name, H5P_DEFAULT, H5P_DEFAULT);
}

static void close_attribute(hid_t a, hid_t file)
{
    if (a >= 0)
        H5Aclose(a);
    if (file >= 0)
        H5Fclose(file);
    H5Eclear2(H5E_DEFAULT); /* an absent attribute is an answer, not an error */
}

void h5md_checkpoint_forces(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    hid_t f, a = open_attribute(path, "forces", &f);
    hid_t t = a < 0 ? -1 : H5Aget_type(a);
    if (t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0) {
        hid_t str = H5Tcopy(H5T_C_S1);
        H5Tset_size(str, H5T_VARIABLE);
        H5Tset_cset(str, H5Tget_cset(t));
        char *v = NULL;
        if (H5Aread(a, str, &v) >= 0 && v)
            mdl_copy(out, size, v);
        H5free_memory(v);
        H5Tclose(str);
    }
    if (t >= 0)
        H5Tclose(t);
    close_attribute(a, f);
}

int h5md_checkpoint_thermostat(const char *path, double *out, int max)
{
    hid_t f, a = open_attribute(path, "thermostat", &f);
    hid_t sp = a < 0 ? -1 : H5Aget_space(a);
    hssize_t n = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
    int got = n > 0 && n <= max && H5Aread(a, H5T_NATIVE_DOUBLE, out) >= 0 ? (int)n : 0;
    for (int k = 0; k < got; k++)
        if (!isfinite(out[k]))
            got = 0;
    if (sp >= 0)
        H5Sclose(sp);
    close_attribute(a, f);
    return got;
}

long h5md_checkpoint_stages_from(const char *path)
{
    hid_t f, a = open_attribute(path, "stages_from", &f);
    double v = -1;
    if (a < 0 || H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0 || !(v >= 0 && v < 9e18) || v != floor(v))
        v = -1;
    close_attribute(a, f);
    return (long)v;
}

mdl_analysis_checkpoint *h5md_checkpoint_analysis(const char *path)
{
    h5_enter();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    mdl_analysis_checkpoint *a = f < 0 ? NULL : checkpoint_analysis_get(f);
    if (f >= 0)
        H5Fclose(f);
    H5Eclear2(H5E_DEFAULT);
    return a;
}

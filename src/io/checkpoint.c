/* Reads and validates the checkpoint of an mdlite H5MD file for --restart: every field, attribute
   or dataset, has its type, shape, finiteness and range checked before it is read into the run or
   cast, against the configured system (atom count, species, units); a field that fails stops the
   restart with a message naming the file and the field (MDL_EINPUT). */
#include "checkpoint.h"

#include "../physics/nose_hoover.h"
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

static int field_fail(const ck_reader *r, const char *name, const char *why)
{
    mdl_error("%s: --restart: checkpoint/%s %s", r->path, name, why);
    H5Eclear2(H5E_DEFAULT);
    return MDL_EINPUT;
}

/* The checkpoint's field `name` (an attribute of the group, or with `dataset` a dataset below it):
   its values of class cls, a vector or scalar (cols 0) or a rows x cols table, between lo and hi
   values in all, into buf as memtype. Returns how many; 0 where it is absent and optional; -1
   after a message (absent and required, another class or shape, unreadable). */
static long ck_values(const ck_reader *r, const char *name, int dataset, H5T_class_t cls, hid_t memtype, int cols,
                      hssize_t lo, hssize_t hi, int optional, void *buf)
{
    const int there = dataset ? H5Lexists(r->group, name, H5P_DEFAULT) > 0 : H5Aexists(r->group, name) > 0;
    if (!there) {
        if (optional)
            return 0;
        mdl_error("%s: --restart: no checkpoint/%s (not a trajectory written by mdlite?)", r->path, name);
        return -1;
    }
    hid_t o = dataset ? H5Dopen2(r->group, name, H5P_DEFAULT) : H5Aopen(r->group, name, H5P_DEFAULT);
    hid_t t = o < 0 ? -1 : dataset ? H5Dget_type(o) : H5Aget_type(o);
    hid_t sp = o < 0 ? -1 : dataset ? H5Dget_space(o) : H5Aget_space(o);
    const int rank = sp < 0 ? -1 : H5Sget_simple_extent_ndims(sp);
    hsize_t dims[2] = {0, 0};
    if (rank >= 1 && rank <= 2)
        H5Sget_simple_extent_dims(sp, dims, NULL);
    const hssize_t count = sp < 0 ? -1 : H5Sget_simple_extent_npoints(sp);
    const char *why = NULL;
    if (t < 0 || H5Tget_class(t) != cls)
        why = cls == H5T_FLOAT ? "is not of floating-point numbers" : cls == H5T_INTEGER ? "is not of integers"
                                                                                          : "is not text";
    else if (cols ? rank != 2 || dims[1] != (hsize_t)cols : rank > 1)
        why = cols == 3 ? "is not an N x 3 array" : cols ? "is not a table of the expected columns"
                                                         : "is not a single value or a vector";
    else if (count < lo || count > hi)
        why = "does not hold the number of values the run needs";
    else if (buf && (dataset ? H5Dread(o, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf)
                             : H5Aread(o, memtype, buf)) < 0)
        why = "cannot be read (damaged file?)";
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    if (o >= 0)
        dataset ? H5Dclose(o) : H5Aclose(o);
    if (!why)
        return (long)count;
    if (cols == 3 && rank == 2 && dims[1] == 3 && (hssize_t)(3 * dims[0]) != lo)
        mdl_error("%s: --restart: checkpoint/%s holds %llu atoms, the configuration %zu", r->path, name,
                  (unsigned long long)dims[0], r->n);
    else if (count != lo && lo == hi)
        mdl_error("%s: --restart: checkpoint/%s holds %lld values where the run needs %lld", r->path, name,
                  (long long)count, (long long)lo);
    else
        field_fail(r, name, why);
    H5Eclear2(H5E_DEFAULT);
    return -1;
}

/* Every value of v[0, n) finite and within [lo, hi]; whole numbers where `whole`. */
static int ck_range(const ck_reader *r, const char *name, const double *v, size_t n, double lo, double hi, int whole)
{
    for (size_t i = 0; i < n; i++)
        if (!(v[i] >= lo && v[i] <= hi) || (whole && v[i] != floor(v[i]))) {
            char why[200], text[40], range[160];
            snprintf(text, sizeof text, "%.17g", v[i]);
            if (mdl_in_range(text, v[i], lo, hi, 0, range, sizeof range))
                snprintf(range, sizeof range, "'%s' must be a whole number", text);
            snprintf(why, sizeof why, "value %zu: %s", i, range);
            return field_fail(r, name, why);
        }
    return MDL_OK;
}

/* A scalar or `count`-vector double attribute of the checkpoint group, each value in [lo, hi]. */
static int read_attr(const ck_reader *r, const char *name, double *v, int count, double lo, double hi, int whole)
{
    if (ck_values(r, name, 0, H5T_FLOAT, H5T_NATIVE_DOUBLE, 0, count, count, 0, v) < 0)
        return MDL_EINPUT;
    return ck_range(r, name, v, (size_t)count, lo, hi, whole);
}

/* The units the file was written in: the checkpoint's attribute, or /parameters/units. */
static int check_units(const ck_reader *r, const char *units)
{
    char buf[32] = "";
    dataset_read_string(r->file, "parameters/units", buf, sizeof buf);
    if (!buf[0])
        return ck_fail(r, "no parameters/units (not a trajectory written by mdlite?)");
    if (strcmp(buf, units) != 0) {
        mdl_error("%s: --restart: the file was written in %s units, the configuration has %s", r->path, buf, units);
        return MDL_EINPUT;
    }
    return MDL_OK;
}

/* Step, time and box: written (a zero box is the checkpoint of a run stopped before its first
   flush), sane, and the atoms inside the box. */
static int read_header(const ck_reader *r, mdl_checkpoint *ck, double lo[3], double len[3])
{
    double st;
    if (read_attr(r, "step", &st, 1, 0, 9.0e15, 1) || read_attr(r, "time", &ck->time, 1, 0, 1e30, 0) ||
        read_attr(r, "box_lo", lo, 3, -1e30, 1e30, 0) || read_attr(r, "box_length", len, 3, 0, 1e30, 0))
        return MDL_EINPUT;
    if (len[0] == 0 && len[1] == 0 && len[2] == 0)
        return ck_fail(r, "the checkpoint was never written (the run stopped before its first flush); restart from "
                          "another file, or start anew");
    MDL_TRY(ck_range(r, "box_length", len, 3, 1e-30, 1e30, 0));
    ck->step = (long)st;
    double origin[2];
    const long n = ck_values(r, "time_origin", 0, H5T_FLOAT, H5T_NATIVE_DOUBLE, 0, 2, 2, 1, origin);
    if (n < 0 || (n == 2 && (ck_range(r, "time_origin", origin, 1, 0, st, 1) != MDL_OK ||
                             ck_range(r, "time_origin", origin + 1, 1, 0, 1e30, 0) != MDL_OK)))
        return MDL_EINPUT;
    ck->time_origin_step = n == 2 ? (long)origin[0] : -1, ck->time_origin = n == 2 ? origin[1] : 0;
    return MDL_OK;
}

/* An N x 3 field of doubles, each value within [-most, most]. */
static int read_vectors(const ck_reader *r, const char *name, double *d, double most)
{
    const hssize_t n3 = 3 * (hssize_t)r->n;
    if (ck_values(r, name, 1, H5T_FLOAT, H5T_NATIVE_DOUBLE, 3, n3, n3, 0, d) < 0)
        return MDL_EINPUT;
    for (size_t i = 0; i < 3 * r->n; i++)
        if (!(fabs(d[i]) <= most)) {
            mdl_error("%s: --restart: checkpoint/%s of atom %zu is %g", r->path, name, i / 3, d[i]);
            return MDL_EINPUT;
        }
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
        rc = read_vectors(r, names[k], d, k == 0 ? 1e30 : 1e150); /* squares stay finite */
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
    const hssize_t n3 = 3 * (hssize_t)n;
    if (rc == MDL_OK && ck_values(r, "image", 1, H5T_INTEGER, H5T_NATIVE_INT32, 3, n3, n3, 0, im) < 0)
        rc = MDL_EINPUT;
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

/* An optional text field of the checkpoint (an attribute, or with `dataset` a dataset below it)
   into out ("" where absent): one string, shorter than size, without control characters. */
static int read_text(const ck_reader *r, const char *name, int dataset, char *out, size_t size)
{
    out[0] = '\0';
    if (dataset ? H5Lexists(r->group, name, H5P_DEFAULT) <= 0 : H5Aexists(r->group, name) <= 0)
        return MDL_OK;
    hid_t o = dataset ? H5Dopen2(r->group, name, H5P_DEFAULT) : H5Aopen(r->group, name, H5P_DEFAULT);
    hid_t t = o < 0 ? -1 : dataset ? H5Dget_type(o) : H5Aget_type(o);
    hid_t sp = o < 0 ? -1 : dataset ? H5Dget_space(o) : H5Aget_space(o);
    int ok = t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0 && sp >= 0 &&
             H5Sget_simple_extent_npoints(sp) == 1;
    char *v = NULL;
    if (ok) {
        hid_t str = H5Tcopy(H5T_C_S1);
        H5Tset_size(str, H5T_VARIABLE);
        H5Tset_cset(str, H5Tget_cset(t));
        ok = (dataset ? H5Dread(o, str, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) : H5Aread(o, str, &v)) >= 0 && v &&
             strlen(v) < size;
        H5Tclose(str);
    }
    for (const char *c = v; ok && *c; c++)
        ok = (unsigned char)*c >= 0x20;
    if (ok)
        mdl_copy(out, size, v);
    H5free_memory(v);
    if (sp >= 0)
        H5Sclose(sp);
    if (t >= 0)
        H5Tclose(t);
    if (o >= 0)
        dataset ? H5Dclose(o) : H5Aclose(o);
    return ok ? MDL_OK : field_fail(r, name, "is not one line of text");
}

/* "thermostat" (Nose-Hoover's chains and barostat, nh_pack's layout) and "stages_from". */
static int read_thermostat_and_stages(const ck_reader *r, mdl_checkpoint *ck)
{
    long n = ck_values(r, "thermostat", 0, H5T_FLOAT, H5T_NATIVE_DOUBLE, 0, 1, MDL_NH_STATE, 1, ck->thermostat);
    if (n < 0 || ck_range(r, "thermostat", ck->thermostat, (size_t)n, -1e100, 1e100, 0) != MDL_OK)
        return MDL_EINPUT;
    int m, p;
    if (n > 0 && !nh_state_valid(ck->thermostat, (int)n, &m, &p))
        return field_fail(r, "thermostat", "is not a Nose-Hoover state (chain lengths, their values, the "
                                           "barostat's reference volume)");
    ck->nstate = (int)n;
    double from = -1;
    n = ck_values(r, "stages_from", 0, H5T_FLOAT, H5T_NATIVE_DOUBLE, 0, 1, 1, 1, &from);
    if (n < 0 || (n == 1 && ck_range(r, "stages_from", &from, 1, 0, (double)ck->step, 1) != MDL_OK))
        return MDL_EINPUT;
    ck->stages_from = n == 1 ? (long)from : -1;
    return MDL_OK;
}

/* checkpoint/analysis: a stage's g(r) counts, MSD rows and every atom's origin, each checked. */
static int read_analysis(const ck_reader *r, const mdl_system *s, mdl_checkpoint *ck)
{
    if (H5Lexists(r->group, "analysis", H5P_DEFAULT) <= 0)
        return MDL_OK;
    double h[AN_HEADER];
    const long nh = ck_values(r, "analysis/header", 1, H5T_FLOAT, H5T_NATIVE_DOUBLE, 0, AN_ORIGINS, AN_HEADER, 0, h);
    if (nh < 0)
        return MDL_EINPUT;
    if (nh == AN_ORIGINS) /* written before the MSD's origins: one */
        h[AN_ORIGINS] = 1, h[AN_ORIGIN_EVERY] = 1;
    else if (nh != AN_HEADER)
        return field_fail(r, "analysis/header", "does not hold the number of values the run needs");
    const double most[AN_HEADER] = {MDL_MAX_STAGES - 1, (double)ck->step, s->ntypes, 100000, 1e8, 1e30, 1e300,
                                    9e15, (double)r->n, 100000, 1e9};
    const double least[AN_HEADER] = {0, 0, s->ntypes, 0, 0, 0, 0, 0, 0, 1, 1};
    for (int k = 0; k < AN_HEADER; k++) {
        char name[48];
        snprintf(name, sizeof name, "analysis/header[%d]", k);
        MDL_TRY(ck_range(r, name, &h[k], 1, least[k], most[k], k != AN_RMAX && k != AN_VOLUME));
    }
    mdl_analysis_checkpoint *a = calloc(1, sizeof *a);
    if (!a)
        return MDL_ERUN;
    ck->analysis = a;
    a->stage = (int)h[AN_STAGE], a->start = (long)h[AN_START], a->ntypes = (int)h[AN_NTYPES];
    a->rdf_bins = (int)h[AN_BINS], a->msd_rows = (int)h[AN_ROWS], a->rdf_max = h[AN_RMAX];
    a->volume_sum = h[AN_VOLUME], a->rdf_samples = (long)h[AN_SAMPLES], a->natoms = (size_t)h[AN_NATOMS];
    a->msd_origins = (int)h[AN_ORIGINS], a->origin_every = (int)h[AN_ORIGIN_EVERY];
    const hssize_t nrdf = (hssize_t)a->ntypes * (a->ntypes + 1) / 2 * a->rdf_bins;
    const hssize_t nmsd = (hssize_t)a->msd_rows * (1 + a->ntypes);
    const hssize_t norigin = 3 * (hssize_t)a->natoms * a->msd_origins;
    if (a->rdf_bins > 0) {
        if (!(a->rdf = malloc((size_t)nrdf * sizeof *a->rdf)))
            return MDL_ERUN;
        if (ck_values(r, "analysis/rdf", 1, H5T_FLOAT, H5T_NATIVE_DOUBLE, 0, nrdf, nrdf, 0, a->rdf) < 0)
            return MDL_EINPUT;
        /* counts of pairs: at most every pair of atoms at every sample */
        MDL_TRY(ck_range(r, "analysis/rdf", a->rdf, (size_t)nrdf, 0, (double)a->rdf_samples * r->n * r->n, 0));
    }
    const int msd = H5Lexists(r->group, "analysis/msd", H5P_DEFAULT) > 0;
    if (!msd && (a->msd_rows > 0 || H5Lexists(r->group, "analysis/origin", H5P_DEFAULT) > 0))
        return field_fail(r, "analysis/msd", "is missing (the header counts its rows, or the origins are there)");
    if (!msd)
        return MDL_OK;
    if (a->natoms != r->n)
        return field_fail(r, "analysis/header", "names another atom count than the run's");
    if (!(a->msd = malloc((size_t)(nmsd ? nmsd : 1) * sizeof *a->msd)) ||
        !(a->origin = malloc((size_t)norigin * sizeof *a->origin)))
        return MDL_ERUN;
    if (ck_values(r, "analysis/msd", 1, H5T_FLOAT, H5T_NATIVE_DOUBLE, 1 + a->ntypes, nmsd, nmsd, 0, a->msd) < 0 ||
        ck_values(r, "analysis/origin", 1, H5T_FLOAT, H5T_NATIVE_DOUBLE, 3, norigin, norigin, 0, a->origin) < 0)
        return MDL_EINPUT;
    MDL_TRY(ck_range(r, "analysis/origin", a->origin, (size_t)norigin, -1e30, 1e30, 0));
    for (int row = 0; row < a->msd_rows; row++) {
        const double *v = a->msd + (size_t)row * (1 + a->ntypes);
        MDL_TRY(ck_range(r, "analysis/msd (a row's step)", v, 1, (double)a->start, (double)ck->step, 1));
        MDL_TRY(ck_range(r, "analysis/msd", v + 1, (size_t)a->ntypes, 0, 1e60 * (double)r->n, 0)); /* atoms' squares */
    }
    return MDL_OK;
}

/* build_order (optional, with build_position): a permutation of 0 .. N-1. */
static int read_build_order(const ck_reader *r, mdl_checkpoint *ck)
{
    const hssize_t n = (hssize_t)r->n;
    if (H5Lexists(r->group, "build_order", H5P_DEFAULT) <= 0)
        return MDL_OK;
    int32_t *order = malloc((r->n ? r->n : 1) * sizeof *order);
    unsigned char *seen = calloc(r->n ? r->n : 1, 1);
    int rc = order && seen ? MDL_OK : MDL_ERUN;
    if (rc == MDL_OK && ck_values(r, "build_order", 1, H5T_INTEGER, H5T_NATIVE_INT32, 0, n, n, 0, order) < 0)
        rc = MDL_EINPUT;
    for (size_t i = 0; i < r->n && rc == MDL_OK; i++) {
        char why[160];
        const int32_t k = order[i];
        if (k >= 0 && (size_t)k < r->n && !seen[k]) {
            seen[k] = 1;
            continue;
        }
        snprintf(why, sizeof why, "value %zu is %d: not a place in an order of %zu atoms, each taken once", i, (int)k,
                 r->n);
        rc = field_fail(r, "build_order", why);
    }
    free(seen);
    if (rc == MDL_OK)
        ck->build_order = order;
    else
        free(order);
    return rc;
}

/* build_position and build_step: where the lists' last build saw the atoms (a backend that orders
   its atoms by position alone builds the same lists from them). Within the box as positions are,
   and a step not past the checkpoint's. */
static int read_build(const ck_reader *r, const double lo[3], const double len[3], mdl_checkpoint *ck)
{
    const hssize_t n3 = 3 * (hssize_t)r->n;
    const int there = H5Lexists(r->group, "build_position", H5P_DEFAULT) > 0;
    if (!there)
        return MDL_OK;
    double step, blo[3], blen[3];
    if (read_attr(r, "build_step", &step, 1, 0, (double)ck->step, 1) != MDL_OK ||
        read_attr(r, "build_box_lo", blo, 3, -1e30, 1e30, 0) != MDL_OK ||
        read_attr(r, "build_box_length", blen, 3, 1e-30, 1e30, 0) != MDL_OK ||
        ck_values(r, "build_box_tilt", 0, H5T_FLOAT, H5T_NATIVE_DOUBLE, 0, 3, 3, 1, ck->build_box.tilt) < 0 ||
        ck_range(r, "build_box_tilt", ck->build_box.tilt, 3, -1e30, 1e30, 0) != MDL_OK)
        return MDL_EINPUT;
    if (!(ck->build = malloc((size_t)n3 * sizeof *ck->build)))
        return MDL_ERUN;
    MDL_TRY(read_vectors(r, "build_position", ck->build, 1e30));
    for (size_t i = 0; i < 3 * r->n; i++) {
        const int c = (int)(i % 3);
        if (ck->build[i] < lo[c] - len[c] || ck->build[i] > lo[c] + 2 * len[c])
            return field_fail(r, "build_position", "holds an atom far outside the checkpoint's box");
    }
    ck->build_step = (long)step;
    for (int d = 0; d < 3; d++)
        ck->build_box.lo[d] = blo[d], ck->build_box.len[d] = blen[d], ck->build_box.periodic[d] = 1;
    return read_build_order(r, ck);
}

int checkpoint_lists_hold(const mdl_checkpoint *ck, const mdl_system *s, double skin)
{
    int m, p; /* the box moves only under a barostat: else the lists' box is the checkpoint's */
    const int barostat = ck->nstate > 0 && nh_state_valid(ck->thermostat, ck->nstate, &m, &p) && p > 0;
    int same = 1;
    for (int d = 0; d < 3; d++)
        same &= ck->build_box.lo[d] == s->box.lo[d] && ck->build_box.len[d] == s->box.len[d] &&
                ck->build_box.tilt[d] == s->box.tilt[d];
    if (!ck->build || (!barostat && !same))
        return 0;
    double worst = 0;
    for (size_t i = 0; i < s->n; i++) { /* s in id order, as the checkpoint */
        const double *b = ck->build + 3 * i;
        const mdl_box *bb = &ck->build_box;
        double f[3]; /* wrapped into the box at the build (a triclinic one's: to rounding, in fractions) */
        box_to_fraction(bb, b, f);
        for (int d = 0; d < 3; d++)
            if (box_is_triclinic(bb) ? !(f[d] >= -1e-12 && f[d] < 1 + 1e-12) : !(b[d] >= bb->lo[d] && b[d] < bb->lo[d] + bb->len[d]))
                return 0;
        const double dx = s->x[i] - b[0], dy = s->y[i] - b[1], dz = s->z[i] - b[2];
        worst = fmax(worst, dx * dx + dy * dy + dz * dz);
    }
    return worst < skin * skin;
}

/* One ended stage's result, checkpoint/results/K (K = k): each part's shape and values checked. */
static int read_result(const ck_reader *r, int ntypes, int k, mdl_analysis_result *res)
{
    char name[80];
    double h[RES_HEADER];
    snprintf(name, sizeof name, "results/%d/header", k);
    if (ck_values(r, name, 1, H5T_FLOAT, H5T_NATIVE_DOUBLE, 0, RES_HEADER, RES_HEADER, 0, h) < 0)
        return MDL_EINPUT;
    const double most[RES_HEADER] = {100000, 1e8, 9e15, 1, 9e15, 9e15, 1e8};
    for (int i = 0; i < RES_HEADER; i++) {
        snprintf(name, sizeof name, "results/%d/header[%d]", k, i);
        MDL_TRY(ck_range(r, name, &h[i], 1, 0, most[i], 1));
    }
    res->nbins = (int)h[RES_NBINS], res->rows = (int)h[RES_ROWS], res->samples = (long)h[RES_SAMPLES];
    res->has_d = (int)h[RES_HAS_D], res->d_first = (long)h[RES_D_FIRST], res->d_last = (long)h[RES_D_LAST];
    res->d_rows = (int)h[RES_D_ROWS];
    /* its name: a stage's ("" for a run without stages) */
    snprintf(name, sizeof name, "results/%d/name", k);
    if (H5Lexists(r->group, name, H5P_DEFAULT) <= 0)
        return field_fail(r, name, "is missing");
    MDL_TRY(read_text(r, name, 1, res->stage, sizeof res->stage));
    if (res->stage[0] && !species_name_valid(res->stage))
        return field_fail(r, name, "is not a stage's name");
    const hssize_t npairs = (hssize_t)ntypes * (ntypes + 1) / 2;
    struct {
        const char *part;
        double **to;
        hssize_t n;
        int cols;
        double lo, hi;
    } parts[] = {{"r", &res->r, res->nbins, 0, 0, 1e30}, {"g", &res->g, npairs * res->nbins, 0, 0, 1e30},
                 {"msd", &res->msd, (hssize_t)res->rows * (2 + ntypes), 2 + ntypes, 0, 1e60},
                 {"d", NULL, ntypes, 0, -1e60, 1e60}};
    for (size_t p = 0; p < sizeof parts / sizeof parts[0]; p++) {
        snprintf(name, sizeof name, "results/%d/%s", k, parts[p].part);
        const int there = H5Lexists(r->group, name, H5P_DEFAULT) > 0;
        const int wanted = p < 2 ? res->nbins > 0 : p == 2 ? res->rows > 0 : res->has_d;
        if (there != wanted)
            return field_fail(r, name, there ? "is there where its header says none" : "is missing");
        if (!there)
            continue;
        double *v = parts[p].to ? malloc((size_t)(parts[p].n ? parts[p].n : 1) * sizeof *v) : res->d;
        if (!v)
            return MDL_ERUN;
        if (parts[p].to)
            *parts[p].to = v;
        if (ck_values(r, name, 1, H5T_FLOAT, H5T_NATIVE_DOUBLE, parts[p].cols, parts[p].n, parts[p].n, 0, v) < 0)
            return MDL_EINPUT;
        MDL_TRY(ck_range(r, name, v, (size_t)parts[p].n, parts[p].lo, parts[p].hi, 0));
    }
    return MDL_OK;
}

/* checkpoint/results: the stages that ended before the checkpoint (at most MDL_MAX_STAGES). */
static int read_results(const ck_reader *r, const mdl_system *s, mdl_checkpoint *ck)
{
    int n = 0;
    char name[48];
    for (; n <= MDL_MAX_STAGES; n++) {
        snprintf(name, sizeof name, "results/%d", n);
        if (H5Lexists(r->group, "results", H5P_DEFAULT) <= 0 || H5Lexists(r->group, name, H5P_DEFAULT) <= 0)
            break;
    }
    if (n > MDL_MAX_STAGES)
        return field_fail(r, "results", "holds more stages than a run has");
    if (n == 0)
        return MDL_OK;
    if (!(ck->results = calloc(1, sizeof *ck->results)) || !(ck->results->r = calloc((size_t)n, sizeof *ck->results->r)))
        return MDL_ERUN;
    ck->results->n = n;
    for (int k = 0; k < n; k++)
        MDL_TRY(read_result(r, s->ntypes, k, &ck->results->r[k]));
    return MDL_OK;
}

/* The step of the file's last frame (the first of position, velocity, force, image that it holds;
   -1: none), for a restart that appends to the file. */
static long last_frame_step(hid_t file)
{
    static const char *const steps[] = {"particles/trajectory/position/step", "particles/trajectory/velocity/step",
                                        "particles/trajectory/force/step", "particles/trajectory/image/step"};
    long last = -1;
    for (size_t k = 0; k < sizeof steps / sizeof steps[0] && last < 0; k++) {
        if (H5Lexists(file, "particles", H5P_DEFAULT) <= 0 || H5Lexists(file, "particles/trajectory", H5P_DEFAULT) <= 0)
            break;
        char parent[64];
        snprintf(parent, sizeof parent, "%.*s", (int)(strrchr(steps[k], '/') - steps[k]), steps[k]);
        if (H5Lexists(file, parent, H5P_DEFAULT) <= 0 || H5Lexists(file, steps[k], H5P_DEFAULT) <= 0)
            continue;
        hid_t d = H5Dopen2(file, steps[k], H5P_DEFAULT), sp = d < 0 ? -1 : H5Dget_space(d);
        hsize_t n = 0;
        if (sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1)
            H5Sget_simple_extent_dims(sp, &n, NULL);
        int64_t st = -1;
        if (n > 0) {
            hsize_t start = n - 1, count = 1;
            hid_t ms = H5Screate_simple(1, &count, NULL);
            if (H5Sselect_hyperslab(sp, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
                H5Dread(d, H5T_NATIVE_INT64, ms, sp, H5P_DEFAULT, &st) < 0)
                st = -1;
            H5Sclose(ms);
        }
        if (sp >= 0)
            H5Sclose(sp);
        if (d >= 0)
            H5Dclose(d);
        last = (long)st;
    }
    H5Eclear2(H5E_DEFAULT);
    return last;
}

void checkpoint_free(mdl_checkpoint *ck)
{
    analysis_checkpoint_free(ck->analysis);
    ck->analysis = NULL;
    analysis_results_free(ck->results);
    ck->results = NULL;
    free(ck->build);
    ck->build = NULL;
    free(ck->build_order);
    ck->build_order = NULL;
}

int h5md_read_checkpoint(const char *path, mdl_system *s, const char *units, mdl_checkpoint *ck)
{
    memset(ck, 0, sizeof *ck);
    ck->stages_from = -1;
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
    if (rc == MDL_OK)
        rc = read_header(&r, ck, lo, len);
    double tilt[3] = {0, 0, 0}; /* absent: an orthogonal box (files written before triclinic boxes) */
    if (rc == MDL_OK && ck_values(&r, "box_tilt", 0, H5T_FLOAT, H5T_NATIVE_DOUBLE, 0, 3, 3, 1, tilt) < 0)
        rc = MDL_EINPUT;
    if (rc == MDL_OK)
        rc = ck_range(&r, "box_tilt", tilt, 3, -1e30, 1e30, 0);
    if (rc == MDL_OK)
        rc = read_state(&r, s, lo, len);
    if (rc == MDL_OK)
        rc = read_text(&r, "forces", 0, ck->forces, sizeof ck->forces);
    if (rc == MDL_OK)
        rc = read_text(&r, "stage_plan", 0, ck->stage_plan, sizeof ck->stage_plan);
    if (rc == MDL_OK)
        rc = read_thermostat_and_stages(&r, ck);
    if (rc == MDL_OK)
        rc = read_analysis(&r, s, ck);
    if (rc == MDL_OK)
        rc = read_build(&r, lo, len, ck);
    if (rc == MDL_OK)
        rc = read_results(&r, s, ck);
    if (rc == MDL_OK) {
        ck->last_frame_step = last_frame_step(r.file);
        for (int k = 0; k < 3; k++)
            s->box.lo[k] = lo[k], s->box.len[k] = len[k], s->box.tilt[k] = tilt[k]; /* periodic, dim: the system's */
        s->has_velocities = 1;
    } else
        checkpoint_free(ck);
    if (r.group >= 0)
        H5Gclose(r.group);
    H5Fclose(r.file);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

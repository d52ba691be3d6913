/* HDF5 building blocks of the H5MD writer: string and number attributes, and H5MD time series
   (value with step and time, shared by hard links) that grow one frame at a time. */
#define _POSIX_C_SOURCE 200809L
#include "h5md_series.h"

#include "../physics/species.h"
#include "../util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void h5_enter(void)
{
    static int once; /* first called by the main thread, before the writer thread exists */
    if (!once)
        H5dont_atexit();
    once = 1;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

int h5md_fail(const char *path, const char *what)
{
    mdl_error("%s: H5MD: %s failed%s%s", path, what, errno ? ": " : "", errno ? strerror(errno) : "");
    H5Eclear2(H5E_DEFAULT); /* the stack's strings, else lost with the writer thread */
    return MDL_ERUN;
}

#define H5TRY(expr, what)                     \
    do {                                      \
        if ((expr) < 0)                       \
            return h5md_fail(path, what);     \
    } while (0)

/* ---- attributes and strings (variable-length UTF-8: what Debian's MDAnalysis reads) -------------------------------------------------------------------------- */

herr_t attr_string(hid_t obj, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, type, &value);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    return rc;
}

herr_t attr_strings(hid_t obj, const char *name, const char **values, hsize_t count)
{
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate_simple(1, &count, NULL);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, type, values);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    return rc;
}

herr_t attr_ints(hid_t obj, const char *name, const int *v, hsize_t count)
{
    hid_t space = count ? H5Screate_simple(1, &count, NULL) : H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_INT, v);
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(space);
    return rc;
}

herr_t attr_doubles(hid_t obj, const char *name, const double *v, hsize_t count, int create)
{
    hid_t a;
    if (create) {
        hid_t space = count ? H5Screate_simple(1, &count, NULL) : H5Screate(H5S_SCALAR);
        a = H5Acreate2(obj, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
        H5Sclose(space);
    } else {
        a = H5Aopen(obj, name, H5P_DEFAULT);
    }
    herr_t rc = a < 0 ? -1 : H5Awrite(a, H5T_NATIVE_DOUBLE, v);
    if (a >= 0)
        H5Aclose(a);
    return rc;
}

herr_t dataset_string(hid_t parent, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hid_t d = H5Dcreate2(parent, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = d < 0 ? -1 : H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value);
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(space);
    H5Tclose(type);
    return rc;
}

int dataset_read_string(hid_t file, const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, H5T_VARIABLE);
    char *v = NULL;
    hid_t d = H5Lexists(file, path, H5P_DEFAULT) > 0 ? H5Dopen2(file, path, H5P_DEFAULT) : -1;
    hid_t ft = d >= 0 ? H5Dget_type(d) : -1;
    int ok = 0;
    if (ft >= 0 && H5Tget_class(ft) == H5T_STRING)
        H5Tset_cset(str, H5Tget_cset(ft));
    if (ft >= 0 && H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) > 0 &&
        H5Dread(d, str, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0 && v) {
        snprintf(buf, size, "%s", v);
        H5free_memory(v);
        ok = 1;
    } else if (ft >= 0 && H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) == 0 && H5Tget_size(ft) < size) {
        hid_t fixed = H5Tcopy(H5T_C_S1);
        H5Tset_size(fixed, H5Tget_size(ft) + 1);
        H5Tset_cset(fixed, H5Tget_cset(ft));
        ok = H5Dread(d, fixed, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0;
        if (!ok)
            buf[0] = '\0';
        H5Tclose(fixed);
    }
    if (ft >= 0)
        H5Tclose(ft);
    if (d >= 0)
        H5Dclose(d);
    H5Tclose(str);
    return ok;
}

int h5md_same_positions(hid_t file, const char *path, int unwrapped)
{
    char had[32];
    const char *now = unwrapped ? "unwrapped" : "wrapped";
    if (dataset_read_string(file, "parameters/positions", had, sizeof had) && strcmp(had, now) != 0) {
        mdl_error("%s: cannot append: its positions are %s, this run's %s ([output] positions); restart into another "
                  "trajectory", path, had, now);
        return MDL_EINPUT;
    }
    if (!had[0])
        mdl_note("%s records no positions convention (an older mdlite wrote it): this run appends %s positions", path,
                 now);
    return MDL_OK;
}

herr_t dataset_table(hid_t file, const char *group, const char *name, const double *v, hsize_t rows, hsize_t cols,
                     const char *unit)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t g = H5Lexists(file, group, H5P_DEFAULT) > 0 ? H5Gopen2(file, group, H5P_DEFAULT)
                                                       : H5Gcreate2(file, group, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2] = {rows, cols};
    hid_t space = H5Screate_simple(cols ? 2 : 1, dims, NULL);
    if (g >= 0 && H5Lexists(g, name, H5P_DEFAULT) > 0) /* a restart's, appending: the table is replaced */
        H5Ldelete(g, name, H5P_DEFAULT);
    hid_t d = g < 0 ? -1 : H5Dcreate2(g, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = d < 0 ? -1 : H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    if (rc >= 0 && unit)
        rc = attr_string(d, "unit", unit);
    if (d >= 0)
        H5Dclose(d);
    if (g >= 0)
        H5Gclose(g);
    H5Sclose(space);
    H5Pclose(lcpl);
    return rc;
}

/* ---- time series ----------------------------------------------------------------------------- */

static hid_t extendible(hid_t parent, const char *name, hid_t type, int rank, const hsize_t *frame_dims,
                        hsize_t chunk_frames, int compress)
{
    hsize_t dims[3] = {0, 0, 0}, maxd[3] = {H5S_UNLIMITED, 0, 0}, chunk[3] = {chunk_frames, 0, 0};
    for (int k = 0; k < rank; k++)
        dims[k + 1] = maxd[k + 1] = chunk[k + 1] = frame_dims[k];
    hid_t space = H5Screate_simple(rank + 1, dims, maxd), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank + 1, chunk);
    if (compress) {
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 4);
    }
    hid_t d = H5Dcreate2(parent, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    return d;
}

/* Creates group/name with value (frames x frame_dims), and step/time (own, or hard links to owner's). */
int series_create(const char *path, int units, series *s, hid_t parent, const char *name, hid_t type, int rank,
                  hsize_t d0, hsize_t d1, const series *owner, int compress, const char *unit)
{
    memset(s, 0, sizeof *s);
    s->rank = rank;
    s->dims[0] = d0;
    s->dims[1] = d1;
    H5TRY(s->group = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating a group");
    H5TRY(s->value = extendible(s->group, "value", type, rank, s->dims, rank ? 1 : 1024, compress && rank),
          "creating a dataset");
    if (unit && units)
        H5TRY(attr_string(s->value, "unit", unit), "writing a unit");
    if (owner) {
        H5TRY(H5Lcreate_hard(owner->group, "step", s->group, "step", H5P_DEFAULT, H5P_DEFAULT), "linking step");
        H5TRY(H5Lcreate_hard(owner->group, "time", s->group, "time", H5P_DEFAULT, H5P_DEFAULT), "linking time");
    } else {
        s->owner = 1;
        H5TRY(s->step = extendible(s->group, "step", H5T_STD_I64LE, 0, NULL, 1024, 0), "creating step");
        H5TRY(s->time = extendible(s->group, "time", H5T_IEEE_F64LE, 0, NULL, 1024, 0), "creating time");
        if (units)
            H5TRY(attr_string(s->time, "unit", "ps"), "writing a unit");
    }
    return MDL_OK;
}

int series_open(const char *path, series *s, hid_t parent, const char *name, int rank, hsize_t d0, hsize_t d1,
                int owner)
{
    memset(s, 0, sizeof *s);
    s->rank = rank;
    s->dims[0] = d0;
    s->dims[1] = d1;
    s->owner = owner;
    H5TRY(s->group = H5Gopen2(parent, name, H5P_DEFAULT), "opening a group");
    H5TRY(s->value = H5Dopen2(s->group, "value", H5P_DEFAULT), "opening a dataset");
    if (owner) {
        H5TRY(s->step = H5Dopen2(s->group, "step", H5P_DEFAULT), "opening step");
        H5TRY(s->time = H5Dopen2(s->group, "time", H5P_DEFAULT), "opening time");
    }
    return MDL_OK;
}

void series_close(series *s)
{
    if (s->value > 0)
        H5Dclose(s->value);
    if (s->step > 0)
        H5Dclose(s->step);
    if (s->time > 0)
        H5Dclose(s->time);
    if (s->group > 0)
        H5Gclose(s->group);
    memset(s, 0, sizeof *s);
}

/* Writes one frame of `d` (rank+1 dims) at index frame. */
static herr_t append(hid_t d, hsize_t frame, int rank, const hsize_t *fdims, hid_t memtype, const void *buf)
{
    hsize_t dims[3] = {frame + 1, 0, 0}, start[3] = {frame, 0, 0}, count[3] = {1, 0, 0};
    for (int k = 0; k < rank; k++)
        dims[k + 1] = count[k + 1] = fdims[k];
    if (H5Dset_extent(d, dims) < 0)
        return -1;
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(rank + 1, count, NULL);
    herr_t rc = H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    if (rc >= 0)
        rc = H5Dwrite(d, memtype, ms, fs, H5P_DEFAULT, buf);
    H5Sclose(ms);
    H5Sclose(fs);
    return rc;
}

int series_append(const char *path, hsize_t frame, series *s, hid_t memtype, const void *buf, long step, double time)
{
    errno = 0;
    H5TRY(append(s->value, frame, s->rank, s->dims, memtype, buf), "writing a frame");
    if (s->owner) {
        int64_t st = step;
        H5TRY(append(s->step, frame, 0, NULL, H5T_NATIVE_INT64, &st), "writing a step");
        H5TRY(append(s->time, frame, 0, NULL, H5T_NATIVE_DOUBLE, &time), "writing a time");
    }
    return MDL_OK;
}

/* ---- a stage's analysis in the checkpoint ------------------------------------------------------ */

void analysis_checkpoint_free(mdl_analysis_checkpoint *a)
{
    if (!a)
        return;
    free(a->rdf);
    free(a->msd);
    free(a->origin);
    free(a);
}

void analysis_results_free(mdl_analysis_results *r)
{
    for (int k = 0; r && k < r->n; k++)
        free(r->r[k].r), free(r->r[k].g), free(r->r[k].msd);
    if (r)
        free(r->r);
    free(r);
}

/* A copy of n doubles (NULL stays NULL); *ok 0 where out of memory. */
static double *copy_doubles(const double *v, size_t n, int *ok)
{
    double *c = v ? malloc((n ? n : 1) * sizeof *c) : NULL;
    if (v && !c)
        *ok = 0;
    if (c)
        memcpy(c, v, n * sizeof *c);
    return c;
}

mdl_analysis_results *analysis_results_copy(const mdl_analysis_result *r, int n, int ntypes, int *ok)
{
    *ok = 1;
    if (n <= 0)
        return NULL;
    mdl_analysis_results *c = calloc(1, sizeof *c);
    if (!c || !(c->r = calloc((size_t)n, sizeof *c->r))) {
        free(c);
        *ok = 0;
        return NULL;
    }
    c->n = n;
    for (int k = 0; k < n; k++) {
        const mdl_analysis_result *a = &r[k];
        mdl_analysis_result *b = &c->r[k];
        *b = *a;
        b->r = copy_doubles(a->r, (size_t)a->nbins, ok);
        b->g = copy_doubles(a->g, (size_t)a->nbins * (size_t)(ntypes * (ntypes + 1) / 2), ok);
        b->msd = copy_doubles(a->msd, (size_t)a->rows * (size_t)(2 + ntypes), ok);
    }
    if (!*ok) {
        analysis_results_free(c);
        return NULL;
    }
    return c;
}

/* The ended stages' results into checkpoint/results/K (K = 0, 1, ...; what was there replaced):
   name, header (nbins, rows, samples, has_d, d_first, d_last, d_rows), r, g, msd, d. */
int checkpoint_results_put(hid_t file, const char *path, const mdl_analysis_results *r, int ntypes)
{
    const char *top = "checkpoint/results";
    if (H5Lexists(file, top, H5P_DEFAULT) > 0 && H5Ldelete(file, top, H5P_DEFAULT) < 0)
        return h5md_fail(path, "writing the checkpoint's results");
    const hsize_t npairs = (hsize_t)ntypes * (ntypes + 1) / 2;
    for (int k = 0; r && k < r->n; k++) {
        const mdl_analysis_result *a = &r->r[k];
        char g[64];
        snprintf(g, sizeof g, "%s/%d", top, k);
        const double head[RES_HEADER] = {a->nbins, a->rows, (double)a->samples, a->has_d, (double)a->d_first,
                                         (double)a->d_last, a->d_rows};
        hid_t grp;
        if (dataset_table(file, g, "header", head, RES_HEADER, 0, NULL) < 0 ||
            (a->g && (dataset_table(file, g, "r", a->r, (hsize_t)a->nbins, 0, NULL) < 0 ||
                      dataset_table(file, g, "g", a->g, npairs * a->nbins, 0, NULL) < 0)) ||
            (a->msd && dataset_table(file, g, "msd", a->msd, (hsize_t)a->rows, 2 + ntypes, NULL) < 0) ||
            (a->has_d && dataset_table(file, g, "d", a->d, (hsize_t)ntypes, 0, NULL) < 0) ||
            (grp = H5Gopen2(file, g, H5P_DEFAULT)) < 0)
            return h5md_fail(path, "writing the checkpoint's results");
        herr_t rc = dataset_string(grp, "name", a->stage);
        H5Gclose(grp);
        if (rc < 0)
            return h5md_fail(path, "writing the checkpoint's results");
    }
    return 0;
}

int checkpoint_analysis_put(hid_t file, const char *path, const mdl_analysis_checkpoint *a)
{
    const char *g = "checkpoint/analysis";
    if (H5Lexists(file, g, H5P_DEFAULT) > 0 && H5Ldelete(file, g, H5P_DEFAULT) < 0)
        return h5md_fail(path, "writing the checkpoint's analysis");
    if (!a)
        return 0;
    const double head[AN_HEADER] = {a->stage, (double)a->start, a->ntypes, a->rdf_bins, a->msd_rows, a->rdf_max,
                                    a->volume_sum, (double)a->rdf_samples, (double)a->natoms, a->msd_origins,
                                    a->origin_every};
    const hsize_t npairs = (hsize_t)a->ntypes * (a->ntypes + 1) / 2;
    if (dataset_table(file, g, "header", head, AN_HEADER, 0, NULL) < 0 ||
        (a->rdf && dataset_table(file, g, "rdf", a->rdf, npairs * a->rdf_bins, 0, NULL) < 0) ||
        (a->msd && dataset_table(file, g, "msd", a->msd, (hsize_t)a->msd_rows, 1 + a->ntypes, NULL) < 0) ||
        (a->origin && dataset_table(file, g, "origin", a->origin, a->natoms * (hsize_t)a->msd_origins, 3, NULL) < 0))
        return h5md_fail(path, "writing the checkpoint's analysis");
    return 0;
}

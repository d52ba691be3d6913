/* libFuzzer harness for the --restart reader on a real checkpoint: tests/fuzz/checkpoint.h5md (32
   atoms, two stages with g(r) and MSD; tests/fuzz/checkpoint.ini says how to remake it) is
   copied and the bytes choose which of its fields (attributes and datasets of checkpoint/, the
   analysis included) to remove, retype, reshape or fill with NaN, infinities, huge, negative or
   arbitrary values, before h5md_read_checkpoint reads it back against the 32-atom system. */
#define _GNU_SOURCE
#include "io/checkpoint.h"
#include "io/trajectory.h"
#include "fuzz_checkpoint.h"

#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CHECKPOINT_TEMPLATE
#define CHECKPOINT_TEMPLATE "tests/fuzz/checkpoint.h5md"
#endif

enum { NATOMS = 32 };
static const char *const FIELDS[] = {"step", "time", "box_lo", "box_length", "forces", "thermostat", "stages_from",
                                     "build_step", "time_origin", "stage_plan", "build_box_lo", "build_box_length",
                                     "position", "velocity", "force", "image", "build_position",
                                     "analysis/header", "analysis/rdf", "analysis/msd", "analysis/origin",
                                     "results/0/header", "results/0/r", "results/0/g", "results/0/msd",
                                     "results/0/d", "results/0/name"};
enum { NFIELDS = sizeof FIELDS / sizeof FIELDS[0], NATTRS = 12 };


static double take_value(bytes *b)
{
    static const double special[8] = {NAN, INFINITY, -INFINITY, 1e300, -1e300, -1.0, 0.0, 4000.0};
    uint8_t k = take8(b);
    if (k < 8)
        return special[k];
    double v;
    uint8_t raw[8];
    for (int i = 0; i < 8; i++)
        raw[i] = take8(b);
    memcpy(&v, raw, sizeof v);
    return k < 128 ? v : (double)(int8_t)raw[0] * (k - 120);
}

/* The field's values as doubles (its number in *n; NULL for text or where it cannot be read). */
static double *read_field(hid_t g, const char *name, int attr, hssize_t *n)
{
    hid_t o = attr ? H5Aopen(g, name, H5P_DEFAULT) : H5Dopen2(g, name, H5P_DEFAULT);
    hid_t sp = o < 0 ? -1 : attr ? H5Aget_space(o) : H5Dget_space(o);
    hid_t t = o < 0 ? -1 : attr ? H5Aget_type(o) : H5Dget_type(o);
    *n = sp < 0 ? 0 : H5Sget_simple_extent_npoints(sp);
    double *v = *n > 0 && t >= 0 && H5Tget_class(t) != H5T_STRING ? malloc((size_t)*n * sizeof *v) : NULL;
    if (v && (attr ? H5Aread(o, H5T_NATIVE_DOUBLE, v) : H5Dread(o, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v)) < 0) {
        free(v);
        v = NULL;
    }
    if (t >= 0)
        H5Tclose(t);
    if (sp >= 0)
        H5Sclose(sp);
    if (o >= 0)
        attr ? H5Aclose(o) : H5Dclose(o);
    return v;
}

/* Writes `name` anew: n values of v as doubles (or 32-bit integers), a vector, or rows of `cols`. */
static void write_field(hid_t g, const char *name, int attr, const double *v, hsize_t n, int cols, int ints)
{
    hsize_t dims[2] = {cols ? n / (hsize_t)cols : n, (hsize_t)cols};
    hid_t sp = n == 1 && !cols ? H5Screate(H5S_SCALAR) : H5Screate_simple(cols ? 2 : 1, dims, NULL);
    hid_t ft = ints ? H5T_STD_I32LE : H5T_IEEE_F64LE;
    hid_t o = attr ? H5Acreate2(g, name, ft, sp, H5P_DEFAULT, H5P_DEFAULT)
                   : H5Dcreate2(g, name, ft, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (o >= 0)
        attr ? H5Awrite(o, H5T_NATIVE_DOUBLE, v) : H5Dwrite(o, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    if (o >= 0)
        attr ? H5Aclose(o) : H5Dclose(o);
    H5Sclose(sp);
}

static void write_text(hid_t g, const char *name, int attr)
{
    hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
    H5Tset_size(t, 4);
    hid_t o = attr ? H5Acreate2(g, name, t, sp, H5P_DEFAULT, H5P_DEFAULT)
                   : H5Dcreate2(g, name, t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (o >= 0)
        attr ? H5Awrite(o, t, "1.0") : H5Dwrite(o, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, "1.0");
    if (o >= 0)
        attr ? H5Aclose(o) : H5Dclose(o);
    H5Sclose(sp);
    H5Tclose(t);
}

/* One mutation of field k of the checkpoint group g, chosen by the bytes. */
static void mutate(hid_t g, int k, bytes *b)
{
    const char *name = FIELDS[k];
    const int attr = k < NATTRS, cols = k >= NATTRS && k <= NATTRS + 4 ? 3
                                      : strcmp(name, "analysis/msd") == 0 ? 2 : strcmp(name, "results/0/msd") == 0 ? 3 : 0;
    const int ints = strcmp(name, "image") == 0;
    hssize_t n;
    double *v = read_field(g, name, attr, &n);
    if (!(attr ? H5Aexists(g, name) > 0 : H5Lexists(g, name, H5P_DEFAULT) > 0)) {
        free(v);
        return;
    }
    attr ? H5Adelete(g, name) : H5Ldelete(g, name, H5P_DEFAULT);
    const uint8_t op = take8(b) % 6;
    if (op == 0 || (!v && op != 1)) { /* removed */
        free(v);
        return;
    }
    if (op == 1) /* text */
        write_text(g, name, attr);
    else if (op == 2) /* the other number type */
        write_field(g, name, attr, v, (hsize_t)n, cols, !ints);
    else if (op == 3) { /* another count: up to 4,000 values */
        hsize_t m = (hsize_t)take8(b) * 16 + take8(b) % 16;
        double *w = calloc(m ? m : 1, sizeof *w);
        for (hsize_t i = 0; i < m && w; i++)
            w[i] = i < (hsize_t)n ? v[i] : 1.0;
        if (w)
            write_field(g, name, attr, w, m ? m : 1, 0, ints);
        free(w);
    } else { /* values changed in place: the same shape */
        for (int t = 0, times = 1 + take8(b) % 4; t < times; t++)
            v[take8(b) % n] = take_value(b);
        write_field(g, name, attr, v, (hsize_t)n, n == 1 ? 0 : cols, ints);
    }
    free(v);
}

static unsigned char *template_bytes(size_t *size)
{
    static unsigned char *t;
    static size_t n;
    if (!t) {
        FILE *f = fopen(CHECKPOINT_TEMPLATE, "rb");
        if (!f || fseek(f, 0, SEEK_END) != 0 || (n = (size_t)ftell(f)) == 0 || fseek(f, 0, SEEK_SET) != 0 ||
            !(t = malloc(n)) || fread(t, 1, n, f) != n) {
            fprintf(stderr, "fuzz_checkpoint_fields: cannot read %s\n", CHECKPOINT_TEMPLATE);
            abort();
        }
        fclose(f);
    }
    *size = n;
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/mdlite-fuzz-fields-%d.h5md", (int)getpid());
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    size_t tn;
    const unsigned char *t = template_bytes(&tn);
    FILE *out = fopen(path, "wb");
    if (!out || fwrite(t, 1, tn, out) != tn) {
        if (out)
            fclose(out);
        return 0;
    }
    fclose(out);
    bytes b = {data, size};
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t g = f < 0 ? -1 : H5Gopen2(f, "checkpoint", H5P_DEFAULT);
    for (int m = 0, count = 1 + take8(&b) % 4; g >= 0 && m < count && b.left; m++)
        mutate(g, take8(&b) % NFIELDS, &b);
    if (g >= 0)
        H5Gclose(g);
    if (f >= 0)
        H5Fclose(f);
    read_back_and_remove(path, NATOMS);
    return 0;
}

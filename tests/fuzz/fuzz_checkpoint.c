/* libFuzzer harness for the --restart reader: the bytes decide a checkpoint's contents (shapes,
   attribute values NaN and infinities included, units, missing parts), written as a real HDF5
   file and read back with h5md_read_checkpoint. It fuzzes mdlite's validation, not HDF5's own
   parser of damaged files. */
#define _GNU_SOURCE
#include "io/checkpoint.h"
#include "io/trajectory.h"
#include "fuzz_checkpoint.h"

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>


static double take_double(bytes *b)
{
    double v = 0;
    uint8_t raw[8];
    for (int k = 0; k < 8; k++)
        raw[k] = take8(b);
    memcpy(&v, raw, sizeof v);
    if (raw[7] < 0x80 && raw[0] < 0x40) /* often a small, ordinary number instead */
        v = (double)raw[1] / 16.0;
    return v;
}

static void attr(hid_t g, const char *name, bytes *b, int count)
{
    if (take8(b) == 0xFF)
        return; /* missing */
    double v[3] = {take_double(b), take_double(b), take_double(b)};
    hsize_t n = (hsize_t)count;
    hid_t sp = count == 1 && take8(b) < 200 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t a = H5Acreate2(g, name, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_DOUBLE, v);
    H5Aclose(a);
    H5Sclose(sp);
}

static void dataset(hid_t g, const char *name, bytes *b, size_t natoms, int ints)
{
    uint8_t shape = take8(b);
    if (shape == 0xFF)
        return;
    hsize_t dims[2] = {shape < 200 ? natoms : shape % 7, shape < 230 ? 3 : shape % 4};
    double v[64];
    for (size_t k = 0; k < 64; k++)
        v[k] = k < dims[0] * dims[1] && b->left ? take_double(b) : 0.5;
    hid_t sp = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(g, name, ints ? H5T_STD_I32LE : H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    H5Dclose(d);
    H5Sclose(sp);
}

static void units(hid_t f, bytes *b)
{
    static const char *choices[4] = {"lj", "metal", "", "real"};
    uint8_t c = take8(b);
    if (c == 0xFF)
        return;
    hid_t g = H5Gcreate2(f, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
    const char *v = choices[c % 4];
    if (c & 4)
        H5Tset_size(t, H5T_VARIABLE);
    else
        H5Tset_size(t, strlen(v) + 1);
    hid_t d = H5Dcreate2(g, "units", t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, (c & 4) ? (const void *)&v : (const void *)v);
    H5Dclose(d);
    H5Sclose(sp);
    H5Tclose(t);
    H5Gclose(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { NATOMS = 4 };
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/mdlite-fuzz-%d.h5md", (int)getpid());
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    bytes b = {data, size};
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return 0;
    units(f, &b);
    if (take8(&b) != 0xFF) {
        hid_t g = H5Gcreate2(f, "checkpoint", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        attr(g, "step", &b, 1);
        attr(g, "time", &b, 1);
        attr(g, "box_lo", &b, 3);
        attr(g, "box_length", &b, 3);
        dataset(g, "position", &b, NATOMS, 0);
        dataset(g, "velocity", &b, NATOMS, 0);
        dataset(g, "force", &b, NATOMS, 0);
        dataset(g, "image", &b, NATOMS, 1);
        H5Gclose(g);
    }
    H5Fclose(f);
    read_back_and_remove(path, NATOMS);
    return 0;
}

/* libFuzzer harness: any bytes as a coordinate file (.xyz, .xy, a LAMMPS .data file, or sniffed; the
   first byte picks), read and checked; a
   file that reads gets the cell grid of a list cutoff from 1e-9 to 1e3 (the first byte / 3), whose
   every count and product must stay in bounds however huge the box. */
#define _GNU_SOURCE
#include "io/readers.h"
#include "physics/cells.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char paths[4][64];
    static int ready = 0;
    static const char *suffix[4] = {".xyz", ".xy", ".dat", ".data"}; /* .data: a LAMMPS data file */
    if (!ready) {
        for (int k = 0; k < 4; k++)
            snprintf(paths[k], sizeof paths[k], "/tmp/mdlite-fuzz-%d%s", (int)getpid(), suffix[k]);
        ready = 1;
    }
    if (size == 0)
        return 0;
    const char *path = paths[data[0] % 4];
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return 0;
    fwrite(data + 1, 1, size - 1, fp);
    fclose(fp);
    mdl_system s;
    if (system_init(&s, 0) == 0) {
        int has_box = 0;
        if (read_coordinates(path, 0, &s, &has_box) == 0) {
            if (has_box)
                check_atoms_in_box(path, &s);
            int nc[3];
            double rcut = pow(10.0, (data[0] / 3) % 13 - 9.0);
            size_t total = cell_grid_dims(&s.box, rcut, s.n, nc);
            if (total > cell_grid_limit(s.n) || nc[0] < 1 || nc[1] < 1 || nc[2] < 1 ||
                (size_t)nc[0] * (size_t)nc[1] * (size_t)nc[2] != total)
                abort(); /* a grid past its limit, or a product that wrapped */
        }
        system_destroy(&s);
    }
    remove(path);
    return 0;
}

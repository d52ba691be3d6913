/* libFuzzer harness: any bytes as a coordinate file (.xyz, .xy, or sniffed), read and checked. */
#define _GNU_SOURCE
#include "io/readers.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char paths[3][64];
    static int ready = 0;
    static const char *suffix[3] = {".xyz", ".xy", ".dat"};
    if (!ready) {
        for (int k = 0; k < 3; k++)
            snprintf(paths[k], sizeof paths[k], "/tmp/mdlite-fuzz-%d%s", (int)getpid(), suffix[k]);
        ready = 1;
    }
    if (size == 0)
        return 0;
    const char *path = paths[data[0] % 3];
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return 0;
    fwrite(data + 1, 1, size - 1, fp);
    fclose(fp);
    mdl_system s;
    if (system_init(&s, 0) == 0) {
        int has_box = 0;
        if (read_coordinates(path, &s, &has_box) == 0 && has_box)
            check_atoms_in_box(path, &s);
        system_destroy(&s);
    }
    remove(path);
    return 0;
}

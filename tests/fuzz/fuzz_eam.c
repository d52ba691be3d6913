/* libFuzzer harness: any bytes as an EAM potential file, read and tabulated for two species: the
   first byte picks the style (eam funcfl, eam/alloy setfl, eam/fs), the rest is the file. */
#define _GNU_SOURCE
#include "system/eam.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("mdlite-fuzz.eam", 0);
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (size < 1 || ftruncate(fd, 0) != 0 || pwrite(fd, data + 1, size - 1, 0) != (ssize_t)(size - 1))
        return 0;
    static mdl_config cfg;
    static mdl_system s;
    memset(&cfg, 0, sizeof cfg);
    snprintf(cfg.units, sizeof cfg.units, "metal");
    cfg.style = MDL_EAM_FUNCFL + data[0] % 3;
    snprintf(cfg.eam_file, sizeof cfg.eam_file, "%s", path);
    cfg.nfile = 2;
    for (int k = 0; k < 2; k++) {
        snprintf(cfg.file_species[k], MDL_NAME_LEN, "%s", k ? "Ni" : "Cu");
        snprintf(cfg.file_path[k], MDL_PATH_LEN, "%s", path);
    }
    if (cfg.style != MDL_EAM_FUNCFL)
        cfg.nfile = 0;
    memset(&s, 0, sizeof s);
    s.ntypes = 2;
    snprintf(s.species[0], MDL_NAME_LEN, "Cu");
    snprintf(s.species[1], MDL_NAME_LEN, "Ni");
    mdl_eam e;
    if (eam_build(&cfg, &s, &e) == 0)
        eam_free(&e);
    return 0;
}

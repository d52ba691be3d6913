/* libFuzzer harness: any bytes as a config file through the INI reader and config_load. */
#define _GNU_SOURCE
#include "config/config.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("mdlite-fuzz.ini", 0);
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        return 0;
    /* the first bytes can also act as one --set override */
    char set[64] = "";
    size_t k = 0;
    for (; k < size && k < sizeof set - 1 && data[k] != '\n' && data[k]; k++)
        set[k] = (char)data[k];
    set[k] = '\0';
    char *sets[1] = {set};
    mdl_config cfg;
    config_load(&cfg, path, size > 0 && data[0] == 'r' ? 1 : 0, sets);
    config_destroy(&cfg);
    return 0;
}

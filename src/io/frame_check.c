/* A frame's arrays checked before a writer stores them (frame_check.h). */
#include "frame_check.h"

#include "../util/util.h"

#include <math.h>

int frame_nonfinite(const char *path, long step, const char *quantity, const double *x, const double *y,
                    const double *z, size_t n)
{
    const double *c[3] = {x, y, z};
    for (int d = 0; d < 3; d++)
        for (size_t i = 0; i < n; i++)
            if (!isfinite(c[d][i])) {
                mdl_error("%s: frame at step %ld: atom %zu: the %s is %g; the frame is not written (the file keeps "
                          "the frames before it)", path, step, i, quantity, c[d][i]);
                return 1;
            }
    return 0;
}

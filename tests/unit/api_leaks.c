/* Every refusal of libmdlite's interface in one process, for valgrind: exit 0 when each is refused
   as it should be (what leaks or is read uninitialised, valgrind reports). */
#include "api_cases.h"

int main(void)
{
    double pos[3 * API_ATOMS], cell[9], e;
    int rc;
    api_fcc(1.6796, pos, cell);
    mdlite_sim *sim = api_lj(&rc, pos, cell, NULL);
    int failures = rc != MDLITE_OK;
    failures += api_refusals(sim, pos, stderr);
    failures += mdlite_step(sim, 10) != MDLITE_OK || mdlite_energy(sim, &e) != MDLITE_OK;
    mdlite_free(sim);
    failures += api_load_refusals(pos, cell, stderr);
    return failures != 0;
}

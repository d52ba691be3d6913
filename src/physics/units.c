/* Constants copied in value (not code) from LAMMPS's update.cpp so that results compare digit for digit. */
#include "units.h"

#include <string.h>

int units_lookup(const char *name, mdl_units *u)
{
    if (strcmp(name, "lj") == 0) {
        *u = (mdl_units){"lj", 1.0, 1.0, 1.0, 1.0, 0.005, 0.3, 1.0};
        return 0;
    }
    if (strcmp(name, "metal") == 0) {
        /* eV, Angstrom, g/mol, ps, K, bar */
        *u = (mdl_units){"metal", 8.617343e-5, 1.0364269e-4, 1.0 / 1.0364269e-4, 1.6021765e6, 0.001, 2.0,
                         1.0 / 0.602214129};
        return 0;
    }
    if (strcmp(name, "real") == 0) {
        /* kcal/mol, Angstrom, g/mol, fs, K, atm */
        *u = (mdl_units){"real", 0.0019872067, 48.88821291 * 48.88821291, 1.0 / 48.88821291 / 48.88821291, 68568.415,
                         1.0, 2.0, 1.0 / 0.602214129};
        return 0;
    }
    return -1;
}

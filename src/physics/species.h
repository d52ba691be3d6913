/* Species limits: how many a run may have (fixed, so that per-pair tables fit in GPU constant
   memory), how long their names may be and which characters they may hold. */
#ifndef MDL_PHYSICS_SPECIES_H
#define MDL_PHYSICS_SPECIES_H

#define MDL_MAX_SPECIES 8
#define MDL_NAME_LEN 16

/* A species name: 1 to MDL_NAME_LEN - 1 ASCII letters, digits, '_' or '-' (the config's and the
   coordinate files' alike; what every output format and analysis tool reads back). */
static inline int species_name_valid(const char *s)
{
    int n = 0;
    for (; s[n]; n++) {
        char c = s[n];
        if (n >= MDL_NAME_LEN - 1 ||
            !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return 0;
    }
    return n > 0;
}

#endif

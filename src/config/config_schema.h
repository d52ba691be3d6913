/* The configuration's keys, for config.c: the schema and the typed reading of values. */
#ifndef MDL_CONFIG_SCHEMA_H
#define MDL_CONFIG_SCHEMA_H

#include "config.h"

#include <stddef.h>

enum kind { K_DOUBLE, K_INT, K_LONG, K_CHOICE, K_ENUM, K_PATH, K_STRING, K_INT3, K_DOUBLE3, K_BOOL, K_SEED,
            K_NAMES, K_FRACTIONS, K_FIELDS, K_AUTO_INT, K_AUTO_DOUBLE, K_AUTO_INT3 };

typedef struct {
    const char *section, *key;
    enum kind kind;
    size_t offset;
    double min, max;       /* numbers: allowed closed range; min_open makes the minimum exclusive */
    int min_open;
    const char *choices;   /* K_CHOICE (the word, a string field) and K_ENUM (its index, an int): "a|b|c" */
} key_spec;

const key_spec *config_find_spec(const char *section, const char *key);
int config_known_section(const char *section);
/* [potential] pair.A.B and [system] mass.X: keys with species names in them */
int config_is_pattern_key(const char *section, const char *key);
/* "file:line: [section] key: why" */
void config_fail(const mdl_entry *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The value of e into cfg's field: 1 (K_FRACTIONS: their count), 0 after a message. */
int config_set_value(mdl_config *cfg, const key_spec *s, const mdl_entry *e);
int config_set_pair(mdl_config *cfg, const mdl_entry *e);
int config_set_mass(mdl_config *cfg, const mdl_entry *e);

#endif

/* The configuration's keys, for config.c: the schema and the typed reading of values. */
#ifndef MDL_CONFIG_SCHEMA_H
#define MDL_CONFIG_SCHEMA_H

#include "config.h"
#include "stage_keys.h"

#include <stddef.h>

enum kind { K_DOUBLE, K_INT, K_LONG, K_CHOICE, K_ENUM, K_PATH, K_STRING, K_WORDS, K_INT3, K_DOUBLE3, K_BOOL, K_SEED,
            K_NAMES, K_FRACTIONS, K_FIELDS, K_AUTO_INT, K_AUTO_DOUBLE, K_AUTO_INT3, K_INT9,
            K_TRIPLES /* numbers in threes: a custom lattice's basis */,
            K_THERMO /* a count of steps, or "ends": -1 */, K_TEXT /* a quoted text (strbuf.h's quoting), read from its entry where it is used: no field */ };

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
/* A stage's section "stage:NAME": NAME (else NULL); the section a key set in a stage belongs to
   (NULL: a stage cannot set it). */
const char *config_stage_name(const char *section);
/* [potential] pair.A.B and [system] mass.X: keys with species names in them */
int config_is_pattern_key(const char *section, const char *key);
/* "file:line: [section] key: why" */
void config_fail(const mdl_entry *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The value of e into cfg's field: 1 (K_FRACTIONS: their count), 0 after a message. */
int config_set_value(mdl_config *cfg, const key_spec *s, const mdl_entry *e);
int config_set_pair(mdl_config *cfg, const mdl_entry *e);
int config_set_mass(mdl_config *cfg, const mdl_entry *e);
int config_set_species_key(mdl_config *cfg, const mdl_entry *e);

/* ---- config.c's, for config_load.c (config_load) ---- */
mdl_entry *config_find_entry(const mdl_config *cfg, const char *section, const char *key);
int config_add_entry(mdl_config *cfg, const char *section, const char *key, const char *value, const char *origin);
void config_remove_entry(mdl_config *cfg, mdl_entry *e);
void config_defaults(mdl_config *cfg);
/* The typed values of cfg's entries (stage sections aside), the cross-checks and the warnings (for
   keys not inherited). */
int config_finish(mdl_config *cfg);
/* The [system] keys' cross-checks (config_system.c): 0 after a message. */
int config_check_system(const mdl_config *cfg);
/* [output] dump_columns (a LAMMPS text dump): its columns known, the frames' fields theirs, not with
   an H5MD or .xyz name, dump_fields or positions = unwrapped (config_system.c): 1, or 0 after naming
   the key. */
int config_lammps_dump(mdl_config *cfg);
/* [run] wall_reflect into cfg->walls (config_system.c): 1, or 0 after naming the key. */
int config_read_walls(mdl_config *cfg);
/* [system] groups' definitions checked and their names listed; force_fixes, thermostat_group and
   thermo_group read into bits (config_groups.c): 1, or 0 after a message. */
int config_read_groups(mdl_config *cfg);
/* [run] fire into cfg->fire (config_fire.c): 1, or 0 after naming the key. */
int config_read_fire(mdl_config *cfg);
/* The key's entry, or fallback naming the file (for "missing" messages). */
const mdl_entry *config_entry_or_file(const mdl_config *cfg, const char *section, const char *key,
                                      mdl_entry *fallback);
const mdl_entry *config_fresh_entry(const mdl_config *cfg, const char *section, const char *key);
void config_warn_unused_analysis(const mdl_config *cfg);

int config_parse_file(mdl_config *cfg);
/* The INI reader's handler (ini.h) that config_parse_file gives it: each key into cfg. */
int config_on_key(void *user, const char *section, const char *key, const char *value, int line);
int config_apply_override(mdl_config *cfg, const char *arg); /* "section.key=value" (--set) */

#endif

/* The keys a [stage:NAME] section may set (stage_keys.c). */
#ifndef MDL_STAGE_KEYS_H
#define MDL_STAGE_KEYS_H

/* The section a key set in a stage belongs to ("run", "output", "analysis"), or NULL: a stage cannot
   set it. */
const char *config_stage_key_section(const char *key);

#endif

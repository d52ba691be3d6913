/* Finding a configuration's entries: by section and key, or a stand-in naming the file (and the
   stage) for a message about a key that is missing. */
#include "config_schema.h"

#include <string.h>

mdl_entry *config_find_entry(const mdl_config *cfg, const char *section, const char *key)
{
    for (int i = 0; i < cfg->nentries; i++)
        if (strcmp(cfg->entries[i].section, section) == 0 && strcmp(cfg->entries[i].key, key) == 0)
            return &cfg->entries[i];
    return NULL;
}

const mdl_entry *config_entry_or_file(const mdl_config *cfg, const char *section, const char *key,
                                      mdl_entry *fallback)
{
    const mdl_entry *e = config_find_entry(cfg, section, key);
    if (e)
        return e;
    memset(fallback, 0, sizeof *fallback);
    const int staged = cfg->stage_name[0] && config_stage_key_section(key); /* a key the stage could set */
    snprintf(fallback->section, sizeof fallback->section, staged ? "stage:%.20s" : "%s",
             staged ? cfg->stage_name : section);
    snprintf(fallback->key, sizeof fallback->key, "%s", key);
    snprintf(fallback->origin, sizeof fallback->origin, "%s", staged ? cfg->stage_origin : cfg->path);
    return fallback;
}

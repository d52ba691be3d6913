/* The keys a [stage:NAME] section may set, and the section each belongs to (a leaf: the config
   reader and the script converter both ask it). */
#include "stage_keys.h"

#include <string.h>

/* The keys a [stage:NAME] section may set (written bare there), and the section each belongs to. */
static const char *const STAGE_KEYS[][2] = {
    {"run", "steps"},          {"run", "ensemble"},      {"run", "target_temperature"}, {"run", "tau"},
    {"run", "every"},          {"run", "chain"},         {"run", "target_pressure"},    {"run", "pressure_tau"},
    {"run", "pressure_chain"}, {"output", "thermo"},     {"output", "dump_every"},      {"analysis", "rdf_every"},
    {"analysis", "rdf_bins"},  {"analysis", "rdf_max"},  {"analysis", "msd_every"}, {"output", "data_file"},
    {"run", "min_style"},      {"run", "etol"},          {"run", "ftol"},               {"run", "maxeval"},
    {"run", "dmax"},           {"analysis", "msd_origins"}, {"analysis", "msd_origin_every"},
    {"run", "message"},        {"run", "log_message"},   {"output", "thermo_columns"}, {"output", "thermo_format"},
    {"output", "thermo_line"}, {"run", "chains"},          {"output", "thermo_variables"}, {"run", "fire"}, {"output", "thermo_balance_id"},
    {"run", "wall_reflect"},   {"run", "force_fixes"},   {"run", "thermostat_group"},   {"run", "rescale_window"},
    {"output", "thermo_group"},  {"output", "thermo_pressure_group"}, {"run", "final_temperature"},
    {"run", "stage_velocity_edits"}, {"run", "reset_timestep"}, {"output", "thermo_computes"}};

const char *config_stage_key_section(const char *key)
{
    for (size_t i = 0; i < sizeof STAGE_KEYS / sizeof STAGE_KEYS[0]; i++)
        if (strcmp(STAGE_KEYS[i][1], key) == 0)
            return STAGE_KEYS[i][0];
    return NULL;
}


/* LAMMPS input scripts: the subset mdlite honours, turned into its INI configuration (one run per
   stage), every other command refused with the script's line. */
#ifndef MDL_LAMMPS_SCRIPT_H
#define MDL_LAMMPS_SCRIPT_H

/* 1 when text is a LAMMPS script, not an INI file: its first line that is neither blank nor a
   comment is neither a [section] header nor a key = value. */
int lammps_script_detect(const char *text);

/* The INI text of the script at path (its text): *ini (malloc'ed) and, for each INI line k + 1,
   line_of[k] the script line it comes from (malloc'ed; *nlines entries: an INI line past them,
   the last). Relative paths (read_data, pair_coeff's
   files, dumps, write_data) are the script's folder's, as the config file's; the thermo CSV is
   written beside the script. Errors name path:line and the command: MDL_EINPUT (or MDL_ERUN). */
int lammps_script_convert(const char *path, const char *text, char **ini, int **line_of, int *nlines);

#endif

/* LAMMPS input scripts: the subset mdlite honours, turned into its INI configuration (one run per
   stage), every other command refused with the script's line. */
#ifndef MDL_LAMMPS_SCRIPT_H
#define MDL_LAMMPS_SCRIPT_H

/* 1 when text is a LAMMPS script, not an INI file: its first line that is neither blank nor a
   comment is neither a [section] header nor a key = value. */
int lammps_script_detect(const char *text);

/* Variables given on the command line (LAMMPS's -var NAME VALUE ...): index variables defined
   before the script's first line. */
typedef struct {
    int n;
    const char **name;
    char ***values;
    int *nvalues;
} lammps_script_vars;

/* The INI text of the script at path (its text): *ini (malloc'ed) and, for each INI line k + 1,
   line_of[k] the script line it comes from (malloc'ed; *nlines entries: an INI line past them,
   the last). Every path in it is absolute (a relative one in the script is the script's folder's),
   so the INI reads the same files wherever it is saved; the thermo CSV is written beside the
   script. vars: NULL or the command line's variables. Errors name path:line and the command:
   MDL_EINPUT (or MDL_ERUN). */
int lammps_script_convert(const char *path, const char *text, const lammps_script_vars *vars, char **ini,
                          int **line_of, int *nlines);

#endif

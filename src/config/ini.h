/* A small INI reader with file:line messages and no line-length limit ([section], key = value). */
#ifndef MDL_INI_H
#define MDL_INI_H

#include "lammps_script.h"

#include <stddef.h>

/* Called for each key; returns 0 to go on, 1 after reporting a bad key (go on, fail at the end),
   -1 to stop at once (out of memory). The value is trimmed, its inline comment cut. Also called
   with key and value NULL at each [section] line, and with section NULL too once the file ends. */
typedef int (*ini_handler)(void *user, const char *section, const char *key, const char *value, int line);

/* Parses the config file at path (a LAMMPS script: its INI, vars its command line's variables). On MDL_OK and text_out != NULL, *text_out is the file's whole
   text (the caller frees it). Errors name path:line: MDL_EINPUT, or MDL_ERUN (out of memory). */
int ini_parse(const char *path, const lammps_script_vars *vars, char **text_out, ini_handler on_key, void *user);
/* The same for text already read (malloc'ed: taken over, freed or handed out as *text_out), named
   path in messages; line_of (malloc'ed, taken over; NULL: each line its own) gives the line
   messages name for each of its nlines lines. */
int ini_parse_text(const char *path, char *text, const lammps_script_vars *vars, int *line_of, int nlines,
                   char **text_out, ini_handler on_key, void *user);


#endif

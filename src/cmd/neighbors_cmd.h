/* `mdlite neighbors`: the neighbor-list demo (full lists per atom, build time). */
#ifndef MDL_NEIGHBORS_CMD_H
#define MDL_NEIGHBORS_CMD_H

int neighbors_main(int argc, char **argv);

#endif

/* `mdlite compare`: one initial state on the CPU and GPU backends, side by side. */
#ifndef MDL_COMPARE_H
#define MDL_COMPARE_H

int compare_main(int argc, char **argv);

#endif

/* SIGINT and SIGTERM during `mdlite run`: caught, then acted on between steps (the driver finishes
   the step, writes a last frame and the analysis so far, closes every file, exits 130/143). */
#ifndef MDL_STOP_SIGNAL_H
#define MDL_STOP_SIGNAL_H

/* Catches both signals from now on. */
void stop_signal_catch(void);
/* The signal caught, 0 while none. */
int stop_signal(void);
/* A signal to any rank stops them all at the same step: every rank takes the largest (MDL_OK, or
   an error of the exchange). */
int stop_signal_agree(int nranks);
const char *stop_signal_name(int sig);

#endif

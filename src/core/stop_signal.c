/* SIGINT and SIGTERM during `mdlite run`: a flag the driver reads between steps, agreed by the ranks. */
#define _POSIX_C_SOURCE 200809L
#include "stop_signal.h"

#include "../parallel/comm.h"
#include "../util/util.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t g_stop_signal = 0;

/* The first signal asks for a clean stop; a second one, while it is under way (a write that
   blocks, say), ends the process at once as the signal's default does. */
static void on_stop_signal(int sig)
{
    if (g_stop_signal) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
    g_stop_signal = sig;
}

void stop_signal_catch(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int stop_signal(void)
{
    return g_stop_signal;
}

int stop_signal_agree(int nranks)
{
    if (nranks == 1)
        return MDL_OK;
    long sig = g_stop_signal;
    MDL_TRY(comm_max_long(&sig));
    g_stop_signal = (sig_atomic_t)sig;
    return MDL_OK;
}

const char *stop_signal_name(int sig)
{
    return sig == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)";
}

/* signals: SIGINT, SIGTERM and SIGHUP set a flag the loops read; SIGXFSZ and SIGPIPE
 * become failed writes. */
#define _GNU_SOURCE
#include "attnrank/signals.h"

#include <string.h>

volatile sig_atomic_t ar_stop_signal = 0;

static void on_signal(int sig)
{
    ar_stop_signal = sig;
}

const char *ar_stop_signal_name(void)
{
    return ar_stop_signal == SIGTERM ? "SIGTERM" : ar_stop_signal == SIGHUP ? "SIGHUP" : "SIGINT";
}

void ar_install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL); /* a dropped ssh session: stop as cleanly as on SIGTERM */
    /* A file-size limit (ulimit -f, a full quota) must come back as a failed write we
     * report, not as a kill that leaves a half-made file. */
    signal(SIGXFSZ, SIG_IGN);
    /* A closed pipe on stdout or stderr (`attnrank run ... | head`) must not kill a run
     * mid-write: the write fails instead, and the results are still saved. */
    signal(SIGPIPE, SIG_IGN);
}

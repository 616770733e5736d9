/* signals: how a run is stopped from outside. SIGINT, SIGTERM and SIGHUP only set a
 * flag that the loops read between points, so a stop never leaves a half-written file. */
#ifndef ATTNRANK_SIGNALS_H
#define ATTNRANK_SIGNALS_H

#include <signal.h>

/* Set by the SIGINT/SIGTERM/SIGHUP handlers: the engine stops after flushing finished points. */
extern volatile sig_atomic_t ar_stop_signal;
/* SIGINT, SIGTERM and SIGHUP set ar_stop_signal (a run saves what it finished and stops;
 * exit 128 + the signal); a file-size limit becomes a failed write. */
void ar_install_signal_handlers(void);
/* "SIGINT", "SIGTERM" or "SIGHUP": which one stopped the run, for messages. */
const char *ar_stop_signal_name(void);

#endif

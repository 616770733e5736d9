/* report: one self-contained HTML page for a result file.
 *
 * The verdict table first (claim, statement, prediction, estimate and interval, trials,
 * verdict in colour), then a section per verdict row with the figures that speak of the
 * claim (drawn by plots/plot_all.py, embedded as inline SVG), then the exact spec and
 * the provenance. No network is needed to open it. If Python or matplotlib is missing
 * the page still has the table and says what is missing. */
#ifndef ATTNRANK_REPORT_H
#define ATTNRANK_REPORT_H

#include <stddef.h>

#include "attnrank/engine.h"

/* Writes DIR/report.html (and DIR/figures/) for the result file; plots: the folder of
 * the figure scripts. DIR is written as a whole, as a run writes its file: under
 * DIR.lock (one writer, output.h), built in DIR.partial, renamed to DIR when complete,
 * removed if it fails or SIGINT/SIGTERM (ar_stop_signal) stops it; a DIR already there
 * is replaced only if it holds nothing but a report. The figure scripts are started
 * with an argument vector, no shell. On success returns AR_OK and, if figures could
 * not be drawn, says why in note (else note is ""); otherwise AR_ERR_INPUT (the result
 * file, DIR or its lock), AR_ERR_IO (a failed write) or AR_ERR_INTERRUPTED, err set. */
ar_status ar_report_write(const char *result, const char *dir, const char *plots, char *note, size_t note_len,
                          char *err);

#endif

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

/* Writes DIR/report.html (and DIR/figures/) for the result file; plots: the folder of
 * the figure scripts. On success returns 0 and, if figures could not be drawn, says why
 * in note (else note is ""). */
int ar_report_write(const char *result, const char *dir, const char *plots, char *note, size_t note_len,
                    char *err);

#endif

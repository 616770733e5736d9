/* cli_tables: the verdict and mutant tables as the commands print them. */
#define _GNU_SOURCE
#include "cli_parts.h"

#include <gsl/gsl_errno.h>

#include "attnrank/blas_core.h"
#include "attnrank/engine.h"
#include "attnrank/format.h"
#include "attnrank/registry.h"
#include "attnrank/report.h"
#include "attnrank/linalg.h"
#include "attnrank/openblas.h"
#include "attnrank/rng.h"
#include "attnrank/sim.h"
#include "attnrank/spec.h"
#include "attnrank/store.h" /* ar_store_is_attack_file; a row's note and prediction described */
#include "attnrank/theory.h"
#include "attnrank_config.h"
#include "attnrank/revision.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern const char ar_verify_spec[];

/* Column widths that fit the longest claim id and experiment name (at least 8 and 16). */
static void name_widths(const char *claim, const char *experiment, int *claim_width, int *experiment_width)
{
    *claim_width = (int)fmax(*claim_width, strlen(claim));
    *experiment_width = (int)fmax(*experiment_width, strlen(experiment));
}

/* A verdict row's texts as a terminal may show them: rows read back from a file may hold
 * anything (an escape sequence in a statement would reach the terminal as a command). */
static void printable_row(const ar_verdict_row *in, ar_verdict_row *out)
{
    *out = *in;
    char *texts[] = {out->claim, out->experiment, out->point, out->statement, out->implied_by};
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; ++t)
        for (unsigned char *c = (unsigned char *)texts[t]; *c; ++c)
            if (*c < 0x20 || *c == 0x7f)
                *c = '?';
}

void ar_cli_print_verdicts(FILE *f, const ar_verdict_row *given, int n)
{
    ar_cli_print_checked_verdicts(f, given, NULL, NULL, n);
}

void ar_cli_print_checked_verdicts(FILE *f, const ar_verdict_row *given, const ar_verdict_row *stored,
                                   const unsigned char *marks, int n)
{
    ar_verdict_row *rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *rows);
    if (!rows) {
        fprintf(f, "(out of memory: the verdicts cannot be printed)\n");
        return;
    }
    for (int i = 0; i < n; ++i)
        printable_row(&given[i], &rows[i]);
    int cw = 8, ew = 16;
    for (int i = 0; i < n; ++i)
        name_widths(rows[i].claim, rows[i].experiment, &cw, &ew);
    fprintf(f, "%-*s %-*s %-12s %-12s %10s  %-30s %7s  %-30s %-15s %s\n", cw, "claim", ew, "experiment", "verdict",
            "expected", "prediction", "estimate [95% CI]", "trials", "resolution", "note", "deciding point");
    for (int i = 0; i < n; ++i) {
        const ar_verdict_row *r = &rows[i];
        char est[112], resolution[96], prediction[32];
        if (isnan(r->estimate))
            snprintf(est, sizeof est, "-");
        else /* digits enough to show an interval that has a width (2 [1.99995, 2.00005], not 2 [2, 2]) */
            for (int digits = 5; digits <= 12; ++digits) {
                char lo[32], mid[32], hi[32];
                snprintf(lo, sizeof lo, "%.*g", digits, r->ci_lo);
                snprintf(mid, sizeof mid, "%.*g", digits, r->estimate);
                snprintf(hi, sizeof hi, "%.*g", digits, r->ci_hi);
                snprintf(est, sizeof est, "%s [%s, %s]", mid, lo, hi);
                if ((r->ci_lo == r->estimate || strcmp(lo, mid) != 0) && (r->ci_hi == r->estimate || strcmp(mid, hi) != 0))
                    break;
            }
        ar_resolution_describe(&r->resolution, resolution, sizeof resolution);
        const char *mark = r->verdict == r->expected            ? ""
                           : r->verdict == AR_INCONCLUSIVE     ? " <-- inconclusive"
                           : r->verdict == AR_NOT_RUN          ? " <-- no point of the grid to judge"
                                                               : " <-- differs from expected";
        ar_store_prediction_describe(r, prediction, sizeof prediction);
        char note[32];
        ar_store_note_describe(r, note, sizeof note);
        /* a stored row that differs from the re-derived one shown is marked on its line */
        char stored_mark[320] = "";
        if (marks && (marks[i] & AR_STORED_VERDICT_DIFFERS))
            snprintf(stored_mark, sizeof stored_mark, " <-- DAMAGED: the file's stored row differs (stored verdict %s)",
                     stored ? ar_verdict_name(stored[i].verdict) : "?");
        if (marks && (marks[i] & AR_STORED_THEORY_DIFFERS))
            snprintf(stored_mark + strlen(stored_mark), sizeof stored_mark - strlen(stored_mark),
                     " <-- DAMAGED: the file's theory/%s differs from the prediction", r->claim);
        if (marks && (marks[i] & AR_STORED_THEORY_TEXT_DIFFERS))
            snprintf(stored_mark + strlen(stored_mark), sizeof stored_mark - strlen(stored_mark),
                     " <-- DAMAGED: the file's theory/%s attributes are not the claim table's (shown: the table's)",
                     r->claim);
        fprintf(f, "%-*s %-*s %-12s %-12s %10s  %-30s %7lld  %-30s %-15s %s%s%s\n", cw, r->claim, ew, r->experiment,
                ar_verdict_name(r->verdict), ar_verdict_name(r->expected), prediction, est, r->trials, resolution,
                note[0] ? note : "-", r->point[0] ? r->point : "-", mark, stored_mark);
    }
    fprintf(f, "\nclaims:\n");
    for (int i = 0; i < n; ++i) {
        int seen = 0;
        for (int k = 0; k < i; ++k)
            seen |= strcmp(rows[k].claim, rows[i].claim) == 0;
        if (!seen)
            fprintf(f, "  %-*s %s\n", cw, rows[i].claim, rows[i].statement);
    }
    free(rows);
}

/* The exit status the verdicts give: 1 if a definite verdict contradicts its
 * expectation, 4 if none does but an expected-definite one is INCONCLUSIVE or NOT RUN,
 * else 0. *undecided counts the latter. */
int ar_cli_verdict_status(const ar_verdict_row *rows, int n, int *undecided)
{
    int differ = 0;
    *undecided = 0;
    for (int i = 0; i < n; ++i) {
        if (rows[i].verdict == rows[i].expected)
            continue;
        if (rows[i].verdict == AR_INCONCLUSIVE || rows[i].verdict == AR_NOT_RUN)
            (*undecided)++;
        else
            differ = 1;
    }
    return differ ? AR_EXIT_VERIFY_FAILED : *undecided ? AR_EXIT_UNDECIDED : AR_EXIT_OK;
}

/* Says what the status means, after the table. */
void ar_cli_print_outcome(int status, int undecided)
{
    if (status == AR_EXIT_VERIFY_FAILED)
        printf("some verdicts differ from what the spec expects\n");
    else if (status == AR_EXIT_UNDECIDED)
        printf("%d verdict(s) undecided where the spec expects a definite one (INCONCLUSIVE or NOT RUN): "
               "exit status 4\n",
               undecided);
}

/* One mutant as a table cell: its perturbation and K (killed: VIOLATED), h (holds),
 * i (inconclusive) or - (not run). */
static void mutant_cell(const ar_mutant *m, char *buf, size_t len)
{
    const char *mark = m->verdict == AR_VIOLATED ? "K" : m->verdict == AR_HOLDS ? "h" : m->verdict == AR_INCONCLUSIVE ? "i" : "-";
    if (m->reversed)
        snprintf(buf, len, "reversed:%s", mark);
    else
        snprintf(buf, len, "%+.0f%%:%s", 100 * (m->factor - 1), mark);
}

/* The smallest perturbation killed on each side, in words. */
static void smallest_killed(const ar_mutant_row *r, char *buf, size_t len)
{
    double below = INFINITY, above = INFINITY;
    int reversed_killed = 0;
    for (int m = 0; m < r->count; ++m) {
        const ar_mutant *x = &r->mutants[m];
        if (x->verdict != AR_VIOLATED)
            continue;
        if (x->reversed)
            reversed_killed = 1;
        else if (x->factor < 1)
            below = fmin(below, 1 - x->factor);
        else
            above = fmin(above, x->factor - 1);
    }
    if (r->count == 0)
        snprintf(buf, len, "none: %s", r->why);
    else if (r->mutants[0].reversed)
        snprintf(buf, len, "%s", reversed_killed ? "reversed trend" : "NONE: the reversed trend survives");
    else if (isinf(below) && isinf(above))
        snprintf(buf, len, "NONE killed (up to 10%%)%s", r->loose ? ": loose, the data stay far from the bound" : "");
    else {
        char lo[32] = "", hi[32] = "";
        if (!isinf(below))
            snprintf(lo, sizeof lo, "-%.0f%%", 100 * below);
        if (!isinf(above))
            snprintf(hi, sizeof hi, "+%.0f%%", 100 * above);
        snprintf(buf, len, "%s%s%s", lo, lo[0] && hi[0] ? " / " : "", hi);
    }
}

void ar_cli_print_mutants(const ar_mutant_row *rows, int n)
{
    printf("mutants: each claim re-judged on the same data against perturbed predictions (K killed = VIOLATED, "
           "h holds, i inconclusive)\n");
    int cw = 8, ew = 16;
    for (int i = 0; i < n; ++i)
        name_widths(rows[i].claim, rows[i].experiment, &cw, &ew);
    printf("%-*s %-*s %-13s %-62s %s\n", cw, "claim", ew, "experiment", "verdict", "mutants", "smallest killed");
    int none = 0;
    for (int i = 0; i < n; ++i) {
        const ar_mutant_row *r = &rows[i];
        char cells[160] = "", cell[32], killed[160];
        for (int m = 0; m < r->count; ++m) {
            mutant_cell(&r->mutants[m], cell, sizeof cell);
            strncat(cells, m ? " " : "", sizeof cells - strlen(cells) - 1);
            strncat(cells, cell, sizeof cells - strlen(cells) - 1);
        }
        if (r->verdict == AR_VIOLATED) /* its mutants ar_cli_say how far off it is, not how sharp */
            snprintf(killed, sizeof killed, "the claim itself is VIOLATED");
        else
            smallest_killed(r, killed, sizeof killed);
        int any_killed = 0;
        for (int m = 0; m < r->count; ++m)
            any_killed |= r->mutants[m].verdict == AR_VIOLATED;
        none += !any_killed;
        printf("%-*s %-*s %-13s %-62s %s\n", cw, r->claim, ew, r->experiment, ar_verdict_name(r->verdict),
               r->count ? cells : "-", killed);
    }
    printf("\n%d of %d claim(s) kill at least one mutant; %d kill none or have none to kill\n", n - none, n, none);
}

/* Mutants of every claim of a finished result file. */
int ar_cli_refuse_attack_file(const char *path, const char *command)
{
    if (!ar_store_is_attack_file(path))
        return 0;
    ar_cli_say("%s: an attack file (`attnrank attack` wrote it; judge, info and report read it), not a result "
               "file: %s reads result files", path, command);
    return AR_EXIT_BAD_INPUT;
}

int ar_cli_print_file_mutants(const char *path)
{
    int refused = ar_cli_refuse_attack_file(path, "mutants");
    if (refused)
        return refused;
    char err[AR_ERR_LEN];
    ar_result result;
    int status = AR_EXIT_BAD_INPUT;
    if (ar_result_open(path, AR_RESULT_WHOLE, &result, err) < 0)
        ar_cli_say("%s", err);
    else if (!result.complete) /* AR_RESULT_WHOLE: not judged */
        ar_cli_say("%s: incomplete run (experiment %s): mutants need every point", path,
                   result.spec->experiments[result.first_incomplete].name);
    else if (result.damaged)
        ar_cli_say("%s", result.damage);
    else {
        int n = result.n_rows;
        ar_mutant_row *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
        if (!rows || ar_judge_mutants(result.store, result.spec, rows, err) < 0) {
            ar_cli_say("%s", rows ? err : "out of memory");
        } else {
            ar_cli_print_mutants(rows, n);
            status = AR_EXIT_OK;
        }
        free(rows);
    }
    ar_result_close(&result);
    return status;
}

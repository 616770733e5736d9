/* report: the HTML verification report (see report.h). */
#define _GNU_SOURCE
#include "attnrank/report.h"

#include "attnrank/spec.h"
#include "attnrank/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    char *experiment, *claims, *title, *svg, *caption;
} figure;

static void html(FILE *out, const char *s)
{
    for (; s && *s; ++s) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
    }
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (text && fread(text, 1, (size_t)size, f) == (size_t)size)
        text[size] = '\0';
    else
        free(text), text = NULL;
    fclose(f);
    return text;
}

/* Draw the figures: plots/plot_all.py RESULT DIR/figures, its stderr kept for the note. */
static int draw_figures(const char *result, const char *figures, const char *plots, char *note, size_t len)
{
    char *cmd, *log;
    if (asprintf(&log, "%s/plot.log", figures) < 0)
        return -1;
    /* one BLAS thread: numpy's OpenBLAS would otherwise spin a thread a core */
    if (asprintf(&cmd, "OPENBLAS_NUM_THREADS=1 /usr/bin/python3 '%s/plot_all.py' --svg-only '%s' '%s' >'%s' 2>&1", plots, result,
                 figures, log) < 0) {
        free(log);
        return -1;
    }
    int status = access("/usr/bin/python3", X_OK) == 0 ? system(cmd) : -1;
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char *text = slurp(log);
        const char *why = status == -1 ? "/usr/bin/python3 is missing (apt install python3 python3-matplotlib "
                                         "python3-h5py python3-numpy)"
                          : text && strstr(text, "ModuleNotFoundError") ? strstr(text, "ModuleNotFoundError")
                          : text && text[0]                            ? text
                                                                       : "the figure scripts failed";
        snprintf(note, len, "figures not drawn: %s", why);
        char *nl = strchr(note, '\n');
        if (nl)
            *nl = '\0';
        free(text);
    }
    free(cmd);
    free(log);
    return 0;
}

static int read_figures(const char *figures, figure **list)
{
    char *path;
    *list = NULL;
    if (asprintf(&path, "%s/figures.tsv", figures) < 0)
        return 0;
    char *text = slurp(path);
    free(path);
    if (!text)
        return 0;
    int n = 0, cap = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *field[5] = {0}, *at = line;
        for (int i = 0; i < 5 && at; ++i) {
            field[i] = at;
            at = strchr(at, '\t');
            if (at)
                *at++ = '\0';
        }
        if (!field[4])
            continue;
        if (n == cap)
            *list = realloc(*list, (size_t)(cap = cap ? 2 * cap : 16) * sizeof **list);
        (*list)[n++] = (figure){strdup(field[0]), strdup(field[1]), strdup(field[2]), strdup(field[3]),
                                strdup(field[4])};
    }
    free(text);
    return n;
}

static int speaks_of(const figure *f, const char *experiment, const char *claim)
{
    if (strcmp(f->experiment, experiment) != 0)
        return 0;
    char *ids = strdup(f->claims);
    int found = 0;
    for (char *id = strtok(ids, " "); id && !found; id = strtok(NULL, " "))
        found = strcmp(id, claim) == 0;
    free(ids);
    return found;
}

static void embed_svg(FILE *out, const char *path)
{
    char *svg = slurp(path);
    if (!svg) {
        fprintf(out, "<p class=missing>figure %s could not be read</p>\n", path);
        return;
    }
    const char *start = strstr(svg, "<svg"); /* drop the XML prolog and doctype */
    fputs(start ? start : svg, out);
    free(svg);
}

/* What else would have held, and the note in bold brackets if there is one. */
static void resolution_and_note(FILE *out, const ar_verdict_row *r)
{
    char resolution[96], note[32];
    ar_resolution_describe(&r->resolution, resolution, sizeof resolution);
    ar_note_describe(r, note, sizeof note);
    html(out, resolution);
    if (note[0]) {
        fputs(" <b class=note>[", out);
        html(out, note);
        fputs("]</b>", out);
    }
}

static const char *verdict_class(ar_verdict v)
{
    return v == AR_HOLDS ? "holds" : v == AR_VIOLATED ? "violated" : "other";
}

int ar_report_write(const char *result, const char *dir, const char *plots, char *note, size_t note_len, char *err)
{
    note[0] = '\0';
    ar_store *store = ar_store_open(result, 0, err);
    if (!store)
        return -1;
    ar_verdict_row *rows = NULL;
    int n_rows = 0;
    if (ar_store_read_verdicts(store, &rows, &n_rows, err) < 0) {
        ar_store_close(store);
        return -1;
    }
    char *figures_dir, *page;
    if (asprintf(&figures_dir, "%s/figures", dir) < 0 || asprintf(&page, "%s/report.html", dir) < 0)
        return -1;
    if ((mkdir(dir, 0777) != 0 && errno != EEXIST) || (mkdir(figures_dir, 0777) != 0 && errno != EEXIST)) {
        snprintf(err, AR_ERR_LEN, "%s: cannot create the report folder: %s", dir, strerror(errno));
        free(figures_dir), free(page), free(rows);
        ar_store_close(store);
        return -1;
    }
    draw_figures(result, figures_dir, plots, note, note_len);
    figure *figs;
    int n_figs = read_figures(figures_dir, &figs);
    unsigned char *used = calloc((size_t)n_figs + 1, 1);
    FILE *out = fopen(page, "w");
    if (!out) {
        snprintf(err, AR_ERR_LEN, "%s: cannot write: %s", page, strerror(errno));
        free(figures_dir), free(page), free(rows), free(used);
        ar_store_close(store);
        return -1;
    }
    char title[512], value[4096];
    ar_store_attribute(store, "title", title, sizeof title);
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>attnrank report</title>\n<style>\n"
          "body{font-family:Georgia,serif;max-width:1100px;margin:2em auto;color:#222;line-height:1.4}\n"
          "table{border-collapse:collapse;font-size:13px;width:100%}td,th{border-bottom:1px solid #ddd;"
          "padding:4px 6px;text-align:left;vertical-align:top}th{background:#f3f3f3}\n"
          ".holds{background:#d9f2d9}.violated{background:#f7d4d4}.other{background:#fbeec5}\n"
          ".num{text-align:right;font-variant-numeric:tabular-nums}.missing{color:#a00}\n"
          "figure{margin:1em 0}figure svg{max-width:100%;height:auto}figcaption{font-size:12px;color:#555}\n"
          "pre{background:#f7f7f7;padding:1em;overflow:auto;font-size:12px}\n</style></head><body>\n",
          out);
    fputs("<h1>attnrank verification report</h1>\n<p>", out);
    html(out, title[0] ? title : result);
    fputs("<br><small>", out);
    html(out, result);
    fputs("</small></p>\n", out);
    if (note[0]) {
        fputs("<p class=missing>", out);
        html(out, note);
        fputs("</p>\n", out);
    }
    fputs("<h2>Verdicts</h2>\n<table id=verdicts><tr><th>claim</th><th>experiment</th><th>statement</th>"
          "<th>prediction</th><th>estimate [95% CI]</th><th>resolution (what else would hold)</th><th>trials</th>"
          "<th>verdict</th><th>expected</th></tr>\n",
          out);
    for (int i = 0; i < n_rows; ++i) {
        const ar_verdict_row *r = &rows[i];
        fprintf(out, "<tr class=%s><td><a href=\"#%s-%s\">", verdict_class(r->verdict), r->experiment, r->claim);
        html(out, r->claim);
        fputs("</a></td><td>", out);
        html(out, r->experiment);
        fputs("</td><td>", out);
        html(out, r->statement);
        char prediction[32];
        ar_prediction_describe(r, prediction, sizeof prediction);
        fprintf(out, "</td><td class=num>%s</td><td class=num>%.4g [%.4g, %.4g]</td><td>", prediction, r->estimate,
                r->ci_lo, r->ci_hi);
        resolution_and_note(out, r);
        fprintf(out, "</td><td class=num>%lld</td><td>%s</td><td>%s</td></tr>\n", r->trials,
                ar_verdict_name(r->verdict), ar_verdict_name(r->expected));
    }
    fputs("</table>\n<h2>Claims</h2>\n", out);
    for (int i = 0; i < n_rows; ++i) {
        const ar_verdict_row *r = &rows[i];
        fprintf(out, "<section id=\"%s-%s\"><h3>%s in %s: <span class=%s>%s</span></h3>\n<p>", r->experiment,
                r->claim, r->claim, r->experiment, verdict_class(r->verdict), ar_verdict_name(r->verdict));
        html(out, r->statement);
        fputs("<br><small>", out);
        html(out, r->explanation);
        fputs(r->point[0] ? "; deciding point " : "", out);
        html(out, r->point);
        fputs("<br>resolution: ", out);
        resolution_and_note(out, r);
        fputs("</small></p>\n", out);
        int shown = 0;
        for (int k = 0; k < n_figs; ++k) {
            if (!speaks_of(&figs[k], r->experiment, r->claim))
                continue;
            used[k] = 1;
            fputs("<figure>", out);
            embed_svg(out, figs[k].svg);
            fputs("<figcaption>", out);
            html(out, figs[k].caption);
            fputs("</figcaption></figure>\n", out);
            shown++;
        }
        if (!shown)
            fputs("<p><small>no figure for this claim", out), fputs(note[0] ? " (figures not drawn)" : "", out),
                fputs("</small></p>\n", out);
        fputs("</section>\n", out);
    }
    int others = 0; /* figures of experiments that report without a verdict */
    for (int k = 0; k < n_figs; ++k) {
        if (used[k])
            continue;
        if (!others++)
            fputs("<h2>Other figures</h2>\n<p>Experiments that report without a verdict.</p>\n", out);
        fputs("<figure>", out);
        embed_svg(out, figs[k].svg);
        fputs("<figcaption>", out);
        html(out, figs[k].caption);
        fputs("</figcaption></figure>\n", out);
    }
    fputs("<h2>Spec</h2>\n<pre>", out);
    ar_store_attribute(store, "spec_canonical", value, sizeof value);
    html(out, value);
    fputs("</pre>\n<h2>Provenance</h2>\n<table>\n", out);
    static const char *const attrs[] = {"attnrank_version", "git_revision", "created", "command_line", "host",
                                        "spec_hash", "seed", "rng", "openblas_core", "openblas_config",
                                        "hdf5_version", "gsl_version", "compiler"};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; ++i) {
        ar_store_attribute(store, attrs[i], value, sizeof value);
        fprintf(out, "<tr><th>%s</th><td>", attrs[i]);
        html(out, value);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n</body></html>\n", out);
    int bad = fclose(out) != 0;
    for (int k = 0; k < n_figs; ++k)
        free(figs[k].experiment), free(figs[k].claims), free(figs[k].title), free(figs[k].svg),
            free(figs[k].caption);
    free(figs);
    free(used);
    free(rows);
    ar_store_close(store);
    free(figures_dir);
    if (bad) {
        snprintf(err, AR_ERR_LEN, "%s: cannot write (disk full?)", page);
        free(page);
        return -1;
    }
    free(page);
    return 0;
}

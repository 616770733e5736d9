/* report: the HTML verification report (see report.h). */
#define _GNU_SOURCE
#include "attnrank/report.h"

#include "attnrank/engine.h"
#include "attnrank/format.h"
#include "attnrank/judge.h"
#include "attnrank/output.h"
#include "attnrank/plan.h"
#include "attnrank/spec.h"
#include "attnrank/store.h" /* the result's attributes, descriptor, theory claims; attack files */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <ftw.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    char *experiment, *claims, *title, *svg, *caption;
} figure;

/* The empty file a report puts in the folder it builds (DIR.partial, then DIR): only a
 * folder holding it is ever removed as a report's. */
#define REPORT_MARK ".attnrank-report"

/* Text into the page: markup escaped, and what the terminal gets escaped (controls, C1,
 * bidi and zero-width characters, bytes that are not UTF-8) written as ar_message_print
 * writes it; line breaks and tabs stay, they lay out the spec's <pre>. */
static void html(FILE *out, const char *s)
{
    char escaped[AR_ESCAPE_LEN];
    while (s && *s) {
        size_t n = ar_message_escape(s, escaped);
        if (escaped[0] && *s != '\n' && *s != '\t') {
            fputs(escaped, out);
            s += n;
            continue;
        }
        for (const char *end = s + n; s < end; ++s) {
            switch (*s) {
            case '<': fputs("&lt;", out); break;
            case '>': fputs("&gt;", out); break;
            case '&': fputs("&amp;", out); break;
            case '"': fputs("&quot;", out); break;
            default: fputc(*s, out);
            }
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

static char *joined(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb + 1);
    }
    return s;
}

/* The environment of the figure scripts: ours, with one BLAS thread (numpy's OpenBLAS
 * would otherwise spin a thread a core). */
static char **figure_environment(void)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = malloc((n + 2) * sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; ++i)
        if (strncmp(environ[i], "OPENBLAS_NUM_THREADS=", 21) != 0)
            env[k++] = environ[i];
    env[k++] = "OPENBLAS_NUM_THREADS=1";
    env[k] = NULL;
    return env;
}

/* Waits for the figure scripts; SIGINT or SIGTERM to us (ar_stop_signal) stops them too. */
static int wait_for(pid_t child)
{
    /* After a stop signal the child gets SIGTERM, and SIGKILL if it is still there
     * FIGURE_SCRIPTS_GRACE seconds later: a script that ignores SIGTERM or is stuck
     * cannot keep the report from ending. */
    enum { FIGURE_SCRIPTS_GRACE = 5 };
    int status, stopping = 0;
    struct timespec stopped_at, now, tick = {0, 20000000};
    for (;;) {
        if (ar_stop_signal && !stopping) {
            kill(child, SIGTERM);
            clock_gettime(CLOCK_MONOTONIC, &stopped_at);
            stopping = 1;
        }
        pid_t got = waitpid(child, &status, stopping ? WNOHANG : 0);
        if (got == child)
            return status;
        if (got < 0 && errno != EINTR)
            return -1;
        if (got == 0) { /* stopping, not gone yet */
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec - stopped_at.tv_sec >= FIGURE_SCRIPTS_GRACE)
                kill(child, SIGKILL);
            nanosleep(&tick, NULL);
        }
    }
}

/* The address space the figure scripts need: Python with matplotlib maps about 290 MiB
 * here, of which numpy's OpenBLAS takes a 128 MiB buffer at its first LAPACK call and,
 * when that mmap fails, retries it forever (the script hangs at 250 MiB, draws at
 * 300 MiB). Below this under `ulimit -v` the figures are not tried. */
static const double FIGURE_SCRIPTS_ADDRESS_SPACE = 512.0 * 1048576;

/* Why the figure scripts cannot run under this process's address-space limit, or NULL. */
static const char *address_space_too_small(char *reason, size_t len)
{
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY ||
        (double)as.rlim_cur >= FIGURE_SCRIPTS_ADDRESS_SPACE)
        return NULL;
    char limit[32], need[32];
    ar_format_bytes((double)as.rlim_cur, limit, sizeof limit);
    ar_format_bytes(FIGURE_SCRIPTS_ADDRESS_SPACE, need, sizeof need);
    snprintf(reason, len, "the figure scripts need about %s of address space and ulimit -v allows %s", need, limit);
    return reason;
}

/* Why the figures failed, from the scripts' log: the first figure plot_all.py says was
 * not drawn (its claim and the reason) and how many more, else the log's last line (a
 * traceback's last line says what went wrong, its first only that one follows). */
static void failure_from_log(char *log, char *why, size_t len)
{
    const char *first = NULL, *last = NULL;
    int failed = 0;
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "plot_all.py: ", 13) == 0 && !failed++)
            first = line + 13;
        if (line[strspn(line, " \t")])
            last = line;
    }
    if (first && failed > 1)
        snprintf(why, len, "%s (and %d more: figures/plot.log)", first, failed - 1);
    else
        snprintf(why, len, "%s", first ? first : last ? last + strspn(last, " \t") : "the figure scripts failed");
}

/* Draw the figures: plots/plot_all.py RESULT DIR/figures [EXPERIMENT...], its output
 * kept in DIR/figures/plot.log for the note, the claims' texts from DIR/figures/theory.tsv
 * (write_theory_rows; a result file's only); the experiments are the stored spec's
 * (spec NULL: every one, for an attack file), so a group the spec does not name is never
 * read. Started with an argument vector, never a shell: the names are data, whatever
 * characters they hold. */
static void draw_figures(const char *result, int checked, const ar_spec *spec, const char *figures, const char *plots,
                         char *note, size_t len)
{
    static const char python[] = "/usr/bin/python3";
    char *script = joined(plots, "/plot_all.py"), *log = joined(figures, "/plot.log"), **env = figure_environment();
    char *theory = joined(figures, "/theory.tsv"); /* write_theory_rows' */
    posix_spawn_file_actions_t actions;
    int have_actions = posix_spawn_file_actions_init(&actions) == 0;
    const char *why = NULL;
    char reason[512], *text = NULL;
    int n_names = spec ? spec->n_experiments : 0;
    char **argv = calloc((size_t)n_names + 10, sizeof *argv); /* the options, two names and NULL */
    if (!script || !log || !theory || !env || !have_actions || !argv) {
        why = "out of memory";
    } else if (access(python, X_OK) != 0) {
        why = "/usr/bin/python3 is missing (apt install python3 python3-matplotlib python3-h5py python3-numpy)";
    } else if ((why = address_space_too_small(reason, sizeof reason))) {
        /* said why; the page still has the table */
    } else {
        int argc = 0;
        argv[argc++] = (char *)python, argv[argc++] = script, argv[argc++] = "--svg-only";
        if (spec) /* a result file's: its claims' texts as attnrank re-derives them */
            argv[argc++] = "--theory", argv[argc++] = theory;
        /* The scripts read the private copy attnrank checked (ar_snapshot_regular) through
         * its descriptor, given them as a descriptor of theirs (not close-on-exec there): a
         * file renamed over RESULT or rewritten in place since is never read; RESULT is only
         * the name their captions show. */
        int given = checked == 3 ? 4 : 3;
        char fd_arg[16];
        snprintf(fd_arg, sizeof fd_arg, "%d", given);
        argv[argc++] = "--fd", argv[argc++] = fd_arg;
        argv[argc++] = (char *)result, argv[argc++] = (char *)figures;
        for (int e = 0; e < n_names; ++e)
            argv[argc++] = (char *)spec->experiments[e].name;
        pid_t child;
        int failed = posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        failed = failed ? failed : posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
        failed = failed ? failed : checked < 0 ? EBADF : posix_spawn_file_actions_adddup2(&actions, checked, given);
        failed = failed ? failed : posix_spawn(&child, python, &actions, NULL, argv, env);
        int status = failed ? -1 : wait_for(child);
        if (failed) {
            snprintf(reason, sizeof reason, "cannot start %s: %s", python, strerror(failed));
            why = reason;
        } else if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            text = slurp(log);
            if (text && strstr(text, "ModuleNotFoundError"))
                why = strstr(text, "ModuleNotFoundError");
            else if (text)
                failure_from_log(text, reason, sizeof reason), why = reason;
            else
                why = "the figure scripts failed";
        }
    }
    if (why) {
        snprintf(note, len, "figures not drawn: %s", why);
        char *nl = strchr(note, '\n');
        if (nl)
            *nl = '\0';
    }
    free(text);
    if (have_actions)
        posix_spawn_file_actions_destroy(&actions);
    free(env);
    free(argv);
    free(script);
    free(log);
    free(theory);
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
        char *svg = NULL; /* relative to the figures folder (an absolute path as it is) */
        if (asprintf(&svg, "%s%s%s", field[3][0] == '/' ? "" : figures, field[3][0] == '/' ? "" : "/", field[3]) < 0)
            svg = NULL;
        (*list)[n++] = (figure){strdup(field[0]), strdup(field[1]), strdup(field[2]), svg, strdup(field[4])};
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

/* Does the stored spec name the experiment? A figure of a group it does not name (one
 * added to the file) is never drawn. */
static int spec_names(const ar_store *store, const char *experiment)
{
    const ar_spec *spec = ar_store_spec(store);
    for (int e = 0; e < spec->n_experiments; ++e)
        if (spec->experiments[e].name && strcmp(spec->experiments[e].name, experiment) == 0)
            return 1;
    return 0;
}

/* Has the experiment a row in the verdict table? */
static int has_verdicts(const ar_verdict_row *rows, int n_rows, const char *experiment)
{
    for (int i = 0; i < n_rows; ++i)
        if (strcmp(rows[i].experiment, experiment) == 0)
            return 1;
    return 0;
}

static void embed_svg(FILE *out, const char *path)
{
    char *svg = path ? slurp(path) : NULL;
    if (!svg) {
        fputs("<p class=missing>figure ", out);
        html(out, path);
        fputs(" could not be read</p>\n", out);
        return;
    }
    const char *start = strstr(svg, "<svg"); /* drop the XML prolog and doctype */
    fputs(start ? start : svg, out);
    free(svg);
}

/* A figure and its caption, as every section of the page shows one. */
static void embed_figure(FILE *out, const figure *f)
{
    fputs("<figure>", out);
    embed_svg(out, f->svg);
    fputs("<figcaption>", out);
    html(out, f->caption);
    fputs("</figcaption></figure>\n", out);
}

/* What else would have held, and the note in bold brackets if there is one. */
static void resolution_and_note(FILE *out, const ar_verdict_row *r)
{
    char resolution[96], note[32];
    ar_resolution_describe(&r->resolution, resolution, sizeof resolution);
    ar_store_note_describe(r, note, sizeof note);
    html(out, resolution);
    if (note[0]) {
        fputs(" <b class=note>[", out);
        html(out, note);
        fputs("]</b>", out);
    }
}

/* The row's claim if it is a user's conjecture (conjecture.h), else NULL: as the file's
 * canonical spec has it, which ar_store_open rebuilt and checked against the file (the
 * theory datasets' kind attribute is written from the same flag). A file from before
 * conjectures has none: every row is a claim. */
static const ar_claim *conjecture_of(const ar_store *store, const ar_verdict_row *r)
{
    const ar_spec *spec = ar_store_spec(store);
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        if (!x->name || strcmp(x->name, r->experiment) != 0)
            continue;
        for (int c = 0; c < x->n_claims; ++c)
            if (x->claims[c]->conjecture && strcmp(x->claims[c]->id, r->claim) == 0)
                return x->claims[c];
    }
    return NULL;
}

/* The row's anchor, "experiment-claim"; the names are the file's text, escaped. */
static void anchor(FILE *out, const ar_verdict_row *r)
{
    html(out, r->experiment);
    fputc('-', out);
    html(out, r->claim);
}

static const char *verdict_class(ar_verdict v)
{
    return v == AR_HOLDS ? "holds" : v == AR_VIOLATED ? "violated" : "other";
}

static void free_figures(figure *figs, int n)
{
    for (int k = 0; k < n; ++k)
        free(figs[k].experiment), free(figs[k].claims), free(figs[k].title), free(figs[k].svg),
            free(figs[k].caption);
    free(figs);
}

/* "incomplete run: D of P points done ..." when the file's ledger is not full, else "". */
static void incomplete_notice(const ar_result *r, char *buf, size_t len)
{
    const ar_spec *spec = r->spec;
    long done = 0, points = 0;
    for (int e = 0; e < spec->n_experiments; ++e)
        done += r->done[e], points += spec->experiments[e].n_points;
    buf[0] = '\0';
    if (done < points)
        snprintf(buf, len, "incomplete run: %ld of %ld points done; its verdicts are NOT RUN until it is "
                 "finished with --resume", done, points);
}

/* The page: the verdicts, a section per claim with its figures, the spec and the
 * provenance. Returns 0, or -1 with err set if it cannot be written. */
/* What is marked DAMAGED on the page of a row whose stored one differs. */
static void damage_mark(FILE *out, const ar_verdict_row *shown, const ar_verdict_row *stored, unsigned char mark)
{
    if (mark & AR_STORED_VERDICT_DIFFERS)
        fprintf(out, "<br><span class=damaged>DAMAGED: the file's stored row differs (stored verdict %s); shown: "
                "its data re-judged</span>", ar_verdict_name(stored->verdict));
    if (mark & AR_STORED_THEORY_DIFFERS) {
        fputs("<br><span class=damaged>DAMAGED: the file's theory/", out);
        html(out, shown->claim);
        fputs(" differs from the prediction</span>", out);
    }
    if (mark & AR_STORED_THEORY_TEXT_DIFFERS) {
        fputs("<br><span class=damaged>DAMAGED: the file's theory/", out);
        html(out, shown->claim);
        fputs(" attributes are not the claim table's; shown: the table's</span>", out);
    }
}

/* Is a figure of this row drawn from what the file stored rather than re-derived? Its
 * verdict row or its theory values differ (its theory attributes do not count: the
 * figure scripts take texts from figures/theory.tsv), or a theory/ dataset of its
 * experiment for a claim the spec does not list has values that differ (a family's
 * figure may draw it). */
static int drawn_from_damage(unsigned char mark, unsigned char unlisted)
{
    return (mark & (AR_STORED_VERDICT_DIFFERS | AR_STORED_THEORY_DIFFERS)) || (unlisted & AR_STORED_THEORY_DIFFERS);
}

/* The experiment's unlisted[] entry (ar_judge_check_verdicts) by name; 0 if none. */
static unsigned char unlisted_of(const ar_store *store, const unsigned char *unlisted, const char *experiment)
{
    const ar_spec *spec = ar_store_spec(store);
    for (int e = 0; e < spec->n_experiments; ++e)
        if (spec->experiments[e].name && strcmp(spec->experiments[e].name, experiment) == 0)
            return unlisted[e];
    return 0;
}

static int write_page(const char *result, const ar_result *opened, const char *figures_dir, const char *page,
                      const char *note, char *err)
{
    ar_store *store = opened->store;
    const ar_verdict_row *rows = opened->rows, *stored = opened->stored;
    const unsigned char *marks = opened->marks, *unlisted = opened->unlisted;
    const char *damage = opened->damaged ? opened->damage : "";
    int n_rows = opened->n_rows;
    figure *figs;
    int n_figs = read_figures(figures_dir, &figs);
    unsigned char *used = calloc((size_t)n_figs + 1, 1);
    FILE *out = used ? fopen(page, "w") : NULL;
    if (!out) {
        snprintf(err, AR_ERR_LEN, "%s: cannot write: %s", page, used ? strerror(errno) : "out of memory");
        free_figures(figs, n_figs);
        free(used);
        return -1;
    }
    const ar_spec *spec = ar_store_spec(store); /* its title, checked against the spec's hash */
    char *title = spec->title ? strdup(spec->title) : NULL;
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>attnrank report</title>\n<style>\n"
          "body{font-family:Georgia,serif;max-width:1100px;margin:2em auto;color:#222;line-height:1.4}\n"
          "table{border-collapse:collapse;font-size:13px;width:100%}td,th{border-bottom:1px solid #ddd;"
          "padding:4px 6px;text-align:left;vertical-align:top}th{background:#f3f3f3}\n"
          ".holds{background:#d9f2d9}.violated{background:#f7d4d4}.other{background:#fbeec5}\n"
          ".num{text-align:right;font-variant-numeric:tabular-nums}.missing{color:#a00}\n"
          "figure{margin:1em 0}figure svg{max-width:100%;height:auto}figcaption{font-size:12px;color:#555}\n"
          "pre{background:#f7f7f7;padding:1em;overflow:auto;font-size:12px}\n"
          ".tag{font:11px sans-serif;background:#dfe6f6;color:#234;border-radius:3px;padding:0 4px;margin-left:4px}\n"
          ".damaged{color:#fff;background:#a00;font:bold 12px sans-serif;padding:0 4px}\n"
          "</style></head><body>\n",
          out);
    fputs("<h1>attnrank verification report</h1>\n<p>", out);
    html(out, title && title[0] ? title : result);
    free(title);
    fputs("<br><small>", out);
    html(out, result);
    fputs("</small></p>\n", out);
    char incomplete[160];
    incomplete_notice(opened, incomplete, sizeof incomplete);
    if (incomplete[0])
        fprintf(out, "<p class=missing>%s</p>\n", incomplete);
    if (note[0]) {
        fputs("<p class=missing>", out);
        html(out, note);
        fputs("</p>\n", out);
    }
    if (damage[0]) { /* what attnrank says on stderr, the first difference named */
        fputs("<p><span class=damaged>DAMAGED</span> ", out);
        html(out, damage);
        fputs("</p>\n", out);
    }
    fputs("<h2>Verdicts</h2>\n<table id=verdicts><tr><th>claim</th><th>experiment</th><th>statement</th>"
          "<th>prediction</th><th>estimate [95% CI]</th><th>resolution (what else would hold)</th><th>trials</th>"
          "<th>verdict</th><th>expected</th></tr>\n",
          out);
    for (int i = 0; i < n_rows; ++i) {
        const ar_verdict_row *r = &rows[i];
        fprintf(out, "<tr class=%s%s><td><a href=\"#", verdict_class(r->verdict), marks[i] ? " data-damaged=1" : "");
        anchor(out, r);
        fputs("\">", out);
        html(out, r->claim);
        fputs(conjecture_of(store, r) ? "</a> <span class=tag>conjecture</span></td><td>" : "</a></td><td>", out);
        html(out, r->experiment);
        fputs("</td><td>", out);
        html(out, r->statement);
        char prediction[32];
        ar_store_prediction_describe(r, prediction, sizeof prediction);
        fprintf(out, "</td><td class=num>%s</td><td class=num>%.4g [%.4g, %.4g]</td><td>", prediction, r->estimate,
                r->ci_lo, r->ci_hi);
        resolution_and_note(out, r);
        fprintf(out, "</td><td class=num>%lld</td><td>%s", r->trials, ar_verdict_name(r->verdict));
        damage_mark(out, r, &stored[i], marks[i]);
        fprintf(out, "</td><td>%s</td></tr>\n", ar_verdict_name(r->expected));
    }
    fputs("</table>\n<h2>Claims</h2>\n", out);
    for (int i = 0; i < n_rows; ++i) {
        const ar_verdict_row *r = &rows[i];
        const ar_claim *conjecture = conjecture_of(store, r);
        fputs("<section id=\"", out);
        anchor(out, r);
        fputs("\"><h3>", out);
        html(out, r->claim);
        fputs(" in ", out);
        html(out, r->experiment);
        fprintf(out, ": <span class=%s>%s</span>%s</h3>\n<p>", verdict_class(r->verdict), ar_verdict_name(r->verdict),
                conjecture ? " <span class=tag>user conjecture</span>" : "");
        html(out, r->statement);
        fputs("<br><small>", out);
        if (conjecture) {
            fputs("a user's conjecture, not a claim of attnrank's theory; formula: ", out);
            html(out, conjecture->formula);
            fputs("<br>", out);
        }
        damage_mark(out, r, &stored[i], marks[i]);
        if (marks[i])
            fputs("<br>", out);
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
            if (drawn_from_damage(marks[i], unlisted_of(store, unlisted, r->experiment)))
                continue; /* its figure draws what the file stored, not what the data give */
            embed_figure(out, &figs[k]);
            shown++;
        }
        if (!shown)
            fputs("<p><small>no figure for this claim", out),
                fputs(drawn_from_damage(marks[i], unlisted_of(store, unlisted, r->experiment))
                          ? " (not drawn: the file's stored values for it are damaged)"
                          : note[0] ? " (figures not drawn)" : "", out),
                fputs("</small></p>\n", out);
        fputs("</section>\n", out);
    }
    /* The figures no claim's section showed: first those of judged experiments that name
     * none of their claims, then those of experiments that report without a verdict. */
    for (int judged = 1; judged >= 0; --judged) {
        int shown = 0;
        for (int k = 0; k < n_figs; ++k) {
            if (used[k] || !spec_names(store, figs[k].experiment) ||
                has_verdicts(rows, n_rows, figs[k].experiment) != judged ||
                drawn_from_damage(0, unlisted_of(store, unlisted, figs[k].experiment)))
                continue;
            if (!shown++)
                fputs(judged ? "<h2>More figures</h2>\n<p>Figures of judged experiments that name none of their "
                               "claims.</p>\n"
                             : "<h2>Other figures</h2>\n<p>Experiments that report without a verdict.</p>\n",
                      out);
            embed_figure(out, &figs[k]);
        }
    }
    fputs("<h2>Spec</h2>\n<pre>", out);
    char *value = ar_store_attribute(store, "spec_canonical");
    html(out, value);
    free(value);
    fputs("</pre>\n<h2>Provenance</h2>\n<table>\n", out);
    static const char *const attrs[] = {"attnrank_version", "git_revision", "created", "command_line", "host",
                                        "spec_hash", "seed", "rng", "openblas_core", "openblas_config",
                                        "hdf5_version", "gsl_version", "compiler"};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; ++i) {
        value = ar_store_attribute(store, attrs[i]);
        fprintf(out, "<tr><th>%s</th><td>", attrs[i]);
        html(out, value);
        free(value);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n</body></html>\n", out);
    int failed = ferror(out), closed = fclose(out);
    free_figures(figs, n_figs);
    free(used);
    if (failed || closed) {
        snprintf(err, AR_ERR_LEN, "%s: cannot write: %s", page,
                 closed ? strerror(errno) : "a write failed (disk full or file-size limit?)");
        return -1;
    }
    return 0;
}

/* What the figure script draws an attack file's captions from (figures/attacks.tsv):
 * per attack the values attnrank re-derived and checked, one line each under a header
 * of names, never the file's display attributes (docs/attacks.md). Tabs and line
 * breaks in texts become spaces. */
static void tsv_text(FILE *out, const char *s, int last)
{
    for (; *s; ++s)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, out);
    fputc(last ? '\n' : '\t', out);
}

/* What the figure scripts title and caption a result file's claims with and which
 * output they draw (figures/theory.tsv, given to plot_all.py as --theory): per theory/
 * dataset of each experiment of the stored spec, its claim's kind, output, statement and
 * formula from the claim table, never the dataset's own attributes, which a file can
 * forge (ar_judge_check_verdicts marks them when they differ). */
static int write_theory_rows(const ar_store *store, const char *figures_dir, char *err)
{
    char *path = joined(figures_dir, "/theory.tsv");
    FILE *out = path ? fopen(path, "w") : NULL;
    if (!out) {
        snprintf(err, AR_ERR_LEN, "%s: cannot write: %s", path ? path : figures_dir, strerror(errno));
        free(path);
        return -1;
    }
    fputs("experiment\tclaim\tkind\toutput\tstatement\tformula\n", out);
    const ar_spec *spec = ar_store_spec(store);
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        const ar_claim *claim;
        for (int c = 0; (claim = ar_store_theory_claim(x, c)); ++c) {
            tsv_text(out, x->name, 0);
            tsv_text(out, claim->id, 0);
            tsv_text(out, claim->conjecture ? "conjecture" : "claim", 0);
            tsv_text(out, x->sim->outputs[claim->output].name, 0);
            tsv_text(out, claim->statement ? claim->statement : "", 0);
            tsv_text(out, claim->formula ? claim->formula : "", 1);
        }
    }
    int failed = ferror(out), closed = fclose(out);
    if (failed || closed)
        snprintf(err, AR_ERR_LEN, "%s: cannot write: %s", path, closed ? strerror(errno) : "a write failed");
    free(path);
    return failed || closed ? -1 : 0;
}

static int write_attack_rows(const ar_attack_file *af, const char *figures_dir, char *err)
{
    char *path = joined(figures_dir, "/attacks.tsv");
    FILE *out = path ? fopen(path, "w") : NULL;
    if (!out) {
        snprintf(err, AR_ERR_LEN, "%s: cannot write: %s", path ? path : figures_dir, strerror(errno));
        free(path);
        return -1;
    }
    fputs("id\tclaim\tverdict\trule\tverdict_rule\tpoint\testimate\tci_lo\tci_hi\tprediction\tresolution\tcandidates\t"
          "evaluations\tsearch_trials\tconfirmation_points\tconfirm_trials\tdeciding_row\tlog_dims\n", out);
    for (int k = 0; k < af->spec.n_attacks; ++k) {
        const ar_attack *a = &af->spec.attacks[k];
        const ar_experiment *x = &af->spec.experiments[a->experiment];
        const ar_claim *claim = x->claims[a->claim];
        const ar_judgement *j = &af->judgements[k];
        const ar_attack_record *r = &af->records[k];
        char point[512], resolution[256] = "", logs[1024] = "";
        ar_attack_describe_row(&af->spec, a, r, af->deciding[k], point, sizeof point);
        ar_resolution_describe(&j->resolution, resolution, sizeof resolution);
        for (int d = 0; d < a->n_dims; ++d)
            if (!a->dims[d].is_set && a->dims[d].log_scale)
                snprintf(logs + strlen(logs), sizeof logs - strlen(logs), "%s%s", logs[0] ? " " : "",
                         x->sim->params[a->dims[d].param].name);
        tsv_text(out, a->id, 0);
        tsv_text(out, claim->id, 0);
        tsv_text(out, ar_verdict_name(j->verdict), 0);
        tsv_text(out, ar_rules[claim->rule].spec_name, 0);
        tsv_text(out, j->rule, 0);
        tsv_text(out, point, 0);
        fprintf(out, "%.17g\t%.17g\t%.17g\t%.17g\t", j->estimate, j->ci_lo, j->ci_hi, j->prediction);
        tsv_text(out, resolution, 0);
        fprintf(out, "%ld\t%ld\t%ld\t%ld\t%ld\t%ld\t", r->candidates, r->n_evaluations, r->search_trials,
                r->n_confirmations, r->confirm_trials, af->deciding[k]);
        tsv_text(out, logs, 1);
    }
    int failed = ferror(out), closed = fclose(out);
    if (failed || closed)
        snprintf(err, AR_ERR_LEN, "%s: cannot write: %s", path, closed ? strerror(errno) : "a write failed");
    free(path);
    return failed || closed ? -1 : 0;
}

/* The page of an attack file: per attack its verdict, deciding point and search, its
 * figure, then the spec; everything shown re-derived (ar_attack_file_load). */
static int write_attack_page(const char *result, const ar_attack_file *af, const char *figures_dir,
                             const char *page, const char *note, char *err)
{
    const ar_spec *spec = &af->spec;
    figure *figs;
    int n_figs = read_figures(figures_dir, &figs);
    FILE *out = fopen(page, "w");
    if (!out) {
        snprintf(err, AR_ERR_LEN, "%s: cannot write: %s", page, strerror(errno));
        free_figures(figs, n_figs);
        return -1;
    }
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>attnrank attacks</title>\n<style>\n"
          "body{font-family:Georgia,serif;max-width:1100px;margin:2em auto;color:#222;line-height:1.4}\n"
          "table{border-collapse:collapse;font-size:13px;width:100%}td,th{border-bottom:1px solid #ddd;"
          "padding:4px 6px;text-align:left;vertical-align:top}th{background:#f3f3f3}\n"
          ".holds{background:#d9f2d9}.violated{background:#f7d4d4}.other{background:#fbeec5}\n"
          ".missing{color:#a00}figure svg{max-width:100%;height:auto}figcaption{font-size:12px;color:#555}\n"
          "pre{background:#f7f7f7;padding:1em;overflow:auto;font-size:12px}\n</style></head><body>\n"
          "<h1>attnrank attack report</h1>\n<p>",
          out);
    html(out, spec->title ? spec->title : result);
    fputs("<br><small>", out);
    html(out, result);
    fputs("</small></p>\n", out);
    if (note && note[0]) {
        fputs("<p class=missing>", out);
        html(out, note);
        fputs("</p>\n", out);
    }
    fputs("<table><tr><th>attack</th><th>claim</th><th>verdict</th><th>deciding point</th><th>estimate "
          "[95% interval]</th><th>prediction</th><th>search trials</th><th>confirmation trials</th></tr>\n", out);
    for (int k = 0; k < spec->n_attacks; ++k) {
        const ar_attack *a = &spec->attacks[k];
        const ar_judgement *j = &af->judgements[k];
        char point[512];
        ar_attack_describe_row(spec, a, &af->records[k], af->deciding[k], point, sizeof point);
        fprintf(out, "<tr class=%s><td><a href=\"#attack-%s\">%s</a></td><td>", verdict_class(j->verdict), a->id,
                a->id);
        html(out, spec->experiments[a->experiment].claims[a->claim]->id);
        fprintf(out, "</td><td>%s</td><td>", ar_verdict_name(j->verdict));
        html(out, point);
        fprintf(out, "</td><td>%.6g [%.6g, %.6g]</td><td>%.6g</td><td>%ld</td><td>%ld</td></tr>\n", j->estimate,
                j->ci_lo, j->ci_hi, j->prediction, af->records[k].search_trials, af->records[k].confirm_trials);
    }
    fputs("</table>\n", out);
    for (int k = 0; k < spec->n_attacks; ++k) {
        const ar_attack *a = &spec->attacks[k];
        char resolution[256];
        ar_resolution_describe(&af->judgements[k].resolution, resolution, sizeof resolution);
        fprintf(out, "<h2 id=\"attack-%s\">%s</h2>\n<p>", a->id, a->id);
        html(out, spec->experiments[a->experiment].claims[a->claim]->statement);
        fputs("<br>", out);
        html(out, af->judgements[k].rule);
        fputs("; ", out);
        html(out, resolution);
        char end[256]; /* as the terminal says it: stopped early, or budget left unspent */
        ar_attack_search_end(spec, a, &af->records[k], end, sizeof end);
        if (end[0]) {
            fputs("<br>search: ", out);
            html(out, end);
        }
        fputs("</p>\n", out);
        for (int f = 0; f < n_figs; ++f)
            if (strcmp(figs[f].experiment, a->id) == 0) {
                embed_figure(out, &figs[f]);
            }
    }
    fputs("<h2>Spec</h2>\n<pre>", out);
    html(out, spec->canonical);
    fputs("</pre>\n</body></html>\n", out);
    int failed = ferror(out), closed = fclose(out);
    free_figures(figs, n_figs);
    if (failed || closed) {
        snprintf(err, AR_ERR_LEN, "%s: cannot write: %s", page,
                 closed ? strerror(errno) : "a write failed (disk full or file-size limit?)");
        return -1;
    }
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *at)
{
    (void)st, (void)flag, (void)at;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* Removes a folder and what it holds (links are removed, not followed). */
static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Is name what a report writes in a folder of its: at the top (figures_level 0) the page
 * and the figures folder, inside that folder the figures, their list and the log? */
static int report_wrote(const char *name, int is_dir, int figures_level)
{
    if (!figures_level)
        return is_dir ? strcmp(name, "figures") == 0
                      : strcmp(name, "report.html") == 0 || strcmp(name, REPORT_MARK) == 0;
    size_t len = strlen(name);
    return !is_dir && (strcmp(name, "figures.tsv") == 0 || strcmp(name, "attacks.tsv") == 0 ||
                       strcmp(name, "theory.tsv") == 0 ||
                       strcmp(name, "plot.log") == 0 ||
                       (len > 4 && strcmp(name + len - 4, ".svg") == 0));
}

/* Does folder dir (figures_level as above) hold nothing but what a report writes? */
static int only_report_files(const char *top, const char *dir, int figures_level, char *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, AR_ERR_LEN, "%s: %s", dir, strerror(errno));
        return -1;
    }
    int status = 0;
    for (struct dirent *entry; status == 0 && (entry = readdir(d));) {
        const char *name = entry->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        char *path = joined(dir, "/"), *full = path ? joined(path, name) : NULL;
        struct stat st;
        int known = full && lstat(full, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) &&
                    report_wrote(name, S_ISDIR(st.st_mode), figures_level);
        if (!full) {
            snprintf(err, AR_ERR_LEN, "%s: out of memory", top);
            status = -1;
        } else if (!known) {
            snprintf(err, AR_ERR_LEN, "%s: holds %s, which no report wrote; a report replaces its whole folder: "
                     "give it another -o DIR", top, full + strlen(top) + 1);
            status = -1;
        } else if (S_ISDIR(st.st_mode)) {
            status = only_report_files(top, full, 1, err);
        }
        free(full);
        free(path);
    }
    closedir(d);
    return status;
}

/* A report replaces its whole folder: DIR must be absent, or a folder holding nothing
 * but what a report writes (its page, and in figures/ its figures, list and log). */
static int replaceable(const char *dir, char *err)
{
    struct stat st;
    if (lstat(dir, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, AR_ERR_LEN, "%s: %s", dir, strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) { /* the folder is replaced whole: never through a link */
        struct stat target;
        snprintf(err, AR_ERR_LEN, "%s: is a symbolic link%s; attnrank does not follow it (a report replaces its "
                 "whole folder): give the report another -o DIR", dir,
                 stat(dir, &target) == 0 && S_ISDIR(target.st_mode) ? " to a folder" : "");
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, AR_ERR_LEN, "%s: exists and is not a folder: give the report another -o DIR", dir);
        return -1;
    }
    return only_report_files(dir, dir, 0, err);
}

/* The finished folder becomes DIR in one step; a report already there is swapped out,
 * then removed. */
static int put_in_place(const char *building, const char *dir, char *err)
{
    if (rename(building, dir) == 0)
        return 0;
    if (errno == ENOTEMPTY || errno == EEXIST) {
        if (renameat2(AT_FDCWD, building, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
            remove_tree(building);
            return 0;
        }
        if (errno == EINVAL || errno == ENOSYS) { /* no exchange on this file system: the old one goes first */
            remove_tree(dir);
            if (rename(building, dir) == 0)
                return 0;
        }
    }
    snprintf(err, AR_ERR_LEN, "%s: cannot move the report into place: %s", dir, strerror(errno));
    return -1;
}

/* Is folder (DIR.partial) one a report made: a real folder holding its mark? */
static int made_by_report(const char *folder)
{
    char *mark = joined(folder, "/" REPORT_MARK);
    struct stat st, at;
    int ours = mark && lstat(folder, &at) == 0 && S_ISDIR(at.st_mode) && lstat(mark, &st) == 0 && S_ISREG(st.st_mode);
    free(mark);
    return ours;
}

/* Under DIR.lock the report is built in DIR.partial and renamed to DIR when complete;
 * a failed or interrupted one is removed. DIR.partial and its figures/ made afresh, with
 * the page's path in it: 0; -1 with err; -2 with err where DIR.partial exists and no
 * report made it, or holds what no report wrote (a user's file is never removed). */
static int make_folders(const char *dir, char **building, char **figures_dir, char **page, char *err)
{
    *building = joined(dir, ".partial");
    *figures_dir = *building ? joined(*building, "/figures") : NULL;
    *page = *building ? joined(*building, "/report.html") : NULL;
    char *mark = *building ? joined(*building, "/" REPORT_MARK) : NULL;
    struct stat st;
    int status = 0;
    if (!*figures_dir || !*page || !mark)
        status = (snprintf(err, AR_ERR_LEN, "%s: out of memory", dir), -1);
    else if (lstat(*building, &st) == 0 && !made_by_report(*building))
        status = (snprintf(err, AR_ERR_LEN, "%s: exists and no report made it (it has no %s); a report builds its "
                          "folder there: move it away or give another -o DIR", *building, REPORT_MARK), -2);
    else if (lstat(*building, &st) == 0 && only_report_files(*building, *building, 0, err) != 0)
        status = -2; /* a report's, with a file of the user's put in it: kept, as DIR would be */
    else if (remove_tree(*building), mkdir(*building, 0777) != 0 || mkdir(*figures_dir, 0777) != 0)
        status = (snprintf(err, AR_ERR_LEN, "%s: cannot create the report folder: %s", *building, strerror(errno)), -1);
    else {
        int fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 || close(fd) != 0)
            status = (snprintf(err, AR_ERR_LEN, "%s: cannot write: %s", mark, strerror(errno)), -1);
    }
    free(mark);
    return status;
}

static void say_interrupted(const char *dir, char *err)
{
    snprintf(err, AR_ERR_LEN, "%s: interrupted by %s; no report written", dir, ar_stop_signal_name());
}

ar_status ar_report_write(const char *result, const char *dir_given, const char *plots, char *note, size_t note_len,
                          char *err)
{
    note[0] = err[0] = '\0';
    char *dir = strdup(dir_given), *building = NULL, *figures_dir = NULL, *page = NULL;
    for (size_t n = dir ? strlen(dir) : 0; n > 1 && dir[n - 1] == '/'; --n)
        dir[n - 1] = '\0'; /* DIR/ names the folder DIR */
    ar_status status = AR_ERR_INPUT;
    ar_result opened = {0}, *r = &opened; /* shown: its data judged again, each stored row that differs marked */
    ar_output_lock *lock = NULL;
    int attacks = ar_store_is_attack_file(result);
    /* An attack file read, checked and re-derived before any folder is made, from a private
     * copy: its figure scripts read that copy (af.copy), whatever FILE names or holds now. */
    ar_attack_file af = {0};
    ar_status loaded = AR_ERR_INPUT;
    if (!dir)
        snprintf(err, AR_ERR_LEN, "%s: out of memory", dir_given);
    else if (ar_output_check_name(dir, ".partial", err) == 0 && attacks &&
             (loaded = ar_attack_file_load(result, &af, err)) == AR_OK && (lock = ar_output_lock_take(dir, err)) && replaceable(dir, err) == 0) {
        status = AR_ERR_IO;
        int made = make_folders(dir, &building, &figures_dir, &page, err);
        if (made == 0 && write_attack_rows(&af, figures_dir, err) == 0) {
            err[0] = '\0';
            draw_figures(result, af.copy, NULL, figures_dir, plots, note, note_len);
            if (!ar_stop_signal && write_attack_page(result, &af, figures_dir, page, note, err) == 0 &&
                !ar_stop_signal && put_in_place(building, dir, err) == 0)
                status = AR_OK;
            else if (ar_stop_signal) /* said as the result file's report says it: a status and a line */
                say_interrupted(dir, err), status = AR_ERR_INTERRUPTED;
        }
        if (made == -2)
            status = AR_ERR_INPUT;
        else if (status != AR_OK && building)
            remove_tree(building);
    } else if (!attacks && ar_output_check_name(dir, ".partial", err) == 0 &&
             ar_result_open(result, AR_RESULT_STORED, r, err) == 0 && (lock = ar_output_lock_take(dir, err)) &&
             replaceable(dir, err) == 0) {
        status = AR_ERR_IO;
        int made = make_folders(dir, &building, &figures_dir, &page, err);
        if (made == 0 && write_theory_rows(r->store, figures_dir, err) == 0) {
            draw_figures(result, ar_store_descriptor(r->store), r->spec, figures_dir, plots, note, note_len);
            if (!ar_stop_signal && write_page(result, r, figures_dir, page, note, err) == 0 && !ar_stop_signal &&
                put_in_place(building, dir, err) == 0) {
                status = AR_OK;
                char incomplete[160], *figures = strdup(note); /* the page has it; say it on stderr too */
                incomplete_notice(r, incomplete, sizeof incomplete);
                if (incomplete[0] && figures)
                    snprintf(note, note_len, "%s%s%s", incomplete, figures[0] ? "; " : "", figures);
                free(figures);
                if (r->damaged) { /* the page marks it; the status says it */
                    size_t used = (size_t)snprintf(err, AR_ERR_LEN, "%s", r->damage); /* < AR_ERR_LEN */
                    snprintf(err + used, AR_ERR_LEN - used, " (%s/report.html shows what its data give, the "
                             "differing rows marked DAMAGED)", dir);
                    status = AR_ERR_INPUT;
                }
            }
            else if (ar_stop_signal) {
                say_interrupted(dir, err);
                status = AR_ERR_INTERRUPTED;
            }
        }
        if (made == -2)
            status = AR_ERR_INPUT;
        else if (status != AR_OK && status != AR_ERR_INPUT && building)
            remove_tree(building);
    }
    if (loaded == AR_ERR_IO)
        status = AR_ERR_IO;
    if (attacks)
        ar_attack_file_free(&af);
    ar_output_lock_release(lock);
    ar_result_close(r);
    free(dir), free(building), free(figures_dir), free(page);
    return status;
}

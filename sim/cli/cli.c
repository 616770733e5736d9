/* cli: the command line (see cli.h): parses each command's options, calls the library, prints
 * tables, maps library errors to exit statuses. */
#define _GNU_SOURCE
#include "attnrank/cli.h"

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
#include "attnrank/store.h"
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

static const char *program = "attnrank";

/* Exit statuses, as `attnrank help` documents them. */
enum {
    AR_EXIT_OK = 0,
    AR_EXIT_VERIFY_FAILED = 1, /* a definite verdict contradicts the spec's expectation */
    AR_EXIT_BAD_INPUT = 2,
    AR_EXIT_IO = 3,
    AR_EXIT_UNDECIDED = 4,     /* none contradicts, but an expected-definite one is undecided */
};

/* The library's statuses as exit statuses; an interrupted run exits 128 + the signal. */
static int exit_status(ar_status status)
{
    switch (status) {
    case AR_OK: return AR_EXIT_OK;
    case AR_ERR_INPUT: return AR_EXIT_BAD_INPUT;
    case AR_ERR_IO: return AR_EXIT_IO;
    case AR_ERR_INTERRUPTED: return 128 + (ar_stop_signal ? ar_stop_signal : SIGINT);
    }
    return AR_EXIT_IO;
}

static const char usage_text[] =
    "usage: attnrank COMMAND [options]\n"
    "\n"
    "Monte Carlo checks of theorems about the rank of attention matrices.\n"
    "\n"
    "commands:\n"
    "  list [SIMULATOR|--tsv]    simulators, their parameters (defaults, ranges) and outputs;\n"
    "                            the claims they check\n"
    "  run SPEC [options]        run the grid of a spec file into an HDF5 file\n"
    "  merge -o FILE SHARD...    join the files of a run split with --shard into FILE\n"
    "  plan SPEC [--set K=V]...  points, trials, core-hours (calibrated here), memory and\n"
    "                            file size of a spec, before running it\n"
    "  verify [--quick|--full]   the default verification suite: a verdict table, the HDF5\n"
    "                            file and its HTML report\n"
    "  info [FILE]               what a result file holds, and its verdicts; without FILE,\n"
    "                            the OpenBLAS core in use and how it was decided\n"
    "  mutants FILE              each claim re-judged against perturbed predictions: how\n"
    "                            sharply its verdict could have failed\n"
    "  judge FILE [--conjecture TEXT]...  a finished file judged again without simulating:\n"
    "                            its claims, and conjectures of your own\n"
    "  report FILE [-o DIR]      an HTML page with the verdicts and every claim's figure\n"
    "  help [COMMAND]            this text, or a command's options\n"
    "  --version                 version and libraries\n"
    "\n"
    "exit status: 0 every verdict as the spec expects; 1 a definite verdict contradicts\n"
    "the expected one; 2 bad input (spec, command line, file) or a run refused before it\n"
    "starts (memory, disk, file-size limit); 3 I/O error during a run; 4 no verdict\n"
    "contradicts, but one expected HOLDS or VIOLATED is INCONCLUSIVE or NOT RUN; 130/143/129\n"
    "interrupted by SIGINT/SIGTERM/SIGHUP (finished points are saved: continue with --resume).\n"
    "\n"
    "OpenBLAS's core: where OpenBLAS chose kernels below what the CPU supports, attnrank\n"
    "uses a better core once it passes a self-check here (`attnrank info` says which and\n"
    "why); OPENBLAS_CORETYPE, when set, is never changed; ATTNRANK_BLAS_CORE=off keeps\n"
    "OpenBLAS's choice.\n";

static const char run_help[] =
    "usage: attnrank run SPEC [-o FILE] [--set KEY=VALUE]... [--threads N] [--resume] [--force]\n"
    "                    [--quiet] [--max-memory SIZE] [--shard I/N]\n"
    "\n"
    "Runs every grid point of SPEC (a libconfig file, see runs/*.cfg) and writes FILE\n"
    "(default: SPEC's name with .h5). While it runs the results live in FILE.partial;\n"
    "FILE appears only when the run is complete.\n"
    "\n"
    "  -o, --output FILE     result file\n"
    "  -s, --set KEY=VALUE   override a spec field: seed=7, trials=100 (all experiments),\n"
    "                        bound.n=[8,16] (one experiment); repeatable\n"
    "  -t, --threads N       OpenMP threads (default: OMP_NUM_THREADS or all cores);\n"
    "                        results are bitwise identical for any N\n"
    "  -r, --resume          continue an interrupted run from FILE.partial\n"
    "  -f, --force           replace an existing FILE (or FILE.partial)\n"
    "  -q, --quiet           no progress line\n"
    "  -m, --max-memory SIZE refuse points needing more (e.g. 4G; default 80% of RAM)\n"
    "      --shard I/N       compute only shard I of N, for job arrays: blocks of consecutive\n"
    "                        points (counted over all experiments in spec order) dealt\n"
    "                        round-robin; FILE then holds that shard's points (a sparse\n"
    "                        file), and `attnrank merge` joins the N files into the one a\n"
    "                        single run would have written\n";

static const char merge_help[] =
    "usage: attnrank merge -o FILE [--force] [--quiet] SHARD...\n"
    "\n"
    "Joins the files written by `attnrank run SPEC --shard I/N` for I = 0..N-1 into FILE:\n"
    "the same datasets, bit for bit, as one unsharded run, and its verdicts. Refuses\n"
    "shards of different specs or seeds, a shard given twice, a missing shard, and a\n"
    "shard that is not complete (finish it with --resume). Like a run it writes\n"
    "FILE.partial and renames it to FILE; a merge that fails or is interrupted removes\n"
    "it (there is nothing to resume: run the merge again; one killed by SIGKILL leaves\n"
    "it, and the next merge removes it). A whole run (written without --shard, or with\n"
    "--shard 0/1) is merged alone, as the one shard of itself. FILE is none of the SHARDs,\n"
    "and the SHARDs come from this attnrank (its version and git revision).\n"
    "\n"
    "  -o, --output FILE     the merged result file (not one of the SHARDs)\n"
    "  -f, --force           replace an existing FILE\n"
    "  -q, --quiet           accepted as for run (a merge shows no progress)\n";

static const char verify_help[] =
    "usage: attnrank verify [--quick|--full] [--mutants] [--no-report] [-o FILE] [--threads N]\n"
    "                       [--set KEY=VALUE]... [--resume] [--force] [--quiet]\n"
    "                       [--max-memory SIZE]   (as for run)\n"
    "\n"
    "Runs the built-in verification suite (runs/verify.cfg): every claim with a verdict,\n"
    "including one deliberately broken assumption (tied weights, H4) and seven findings\n"
    "(S8edge, four of H5's rank measures, M4fig2, C4) that must come out VIOLATED. About\n"
    "two minutes on 2 cores; --quick takes a tenth of the trials, --full ten times as\n"
    "many. Writes FILE\n"
    "(default attnrank-verify-<UTC time>.h5) and its HTML report\n"
    "(FILE without .h5, plus -report/report.html). Exits 1 if a verdict contradicts the\n"
    "expected one, 4 if one expected to be definite is INCONCLUSIVE. --mutants then\n"
    "re-judges every claim against perturbed predictions (see `attnrank help mutants`).\n";

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

static void print_verdicts(FILE *f, const ar_verdict_row *given, int n)
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
        fprintf(f, "%-*s %-*s %-12s %-12s %10s  %-30s %7lld  %-30s %-15s %s%s\n", cw, r->claim, ew, r->experiment,
                ar_verdict_name(r->verdict), ar_verdict_name(r->expected), prediction, est, r->trials, resolution,
                note[0] ? note : "-", r->point[0] ? r->point : "-", mark);
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
static int verdict_status(const ar_verdict_row *rows, int n, int *undecided)
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
static void print_outcome(int status, int undecided)
{
    if (status == AR_EXIT_VERIFY_FAILED)
        printf("some verdicts differ from what the spec expects\n");
    else if (status == AR_EXIT_UNDECIDED)
        printf("%d verdict(s) undecided where the spec expects a definite one (INCONCLUSIVE or NOT RUN): "
               "exit status 4\n",
               undecided);
}

static char *join_command_line(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; ++i)
        len += strlen(argv[i]) + 3;
    char *s = malloc(len), *w = s;
    for (int i = 0; i < argc; ++i) {
        int quote = strpbrk(argv[i], " \t\"'") != NULL;
        w += sprintf(w, "%s%s%s%s", i ? " " : "", quote ? "'" : "", argv[i], quote ? "'" : "");
    }
    return s;
}

static int parse_size(const char *text, double *bytes)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || !(v > 0) || !isfinite(v))
        return -1;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': v *= 1024.0; end++; break;
    case 'M': v *= 1048576.0; end++; break;
    case 'G': v *= 1073741824.0; end++; break;
    case 'T': v *= 1099511627776.0; end++; break;
    default: return -1;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || v < 1 || !isfinite(v)) /* 0.5 would plan with 0 B; 1e30T is inf */
        return -1;
    *bytes = v;
    return 0;
}

/* The one place that writes a message on stderr: "attnrank: " and the message on one
 * line, whatever the names in it hold (a newline or other control character in a path
 * is written as \n, \t, \r or \xHH). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char text[2 * AR_ERR_LEN];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    fprintf(stderr, "%s: ", program);
    for (const unsigned char *c = (const unsigned char *)text; *c; ++c) {
        if (*c == '\n' || *c == '\t' || *c == '\r')
            fprintf(stderr, "\\%c", *c == '\n' ? 'n' : *c == '\t' ? 't' : 'r');
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(stderr, "\\x%02x", *c);
        else
            fputc(*c, stderr);
    }
    fputc('\n', stderr);
}

static int bad_usage(const char *fmt, const char *arg)
{
    char text[AR_ERR_LEN];
    snprintf(text, sizeof text, fmt, arg);
    say("%s (see `attnrank help`)", text);
    return AR_EXIT_BAD_INPUT;
}

/* The long options of longs that NAME (--name or --na, without its =value) selects, as
 * getopt_long matches them: an exact name, else every one it abbreviates. */
static int long_matches(const struct option *longs, const char *name, size_t len, const struct option **first,
                        char *names, size_t names_len)
{
    int count = 0;
    names[0] = '\0';
    for (const struct option *o = longs; o->name; ++o)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) {
            *first = o;
            snprintf(names, names_len, "--%s", o->name);
            return 1;
        }
    for (const struct option *o = longs; o->name; ++o)
        if (strncmp(o->name, name, len) == 0) {
            if (!count++)
                *first = o;
            size_t used = strlen(names);
            snprintf(names + used, names_len - used, "%s--%s", used ? ", " : "", o->name);
        }
    return count;
}

/* getopt's complaint in words (its option string starts with ':'): c is ':' for an
 * option missing its argument, '?' for one it does not know or that takes no value.
 * The option is named as the user wrote it: getopt's optopt is the short letter of a
 * long option (--quiet=1 said "unknown option '-q'"). */
static int option_error(const char *prefix, int c, char **argv, const struct option *longs)
{
    const char *arg = argv[optind - 1];
    char name[64], text[256], names[192];
    const struct option *match = NULL;
    size_t len = strncmp(arg, "--", 2) == 0 ? strcspn(arg + 2, "=") : 0;
    int matches = len ? long_matches(longs, arg + 2, len, &match, names, sizeof names) : 0;
    /* argv[optind - 1] is the long option at fault, unless getopt is inside a cluster of
     * short options after it (--force -zq): then optopt is a letter that option lacks */
    int is_long = len && (!optopt || (matches == 1 && match->val == optopt &&
                                      (c == ':' ? match->has_arg == required_argument
                                                : arg[2 + len] == '=' && match->has_arg == no_argument)));
    if (is_long)
        snprintf(name, sizeof name, "--%.*s", (int)(len < 60 ? len : 60), arg + 2);
    else if (!optopt)
        snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    else
        snprintf(name, sizeof name, "-%c", optopt); /* a short one, perhaps inside a cluster such as -qx */
    if (c == ':')
        snprintf(text, sizeof text, "%soption '%s' needs an argument", prefix, name);
    else if (is_long && matches > 1)
        snprintf(text, sizeof text, "%soption '%s' is ambiguous (%s)", prefix, name, names);
    else if (is_long && matches == 1 && arg[2 + len] == '=')
        snprintf(text, sizeof text, "%soption '%s' takes no value (write %s alone)", prefix, name, names);
    else
        snprintf(text, sizeof text, "%sunknown option '%s'", prefix, name);
    return bad_usage("%s", text);
}

/* The last word of every command: what it printed must have reached stdout (a full
 * disk, /dev/full, a closed pipe); if not, one line and the I/O status. */
static int check_stdout(int status)
{
    int failed = ferror(stdout), closed = fclose(stdout);
    if (!failed && !closed)
        return status;
    say("standard output: cannot write: %s", closed ? strerror(errno) : "a write failed");
    return AR_EXIT_IO;
}

typedef struct {
    ar_run_options run;
    const char **sets;
    int n_sets;
    int quick, full, mutants, no_report;
    const char *spec_path;
} cli_options;

static int parse_run_options(int argc, char **argv, int verify, cli_options *o)
{
    static const struct option longs[] = {
        {"output", required_argument, 0, 'o'},  {"set", required_argument, 0, 's'},
        {"threads", required_argument, 0, 't'}, {"resume", no_argument, 0, 'r'},
        {"force", no_argument, 0, 'f'},         {"quiet", no_argument, 0, 'q'},
        {"max-memory", required_argument, 0, 'm'}, {"quick", no_argument, 0, 'Q'},
        {"full", no_argument, 0, 'F'},          {"help", no_argument, 0, 'h'},
        {"shard", required_argument, 0, 'S'},   {"mutants", no_argument, 0, 'M'},
        {"no-report", no_argument, 0, 'N'},     {0, 0, 0, 0},
    };
    o->sets = calloc((size_t)argc + 1, sizeof *o->sets);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:s:t:rfqm:h", longs, NULL)) != -1) {
        switch (c) {
        case 'o': o->run.output = optarg; break;
        case 's': o->sets[o->n_sets++] = optarg; break;
        case 't': {
            char *end;
            long t = strtol(optarg, &end, 10);
            if (*end || t < 1 || t > AR_MAX_THREADS)
                return bad_usage("--threads: '%s' is not a thread count in 1..4096", optarg);
            o->run.threads = (int)t;
            break;
        }
        case 'r': o->run.resume = 1; break;
        case 'f': o->run.force = 1; break;
        case 'q': o->run.quiet = 1; break;
        case 'm':
            if (parse_size(optarg, &o->run.max_memory))
                return bad_usage("--max-memory: '%s' is not a size like 512M or 4G", optarg);
            break;
        case 'S': {
            int index, count;
            if (verify || ar_shard_parse(optarg, &index, &count) < 0) /* as a file's shard attribute */
                return bad_usage(verify ? "--shard: only for `attnrank run`, not '%s'"
                                        : "--shard: '%s' is not I/N with 0 <= I < N <= 2147483647",
                                 optarg);
            o->run.shard = index;
            o->run.shards = count;
            break;
        }
        case 'N':
            if (!verify)
                return bad_usage("%s", "--no-report: only for `attnrank verify`");
            o->no_report = 1;
            break;
        case 'M':
            if (!verify)
                return bad_usage("%s", "--mutants: only for `attnrank verify` (for a file: attnrank mutants FILE)");
            o->mutants = 1;
            break;
        case 'Q':
        case 'F':
            if (!verify)
                return bad_usage("%s: only for `attnrank verify`", c == 'Q' ? "--quick" : "--full");
            if (c == 'Q')
                o->quick = 1;
            else
                o->full = 1;
            break;
        case 'h':
            fputs(verify ? verify_help : run_help, stdout);
            exit(check_stdout(0));
        default:
            return option_error("", c, argv, longs);
        }
    }
    if (o->quick && o->full)
        return bad_usage("%s", "--quick and --full exclude each other");
    if (!verify) {
        if (optind >= argc)
            return bad_usage("%s", "run: missing the SPEC file");
        o->spec_path = argv[optind++];
    }
    if (optind < argc)
        return bad_usage("unexpected argument '%s'", argv[optind]);
    return 0;
}

static int run_spec(ar_spec *spec, cli_options *o)
{
    ar_verdict_row *rows;
    int n_rows;
    char err[AR_ERR_LEN];
    ar_install_signal_handlers();
    int status = exit_status(ar_run_spec(spec, &o->run, &rows, &n_rows, err));
    if (status != AR_EXIT_OK) {
        say("%s", err);
        return status;
    }
    if (n_rows > 0)
        print_verdicts(stdout, rows, n_rows);
    if (o->run.shards > 1) {
        printf("shard %d/%d complete: %s\njoin all %d shards with: attnrank merge -o FILE SHARD...\n", o->run.shard,
               o->run.shards, o->run.output, o->run.shards);
        free(rows);
        return AR_EXIT_OK;
    }
    int undecided;
    status = verdict_status(rows, n_rows, &undecided);
    printf("\nresults: %s\n", o->run.output);
    print_outcome(status, undecided);
    free(rows);
    return status;
}

static char *default_output(const char *spec_path)
{
    const char *base = strrchr(spec_path, '/');
    base = base ? base + 1 : spec_path;
    char *out = malloc(strlen(base) + 4);
    strcpy(out, base);
    char *dot = strrchr(out, '.');
    if (dot && dot != out)
        *dot = '\0';
    strcat(out, ".h5");
    return out;
}

static int cmd_run(int argc, char **argv, char *command_line)
{
    cli_options o = {0};
    int status = parse_run_options(argc, argv, 0, &o);
    if (status) {
        free(o.sets);
        return status;
    }
    char *output = NULL;
    if (!o.run.output)
        o.run.output = output = default_output(o.spec_path);
    o.run.command_line = command_line;
    ar_spec spec;
    char err[AR_ERR_LEN];
    if (ar_spec_load(o.spec_path, o.sets, o.n_sets, &spec, err) != 0) {
        say("%s", err);
        status = AR_EXIT_BAD_INPUT;
    } else {
        status = run_spec(&spec, &o);
        ar_spec_free(&spec);
    }
    free(output);
    free(o.sets);
    return status;
}

static const char report_help[] =
    "usage: attnrank report FILE [-o DIR] [--quiet]\n"
    "\n"
    "Writes DIR/report.html (default DIR: FILE without .h5, plus -report): the verdict\n"
    "table, a section per claim with its figures (drawn from FILE by the scripts in\n"
    "plots/, embedded as SVG: the page needs no network), the spec and the provenance.\n"
    "Without Python and matplotlib the page still has the table and says what is missing.\n"
    "DIR is built as DIR.partial and renamed when complete; a report already there is\n"
    "replaced, a folder holding other files is refused.\n"
    "ATTNRANK_PLOTS names another folder of figure scripts.\n";

static const char *plots_folder(void)
{
    const char *env = getenv("ATTNRANK_PLOTS");
    return env && env[0] ? env : ATTNRANK_SOURCE_ROOT "/plots";
}

static char *default_report_dir(const char *result)
{
    char *dir = malloc(strlen(result) + 8);
    strcpy(dir, result);
    size_t len = strlen(dir);
    if (len > 3 && strcmp(dir + len - 3, ".h5") == 0)
        dir[len - 3] = '\0';
    strcat(dir, "-report");
    return dir;
}

/* The report of a finished run; says where it is, or why figures are missing. */
static int write_report(const char *result, const char *dir)
{
    char err[AR_ERR_LEN], note[512];
    ar_status status = ar_report_write(result, dir, plots_folder(), note, sizeof note, err);
    if (status != AR_OK) {
        say("%s", err);
        return exit_status(status);
    }
    printf("report: %s/report.html\n", dir);
    if (note[0])
        say("%s", note);
    return AR_EXIT_OK;
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

static void print_mutants(const ar_mutant_row *rows, int n)
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
        if (r->verdict == AR_VIOLATED) /* its mutants say how far off it is, not how sharp */
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
static int print_file_mutants(const char *path)
{
    char err[AR_ERR_LEN];
    ar_store *store = ar_store_open(path, 0, err);
    if (!store) {
        say("%s", err);
        return AR_EXIT_BAD_INPUT;
    }
    const ar_spec *spec = ar_store_spec(store);
    for (int e = 0; e < spec->n_experiments; ++e)
        if (ar_store_done_count(store, e) < spec->experiments[e].n_points) {
            say("%s: incomplete run (experiment %s): mutants need every point", path, spec->experiments[e].name);
            ar_store_close(store);
            return AR_EXIT_BAD_INPUT;
        }
    char stale[AR_ERR_LEN];
    if (ar_judge_check_verdicts(store, stale, sizeof stale, err) < 0) {
        say("%s", err);
        ar_store_close(store);
        return AR_EXIT_BAD_INPUT;
    }
    int n = ar_store_verdict_count(spec);
    ar_mutant_row *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
    int status = AR_EXIT_OK;
    if (!rows || ar_judge_mutants(store, spec, rows, err) < 0) {
        say("%s", rows ? err : "out of memory");
        status = AR_EXIT_BAD_INPUT;
    } else {
        print_mutants(rows, n);
    }
    free(rows);
    ar_store_close(store);
    return status;
}

static const char mutants_help[] =
    "usage: attnrank mutants FILE\n"
    "\n"
    "Re-judges the stored estimates of a finished result file, without simulating again,\n"
    "against perturbed predictions: each limit and equality scaled by +-2%, +-5% and\n"
    "+-10%; each bound tightened by 2, 3, 5 and 10%; each trend reversed. Prints, per\n"
    "claim, which mutants are killed (VIOLATED) and the smallest one, and names the claims\n"
    "where none can be made (witnesses, measurements) or none is killed.\n";

static int cmd_mutants(int argc, char **argv, char *command_line)
{
    (void)command_line;
    if (argc != 2 || argv[1][0] == '-')
        return bad_usage("%s", "mutants: give one result FILE");
    return print_file_mutants(argv[1]);
}

static const char judge_help[] =
    "usage: attnrank judge FILE [--conjectures CFILE] [--conjecture 'FIELD=VALUE; ...']...\n"
    "                           [--mutants] [-o COPY] [--force] [--quiet]\n"
    "\n"
    "Judges a finished result file again without simulating: its claims with this\n"
    "attnrank's theory, and conjectures of your own, by the same rules, resolutions and\n"
    "mutants as a run (the verdicts are those `run` prints for the same statements).\n"
    "Prints the verdict table; exits as a run would (0, 1, 4; 2 bad input, a bad\n"
    "conjecture among it; 3 an I/O error writing COPY).\n"
    "FILE is never modified.\n"
    "\n"
    "  --conjecture TEXT     one conjecture, fields as in a spec, separated by ';':\n"
    "                        'id=rank_06; output=argmax_rank; rule=upper_bound;\n"
    "                         prediction=0.6 * n + 2; where=d_h >= 4'; repeatable\n"
    "  --conjectures CFILE   a libconfig file: conjectures = ( { experiment = \"NAME\";\n"
    "                        id = ...; ... }, ... );  experiment may be left out where\n"
    "                        one experiment alone has the output\n"
    "  --mutants             also re-judge every claim and conjecture against perturbed\n"
    "                        predictions (see `attnrank help mutants`)\n"
    "  -o, --output COPY     write a copy of FILE holding the conjectures too: their\n"
    "                        theory/<id> datasets, /verdicts and spec (FILE's data, bit\n"
    "                        for bit); report and info read it like any result file\n"
    "  -f, --force           replace an existing COPY\n"
    "  -q, --quiet           accepted as for run (judge shows no progress)\n"
    "\n"
    "Fields: id, output, rule (upper_bound, lower_bound, equality, limit, log_slope,\n"
    "decreasing, increasing, steeper, every_trial, witness, measure), prediction and where\n"
    "(expressions over the simulator's numeric parameters and choice indicators such as\n"
    "weights_tied, 1 where weights is tied; e, pi, sqrt, exp, ln, log, log2, log10, abs,\n"
    "sign, floor, ceil, round, min, max, ^, comparisons, && || and ?:), tolerance\n"
    "(relative: equality, limit, log_slope), along (the trend's or limit's axis), versus\n"
    "(steeper), rate (limit's exponent b, or [lo, hi]), element (per-layer outputs),\n"
    "statement, expect, experiment.\n";

/* Judge a finished file again: its claims and the conjectures given (judge_help). */
static int cmd_judge(int argc, char **argv, char *command_line)
{
    static const struct option longs[] = {
        {"output", required_argument, 0, 'o'}, {"force", no_argument, 0, 'f'},
        {"conjecture", required_argument, 0, 'c'}, {"conjectures", required_argument, 0, 'C'},
        {"mutants", no_argument, 0, 'M'}, {"help", no_argument, 0, 'h'}, {"quiet", no_argument, 0, 'q'},
        {0, 0, 0, 0},
    };
    const char *output = NULL, *file = NULL;
    int force = 0, mutants = 0, n_lines = 0, c;
    const char **lines = calloc((size_t)argc, sizeof *lines);
    if (!lines)
        return AR_EXIT_IO;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:fhq", longs, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'f': force = 1; break;
        case 'q': break; /* as for run; judge shows no progress */
        case 'c': lines[n_lines++] = optarg; break;
        case 'C':
            if (file) {
                free(lines);
                return bad_usage("%s", "judge: give --conjectures once (put every conjecture in that file)");
            }
            file = optarg;
            break;
        case 'M': mutants = 1; break;
        case 'h': fputs(judge_help, stdout); free(lines); return 0;
        default: free(lines); return option_error("judge: ", c, argv, longs);
        }
    }
    if (optind != argc - 1) {
        free(lines);
        return bad_usage("%s", "judge: give one result FILE");
    }
    ar_judge_request req = {.path = argv[optind], .copy = output, .command_line = command_line,
                            .conjecture_file = file, .conjectures = lines, .n_conjectures = n_lines,
                            .force = force, .mutants = mutants};
    ar_file_judgement j;
    char err[AR_ERR_LEN];
    ar_status st = ar_rejudge_file(&req, &j, err);
    free(lines);
    if (st != AR_OK) {
        say("%s", err);
        return exit_status(st);
    }
    print_verdicts(stdout, j.rows, j.n_rows);
    fputs(j.notes, stdout);
    if (mutants) {
        printf("\n");
        print_mutants(j.mutants, j.n_rows);
    }
    int undecided, status = verdict_status(j.rows, j.n_rows, &undecided);
    printf("\njudged: %s%s%s\n", req.path, output ? ", copy with the conjectures: " : " (not modified)",
           output ? output : "");
    print_outcome(status, undecided);
    ar_file_judgement_free(&j);
    return status;
}

static int cmd_verify(int argc, char **argv, char *command_line)
{
    cli_options o = {0};
    int status = parse_run_options(argc, argv, 1, &o);
    if (!status && o.run.resume && !o.run.output)
        status = bad_usage("%s", "verify --resume needs the -o FILE of the interrupted run");
    if (status) {
        free(o.sets);
        return status;
    }
    char output[128];
    if (!o.run.output) {
        time_t now = time(NULL);
        strftime(output, sizeof output, "attnrank-verify-%Y%m%dT%H%M%SZ.h5", gmtime(&now));
        o.run.output = output;
    }
    o.run.command_line = command_line;
    ar_spec spec;
    char err[AR_ERR_LEN];
    const char *label = o.quick ? "verify.cfg (built in, --quick)" : o.full ? "verify.cfg (built in, --full)"
                                                                           : "verify.cfg (built in)";
    if (ar_spec_load_text(ar_verify_spec, label, NULL, o.sets, o.n_sets, &spec, err) != 0) {
        say("%s", err);
        free(o.sets);
        return AR_EXIT_BAD_INPUT;
    }
    if ((o.quick || o.full) && ar_spec_scale_trials(&spec, o.quick ? 0.1 : 10.0) != 0) {
        say("%s: out of memory", label);
        ar_spec_free(&spec);
        free(o.sets);
        return AR_EXIT_BAD_INPUT;
    }
    if (!o.run.quiet)
        say("verify: %s, writing %s", label, o.run.output);
    status = run_spec(&spec, &o);
    if (status == AR_EXIT_OK || status == AR_EXIT_VERIFY_FAILED || status == AR_EXIT_UNDECIDED) {
        if (!o.no_report) {
            char *dir = default_report_dir(o.run.output); /* the report, next to the file */
            int report_status = write_report(o.run.output, dir);
            free(dir);
            if (report_status != AR_EXIT_OK) /* said why; a failed write or a signal outranks the verdicts */
                status = report_status;
        }
        if (o.mutants) {
            printf("\n");
            int mutant_status = print_file_mutants(o.run.output);
            if (mutant_status != AR_EXIT_OK)
                status = mutant_status;
        }
    }
    ar_spec_free(&spec);
    free(o.sets);
    return status;
}

static void print_param(const ar_param *p)
{
    char def[64], range[160];
    if (p->type == AR_PARAM_CHOICE) {
        snprintf(def, sizeof def, "%s", p->choices[(int)p->default_value]);
        range[0] = '\0';
        for (int i = 0; p->choices[i]; ++i) {
            strncat(range, i ? "|" : "", sizeof range - strlen(range) - 1);
            strncat(range, p->choices[i], sizeof range - strlen(range) - 1);
        }
    } else {
        snprintf(def, sizeof def, "%g", p->default_value);
        snprintf(range, sizeof range, "%s%g, %g]", p->min_exclusive ? "(" : "[", p->min, p->max);
    }
    const char *type = p->type == AR_PARAM_INT ? "int" : p->type == AR_PARAM_REAL ? "real" : "choice";
    printf("    %-10s %-7s %-12s %-28s %s\n", p->name, type, def, range, p->doc);
}

static const char list_help[] =
    "usage: attnrank list [SIMULATOR | --tsv]\n\n"
    "Lists the simulators with their parameters (type, default, range), outputs and claims;\n"
    "with SIMULATOR, that one only; with --tsv, one line per parameter for scripts:\n"
    "simulator, parameter, type, default, min, max, choices.\n";

static const char info_help[] =
    "usage: attnrank info [FILE]\n\n"
    "With FILE: what the result file holds (provenance, experiments, points done) and its\n"
    "verdicts. Without: this machine's OpenBLAS core and how it was decided (OpenBLAS's\n"
    "detection, attnrank's self-checked choice, or OPENBLAS_CORETYPE), and attnrank's own\n"
    "kernels (the normal sampler's variant, the S = Q K^T kernel).\n\n"
    "A file that disagrees with itself is refused (exit 2, one line naming the dataset):\n"
    "statistics against each other and the histograms, axes and attributes against the\n"
    "stored spec, the stored verdicts and theory/ against the data judged again (a file\n"
    "of another attnrank revision gets a note instead). -q is accepted, as elsewhere.\n";

static int cmd_list(int argc, char **argv, char *command_line)
{
    (void)command_line;
    int count, n_claims;
    const ar_sim *const *sims = ar_sim_all(&count);
    const ar_claim *const *claims = ar_claims_all(&n_claims);
    if (argc > 1 && strcmp(argv[1], "--tsv") == 0) {
        /* for scripts: simulator, parameter, type, default, min, max, choices (| separated) */
        for (int s = 0; s < count; ++s)
            for (int i = 0; i < sims[s]->n_params; ++i) {
                const ar_param *p = &sims[s]->params[i];
                printf("%s\t%s\t%s\t", sims[s]->name, p->name,
                       p->type == AR_PARAM_INT ? "int" : p->type == AR_PARAM_REAL ? "real" : "choice");
                if (p->type == AR_PARAM_CHOICE) {
                    printf("%s\t\t\t", p->choices[(int)p->default_value]);
                    for (int c = 0; p->choices[c]; ++c)
                        printf("%s%s", c ? "|" : "", p->choices[c]);
                } else {
                    printf("%.17g\t%.17g\t%.17g\t", p->default_value, p->min, p->max);
                }
                printf("\n");
            }
        return 0;
    }
    const char *only = argc > 1 ? argv[1] : NULL;
    if (only && !ar_sim_find(only))
        return bad_usage("list: unknown simulator '%s'", only);
    for (int s = 0; s < count; ++s) {
        const ar_sim *sim = sims[s];
        if (only && strcmp(only, sim->name) != 0)
            continue;
        const ar_family *family = ar_family_of(sim);
        printf("%s: %s\n  family: %s (%s)\n  claims:", sim->name, sim->summary, family ? family->name : "-",
               family ? family->paper : "-");
        for (int c = 0; c < n_claims; ++c)
            if (claims[c]->sim == sim && claims[c]->rule != AR_RULE_REFERENCE)
                printf(" %s", claims[c]->id);
        printf("\n  parameters (a scalar fixes one; an array or list is a grid axis):\n");
        printf("    %-10s %-7s %-12s %-28s %s\n", "name", "type", "default", "range", "meaning");
        for (int i = 0; i < sim->n_params; ++i)
            print_param(&sim->params[i]);
        printf("  outputs (per trial; stored as mean, stderr, std, ci_lo, ci_hi, min, max, count, failed):\n");
        for (int o = 0; o < sim->n_outputs; ++o) {
            const ar_output *out = &sim->outputs[o];
            char kind[32];
            snprintf(kind, sizeof kind, "%s%s%s", out->hist_max ? "integer" : "real", out->length ? " x " : "",
                     out->length ? out->index_name : "");
            printf("    %-17s %-12s %s\n", out->name, kind, out->description);
        }
        printf("  claim checks:\n");
        for (int c = 0; c < n_claims; ++c)
            if (claims[c]->sim == sim)
                printf("    %-8s %-11s %s%s\n", claims[c]->id, ar_rule_name(claims[c]->rule), claims[c]->statement,
                       claims[c]->on_request ? " [only when listed]" : "");
        printf("\n");
    }
    printf("experiment fields: name, simulator, trials (default 1000), claims, expect, conjectures (your own\n"
           "claims: `attnrank help judge` lists their fields), and the parameters.\n");
    return 0;
}

static int cmd_info(int argc, char **argv, char *command_line)
{
    (void)command_line;
    if (argc == 1) { /* no file: this machine's BLAS */
        printf("attnrank %s (git %s)\n", ATTNRANK_VERSION, ar_git_revision);
        ar_blas_core_print(stdout);
        printf("attnrank's kernels: normals %s (every variant gives the same bits); S = Q K^T up to 512 x 512 x 256 "
               "by %s\n", ar_rng_normals_isa(),
               ar_gemm_small_has_avx2() ? "attnrank's AVX2+FMA kernel" : "OpenBLAS (no AVX2+FMA here)");
        return AR_EXIT_OK;
    }
    /* options first named as typed (--foo=1: '--foo'), -q taken as the other commands take it */
    const char *file = NULL;
    int files = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0)
            continue;
        if (argv[i][0] == '-' && argv[i][1]) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(argv[i], "="), argv[i]);
            return bad_usage(strncmp(argv[i], "--quiet=", 8) == 0 ? "info: option '%s' takes no value"
                                                                   : "info: unknown option '%s'", name);
        }
        file = argv[i], files++;
    }
    if (files != 1)
        return bad_usage("%s", "info: give one result file, or none for the BLAS core");
    char err[AR_ERR_LEN];
    ar_store *store = ar_store_open(file, 0, err);
    /* the stored verdicts agree with the data before anything is shown */
    ar_verdict_row *rows = NULL;
    int n = 0;
    char stale[AR_ERR_LEN];
    if (!store || ar_store_read_verdicts(store, &rows, &n, err) < 0 ||
        ar_judge_check_verdicts(store, stale, sizeof stale, err) < 0) {
        say("%s", err);
        free(rows);
        ar_store_close(store);
        return AR_EXIT_BAD_INPUT;
    }
    if (stale[0])
        say("%s", stale);
    static const char *const attrs[] = {"attnrank_version", "git_revision", "created", "command_line", "host",
                                        "spec_source", "spec_hash", "title", "openblas_core",
                                        "openblas_core_origin", "kernels", "hdf5_version",
                                        "gsl_version"};
    printf("%s\n", file);
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; ++i) {
        char *value = ar_store_attribute(store, attrs[i]);
        if (value && value[0])
            printf("  %-17s %s\n", attrs[i], value);
        free(value);
    }
    const ar_spec *spec = ar_store_spec(store);
    printf("  %-17s %llu\n", "seed", (unsigned long long)spec->seed);
    long all_done = 0, all_points = 0;
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        long done = ar_store_done_count(store, e);
        all_done += done;
        all_points += x->n_points;
        printf("\n/%s: simulator %s, %ld trials per point, %ld of %ld points done\n", x->name, x->sim->name,
               x->trials, done, x->n_points);
        for (int a = 0; a < x->n_axes; ++a) {
            const ar_param *p = &x->sim->params[x->axes[a].param];
            printf("  axis %-8s (%d):", p->name, x->axes[a].count);
            for (int i = 0; i < x->axes[a].count; ++i) {
                if (p->type == AR_PARAM_CHOICE)
                    printf(" %s", p->choices[(int)x->axes[a].values[i]]);
                else
                    printf(" %g", x->axes[a].values[i]);
            }
            printf("\n");
        }
        printf("  outputs:");
        for (int o = 0; o < x->sim->n_outputs; ++o)
            printf(" %s", x->sim->outputs[o].name);
        printf("\n  claims:");
        for (int k = 0; k < x->n_claims; ++k)
            if (!x->claims[k]->conjecture)
                printf(" %s", x->claims[k]->id);
        for (int k = 0, listed = 0; k < x->n_claims; ++k)
            if (x->claims[k]->conjecture)
                printf("%s%s: %s", listed++ ? "\n               " : "\n  conjectures: ", x->claims[k]->id,
                       x->claims[k]->formula);
        printf("\n");
    }
    printf("\n");
    if (all_done < all_points)
        printf("incomplete run (%ld of %ld points): verdicts are computed when it completes\n", all_done, all_points);
    else
        print_verdicts(stdout, rows, n);
    free(rows);
    ar_store_close(store);
    return AR_EXIT_OK;
}

static int cmd_merge(int argc, char **argv, char *command_line)
{
    static const struct option longs[] = {
        {"output", required_argument, 0, 'o'}, {"force", no_argument, 0, 'f'}, {"help", no_argument, 0, 'h'},
        {"quiet", no_argument, 0, 'q'},        {0, 0, 0, 0},
    };
    const char *output = NULL;
    int force = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:fhq", longs, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'f': force = 1; break;
        case 'q': break; /* as for run; a merge shows no progress */
        case 'h': fputs(merge_help, stdout); return 0;
        default: return option_error("merge: ", c, argv, longs);
        }
    }
    if (!output)
        return bad_usage("%s", "merge: give the merged file with -o FILE");
    if (optind >= argc)
        return bad_usage("%s", "merge: give the shard files");
    ar_verdict_row *rows;
    int n_rows;
    char err[AR_ERR_LEN];
    ar_install_signal_handlers(); /* as a run: SIGINT/SIGTERM and a file-size limit leave no half-made file */
    ar_status merged = ar_merge_shards(output, (const char *const *)argv + optind, argc - optind, command_line,
                                       force, NULL, &rows, &n_rows, err);
    int status = exit_status(merged);
    if (status != AR_EXIT_OK) {
        say("%s", err);
        return status;
    }
    print_verdicts(stdout, rows, n_rows);
    int undecided;
    status = verdict_status(rows, n_rows, &undecided);
    printf("\nresults: %s (merged from %d shards)\n", output, argc - optind);
    print_outcome(status, undecided);
    free(rows);
    return status;
}

static const char plan_help[] =
    "usage: attnrank plan SPEC [--set KEY=VALUE]... [--threads N]\n"
    "\n"
    "Prints what running SPEC takes: points and trials per experiment, core-hours (each\n"
    "experiment's most and least expensive points and one between are timed on one core\n"
    "here, about two seconds in all, and carried to the other points along the simulator's\n"
    "cost model), the memory one thread needs, and the size of the result file. The\n"
    "core-hours include writing the file (its layout, each point's write, the verdicts'\n"
    "reading: a model of HDF5 1.10 measured here, which dominates grids of many cheap\n"
    "points or experiments); the memory includes HDF5's and the run's buffers.\n"
    "Core-hours scale with the machine: calibrate on a node of the cluster that will run it.\n";

static int cmd_plan(int argc, char **argv, char *command_line)
{
    (void)command_line;
    cli_options o = {0};
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(plan_help, stdout);
            return 0;
        }
    int status = parse_run_options(argc, argv, 0, &o);
    if (status) {
        free(o.sets);
        return status;
    }
    ar_spec spec;
    char err[AR_ERR_LEN];
    if (ar_spec_load(o.spec_path, o.sets, o.n_sets, &spec, err) != 0) {
        say("%s", err);
        free(o.sets);
        return AR_EXIT_BAD_INPUT;
    }
    ar_run_estimate est;
    if (ar_estimate_spec(&spec, o.run.threads, o.spec_path, &est, err) < 0) {
        say("%s", err);
        ar_spec_free(&spec);
        free(o.sets);
        return AR_EXIT_BAD_INPUT;
    }
    printf("%s: seed %llu\n\n%-16s %-17s %9s %12s %12s %12s %14s\n", o.spec_path, (unsigned long long)spec.seed,
           "experiment", "simulator", "points", "trials", "core-hours", "s/trial max", "memory/thread");
    for (int e = 0; e < spec.n_experiments; ++e) {
        const ar_experiment *x = &spec.experiments[e];
        const ar_experiment_estimate *xe = &est.experiments[e];
        char mem[32];
        ar_format_bytes(xe->thread_memory, mem, sizeof mem);
        printf("%-16s %-17s %9ld %12.4g %12.3g %12.3g %14s\n", x->name, x->sim->name, x->n_points, xe->trials,
               xe->seconds / 3600, xe->seconds_per_trial_max, mem);
    }
    char size[32], mem[32], run_memory[32];
    ar_format_bytes(est.output_bytes, size, sizeof size);
    ar_format_bytes(est.thread_memory, mem, sizeof mem);
    ar_format_bytes(est.run_memory, run_memory, sizeof run_memory);
    printf("\ntotal: %ld points, %.4g trials, %.3g core-hours (about %.3g min on this machine's %d cores; "
           "%.3g s of them writing the file), result file about %s, memory about %s with %d thread(s), at most %s "
           "per thread\n",
           est.points, est.trials, (est.trial_seconds + est.file_seconds) / 3600, est.wall_seconds_here / 60,
           est.cores, est.file_seconds, size, run_memory, est.threads, mem);
    printf("(calibrated on this machine, OpenBLAS core %s: each experiment's most expensive point timed, the "
           "others scaled by the cost model)\n",
           ar_openblas_corename());
    ar_estimate_free(&est);
    ar_spec_free(&spec);
    free(o.sets);
    return AR_EXIT_OK;
}

static int cmd_report(int argc, char **argv, char *command_line)
{
    (void)command_line;
    const char *dir = NULL, *file = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(report_help, stdout);
            return 0;
        } else if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
            if (i + 1 == argc)
                return bad_usage("report: option '%s' needs an argument", argv[i]);
            dir = argv[++i];
        } else if (strncmp(argv[i], "--output=", 9) == 0) {
            dir = argv[i] + 9;
        } else if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0) {
            continue; /* as for run; a report shows no progress */
        } else if (strncmp(argv[i], "--quiet=", 8) == 0 || strncmp(argv[i], "--help=", 7) == 0) {
            char name[16];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(argv[i], "="), argv[i]);
            return bad_usage("report: option '%s' takes no value", name);
        } else if (argv[i][0] == '-') {
            char name[64]; /* named without a value it was given (--bogus=1: '--bogus') */
            snprintf(name, sizeof name, "%.*s", (int)strcspn(argv[i], "="), argv[i]);
            return bad_usage("report: unknown option '%s'", name);
        } else if (!file) {
            file = argv[i];
        } else {
            return bad_usage("report: unexpected argument '%s'", argv[i]);
        }
    }
    if (!file)
        return bad_usage("%s", "report: give the result FILE");
    char *made = dir ? NULL : default_report_dir(file);
    ar_install_signal_handlers(); /* as a run: SIGINT/SIGTERM and a file-size limit leave no half-made folder */
    int status = write_report(file, dir ? dir : made);
    free(made);
    return status;
}

static int cmd_version(int argc, char **argv, char *command_line)
{
    (void)argc, (void)argv, (void)command_line;
    printf("attnrank %s (git %s)\nOpenBLAS: %s (core %s, %s)\n", ATTNRANK_VERSION, ar_git_revision,
           ar_openblas_config(), ar_openblas_corename(), ar_blas_core_origin());
    return 0;
}

/* A closed stdin, stdout or stderr would be the next file opened (a result file, a
 * lock) and what is printed would land in it: such a one is kept open on /dev/null. */
static void keep_standard_streams(void)
{
    for (int fd = 0; fd <= 2; ++fd)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF && open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
            _exit(AR_EXIT_IO);
}

static int cmd_help(int argc, char **argv, char *command_line);

/* The commands: name, what runs it (argv[0] is the command), help text (NULL: none of
 * its own). */
static const struct command {
    const char *name;
    int (*run)(int argc, char **argv, char *command_line);
    const char *help;
} commands[] = {
    {"run", cmd_run, run_help},           {"verify", cmd_verify, verify_help}, {"merge", cmd_merge, merge_help},
    {"plan", cmd_plan, plan_help},        {"report", cmd_report, report_help}, {"list", cmd_list, list_help},
    {"info", cmd_info, info_help},        {"mutants", cmd_mutants, mutants_help},
    {"judge", cmd_judge, judge_help},     {"--version", cmd_version, NULL},    {"version", cmd_version, NULL},
    {"help", cmd_help, NULL},             {"--help", cmd_help, NULL},          {"-h", cmd_help, NULL},
};

static const struct command *command_named(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof *commands; ++i)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    return NULL;
}

/* Each command's help text, for `help COMMAND` and `COMMAND --help`; NULL if none. */
static const char *command_help(const char *name)
{
    const struct command *c = command_named(name);
    return c ? c->help : NULL;
}

static int cmd_help(int argc, char **argv, char *command_line)
{
    (void)command_line;
    const char *topic = argc > 1 ? command_help(argv[1]) : NULL;
    fputs(topic ? topic : usage_text, stdout);
    return AR_EXIT_OK;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return AR_EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    if (argc == 3 && (strcmp(argv[2], "-h") == 0 || strcmp(argv[2], "--help") == 0) && command_help(cmd)) {
        fputs(command_help(cmd), stdout); /* COMMAND --help, the same text as help COMMAND */
        return AR_EXIT_OK;
    }
    const struct command *c = command_named(cmd);
    if (!c)
        return bad_usage("unknown command '%s'", cmd);
    char *command_line = join_command_line(argc, argv);
    int status = c->run(argc - 1, argv + 1, command_line);
    free(command_line);
    return status;
}

int ar_cli_main(int argc, char **argv)
{
    keep_standard_streams();
    /* GSL's default error handler aborts the process; off, a GSL failure comes back as a
     * code or a NaN that the caller sees (a NaN estimate is never averaged or judged). */
    ar_blas_core_select(argv); /* first: it may start the program again (blas_core.h) */
    gsl_set_error_handler_off();
    ar_mpi_init(&argc, &argv);
    int rank = ar_mpi_rank();
    if (rank > 0) {
        /* Under mpirun rank 0 speaks for the run (every rank parses the same spec and
         * would repeat its errors); the other ranks only compute, and only for run
         * and verify. */
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            return AR_EXIT_IO;
        if (argc < 2 || (strcmp(argv[1], "run") != 0 && strcmp(argv[1], "verify") != 0)) {
            ar_mpi_finalize();
            return 0;
        }
    }
    int status = dispatch(argc, argv);
    ar_mpi_finalize();
    status = check_stdout(status); /* stdout is closed from here on */
    if (status == AR_EXIT_IO) {
        /* After a failed write HDF5 may hold a file it cannot close; its exit handler
         * would then crash. The error is reported: leave without the handlers. */
        fflush(stderr);
        _exit(status);
    }
    return status;
}

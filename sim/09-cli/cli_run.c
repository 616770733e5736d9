/* cli_run: the commands that run, merge, plan, report, mutate and judge. */
#define _GNU_SOURCE
#include "cli_parts.h"

#include <gsl/gsl_errno.h>

#include "attnrank/blas_core.h"
#include "attnrank/engine.h"
#include "attnrank/output.h"
#include "attnrank/format.h"
#include "attnrank/message.h"
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

const char ar_cli_run_help[] =
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

const char ar_cli_merge_help[] =
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

const char ar_cli_verify_help[] =
    "usage: attnrank verify [--quick|--full] [--mutants] [--no-report] [-o FILE] [--threads N]\n"
    "                       [--set KEY=VALUE]... [--resume] [--force] [--quiet]\n"
    "                       [--max-memory SIZE]   (as for run)\n"
    "\n"
    "Runs the built-in verification suite (runs/verify.cfg): every claim with a verdict,\n"
    "including one deliberately broken assumption (tied weights, H4) and eight findings\n"
    "(S8edge, five of H5's rank measures, M4fig2, C4) that must come out VIOLATED. About\n"
    "two minutes on 2 cores; --quick takes a tenth of the trials, --full ten times as\n"
    "many. Writes FILE\n"
    "(default attnrank-verify-<UTC time>.h5) and its HTML report\n"
    "(FILE without .h5, plus -report/report.html). Exits 1 if a verdict contradicts the\n"
    "expected one, 4 if one expected to be definite is INCONCLUSIVE. --mutants then\n"
    "re-judges every claim against perturbed predictions (see `attnrank help mutants`).\n";

/* run's and verify's options (verify: 1 for verify, which takes no SPEC). */
int ar_cli_parse_run_options(int argc, char **argv, int verify, ar_cli_options *o)
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
                return ar_cli_bad_usage("--threads: '%s' is not a thread count in 1..4096", optarg);
            o->run.threads = (int)t;
            break;
        }
        case 'r': o->run.resume = 1; break;
        case 'f': o->run.force = 1; break;
        case 'q': o->run.quiet = 1; break;
        case 'm':
            if (ar_cli_parse_size(optarg, &o->run.max_memory))
                return ar_cli_bad_usage("--max-memory: '%s' is not a size like 512M or 4G", optarg);
            break;
        case 'S': {
            int index, count;
            if (verify || ar_shard_parse(optarg, &index, &count) < 0) /* as a file's shard attribute */
                return ar_cli_bad_usage(verify ? "--shard: only for `attnrank run`, not '%s'"
                                        : "--shard: '%s' is not I/N with 0 <= I < N <= 2147483647",
                                 optarg);
            o->run.shard = index;
            o->run.shards = count;
            break;
        }
        case 'N':
            if (!verify)
                return ar_cli_bad_usage("%s", "--no-report: only for `attnrank verify`");
            o->no_report = 1;
            break;
        case 'M':
            if (!verify)
                return ar_cli_bad_usage("%s", "--mutants: only for `attnrank verify` (for a file: attnrank mutants FILE)");
            o->mutants = 1;
            break;
        case 'Q':
        case 'F':
            if (!verify)
                return ar_cli_bad_usage("%s: only for `attnrank verify`", c == 'Q' ? "--quick" : "--full");
            if (c == 'Q')
                o->quick = 1;
            else
                o->full = 1;
            break;
        case 'h':
            fputs(verify ? ar_cli_verify_help : ar_cli_run_help, stdout);
            exit(ar_cli_check_stdout(0));
        default:
            return ar_cli_option_error("", c, argv, longs);
        }
    }
    if (o->quick && o->full)
        return ar_cli_bad_usage("%s", "--quick and --full exclude each other");
    if (!verify) {
        if (optind >= argc)
            return ar_cli_bad_usage("%s", "run: missing the SPEC file");
        o->spec_path = argv[optind++];
    }
    if (optind < argc)
        return ar_cli_bad_usage("unexpected argument '%s'", argv[optind]);
    return 0;
}

static int run_spec(ar_spec *spec, ar_cli_options *o)
{
    ar_verdict_row *rows;
    int n_rows;
    char err[AR_ERR_LEN];
    ar_install_signal_handlers();
    int status = ar_cli_exit_status(ar_run_spec(spec, &o->run, &rows, &n_rows, err));
    if (status != AR_EXIT_OK) {
        ar_cli_say("%s", err);
        return status;
    }
    if (n_rows > 0)
        ar_cli_print_verdicts(stdout, rows, n_rows);
    if (o->run.shards > 1) {
        printf("shard %d/%d complete: ", o->run.shard, o->run.shards);
        ar_message_print(stdout, o->run.output);
        printf("\njoin all %d shards with: attnrank merge -o FILE SHARD...\n", o->run.shards);
        free(rows);
        return AR_EXIT_OK;
    }
    int undecided;
    status = ar_cli_verdict_status(rows, n_rows, &undecided);
    printf("\nresults: ");
    ar_message_print(stdout, o->run.output); /* a file's name may hold anything */
    putchar('\n');
    ar_cli_print_outcome(status, undecided);
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

int ar_cli_cmd_run(int argc, char **argv, char *command_line)
{
    ar_cli_options o = {0};
    int status = ar_cli_parse_run_options(argc, argv, 0, &o);
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
    char *partial = malloc(strlen(o.run.output) + sizeof ".partial");
    if (partial)
        strcat(strcpy(partial, o.run.output), ".partial");
    if (!partial) {
        status = AR_EXIT_IO;
    } else if (ar_session_attack_partial(partial, "run", err)) { /* an attack's progress is not a run's to take */
        ar_cli_say("%s", err);
        status = AR_EXIT_BAD_INPUT;
    } else if (ar_output_check_not_input(o.run.output, o.spec_path, "the spec", err) != 0 ||
               ar_spec_load(o.spec_path, o.sets, o.n_sets, &spec, err) != 0) {
        ar_cli_say("%s", err);
        status = AR_EXIT_BAD_INPUT;
    } else {
        status = run_spec(&spec, &o);
        ar_spec_free(&spec);
    }
    free(partial);
    free(output);
    free(o.sets);
    return status;
}

const char ar_cli_report_help[] =
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
        ar_cli_say("%s", err);
        return ar_cli_exit_status(status);
    }
    printf("report: ");
    ar_message_print(stdout, dir);
    printf("/report.html\n");
    if (note[0])
        ar_cli_say("%s", note);
    return AR_EXIT_OK;
}

const char ar_cli_mutants_help[] =
    "usage: attnrank mutants FILE\n"
    "\n"
    "Re-judges the stored estimates of a finished result file, without simulating again,\n"
    "against perturbed predictions: each limit and equality scaled by +-2%, +-5% and\n"
    "+-10%; each bound tightened by 2, 3, 5 and 10%; each trend reversed. Prints, per\n"
    "claim, which mutants are killed (VIOLATED) and the smallest one, and names the claims\n"
    "where none can be made (witnesses, measurements) or none is killed.\n";

int ar_cli_cmd_mutants(int argc, char **argv, char *command_line)
{
    (void)command_line;
    if (argc != 2 || argv[1][0] == '-')
        return ar_cli_bad_usage("%s", "mutants: give one result FILE");
    return ar_cli_print_file_mutants(argv[1]);
}

const char ar_cli_judge_help[] =
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
    "(steeper), rate (limit's exponent b, or [lo, hi]), next_order (1: fit the limit's\n"
    "next order a2 n^-2b too), element (per-layer outputs), statement, expect, experiment.\n";

/* Judge a finished file again: its claims and the conjectures given (ar_cli_judge_help). */
int ar_cli_cmd_judge(int argc, char **argv, char *command_line)
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
                return ar_cli_bad_usage("%s", "judge: give --conjectures once (put every conjecture in that file)");
            }
            file = optarg;
            break;
        case 'M': mutants = 1; break;
        case 'h': fputs(ar_cli_judge_help, stdout); free(lines); return 0;
        default: free(lines); return ar_cli_option_error("judge: ", c, argv, longs);
        }
    }
    if (optind != argc - 1) {
        free(lines);
        return ar_cli_bad_usage("%s", "judge: give one result FILE");
    }
    if (ar_store_is_attack_file(argv[optind])) {
        free(lines);
        if (output || file || n_lines || mutants)
            return ar_cli_bad_usage("judge: %s is an attack file: its verdicts are re-derived from its "
                                    "confirmations; it takes no conjectures, mutants or copy", argv[optind]);
        return ar_cli_judge_attack_file(argv[optind]);
    }
    ar_judge_request req = {.path = argv[optind], .copy = output, .command_line = command_line,
                            .conjecture_file = file, .conjectures = lines, .n_conjectures = n_lines,
                            .force = force, .mutants = mutants};
    ar_file_judgement j;
    char err[AR_ERR_LEN];
    ar_status st = ar_rejudge_file(&req, &j, err);
    free(lines);
    if (st != AR_OK) {
        ar_cli_say("%s", err);
        return ar_cli_exit_status(st);
    }
    ar_cli_print_verdicts(stdout, j.rows, j.n_rows);
    fputs(j.notes, stdout);
    if (mutants) {
        printf("\n");
        ar_cli_print_mutants(j.mutants, j.n_rows);
    }
    int undecided, status = ar_cli_verdict_status(j.rows, j.n_rows, &undecided);
    printf("\njudged: ");
    ar_message_print(stdout, req.path);
    printf("%s", output ? ", copy with the conjectures: " : " (not modified)");
    ar_message_print(stdout, output ? output : "");
    putchar('\n');
    ar_cli_print_outcome(status, undecided);
    ar_file_judgement_free(&j);
    return status;
}

int ar_cli_cmd_verify(int argc, char **argv, char *command_line)
{
    ar_cli_options o = {0};
    int status = ar_cli_parse_run_options(argc, argv, 1, &o);
    if (!status && o.run.resume && !o.run.output)
        status = ar_cli_bad_usage("%s", "verify --resume needs the -o FILE of the interrupted run");
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
        ar_cli_say("%s", err);
        free(o.sets);
        return AR_EXIT_BAD_INPUT;
    }
    if ((o.quick || o.full) && ar_spec_scale_trials(&spec, o.quick ? 0.1 : 10.0) != 0) {
        ar_cli_say("%s: out of memory", label);
        ar_spec_free(&spec);
        free(o.sets);
        return AR_EXIT_BAD_INPUT;
    }
    if (!o.run.quiet)
        ar_cli_say("verify: %s, writing %s", label, o.run.output);
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
            int mutant_status = ar_cli_print_file_mutants(o.run.output);
            if (mutant_status != AR_EXIT_OK)
                status = mutant_status;
        }
    }
    ar_spec_free(&spec);
    free(o.sets);
    return status;
}

int ar_cli_cmd_merge(int argc, char **argv, char *command_line)
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
        case 'h': fputs(ar_cli_merge_help, stdout); return 0;
        default: return ar_cli_option_error("merge: ", c, argv, longs);
        }
    }
    if (!output)
        return ar_cli_bad_usage("%s", "merge: give the merged file with -o FILE");
    if (optind >= argc)
        return ar_cli_bad_usage("%s", "merge: give the shard files");
    for (int i = optind; i < argc; ++i)
        if (ar_cli_refuse_attack_file(argv[i], "merge"))
            return AR_EXIT_BAD_INPUT;
    ar_verdict_row *rows;
    int n_rows;
    char err[AR_ERR_LEN];
    ar_install_signal_handlers(); /* as a run: SIGINT/SIGTERM and a file-size limit leave no half-made file */
    ar_status merged = ar_merge_shards(output, (const char *const *)argv + optind, argc - optind, command_line,
                                       force, NULL, &rows, &n_rows, err);
    int status = ar_cli_exit_status(merged);
    if (status != AR_EXIT_OK) {
        ar_cli_say("%s", err);
        return status;
    }
    ar_cli_print_verdicts(stdout, rows, n_rows);
    int undecided;
    status = ar_cli_verdict_status(rows, n_rows, &undecided);
    printf("\nresults: ");
    ar_message_print(stdout, output);
    printf(" (merged from %d shards)\n", argc - optind);
    ar_cli_print_outcome(status, undecided);
    free(rows);
    return status;
}

const char ar_cli_plan_help[] =
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

int ar_cli_cmd_plan(int argc, char **argv, char *command_line)
{
    (void)command_line;
    ar_cli_options o = {0};
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(ar_cli_plan_help, stdout);
            return 0;
        }
    int status = ar_cli_parse_run_options(argc, argv, 0, &o);
    if (status) {
        free(o.sets);
        return status;
    }
    ar_spec spec;
    char err[AR_ERR_LEN];
    if (ar_spec_load(o.spec_path, o.sets, o.n_sets, &spec, err) != 0) {
        ar_cli_say("%s", err);
        free(o.sets);
        return AR_EXIT_BAD_INPUT;
    }
    ar_run_estimate est;
    if (ar_estimate_spec(&spec, o.run.threads, o.spec_path, &est, err) < 0) {
        ar_cli_say("%s", err);
        ar_spec_free(&spec);
        free(o.sets);
        return AR_EXIT_BAD_INPUT;
    }
    ar_message_print(stdout, o.spec_path);
    printf(": seed %llu\n\n%-16s %-17s %9s %12s %12s %12s %14s\n", (unsigned long long)spec.seed,
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

int ar_cli_cmd_report(int argc, char **argv, char *command_line)
{
    (void)command_line;
    const char *dir = NULL, *file = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(ar_cli_report_help, stdout);
            return 0;
        } else if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
            if (i + 1 == argc)
                return ar_cli_bad_usage("report: option '%s' needs an argument", argv[i]);
            dir = argv[++i];
        } else if (strncmp(argv[i], "--output=", 9) == 0) {
            dir = argv[i] + 9;
        } else if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0) {
            continue; /* as for run; a report shows no progress */
        } else if (strncmp(argv[i], "--quiet=", 8) == 0 || strncmp(argv[i], "--help=", 7) == 0) {
            char name[16];
            snprintf(name, sizeof name, "%.*s", (int)strcspn(argv[i], "="), argv[i]);
            return ar_cli_bad_usage("report: option '%s' takes no value", name);
        } else if (argv[i][0] == '-') {
            char name[64]; /* named without a value it was given (--bogus=1: '--bogus') */
            snprintf(name, sizeof name, "%.*s", (int)strcspn(argv[i], "="), argv[i]);
            return ar_cli_bad_usage("report: unknown option '%s'", name);
        } else if (!file) {
            file = argv[i];
        } else {
            return ar_cli_bad_usage("report: unexpected argument '%s'", argv[i]);
        }
    }
    if (!file)
        return ar_cli_bad_usage("%s", "report: give the result FILE");
    char *made = dir ? NULL : default_report_dir(file);
    ar_install_signal_handlers(); /* as a run: SIGINT/SIGTERM and a file-size limit leave no half-made folder */
    int status = write_report(file, dir ? dir : made);
    free(made);
    return status;
}

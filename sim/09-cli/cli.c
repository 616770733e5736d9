/* cli: the command line: the command table, options and exit statuses, the one
 * writer of messages; each command in cli_run.c or cli_list.c, the tables in
 * cli_tables.c (cli_parts.h). A thin client of the library. */
#define _GNU_SOURCE
#include "cli_parts.h"
#include "attnrank/message.h"

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

/* The library's statuses as exit statuses; an interrupted run exits 128 + the signal, and
 * so does a command whose input was refused after a stop signal (a file's check, which
 * a signal ends: "interrupted by SIGTERM while its structure was checked"). */
int ar_cli_exit_status(ar_status status)
{
    switch (status) {
    case AR_OK: return AR_EXIT_OK;
    case AR_ERR_INPUT: return ar_stop_signal ? 128 + ar_stop_signal : AR_EXIT_BAD_INPUT;
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
    "  attack SPEC [options]     search each attack's space for the point where its claim\n"
    "                            fares worst, confirm the best on fresh streams\n"
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

int ar_cli_parse_size(const char *text, double *bytes)
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
void ar_cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ar_cli_say(const char *fmt, ...)
{
    char text[2 * AR_ERR_LEN];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    fprintf(stderr, "%s: ", program);
    ar_message_print(stderr, text);
    fputc('\n', stderr);
}

int ar_cli_bad_usage(const char *fmt, const char *arg)
{
    char text[AR_ERR_LEN];
    snprintf(text, sizeof text, fmt, arg);
    ar_cli_say("%s (see `attnrank help`)", text);
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
int ar_cli_option_error(const char *prefix, int c, char **argv, const struct option *longs)
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
    return ar_cli_bad_usage("%s", text);
}

/* The last word of every command: what it printed must have reached stdout (a full
 * disk, /dev/full, a closed pipe); if not, one line and the I/O status. */
static int check_stdout(int status)
{
    int failed = ferror(stdout), closed = fclose(stdout);
    if (!failed && !closed)
        return status;
    ar_cli_say("standard output: cannot write: %s", closed ? strerror(errno) : "a write failed");
    return AR_EXIT_IO;
}

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
            exit(check_stdout(0));
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
    {"run", ar_cli_cmd_run, ar_cli_run_help},
    {"verify", ar_cli_cmd_verify, ar_cli_verify_help},
    {"merge", ar_cli_cmd_merge, ar_cli_merge_help},
    {"plan", ar_cli_cmd_plan, ar_cli_plan_help},
    {"report", ar_cli_cmd_report, ar_cli_report_help},
    {"list", ar_cli_cmd_list, ar_cli_list_help},
    {"info", ar_cli_cmd_info, ar_cli_info_help},
    {"mutants", ar_cli_cmd_mutants, ar_cli_mutants_help},
    {"judge", ar_cli_cmd_judge, ar_cli_judge_help},
    {"attack", ar_cli_cmd_attack, ar_cli_attack_help},
    {"--version", cmd_version, NULL},
    {"version", cmd_version, NULL},
    {"help", cmd_help, NULL},
    {"--help", cmd_help, NULL},
    {"-h", cmd_help, NULL},
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
        return ar_cli_bad_usage("unknown command '%s'", cmd);
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

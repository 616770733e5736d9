/* cli: the command line: the command table and the program's entry; options, exit
 * statuses and the one writer of messages in cli_options.c, each command in cli_run.c,
 * cli_list.c or cli_attack.c, the tables in cli_tables.c (cli_parts.h). A thin client
 * of the library. */
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

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const char ar_verify_spec[];

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
    status = ar_cli_check_stdout(status); /* stdout is closed from here on */
    if (status == AR_EXIT_IO) {
        /* After a failed write HDF5 may hold a file it cannot close; its exit handler
         * would then crash. The error is reported: leave without the handlers. */
        fflush(stderr);
        _exit(status);
    }
    return status;
}

/* cli_parts: what the command line's files share: exit statuses, the one message
 * writer, option parsing, the verdict and mutant tables, and each command's entry and
 * help text for the command table (cli.c). */
#ifndef ATTNRANK_CLI_PARTS_H
#define ATTNRANK_CLI_PARTS_H

#include <getopt.h>
#include <stdio.h>

#include "attnrank/cli.h"
#include "attnrank/engine.h"
#include "attnrank/theory.h"

/* Exit statuses, as `attnrank help` documents them. */
enum {
    AR_EXIT_OK = 0,
    AR_EXIT_VERIFY_FAILED = 1, /* a definite verdict contradicts the spec's expectation */
    AR_EXIT_BAD_INPUT = 2,
    AR_EXIT_IO = 3,
    AR_EXIT_UNDECIDED = 4,     /* none contradicts, but an expected-definite one is undecided */
};

typedef struct {
    ar_run_options run;
    const char **sets;
    int n_sets;
    int quick, full, mutants, no_report;
    const char *spec_path;
} ar_cli_options;

/* cli_options.c: statuses, messages, options. */
int ar_cli_exit_status(ar_status status);
int ar_cli_bad_usage(const char *fmt, const char *arg);
/* A size like 512M or 4G (K, M, G, T; a trailing B) in bytes: 0, or -1 if it is not one. */
int ar_cli_parse_size(const char *text, double *bytes);
int ar_cli_option_error(const char *prefix, int c, char **argv, const struct option *longs);
void ar_cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The last word of every command: what it printed must have reached stdout. */
int ar_cli_check_stdout(int status);

/* cli_tables.c: the verdict and mutant tables. */
void ar_cli_print_verdicts(FILE *f, const ar_verdict_row *given, int n);
/* The same, with each row whose stored one differs (marks: ar_judge_check_verdicts')
 * marked on its line with what the file stored. */
void ar_cli_print_checked_verdicts(FILE *f, const ar_verdict_row *given, const ar_verdict_row *stored,
                                   const unsigned char *marks, int n);
int ar_cli_verdict_status(const ar_verdict_row *rows, int n, int *undecided);
void ar_cli_print_outcome(int status, int undecided);
void ar_cli_print_mutants(const ar_mutant_row *rows, int n);
int ar_cli_print_file_mutants(const char *path);
/* What a file is, said before a command that reads result files opens it: an attack
 * file (ar_store_is_attack_file) is named as one, with the commands that read it, and
 * AR_EXIT_BAD_INPUT returned; 0 for any other file (its own checks follow). */
int ar_cli_refuse_attack_file(const char *path, const char *command);

/* cli_run.c: run, verify, merge, plan, report, mutants, judge. */
int ar_cli_parse_run_options(int argc, char **argv, int verify, ar_cli_options *o);
int ar_cli_cmd_run(int argc, char **argv, char *command_line);
int ar_cli_cmd_mutants(int argc, char **argv, char *command_line);
int ar_cli_cmd_judge(int argc, char **argv, char *command_line);
int ar_cli_cmd_verify(int argc, char **argv, char *command_line);
int ar_cli_cmd_merge(int argc, char **argv, char *command_line);
int ar_cli_cmd_plan(int argc, char **argv, char *command_line);
int ar_cli_cmd_report(int argc, char **argv, char *command_line);
extern const char ar_cli_run_help[];
extern const char ar_cli_merge_help[];
extern const char ar_cli_verify_help[];
extern const char ar_cli_report_help[];
extern const char ar_cli_mutants_help[];
extern const char ar_cli_judge_help[];
extern const char ar_cli_plan_help[];

/* cli_attack.c: attack, and judge on an attack file. */
int ar_cli_cmd_attack(int argc, char **argv, char *command_line);
int ar_cli_judge_attack_file(const char *path);
extern const char ar_cli_attack_help[];

/* cli_list.c: list and info. */
int ar_cli_cmd_list(int argc, char **argv, char *command_line);
int ar_cli_cmd_info(int argc, char **argv, char *command_line);
extern const char ar_cli_list_help[];
extern const char ar_cli_info_help[];

#endif

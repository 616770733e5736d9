/* cli_attack: `attnrank attack`, and judge's re-judging of an attack file. */
#define _GNU_SOURCE
#include "cli_parts.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attnrank/message.h"
#include "attnrank/mpi_world.h"
#include "attnrank/output.h"
#include "attnrank/provenance.h"
#include "attnrank/regular_file.h"
#include "attnrank/signals.h"
#include "attnrank/store.h"

const char ar_cli_attack_help[] =
    "usage: attnrank attack SPEC [-o FILE] [--set KEY=VALUE]... [--threads N] [--max-memory SIZE] [--resume]\n"
    "                       [--force] [--quiet]\n"
    "\n"
    "Runs the attacks of SPEC's experiments (an experiment's `attacks` list; see\n"
    "docs/attacks.md): for each, a search over its space for the point where the claim\n"
    "fares worst (a shifted Sobol design thinned by successive halving, then Nelder-Mead\n"
    "over the ranges, on common random numbers), then the search's best candidates re-run\n"
    "on fresh streams and judged by the claim's rule over them, with its multiplicity\n"
    "correction. Prints a row per attack: VIOLATED with the counterexample, HOLDS with the\n"
    "tightest point and how close the claim comes there, or INCONCLUSIVE.\n"
    "Writes FILE (default: SPEC's name with .attacks.h5): the spec and provenance, and per\n"
    "attack /attacks/<id> with its space, every evaluation, the confirmations and the\n"
    "verdict. The same spec and seed give the same file bit for bit at any thread count\n"
    "(unless an attack's max_seconds stops its search: the row says so).\n"
    "Exits 0 when every verdict is the claim's expected one, 1 when one contradicts it,\n"
    "4 when one is undecided, 2 bad input, 3 an I/O error. `attnrank judge FILE`\n"
    "re-derives the verdicts from the stored confirmations; `attnrank report FILE` draws\n"
    "the searches.\n"
    "\n"
    "  -o, --output FILE   the attack file; --force replaces an existing one\n"
    "  --set KEY=VALUE     as for run (seed=7, EXPERIMENT.PARAM=VALUE)\n"
    "  -t, --threads N     OpenMP threads (default: all)\n"
    "  -m, --max-memory SIZE  refuse, before searching, an attack whose largest point (its\n"
    "                      confirmation's trials) needs more (e.g. 4G; default 80% of RAM)\n"
    "  -r, --resume        continue FILE.partial, which an interrupted attack run leaves with the\n"
    "                      attacks it finished (the one cut short runs again: the same bits)\n"
    "  -q, --quiet         no line per attack while it runs\n";

static char *default_attack_output(const char *spec_path)
{
    const char *base = strrchr(spec_path, '/');
    base = base ? base + 1 : spec_path;
    char *out = malloc(strlen(base) + 16);
    if (!out)
        return NULL;
    strcpy(out, base);
    char *dot = strrchr(out, '.');
    if (dot && dot != out)
        *dot = '\0';
    strcat(out, ".attacks.h5");
    return out;
}

/* One row a stored or fresh attack, and its search and rule underneath. */
static void print_attack(const ar_spec *spec, const ar_attack *a, const ar_attack_record *r, const ar_judgement *j,
                         long deciding)
{
    const ar_experiment *x = &spec->experiments[a->experiment];
    const ar_claim *claim = x->claims[a->claim];
    char point[512], resolution[256] = "", end[256];
    ar_attack_describe_row(spec, a, r, deciding, point, sizeof point);
    ar_resolution_describe(&j->resolution, resolution, sizeof resolution);
    printf("%-15s %-10s %-12s %-12s %s\n", a->id, claim->id, ar_verdict_name(j->verdict), ar_rules[claim->rule].spec_name,
           point);
    if (isfinite(j->estimate))
        printf("    estimate %.6g [%.6g, %.6g] against %.6g; %s\n", j->estimate, j->ci_lo, j->ci_hi, j->prediction,
               resolution);
    ar_attack_search_end(spec, a, r, end, sizeof end);
    printf("    search: %ld candidates, %ld evaluations, %ld trials%s%s%s; confirmation: %ld point%s x %ld trials on "
           "fresh streams\n",
           r->candidates, r->n_evaluations, r->search_trials, end[0] ? " (" : "", end, end[0] ? ")" : "",
           r->n_confirmations,
           r->n_confirmations == 1 ? "" : "s", a->confirm_trials);
    if (j->rule[0])
        printf("    rule: %s\n", j->rule);
}

static void print_header(void)
{
    printf("%-15s %-10s %-12s %-12s %s\n", "attack", "claim", "verdict", "rule", "deciding point");
}

/* 0, 1 (a verdict contradicts the claim's expectation), 4 (one undecided). */
static int attack_status(const ar_spec *spec, const ar_attack *a, ar_verdict v, int *undecided)
{
    ar_verdict want = spec->experiments[a->experiment].expect[a->claim];
    if (v == want)
        return 0;
    if (v == AR_INCONCLUSIVE || v == AR_NOT_RUN) {
        ++*undecided;
        return 0;
    }
    return 1;
}

static int file_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 || errno != ENOENT;
}

/* The attacks a FILE.partial finished, taken over by a resumed run: the same spec's
 * (its hash), else refused. Returns how many, or -1 with err. */
static int resume_from(const ar_spec *spec, const char *partial, ar_attack_record *records, ar_judgement *judgements,
                       long *deciding, char *err)
{
    ar_spec old;
    ar_attack_record *stored = NULL;
    ar_verdict *verdicts = NULL;
    int done = 0, status = 0;
    if (ar_store_read_attacks(partial, &old, &stored, &verdicts, &done, NULL, err) != 0) {
        status = -1;
    } else if (old.hash != spec->hash) {
        snprintf(err, AR_ERR_LEN, "%.400s: made by another spec (hash %016llx, this one %016llx): --force starts over",
                 partial, (unsigned long long)old.hash, (unsigned long long)spec->hash);
        status = -1;
    }
    for (int k = 0; k < (stored ? old.n_attacks : 0); ++k) {
        if (status == 0 && k < done) {
            records[k] = stored[k];
            if (ar_attack_judge(spec, &spec->attacks[k], &records[k], &judgements[k], &deciding[k]) != 0) {
                snprintf(err, AR_ERR_LEN, "%.400s: out of memory", partial);
                status = -1;
            }
        } else {
            free(stored[k].evaluations), free(stored[k].confirmations);
        }
    }
    free(stored);
    free(verdicts);
    ar_spec_free(&old);
    return status ? -1 : done;
}

/* FILE.partial rewritten with the first `done` attacks: through FILE.partial.tmp, renamed. */
static int checkpoint(const ar_spec *spec, const char *partial, const char *command_line,
                      const ar_attack_record *records, const ar_judgement *judgements, const long *deciding, int done,
                      char *err)
{
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp", partial);
    unlink(tmp); /* a killed writer's, under the lock we hold */
    ar_provenance how;
    ar_provenance_of_process(&how);
    err[0] = '\0';
    if (ar_store_write_attacks(tmp, spec, command_line, &how, records, judgements, deciding, done, err) != 0)
        return -1;
    if (rename(tmp, partial) != 0) {
        snprintf(err, AR_ERR_LEN, "%.400s: cannot rename its .tmp into place: %s", partial, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int run_attacks(const ar_spec *spec, const char *output, const char *command_line, int threads,
                       double max_memory, int force, int resume, int quiet)
{
    char err[AR_ERR_LEN], partial[PATH_MAX + 16];
    if (spec->n_attacks == 0) {
        ar_cli_say("%s: no attacks: give an experiment attacks = ( { id = ...; claim = ...; space = { ... }; "
                   "budget = ...; } ); (docs/attacks.md)", spec->source);
        return AR_EXIT_BAD_INPUT;
    }
    if (ar_output_check_name(output, ".partial.tmp", err) != 0) {
        ar_cli_say("%s", err);
        return AR_EXIT_BAD_INPUT;
    }
    snprintf(partial, sizeof partial, "%s.partial", output);
    ar_output_lock *lock = ar_output_lock_take(output, err);
    if (!lock) {
        ar_cli_say("%s", err);
        return AR_EXIT_BAD_INPUT;
    }
    struct stat st;
    char kind[160] = "";
    int partial_there = lstat(partial, &st) == 0, fd = -1;
    if (partial_there && !S_ISDIR(st.st_mode) && (fd = ar_open_regular(partial, O_RDONLY, kind, sizeof kind, NULL)) >= 0)
        close(fd), kind[0] = '\0';
    /* the file's kind first: another command's partial is its progress, never ours to resume or replace */
    const char *refusal = (stat(output, &st) == 0 && S_ISDIR(st.st_mode)) ||
                                  (stat(partial, &st) == 0 && S_ISDIR(st.st_mode))
                              ? "is a directory (or its .partial is): not an output --force can replace"
                          : kind[0] ? kind
                          : partial_there && !ar_store_is_attnrank_file(partial)
                              ? "has a .partial that is not an attnrank file (no interrupted attack's): attack neither "
                                "resumes nor replaces it, --force included; remove it yourself or give another -o"
                          : partial_there && !ar_store_is_attack_file(partial)
                              ? "has a .partial that is not an attack's (an interrupted run's or merge's: `attnrank "
                                "run --resume` continues a run's): attack neither resumes nor replaces it, --force "
                                "included; give the attack another -o"
                          : file_exists(output) && !force      ? "exists; --force replaces it"
                          : resume && !file_exists(partial)  ? "has no .partial to resume"
                          : !resume && !force && file_exists(partial) ? "has a .partial of an interrupted attack: "
                                                                        "--resume continues it, --force starts over"
                                                              : NULL;
    if (refusal) {
        ar_output_lock_release(lock);
        ar_cli_say("%s: %s", kind[0] ? partial : output, refusal);
        return AR_EXIT_BAD_INPUT;
    }
    /* sized as a run is, before any search: memory, address space, disk, ulimit -f */
    ar_run_options sizing = {.output = output, .threads = threads, .max_memory = max_memory};
    if (ar_preflight_attacks(spec, &sizing, err) != 0) {
        ar_output_lock_release(lock);
        ar_cli_say("%s", err);
        return AR_EXIT_BAD_INPUT;
    }
    ar_attack_outcome *outs = calloc((size_t)spec->n_attacks, sizeof *outs);
    ar_attack_record *records = calloc((size_t)spec->n_attacks, sizeof *records);
    ar_judgement *judgements = calloc((size_t)spec->n_attacks, sizeof *judgements);
    long *deciding = calloc((size_t)spec->n_attacks, sizeof *deciding);
    int status = outs && records && judgements && deciding ? AR_EXIT_OK : AR_EXIT_IO, undecided = 0, contradicted = 0;
    int done = 0;
    if (status)
        ar_cli_say("%s: out of memory", output);
    if (status == AR_EXIT_OK && resume && (done = resume_from(spec, partial, records, judgements, deciding, err)) < 0) {
        ar_cli_say("%s", err);
        status = AR_EXIT_BAD_INPUT;
        done = 0;
    }
    if (status == AR_EXIT_OK && resume && !quiet)
        fprintf(stderr, "%s: resuming after %d of %d attacks\n", partial, done, spec->n_attacks);
    ar_install_signal_handlers();
    for (int k = done; status == AR_EXIT_OK && k < spec->n_attacks; ++k) {
        if (!quiet)
            fprintf(stderr, "attack %s: searching (budget %ld trials)\n", spec->attacks[k].id, spec->attacks[k].budget);
        ar_status st = ar_attack_run(spec, k, threads, &outs[k], err);
        if (st != AR_OK) {
            ar_cli_say("%s", err);
            if (st == AR_ERR_INTERRUPTED && done > 0)
                ar_cli_say("%s keeps the %d attack%s finished; --resume continues", partial, done,
                           done == 1 ? "" : "s");
            else if (st == AR_ERR_INTERRUPTED)
                ar_cli_say("%s: no attack had finished: nothing kept (run it again)", output);
            ar_attack_outcome_free(&outs[k]);
            status = ar_cli_exit_status(st);
            break;
        }
        records[k] = outs[k].record;
        judgements[k] = outs[k].judgement;
        deciding[k] = outs[k].deciding;
        done = k + 1;
        if (!quiet)
            fprintf(stderr, "attack %s: %s after %ld trials (%.1f s)\n", spec->attacks[k].id,
                    ar_verdict_name(outs[k].judgement.verdict),
                    outs[k].record.search_trials + outs[k].record.confirm_trials, outs[k].record.seconds);
        if (checkpoint(spec, partial, command_line, records, judgements, deciding, done, err) != 0) {
            ar_cli_say("%s", err);
            status = AR_EXIT_IO;
        }
    }
    if (status == AR_EXIT_OK && rename(partial, output) != 0) {
        ar_cli_say("%s: cannot rename %s into place: %s", output, partial, strerror(errno));
        status = AR_EXIT_IO;
    }
    if (status == AR_EXIT_OK) {
        print_header();
        for (int k = 0; k < spec->n_attacks; ++k) {
            print_attack(spec, &spec->attacks[k], &records[k], &judgements[k], deciding[k]);
            contradicted |= attack_status(spec, &spec->attacks[k], judgements[k].verdict, &undecided);
        }
        printf("attacks written to ");
        ar_message_print(stdout, output);
        putchar('\n');
        status = contradicted ? AR_EXIT_VERIFY_FAILED : undecided ? AR_EXIT_UNDECIDED : AR_EXIT_OK;
    }
    for (int k = 0; records && k < spec->n_attacks; ++k)
        free(records[k].evaluations), free(records[k].confirmations);
    free(outs);
    free(records);
    free(judgements);
    free(deciding);
    ar_output_lock_release(lock);
    return status;
}

int ar_cli_cmd_attack(int argc, char **argv, char *command_line)
{
    static const struct option longs[] = {
        {"output", required_argument, 0, 'o'}, {"set", required_argument, 0, 's'},
        {"threads", required_argument, 0, 't'}, {"force", no_argument, 0, 'f'},
        {"quiet", no_argument, 0, 'q'},        {"help", no_argument, 0, 'h'},
        {"resume", no_argument, 0, 'r'},       {"max-memory", required_argument, 0, 'm'},
        {0, 0, 0, 0},
    };
    const char *output = NULL;
    int force = 0, quiet = 0, resume = 0, threads = 0, n_sets = 0, c;
    double max_memory = 0;
    const char **sets = calloc((size_t)argc, sizeof *sets);
    if (!sets)
        return AR_EXIT_IO;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:s:t:m:fqrh", longs, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 's': sets[n_sets++] = optarg; break;
        case 't': {
            char *end;
            errno = 0;
            long t = strtol(optarg, &end, 10);
            if (errno || *end || end == optarg || t < 1 || t > 4096) {
                free(sets);
                return ar_cli_bad_usage("attack: --threads must be an integer in [1, 4096], not '%s'", optarg);
            }
            threads = (int)t;
            break;
        }
        case 'm':
            if (ar_cli_parse_size(optarg, &max_memory)) {
                free(sets);
                return ar_cli_bad_usage("attack: --max-memory: '%s' is not a size like 512M or 4G", optarg);
            }
            break;
        case 'f': force = 1; break;
        case 'q': quiet = 1; break;
        case 'r': resume = 1; break;
        case 'h': fputs(ar_cli_attack_help, stdout); free(sets); return 0;
        default: free(sets); return ar_cli_option_error("attack: ", c, argv, longs);
        }
    }
    if (optind != argc - 1) {
        free(sets);
        return ar_cli_bad_usage("%s", "attack: give one SPEC");
    }
    const char *spec_path = argv[optind];
    if (ar_mpi_size() > 1) /* the other ranks have left (cli.c): the attack is this rank's */
        ar_cli_say("attack: runs on rank 0 alone, with its threads; the other %d MPI ranks are not used",
                   ar_mpi_size() - 1);
    char *fallback = output ? NULL : default_attack_output(spec_path);
    ar_spec spec;
    char err[AR_ERR_LEN];
    int status;
    if (!output && !fallback) {
        status = AR_EXIT_IO;
    } else if (ar_output_check_not_input(output ? output : fallback, spec_path, "the spec", err) != 0 ||
               ar_spec_load(spec_path, sets, n_sets, &spec, err) != 0) {
        ar_cli_say("%s", err);
        status = AR_EXIT_BAD_INPUT;
    } else {
        status = run_attacks(&spec, output ? output : fallback, command_line, threads, max_memory, force, resume,
                             quiet);
        ar_spec_free(&spec);
    }
    free(fallback);
    free(sets);
    return status;
}

int ar_cli_judge_attack_file(const char *path)
{
    ar_attack_file f;
    char err[AR_ERR_LEN];
    ar_status loaded = ar_attack_file_load(path, &f, err);
    int status = loaded == AR_OK ? AR_EXIT_OK : ar_cli_exit_status(loaded), undecided = 0, contradicted = 0;
    if (loaded != AR_OK)
        ar_cli_say("%s", err);
    for (int k = 0; status == AR_EXIT_OK && k < f.spec.n_attacks; ++k) {
        if (k == 0)
            print_header();
        print_attack(&f.spec, &f.spec.attacks[k], &f.records[k], &f.judgements[k], f.deciding[k]);
        contradicted |= attack_status(&f.spec, &f.spec.attacks[k], f.judgements[k].verdict, &undecided);
    }
    if (status == AR_EXIT_OK)
        status = contradicted ? AR_EXIT_VERIFY_FAILED : undecided ? AR_EXIT_UNDECIDED : AR_EXIT_OK;
    ar_attack_file_free(&f);
    return status;
}

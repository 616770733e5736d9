/* cli_list: list (simulators, parameters, claims) and info (a file, or the BLAS core). */
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
#include "attnrank/store.h" /* ar_store_is_attack_file, ar_store_attribute */
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

const char ar_cli_list_help[] =
    "usage: attnrank list [SIMULATOR | --tsv]\n\n"
    "Lists the simulators with their parameters (type, default, range), outputs and claims;\n"
    "with SIMULATOR, that one only; with --tsv, one line per parameter for scripts:\n"
    "simulator, parameter, type, default, min, max, choices.\n";

const char ar_cli_info_help[] =
    "usage: attnrank info [FILE]\n\n"
    "With FILE: what the result file holds (provenance, experiments, points done) and its\n"
    "verdicts. Without: this machine's OpenBLAS core and how it was decided (OpenBLAS's\n"
    "detection, attnrank's self-checked choice, or OPENBLAS_CORETYPE), and attnrank's own\n"
    "kernels (the normal sampler's variant, the S = Q K^T kernel).\n\n"
    "A file that disagrees with itself is refused (exit 2, one line naming the dataset):\n"
    "statistics against each other and the histograms, axes and attributes against the\n"
    "stored spec. The verdicts shown are the data judged again, whatever revision wrote\n"
    "the file: a stored /verdicts row or theory/ dataset that differs is marked DAMAGED on\n"
    "its line and info exits 2. -q is accepted, as elsewhere.\n";

int ar_cli_cmd_list(int argc, char **argv, char *command_line)
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
        return ar_cli_bad_usage("list: unknown simulator '%s'", only);
    for (int s = 0; s < count; ++s) {
        const ar_sim *sim = sims[s];
        if (only && strcmp(only, sim->name) != 0)
            continue;
        const ar_family *family = ar_family_of(sim);
        printf("%s: %s\n  family: %s (%s)\n  claims:", sim->name, sim->summary, family ? family->name : "-",
               family ? family->paper : "-");
        for (int c = 0; c < n_claims; ++c)
            if (claims[c]->sim == sim && !ar_rules[claims[c]->rule].curve_only)
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

int ar_cli_cmd_info(int argc, char **argv, char *command_line)
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
            return ar_cli_bad_usage(strncmp(argv[i], "--quiet=", 8) == 0 ? "info: option '%s' takes no value"
                                                                   : "info: unknown option '%s'", name);
        }
        file = argv[i], files++;
    }
    if (files != 1)
        return ar_cli_bad_usage("%s", "info: give one result file, or none for the BLAS core");
    if (ar_store_is_attack_file(file)) { /* `attnrank attack`'s: its attacks, re-derived */
        ar_message_print(stdout, file);
        printf(": an attack file (attnrank attack; docs/attacks.md)\n");
        int status = ar_cli_judge_attack_file(file);
        return status == AR_EXIT_BAD_INPUT || status == AR_EXIT_IO ? status : AR_EXIT_OK;
    }
    char err[AR_ERR_LEN];
    /* What is shown is what the data give, re-judged: a stored row that differs (whatever
     * revision the file names) is marked on its line and makes info exit 2. */
    ar_result result;
    if (ar_result_open(file, AR_RESULT_STORED, &result, err) < 0) {
        ar_cli_say("%s", err);
        ar_result_close(&result);
        return AR_EXIT_BAD_INPUT;
    }
    static const char *const attrs[] = {"attnrank_version", "git_revision", "created", "command_line", "host",
                                        "spec_source", "spec_hash", "title", "openblas_core",
                                        "openblas_core_origin", "kernels", "hdf5_version",
                                        "gsl_version"};
    const ar_spec *spec = result.spec;
    ar_message_print(stdout, file); /* a file's name may hold anything */
    putchar('\n');
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; ++i) {
        /* the title is the stored spec's, checked against its hash, not the root's copy */
        int is_title = strcmp(attrs[i], "title") == 0;
        char *value = is_title ? (spec->title ? strdup(spec->title) : NULL)
                               : ar_store_attribute(result.store, attrs[i]);
        if (value && value[0]) { /* the file's text: escaped, never obeyed by the terminal */
            printf("  %-17s ", attrs[i]);
            ar_message_print(stdout, value);
            printf("\n");
        }
        free(value);
    }
    printf("  %-17s %llu\n", "seed", (unsigned long long)spec->seed);
    long all_done = 0, all_points = 0;
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        long done = result.done[e];
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
        unsigned char unlisted = result.unlisted[e];
        if (unlisted) /* no row to mark: said under its experiment */
            printf("  DAMAGED: a theory/ dataset of a claim the spec does not list has %s not attnrank's\n",
                   unlisted == (AR_STORED_THEORY_DIFFERS | AR_STORED_THEORY_TEXT_DIFFERS) ? "values and attributes"
                   : unlisted & AR_STORED_THEORY_DIFFERS                                    ? "values"
                                                                                             : "attributes");
    }
    printf("\n");
    if (all_done < all_points)
        printf("incomplete run (%ld of %ld points): verdicts are computed when it completes\n", all_done, all_points);
    else
        ar_cli_print_checked_verdicts(stdout, result.rows, result.stored, result.marks, result.n_rows);
    int damaged = result.damaged;
    if (damaged) /* said last, where it is seen */
        ar_cli_say("%s (shown: the verdicts its data give)", result.damage);
    ar_result_close(&result);
    return damaged ? AR_EXIT_BAD_INPUT : AR_EXIT_OK;
}

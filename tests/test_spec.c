#define _GNU_SOURCE
/* spec: grids, overrides, and one clear line for each kind of bad input. */
#include "attnrank/spec.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define HEAD "seed = 3;\nexperiments = (\n  { name = \"e\"; simulator = \"hardmax_rank\"; trials = 10;\n"
#define TAIL "  }\n);\n"

/* Loads text and expects failure with `want` in the message. */
static void expect_error(const char *text, const char *const *sets, int n_sets, const char *want)
{
    ar_spec spec;
    char err[AR_ERR_LEN] = "";
    int status = ar_spec_load_text(text, "t.cfg", NULL, sets, n_sets, &spec, err);
    CHECK(status == -1);
    CHECK(strchr(err, '\n') == NULL); /* one line */
    CHECK_CONTAINS(err, want);
    if (status == 0)
        ar_spec_free(&spec);
}

static void bad_inputs(void)
{
    expect_error(HEAD "    bogus = 1;\n" TAIL, NULL, 0, "t.cfg:4: bogus: unknown field for simulator hardmax_rank");
    expect_error(HEAD "    n = \"big\";\n" TAIL, NULL, 0, "t.cfg:4: n: must be an integer, not a string");
    expect_error(HEAD "    n = 2.5;\n" TAIL, NULL, 0, "t.cfg:4: n: must be an integer, not 2.5");
    expect_error(HEAD "    n = 64;\n    d = 32;\n" TAIL, NULL, 0,
                 "t.cfg:5: d: orthonormal inputs need n <= d (n = 64, d = 32)");
    expect_error(HEAD "    d_h = 0;\n" TAIL, NULL, 0, "t.cfg:4: d_h: 0 is out of range [1, 16384]");
    expect_error(HEAD "    d_h = [];\n" TAIL, NULL, 0, "t.cfg:4: d_h: empty axis");
    expect_error(HEAD "    n = [8, 8];\n" TAIL, NULL, 0, "n: value 2 repeats value 1");
    expect_error(HEAD "    weights = \"twisted\";\n" TAIL, NULL, 0,
                 "weights: 'twisted' is not one of: independent, tied, correlated");
    const char *one_trial[] = {"trials=1"};
    expect_error(HEAD TAIL, one_trial, 1, "trials: 1 is out of range [2,");
    expect_error(HEAD "    claims = [\"H9\"];\n" TAIL, NULL, 0, "claims: unknown claim 'H9'");
    expect_error(HEAD "    claims = [\"H5a\"];\n" TAIL, NULL, 0, "claim H5a is about simulator softmax_rank");
    expect_error(HEAD "    expect = { H1 = \"MAYBE\"; };\n" TAIL, NULL, 0, "H1 must be \"HOLDS\"");
    /* 20^5 * 2 * 2 * 3 = 3.84e7 points: over the limit, refused before any work. */
    char grid[4096];
    sprintf(grid, HEAD "    n = (%s);\n    d_h = (%s);\n    sigma = (%s);\n    d = (%s);\n    rho = (%s);\n"
                  "    sampler = (\"auto\", \"faithful\");\n    inputs = (\"orthonormal\", \"gaussian\");\n"
                  "    weights = (\"independent\", \"tied\", \"correlated\");\n" TAIL,
            "2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21",
            "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20",
            "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20",
            "100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119",
            "0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99, 1.0");
    expect_error(grid, NULL, 0, "the grid has 3.84e+07 points; the limit is 10000000");
    expect_error("seed = 1;\nexperiments = (\n { name = \"s\"; simulator = \"softmax_rank\"; tau = -1.0; }\n);\n",
                 NULL, 0, "t.cfg:3: tau: -1 is out of range: must be > 0");
    expect_error("seed = 1;\nexperiments = (\n { name = \"s\"; simulator = \"softmax_rank\"; tau = nan; }\n);\n",
                 NULL, 0, "t.cfg:3: syntax error: nan and inf are not values a spec can hold");
    expect_error("seed = 1;\nexperiments = (\n { name = \"s\"; simulator = \"softmax_rank\"; tau = 1e999; }\n);\n",
                 NULL, 0, "tau: must be a finite number");
    expect_error("seed = 1;\nexperiments = (\n { name = \"s\"; simulator = \"softmax_rank\"; tau = [1, 0.5]; }\n);\n",
                 NULL, 0, "an array [...] holds one type");
    expect_error("seed = 1;\n", NULL, 0, "experiments: the spec defines no experiments");
    expect_error("", NULL, 0, "the spec defines no experiments");
    expect_error("seed = 1; color = 3; experiments = ();\n", NULL, 0, "t.cfg:1: color: unknown top-level field");
    expect_error("seed = 1;\nexperiments = ( { simulator = \"hardmax_rank\"; } );\n", NULL, 0, "name: missing");
    expect_error("seed = 1;\nexperiments = ( { name = \"a\"; simulator = \"nope\"; } );\n", NULL, 0,
                 "unknown simulator 'nope'");
    expect_error("seed = 1;\nexperiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; },\n"
                 "{ name = \"a\"; simulator = \"hardmax_rank\"; } );\n", NULL, 0, "experiment 'a' is defined twice");
    expect_error("seed = 1\nexperiments = (", NULL, 0, "t.cfg:2: syntax error");
    expect_error("seed = 1; seed = 2; experiments = ();", NULL, 0, "duplicate setting name");
    expect_error("seed = -4; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; } );", NULL, 0,
                 "seed: must be >= 0");

    const char *bad_set[] = {"e.n=[8,"};
    expect_error(HEAD TAIL, bad_set, 1, "--set: e.n=[8,: cannot read the value");
    const char *no_exp[] = {"zz.n=8"};
    expect_error(HEAD TAIL, no_exp, 1, "no experiment named 'zz'");
    const char *set_bad_value[] = {"d_h=0"};
    expect_error(HEAD TAIL, set_bad_value, 1, "--set d_h=0: d_h: 0 is out of range");
    const char *no_eq[] = {"trials"};
    expect_error(HEAD TAIL, no_eq, 1, "is not of the form key=value");
}

static void grids_and_overrides(void)
{
    const char *text = HEAD "    n = [8, 16, 32];\n    d_h = (1, 4);\n    weights = \"tied\";\n" TAIL;
    const char *sets[] = {"e.trials=7", "seed=99", "sigma=2.0"};
    ar_spec spec;
    char err[AR_ERR_LEN] = "";
    CHECK(ar_spec_load_text(text, "t.cfg", NULL, sets, 3, &spec, err) == 0);
    if (err[0])
        fprintf(stderr, "%s\n", err);
    const ar_experiment *x = &spec.experiments[0];
    CHECK(spec.seed == 99 && x->trials == 7 && x->n_points == 6 && x->n_axes == 2);
    ar_point p;
    ar_experiment_point(x, 3, &p); /* last axis fastest: (n = 16, d_h = 4) */
    CHECK(ar_point_value(&p, "n") == 16 && ar_point_value(&p, "d_h") == 4 && ar_point_value(&p, "sigma") == 2.0);
    CHECK(ar_point_value(&p, "weights") == 1);
    CHECK(x->n_claims == 0); /* tied weights: H1-H3 are silent outside their assumptions */

    ar_spec independent;
    const char *untied = HEAD "    n = [8, 16, 32];\n    d_h = (1, 4);\n" TAIL;
    CHECK(ar_spec_load_text(untied, "u.cfg", NULL, NULL, 0, &independent, err) == 0);
    CHECK(independent.experiments[0].n_claims == 3); /* defaults where they speak: H1 H2 H3 */
    ar_spec_free(&independent);

    /* The canonical text is a spec that reproduces itself and its hash. */
    ar_spec again;
    CHECK(ar_spec_load_text(spec.canonical, "canonical", NULL, NULL, 0, &again, err) == 0);
    CHECK(again.hash == spec.hash && strcmp(again.canonical, spec.canonical) == 0);
    ar_spec_free(&again);

    /* A different value changes the hash; so does a trial count. */
    const char *other[] = {"e.trials=8", "seed=99", "sigma=2.0"};
    CHECK(ar_spec_load_text(text, "t.cfg", NULL, other, 3, &again, err) == 0);
    CHECK(again.hash != spec.hash);
    ar_spec_free(&again);
    ar_spec_free(&spec);

    /* claims = [] means report only; unlisted claims are those that apply on the grid. */
    CHECK(ar_spec_load_text("seed = 1; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; claims = []; },"
                            " { name = \"b\"; simulator = \"hardmax_rank\"; d_h = 4; } );",
                            "t.cfg", NULL, NULL, 0, &spec, err) == 0);
    CHECK(spec.experiments[0].n_claims == 0);
    CHECK(spec.experiments[1].n_claims == 2); /* H1, H2; H3 speaks only where d_h = 1 */
    CHECK(ar_spec_load_text(spec.canonical, "c", NULL, NULL, 0, &again, err) == 0);
    CHECK(again.experiments[0].n_claims == 0 && again.hash == spec.hash);
    ar_spec_free(&again);
    ar_spec_free(&spec);

    /* A huge seed survives the canonical round trip. */
    CHECK(ar_spec_load_text("seed = 9007199254740993L; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; } );",
                            "t.cfg", NULL, NULL, 0, &spec, err) == 0);
    CHECK(spec.seed == 9007199254740993ULL);
    CHECK(ar_spec_load_text(spec.canonical, "c", NULL, NULL, 0, &again, err) == 0);
    CHECK(again.seed == spec.seed);
    ar_spec_free(&again);
    ar_spec_free(&spec);
}

static void files(void)
{
    ar_spec spec;
    char err[AR_ERR_LEN];
    CHECK(ar_spec_load("/nonexistent/x.cfg", NULL, 0, &spec, err) == -1);
    CHECK_CONTAINS(err, "/nonexistent/x.cfg: cannot open the spec");
    char path[] = "/tmp/attnrank_spec_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(ar_spec_load(path, NULL, 0, &spec, err) == -1);
    CHECK_CONTAINS(err, "empty file");
    const char binary[] = {'s', 0, 1, 2};
    CHECK(write(fd, binary, sizeof binary) == sizeof binary);
    close(fd);
    CHECK(ar_spec_load(path, NULL, 0, &spec, err) == -1);
    CHECK_CONTAINS(err, "contains NUL bytes");
    /* A spec that includes itself (include paths are relative to the spec's folder). */
    FILE *f = fopen(path, "w");
    fprintf(f, "@include \"%s\"\nseed = 1;\n", strrchr(path, '/') + 1);
    fclose(f);
    CHECK(ar_spec_load(path, NULL, 0, &spec, err) == -1);
    CHECK(strchr(err, '\n') == NULL);
    printf("self-include: %s\n", err);
    CHECK(ar_spec_load("/tmp", NULL, 0, &spec, err) == -1);
    CHECK_CONTAINS(err, "/tmp: cannot read the spec");
    unlink(path);
}

int main(void)
{
    bad_inputs();
    grids_and_overrides();
    files();
    return check_report("spec");
}

#define _GNU_SOURCE
/* spec: grids, overrides, and one clear line for each kind of bad input. */
#include "attnrank/engine.h"
#include "attnrank/spec.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Allocation failures on demand: tests/meson.build links this test with --wrap, so the
 * library's malloc, calloc, realloc, strdup and free come here. fail_at = k makes the
 * k-th call from now return NULL; `live` counts blocks handed out and not yet freed. */
void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
char *__real_strdup(const char *s);
void __real_free(void *p);

enum { MAX_TRACKED = 1 << 14 };
static long alloc_calls, fail_at = -1, live;
static void *tracked[MAX_TRACKED];

static int injected_failure(void)
{
    return fail_at > 0 && ++alloc_calls == fail_at;
}

static void *track(void *p)
{
    for (int i = 0; p && i < MAX_TRACKED; ++i)
        if (!tracked[i]) {
            tracked[i] = p;
            live++;
            break;
        }
    return p;
}

static void untrack(void *p)
{
    for (int i = 0; p && i < MAX_TRACKED; ++i)
        if (tracked[i] == p) {
            tracked[i] = NULL;
            live--;
            return;
        }
}

void *__wrap_malloc(size_t size)
{
    return injected_failure() ? NULL : track(__real_malloc(size));
}

void *__wrap_calloc(size_t count, size_t size)
{
    return injected_failure() ? NULL : track(__real_calloc(count, size));
}

void *__wrap_realloc(void *p, size_t size)
{
    if (injected_failure())
        return NULL;
    void *q = __real_realloc(p, size);
    if (q) {
        untrack(p);
        track(q);
    }
    return q;
}

char *__wrap_strdup(const char *s)
{
    return injected_failure() ? NULL : track(__real_strdup(s));
}

void __wrap_free(void *p)
{
    untrack(p);
    __real_free(p);
}

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
    CHECK_CONTAINS(err, "/tmp: cannot read the spec: it is a directory");
    unlink(path);
}

/* Loads text (and overrides) and expects success; the spec is the caller's to free. */
static int loads(const char *text, const char *const *sets, int n_sets, ar_spec *spec)
{
    char err[AR_ERR_LEN] = "";
    int status = ar_spec_load_text(text, "t.cfg", NULL, sets, n_sets, spec, err);
    if (status)
        fprintf(stderr, "unexpected: %s\n", err);
    CHECK(status == 0);
    return status == 0;
}

#define ONE "experiments = ( { name = \"e\"; simulator = \"hardmax_rank\"; trials = 10; } );\n"

/* libconfig 1.5 wraps an integer literal without L to 32 bits; none may wrap. */
static void integer_literals(void)
{
    static const struct {
        const char *seed;
        unsigned long long want;
    } seeds[] = {{"4294967297", 4294967297ULL}, {"2147483648", 2147483648ULL}, {"0x100000001", 4294967297ULL},
                 {"0xFFFFFFFF", 4294967295ULL}, {"4294967297L", 4294967297ULL}, {"+7", 7},
                 {"9223372036854775807", 9223372036854775807ULL}, {"0x7FFFFFFFFFFFFFFFLL", 9223372036854775807ULL},
                 {"000000000000000000000000000000000000000000000000000000000000000000000000042", 42}};
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; ++i) {
        char text[512];
        snprintf(text, sizeof text, "seed = %s;\n" ONE, seeds[i].seed);
        ar_spec spec;
        if (loads(text, NULL, 0, &spec)) {
            if (spec.seed != seeds[i].want)
                fprintf(stderr, "seed = %s read as %llu\n", seeds[i].seed, (unsigned long long)spec.seed);
            CHECK(spec.seed == seeds[i].want);
            ar_spec_free(&spec);
        }
    }
    /* Outside int64, with or without L: refused at the line, naming the field. */
    expect_error("seed = 99999999999999999999;\n" ONE, NULL, 0,
                 "t.cfg:1: seed: 99999999999999999999 does not fit in a 64-bit integer");
    expect_error("seed = 9223372036854775808L;\n" ONE, NULL, 0, "seed: 9223372036854775808 does not fit");
    expect_error("seed = 0xFFFFFFFFFFFFFFFFL;\n" ONE, NULL, 0, "seed: 0xFFFFFFFFFFFFFFFF does not fit");
    expect_error("seed = 1;\nexperiments = (\n { name = \"e\"; simulator = \"hardmax_rank\";\n"
                 "   n = [8, -99999999999999999999]; } );\n", NULL, 0, "t.cfg:4: n: -99999999999999999999 does not fit");
    /* Each of these read as a legal value before: 100 trials, n = 8, n = 8, d_h = 1. */
    expect_error("seed = 3;\nexperiments = (\n  { name = \"e\"; simulator = \"hardmax_rank\";\n    trials = 4294967396; }\n);\n",
                 NULL, 0, "t.cfg:4: trials: 4294967396 is out of range [2,");
    expect_error(HEAD "    n = 4294967304;\n" TAIL, NULL, 0, "t.cfg:4: n: 4294967304 is out of range [2, 16384]");
    expect_error(HEAD "    n = -4294967288;\n" TAIL, NULL, 0, "n: -4294967288 is out of range");
    expect_error(HEAD "    n = [8, 4294967312];\n" TAIL, NULL, 0, "n: 4294967312 is out of range");
    expect_error(HEAD "    d_h = (2, 0x100000001);\n" TAIL, NULL, 0, "d_h: 4294967297 is out of range");
    expect_error(HEAD "    d_h = -2147483649;\n" TAIL, NULL, 0, "d_h: -2147483649 is out of range");

    /* Strings and comments pass untouched; floats stay floats. */
    ar_spec spec;
    if (loads("# seed = 99999999999999999999;\n// 99999999999999999999\n/* 99999999999999999999\n"
              " 0x1FFFFFFFFFFFFFFFFF */ title = \"n = 99999999999999999999 # not a comment\";\n"
              "experiments = ( { name = \"e\"; simulator = \"hardmax_rank\"; trials = 10;\n"
              "  sigma = [1e5, 2.5, .5, 3., 1.e2, +1.5e-3, 7E+1]; } ); # a last line without newline",
              NULL, 0, &spec)) {
        CHECK(strcmp(spec.title, "n = 99999999999999999999 # not a comment") == 0);
        const ar_axis *sigma = &spec.experiments[0].axes[0];
        CHECK(sigma->count == 7 && sigma->values[0] == 1e5 && sigma->values[2] == 0.5 && sigma->values[3] == 3.0 &&
              sigma->values[4] == 100 && sigma->values[5] == 1.5e-3 && sigma->values[6] == 70);
        ar_spec_free(&spec);
    }
    /* An escaped quote does not end a string: what follows it is no literal. */
    expect_error("title = \"a\\\" 99999999999999999999\";\n" ONE, NULL, 0,
                 "title: must not contain quotes or backslashes");
    /* Mixed arrays are refused as before; integers of one array stay one type. */
    expect_error(HEAD "    sigma = [1, 0.5];\n" TAIL, NULL, 0, "an array [...] holds one type");
    if (loads(HEAD "    n = [8, 16L, 0x20];\n" TAIL, NULL, 0, &spec)) {
        CHECK(spec.experiments[0].axes[0].values[2] == 32);
        ar_spec_free(&spec);
    }
    /* A UTF-8 byte-order mark (editors on Windows write one) is skipped. */
    if (loads("\xEF\xBB\xBF" HEAD TAIL, NULL, 0, &spec))
        ar_spec_free(&spec);
    expect_error("\xEF\xBB\xBF" HEAD "    bogus = 1;\n" TAIL, NULL, 0, "t.cfg:4: bogus");
    /* '@' means only an @include line, which a text (no file, no folder) cannot use. */
    expect_error(HEAD "  @include \"x.cfg\"\n" TAIL, NULL, 0, "t.cfg:4: @include \"x.cfg\": only a spec read from a file");
    expect_error(HEAD "    n = @8;\n" TAIL, NULL, 0, "t.cfg:4: '@' starts only an @include line");
    /* The experiment's group sits at the result file's root beside /verdicts. */
    expect_error("seed = 1;\nexperiments = ( { name = \"verdicts\"; simulator = \"hardmax_rank\"; } );\n", NULL, 0,
                 "t.cfg:2: name: 'verdicts' is reserved");
}

static void overrides(void)
{
    ar_spec spec;
    const char *big_seed[] = {"seed=4294967297", "e.n=[8, 0x10]", "trials=12;"};
    if (loads(HEAD TAIL, big_seed, 3, &spec)) {
        CHECK(spec.seed == 4294967297ULL && spec.experiments[0].trials == 12);
        CHECK(spec.experiments[0].axes[0].values[1] == 16);
        ar_spec_free(&spec);
    }
    const char *wraps[] = {"e.n=4294967304"};
    expect_error(HEAD TAIL, wraps, 1, "--set e.n=4294967304: n: 4294967304 is out of range");
    const char *huge[] = {"seed=99999999999999999999"};
    expect_error(HEAD TAIL, huge, 1, "--set seed=99999999999999999999: seed: 99999999999999999999 does not fit");
    /* One assignment per --set: what follows a ';' was silently dropped. */
    const char *two[] = {"e.n=8; seed=9"};
    expect_error(HEAD TAIL, two, 1, "--set: e.n=8; seed=9: one assignment per --set");
    const char *three[] = {"e.n=8;;"};
    expect_error(HEAD TAIL, three, 1, "--set: e.n=8;;: cannot read the value");
    const char *no_field[] = {"e.=8"};
    expect_error(HEAD TAIL, no_field, 1, "--set: e.=8: the field name after 'e.' is missing");
    const char *no_experiment[] = {".n=8"};
    expect_error(HEAD TAIL, no_experiment, 1, "--set: .n=8: the experiment's name before '.' is missing");
    /* Names libconfig cannot hold (it returned NULL, and the override crashed). */
    const char *digit_first[] = {"1x=8"};
    expect_error(HEAD TAIL, digit_first, 1, "--set: 1x=8: '1x' is not a field name");
    const char *dash_first[] = {"e.-n=8"};
    expect_error(HEAD TAIL, dash_first, 1, "--set: e.-n=8: '-n' is not a field name");
    const char *include[] = {"e.n=@include \"/etc/passwd\""};
    expect_error(HEAD TAIL, include, 1, "'@' starts only an @include line");
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* @include, expanded by spec_source: file:line in every message, the size cap over all. */
static void includes(void)
{
    char dir[] = "/tmp/attnrank_inc_XXXXXX", path[256], main_path[256], err[AR_ERR_LEN];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(main_path, sizeof main_path, "%s/main.cfg", dir);
    snprintf(path, sizeof path, "%s/part.cfg", dir);
    write_file(path, "  { name = \"e\"; simulator = \"hardmax_rank\";\n    trials = 10;\n    n = 4294967304; }\n");
    write_file(main_path, "seed = 1;\nexperiments = (\n@include \"part.cfg\"\n);\n");
    ar_spec spec;
    CHECK(ar_spec_load(main_path, NULL, 0, &spec, err) == -1);
    CHECK_CONTAINS(err, "/part.cfg:3: n: 4294967304 is out of range"); /* wrapped to n = 8 before */

    /* Lines after an include, and the rest of the include's own line, are the includer's. */
    write_file(path, "  { name = \"e\"; simulator = \"hardmax_rank\"; trials = 10; }"); /* no newline */
    write_file(main_path, "seed = 1;\nexperiments = (\n  @include \"part.cfg\" , { name = \"f\"; bogus = 1;\n"
                          "  simulator = \"hardmax_rank\"; }\n);\n");
    CHECK(ar_spec_load(main_path, NULL, 0, &spec, err) == -1);
    CHECK_CONTAINS(err, "main.cfg:3: bogus: unknown field");
    write_file(main_path, "seed = 1;\nexperiments = (\n  @include \"part.cfg\"\n , { name = \"f\";\n"
                          "  simulator = \"hardmax_rank\"; trials = 99999999999999999999; }\n);\n");
    CHECK(ar_spec_load(main_path, NULL, 0, &spec, err) == -1);
    CHECK_CONTAINS(err, "main.cfg:5: trials: 99999999999999999999 does not fit");
    write_file(main_path, "seed = 1;\nexperiments = (\n  @include \"part.cfg\"\n , { name = \"f\";\n"
                          "  simulator = \"hardmax_rank\"; } );\n");
    if (ar_spec_load(main_path, NULL, 0, &spec, err) == 0) {
        CHECK(spec.n_experiments == 2 && spec.experiments[0].trials == 10);
        ar_spec_free(&spec);
    } else {
        fprintf(stderr, "unexpected: %s\n", err);
        CHECK(0);
    }
    /* A syntax error inside an included file names it. */
    write_file(path, "  { name = \"e\";\n simulator = ; }\n");
    write_file(main_path, "seed = 1;\nexperiments = (\n@include \"part.cfg\"\n);\n");
    CHECK(ar_spec_load(main_path, NULL, 0, &spec, err) == -1);
    CHECK_CONTAINS(err, "/part.cfg:2: syntax error");
    /* An included file may not leave a string or comment open for its includer. */
    write_file(path, "  { name = \"e\"; simulator = \"hardmax_rank\"; } /* open\n");
    CHECK(ar_spec_load(main_path, NULL, 0, &spec, err) == -1);
    CHECK_CONTAINS(err, "/part.cfg:2: the file ends inside a comment");

    /* A directory, a missing file, a binary one: one line at the @include. */
    snprintf(path, sizeof path, "%s/sub", dir);
    CHECK(mkdir(path, 0700) == 0);
    write_file(main_path, "seed = 1;\n@include \"sub\"\nexperiments = ();\n");
    CHECK(ar_spec_load(main_path, NULL, 0, &spec, err) == -1);
    CHECK_CONTAINS(err, "main.cfg:2: @include \"sub\": cannot read ");
    CHECK_CONTAINS(err, "/sub: it is a directory");
    write_file(main_path, "seed = 1;\n   @include \"missing.cfg\"\nexperiments = ();\n");
    CHECK(ar_spec_load(main_path, NULL, 0, &spec, err) == -1);
    CHECK_CONTAINS(err, "main.cfg:2: @include \"missing.cfg\": cannot open ");
    /* The cap covers the spec and everything it includes (a 20 MiB line took minutes). */
    snprintf(path, sizeof path, "%s/big.cfg", dir);
    FILE *f = fopen(path, "w");
    fputs("seed = 1; # ", f);
    for (int i = 0; i < (1 << 20); ++i)
        fputc('x', f);
    fclose(f);
    write_file(main_path, "@include \"big.cfg\"\nexperiments = ();\n");
    CHECK(ar_spec_load(main_path, NULL, 0, &spec, err) == -1);
    CHECK_CONTAINS(err, "main.cfg:1: @include \"big.cfg\": the spec and the files it includes exceed 1048576 bytes");
    unlink(path);
    snprintf(path, sizeof path, "%s/sub", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/part.cfg", dir);
    unlink(path);
    unlink(main_path);
    rmdir(dir);
}

/* Every allocation the spec module makes, failed in turn: one line saying so, no crash,
 * no leak (the hook realloc, the axes, the names, the include buffers, ...). */
static void allocation_failures(void)
{
    char dir[] = "/tmp/attnrank_oom_XXXXXX", part[256], main_path[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(part, sizeof part, "%s/part.cfg", dir);
    snprintf(main_path, sizeof main_path, "%s/main.cfg", dir);
    write_file(part, "  { name = \"e\"; simulator = \"hardmax_rank\"; trials = 10; n = [8, 16, 32];\n"
                     "    d_h = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12); claims = [\"H1\"]; expect = { H1 = \"HOLDS\"; }; }\n");
    write_file(main_path, "seed = 1; title = \"t\";\nexperiments = (\n@include \"part.cfg\"\n,"
                          " { name = \"s\"; simulator = \"softmax_rank\"; tau = [1e-6, 1.0]; } );\n");
    const char *sets[] = {"e.trials=12", "sigma=2.0", "seed=5", "e.n=[8, 16]"};
    long k = 1, failures = 0;
    for (;; ++k) {
        ar_spec spec;
        char err[AR_ERR_LEN] = "";
        long live_before = live;
        alloc_calls = 0;
        fail_at = k;
        int status = ar_spec_load(main_path, sets, 4, &spec, err);
        fail_at = -1;
        if (status == 0) {
            ar_spec_free(&spec);
            CHECK(live == live_before);
            if (alloc_calls >= k) /* a failed allocation went unnoticed */
                fprintf(stderr, "allocation %ld failed, yet the spec loaded\n", k);
            CHECK(alloc_calls < k);
            break;
        }
        failures++;
        CHECK(strchr(err, '\n') == NULL);
        if (!strstr(err, "out of memory"))
            fprintf(stderr, "allocation %ld failed: %s\n", k, err);
        CHECK_CONTAINS(err, "out of memory");
        if (live != live_before)
            fprintf(stderr, "allocation %ld failed: %ld blocks leaked (%s)\n", k, live - live_before, err);
        CHECK(live == live_before);
    }
    printf("%ld allocations, each failed in turn\n", failures);
    CHECK(failures > 20);
    unlink(part);
    unlink(main_path);
    rmdir(dir);
}

/* Conjectures (conjecture.h): the canonical text re-reads to itself, hash and all; a
 * conjecture file expands @include like a spec, relative to its folder (refused before:
 * "only a spec read from a file can include files"), and names the included file and
 * line in its messages; every allocation of a spec with conjectures, of a conjecture
 * file and of --conjecture lines, failed in turn, gives one "out of memory" line. */
#define CONJ_SPEC                                                                                          \
    "seed = 3;\nexperiments = (\n  { name = \"e\"; simulator = \"hardmax_rank\"; trials = 10;\n"           \
    "    n = [8, 16]; d_h = [1, 4]; claims = [\"H1\"];\n"                                                  \
    "    conjectures = (\n"                                                                                \
    "      { id = \"ub\"; output = \"argmax_rank\"; rule = \"upper_bound\"; prediction = \"0.6 * n + 2\";\n" \
    "        where = \"d_h >= 4\"; },\n"                                                                   \
    "      { id = \"lim\"; output = \"argmax_rank\"; rule = \"limit\"; prediction = \"n\"; along = \"d_h\";\n" \
    "        tolerance = 0.1; rate = [0.5, 1.5]; expect = \"VIOLATED\"; },\n"                              \
    "      { id = \"eq\"; output = \"argmax_rank\"; rule = \"equality\"; prediction = \"2 - 2^(1 - n)\";\n"  \
    "        where = \"d_h == 1\"; tolerance = 0.05; statement = \"H3 again\"; }\n"                         \
    "    ); },\n"                                                                                          \
    "  { name = \"k\"; simulator = \"mask_dynamics\"; trials = 4; n = [8, 16]; layers = 5;\n"                 \
    "    conjectures = ( { id = \"last\"; output = \"mu\"; rule = \"measure\"; element = -1; } ); }\n"       \
    ");\n"

static void conjectures(void)
{
    ar_spec spec, again;
    char err[AR_ERR_LEN] = "";
    CHECK(ar_spec_load_text(CONJ_SPEC, "c.cfg", NULL, NULL, 0, &spec, err) == 0);
    if (err[0])
        fprintf(stderr, "unexpected: %s\n", err);
    if (spec.canonical) {
        CHECK(spec.experiments[0].n_claims == 4 && spec.experiments[1].n_claims == 1);
        CHECK_CONTAINS(spec.canonical, "rate = [0.5, 1.5];");
        CHECK_CONTAINS(spec.canonical, "lim = \"VIOLATED\";");
        CHECK_CONTAINS(spec.canonical, "element = -1;");
        CHECK(ar_spec_load_text(spec.canonical, "canonical", NULL, NULL, 0, &again, err) == 0);
        if (again.canonical) {
            CHECK(strcmp(again.canonical, spec.canonical) == 0);
            CHECK(again.hash == spec.hash);
            ar_spec_free(&again);
        }
    }
    /* A conjecture file with an @include, relative to its folder. */
    char dir[] = "/tmp/attnrank_conj_XXXXXX", cfile[256], part[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cfile, sizeof cfile, "%s/mine.cfg", dir);
    snprintf(part, sizeof part, "%s/part.cfg", dir);
    write_file(part, "  { experiment = \"e\"; id = \"inc\"; output = \"argmax_rank\";\n"
                     "    rule = \"lower_bound\"; prediction = \"1\"; }\n");
    write_file(cfile, "conjectures = (\n@include \"part.cfg\"\n);\n");
    uint64_t hash = spec.hash;
    const char *lines[] = {"id=s1; output=argmax_rank; rule=increasing; along=n"};
    if (spec.canonical) {
        int status = ar_spec_add_conjectures(&spec, "r.h5", cfile, lines, 1, err);
        if (status)
            fprintf(stderr, "unexpected: %s\n", err);
        CHECK(status == 0);
        CHECK(spec.experiments[0].n_claims == 6 && strcmp(spec.experiments[0].claims[4]->id, "inc") == 0);
        CHECK(spec.hash != hash);
        CHECK_CONTAINS(spec.canonical, "id = \"inc\"");
        ar_spec_free(&spec);
    }
    write_file(part, "  { experiment = \"e\"; id = \"inc\"; output = \"argmax_rank\";\n"
                     "    rule = \"lower_bound\"; prediction = \"1 + q\"; }\n");
    CHECK(ar_spec_load_text(CONJ_SPEC, "c.cfg", NULL, NULL, 0, &spec, err) == 0);
    if (spec.canonical) {
        CHECK(ar_spec_add_conjectures(&spec, "r.h5", cfile, NULL, 0, err) == -1);
        CHECK(strchr(err, '\n') == NULL);
        CHECK_CONTAINS(err, "/part.cfg:2: conjectures: prediction: unknown variable 'q'");
        ar_spec_free(&spec);
    }
    /* Allocations failed one at a time: the spec with conjectures, then the file and a line. */
    write_file(part, "  { experiment = \"e\"; id = \"inc\"; output = \"argmax_rank\";\n"
                     "    rule = \"lower_bound\"; prediction = \"1\"; }\n");
    long failures = 0;
    for (long k = 1;; ++k) {
        long live_before = live;
        alloc_calls = 0;
        fail_at = k;
        err[0] = '\0';
        int status = ar_spec_load_text(CONJ_SPEC, "c.cfg", NULL, NULL, 0, &spec, err);
        if (status == 0) {
            status = ar_spec_add_conjectures(&spec, "r.h5", cfile, lines, 1, err);
            ar_spec_free(&spec);
        }
        fail_at = -1;
        if (live != live_before)
            fprintf(stderr, "conjectures: allocation %ld failed: %ld blocks leaked (%s)\n", k, live - live_before, err);
        CHECK(live == live_before);
        if (alloc_calls < k) { /* nothing failed: the whole went through */
            if (status)
                fprintf(stderr, "conjectures: unexpected: %s\n", err);
            CHECK(status == 0);
            break;
        }
        if (status == 0) { /* a failed allocation went unnoticed */
            fprintf(stderr, "conjectures: allocation %ld failed, yet the conjectures loaded\n", k);
            CHECK(0);
            continue;
        }
        failures++;
        CHECK(strchr(err, '\n') == NULL);
        if (!strstr(err, "out of memory"))
            fprintf(stderr, "conjectures: allocation %ld failed: %s\n", k, err);
        CHECK_CONTAINS(err, "out of memory");
    }
    printf("conjectures: %ld allocations, each failed in turn\n", failures);
    CHECK(failures > 10);
    unlink(part);
    unlink(cfile);
    rmdir(dir);
}

/* Conjectures the referee's review (aef9165) refuses, accepts or reads anew: a limit or
 * log slope along an axis with a value <= 0 (t^-b, ln t undefined there; a where can
 * leave the point out); a trend with no line of two points where it speaks and its
 * output is measured (before: accepted, then NOT RUN); an empty statement or
 * --conjecture; choice indicators NAME_CHOICE in a where (before: unknown variable). */
#define CONJ_HEAD(grid) HEAD "    claims = [];\n    " grid "\n    conjectures = ( { id = \"c\"; output = "
#define CONJ_TAIL " } );\n" TAIL

static int conjecture_loads(const char *text, int n_claims)
{
    ar_spec spec;
    char err[AR_ERR_LEN] = "";
    int status = ar_spec_load_text(text, "t.cfg", NULL, NULL, 0, &spec, err);
    if (status)
        fprintf(stderr, "unexpected: %s\n", err);
    else {
        if (spec.experiments[0].n_claims != n_claims)
            fprintf(stderr, "%d claims, want %d\n", spec.experiments[0].n_claims, n_claims);
        status = spec.experiments[0].n_claims == n_claims ? 0 : -1;
        ar_spec_free(&spec);
    }
    return status;
}

static void conjecture_review(void)
{
    /* d = 0 means d = n: no point for c + a d^-b */
    expect_error(CONJ_HEAD("n = 16; d = [0, 16, 32, 64];") "\"argmax_rank\"; rule = \"limit\"; prediction = \"16\"; "
                 "tolerance = 0.01; along = \"d\"; rate = 1;" CONJ_TAIL, NULL, 0,
                 "t.cfg:6: conjectures: along: d = 0 at the point d=0: rule limit extrapolates c + a d^-b, defined "
                 "for d > 0 only");
    expect_error(CONJ_HEAD("n = 16; d = [0, 16, 32, 64];") "\"argmax_rank\"; rule = \"log_slope\"; prediction = \"1\"; "
                 "tolerance = 0.1; along = \"d\";" CONJ_TAIL, NULL, 0,
                 "along: d = 0 at the point d=0: rule log_slope");
    expect_error(CONJ_HEAD("n = 16; d = [32, 16, 0, 64];") "\"argmax_rank\"; rule = \"limit\"; prediction = \"16\"; "
                 "tolerance = 0.01; along = \"d\";" CONJ_TAIL, NULL, 0, "d = 0 at the point d=0");
    expect_error(CONJ_HEAD("weights = \"correlated\"; rho = [-0.5, 0.25, 0.5, 1.0];")
                 "\"argmax_rank\"; rule = \"limit\"; prediction = \"8\"; tolerance = 0.1; along = \"rho\";" CONJ_TAIL,
                 NULL, 0, "along: rho = -0.5 at the point rho=-0.5: rule limit extrapolates c + a rho^-b, defined for "
                 "rho > 0 only");
    /* ...a where that leaves the point out, or a trend (not extrapolated), is fine */
    CHECK(conjecture_loads(CONJ_HEAD("n = 16; d = [0, 16, 32, 64];") "\"argmax_rank\"; rule = \"limit\"; prediction = \"16\"; "
                "tolerance = 0.01; along = \"d\"; rate = 1; where = \"d > 0\";" CONJ_TAIL, 1) == 0);
    CHECK(conjecture_loads(CONJ_HEAD("weights = \"correlated\"; rho = [-0.5, 0.25, 0.5, 1.0];")
                "\"argmax_rank\"; rule = \"increasing\"; along = \"rho\";" CONJ_TAIL, 1) == 0);

    /* trends and limits: a line along the axis with two points where it speaks */
    expect_error(CONJ_HEAD("n = [8, 16]; d_h = [2, 8];") "\"argmax_rank\"; rule = \"increasing\"; along = \"d_h\"; "
                 "where = \"d_h == 2\";" CONJ_TAIL, NULL, 0,
                 "t.cfg:6: conjectures: where: no line along d_h has two points where the conjecture speaks and "
                 "argmax_rank is measured: rule increasing compares values along d_h");
    expect_error(CONJ_HEAD("n = [8, 16]; d_h = [2, 8];") "\"hull_vertices\"; rule = \"decreasing\"; along = \"d_h\";"
                 CONJ_TAIL, NULL, 0, "along: no line along d_h has two points where the conjecture speaks and "
                 "hull_vertices is measured");
    expect_error(CONJ_HEAD("n = [8, 16]; d_h = [2, 8];") "\"argmax_rank\"; rule = \"limit\"; prediction = \"n\"; "
                 "tolerance = 0.1; along = \"n\"; where = \"n < 10\";" CONJ_TAIL, NULL, 0,
                 "where: no line along n has two points");
    expect_error(CONJ_HEAD("n = [8, 16]; d_h = [2, 8];") "\"argmax_rank\"; rule = \"steeper\"; along = \"n\"; "
                 "versus = \"d_h\"; where = \"n == 16\";" CONJ_TAIL, NULL, 0, "where: no line along n has two points");
    /* one line of two is enough (n = 8 along d_h), whatever the others */
    CHECK(conjecture_loads(CONJ_HEAD("n = [8, 16]; d_h = [2, 8];") "\"argmax_rank\"; rule = \"increasing\"; along = \"d_h\"; "
                "where = \"n == 8 || d_h == 2\";" CONJ_TAIL, 1) == 0);
    CHECK(conjecture_loads(CONJ_HEAD("n = [8, 16]; d_h = [2, 8];") "\"hull_vertices\"; rule = \"increasing\"; along = \"n\";"
                CONJ_TAIL, 1) == 0);

    /* an empty statement (leave it out for the default) */
    expect_error(CONJ_HEAD("n = [8, 16];") "\"argmax_rank\"; rule = \"upper_bound\"; prediction = \"n\"; "
                 "statement = \"\";" CONJ_TAIL, NULL, 0, "t.cfg:6: conjectures: statement: empty");

    /* choice indicators: weights_independent is 1 where weights is independent */
    CHECK(conjecture_loads(CONJ_HEAD("n = [8, 16]; weights = [\"independent\", \"tied\"];") "\"argmax_rank\"; rule = "
                "\"upper_bound\"; prediction = \"(1 - exp(-1)) * n + 1\"; where = \"weights_independent && "
                "inputs_orthonormal\";" CONJ_TAIL, 1) == 0);
    expect_error(CONJ_HEAD("n = [8, 16]; weights = [\"independent\", \"tied\"];") "\"argmax_rank\"; rule = "
                 "\"upper_bound\"; prediction = \"n\"; where = \"weights_correlated\";" CONJ_TAIL, NULL, 0,
                 "where: 'weights_correlated' is false at every point");
    expect_error(CONJ_HEAD("n = [8, 16];") "\"argmax_rank\"; rule = \"upper_bound\"; prediction = \"n\"; "
                 "where = \"weights_twisted\";" CONJ_TAIL, NULL, 0, "where: unknown variable 'weights_twisted'");

    /* judge's lines: an empty one, blank, only separators, an empty statement */
    const char *bad_lines[][2] = {{"", "--conjecture 1: conjectures: id: empty"},
                                  {"   ", "--conjecture 1: conjectures: id: empty"},
                                  {" ; ;", "--conjecture 1: conjectures: id: empty"},
                                  {"id=s; output=argmax_rank; rule=upper_bound; prediction=n; statement=",
                                   "--conjecture 1: conjectures: statement: empty"},
                                  {"id=s; output=argmax_rank; rule=upper_bound; prediction=n; statement=\"\"",
                                   "--conjecture 1: conjectures: statement: empty"}};
    for (size_t i = 0; i < sizeof bad_lines / sizeof bad_lines[0]; ++i) {
        ar_spec spec;
        char err[AR_ERR_LEN] = "";
        CHECK(ar_spec_load_text(HEAD "    n = [8, 16];\n" TAIL, "t.cfg", NULL, NULL, 0, &spec, err) == 0);
        const char *line[] = {bad_lines[i][0]};
        CHECK(ar_spec_add_conjectures(&spec, "r.h5", NULL, line, 1, err) == -1);
        CHECK(strchr(err, '\n') == NULL);
        CHECK_CONTAINS(err, bad_lines[i][1]);
        ar_spec_free(&spec);
    }
}

/* Judging a file, every allocation of the verdicts and the mutants failed in turn (the
 * rules' workspace among them): an error naming it, no crash, no leak, and once enough
 * memory is there, the same rows as without failures. */
static void judging_allocation_failures(void)
{
    char dir[] = "/tmp/attnrank_oom_judge_XXXXXX", path[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/judged.h5", dir);
    ar_spec spec;
    char err[AR_ERR_LEN] = "";
    int loaded = ar_spec_load_text("seed = 3; experiments = ({ name = \"e\"; simulator = \"hardmax_rank\"; "
                                   "trials = 20; n = [4, 8]; d_h = [2, 4, 8, 16]; claims = [\"H1\", \"H2\", "
                                   "\"H2lim\"]; expect = { H2lim = \"INCONCLUSIVE\"; }; });",
                                   "judged", NULL, NULL, 0, &spec, err) == 0;
    CHECK(loaded);
    if (!loaded) {
        fprintf(stderr, "judging spec: %s\n", err);
        return;
    }
    ar_run_options opt = {.output = path, .command_line = "test", .threads = 1, .quiet = 1, .force = 1};
    ar_verdict_row *rows = NULL;
    int n_rows = 0;
    CHECK(ar_run_spec(&spec, &opt, &rows, &n_rows, err) == AR_OK && n_rows == 3);
    ar_store *store = ar_store_open(path, 0, err);
    CHECK(store != NULL);
    ar_verdict_row again[3];
    ar_mutant_row mutants[3];
    long failures = 0;
    for (long k = 1; store; ++k) {
        long live_before = live;
        alloc_calls = 0;
        fail_at = k;
        int status = ar_judge_verdicts(store, &spec, again, err);
        if (status == 0)
            status = ar_judge_mutants(store, &spec, mutants, err);
        fail_at = -1;
        if (live != live_before)
            fprintf(stderr, "judging: allocation %ld failed: %ld blocks leaked (%s)\n", k, live - live_before, err);
        CHECK(live == live_before);
        if (status == 0) {
            CHECK(alloc_calls < k); /* a failed allocation went unnoticed otherwise */
            for (int r = 0; r < 3; ++r)
                CHECK(again[r].verdict == rows[r].verdict && !strcmp(again[r].explanation, rows[r].explanation));
            break;
        }
        failures++;
        CHECK(strchr(err, '\n') == NULL);
        if (!strstr(err, "out of memory"))
            fprintf(stderr, "judging: allocation %ld failed: %s\n", k, err);
        CHECK_CONTAINS(err, "out of memory");
    }
    printf("judging: %ld allocations, each failed in turn\n", failures);
    CHECK(failures >= 10);
    if (store)
        ar_store_close(store);
    free(rows);
    ar_spec_free(&spec);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    check_register_families();
    judging_allocation_failures();
    bad_inputs();
    grids_and_overrides();
    files();
    integer_literals();
    overrides();
    includes();
    allocation_failures();
    conjectures();
    conjecture_review();
    return check_report("spec");
}

/* expression: formulas over real simulators' parameters, their values against hand
 * values, and every kind of refusal with the token it names. */
#define _XOPEN_SOURCE 700 /* M_E, M_PI */
#include "attnrank/expression.h"
#include "attnrank/registry.h"
#include "hardmax/hardmax.h"
#include "check.h"

#include <stdint.h>
#include <stdlib.h>

static const ar_sim *hardmax;
static ar_point at; /* hardmax_rank at n = 16, d_h = 4, rho = 0.25 */

/* Value of text at `at`; a formula that does not compile is the test's failure. */
static double value_of(const char *text)
{
    char why[256];
    ar_expr *e = ar_expr_compile(text, hardmax, why, sizeof why);
    if (!e) {
        fprintf(stderr, "\"%s\" did not compile: %s\n", text, why);
        check_failures++;
        return NAN;
    }
    double v = ar_expr_eval(e, &at);
    ar_expr_free(e);
    return v;
}

/* The message text is refused with against sim; empty if it compiled (a failure). */
static const char *refusal(const char *text, const ar_sim *sim)
{
    static char why[512];
    ar_expr *e = ar_expr_compile(text, sim, why, sizeof why);
    if (e) {
        fprintf(stderr, "\"%s\" compiled, want a refusal\n", text);
        check_failures++;
        ar_expr_free(e);
        return "";
    }
    CHECK(why[0] != '\0');
    return why;
}

static void arithmetic(void)
{
    CHECK_NEAR(value_of("0.6 * n + 2"), 11.6, 1e-14);
    CHECK(value_of("2") == 2);
    CHECK(value_of("1 + 2 * 3") == 7);
    CHECK(value_of("(1 + 2) * 3") == 9);
    CHECK(value_of("n - d_h - 2") == 10);
    CHECK(value_of("n / d_h / 2") == 2);
    CHECK(value_of("2^3^2") == 512); /* right-associative */
    CHECK(value_of("-2^2") == -4);   /* unary minus below ^ */
    CHECK(value_of("2^-1") == 0.5);
    CHECK(value_of("2 * -3") == -6);
    CHECK(value_of("n^0.5") == 4);
    CHECK(value_of("rho * 4") == 1);
    CHECK(value_of("d") == 0 && value_of("sigma") == 1);
    CHECK_NEAR(value_of("(1 - 1/e) * n + 1"), (1 - 1 / M_E) * 16 + 1, 1e-13);
    CHECK(value_of("sqrt(n) / d_h") == 1);
    CHECK(value_of("1e3 + .5 + 5.") == 1005.5);
}

static void functions_and_constants(void)
{
    CHECK(value_of("e") == M_E && value_of("pi") == M_PI);
    CHECK(value_of("sqrt(16)") == 4 && value_of("exp(0)") == 1);
    CHECK(value_of("ln(e)") == 1);
    CHECK(value_of("log(e)") == 1); /* natural, like ln */
    CHECK(value_of("log(100)") == log(100.0));
    CHECK(value_of("log2(8)") == 3 && value_of("log2(n)") == 4);
    CHECK(value_of("log2(2^59)") == 59); /* C's log2: muparser's log(x)/log(2) is 59.000000000000007 */
    CHECK(value_of("log10(1000)") == 3);
    CHECK(value_of("abs(-3)") == 3 && value_of("abs(3)") == 3);
    CHECK(value_of("sign(-2)") == -1 && value_of("sign(0)") == 0 && value_of("sign(n)") == 1);
    CHECK(value_of("floor(2.5)") == 2 && value_of("floor(-2.5)") == -3);
    CHECK(value_of("ceil(2.1)") == 3 && value_of("ceil(-2.1)") == -2);
    CHECK(value_of("round(2.5)") == 3 && value_of("round(-2.5)") == -3);
    CHECK(value_of("min(3, 1, 2)") == 1 && value_of("min(n)") == 16);
    CHECK(value_of("max(3, n, 2)") == 16 && value_of("max(d_h, 2)") == 4);
    CHECK(value_of("floor(0.6 * n + 2)") == 11);
    CHECK(isnan(value_of("min(1, 0/0, 2)")) && isnan(value_of("max(0/0, 1)")));
}

/* where-style formulas: comparisons and logic give exactly 1 or 0. */
static void comparisons(void)
{
    CHECK(value_of("n > 8") == 1 && value_of("n < 8") == 0);
    CHECK(value_of("d_h >= 4") == 1 && value_of("d_h <= 3") == 0);
    CHECK(value_of("n == 16") == 1 && value_of("n != 16") == 0);
    CHECK(value_of("n > 8 && d_h <= 4 ? 1 : 0") == 1);
    CHECK(value_of("n > 8 && d_h > 4") == 0);
    CHECK(value_of("n < 8 || d_h == 4") == 1);
    CHECK(value_of("n < 8 || d_h != 4") == 0);
    CHECK(value_of("n > 100 ? 1 : n > 10 ? 2 : 3") == 2);
    CHECK(value_of("(n > 8) + (d_h > 8)") == 1);
    CHECK(value_of("1 < 2 < 3") == 1); /* (1 < 2) < 3 */
}

/* NAME_CHOICE indicators select choices; they follow the point, not the defaults. */
static void choice_indicators(void)
{
    CHECK(value_of("weights_independent") == 1 && value_of("weights_tied") == 0);
    CHECK(value_of("inputs_orthonormal && weights_independent && n > 8") == 1);
    char why[256];
    ar_expr *e = ar_expr_compile("weights_tied ? 2 : 3", hardmax, why, sizeof why);
    CHECK(e != NULL);
    ar_point tied = at;
    tied.value[AR_HARDMAX_WEIGHTS] = AR_HARDMAX_WEIGHTS_TIED;
    CHECK(ar_expr_eval(e, &tied) == 2 && ar_expr_eval(e, &at) == 3 && ar_expr_eval(e, &tied) == 2);
    ar_expr_free(e);
    CHECK_CONTAINS(refusal("weights > 0", hardmax), "weights_independent is 1 where weights is independent");
    CHECK_CONTAINS(refusal("weights_untied", hardmax), "unknown variable 'weights_untied'");
}

static void domain_edges(void)
{
    CHECK(value_of("1 / (n - n)") == INFINITY); /* not an error: the caller decides */
    CHECK(value_of("-1 / 0") == -INFINITY);
    CHECK(isnan(value_of("log(-1)")) && isnan(value_of("sqrt(-n)")) && isnan(value_of("0 / 0")));
    CHECK(value_of("log(0)") == -INFINITY);
    CHECK(value_of("exp(1000)") == INFINITY);
}

static void refusals(void)
{
    const ar_sim *markov = ar_sim_find("markov_spectrum");
    CHECK(markov != NULL);
    CHECK_CONTAINS(refusal("x + 1", hardmax),
                   "unknown variable 'x' (hardmax_rank's numeric parameters: n, d, d_h, rho, sigma, queries_given_keys; constants: e, pi)");
    CHECK_CONTAINS(refusal("n * tau", hardmax), "unknown variable 'tau'"); /* softmax_rank's, not hardmax's */
    CHECK_CONTAINS(refusal("weights", hardmax), "'weights' is a choice parameter (independent, tied, correlated), not a number");
    CHECK_CONTAINS(refusal("n > 2 && inputs == 0", hardmax), "'inputs' is a choice parameter (orthonormal, gaussian)");
    if (markov)
        CHECK_CONTAINS(refusal("entries + 1", markov), "'entries' is a choice parameter");
    CHECK_CONTAINS(refusal("foo(2)", hardmax), "unknown function 'foo' (functions: sqrt, exp, ln, log,");
    CHECK_CONTAINS(refusal("sin(n)", hardmax), "unknown function 'sin'"); /* muparser's, cleared */
    CHECK_CONTAINS(refusal("_pi * n", hardmax), "unknown variable '_pi'");
    CHECK_CONTAINS(refusal("sqrt + 1", hardmax), "'sqrt' is a function: write sqrt(...)");
    CHECK_CONTAINS(refusal("1e999 * n", hardmax), "'1e999' is not a number");
    CHECK_CONTAINS(refusal("inf", hardmax), "unknown variable 'inf'");

    CHECK_CONTAINS(refusal("n +* 2", hardmax), "syntax error at '*' (character 4): ");
    CHECK_CONTAINS(refusal("n d_h", hardmax), "syntax error at 'd_h' (character 3): Unexpected variable");
    CHECK_CONTAINS(refusal("2 ^ ) 3", hardmax), "syntax error at ')' (character 5): ");
    CHECK_CONTAINS(refusal("n ! 2", hardmax), "syntax error at '! 2' (character 3): ");
    CHECK_CONTAINS(refusal("sqrt(1, 2)", hardmax), "syntax error at 'sqrt' (character 10): Too many parameters");
    CHECK_CONTAINS(refusal("(n + 1", hardmax), "syntax error at the end: ");
    CHECK_CONTAINS(refusal("n +", hardmax), "syntax error at the end: ");
    CHECK_CONTAINS(refusal("n > 2 ? 1", hardmax), "syntax error: If-then-else operator is missing an else clause");
    CHECK_CONTAINS(refusal("n +-", hardmax), "syntax error at the end: an operator lacks an operand");
    CHECK_CONTAINS(refusal("-", hardmax), "syntax error at the end: an operator lacks an operand");
    CHECK_CONTAINS(refusal("n ? 1 : -", hardmax), "syntax error: muparser's internal error");
    CHECK_CONTAINS(refusal("n ! 2", hardmax), "Unexpected token \"! 2\"."); /* without muparser's trailing space */
    CHECK_CONTAINS(refusal("1 ? 2 : 3 ? (4, 5) : 6", hardmax), "Function arguments used without a function");
    CHECK(!strstr(refusal("1 ? 2 : 3 ? (4, 5) : 6", hardmax), "position"));
    CHECK(!strstr(refusal("n +* 2", hardmax), "position")); /* muparser's 0-based position is dropped */

    CHECK_CONTAINS(refusal("1, 2", hardmax), "gives 2 values, not one");
    CHECK_CONTAINS(refusal("n, d_h, 3", hardmax), "gives 3 values, not one");
    CHECK_CONTAINS(refusal("\"abc\"", hardmax), "character 1 starts a string");
    CHECK_CONTAINS(refusal("n + \"4\"", hardmax), "character 5 starts a string");
    CHECK_CONTAINS(refusal("n = 5", hardmax), "character 3: '=' assigns; compare with '=='");
    CHECK_CONTAINS(refusal("n += 5", hardmax), "character 4: '=' assigns");
    CHECK_CONTAINS(refusal("n === 5", hardmax), "character 5: '=' assigns");

    CHECK(strcmp(refusal("", hardmax), "empty expression") == 0);
    CHECK(strcmp(refusal("    ", hardmax), "empty expression") == 0);
    CHECK(strcmp(refusal(NULL, hardmax), "empty expression") == 0);
    CHECK(strcmp(refusal("n\t+ 1", hardmax), "character 2 (byte 0x09) is not printable ASCII") == 0);
    CHECK_CONTAINS(refusal("n + \xc3\xa9", hardmax), "character 5 (byte 0xc3) is not printable ASCII");
    CHECK_CONTAINS(refusal("n\n", hardmax), "character 2 (byte 0x0a)");
    CHECK_CONTAINS(refusal("n + 1", NULL), "no simulator");

    /* AR_EXPR_MAX_LEN characters compile, one more does not */
    char text[AR_EXPR_MAX_LEN + 2];
    memset(text, ' ', sizeof text);
    text[0] = '1';
    text[AR_EXPR_MAX_LEN - 1] = '2';
    text[AR_EXPR_MAX_LEN] = '\0';
    text[AR_EXPR_MAX_LEN / 2] = '+';
    CHECK(value_of(text) == 3);
    text[AR_EXPR_MAX_LEN] = ' ';
    text[AR_EXPR_MAX_LEN + 1] = '\0';
    CHECK(strcmp(refusal(text, hardmax), "longer than 1000 characters") == 0);

    /* a short buffer truncates, none at all is fine */
    char small[12];
    CHECK(ar_expr_compile("x + 1", hardmax, small, sizeof small) == NULL && strlen(small) == sizeof small - 1);
    CHECK(ar_expr_compile("x + 1", hardmax, NULL, 0) == NULL);
}

/* Two live expressions, evaluated in turn at different points, and failures between. */
static void independence(void)
{
    char why[256];
    ar_expr *a = ar_expr_compile("n + 1", hardmax, why, sizeof why);
    ar_expr *fails = ar_expr_compile("n +* 2", hardmax, why, sizeof why);
    ar_expr *b = ar_expr_compile("2 * d_h", hardmax, why, sizeof why);
    CHECK(a && b && !fails);
    if (!a || !b)
        return;
    ar_point p = at;
    for (int i = 1; i <= 5; ++i) {
        p.value[AR_HARDMAX_N] = 8 * i;
        p.value[AR_HARDMAX_D_H] = i;
        CHECK(ar_expr_eval(a, &p) == 8 * i + 1);
        CHECK(ar_expr_compile("x", hardmax, why, sizeof why) == NULL);
        CHECK(ar_expr_eval(b, &p) == 2 * i);
    }
    ar_expr_free(a);
    ar_expr_free(b);

    /* a failed compile leaves nothing behind */
    CHECK(ar_expr_compile("y +", hardmax, why, sizeof why) == NULL);
    CHECK_NEAR(value_of("n"), 16, 0);
    CHECK(ar_expr_compile("(", hardmax, why, sizeof why) == NULL);
    CHECK_NEAR(value_of("d_h * 2"), 8, 0);

    /* the text as given, copied */
    char text[] = "  n >= 4  ";
    ar_expr *e = ar_expr_compile(text, hardmax, why, sizeof why);
    CHECK(e && strcmp(ar_expr_text(e), "  n >= 4  ") == 0 && ar_expr_text(e) != text);
    text[2] = 'x';
    CHECK(e && strcmp(ar_expr_text(e), "  n >= 4  ") == 0);
    /* a point of another simulator is no point of this one */
    ar_point other;
    ar_point_defaults(ar_sim_find("softmax_rank"), &other);
    CHECK(e && isnan(ar_expr_eval(e, &other)) && ar_expr_eval(e, &at) == 1);
    CHECK(ar_expr_text(NULL) == NULL && isnan(ar_expr_eval(NULL, &at)));
    ar_expr_free(e);
    ar_expr_free(NULL);
}

/* Every registered simulator: its numeric parameters are names (no clash with e, pi
 * or a function) and read the point's values. */
static void every_simulator(void)
{
    int count;
    const ar_sim *const *sims = ar_sim_all(&count);
    CHECK(count >= 4);
    for (int s = 0; s < count; ++s) {
        ar_point p;
        ar_point_defaults(sims[s], &p);
        for (int i = 0; i < sims[s]->n_params; ++i) {
            const ar_param *param = &sims[s]->params[i];
            char why[256];
            ar_expr *e = ar_expr_compile(param->name, sims[s], why, sizeof why);
            if (param->type == AR_PARAM_CHOICE) {
                CHECK(!e);
                CHECK_CONTAINS(why, "is a choice parameter");
            } else {
                CHECK(e && ar_expr_eval(e, &p) == param->default_value);
                if (!e)
                    fprintf(stderr, "%s.%s: %s\n", sims[s]->name, param->name, why);
            }
            ar_expr_free(e);
        }
    }
}

/* Random garbage: pieces formulas are made of, and some they must not hold, strung
 * together at random. It compiles, or is refused with a message; never a crash (ASan
 * runs this suite). */
static void garbage(void)
{
    static const char *const pieces[] = {
        "n", "d_h", "rho", "x", "weights", "2", "0.5", "1e999", "e", "pi", " ", "+", "-", "*", "/", "^",
        "(", ")", "<", ">=", "==", "!=", "&&", "||", "?", ":", ",", "sqrt(", "min(", "log", "\"", "=",
        "$", ";", ".", "!"};
    const int n_pieces = (int)(sizeof pieces / sizeof pieces[0]);
    uint64_t state = 4357;
    int compiled = 0;
    for (int k = 0; k < 200; ++k) {
        char text[256] = "";
        state = state * 6364136223846793005u + 1442695040888963407u;
        int count = 1 + (int)(state >> 61); /* 1 to 8 pieces */
        for (int i = 0; i < count; ++i) {
            state = state * 6364136223846793005u + 1442695040888963407u;
            strcat(text, pieces[(state >> 33) % (uint64_t)n_pieces]);
        }
        char why[256] = "unset";
        ar_expr *e = ar_expr_compile(text, hardmax, why, sizeof why);
        if (e) {
            compiled++;
            (void)ar_expr_eval(e, &at);
            ar_expr_free(e);
        } else {
            CHECK(why[0] != '\0' && strcmp(why, "unset") != 0);
        }
    }
    printf("garbage: %d of 200 compiled\n", compiled);
    CHECK(compiled > 0 && compiled < 200);
}

int main(void)
{
    check_register_families();
    hardmax = ar_sim_find("hardmax_rank");
    if (!hardmax) {
        fprintf(stderr, "no hardmax_rank simulator\n");
        return 1;
    }
    ar_point_defaults(hardmax, &at);
    at.value[AR_HARDMAX_N] = 16;
    at.value[AR_HARDMAX_D_H] = 4;
    at.value[AR_HARDMAX_RHO] = 0.25;
    arithmetic();
    functions_and_constants();
    comparisons();
    choice_indicators();
    domain_edges();
    refusals();
    independence();
    every_simulator();
    garbage();
    return check_report("expression");
}

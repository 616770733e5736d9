/* theory/expression: formulas over a point's numeric parameters, parsed by muparser
 * 2.3 through its C interface (see expression.h).
 *
 * Every expression gets its own muparser handle, so one expression's names, error
 * state and bytecode never reach another. The names are ours alone: muparser's own
 * constants (_e, _pi) and functions (sin, rint, sum, ...; its log is natural in 2.3,
 * base 10 in its old SSE branch) are cleared and replaced by the tables below, so what
 * a formula means does not depend on the muparser installed. log2 is C's (muparser's
 * is log(x)/log(2), a bit off at powers of two).
 *
 * What muparser does that this module works around:
 *  - it parses on the first evaluation, so compile evaluates once (at the simulator's
 *    defaults) to report every error at compile;
 *  - a name it does not know reaches the variable factory (so do a function name
 *    without parentheses and a number strtod would overflow, "1e999"); the factory
 *    records it and compile refuses the expression by that name;
 *  - "n = 5" assigns to n and "\"abc\"" is a string: both are refused before parsing;
 *  - its error message, token and version strings share one static buffer: each is
 *    copied out before the next call, and compiling is not thread-safe;
 *  - its error positions count from 0 (ours from 1), and a trailing operator ("n +-")
 *    is its "Internal error".
 * A comparison chain 1 < 2 < 3 is (1 < 2) < 3. Numbers are read with muparser's own
 * C-like locale ('.' decimal point) whatever setlocale says. */
#define _XOPEN_SOURCE 700 /* M_E, M_PI */
#include "attnrank/expression.h"

#include <muParserDLL.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ar_expr {
    muParserHandle_t parser;
    const ar_sim *sim;
    char *text;
    /* muparser reads parameter i from bound[i] (ar_expr_eval copies a point in); the
     * variable factory points every unknown name at bound[AR_MAX_PARAMS]; after it come
     * the choice indicators, one per choice of each choice parameter in table order. A
     * pointer, so that eval can write through a const ar_expr. */
    double *bound;
    /* The first name the factory was asked for: compile refuses the expression by it. */
    char unknown[AR_EXPR_MAX_LEN + 1];
};

static double sign(double x) { return x > 0 ? 1 : x < 0 ? -1 : x; /* 0 and NaN stay */ }

/* min and max propagate NaN: a NaN parameter should not vanish into a bound. */
static double minimum(const double *x, int count)
{
    double m = count > 0 ? x[0] : NAN;
    for (int i = 1; i < count && !isnan(m); ++i)
        if (isnan(x[i]) || x[i] < m)
            m = x[i];
    return m;
}

static double maximum(const double *x, int count)
{
    double m = count > 0 ? x[0] : NAN;
    for (int i = 1; i < count && !isnan(m); ++i)
        if (isnan(x[i]) || x[i] > m)
            m = x[i];
    return m;
}

static const struct {
    const char *name;
    muFun1_t fun;
} unary_functions[] = {
    {"sqrt", sqrt}, {"exp", exp}, {"ln", log}, {"log", log} /* natural, like ln */,
    {"log2", log2}, {"log10", log10}, {"abs", fabs}, {"sign", sign},
    {"floor", floor}, {"ceil", ceil}, {"round", round} /* half away from zero */,
};

static const struct {
    const char *name;
    muMultFun_t fun;
} many_argument_functions[] = {{"min", minimum}, {"max", maximum}};

static const struct {
    const char *name;
    double value;
} constants[] = {{"e", M_E}, {"pi", M_PI}};

enum {
    N_UNARY = sizeof unary_functions / sizeof unary_functions[0],
    N_MANY = sizeof many_argument_functions / sizeof many_argument_functions[0],
    N_CONSTANTS = sizeof constants / sizeof constants[0],
    /* mu::ecINTERNAL_ERROR of muParserDef.h; the C interface has no name for it */
    MUPARSER_INTERNAL_ERROR = 39,
    /* tokens quoted in messages are cut to this many characters */
    TOKEN_SHOWN = 40,
};

static void say(char *why, size_t why_len, const char *format, ...)
{
    if (!why || !why_len)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(why, why_len, format, args);
    va_end(args);
}

/* Appends to a message built in pieces; truncates like snprintf. */
static void append(char *why, size_t why_len, const char *format, ...)
{
    if (!why || !why_len)
        return;
    size_t used = strlen(why);
    if (used + 1 >= why_len)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(why + used, why_len - used, format, args);
    va_end(args);
}

static int is_numeric(const ar_param *p) { return p->type == AR_PARAM_INT || p->type == AR_PARAM_REAL; }

/* What muparser must never see: refused with the character's position, 1-based. */
static int check_text(const char *text, char *why, size_t why_len)
{
    if (!text) {
        say(why, why_len, "empty expression");
        return -1;
    }
    size_t len = 0;
    while (len <= AR_EXPR_MAX_LEN && text[len])
        ++len;
    if (len > AR_EXPR_MAX_LEN) {
        say(why, why_len, "longer than %d characters", AR_EXPR_MAX_LEN);
        return -1;
    }
    int blank = 1;
    for (size_t i = 0; i < len; ++i) {
        unsigned char c = (unsigned char)text[i];
        if (c < 0x20 || c > 0x7e) {
            say(why, why_len, "character %zu (byte 0x%02x) is not printable ASCII", i + 1, c);
            return -1;
        }
        blank = blank && c == ' ';
    }
    if (blank) {
        say(why, why_len, "empty expression");
        return -1;
    }
    for (size_t i = 0; i < len; ++i) {
        if (text[i] == '"') {
            say(why, why_len, "character %zu starts a string: an expression holds numbers only", i + 1);
            return -1;
        }
        /* == <= >= != compare; a lone = (or +=, *=, ...) would assign to a parameter */
        if (strchr("<>!=", text[i]) && text[i + 1] == '=') {
            ++i;
            continue;
        }
        if (text[i] == '=') {
            say(why, why_len, "character %zu: '=' assigns; compare with '=='", i + 1);
            return -1;
        }
    }
    return 0;
}

/* Unknown names (see the file comment): all point at one sink; the first is kept. */
static muFloat_t *record_unknown(const muChar_t *name, void *data)
{
    ar_expr *e = data;
    if (!e->unknown[0])
        snprintf(e->unknown, sizeof e->unknown, "%s", name);
    return &e->bound[AR_MAX_PARAMS];
}

/* muparser's error, its message copied out of the shared buffer at once. */
static int failed(const ar_expr *e, const char *what, const char *name, char *why, size_t why_len)
{
    if (!mupError(e->parser))
        return 0;
    say(why, why_len, "muparser refused %s '%s': %s", what, name, mupGetErrorMsg(e->parser));
    return 1;
}

/* Choice indicators: NAME_CHOICE is 1 where choice parameter NAME is CHOICE, else 0
 * ("weights_tied"), so that a where can select choices. Visits each, in the order that
 * gives its slot in bound[]; the name is "" where it would not be a muparser name or
 * would shadow a parameter. Returns the number of slots. */
static int choice_indicators(const ar_sim *sim, void (*visit)(void *, int, int, int, const char *), void *data)
{
    int slot = AR_MAX_PARAMS + 1;
    for (int i = 0; i < sim->n_params && i < AR_MAX_PARAMS; ++i) {
        const ar_param *p = &sim->params[i];
        for (int c = 0; p->type == AR_PARAM_CHOICE && p->choices[c]; ++c, ++slot) {
            char name[128];
            int n = snprintf(name, sizeof name, "%s_%s", p->name, p->choices[c]);
            int ok = n > 0 && (size_t)n < sizeof name && ar_sim_param_index(sim, name) < 0;
            for (int k = 0; ok && name[k]; ++k)
                ok = (name[k] >= 'a' && name[k] <= 'z') || (name[k] >= 'A' && name[k] <= 'Z') ||
                     (name[k] >= '0' && name[k] <= '9') || name[k] == '_';
            if (visit)
                visit(data, slot, i, c, ok ? name : "");
        }
    }
    return slot;
}

typedef struct {
    ar_expr *e;
    int failed;
    char *why;
    size_t why_len;
} defining;

static int failed(const ar_expr *e, const char *what, const char *name, char *why, size_t why_len);

static void define_indicator(void *data, int slot, int param, int choice, const char *name)
{
    defining *d = data;
    (void)param, (void)choice;
    if (!name[0] || d->failed)
        return;
    mupDefineVar(d->e->parser, name, &d->e->bound[slot]);
    d->failed = failed(d->e, "the choice indicator", name, d->why, d->why_len);
}

typedef struct {
    const ar_point *point;
    double *bound;
} setting;

static void set_indicator(void *data, int slot, int param, int choice, const char *name)
{
    const setting *s = data;
    (void)name;
    s->bound[slot] = (int)s->point->value[param] == choice;
}

static int define_names(ar_expr *e, char *why, size_t why_len)
{
    muParserHandle_t h = e->parser;
    mupClearConst(h);
    mupClearFun(h);
    if (failed(e, "clearing", "its names", why, why_len))
        return -1;
    for (int i = 0; i < e->sim->n_params && i < AR_MAX_PARAMS; ++i)
        if (is_numeric(&e->sim->params[i])) {
            mupDefineVar(h, e->sim->params[i].name, &e->bound[i]);
            if (failed(e, "the parameter", e->sim->params[i].name, why, why_len))
                return -1;
        }
    defining d = {e, 0, why, why_len};
    choice_indicators(e->sim, define_indicator, &d);
    if (d.failed)
        return -1;
    for (int i = 0; i < N_CONSTANTS; ++i) {
        mupDefineConst(h, constants[i].name, constants[i].value);
        if (failed(e, "the constant", constants[i].name, why, why_len))
            return -1;
    }
    for (int i = 0; i < N_UNARY; ++i) {
        mupDefineFun1(h, unary_functions[i].name, unary_functions[i].fun, 1);
        if (failed(e, "the function", unary_functions[i].name, why, why_len))
            return -1;
    }
    for (int i = 0; i < N_MANY; ++i) {
        mupDefineMultFun(h, many_argument_functions[i].name, many_argument_functions[i].fun, 1);
        if (failed(e, "the function", many_argument_functions[i].name, why, why_len))
            return -1;
    }
    mupSetVarFactory(h, record_unknown, e);
    return failed(e, "the variable factory", "", why, why_len) ? -1 : 0;
}

static int is_function(const char *name)
{
    for (int i = 0; i < N_UNARY; ++i)
        if (strcmp(name, unary_functions[i].name) == 0)
            return 1;
    for (int i = 0; i < N_MANY; ++i)
        if (strcmp(name, many_argument_functions[i].name) == 0)
            return 1;
    return 0;
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether the first use of identifier `name` in text is a call: "foo(2)". Numbers are
 * skipped whole, so the e of 1e5 is no identifier. */
static int called(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = text; *p;) {
        if (!is_name_char(*p)) {
            ++p;
            continue;
        }
        const char *start = p;
        while (is_name_char(*p))
            ++p;
        if ((size_t)(p - start) == len && memcmp(start, name, len) == 0 && !(*start >= '0' && *start <= '9')) {
            while (*p == ' ')
                ++p;
            return *p == '(';
        }
    }
    return 0;
}

static void list_functions(char *why, size_t why_len)
{
    for (int i = 0; i < N_UNARY; ++i)
        append(why, why_len, "%s%s", i ? ", " : "", unary_functions[i].name);
    for (int i = 0; i < N_MANY; ++i)
        append(why, why_len, ", %s", many_argument_functions[i].name);
}

static void describe_unknown(const ar_expr *e, char *why, size_t why_len)
{
    const char *name = e->unknown;
    const ar_sim *sim = e->sim;
    if ((name[0] >= '0' && name[0] <= '9') || name[0] == '.') {
        say(why, why_len, "'%.*s' is not a number (malformed or out of range)", TOKEN_SHOWN, name);
        return;
    }
    int index = ar_sim_param_index(sim, name);
    if (index >= 0 && sim->params[index].type == AR_PARAM_CHOICE) {
        say(why, why_len, "'%s' is a choice parameter (", name);
        for (int c = 0; sim->params[index].choices[c]; ++c)
            append(why, why_len, "%s%s", c ? ", " : "", sim->params[index].choices[c]);
        append(why, why_len, "), not a number: %s_%s is 1 where %s is %s, else 0", name,
               sim->params[index].choices[0], name, sim->params[index].choices[0]);
        return;
    }
    if (is_function(name)) {
        say(why, why_len, "'%s' is a function: write %s(...)", name, name);
        return;
    }
    if (called(e->text, name)) {
        say(why, why_len, "unknown function '%.*s' (functions: ", TOKEN_SHOWN, name);
        list_functions(why, why_len);
        append(why, why_len, ")");
        return;
    }
    say(why, why_len, "unknown variable '%.*s' (%s's numeric parameters: ", TOKEN_SHOWN, name, sim->name);
    int listed = 0;
    for (int i = 0; i < sim->n_params; ++i)
        if (is_numeric(&sim->params[i]))
            append(why, why_len, "%s%s", listed++ ? ", " : "", sim->params[i].name);
    append(why, why_len, "%s; constants: e, pi)", listed ? "" : "none");
}

/* muparser's message without its " at position N" or " (position: N)" (0-based, and
 * ours is 1-based). */
static void drop_positions(char *msg)
{
    static const char *const phrases[] = {" found at position ", " at expression position ", " at position ",
                                          " (position: "};
    for (size_t k = 0; k < sizeof phrases / sizeof phrases[0]; ++k) {
        char *at;
        while ((at = strstr(msg, phrases[k]))) {
            char *end = at + strlen(phrases[k]);
            while (*end >= '0' && *end <= '9')
                ++end;
            if (phrases[k][1] == '(' && *end == ')')
                ++end;
            memmove(at, end, strlen(end) + 1);
        }
    }
}

static void describe_syntax_error(const ar_expr *e, char *why, size_t why_len)
{
    /* mupGetErrorToken and mupGetErrorMsg return the same static buffer */
    char token[TOKEN_SHOWN + 4], msg[2048 + 1]; /* muparser's buffer is 2048 */
    int code = mupGetErrorCode(e->parser), pos = mupGetErrorPos(e->parser);
    snprintf(msg, sizeof msg, "%s", mupGetErrorMsg(e->parser));
    const char *raw = mupGetErrorToken(e->parser);
    size_t len = strlen(raw);
    while (len && raw[len - 1] == ' ') /* muparser appends a space to the text */
        --len;
    if (len > TOKEN_SHOWN)
        snprintf(token, sizeof token, "%.*s...", TOKEN_SHOWN, raw);
    else
        snprintf(token, sizeof token, "%.*s", (int)len, raw);
    if (code == MUPARSER_INTERNAL_ERROR) {
        /* 2.3.3 says "Internal error" for an operator short of an operand ("1 +-", "-"),
         * its own note or the operator in the token; else an assertion failed in it
         * ("n ? 1 : -") */
        if (strstr(raw, "not enough values") || (len == 1 && strchr("+-*/^<>", raw[0])))
            snprintf(msg, sizeof msg, "an operator lacks an operand");
        else
            snprintf(msg, sizeof msg, "muparser's internal error (%s); is an operand missing?", token);
        token[0] = '\0';
    }
    /* muparser's message quotes the token whole, with that space: quote it as shown */
    char *quoted = token[0] ? strstr(msg, raw) : NULL;
    size_t raw_len = strlen(raw), shown = strlen(token);
    if (quoted && strlen(msg) - raw_len + shown < sizeof msg) {
        memmove(quoted + shown, quoted + raw_len, strlen(quoted + raw_len) + 1);
        memcpy(quoted, token, shown);
    }
    drop_positions(msg);
    mupErrorReset(e->parser);

    int text_len = (int)strlen(e->text);
    if (pos < 0)
        say(why, why_len, "syntax error: %s", msg);
    else if (pos >= text_len)
        say(why, why_len, "syntax error at the end: %s", msg);
    else if (token[0])
        say(why, why_len, "syntax error at '%s' (character %d): %s", token, pos + 1, msg);
    else
        say(why, why_len, "syntax error at character %d: %s", pos + 1, msg);
}

ar_expr *ar_expr_compile(const char *text, const ar_sim *sim, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (check_text(text, why, why_len) != 0)
        return NULL;
    if (!sim) {
        say(why, why_len, "no simulator to compile against");
        return NULL;
    }
    ar_expr *e = calloc(1, sizeof *e);
    size_t len = strlen(text);
    if (e) {
        e->sim = sim;
        e->text = malloc(len + 1);
        e->bound = calloc((size_t)choice_indicators(sim, NULL, NULL), sizeof *e->bound);
    }
    if (!e || !e->text || !e->bound || !(e->parser = mupCreate(muBASETYPE_FLOAT))) {
        say(why, why_len, "out of memory compiling an expression");
        ar_expr_free(e);
        return NULL;
    }
    memcpy(e->text, text, len + 1);
    /* the evaluation that forces the parse sees the simulator's defaults */
    for (int i = 0; i < sim->n_params && i < AR_MAX_PARAMS; ++i)
        e->bound[i] = sim->params[i].default_value;
    ar_point defaults;
    ar_point_defaults(sim, &defaults);
    choice_indicators(sim, set_indicator, &(setting){&defaults, e->bound});
    if (define_names(e, why, why_len) != 0) {
        ar_expr_free(e);
        return NULL;
    }

    /* mupError reads and clears the flag: one read per call */
    mupSetExpr(e->parser, e->text);
    int values = 0, parse_failed = mupError(e->parser);
    if (!parse_failed) {
        (void)mupEvalMulti(e->parser, &values);
        parse_failed = mupError(e->parser);
    }
    /* A name the factory saw comes first: it stands before any later syntax error. */
    if (e->unknown[0])
        describe_unknown(e, why, why_len);
    else if (parse_failed)
        describe_syntax_error(e, why, why_len);
    else if (values != 1)
        say(why, why_len, "gives %d values, not one (a comma separates function arguments only)", values);
    if (e->unknown[0] || parse_failed || values != 1) {
        ar_expr_free(e);
        return NULL;
    }
    return e;
}

double ar_expr_eval(const ar_expr *expr, const ar_point *point)
{
    if (!expr || !point || point->sim != expr->sim)
        return NAN;
    for (int i = 0; i < expr->sim->n_params && i < AR_MAX_PARAMS; ++i)
        if (is_numeric(&expr->sim->params[i]))
            expr->bound[i] = point->value[i];
    choice_indicators(expr->sim, set_indicator, &(setting){point, expr->bound});
    double value = mupEval(expr->parser);
    return mupError(expr->parser) ? NAN : value;
}

const char *ar_expr_text(const ar_expr *expr) { return expr ? expr->text : NULL; }

void ar_expr_free(ar_expr *expr)
{
    if (!expr)
        return;
    if (expr->parser)
        mupRelease(expr->parser);
    free(expr->bound);
    free(expr->text);
    free(expr);
}

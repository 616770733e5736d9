/* expression: a formula over a grid point's numeric parameters, as a user writes one
 * in a conjecture's prediction or where ("0.6 * n + 2", "d_h >= 4 && n > 8").
 *
 * Parsed by muparser (Debian's libmuparser-dev) behind this module alone: it has the
 * comparisons, && || and ?: that a `where` needs (GNU libmatheval has none), reports
 * the position and token of an error, and is maintained. Nothing else in attnrank
 * includes a muparser header.
 *
 * Names: every INT and REAL parameter of the simulator, the constants e and pi, and
 * the functions sqrt, exp, ln and log (both natural), log2, log10, abs, sign, floor,
 * ceil, round (half away from zero), min(a, b, ...) and max(a, b, ...); nothing else
 * (muparser's own sin, rint, sum, _pi, ... are cleared). A choice parameter is not a
 * number and is refused by name; its indicators are: NAME_CHOICE is 1 where NAME is
 * CHOICE, else 0 ("weights_tied && inputs_orthonormal"). Values are the parameters'
 * own, as the spec holds them: d = 0 (meaning d = n) reads as 0.
 *
 * Operators: + - * / ^ (right-associative and above unary minus: -2^2 = -4), < > <= >=
 * == != (1 or 0), && ||, c ? a : b. Refused: = (it would assign), strings, a comma
 * outside a function's arguments ("1, 2"). */
#ifndef ATTNRANK_EXPRESSION_H
#define ATTNRANK_EXPRESSION_H

#include <stddef.h>

#include "attnrank/sim.h"

enum { AR_EXPR_MAX_LEN = 1000 };

typedef struct ar_expr ar_expr;

/* Compile text against sim's parameters; every error is found here, none at eval.
 * Returns NULL with one line in why (when why_len > 0) that names the offending token,
 * characters counted from 1:
 *   "empty expression", "longer than 1000 characters",
 *   "character 7 (byte 0x09) is not printable ASCII",
 *   "character 5 starts a string: an expression holds numbers only",
 *   "character 3: '=' assigns; compare with '=='",
 *   "unknown variable 'x' (hardmax_rank's numeric parameters: n, d, ...; constants: e, pi)",
 *   "unknown function 'foo' (functions: sqrt, ...)", "'sqrt' is a function: write sqrt(...)",
 *   "'weights' is a choice parameter (independent, tied, correlated), not a number",
 *   "'1e999' is not a number (malformed or out of range)",
 *   "syntax error at '*' (character 4): <muparser's message>" (or "at the end: ..."),
 *   "gives 2 values, not one (...)".
 * Never crashes on any text. Not thread-safe: muparser keeps its error text in one
 * static buffer. */
ar_expr *ar_expr_compile(const char *text, const ar_sim *sim, char *why, size_t why_len);
/* Its value at a point of the same simulator (NaN at another simulator's point).
 * Domain errors give NaN or +-inf: 1/0 is inf, log(-1) NaN (the caller decides what
 * that means). Not thread-safe: an expression evaluates on one thread at a time
 * (conjectures are evaluated where the spec and judge run, serially). */
double ar_expr_eval(const ar_expr *expr, const ar_point *point);
/* The text it was compiled from, as given (the expression's own copy); NULL for NULL. */
const char *ar_expr_text(const ar_expr *expr);
/* NULL is fine. */
void ar_expr_free(ar_expr *expr);

#endif

/* toy/claims: T1-T3 for fair coins. */
#include "toy.h"

#include <math.h>

static int fair(const ar_point *p) { return ar_point_choice(p, AR_TOY_COIN) == AR_TOY_COIN_FAIR; }
static double mean_heads(const ar_point *p)
{
    return fair(p) ? ar_point_int(p, AR_TOY_N) * ar_point_real(p, AR_TOY_P) : NAN;
}
static double fraction(const ar_point *p) { return fair(p) ? ar_point_real(p, AR_TOY_P) : NAN; }
static double at_most_n(const ar_point *p) { return ar_point_int(p, AR_TOY_N); }

const ar_claim ar_toy_claims[] = {
    {.id = "T1", .sim = &ar_sim_coin_flips, .output = AR_TOY_OUT_HEADS, .statement = "E[heads] = n p",
     .formula = "n * p", .rule = AR_RULE_EQUALS, .predict = mean_heads, .rel_tol = 0.05},
    {.id = "T2", .sim = &ar_sim_coin_flips, .output = AR_TOY_OUT_FRACTION,
     .statement = "the fraction of heads tends to p as n grows", .formula = "p", .rule = AR_RULE_LIMIT,
     .predict = fraction, .rel_tol = 0.02, .trend_axis = "n", .rate_lo = 1, .rate_hi = 1},
    {.id = "T3", .sim = &ar_sim_coin_flips, .output = AR_TOY_OUT_HEADS, .statement = "heads <= n in every trial",
     .formula = "n", .rule = AR_RULE_EVERY_TRIAL, .predict = at_most_n},
};
const int ar_toy_claim_count = AR_COUNT(ar_toy_claims);

/* coin_flips: n coins per trial, each heads with probability p (p^2 for a bent coin). */
#include "toy.h"

static const char *const coins[] = {"fair", "bent", NULL};

static const ar_param params[] = {
    [AR_TOY_N] = {"n", AR_PARAM_INT, 16, 1, 100000, 0, NULL, "coins per trial"},
    [AR_TOY_P] = {"p", AR_PARAM_REAL, 0.5, 0, 1, 0, NULL, "probability of heads"},
    [AR_TOY_COIN] = {"coin", AR_PARAM_CHOICE, AR_TOY_COIN_FAIR, 0, 0, 0, coins,
                     "fair: heads with probability p; bent: with p^2 (a model the claims do not describe)"},
};

static int hist_to_n(const ar_point *p) { return ar_point_int(p, AR_TOY_N); }
static size_t workspace(const ar_point *p) { (void)p; return 0; }

static int trial(const ar_point *p, ar_rng *rng, void *ws, double *out)
{
    (void)ws;
    int n = ar_point_int(p, AR_TOY_N);
    double q = ar_point_real(p, AR_TOY_P);
    if (ar_point_choice(p, AR_TOY_COIN) == AR_TOY_COIN_BENT)
        q *= q;
    int heads = 0;
    for (int i = 0; i < n; ++i)
        heads += ar_rng_uniform(rng) < q;
    out[AR_TOY_OUT_HEADS] = heads;
    out[AR_TOY_OUT_FRACTION] = (double)heads / n;
    return 0;
}

static const ar_output outputs[] = {
    [AR_TOY_OUT_HEADS] = {"heads", "number of heads", hist_to_n},
    [AR_TOY_OUT_FRACTION] = {"fraction", "heads / n"},
};

const ar_sim ar_sim_coin_flips = {
    .name = "coin_flips",
    .summary = "n coin flips per trial (the tests' toy family)",
    AR_SIM_TABLES(params, outputs),
    .workspace_bytes = workspace,
    .trial = trial,
};

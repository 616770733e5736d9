/* verdict rules on hand-made summaries: every rule can say each of its verdicts. */
#include "attnrank/theory.h"
#include "check.h"

static ar_summary at(double mean, double half, long count)
{
    ar_summary s = {.count = count, .mean = mean, .sem = half / 1.96, .ci_lo = mean - half, .ci_hi = mean + half};
    return s;
}

static ar_verdict judge(const ar_claim *c, int n, const double *f, const ar_summary *est, const long *line,
                        const double *along, ar_judgement *j)
{
    ar_judge(c, n, f, est, 0, line, along, j);
    return j->verdict;
}

int main(void)
{
    ar_judgement j;
    const double f2[2] = {10, 10};
    ar_claim bound = {.id = "B", .rule = AR_RULE_UPPER_BOUND};
    ar_summary below[2] = {at(8, 1, 100), at(9, 0.5, 100)};
    CHECK(judge(&bound, 2, f2, below, NULL, NULL, &j) == AR_HOLDS && j.point == 1);
    ar_summary straddle[2] = {at(8, 1, 100), at(9.8, 0.5, 100)};
    CHECK(judge(&bound, 2, f2, straddle, NULL, NULL, &j) == AR_INCONCLUSIVE);
    ar_summary above[2] = {at(8, 1, 100), at(11, 0.5, 100)};
    CHECK(judge(&bound, 2, f2, above, NULL, NULL, &j) == AR_VIOLATED && j.point == 1);
    const double silent[2] = {NAN, NAN};
    CHECK(judge(&bound, 2, silent, above, NULL, NULL, &j) == AR_NOT_RUN);

    /* lower bound: the mirror image */
    ar_claim lower = {.id = "L", .rule = AR_RULE_LOWER_BOUND};
    const double zero2[2] = {0, 0};
    ar_summary positive[2] = {at(1, 0.5, 100), at(0.3, 0.2, 100)};
    CHECK(judge(&lower, 2, zero2, positive, NULL, NULL, &j) == AR_HOLDS && j.point == 1);
    ar_summary touching[2] = {at(1, 0.5, 100), at(0.1, 0.2, 100)};
    CHECK(judge(&lower, 2, zero2, touching, NULL, NULL, &j) == AR_INCONCLUSIVE);
    ar_summary negative[2] = {at(1, 0.5, 100), at(-1, 0.2, 100)};
    CHECK(judge(&lower, 2, zero2, negative, NULL, NULL, &j) == AR_VIOLATED && j.point == 1);

    /* every trial and witness read the largest value of every point */
    ar_claim every = {.id = "E", .rule = AR_RULE_EVERY_TRIAL}, witness = {.id = "W", .rule = AR_RULE_WITNESS};
    ar_summary spread[2] = {at(8, 1, 100), at(7, 1, 100)};
    spread[0].min = 6, spread[0].max = 9.5, spread[1].min = 5, spread[1].max = 9.9;
    CHECK(judge(&every, 2, f2, spread, NULL, NULL, &j) == AR_HOLDS && j.point == 1 && j.estimate == 9.9 &&
          j.ci_lo == 5);
    CHECK(judge(&witness, 2, f2, spread, NULL, NULL, &j) == AR_INCONCLUSIVE); /* none above 10: not disproved */
    spread[0].max = 10.5;
    CHECK(judge(&every, 2, f2, spread, NULL, NULL, &j) == AR_VIOLATED && j.point == 0 && j.estimate == 10.5);
    CHECK(judge(&witness, 2, f2, spread, NULL, NULL, &j) == AR_HOLDS && j.point == 0);

    ar_claim equal = {.id = "E", .rule = AR_RULE_EQUALS, .rel_tol = 0.05};
    ar_summary close[2] = {at(10.01, 0.05, 1000), at(9.99, 0.05, 1000)};
    CHECK(judge(&equal, 2, f2, close, NULL, NULL, &j) == AR_HOLDS);
    ar_summary off[2] = {at(10.5, 0.05, 1000), at(10, 0.05, 1000)};
    CHECK(judge(&equal, 2, f2, off, NULL, NULL, &j) == AR_VIOLATED && j.point == 0);
    ar_summary wide[2] = {at(10, 2, 1000), at(10, 2, 1000)};
    CHECK(judge(&equal, 2, f2, wide, NULL, NULL, &j) == AR_INCONCLUSIVE);

    /* Two lines along n = 8, 64, 512. */
    const long line[6] = {0, 0, 0, 1, 1, 1};
    const double n[6] = {8, 64, 512, 8, 64, 512}, one[6] = {1, 1, 1, 1, 1, 1};
    ar_claim limit = {.id = "L", .rule = AR_RULE_LIMIT, .rel_tol = 0.02, .trend_axis = "n"};
    ar_summary converging[6] = {at(1.2, 0.01, 50), at(1.05, 0.01, 50), at(1.01, 0.002, 50),
                                at(1.1, 0.01, 50), at(1.03, 0.01, 50), at(1.005, 0.002, 50)};
    CHECK(judge(&limit, 6, one, converging, line, n, &j) == AR_HOLDS && j.points == 4);
    ar_summary slow[6] = {at(1.2, 0.01, 50), at(1.1, 0.01, 50), at(1.05, 0.002, 50),
                          at(1.1, 0.01, 50), at(1.03, 0.01, 50), at(1.005, 0.002, 50)};
    CHECK(judge(&limit, 6, one, slow, line, n, &j) == AR_INCONCLUSIVE && j.point == 2);
    ar_summary diverging[6] = {at(1.01, 0.001, 50), at(1.1, 0.01, 50), at(1.3, 0.01, 50),
                               at(1.1, 0.01, 50), at(1.03, 0.01, 50), at(1.005, 0.002, 50)};
    CHECK(judge(&limit, 6, one, diverging, line, n, &j) == AR_VIOLATED);
    CHECK(judge(&limit, 6, one, converging, NULL, NULL, &j) == AR_NOT_RUN);

    /* Increasing, with an exact power law 3 n^0.5 on the first line. */
    ar_claim rising = {.id = "I", .rule = AR_RULE_INCREASING, .trend_axis = "n"};
    ar_summary power[6];
    for (int i = 0; i < 6; ++i)
        power[i] = at(3 * sqrt(n[i]) * (i < 3 ? 1 : 2), 0.01 * sqrt(n[i]), 100);
    CHECK(judge(&rising, 6, one, power, line, n, &j) == AR_HOLDS);
    CHECK_CONTAINS(j.rule, "b = 0.500 +- ");
    ar_claim falling = {.id = "D", .rule = AR_RULE_DECREASING, .trend_axis = "n"};
    CHECK(judge(&falling, 6, one, power, line, n, &j) == AR_VIOLATED);
    ar_summary flat[6] = {at(1, 0.1, 9), at(1, 0.1, 9), at(1.05, 0.1, 9), at(1, 0.1, 9), at(1, 0.1, 9), at(1, 0.1, 9)};
    CHECK(judge(&rising, 6, one, flat, line, n, &j) == AR_INCONCLUSIVE);
    return check_report("verdict");
}

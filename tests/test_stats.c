/* stats: summaries and histograms against hand values; failed trials are counted. */
#include "attnrank/stats.h"
#include "check.h"

int main(void)
{
    check_register_families();
    const double v[] = {1, 2, 3, 4};
    ar_summary s;
    ar_summarize(v, 4, &s);
    CHECK(s.count == 4 && s.failed == 0);
    CHECK_NEAR(s.mean, 2.5, 1e-15);
    CHECK_NEAR(s.std, 1.2909944487358056, 1e-15);
    CHECK_NEAR(s.sem, 0.6454972243679028, 1e-15);
    CHECK_NEAR(ar_t95(3), 3.182446305284263, 1e-12);
    CHECK_NEAR(s.ci_hi, 2.5 + 3.182446305284263 * 0.6454972243679028, 1e-12);
    CHECK(s.min == 1 && s.max == 4);

    const double with_failures[] = {1, NAN, 3, INFINITY};
    ar_summarize(with_failures, 4, &s);
    CHECK(s.count == 2 && s.failed == 2);
    CHECK_NEAR(s.mean, 2, 1e-15);

    const double none[] = {NAN, NAN};
    ar_summarize(none, 2, &s);
    CHECK(s.count == 0 && s.failed == 2 && isnan(s.mean) && isnan(s.ci_lo));
    ar_summarize(v, 1, &s);
    CHECK(s.count == 1 && s.mean == 1 && isnan(s.sem));

    /* Constant data: zero spread, exact interval. */
    const double flat[] = {7, 7, 7};
    ar_summarize(flat, 3, &s);
    CHECK(s.std == 0 && s.ci_lo == 7 && s.ci_hi == 7);

    long counts[5];
    const double ranks[] = {0, 1, 1, 4, 5, NAN, 2.5};
    ar_histogram(ranks, 7, 4, counts);
    CHECK(counts[0] == 1 && counts[1] == 2 && counts[2] == 0 && counts[3] == 0 && counts[4] == 1);
    CHECK_NEAR(ar_normal_quantile(0.975), 1.959963984540054, 1e-12);
    return check_report("stats");
}

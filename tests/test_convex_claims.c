/* Statistical check of the convex program on planted instances (fixed seed): for beta
 * between 0.01 and 0.05 of beta_max the convex solution's active set contains every
 * planted position in every one of 200 instances (N = 20, n = 6, d = 3, two planted
 * positions, noise 0.1), and the duality gap is certified below 1e-9 in each. */
#include "check.h"
#include "support.h"

enum { OUT_GAP = 1, OUT_ACTIVE = 2, OUT_FOUND = 4 };

int main(void)
{
    const double betas[] = {0.01, 0.02, 0.05};
    for (int b = 0; b < 3; ++b) {
        char text[512];
        snprintf(text, sizeof text,
                 "seed = 3; experiments = ( { name = \"p\"; simulator = \"convex_attention\"; trials = 200; N = 20; "
                 "n = 6; d = 3; planted = 2; noise = 0.1; starts = 0; beta = %g; } );",
                 betas[b]);
        ar_spec spec;
        load_spec(text, &spec);
        ar_summary found, gap, active;
        summarize_value(&spec, 0, OUT_FOUND, 2, &found);
        summarize_value(&spec, 0, OUT_GAP, 2, &gap);
        summarize_value(&spec, 0, OUT_ACTIVE, 2, &active);
        printf("beta = %.2f beta_max: planted positions found in %.0f of %ld instances, %.2f active on average, "
               "largest gap %.2g\n", betas[b], found.mean * found.count, found.count, active.mean, gap.max);
        CHECK(found.count == 200 && found.min == 1);
        CHECK(gap.max < 1e-9 && gap.min >= 0);
        CHECK(active.max <= 21);
        ar_spec_free(&spec);
    }
    return check_report("convex_claims");
}

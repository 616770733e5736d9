/* attention: softmax exact and finite at every scale; hardmax's tie rule. */
#include "attnrank/attention.h"
#include "check.h"

#include <float.h>

static int finite_stochastic(int rows, int cols, const double *a)
{
    for (int i = 0; i < rows; ++i) {
        double sum = 0;
        for (int j = 0; j < cols; ++j) {
            if (!isfinite(a[i * cols + j]) || a[i * cols + j] < 0)
                return 0;
            sum += a[i * cols + j];
        }
        if (fabs(sum - 1) > 1e-14)
            return 0;
    }
    return 1;
}

int main(void)
{
    check_register_families();
    const double scores[6] = {1, 2, 3, 3, 2, 1};
    double a[6];
    const double taus[] = {1e-300, 1e-6, 1, 1e6, 1e300, DBL_MAX};
    for (int t = 0; t < 6; ++t) {
        ar_softmax_rows(2, 3, scores, taus[t], a);
        CHECK(finite_stochastic(2, 3, a));
    }
    ar_softmax_rows(2, 3, scores, 1e-300, a); /* hardmax limit */
    CHECK(a[2] == 1 && a[0] == 0 && a[3] == 1);
    ar_softmax_rows(2, 3, scores, 1e300, a); /* uniform limit */
    CHECK_NEAR(a[0], 1.0 / 3, 1e-15);
    ar_softmax_rows(2, 3, scores, 1.0, a);
    double z = exp(-2) + exp(-1) + 1;
    CHECK_NEAR(a[0], exp(-2) / z, 1e-15);
    CHECK_NEAR(a[2], 1 / z, 1e-15);

    /* Extreme logits, a zero row, one token. */
    const double wild[6] = {1e300, -1e300, 0, 0, 0, 0};
    ar_softmax_rows(2, 3, wild, 1e-6, a);
    CHECK(finite_stochastic(2, 3, a) && a[0] == 1);
    CHECK_NEAR(a[4], 1.0 / 3, 1e-15);
    const double one = -5;
    ar_softmax_rows(1, 1, &one, 1e-300, a);
    CHECK(a[0] == 1);
    /* In place. */
    double inplace[3] = {0, 0, 0};
    ar_softmax_rows(1, 3, inplace, 1, inplace);
    CHECK_NEAR(inplace[1], 1.0 / 3, 1e-15);

    /* The vectorised exponential: within 2 ulp of libm's over [-708, 0], e^0 exactly 1,
     * zero below -708 and at -inf. */
    enum { SAMPLES = 200001 };
    static double xs[SAMPLES];
    for (int i = 0; i < SAMPLES; ++i)
        xs[i] = -708.0 * i / (SAMPLES - 1) * (i % 3 ? 1 : 1e-4); /* a third of them near 0 */
    static double ys[SAMPLES];
    memcpy(ys, xs, sizeof ys);
    ar_exp_nonpositive(ys, SAMPLES);
    double worst = 0;
    for (int i = 0; i < SAMPLES; ++i)
        worst = fmax(worst, fabs(ys[i] - exp(xs[i])) / exp(xs[i]));
    printf("ar_exp_nonpositive: worst error %.2f ulp over %d values\n", worst / DBL_EPSILON, SAMPLES);
    CHECK(worst <= 2 * DBL_EPSILON);
    double edges[5] = {0.0, -0.0, -708.5, -1e300, -INFINITY};
    ar_exp_nonpositive(edges, 5);
    CHECK(edges[0] == 1 && edges[1] == 1 && edges[2] == 0 && edges[3] == 0 && edges[4] == 0);

    int argmax[2];
    const double ties[6] = {5, 5, 1, 0, 7, 7};
    ar_argmax_rows(2, 3, ties, argmax);
    CHECK(argmax[0] == 0 && argmax[1] == 1);
    return check_report("attention");
}

/* theory/claims: the claim registry, and the names of verdicts and rules. */
#include "attnrank/theory.h"

#include <string.h>

extern const ar_claim ar_claim_h1, ar_claim_h2, ar_claim_h2_hull, ar_claim_h3, ar_claim_h4,
    ar_claim_h5a, ar_claim_h5b;
extern const ar_claim ar_claim_m1, ar_claim_m1rate, ar_claim_m3rate, ar_claim_m2, ar_claim_m2bound, ar_claim_m3, ar_claim_m4, ar_claim_m4rank,
    ar_claim_m4escape;
extern const ar_claim ar_claim_c1, ar_claim_c1opt, ar_claim_c1lower, ar_claim_c2, ar_claim_c2beta, ar_claim_c3;
extern const ar_claim ar_claim_s1, ar_claim_s2, ar_claim_s2ks, ar_claim_s3, ar_claim_s3edge, ar_claim_s3ks, ar_claim_s4,
    ar_claim_s4perp, ar_claim_s5, ar_claim_s5perp, ar_claim_s6, ar_claim_s6perp, ar_claim_s7,
    ar_claim_s7perp, ar_claim_s8;

static const ar_claim *const all_claims[] = {
    &ar_claim_h1, &ar_claim_h2, &ar_claim_h2_hull, &ar_claim_h3, &ar_claim_h4, &ar_claim_h5a, &ar_claim_h5b,
    &ar_claim_s1, &ar_claim_s2, &ar_claim_s2ks, &ar_claim_s3, &ar_claim_s3edge, &ar_claim_s3ks, &ar_claim_s4, &ar_claim_s4perp,
    &ar_claim_s5, &ar_claim_s5perp, &ar_claim_s6, &ar_claim_s6perp, &ar_claim_s7,
    &ar_claim_s7perp, &ar_claim_s8, &ar_claim_m1, &ar_claim_m1rate, &ar_claim_m2, &ar_claim_m2bound, &ar_claim_m3, &ar_claim_m3rate,
    &ar_claim_m4, &ar_claim_m4rank, &ar_claim_m4escape, &ar_claim_c1, &ar_claim_c1opt, &ar_claim_c1lower,
    &ar_claim_c2, &ar_claim_c2beta, &ar_claim_c3,
};

const ar_claim *const *ar_claims_all(int *count)
{
    *count = (int)(sizeof all_claims / sizeof all_claims[0]);
    return all_claims;
}

const ar_claim *ar_claim_find(const char *id)
{
    int count;
    const ar_claim *const *claims = ar_claims_all(&count);
    for (int i = 0; i < count; ++i)
        if (strcmp(claims[i]->id, id) == 0)
            return claims[i];
    return NULL;
}

static const char *const verdict_names[] = {"NOT RUN", "HOLDS", "VIOLATED", "INCONCLUSIVE", "MEASURED"};

const char *ar_verdict_name(ar_verdict v)
{
    return verdict_names[v];
}

const char *ar_rule_name(ar_rule rule)
{
    static const char *const names[] = {"bound",     "equality",    "limit",      "decreasing",
                                        "increasing", "reference", "lower bound", "every trial", "witness",
                                        "measure"};
    return names[rule];
}

int ar_verdict_parse(const char *name, ar_verdict *v)
{
    for (int i = AR_HOLDS; i <= AR_MEASURED; ++i) {
        if (strcmp(name, verdict_names[i]) == 0) {
            *v = (ar_verdict)i;
            return 0;
        }
    }
    return -1;
}

ar_verdict ar_claim_default_expectation(const ar_claim *claim)
{
    return claim->rule == AR_RULE_MEASURE ? AR_MEASURED : AR_HOLDS;
}

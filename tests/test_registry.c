/* registry: every family's tables walked once. Claims name their simulator by pointer
 * and their output by the family header's index (a name that cannot be misspelt); what
 * is left to check at run time is checked here: output indices in range, trend axes that
 * are parameters, unique ids, and simulator tables without holes (designated
 * initializers leave a hole zeroed, nameless), claims of the family's own simulators,
 * and that the default suite judges every claim that gives a verdict. A table with any
 * of those faults is refused when added. */
#include "attnrank/registry.h"
#include "attnrank/spec.h"
#include "check.h"

#include <stdio.h>

static double one(const ar_point *p)
{
    (void)p;
    return 1;
}

int main(void)
{
    check_register_families();
    int n_families;
    const ar_family *const *families = ar_families_all(&n_families);
    CHECK(n_families >= 4);
    int total = 0;
    for (int f = 0; f < n_families; ++f) {
        const ar_family *fam = families[f];
        char why[256] = "";
        for (int s = 0; fam->sims[s]; ++s) /* ln_equilibria once outgrew AR_MAX_OUTPUTS unnoticed */
            CHECK(ar_sim_fits_limits(fam->sims[s], why, sizeof why) == 0);
        CHECK(ar_claims_check(fam->claims, *fam->n_claims, why, sizeof why) == 0);
        if (why[0])
            fprintf(stderr, "%s: %s\n", fam->name, why);
        total += *fam->n_claims;
        for (int s = 0; fam->sims[s]; ++s) {
            const ar_sim *sim = fam->sims[s];
            CHECK(ar_family_of(sim) == fam && ar_sim_find(sim->name) == sim);
            CHECK(sim->n_params <= AR_MAX_PARAMS && sim->n_outputs <= AR_MAX_OUTPUTS);
            for (int i = 0; i < sim->n_params; ++i)
                CHECK(sim->params[i].name && sim->params[i].doc);
            for (int o = 0; o < sim->n_outputs; ++o)
                CHECK(sim->outputs[o].name && sim->outputs[o].description);
            /* every claim of the simulator predicts at its default point without trouble */
            ar_point p;
            ar_point_defaults(sim, &p);
            for (int c = 0; c < *fam->n_claims; ++c)
                if (fam->claims[c].sim == sim)
                    (void)fam->claims[c].predict(&p);
        }
        for (int c = 0; c < *fam->n_claims; ++c)
            CHECK(ar_claim_find(fam->claims[c].id) == &fam->claims[c]);
    }
    int count;
    ar_claims_all(&count);
    CHECK(count == total);

    /* `attnrank verify` judges every built-in claim that gives a verdict (references and
     * nothing else are left out), so a new family's claims cannot be forgotten there. */
    extern const char ar_verify_spec[];
    ar_spec spec;
    char err[512];
    CHECK(ar_spec_load_text(ar_verify_spec, "verify.cfg", NULL, NULL, 0, &spec, err) == 0);
    for (int f = 0; f < n_families; ++f)
        for (int c = 0; c < *families[f]->n_claims; ++c) {
            const ar_claim *claim = &families[f]->claims[c];
            int judged = claim->rule == AR_RULE_REFERENCE;
            for (int e = 0; e < spec.n_experiments && !judged; ++e)
                for (int k = 0; k < spec.experiments[e].n_claims; ++k)
                    judged |= spec.experiments[e].claims[k] == claim;
            if (!judged)
                fprintf(stderr, "claim %s is not judged by verify.cfg\n", claim->id);
            CHECK(judged);
        }
    ar_spec_free(&spec);

    /* Faulty tables are refused, each with its reason. */
    const ar_sim *sim = families[0]->sims[0];
    ar_claim bad[2] = {{.id = "X1", .sim = sim, .output = sim->n_outputs, .statement = "s", .formula = "f",
                        .rule = AR_RULE_UPPER_BOUND, .predict = one}};
    static const ar_sim *const none[] = {NULL};
    int one_claim = 1, two_claims = 2;
    ar_family toy = {"toy", "none", none, bad, &one_claim, NULL};
    char why[256];
    CHECK(ar_registry_add(&toy, why, sizeof why) == -1);
    CHECK_CONTAINS(why, "is not one of");
    bad[0].output = 0, bad[0].rule = AR_RULE_LIMIT, bad[0].trend_axis = "no_such_parameter";
    CHECK(ar_registry_add(&toy, why, sizeof why) == -1);
    CHECK_CONTAINS(why, "trend axis");
    bad[0].rule = AR_RULE_STEEPER, bad[0].trend_axis = sim->params[0].name; /* steeper without its other axis */
    CHECK(ar_registry_add(&toy, why, sizeof why) == -1);
    CHECK_CONTAINS(why, "versus axis");
    bad[0].versus_axis = sim->params[0].name; /* ...or against itself */
    CHECK(ar_registry_add(&toy, why, sizeof why) == -1);
    CHECK_CONTAINS(why, "other than its trend axis");
    bad[0].rule = AR_RULE_UPPER_BOUND, bad[0].trend_axis = NULL, bad[0].versus_axis = NULL;
    bad[1] = bad[0];
    toy.n_claims = &two_claims;
    CHECK(ar_registry_add(&toy, why, sizeof why) == -1);
    CHECK_CONTAINS(why, "listed twice");
    toy.n_claims = &one_claim;
    CHECK(ar_registry_add(&toy, why, sizeof why) == -1); /* a claim of a simulator not in the family */
    CHECK_CONTAINS(why, "not one of family toy's simulators");
    const ar_sim *own[] = {sim, NULL};
    toy.sims = own;
    bad[0].id = families[0]->claims[0].id; /* a name taken by a built-in claim */
    CHECK(ar_registry_add(&toy, why, sizeof why) == -1);
    CHECK_CONTAINS(why, "registered already");
    return check_report("registry");
}

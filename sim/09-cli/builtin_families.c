/* builtin_families: the claim families this program is built with, registered the way a
 * test registers its toy family: one row each (docs/development.md, "Adding a claim
 * family"). */
#include "attnrank/builtin_families.h"

#include "attnrank/registry.h"
#include "convex/convex.h"
#include "hardmax/hardmax.h"
#include "markov/markov.h"
#include "masks/masks.h"

static const ar_sim *const hardmax_sims[] = {&ar_sim_hardmax_rank, &ar_sim_softmax_rank, &ar_sim_hardmax_saturation,
                                              NULL};
static const ar_sim *const markov_sims[] = {&ar_sim_markov_spectrum, &ar_sim_width_collapse, &ar_sim_depth_collapse,
                                            NULL};
static const ar_sim *const masks_sims[] = {&ar_sim_mask_dynamics, &ar_sim_ln_equilibria, NULL};
static const ar_sim *const convex_sims[] = {&ar_sim_convex_attention, NULL};

static const ar_family builtin[] = {
    {"hardmax", "Min & Li, On the Efficiency of Transformers: The Effect of Attention Rank", hardmax_sims,
     ar_hardmax_claims, &ar_hardmax_claim_count, "plots/hardmax.py"},
    {"markov", "Naderi, Nait Saada, Tanner, Mind the Gap (arXiv 2410.07799)", markov_sims, ar_markov_claims,
     &ar_markov_claim_count, "plots/markov.py"},
    {"masks", "Wu, Ajorlou, Wang, Jegelka, Jadbabaie, Masks and LayerNorm (arXiv 2405.18781)", masks_sims,
     ar_masks_claims, &ar_masks_claim_count, "plots/masks.py"},
    {"convex", "Ergen, Neyshabur, Mehta, Convexifying Transformers (arXiv 2211.11052)", convex_sims,
     ar_convex_claims, &ar_convex_claim_count, "plots/convex.py"},
};


int ar_builtin_families_register(char *why, size_t why_len)
{
    static int registered;
    if (registered)
        return 0;
    for (int i = 0; i < AR_COUNT(builtin); ++i)
        if (ar_registry_add(&builtin[i], why, why_len) < 0)
            return -1;
    registered = 1;
    return 0;
}

/* hardmax/family: the family as the program registers it (its simulators, its claim
 * table, its figures); sim/05-families/meson.build lists the folder, and the registration
 * table is generated from that list. */
#include "hardmax/hardmax.h"

static const ar_sim *const sims[] = {&ar_sim_hardmax_rank, &ar_sim_softmax_rank, &ar_sim_hardmax_saturation, NULL};

const ar_family ar_family_hardmax = {"hardmax", "Min & Li, On the Efficiency of Transformers: The Effect of Attention Rank", sims,
                                 ar_hardmax_claims, &ar_hardmax_claim_count, "sim/05-families/hardmax/hardmax.py"};

/* convex/family: the family as the program registers it (its simulators, its claim
 * table, its figures); sim/05-families/meson.build lists the folder, and the registration
 * table is generated from that list. */
#include "convex/convex.h"

static const ar_sim *const sims[] = {&ar_sim_convex_attention, NULL};

const ar_family ar_family_convex = {"convex", "Ergen, Neyshabur, Mehta, Convexifying Transformers (arXiv 2211.11052)", sims,
                                 ar_convex_claims, &ar_convex_claim_count, "sim/05-families/convex/convex.py"};

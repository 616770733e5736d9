/* toy/family: the toy family as its program registers it, in the shape of a built-in
 * family's family.c (sim/05-families/<family>/family.c). */
#include "toy.h"

static const ar_sim *const sims[] = {&ar_sim_coin_flips, NULL};

const ar_family ar_family_toy = {"toy", "none: the tests' example of a claim family", sims, ar_toy_claims,
                                 &ar_toy_claim_count, NULL /* no figure script */};

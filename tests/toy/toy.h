/* families/toy (tests only): the smallest claim family, to show the path a new family
 * takes. A trial flips n coins that land heads with probability p; the claims say the
 * mean count is n p, the fraction of heads tends to p, and no trial has more than n
 * heads. The folder has a built-in family's shape (sim/05-families/<family>/): one
 * header (this), the simulator (toy_sim.c), the claim table (claims.c), the family it
 * exports (family.c: ar_family_toy), and a runs spec (toy.cfg). Being the tests' own, it
 * is not in the program's list of families: its program (toy_main.c) registers it after
 * the built-in ones, and tests/meson.build builds that program. */
#ifndef ATTNRANK_FAMILIES_TOY_H
#define ATTNRANK_FAMILIES_TOY_H

#include "attnrank/sim.h"
#include "attnrank/theory.h"

enum { AR_TOY_N, AR_TOY_P, AR_TOY_COIN };        /* parameters */
enum { AR_TOY_COIN_FAIR, AR_TOY_COIN_BENT };     /* choices of coin: p as given, or p^2 */
enum { AR_TOY_OUT_HEADS, AR_TOY_OUT_FRACTION };  /* outputs */

extern const ar_sim ar_sim_coin_flips;
extern const ar_claim ar_toy_claims[];
extern const int ar_toy_claim_count;
extern const ar_family ar_family_toy;

#endif

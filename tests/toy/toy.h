/* families/toy (tests only): the smallest claim family, to show the path a new family
 * takes. A trial flips n coins that land heads with probability p; the claims say the
 * mean count is n p, the fraction of heads tends to p, and no trial has more than n
 * heads. One header (this), one simulator file (toy_sim.c), one theory file
 * (toy_theory.c), one registry row (toy_main.c registers it as the program registers
 * the built-in families' rows, sim/09-cli/builtin_families.c), their meson lines and a
 * runs spec (toy.cfg). */
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

#endif

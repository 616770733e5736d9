/* markov/family: the family as the program registers it (its simulators, its claim
 * table, its figures); sim/05-families/meson.build lists the folder, and the registration
 * table is generated from that list. */
#include "markov/markov.h"

static const ar_sim *const sims[] = {&ar_sim_markov_spectrum, &ar_sim_width_collapse, &ar_sim_depth_collapse, NULL};

const ar_family ar_family_markov = {"markov", "Naderi, Nait Saada, Tanner, Mind the Gap (arXiv 2410.07799)", sims,
                                 ar_markov_claims, &ar_markov_claim_count, "sim/05-families/markov/markov.py"};

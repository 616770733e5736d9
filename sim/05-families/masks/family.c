/* masks/family: the family as the program registers it (its simulators, its claim
 * table, its figures); sim/05-families/meson.build lists the folder, and the registration
 * table is generated from that list. */
#include "masks/masks.h"

static const ar_sim *const sims[] = {&ar_sim_mask_dynamics, &ar_sim_ln_equilibria, NULL};

const ar_family ar_family_masks = {"masks", "Wu, Ajorlou, Wang, Jegelka, Jadbabaie, Masks and LayerNorm (arXiv 2405.18781)", sims,
                                 ar_masks_claims, &ar_masks_claim_count, "sim/05-families/masks/masks.py"};

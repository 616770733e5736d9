/* families/masks: the masks and LayerNorm family (Wu, Ajorlou, Wang, Jegelka,
 * Jadbabaie, arXiv 2405.18781; claims M1-M4). Its simulators are mask_dynamics and
 * ln_equilibria (sim/05-families/), its claims are in sim/05-families/masks/claims.c. The indices below
 * are the simulators' parameter, choice and output tables (designated initializers
 * there), shared with the theory; mask kinds are numerics' (mask.h). */
#ifndef ATTNRANK_FAMILIES_MASKS_H
#define ATTNRANK_FAMILIES_MASKS_H

#include "attnrank/sim.h"
#include "attnrank/theory.h"

/* mask_dynamics: parameters, choices, outputs. */
enum {
    AR_MASKDYN_N, AR_MASKDYN_D, AR_MASKDYN_LAYERS, AR_MASKDYN_MASK, AR_MASKDYN_W, AR_MASKDYN_STRIDE,
    AR_MASKDYN_GLOBALS, AR_MASKDYN_P, AR_MASKDYN_INIT, AR_MASKDYN_SCALE, AR_MASKDYN_VALUE,
    AR_MASKDYN_NORM, AR_MASKDYN_ROUTE, AR_MASKDYN_WEIGHTS,
};
enum { AR_MASKDYN_INIT_GAUSSIAN, AR_MASKDYN_INIT_ORTHONORMAL, AR_MASKDYN_INIT_HEMISPHERE };
enum { AR_MASKDYN_VALUE_GAUSSIAN, AR_MASKDYN_VALUE_ORTHOGONAL, AR_MASKDYN_VALUE_IDENTITY };
enum { AR_MASKDYN_NORM_NONE, AR_MASKDYN_NORM_SPHERE, AR_MASKDYN_NORM_LAYERNORM };
enum { AR_MASKDYN_ROUTE_AUTO, AR_MASKDYN_ROUTE_DENSE, AR_MASKDYN_ROUTE_SPARSE };
enum { AR_MASKDYN_WEIGHTS_SHARED, AR_MASKDYN_WEIGHTS_PER_LAYER };
enum {
    AR_MASKDYN_OUT_MU, AR_MASKDYN_OUT_MU_REL, AR_MASKDYN_OUT_NUMRANK, AR_MASKDYN_OUT_MIN_WEIGHT,
    AR_MASKDYN_OUT_RATE, AR_MASKDYN_OUT_COLLAPSE_LAYER, AR_MASKDYN_OUT_COLLAPSED,
    AR_MASKDYN_OUT_BOUND_RATIO, AR_MASKDYN_OUT_RADIUS, AR_MASKDYN_OUT_EDGES,
    AR_MASKDYN_OUT_APRIORI_FRACTION, AR_MASKDYN_OUT_APRIORI_RATE, AR_MASKDYN_OUT_RATE_RATIO,
};

/* ln_equilibria: parameters, choices, outputs. */
enum {
    AR_EQUILIBRIA_N, AR_EQUILIBRIA_D, AR_EQUILIBRIA_RANK, AR_EQUILIBRIA_MASK, AR_EQUILIBRIA_SCALE,
    AR_EQUILIBRIA_VALUE, AR_EQUILIBRIA_LAYERS,
};
enum { AR_EQUILIBRIA_VALUE_WITNESS, AR_EQUILIBRIA_VALUE_IDENTITY, AR_EQUILIBRIA_VALUE_ORTHOGONAL,
       AR_EQUILIBRIA_VALUE_GAUSSIAN, AR_EQUILIBRIA_VALUE_TWO_TOKEN, AR_EQUILIBRIA_VALUE_FAMILY };
/* The six witness outputs in this order (ln_equilibria's store_certificate), then the
 * end-state classes of the dynamics from a random start. */
enum {
    AR_EQUILIBRIA_OUT_WITNESS_RESIDUAL, AR_EQUILIBRIA_OUT_WITNESS_RANK,
    AR_EQUILIBRIA_OUT_WITNESS_RADIUS, AR_EQUILIBRIA_OUT_WITNESS_ATTRACTING,
    AR_EQUILIBRIA_OUT_WITNESS_MIN_WEIGHT, AR_EQUILIBRIA_OUT_WITNESS_CERTIFIED,
    AR_EQUILIBRIA_OUT_COLLAPSED, AR_EQUILIBRIA_OUT_METASTABLE, AR_EQUILIBRIA_OUT_ESCAPED,
    AR_EQUILIBRIA_OUT_UNSETTLED, AR_EQUILIBRIA_OUT_END_MIN_WEIGHT, AR_EQUILIBRIA_OUT_LIMIT_RANK,
    AR_EQUILIBRIA_OUT_LIMIT_RADIUS, AR_EQUILIBRIA_OUT_LIMIT_RESIDUAL, AR_EQUILIBRIA_OUT_LIMIT_DISTANCE,
    AR_EQUILIBRIA_OUT_FAMILY_MISSING, AR_EQUILIBRIA_OUT_FAMILY_CERTIFIED, AR_EQUILIBRIA_OUT_FAMILY_ATTRACTING,
    AR_EQUILIBRIA_OUT_FAMILY_RESIDUAL,
    AR_EQUILIBRIA_OUT_COUNT, /* the scalars end here: out[] by the enum up to this point */
    AR_EQUILIBRIA_OUT_FAMILY_CERTIFIED_BY_RANK = AR_EQUILIBRIA_OUT_COUNT, AR_EQUILIBRIA_OUT_FAMILY_ATTRACTING_BY_RANK
};

extern const ar_sim ar_sim_mask_dynamics, ar_sim_ln_equilibria;

/* Whether the mask of a mask_dynamics point has a directed spanning tree: 1 or 0, from
 * the mask's definition; -1 for random masks (drawn per trial). */
int ar_mask_connected(const ar_point *point);

/* The family's claims (sim/05-families/masks/claims.c). */
extern const ar_claim ar_masks_claims[];
extern const int ar_masks_claim_count;
/* The family, as the program registers it (family.c). */
extern const ar_family ar_family_masks;

#endif

/* registry: the claim families this build knows. A family (one paper) is its
 * simulators and its claim table; list, verify, the report and the figure scripts read
 * the registry. The program registers the built-in families (builtin_families.h), a
 * test its toy family (tests/toy/), the same way. */
#ifndef ATTNRANK_REGISTRY_H
#define ATTNRANK_REGISTRY_H

#include <stddef.h>

#include "attnrank/sim.h"
#include "attnrank/theory.h"

const ar_family *const *ar_families_all(int *count);
/* Every simulator of every registered family, and one by name (NULL: none). */
const ar_sim *const *ar_sim_all(int *count);
const ar_sim *ar_sim_find(const char *name);
/* Every claim of every registered family, and one by id (NULL: none). */
const ar_claim *const *ar_claims_all(int *count);
const ar_claim *ar_claim_find(const char *id);
/* The family a simulator belongs to, NULL if none. */
const ar_family *ar_family_of(const ar_sim *sim);
/* Add a family: its claim table is checked
 * (ar_claims_check) and its simulator and claim names must be new. Returns 0, or -1
 * with the reason in why. Call before reading any spec; not thread-safe. */
int ar_registry_add(const ar_family *family, char *why, size_t why_len);
/* 0, or -1 with a message when a simulator has more parameters or outputs than AR_MAX_PARAMS,
 * AR_MAX_OUTPUTS. */
int ar_sim_fits_limits(const ar_sim *sim, char *why, size_t why_len);

#endif

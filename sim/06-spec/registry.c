/* registry: the claim families registered (their simulators and claim tables), each
 * table checked as it is added. */
#include "attnrank/registry.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The families registered, in the order they were (the program registers the built-in
 * ones first: sim/09-cli/builtin_families.c, generated from the list of families in
 * sim/05-families/meson.build; a test its toy family after them). */
enum { MAX_FAMILIES = 16, MAX_SIMS = 64, MAX_CLAIMS = 256 };
static const ar_family *families[MAX_FAMILIES];
static int n_families;
static const ar_sim *sims[MAX_SIMS];
static const ar_claim *claims[MAX_CLAIMS];
static int n_sims, n_claims;

static int index_family(const ar_family *f)
{
    if (n_families >= MAX_FAMILIES)
        return -1;
    int s = 0, c = 0;
    while (f->sims[s])
        s++;
    c = *f->n_claims;
    if (n_sims + s > MAX_SIMS || n_claims + c > MAX_CLAIMS)
        return -1;
    families[n_families++] = f;
    for (int i = 0; i < s; ++i)
        sims[n_sims++] = f->sims[i];
    for (int i = 0; i < c; ++i)
        claims[n_claims++] = &f->claims[i];
    return 0;
}

/* A family's claims speak of its own simulators. */
static int claims_in_family(const ar_family *family, char *why, size_t why_len)
{
    for (int c = 0; c < *family->n_claims; ++c) {
        int found = 0;
        for (int s = 0; family->sims[s]; ++s)
            found |= family->claims[c].sim == family->sims[s];
        if (!found) {
            snprintf(why, why_len, "claim %s is about %s, which is not one of family %s's simulators",
                     family->claims[c].id, family->claims[c].sim ? family->claims[c].sim->name : "(none)",
                     family->name);
            return -1;
        }
    }
    return 0;
}

/* A simulator's tables fit the fixed-size arrays every point and layout keeps
 * (AR_MAX_PARAMS, AR_MAX_OUTPUTS): more would be written past them silently. */
int ar_sim_fits_limits(const ar_sim *sim, char *why, size_t why_len)
{
    if (sim->n_params > AR_MAX_PARAMS || sim->n_outputs > AR_MAX_OUTPUTS) {
        snprintf(why, why_len, "simulator %s has %d parameters and %d outputs: at most %d and %d", sim->name,
                 sim->n_params, sim->n_outputs, AR_MAX_PARAMS, AR_MAX_OUTPUTS);
        return -1;
    }
    return 0;
}

int ar_registry_add(const ar_family *family, char *why, size_t why_len)
{
    for (int i = 0; family->sims[i]; ++i)
        if (ar_sim_fits_limits(family->sims[i], why, why_len) < 0)
            return -1;
    if (ar_claims_check(family->claims, *family->n_claims, why, why_len) < 0 ||
        claims_in_family(family, why, why_len) < 0)
        return -1;
    for (int i = 0; family->sims[i]; ++i)
        if (ar_sim_find(family->sims[i]->name)) {
            snprintf(why, why_len, "simulator %s is registered already", family->sims[i]->name);
            return -1;
        }
    for (int i = 0; i < *family->n_claims; ++i)
        if (ar_claim_find(family->claims[i].id)) {
            snprintf(why, why_len, "claim %s is registered already", family->claims[i].id);
            return -1;
        }
    if (index_family(family) < 0) {
        snprintf(why, why_len, "the registry is full");
        return -1;
    }
    return 0;
}

const ar_family *const *ar_families_all(int *count)
{
    *count = n_families;
    return families;
}

const ar_family *ar_family_of(const ar_sim *sim)
{
    for (int f = 0; f < n_families; ++f)
        for (int i = 0; families[f]->sims[i]; ++i)
            if (families[f]->sims[i] == sim)
                return families[f];
    return NULL;
}

const ar_sim *const *ar_sim_all(int *count)
{
    *count = n_sims;
    return sims;
}

const ar_sim *ar_sim_find(const char *name)
{
    for (int i = 0; i < n_sims; ++i)
        if (strcmp(sims[i]->name, name) == 0)
            return sims[i];
    return NULL;
}

const ar_claim *const *ar_claims_all(int *count)
{
    *count = n_claims;
    return claims;
}

const ar_claim *ar_claim_find(const char *id)
{
    for (int i = 0; i < n_claims; ++i)
        if (strcmp(claims[i]->id, id) == 0)
            return claims[i];
    return NULL;
}

/* registry: the claim families this build knows (their simulators and claim tables),
 * and the point helpers every simulator shares. */
#include "attnrank/registry.h"

#include "attnrank/families/convex.h"
#include "attnrank/families/hardmax.h"
#include "attnrank/families/markov.h"
#include "attnrank/families/masks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The families, one row each: adding a family is a header, a simulator file, a theory
 * file and a row here (README, "Adding a claim family"). */
static const ar_sim *const hardmax_sims[] = {&ar_sim_hardmax_rank, &ar_sim_softmax_rank, NULL};
static const ar_sim *const markov_sims[] = {&ar_sim_markov_spectrum, &ar_sim_width_collapse, &ar_sim_depth_collapse,
                                            NULL};
static const ar_sim *const masks_sims[] = {&ar_sim_mask_dynamics, &ar_sim_ln_equilibria, NULL};
static const ar_sim *const convex_sims[] = {&ar_sim_convex_attention, NULL};

static const ar_family builtin[] = {
    {"hardmax", "Min & Li, On the Efficiency of Transformers: The Effect of Attention Rank", hardmax_sims,
     ar_hardmax_claims, &ar_hardmax_claim_count, "plots/hardmax.py"},
    {"markov", "Naderi, Nait Saada, Tanner, Mind the Gap (arXiv 2410.07799)", markov_sims, ar_markov_claims,
     &ar_markov_claim_count, "plots/markov.py"},
    {"masks", "Wu, Ajorlou, Wang, Jegelka, Jadbabaie, Masks and LayerNorm (arXiv 2405.18781)", masks_sims,
     ar_masks_claims, &ar_masks_claim_count, "plots/masks.py"},
    {"convex", "Ergen, Neyshabur, Mehta, Convexifying Transformers (arXiv 2211.11052)", convex_sims,
     ar_convex_claims, &ar_convex_claim_count, "plots/convex.py"},
};

/* Families added at run time (a test's toy family) follow the built-in ones. */
enum { MAX_FAMILIES = 16, MAX_SIMS = 64, MAX_CLAIMS = 256 };
static const ar_family *families[MAX_FAMILIES];
static int n_families = -1;
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

static void index_builtin(void)
{
    if (n_families >= 0)
        return;
    n_families = 0;
    for (int i = 0; i < AR_COUNT(builtin); ++i)
        index_family(&builtin[i]);
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
    index_builtin();
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
    index_builtin();
    *count = n_families;
    return families;
}

const ar_family *ar_family_of(const ar_sim *sim)
{
    index_builtin();
    for (int f = 0; f < n_families; ++f)
        for (int i = 0; families[f]->sims[i]; ++i)
            if (families[f]->sims[i] == sim)
                return families[f];
    return NULL;
}

const ar_sim *const *ar_sim_all(int *count)
{
    index_builtin();
    *count = n_sims;
    return sims;
}

const ar_sim *ar_sim_find(const char *name)
{
    index_builtin();
    for (int i = 0; i < n_sims; ++i)
        if (strcmp(sims[i]->name, name) == 0)
            return sims[i];
    return NULL;
}

const ar_claim *const *ar_claims_all(int *count)
{
    index_builtin();
    *count = n_claims;
    return claims;
}

const ar_claim *ar_claim_find(const char *id)
{
    index_builtin();
    for (int i = 0; i < n_claims; ++i)
        if (strcmp(claims[i]->id, id) == 0)
            return claims[i];
    return NULL;
}

int ar_sim_param_index(const ar_sim *sim, const char *name)
{
    for (int i = 0; i < sim->n_params; ++i)
        if (strcmp(sim->params[i].name, name) == 0)
            return i;
    return -1;
}

int ar_choice_index(const ar_param *param, const char *name)
{
    for (int i = 0; param->choices && param->choices[i]; ++i)
        if (strcmp(param->choices[i], name) == 0)
            return i;
    return -1;
}

double ar_point_value(const ar_point *point, const char *name)
{
    int i = ar_sim_param_index(point->sim, name);
    return i < 0 ? NAN : point->value[i];
}

void ar_point_defaults(const ar_sim *sim, ar_point *point)
{
    memset(point, 0, sizeof *point);
    point->sim = sim;
    for (int i = 0; i < sim->n_params; ++i)
        point->value[i] = sim->params[i].default_value;
}

uint64_t ar_point_key(const ar_point *point)
{
    const ar_sim *sim = point->sim;
    uint64_t h = ar_hash_bytes(0, sim->name, strlen(sim->name));
    for (int i = 0; i < sim->n_params; ++i) {
        const ar_param *p = &sim->params[i];
        if (p->how_only)
            continue;
        h = ar_hash_bytes(h, p->name, strlen(p->name));
        if (p->type == AR_PARAM_CHOICE) {
            const char *choice = p->choices[(int)point->value[i]];
            h = ar_hash_bytes(h, choice, strlen(choice));
        } else {
            double v = point->value[i] == 0.0 ? 0.0 : point->value[i]; /* -0 is 0 */
            h = ar_hash_bytes(h, &v, sizeof v);
        }
    }
    return h;
}

void ar_point_describe(const ar_point *point, const int *which, int count, char *buf, size_t len)
{
    const ar_sim *sim = point->sim;
    size_t used = 0;
    buf[0] = '\0';
    int total = which ? count : sim->n_params;
    for (int k = 0; k < total && used < len; ++k) {
        int i = which ? which[k] : k;
        const ar_param *p = &sim->params[i];
        const char *sep = k ? " " : "";
        int wrote;
        if (p->type == AR_PARAM_CHOICE)
            wrote = snprintf(buf + used, len - used, "%s%s=%s", sep, p->name,
                             p->choices[(int)point->value[i]]);
        else
            wrote = snprintf(buf + used, len - used, "%s%s=%.6g", sep, p->name, point->value[i]);
        if (wrote < 0)
            break;
        used += (size_t)wrote;
    }
}

/* attnrank with the toy family: its registry row, added after the built-in ones before
 * the command line runs, as the program adds those. */
#include <stdio.h>

#include "attnrank/builtin_families.h"
#include "attnrank/cli.h"
#include "attnrank/registry.h"
#include "toy.h"

static const ar_sim *const toy_sims[] = {&ar_sim_coin_flips, NULL};
static const ar_family toy = {"toy", "none: the tests' example of a claim family", toy_sims, ar_toy_claims,
                              &ar_toy_claim_count, NULL};

int main(int argc, char **argv)
{
    char why[256];
    if (ar_builtin_families_register(why, sizeof why) != 0 || ar_registry_add(&toy, why, sizeof why) != 0) {
        fprintf(stderr, "toy family: %s\n", why);
        return 2;
    }
    return ar_cli_main(argc, argv);
}

/* attnrank with the toy family: ar_family_toy (family.c), added after the built-in ones
 * before the command line runs, as the program adds those. */
#include <stdio.h>

#include "attnrank/builtin_families.h"
#include "attnrank/cli.h"
#include "attnrank/registry.h"
#include "toy.h"

int main(int argc, char **argv)
{
    char why[256];
    if (ar_builtin_families_register(why, sizeof why) != 0 || ar_registry_add(&ar_family_toy, why, sizeof why) != 0) {
        fprintf(stderr, "toy family: %s\n", why);
        return 2;
    }
    return ar_cli_main(argc, argv);
}

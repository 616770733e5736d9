/* attnrank: the command-line program, a thin client of the library (cli.h): it registers
 * the built-in families, then hands over to the command line. */
#include <stdio.h>

#include "attnrank/builtin_families.h"
#include "attnrank/cli.h"

int main(int argc, char **argv)
{
    char why[256];
    if (ar_builtin_families_register(why, sizeof why) != 0) {
        fprintf(stderr, "attnrank: built-in families: %s\n", why);
        return 2;
    }
    return ar_cli_main(argc, argv);
}

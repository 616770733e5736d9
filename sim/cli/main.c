/* attnrank: the command-line program, a thin client of the library (cli.h). */
#include "attnrank/cli.h"

int main(int argc, char **argv)
{
    return ar_cli_main(argc, argv);
}

/* cli: the attnrank command line (list, run, verify, merge, plan, info, mutants,
 * report), as a library function, so that a program that adds a claim family at run
 * time (registry.h; the tests' toy family) gets the whole command line for it. */
#ifndef ATTNRANK_CLI_H
#define ATTNRANK_CLI_H

/* Runs one command line (argv[0] is the program) and returns its exit status. Starts
 * and ends MPI in an MPI build; call at most once per process. */
int ar_cli_main(int argc, char **argv);

#endif

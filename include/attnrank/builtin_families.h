/* builtin_families: the claim families this program is built with (the list in
 * sim/05-families/meson.build, from which the table is generated). The program registers
 * them before its command line runs; tests and benchmarks that read specs of built-in
 * simulators do the same. */
#ifndef ATTNRANK_BUILTIN_FAMILIES_H
#define ATTNRANK_BUILTIN_FAMILIES_H

#include <stddef.h>

/* Registers each built-in family once (ar_registry_add); 0, or -1 with why. Further
 * calls do nothing. */
int ar_builtin_families_register(char *why, size_t why_len);

#endif

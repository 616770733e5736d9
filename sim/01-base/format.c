/* format: numbers for people (format.h). */
#include "attnrank/format.h"

#include <stdio.h>

void ar_format_bytes(double bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024 && u < 5)
        bytes /= 1024, u++;
    /* three significant digits, never an exponent: 1000 KiB, not 1e+03 KiB */
    snprintf(buf, len, u == 0 || bytes >= 100 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
}


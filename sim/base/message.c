/* message: the one format of attnrank's error lines (message.h). */
#include "attnrank/message.h"

#include <stdio.h>

void ar_message(char *err, size_t len, const char *at, const char *field, const char *msg)
{
    if (field)
        snprintf(err, len, "%.300s: %.60s: %s", at, field, msg);
    else
        snprintf(err, len, "%.300s: %s", at, msg);
    for (char *c = err; *c; ++c)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
}

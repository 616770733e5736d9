/* message: the one format of attnrank's error lines (message.h). */
#include "attnrank/message.h"

#include <stdio.h>

void ar_message(char *err, size_t len, const char *at, const char *field, const char *msg)
{
    if (field)
        snprintf(err, len, "%.400s: %.60s: %s", at, field, msg);
    else
        snprintf(err, len, "%.400s: %s", at, msg);
    for (char *c = err; *c; ++c)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
}

int ar_message_vfail(char *err, size_t len, const char *at, const char *field, const char *fmt, va_list args)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, args);
    ar_message(err, len, at, field, msg);
    return -1;
}

int ar_message_fail(char *err, size_t len, const char *at, const char *field, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    ar_message_vfail(err, len, at, field, fmt, args);
    va_end(args);
    return -1;
}

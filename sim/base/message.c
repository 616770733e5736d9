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

const char *ar_message_control(const char *text)
{
    for (const char *c = text; c && *c; ++c)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return c;
    return NULL;
}

void ar_message_print(FILE *f, const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; c && *c; ++c) {
        if (*c == '\n' || *c == '\t' || *c == '\r')
            fprintf(f, "\\%c", *c == '\n' ? 'n' : *c == '\t' ? 't' : 'r');
        else if (*c < 0x20 || *c == 0x7f)
            fprintf(f, "\\x%02x", *c);
        else
            fputc(*c, f);
    }
}

int ar_message_fail(char *err, size_t len, const char *at, const char *field, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    ar_message_vfail(err, len, at, field, fmt, args);
    va_end(args);
    return -1;
}

/* message: the one format of attnrank's error lines (message.h). */
#include "attnrank/message.h"

#include <stdio.h>

/* The bytes of an invisible character at c in UTF-8, with its code point, or 0: the C1
 * controls U+0080..U+009F (a terminal may obey them), the bidi controls U+202A..U+202E
 * and U+2066..U+2069 (they reorder what is shown) and the zero-width U+200B..U+200F,
 * U+2060 and U+FEFF (they hide what is there). */
static int invisible(const unsigned char *c, unsigned *code)
{
    if (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) {
        *code = c[1];
        return 2;
    }
    if ((c[0] != 0xe2 && c[0] != 0xef) || (c[1] & 0xc0) != 0x80 || (c[2] & 0xc0) != 0x80)
        return 0;
    *code = (unsigned)(c[0] & 0x0f) << 12 | (unsigned)(c[1] & 0x3f) << 6 | (c[2] & 0x3f);
    unsigned u = *code;
    return (u >= 0x200b && u <= 0x200f) || (u >= 0x202a && u <= 0x202e) || u == 0x2060 ||
                   (u >= 0x2066 && u <= 0x2069) || u == 0xfeff
               ? 3
               : 0;
}

void ar_message(char *err, size_t len, const char *at, const char *field, const char *msg)
{
    char raw[1024]; /* AR_ERR_LEN */
    if (field)
        snprintf(raw, sizeof raw, "%.400s: %.60s: %s", at, field, msg);
    else
        snprintf(raw, sizeof raw, "%.400s: %s", at, msg);
    size_t k = 0;
    unsigned code;
    for (const unsigned char *c = (const unsigned char *)raw; *c && k + 1 < len;) {
        int n = invisible(c, &code);
        if (n) { /* named by its code point, never shown */
            int w = snprintf(err + k, len - k, "\\u{%04x}", code);
            if (w < 0 || (size_t)w >= len - k)
                break;
            k += (size_t)w, c += n;
        } else {
            err[k++] = *c < 0x20 || *c == 0x7f ? ' ' : (char)*c;
            ++c;
        }
    }
    if (len)
        err[k] = '\0';
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
    unsigned code;
    for (const char *c = text; c && *c; ++c)
        if ((unsigned char)*c < 0x20 || *c == 0x7f || invisible((const unsigned char *)c, &code))
            return c;
    return NULL;
}

/* The length of the well-formed UTF-8 character at c (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0. */
static int utf8_length(const unsigned char *c)
{
    int n = c[0] < 0x80 ? 1 : c[0] >= 0xc2 && c[0] <= 0xdf ? 2 : c[0] >= 0xe0 && c[0] <= 0xef ? 3
            : c[0] >= 0xf0 && c[0] <= 0xf4 ? 4 : 0;
    unsigned char low = c[0] == 0xe0 ? 0xa0 : c[0] == 0xf0 ? 0x90 : 0x80; /* the second byte's range */
    unsigned char high = c[0] == 0xed ? 0x9f : c[0] == 0xf4 ? 0x8f : 0xbf;
    for (int k = 1; k < n; ++k)
        if (c[k] < (k == 1 ? low : 0x80) || c[k] > (k == 1 ? high : 0xbf))
            return 0;
    return n;
}

size_t ar_message_escape(const char *text, char *out)
{
    const unsigned char *c = (const unsigned char *)text;
    unsigned code;
    int n = invisible(c, &code);
    out[0] = '\0';
    if (n) {
        snprintf(out, AR_ESCAPE_LEN, "\\u{%04x}", code);
        return (size_t)n;
    }
    if (*c == '\n' || *c == '\t' || *c == '\r')
        snprintf(out, AR_ESCAPE_LEN, "\\%c", *c == '\n' ? 'n' : *c == '\t' ? 't' : 'r');
    else if (*c < 0x20 || *c == 0x7f || !(n = utf8_length(c)))
        snprintf(out, AR_ESCAPE_LEN, "\\x%02x", *c);
    return n ? (size_t)n : 1;
}

void ar_message_print(FILE *f, const char *text)
{
    char escaped[AR_ESCAPE_LEN];
    while (text && *text) {
        size_t n = ar_message_escape(text, escaped);
        if (escaped[0])
            fputs(escaped, f);
        else
            fwrite(text, 1, n, f);
        text += n;
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

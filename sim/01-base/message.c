/* message: the one format of attnrank's error lines (message.h). */
#include "attnrank/message.h"

#include <stdio.h>

/* The code points never shown as they are: the C1 controls U+0080..U+009F (a terminal may
 * obey them), and every code point of general category Cf (format: the bidi controls
 * such as U+061C and U+202E reorder what is shown, the zero-width ones hide what is
 * there), Zl and Zp (U+2028, U+2029 break lines in many terminals) or Default_Ignorable_
 * Code_Point (DerivedCoreProperties.txt: Hangul fillers, U+034F, variation selectors,
 * tags). Derived from Unicode 14 (Python's unicodedata) plus the Egyptian format controls
 * U+13439..U+1343F of Unicode 15; sorted, for a binary search. */
static const unsigned INVISIBLE[][2] = {
    {0x0080, 0x009f}, {0x00ad, 0x00ad}, {0x034f, 0x034f}, {0x0600, 0x0605}, {0x061c, 0x061c},
    {0x06dd, 0x06dd}, {0x070f, 0x070f}, {0x0890, 0x0891}, {0x08e2, 0x08e2}, {0x115f, 0x1160},
    {0x17b4, 0x17b5}, {0x180b, 0x180f}, {0x200b, 0x200f}, {0x2028, 0x202e}, {0x2060, 0x206f},
    {0x3164, 0x3164}, {0xfe00, 0xfe0f}, {0xfeff, 0xfeff}, {0xffa0, 0xffa0}, {0xfff0, 0xfffb},
    {0x110bd, 0x110bd}, {0x110cd, 0x110cd}, {0x13430, 0x1343f}, {0x1bca0, 0x1bca3},
    {0x1d173, 0x1d17a}, {0xe0000, 0xe0fff},
};

static int utf8_length(const unsigned char *c);

/* The bytes of an invisible character (above) at c in UTF-8, with its code point, or 0. */
static int invisible(const unsigned char *c, unsigned *code)
{
    int n = utf8_length(c);
    if (n < 2)
        return 0;
    unsigned u = c[0] & (0x7f >> n);
    for (int k = 1; k < n; ++k)
        u = u << 6 | (c[k] & 0x3f);
    size_t lo = 0, hi = sizeof INVISIBLE / sizeof INVISIBLE[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (u > INVISIBLE[mid][1])
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == sizeof INVISIBLE / sizeof INVISIBLE[0] || u < INVISIBLE[lo][0])
        return 0;
    *code = u;
    return n;
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

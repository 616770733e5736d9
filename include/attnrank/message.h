/* message: the one format of attnrank's error lines: "WHERE: FIELD: WHAT" (WHERE a file
 * and line, or a file, FIELD a spec field or an option), one printable line. */
#ifndef ATTNRANK_MESSAGE_H
#define ATTNRANK_MESSAGE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* The size of an error buffer (char *err): every refusal fits in it. */
enum { AR_ERR_LEN = 1024 };

/* Formats into err (len bytes); field may be NULL. Control characters (a name from a
 * hostile file) become blanks, so the message stays one line. */
void ar_message(char *err, size_t len, const char *at, const char *field, const char *msg);
/* The same with the message formatted (printf); returns -1, a refusal's status. Every
 * module's refusal helper (the spec's, the conjectures', the store's) comes here. */
int ar_message_fail(char *err, size_t len, const char *at, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int ar_message_vfail(char *err, size_t len, const char *at, const char *field, const char *fmt, va_list args);

/* The first control character of text (a byte below 0x20, or 0x7f, or in UTF-8 a C1
 * control or an invisible character: format (Cf), line and paragraph separators, default
 * ignorable code points; message.c's table), or NULL: what a spec's title and
 * statements may not hold. */
const char *ar_message_control(const char *text);
/* Writes text to f with each control character escaped (\n, \t, \r, \xNN; C1 and
 * invisible characters, ar_message_control's, as \u{XXXX}; each byte that is not part
 * of well-formed UTF-8 as \xNN): the one way text from a file or spec reaches a terminal (an ESC would drive it,
 * a U+202E reorder what is shown). ar_message's lines name those characters the same
 * way. */
void ar_message_print(FILE *f, const char *text);
/* The escape ar_message_print writes for the character at text (not at its end): into out
 * (AR_ESCAPE_LEN bytes), or "" when the character is shown as it is; returns the bytes of
 * text it spans. The report page escapes file text with it too. */
enum { AR_ESCAPE_LEN = 12 };
size_t ar_message_escape(const char *text, char *out);

#endif

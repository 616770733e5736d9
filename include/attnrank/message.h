/* message: the one format of attnrank's error lines: "WHERE: FIELD: WHAT" (WHERE a file
 * and line, or a file, FIELD a spec field or an option), one printable line. */
#ifndef ATTNRANK_MESSAGE_H
#define ATTNRANK_MESSAGE_H

#include <stddef.h>

/* Formats into err (len bytes); field may be NULL. Control characters (a name from a
 * hostile file) become blanks, so the message stays one line. */
void ar_message(char *err, size_t len, const char *at, const char *field, const char *msg);

#endif

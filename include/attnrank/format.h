/* format: numbers written for people to read. */
#ifndef ATTNRANK_FORMAT_H
#define ATTNRANK_FORMAT_H

#include <stddef.h>

/* A size for people, in the unit that shows its digits: "512 B", "1.5 KiB", "3.2 GiB". */
void ar_format_bytes(double bytes, char *buf, size_t len);

#endif

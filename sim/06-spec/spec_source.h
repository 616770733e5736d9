/* spec_source: a spec's text as libconfig is to read it.
 *
 * libconfig 1.5 reads an integer literal without the L suffix as 32 bits and wraps it
 * silently (4294967297 reads as 1, 2147483648 as -2147483648), and it reads @include
 * files itself, where no check reaches them. So the text is lexed here first, by
 * libconfig's own token rules: each @include line is replaced by the file it names (a
 * map keeps every line's file and line for messages), every integer literal gets the L
 * suffix (libconfig's 64-bit path) and one outside int64 is refused, a UTF-8 byte-order
 * mark is skipped, and the spec with all it includes is held to AR_SPEC_MAX_BYTES.
 * Strings and comments (#, //, slash-star) pass unchanged; libconfig never opens a file. */
#ifndef ATTNRANK_SPEC_SOURCE_H
#define ATTNRANK_SPEC_SOURCE_H

#include <stddef.h>

#include "attnrank/message.h"

enum { AR_SPEC_MAX_BYTES = 1 << 20, AR_SPEC_MAX_INCLUDE_DEPTH = 10 };

/* A stretch of the expanded text's lines that came from one file, in order. */
typedef struct {
    int first_line; /* its first line in the expanded text */
    int file;       /* index into files */
    int line;       /* that line's number in the file */
} ar_spec_segment;

typedef struct {
    char *text; /* the expanded text, for config_read_string */
    size_t len, cap;
    int lines; /* lines of text so far (1 + newlines) */
    ar_spec_segment *segments;
    int n_segments, cap_segments;
    char **files; /* [0] the label, then each included file as opened */
    int n_files, cap_files;
    const char *include_dir; /* NULL: the spec is no file, it cannot include */
    size_t bytes;            /* of the spec and what it included so far */
    /* Why ar_spec_source_read failed: where ("file:line"), the field if known, what. */
    char error_at[320];
    char error_field[64];
    char error[512];
} ar_spec_source;

/* Lexes text, labelled label (the spec's file name) with @include names relative to
 * include_dir. Returns 0, or -1 with error_at, error_field and error set; free either way. */
int ar_spec_source_read(ar_spec_source *src, const char *text, const char *label, const char *include_dir);
/* "file:line" of a line of src->text. */
void ar_spec_source_locate(const ar_spec_source *src, int line, char *buf, size_t len);
void ar_spec_source_free(ar_spec_source *src);

/* Reads a spec file into *text (NUL-terminated; the caller frees it), at most max + 1
 * bytes, so *len > max says it is too large. Returns 0, or -1 with why, a phrase about
 * `what` (the file as messages call it): "cannot read WHAT: it is a directory", ... */
int ar_spec_read_file(const char *path, const char *what, size_t max, char **text, size_t *len, char *why,
                      size_t why_len);

#endif

/* spec_source: includes expanded, integer literals made 64-bit, before libconfig reads. */
#define _POSIX_C_SOURCE 200809L
#include "spec_source.h"

#include "attnrank/regular_file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int refuse(ar_spec_source *src, int file, int line, const char *field, const char *fmt, ...)
{
    snprintf(src->error_at, sizeof src->error_at, "%.300s:%d", src->files[file], line);
    snprintf(src->error_field, sizeof src->error_field, "%s", field ? field : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(src->error, sizeof src->error, fmt, ap);
    va_end(ap);
    return -1;
}

static int out_of_memory(ar_spec_source *src)
{
    snprintf(src->error_at, sizeof src->error_at, "%.300s", src->n_files ? src->files[0] : "spec");
    src->error_field[0] = '\0';
    snprintf(src->error, sizeof src->error, "out of memory");
    return -1;
}

/* Grows an array of n used elements to hold one more; 0, or -1 (the old block kept). */
static int reserve(void **items, int n, int *cap, size_t size)
{
    if (n < *cap)
        return 0;
    int grown = *cap ? 2 * *cap : 8;
    void *bigger = realloc(*items, (size_t)grown * size);
    if (!bigger)
        return -1;
    *items = bigger;
    *cap = grown;
    return 0;
}

static int append(ar_spec_source *src, const char *s, size_t n)
{
    if (src->len + n + 1 > src->cap) {
        size_t grown = src->cap ? src->cap : 4096;
        while (grown < src->len + n + 1)
            grown *= 2;
        char *bigger = realloc(src->text, grown);
        if (!bigger)
            return out_of_memory(src);
        src->text = bigger;
        src->cap = grown;
    }
    memcpy(src->text + src->len, s, n);
    src->len += n;
    src->text[src->len] = '\0';
    for (const char *nl = memchr(s, '\n', n); nl; nl = memchr(nl + 1, '\n', n - (size_t)(nl + 1 - s)))
        src->lines++;
    return 0;
}

/* From here on, the expanded text's lines are file's, starting at its line `line`. */
static int begin_segment(ar_spec_source *src, int file, int line)
{
    if (reserve((void **)&src->segments, src->n_segments, &src->cap_segments, sizeof *src->segments))
        return out_of_memory(src);
    src->segments[src->n_segments++] = (ar_spec_segment){src->lines, file, line};
    return 0;
}

static int add_file(ar_spec_source *src, const char *name)
{
    char *copy = strdup(name);
    if (!copy || reserve((void **)&src->files, src->n_files, &src->cap_files, sizeof *src->files)) {
        free(copy);
        return -1;
    }
    src->files[src->n_files] = copy;
    return src->n_files++;
}

int ar_spec_read_file(const char *path, const char *what, size_t max, char **text, size_t *len, char *why,
                      size_t why_len)
{
    *text = NULL;
    *len = 0;
    /* a FIFO, a socket or a directory is refused at once (a FIFO's open() would wait) */
    char reason[128];
    int open_failed = 0;
    int fd = ar_open_regular(path, O_RDONLY, reason, sizeof reason, &open_failed);
    if (fd < 0) {
        snprintf(why, why_len, "cannot %s %s: %s", open_failed ? "open" : "read", what, reason);
        return -1;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        snprintf(why, why_len, "cannot open %s: %s", what, strerror(errno));
        close(fd);
        return -1;
    }
    /* max + 1 bytes: the caller sees a file over its limit without reading all of it. */
    char *buf = malloc(max + 2);
    if (!buf) {
        fclose(f);
        snprintf(why, why_len, "out of memory");
        return -1;
    }
    size_t n = fread(buf, 1, max + 1, f);
    int read_errno = ferror(f) ? errno : 0;
    fclose(f);
    if (read_errno) {
        free(buf);
        snprintf(why, why_len, "cannot read %s: %s", what, strerror(read_errno));
        return -1;
    }
    if (memchr(buf, '\0', n)) {
        free(buf);
        snprintf(why, why_len, "%s contains NUL bytes: a binary file, not a libconfig spec", what);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

static int is_name_start(char c)
{
    return isalpha((unsigned char)c) || c == '*';
}

static int is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '*';
}

/* End of an exponent [eE][-+]?[0-9]+ starting at i, or i if there is none. */
static size_t exponent_end(const char *s, size_t i)
{
    if (s[i] != 'e' && s[i] != 'E')
        return i;
    size_t j = i + 1;
    if (s[j] == '-' || s[j] == '+')
        j++;
    if (!isdigit((unsigned char)s[j]))
        return i;
    while (isdigit((unsigned char)s[j]))
        j++;
    return j;
}

/* The number token at i, by flex's longest match over libconfig 1.5's rules (integer,
 * integer64, hex, hex64, float). Returns its end; *integer says whether it is an
 * integer literal, *suffix where its L or LL suffix begins (== end when it has none). */
static size_t number_end(const char *s, size_t i, int *integer, size_t *suffix)
{
    size_t j = i;
    if (s[j] == '-' || s[j] == '+')
        j++;
    size_t end;
    *integer = 0;
    if (j == i && s[j] == '0' && (s[j + 1] == 'x' || s[j + 1] == 'X') && isxdigit((unsigned char)s[j + 2])) {
        end = j + 2;
        while (isxdigit((unsigned char)s[end]))
            end++;
        *integer = 1;
    } else {
        end = j;
        while (isdigit((unsigned char)s[end]))
            end++;
        int digits = end > j;
        if (s[end] == '.') { /* a float: [0-9]*\.[0-9]*, then an exponent if one follows */
            end++;
            while (isdigit((unsigned char)s[end]))
                end++;
            return exponent_end(s, end);
        }
        if (!digits)
            return i + 1; /* a lone sign: not a number, libconfig's to refuse */
        size_t e = exponent_end(s, end);
        if (e > end)
            return e;
        *integer = 1;
    }
    *suffix = end;
    if (s[end] == 'L') {
        end++;
        if (s[end] == 'L')
            end++;
    }
    return end;
}

/* Does the literal s[i..end) (sign, digits or 0x digits, no suffix) fit in int64? */
static int fits_int64(const char *s, size_t i, size_t end)
{
    char digits[64];
    size_t n = 0;
    if (s[i] == '-' || s[i] == '+')
        digits[n++] = s[i++];
    int hex = end - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X'); /* "0x" alone is 0, then x */
    i += hex ? 2 : 0;
    while (i + 1 < end && s[i] == '0') /* leading zeros: any number of them */
        i++;
    if (end - i >= sizeof digits - n)
        return 0;
    memcpy(digits + n, s + i, end - i);
    digits[n + end - i] = '\0';
    errno = 0;
    if (hex) {
        unsigned long long v = strtoull(digits, NULL, 16);
        return errno == 0 && v <= (unsigned long long)INT64_MAX;
    }
    (void)strtoll(digits, NULL, 10);
    return errno == 0;
}

static int lex_file(ar_spec_source *src, int file, const char *s, int depth);

/* An @include line: s[*at] is the opening quote of the name. Expands the file in place
 * and leaves *at after the closing quote. */
static int include_file(ar_spec_source *src, int file, int line, const char *s, size_t *at, int depth)
{
    char name[1024];
    size_t n = 0, i = *at + 1;
    for (; s[i] != '"'; ++i) {
        char c = s[i];
        if (c == '\0' || c == '\n')
            return refuse(src, file, line, NULL, "@include: the file name must be one quoted line");
        if (c == '\\') { /* libconfig's escapes in include names: \\ and \" */
            if (s[i + 1] != '\\' && s[i + 1] != '"')
                return refuse(src, file, line, NULL, "@include: a backslash in the file name must be \\\\ or \\\"");
            c = s[++i];
        }
        if (n + 1 >= sizeof name)
            return refuse(src, file, line, NULL, "@include: the file name is longer than %zu bytes", sizeof name - 1);
        name[n++] = c;
    }
    name[n] = '\0';
    *at = i + 1;
    if (n == 0)
        return refuse(src, file, line, NULL, "@include \"\": names no file");
    if (!src->include_dir)
        return refuse(src, file, line, NULL, "@include \"%s\": only a spec read from a file can include files", name);
    if (depth + 1 > AR_SPEC_MAX_INCLUDE_DEPTH)
        return refuse(src, file, line, NULL, "@include \"%s\": includes nest deeper than %d (does a file include itself?)",
                      name, AR_SPEC_MAX_INCLUDE_DEPTH);
    /* As libconfig: relative to the top spec's folder. */
    char path[2048];
    if (name[0] == '/' || strcmp(src->include_dir, ".") == 0)
        snprintf(path, sizeof path, "%s", name);
    else
        snprintf(path, sizeof path, "%s/%s", src->include_dir, name);
    size_t left = src->bytes < AR_SPEC_MAX_BYTES ? AR_SPEC_MAX_BYTES - src->bytes : 0;
    char *text, why[300];
    size_t len;
    if (ar_spec_read_file(path, path, left, &text, &len, why, sizeof why))
        return strcmp(why, "out of memory") == 0 ? out_of_memory(src)
                                                  : refuse(src, file, line, NULL, "@include \"%s\": %s", name, why);
    if (len > left) {
        free(text);
        return refuse(src, file, line, NULL, "@include \"%s\": the spec and the files it includes exceed %d bytes",
                      name, AR_SPEC_MAX_BYTES);
    }
    src->bytes += len;
    int child = add_file(src, path);
    int status = child < 0 ? out_of_memory(src) : lex_file(src, child, text, depth + 1);
    free(text);
    if (status)
        return -1;
    /* The rest of the @include line goes on a line of its own, still the parent's. */
    if (src->len && src->text[src->len - 1] != '\n' && append(src, "\n", 1))
        return -1;
    return begin_segment(src, file, line);
}

/* Copies s (file `file`) into the expanded text: a leading BOM dropped, @include lines
 * expanded, an L after each integer literal that has none. */
static int lex_file(ar_spec_source *src, int file, const char *s, int depth)
{
    size_t i = strncmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    size_t copied = i; /* s[copied..i) is still to append */
    int line = 1, at_line_start = 1, ends_in_comment = 0;
    char name[64] = "", field[64] = ""; /* the last name, and the last one assigned to */
    if (begin_segment(src, file, 1))
        return -1;
    while (s[i]) {
        char c = s[i];
        if (at_line_start) { /* libconfig's ^[ \t]*@include[ \t]+\" */
            at_line_start = 0;
            size_t j = i + strspn(s + i, " \t");
            if (strncmp(s + j, "@include", 8) == 0 && (s[j + 8] == ' ' || s[j + 8] == '\t')) {
                size_t k = j + 8 + strspn(s + j + 8, " \t");
                if (s[k] == '"') {
                    if (append(src, s + copied, i - copied) || include_file(src, file, line, s, &k, depth))
                        return -1;
                    i = copied = k;
                    continue;
                }
            }
        }
        if (c == '\n') {
            line++;
            at_line_start = 1;
            i++;
        } else if (c == '"' || (c == '/' && s[i + 1] == '*')) { /* a string or a block comment */
            const char *close = c == '"' ? "\"" : "*/";
            i += c == '"' ? 1 : 2;
            while (s[i] && strncmp(s + i, close, strlen(close)) != 0) {
                if (s[i] == '\\' && c == '"' && s[i + 1])
                    i++;
                line += s[i] == '\n';
                i++;
            }
            if (!s[i]) /* libconfig would take the rest as text, or carry it on into the including file */
                return refuse(src, file, line, NULL, "the file ends inside %s", c == '"' ? "a string" : "a comment");
            i += s[i] ? strlen(close) : 0;
        } else if (c == '#' || (c == '/' && s[i + 1] == '/')) {
            i += strcspn(s + i, "\n");
            ends_in_comment = !s[i];
        } else if (is_name_start(c)) {
            size_t j = i;
            while (is_name_char(s[j]))
                j++;
            snprintf(name, sizeof name, "%.*s", (int)(j - i < 63 ? j - i : 63), s + i);
            i = j;
        } else if (c == '=' || c == ':') {
            memcpy(field, name, sizeof field);
            i++;
        } else if (c == '@') {
            return refuse(src, file, line, NULL, "'@' starts only an @include line: @include \"file\"");
        } else if (isdigit((unsigned char)c) || c == '-' || c == '+' || c == '.') {
            int integer;
            size_t suffix, end = number_end(s, i, &integer, &suffix);
            if (integer) {
                if (!fits_int64(s, i, suffix))
                    return refuse(src, file, line, field[0] ? field : NULL,
                                  "%.*s does not fit in a 64-bit integer [-9223372036854775808, 9223372036854775807]",
                                  (int)(suffix - i < 40 ? suffix - i : 40), s + i);
                if (suffix == end) { /* no L: libconfig would read 32 bits */
                    if (append(src, s + copied, end - copied) || append(src, "L", 1))
                        return -1;
                    copied = end;
                }
            }
            i = end;
        } else {
            i++;
        }
    }
    if (append(src, s + copied, i - copied))
        return -1;
    /* libconfig 1.5 refuses a comment on a last line without a newline. */
    return ends_in_comment ? append(src, "\n", 1) : 0;
}

int ar_spec_source_read(ar_spec_source *src, const char *text, const char *label, const char *include_dir)
{
    memset(src, 0, sizeof *src);
    src->lines = 1;
    src->include_dir = include_dir;
    src->bytes = strlen(text);
    if (add_file(src, label) < 0)
        return out_of_memory(src);
    if (lex_file(src, 0, text, 0))
        return -1;
    return src->text ? 0 : append(src, "", 0);
}

void ar_spec_source_locate(const ar_spec_source *src, int line, char *buf, size_t len)
{
    /* The last segment that starts at or before the line. */
    int lo = 0, hi = src->n_segments - 1, found = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (src->segments[mid].first_line <= line) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    if (found < 0)
        snprintf(buf, len, "%s:%d", src->n_files ? src->files[0] : "spec", line);
    else
        snprintf(buf, len, "%s:%d", src->files[src->segments[found].file],
                 src->segments[found].line + line - src->segments[found].first_line);
}

void ar_spec_source_free(ar_spec_source *src)
{
    for (int i = 0; i < src->n_files; ++i)
        free(src->files[i]);
    free(src->files);
    free(src->segments);
    free(src->text);
    memset(src, 0, sizeof *src);
}

/* cli_options: what every command's file uses: exit statuses, the one writer of
 * messages, refusals of a command line, sizes, and the check that stdout was written. */
#define _GNU_SOURCE
#include "cli_parts.h"
#include "attnrank/message.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attnrank/signals.h"

static const char *program = "attnrank";

/* The library's statuses as exit statuses; an interrupted run exits 128 + the signal, and
 * so does a command whose input was refused after a stop signal (a file's check, which
 * a signal ends: "interrupted by SIGTERM while its structure was checked"). */
int ar_cli_exit_status(ar_status status)
{
    switch (status) {
    case AR_OK: return AR_EXIT_OK;
    case AR_ERR_INPUT: return ar_stop_signal ? 128 + ar_stop_signal : AR_EXIT_BAD_INPUT;
    case AR_ERR_IO: return AR_EXIT_IO;
    case AR_ERR_INTERRUPTED: return 128 + (ar_stop_signal ? ar_stop_signal : SIGINT);
    }
    return AR_EXIT_IO;
}

int ar_cli_parse_size(const char *text, double *bytes)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || !(v > 0) || !isfinite(v))
        return -1;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': v *= 1024.0; end++; break;
    case 'M': v *= 1048576.0; end++; break;
    case 'G': v *= 1073741824.0; end++; break;
    case 'T': v *= 1099511627776.0; end++; break;
    default: return -1;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || v < 1 || !isfinite(v)) /* 0.5 would plan with 0 B; 1e30T is inf */
        return -1;
    *bytes = v;
    return 0;
}

/* The one place that writes a message on stderr: "attnrank: " and the message on one
 * line, whatever the names in it hold (a newline or other control character in a path
 * is written as \n, \t, \r or \xHH). */
void ar_cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ar_cli_say(const char *fmt, ...)
{
    char text[2 * AR_ERR_LEN];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    fprintf(stderr, "%s: ", program);
    ar_message_print(stderr, text);
    fputc('\n', stderr);
}

int ar_cli_bad_usage(const char *fmt, const char *arg)
{
    char text[AR_ERR_LEN];
    snprintf(text, sizeof text, fmt, arg);
    ar_cli_say("%s (see `attnrank help`)", text);
    return AR_EXIT_BAD_INPUT;
}

/* The long options of longs that NAME (--name or --na, without its =value) selects, as
 * getopt_long matches them: an exact name, else every one it abbreviates. */
static int long_matches(const struct option *longs, const char *name, size_t len, const struct option **first,
                        char *names, size_t names_len)
{
    int count = 0;
    names[0] = '\0';
    for (const struct option *o = longs; o->name; ++o)
        if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) {
            *first = o;
            snprintf(names, names_len, "--%s", o->name);
            return 1;
        }
    for (const struct option *o = longs; o->name; ++o)
        if (strncmp(o->name, name, len) == 0) {
            if (!count++)
                *first = o;
            size_t used = strlen(names);
            snprintf(names + used, names_len - used, "%s--%s", used ? ", " : "", o->name);
        }
    return count;
}

/* getopt's complaint in words (its option string starts with ':'): c is ':' for an
 * option missing its argument, '?' for one it does not know or that takes no value.
 * The option is named as the user wrote it: getopt's optopt is the short letter of a
 * long option (--quiet=1 said "unknown option '-q'"). */
int ar_cli_option_error(const char *prefix, int c, char **argv, const struct option *longs)
{
    const char *arg = argv[optind - 1];
    char name[64], text[256], names[192];
    const struct option *match = NULL;
    size_t len = strncmp(arg, "--", 2) == 0 ? strcspn(arg + 2, "=") : 0;
    int matches = len ? long_matches(longs, arg + 2, len, &match, names, sizeof names) : 0;
    /* argv[optind - 1] is the long option at fault, unless getopt is inside a cluster of
     * short options after it (--force -zq): then optopt is a letter that option lacks */
    int is_long = len && (!optopt || (matches == 1 && match->val == optopt &&
                                      (c == ':' ? match->has_arg == required_argument
                                                : arg[2 + len] == '=' && match->has_arg == no_argument)));
    if (is_long)
        snprintf(name, sizeof name, "--%.*s", (int)(len < 60 ? len : 60), arg + 2);
    else if (!optopt)
        snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    else
        snprintf(name, sizeof name, "-%c", optopt); /* a short one, perhaps inside a cluster such as -qx */
    if (c == ':')
        snprintf(text, sizeof text, "%soption '%s' needs an argument", prefix, name);
    else if (is_long && matches > 1)
        snprintf(text, sizeof text, "%soption '%s' is ambiguous (%s)", prefix, name, names);
    else if (is_long && matches == 1 && arg[2 + len] == '=')
        snprintf(text, sizeof text, "%soption '%s' takes no value (write %s alone)", prefix, name, names);
    else
        snprintf(text, sizeof text, "%sunknown option '%s'", prefix, name);
    return ar_cli_bad_usage("%s", text);
}

/* The last word of every command: what it printed must have reached stdout (a full
 * disk, /dev/full, a closed pipe); if not, one line and the I/O status. */
int ar_cli_check_stdout(int status)
{
    int failed = ferror(stdout), closed = fclose(stdout);
    if (!failed && !closed)
        return status;
    ar_cli_say("standard output: cannot write: %s", closed ? strerror(errno) : "a write failed");
    return AR_EXIT_IO;
}

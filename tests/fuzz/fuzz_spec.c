/* libFuzzer target: the spec parser (libconfig text -> validated grid). Any input must
 * give a spec or one error line, never a crash, a hang or a leak.
 *
 * The input is a spec, then optionally a NUL byte and one --set override. Its @include
 * lines reach a folder made once with files to include: a part of a spec, one that
 * includes itself, one that ends inside a comment, an empty one, and a directory. */
#define _GNU_SOURCE
#include "attnrank/builtin_families.h"
#include "attnrank/spec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char include_dir[] = "/tmp/attnrank_fuzz_spec_XXXXXX";
static const char *const included[] = {"a.cfg", "self.cfg", "open.cfg", "empty.cfg"};

static void put(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", include_dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fputs(text, f);
    fclose(f);
}

static void remove_include_dir(void)
{
    char path[256];
    for (size_t i = 0; i < sizeof included / sizeof included[0]; ++i) {
        snprintf(path, sizeof path, "%s/%s", include_dir, included[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/sub", include_dir);
    rmdir(path);
    rmdir(include_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char why[256];
    if (ar_builtin_families_register(why, sizeof why) != 0)
        abort();
    if (!mkdtemp(include_dir))
        abort();
    const char *texts[] = {"{ name = \"a\"; simulator = \"hardmax_rank\"; trials = 10; n = [8, 0x10]; }\n",
                           "@include \"self.cfg\"\n", "{ name = \"o\"; /* never closed\n", ""};
    for (size_t i = 0; i < sizeof included / sizeof included[0]; ++i)
        put(included[i], texts[i]);
    char sub[256];
    snprintf(sub, sizeof sub, "%s/sub", include_dir);
    mkdir(sub, 0700);
    atexit(remove_include_dir);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 2);
    memcpy(text, data, size);
    text[size] = text[size + 1] = '\0';
    const char *set = text + strlen(text) + 1; /* past the first NUL, or "" */
    int n_sets = *set ? 1 : 0;
    ar_spec spec;
    char err[AR_ERR_LEN];
    if (ar_spec_load_text(text, "fuzz.cfg", include_dir, &set, n_sets, &spec, err) == 0)
        ar_spec_free(&spec);
    else if (!memchr(err, '\0', sizeof err) || strchr(err, '\n'))
        abort(); /* the error must be one terminated line */
    free(text);
    return 0;
}

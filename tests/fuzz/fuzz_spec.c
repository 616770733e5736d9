/* libFuzzer target: the spec parser (libconfig text -> validated grid). Any input must
 * give a spec or one error line, never a crash, a hang or a leak. */
#include "attnrank/spec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    ar_spec spec;
    char err[AR_ERR_LEN];
    if (ar_spec_load_text(text, "fuzz.cfg", NULL, NULL, 0, &spec, err) == 0)
        ar_spec_free(&spec);
    else if (!memchr(err, '\0', sizeof err) || strchr(err, '\n'))
        abort(); /* the error must be one terminated line */
    free(text);
    return 0;
}

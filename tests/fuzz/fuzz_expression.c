/* libFuzzer target: formulas (expression.h) compiled through muparser. Any bytes must
 * give an expression or one error line, never a crash, a hang or a leak.
 *
 * The input, up to its first NUL, is compiled against every registered simulator and,
 * where it compiles, evaluated at the simulator's defaults. Two evaluations of one
 * expression agree (both NaN, or the same bits): nothing is left over from the first. */
#include "attnrank/builtin_families.h"
#include "attnrank/expression.h"
#include "attnrank/registry.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_message(const char *why, size_t len)
{
    /* one non-empty, terminated line */
    if (!why[0] || !memchr(why, '\0', len) || strchr(why, '\n'))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char family_why[256];
    if (ar_builtin_families_register(family_why, sizeof family_why) != 0)
        abort();
    int count;
    const ar_sim *const *sims = ar_sim_all(&count);
    for (int s = 0; s < count; ++s) {
        char why[256];
        ar_expr *e = ar_expr_compile(text, sims[s], why, sizeof why);
        if (!e) {
            check_message(why, sizeof why);
            continue;
        }
        if (strcmp(ar_expr_text(e), text) != 0)
            abort();
        ar_point point;
        ar_point_defaults(sims[s], &point);
        double first = ar_expr_eval(e, &point), second = ar_expr_eval(e, &point);
        if (!(isnan(first) ? isnan(second) : memcmp(&first, &second, sizeof first) == 0))
            abort();
        ar_expr_free(e);
    }
    free(text);
    return 0;
}

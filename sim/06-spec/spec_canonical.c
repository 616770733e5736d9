/* spec_canonical: a spec's canonical form: every value, defaults included, at full
 * precision; the file stores it and its hash, and --resume, info and judge rebuild from it. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "spec_parts.h"

/* v in the fewest digits that read back as v: as the user wrote it, for messages that
 * quote it (1.1, not 1.1000000000000001). */
void ar_spec_shortest(double v, char *buf, size_t len)
{
    if (v == floor(v) && fabs(v) < 1e15) { /* 20, not 2e+01 */
        snprintf(buf, len, "%.0f", v);
        return;
    }
    for (int digits = 1; digits <= 17; ++digits) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

char *ar_spec_canonical_text(const ar_spec *spec)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    /* The L suffix keeps seeds beyond 32 bits 64-bit integers when read back. */
    fprintf(f, "# canonical form: every field, defaults included\nseed = %lluL;\n",
            (unsigned long long)spec->seed);
    if (spec->title)
        fprintf(f, "title = \"%s\";\n", spec->title);
    fprintf(f, "experiments = (\n");
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        fprintf(f, "  {\n    name = \"%s\";\n    simulator = \"%s\";\n    trials = %ld;\n", x->name,
                x->sim->name, x->trials);
        fprintf(f, "    claims = [");
        for (int k = 0, listed = 0; k < x->n_claims; ++k)
            if (!x->claims[k]->conjecture)
                fprintf(f, "%s\"%s\"", listed++ ? ", " : "", x->claims[k]->id);
        fprintf(f, "];\n");
        for (int k = 0, listed = 0; k < x->n_claims; ++k)
            if (x->claims[k]->conjecture) {
                fprintf(f, "%s      ", listed++ ? ",\n" : "    conjectures = (\n");
                ar_conjecture_write(f, x->claims[k]);
                if (k + 1 == x->n_claims)
                    fprintf(f, "\n    );\n");
            }
        fprintf(f, "    expect = {");
        for (int k = 0; k < x->n_claims; ++k)
            fprintf(f, " %s = \"%s\";", x->claims[k]->id, ar_verdict_name(x->expect[k]));
        fprintf(f, " };\n");
        for (int a = 0; a < x->n_axes; ++a) {
            const ar_param *p = &x->sim->params[x->axes[a].param];
            fprintf(f, "    %s = (", p->name);
            for (int i = 0; i < x->axes[a].count; ++i) {
                fputs(i ? ", " : "", f);
                ar_spec_write_value(f, p, x->axes[a].values[i]);
            }
            fprintf(f, ");\n");
        }
        for (int i = 0; i < x->sim->n_params; ++i) {
            if (ar_experiment_axis_of(x, i) >= 0)
                continue;
            fprintf(f, "    %s = ", x->sim->params[i].name);
            ar_spec_write_value(f, &x->sim->params[i], x->base.value[i]);
            fprintf(f, ";\n");
        }
        ar_spec_write_attacks(f, spec, e);
        fprintf(f, "  }%s\n", e + 1 < spec->n_experiments ? "," : "");
    }
    fprintf(f, ");\n");
    fclose(f);
    return text;
}

/* ---- entry points ---------------------------------------------------------------- */

int ar_spec_recompute_canonical(ar_spec *spec)
{
    free(spec->canonical);
    spec->canonical = ar_spec_canonical_text(spec);
    if (!spec->canonical)
        return -1;
    spec->hash = ar_hash_bytes(0, spec->canonical, strlen(spec->canonical));
    return 0;
}

/* rule_lines: the lines of a trend or limit claim, found by two sorts. */
#include "rules_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_line_then_along(const void *a, const void *b)
{
    const ar_line_entry *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->along != y->along)
        return x->along < y->along ? -1 : 1;
    return (x->point > y->point) - (x->point < y->point);
}

static int by_first_point(const void *a, const void *b)
{
    const ar_line_range *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

void ar_lines_group(long n, const double *f, const ar_summary *est, const long *line, const double *along,
                    long min_size, ar_rule_workspace *ws, ar_line_groups *g)
{
    ar_line_entry *entries = ws->entries;
    ar_line_range *groups = ws->ranges;
    g->members = ws->members;
    g->start = ws->start;
    long m = 0, n_groups = 0;
    for (long p = 0; p < n; ++p)
        if (ar_rule_usable(f, est, p))
            entries[m++] = (ar_line_entry){line[p], p, along[p]};
    qsort(entries, (size_t)m, sizeof *entries, by_line_then_along);
    for (long i = 0; i < m;) {
        long k = i, first = entries[i].point;
        while (k < m && entries[k].line == entries[i].line) {
            first = entries[k].point < first ? entries[k].point : first;
            k++;
        }
        if (k - i >= min_size)
            groups[n_groups++] = (ar_line_range){first, i, k - i};
        i = k;
    }
    qsort(groups, (size_t)n_groups, sizeof *groups, by_first_point);
    long at = 0;
    for (long q = 0; q < n_groups; ++q) {
        g->start[q] = at;
        for (long i = 0; i < groups[q].size; ++i)
            g->members[at++] = entries[groups[q].from + i].point;
    }
    g->start[n_groups] = at;
    g->count = (int)n_groups;
}

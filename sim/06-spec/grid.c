/* grid: a spec's points: an experiment's point by index (the cartesian product of its
 * axes, the last axis fastest), and which shard of a split run owns a point. */
#include "attnrank/spec.h"

#include <limits.h>

int ar_experiment_axis_of(const ar_experiment *exp, int param)
{
    for (int a = 0; a < exp->n_axes; ++a)
        if (exp->axes[a].param == param)
            return a;
    return -1;
}

void ar_experiment_coords(const ar_experiment *exp, long index, int *coords)
{
    for (int a = exp->n_axes - 1; a >= 0; --a) {
        coords[a] = (int)(index % exp->axes[a].count);
        index /= exp->axes[a].count;
    }
}

void ar_experiment_point(const ar_experiment *exp, long index, ar_point *point)
{
    int coords[AR_MAX_PARAMS];
    *point = exp->base;
    ar_experiment_coords(exp, index, coords);
    for (int a = 0; a < exp->n_axes; ++a)
        point->value[exp->axes[a].param] = exp->axes[a].values[coords[a]];
}

long ar_shard_block(long points, int shards)
{
    if (shards <= 1)
        return points > 0 ? points : 1;
    /* at least 512 points (a page of each dataset: the others' blocks stay holes of the
     * shard's sparse file) where each shard still gets four blocks or more */
    long block = points / (64L * shards), least = points / (4L * shards);
    least = least < 1 ? 1 : least > 512 ? 512 : least;
    return block < least ? least : block > 4096 ? 4096 : block;
}

int ar_shard_owner(long global, long points, int shards)
{
    return shards <= 1 ? 0 : (int)((global / ar_shard_block(points, shards)) % shards);
}

long ar_spec_points(const ar_spec *spec)
{
    long points = 0;
    for (int e = 0; e < spec->n_experiments; ++e)
        points += spec->experiments[e].n_points;
    return points;
}

int ar_shard_parse(const char *text, int *index, int *count)
{
    long long parts[2] = {0, 0};
    const char *c = text;
    for (int k = 0; k < 2; ++k) {
        if (*c < '0' || *c > '9')
            return -1;
        for (; *c >= '0' && *c <= '9'; ++c)
            if ((parts[k] = parts[k] * 10 + (*c - '0')) > INT_MAX)
                return -1;
        if (*c++ != (k ? '\0' : '/'))
            return -1;
    }
    if (parts[0] >= parts[1])
        return -1;
    *index = (int)parts[0];
    *count = (int)parts[1];
    return 0;
}


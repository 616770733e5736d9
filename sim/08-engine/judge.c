/* judge: verdicts and mutants from a result file's datasets (see judge.h). */
#include "attnrank/judge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attnrank/engine.h"

/* What one claim is judged on: summaries and predictions over the experiment's grid,
 * and for trend and limit rules the line of each point along the claim's axis. */
typedef struct claim_data {
    ar_summary *est;
    double *prediction, *along, *versus;
    long *line; /* for a steeper claim, the plane of its two axes */
    int has_axis, integer_output;
    ar_rule_workspace *ws; /* the rules' scratch, for the experiment's points */
} claim_data;

static int load_claim(ar_store *store, const ar_spec *spec, int e, const ar_claim *claim, claim_data *d, char *err)
{
    const ar_experiment *x = &spec->experiments[e];
    int output = claim->output; /* checked against the simulator by the registry */
    d->integer_output = x->sim->outputs[output].hist_max != NULL;
    if (ar_store_read_summaries(store, e, output, claim->element, d->est, err) < 0)
        return -1;
    /* The current theory's predictions (a run stored the same in theory/; a judged
     * conjecture has none stored). */
    for (long p = 0; p < x->n_points; ++p) {
        ar_point point;
        ar_experiment_point(x, p, &point);
        d->prediction[p] = ar_claim_predict(claim, &point);
    }
    /* Lines along the claim's trend axis: points equal but for that coordinate (planes:
     * but for it and the versus axis). */
    int param = claim->trend_axis ? ar_sim_param_index(x->sim, claim->trend_axis) : -1;
    int axis = param >= 0 ? ar_experiment_axis_of(x, param) : -1;
    int versus_param = claim->versus_axis ? ar_sim_param_index(x->sim, claim->versus_axis) : -1;
    int versus = versus_param >= 0 ? ar_experiment_axis_of(x, versus_param) : -1;
    d->has_axis = axis >= 0 && (!claim->versus_axis || versus >= 0);
    for (long p = 0; d->has_axis && p < x->n_points; ++p) {
        int coords[AR_MAX_PARAMS];
        ar_experiment_coords(x, p, coords);
        d->along[p] = x->axes[axis].values[coords[axis]];
        coords[axis] = 0;
        if (versus >= 0) {
            d->versus[p] = x->axes[versus].values[coords[versus]];
            coords[versus] = 0;
        }
        long id = 0;
        for (int a = 0; a < x->n_axes; ++a)
            id = id * x->axes[a].count + coords[a];
        d->line[p] = id;
    }
    return 0;
}

static int alloc_claim_data(const ar_experiment *x, claim_data *d)
{
    long n = x->n_points;
    d->est = calloc((size_t)n, sizeof *d->est);
    d->prediction = malloc((size_t)n * sizeof *d->prediction);
    d->along = malloc((size_t)n * sizeof *d->along);
    d->versus = malloc((size_t)n * sizeof *d->versus);
    d->line = malloc((size_t)n * sizeof *d->line);
    long line = 1; /* a line along one axis holds at most its longest axis's values */
    for (int a = 0; a < x->n_axes; ++a)
        line = x->axes[a].count > line ? x->axes[a].count : line;
    d->ws = ar_rule_workspace_new(n, line);
    return d->est && d->prediction && d->along && d->versus && d->line && d->ws ? 0 : -1;
}

static void free_claim_data(claim_data *d)
{
    free(d->est), free(d->prediction), free(d->along), free(d->versus), free(d->line);
    ar_rule_workspace_free(d->ws);
}

/* The claim's judgement, or its mirror (reversed: a steeper claim's other axis); 0, or
 * -1 with err where the rules could not run. */
static int judge_claim(const ar_claim *claim, long n, const claim_data *d, int reversed, ar_judgement *j, char *err)
{
    const long *line = d->has_axis ? d->line : NULL;
    const double *along = d->has_axis ? d->along : NULL;
    int status = ar_rules[claim->rule].needs_versus && d->has_axis
                     ? ar_rule_judge_steeper(claim, n, d->prediction, d->est, d->integer_output, line, along, d->versus,
                                        reversed, d->ws, j)
                     : ar_rule_judge(claim, n, d->prediction, d->est, d->integer_output, line, along, d->ws, j);
    if (status < 0)
        snprintf(err, AR_ERR_LEN, "claim %s: %s", claim->id, j->rule);
    return status;
}

static void describe_axes(const ar_experiment *x, long point, char *buf, size_t len)
{
    ar_point pt;
    int which[AR_MAX_PARAMS];
    ar_experiment_point(x, point, &pt);
    for (int a = 0; a < x->n_axes; ++a)
        which[a] = x->axes[a].param;
    if (x->n_axes == 0)
        snprintf(buf, len, "(single point)");
    else
        ar_point_describe(&pt, which, x->n_axes, buf, len);
}

/* Whether upper bound `tight` is at least as sharp as `loose` wherever `loose` speaks,
 * and sharper somewhere: two bounds equal everywhere (a claim restated as a conjecture)
 * imply each other, and neither is marked. */
static int implies(const ar_claim *tight, const double *f_tight, const ar_claim *loose, const double *f_loose,
                   long n)
{
    if (tight == loose || tight->rule != loose->rule || !ar_rules[tight->rule].implies_looser ||
        tight->sim != loose->sim || tight->output != loose->output || tight->element != loose->element)
        return 0;
    long shared = 0, sharper = 0;
    for (long p = 0; p < n; ++p) {
        if (isnan(f_loose[p]))
            continue;
        if (!(f_tight[p] <= f_loose[p]))
            return 0;
        shared++;
        sharper += f_tight[p] < f_loose[p];
    }
    return shared > 0 && sharper > 0;
}

int ar_judge_verdicts(ar_store *store, const ar_spec *spec, ar_verdict_row *rows, char *err)
{
    int r = 0;
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        claim_data d;
        double *predictions = malloc((size_t)(x->n_claims ? x->n_claims : 1) * (size_t)x->n_points * sizeof *predictions);
        if (alloc_claim_data(x, &d) < 0 || !predictions) {
            free_claim_data(&d), free(predictions);
            snprintf(err, AR_ERR_LEN, "out of memory judging experiment %s", x->name);
            return -1;
        }
        for (int k = 0; k < x->n_claims; ++k) {
            const ar_claim *claim = x->claims[k];
            if (load_claim(store, spec, e, claim, &d, err) < 0) {
                free_claim_data(&d), free(predictions);
                return -1;
            }
            memcpy(predictions + (size_t)k * x->n_points, d.prediction, (size_t)x->n_points * sizeof *predictions);
            ar_judgement j;
            if (judge_claim(claim, x->n_points, &d, 0, &j, err) < 0) {
                free_claim_data(&d), free(predictions);
                return -1;
            }
            ar_verdict_row *row = &rows[r + k];
            memset(row, 0, sizeof *row);
            snprintf(row->claim, sizeof row->claim, "%s", claim->id);
            snprintf(row->experiment, sizeof row->experiment, "%s", x->name);
            snprintf(row->statement, sizeof row->statement, "%s", claim->statement);
            if (j.point >= 0)
                describe_axes(x, j.point, row->point, sizeof row->point);
            row->prediction = j.prediction;
            row->estimate = j.estimate;
            row->ci_lo = j.ci_lo;
            row->ci_hi = j.ci_hi;
            row->trials = j.trials;
            row->points = j.points;
            row->rule = claim->rule;
            row->verdict = j.verdict;
            row->expected = x->expect[k];
            row->resolution = j.resolution;
            snprintf(row->explanation, sizeof row->explanation, "%s", j.rule);
            row->failed = j.failed, row->empty_points = j.empty_points;
            row->fit = j.fit;
            row->note = claim->identity                                ? AR_NOTE_IDENTITY
                        : j.resolution.kind == AR_RESOLUTION_EXISTENCE ? AR_NOTE_CANNOT_FAIL
                        : j.resolution.loose                       ? AR_NOTE_LOOSE
                        : j.resolution.excludes                    ? AR_NOTE_EXCLUDES
                        : j.failed > 0 || j.empty_points > 0       ? AR_NOTE_FAILED
                                                                   : AR_NOTE_NONE;
        }
        /* A holding bound implied by a tighter one that holds on the same data says nothing more. */
        for (int k = 0; k < x->n_claims; ++k)
            for (int t = 0; t < x->n_claims; ++t)
                if (rows[r + t].verdict == AR_HOLDS && rows[r + k].verdict == AR_HOLDS &&
                    implies(x->claims[t], predictions + (size_t)t * x->n_points, x->claims[k],
                            predictions + (size_t)k * x->n_points, x->n_points)) {
                    rows[r + k].note = AR_NOTE_IMPLIED;
                    snprintf(rows[r + k].implied_by, sizeof rows[r + k].implied_by, "%s", x->claims[t]->id);
                    break;
                }
        r += x->n_claims;
        free_claim_data(&d), free(predictions);
    }
    return 0;
}

int ar_judge_mutants(ar_store *store, const ar_spec *spec, ar_mutant_row *rows, char *err)
{
    int r = 0;
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        claim_data d;
        if (alloc_claim_data(x, &d) < 0) {
            free_claim_data(&d);
            snprintf(err, AR_ERR_LEN, "out of memory judging experiment %s", x->name);
            return -1;
        }
        for (int k = 0; k < x->n_claims; ++k, ++r) {
            const ar_claim *claim = x->claims[k];
            if (load_claim(store, spec, e, claim, &d, err) < 0) {
                free_claim_data(&d);
                return -1;
            }
            const long *line = d.has_axis ? d.line : NULL;
            const double *along = d.has_axis ? d.along : NULL;
            ar_mutant_row *row = &rows[r];
            memset(row, 0, sizeof *row);
            snprintf(row->claim, sizeof row->claim, "%s", claim->id);
            snprintf(row->experiment, sizeof row->experiment, "%s", x->name);
            ar_judgement j, mirror;
            if (judge_claim(claim, x->n_points, &d, 0, &j, err) < 0) {
                free_claim_data(&d);
                return -1;
            }
            row->verdict = j.verdict;
            row->loose = j.resolution.loose;
            if (ar_rules[claim->rule].needs_versus && d.has_axis) { /* the mirror: the other axis steeper */
                if (judge_claim(claim, x->n_points, &d, 1, &mirror, err) < 0) {
                    free_claim_data(&d);
                    return -1;
                }
                row->mutants[0] = (ar_mutant){1, 1, mirror.verdict};
                row->count = 1;
                continue;
            }
            row->count = ar_mutants(claim, x->n_points, d.prediction, d.est, d.integer_output, line, along, d.ws,
                                    row->mutants, &row->why);
            if (row->count < 0) {
                snprintf(err, AR_ERR_LEN, "claim %s: the rules' workspace holds fewer than its %ld points", claim->id,
                         x->n_points);
                free_claim_data(&d);
                return -1;
            }
        }
        free_claim_data(&d);
    }
    return 0;
}

int ar_judge_theory_changes(ar_store *store, long *changed, char *err)
{
    const ar_spec *spec = ar_store_spec(store);
    int r = 0;
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        double *stored = malloc((size_t)x->n_points * sizeof *stored);
        if (!stored) {
            snprintf(err, AR_ERR_LEN, "out of memory reading experiment %s's theory", x->name);
            return -1;
        }
        for (int k = 0; k < x->n_claims; ++k, ++r) {
            if (ar_store_read_theory(store, e, x->claims[k], stored, err) < 0) {
                free(stored);
                return -1;
            }
            changed[r] = 0;
            for (long p = 0; p < x->n_points; ++p) {
                ar_point point;
                ar_experiment_point(x, p, &point);
                double now = ar_claim_predict(x->claims[k], &point);
                changed[r] += !(now == stored[p] || (isnan(now) && isnan(stored[p])));
            }
        }
        free(stored);
    }
    return 0;
}

/* Is claim listed in experiment x's claims (then row x's first + its index), or -1? */
static int listed_at(const ar_experiment *x, const ar_claim *claim)
{
    for (int k = 0; k < x->n_claims; ++k)
        if (x->claims[k] == claim || strcmp(x->claims[k]->id, claim->id) == 0)
            return k;
    return -1;
}

/* Whether the store holds its theory/ values: every file does but a shard, whose
 * theory/ datasets are holes until the merge writes them (store_layout.c), at its own
 * points too; a run's partial holds them at every point from the start. 1, 0, or -1
 * with err (a damaged shard attribute). */
static int theory_held(ar_store *store, char *err)
{
    int index, count;
    if (ar_store_shard(store, &index, &count, err) < 0)
        return -1;
    return count == 1;
}

/* Which theory/ values check_theory_datasets reads: none (their attributes alone), those
 * of claims the spec does not list (ar_judge_theory_changes reads the listed ones'), or
 * every dataset's. */
enum { THEORY_TEXTS, THEORY_UNLISTED_VALUES, THEORY_ALL_VALUES };

/* Every theory/ dataset of the store (ar_store_theory_claim's: claims the spec lists and
 * those it does not) against what this attnrank writes there: its attributes always, as
 * they follow from the stored spec and the claim table alone, and the values `values`
 * names. Marks what differs on the row of a listed claim (row_marks), and per experiment
 * in unlisted[e] what differs of a claim with no row. Returns how many datasets differ,
 * found saying the first; -1 with err. */
static int check_theory_datasets(ar_store *store, int values, unsigned char *row_marks, unsigned char *unlisted,
                                 char *found, size_t len, char *err)
{
    const ar_spec *spec = ar_store_spec(store);
    int differing = 0;
    for (int e = 0, first_row = 0; e < spec->n_experiments; first_row += spec->experiments[e++].n_claims) {
        const ar_experiment *x = &spec->experiments[e];
        double *stored = values ? malloc((size_t)x->n_points * sizeof *stored) : NULL;
        if (values && !stored) {
            snprintf(err, AR_ERR_LEN, "out of memory reading experiment %s's theory", x->name);
            return -1;
        }
        const ar_claim *claim;
        for (int c = 0; (claim = ar_store_theory_claim(x, c)); ++c) {
            char what[400];
            int k = listed_at(x, claim), texts = ar_store_theory_text_differs(store, e, claim, what, sizeof what, err);
            long moved = 0;
            if (texts >= 0 && (values == THEORY_ALL_VALUES || (values == THEORY_UNLISTED_VALUES && k < 0))) {
                if (ar_store_read_theory(store, e, claim, stored, err) < 0)
                    texts = -1;
                for (long p = 0; texts >= 0 && p < x->n_points; ++p) {
                    ar_point point;
                    ar_experiment_point(x, p, &point);
                    double now = ar_claim_predict(claim, &point);
                    moved += !(now == stored[p] || (isnan(now) && isnan(stored[p])));
                }
            }
            if (texts < 0) {
                free(stored);
                return -1;
            }
            if (!texts && !moved)
                continue;
            if (!differing++) {
                const char *unlisted_note = k < 0 ? " (a claim the spec does not list)" : "";
                if (texts)
                    snprintf(found, len, "its theory/%s of experiment %s%s is not what attnrank writes: %s", claim->id,
                             x->name, unlisted_note, what);
                else
                    snprintf(found, len, "its theory/%s of experiment %s%s differs from this attnrank's prediction "
                             "at %ld point(s)", claim->id, x->name, unlisted_note, moved);
            }
            unsigned char mark = (unsigned char)((texts ? AR_STORED_THEORY_TEXT_DIFFERS : 0) |
                                                 (moved ? AR_STORED_THEORY_DIFFERS : 0));
            if (k >= 0 && row_marks)
                row_marks[first_row + k] |= mark;
            if (k < 0 && unlisted)
                unlisted[e] |= mark;
        }
        free(stored);
    }
    return differing;
}

int ar_judge_check_theory(ar_store *store, char *err)
{
    char found[700];
    int held = theory_held(store, err);
    if (held < 0)
        return -1;
    int differing = check_theory_datasets(store, held ? THEORY_ALL_VALUES : THEORY_TEXTS, NULL, NULL, found,
                                          sizeof found, err);
    if (differing > 0) {
        snprintf(err, AR_ERR_LEN, "%s: damaged: %s", ar_store_path(store), found);
        ar_store_one_line(err); /* it quotes the file's own texts */
    }
    return differing;
}

int ar_judge_check_verdicts(ar_store *store, ar_verdict_row *fresh, unsigned char *marks, unsigned char *unlisted,
                            char *err)
{
    const ar_spec *spec = ar_store_spec(store);
    int n_rows = ar_store_verdict_count(spec), complete = 1;
    for (int e = 0; e < spec->n_experiments; ++e)
        complete &= ar_store_done_count(store, e) >= spec->experiments[e].n_points;
    size_t count = (size_t)(n_rows ? n_rows : 1);
    /* Rows stay NOT RUN until every point is in: what an incomplete file's rows must be
     * (whatever it stores, a shard's or an interrupted run's), shown in fresh and checked
     * as a complete file's re-judged rows are. */
    ar_verdict_row *rows = fresh ? fresh : calloc(count, sizeof *rows);
    unsigned char *differs = calloc(count, 1), *texts = calloc(count, 1);
    long *changed = calloc(count, sizeof *changed);
    if (!rows || !differs || !texts || !changed) {
        if (rows != fresh)
            free(rows);
        free(differs), free(texts), free(changed);
        snprintf(err, AR_ERR_LEN, "%s: out of memory re-judging its verdicts", ar_store_path(store));
        return -1;
    }
    if (unlisted)
        memset(unlisted, 0, (size_t)(spec->n_experiments ? spec->n_experiments : 1));
    int first = -1, differing = 0, moved = -1, status = 0, theory_texts = 0, unlisted_count = 0;
    char what[700] = "", theory_found[700] = "";
    /* the theory/ datasets' attributes (what the figures are titled with) always; their
     * values (what the figures draw, and --resume carries into the finished file)
     * wherever the file holds them, complete or not; the verdicts once every point is in */
    int held = theory_held(store, err);
    unsigned char *listed_only = calloc((size_t)(spec->n_experiments ? spec->n_experiments : 1), 1);
    if (!listed_only || held < 0 ||
        (theory_texts = check_theory_datasets(store, held ? THEORY_UNLISTED_VALUES : THEORY_TEXTS, texts,
                                              listed_only, theory_found, sizeof theory_found, err)) < 0)
        status = -1;
    for (int e = 0; status == 0 && e < spec->n_experiments; ++e) {
        unlisted_count += listed_only[e] != 0;
        if (unlisted)
            unlisted[e] = listed_only[e];
    }
    free(listed_only);
    if (!complete)
        ar_store_pending_verdicts(spec, rows);
    if (status == 0 && (!complete || (status = ar_judge_verdicts(store, spec, rows, err)) == 0) &&
        (differing = ar_store_verdicts_differ(store, rows, n_rows, differs, &first, what, sizeof what, err)) < 0)
        status = -1;
    /* the theory/ datasets (what the figures draw) are this attnrank's predictions too */
    if (status == 0 && held && ar_judge_theory_changes(store, changed, err) < 0)
        status = -1;
    int marked = 0;
    for (int r = 0; status == 0 && r < n_rows; ++r) {
        unsigned char m = (unsigned char)((differs[r] ? AR_STORED_VERDICT_DIFFERS : 0) |
                                          (changed[r] ? AR_STORED_THEORY_DIFFERS : 0) | texts[r]);
        if (marks)
            marks[r] = m;
        marked += m != 0;
        if (changed[r] && moved < 0)
            moved = r;
    }
    marked += status == 0 ? unlisted_count : 0;
    if (status == 0 && marked) {
        /* Provenance cannot be verified: whichever revision the file names (its
         * git_revision is an attribute like any other), a stored row that differs from
         * what this attnrank re-derives from the data is damage, never a note. */
        char found[900];
        if (differing)
            snprintf(found, sizeof found, "%d of %d /verdicts row(s) differ from %s (first: %s in %s, %s)", differing,
                     n_rows, complete ? "its data re-judged" : "an incomplete run's, NOT RUN until every point is in",
                     rows[first].claim, rows[first].experiment, what);
        else if (moved >= 0)
            snprintf(found, sizeof found, "its theory/%s of experiment %s differs from this attnrank's prediction at "
                     "%ld point(s)", rows[moved].claim, rows[moved].experiment, changed[moved]);
        else
            snprintf(found, sizeof found, "%s", theory_found);
        if (theory_texts > 1 || (theory_texts && (differing || moved >= 0)))
            snprintf(found + strlen(found), sizeof found - strlen(found), "; %d theory/ dataset(s) in all differ "
                     "from what attnrank writes there", theory_texts);
        snprintf(err, AR_ERR_LEN, "%s: damaged: %s", ar_store_path(store), found);
        ar_store_one_line(err); /* it quotes the file's own texts */
        status = marked;
    }
    if (rows != fresh)
        free(rows);
    free(differs), free(texts), free(changed);
    return status;
}

/* store: the HDF5 result file.
 *
 * Layout (one file per run):
 *   /                      provenance attributes (version, git revision, created, command
 *                          line, spec text, canonical spec and its hash, seed, libraries)
 *   /<experiment>/         attributes: simulator, claims, trials, fixed parameters
 *     <axis>               1-D coordinates of each swept parameter, a dimension scale
 *     <output>/mean, stderr, std, ci_lo, ci_hi, min, max, count, failed   over the axes
 *                          (+ the output's index, e.g. layer, for vector outputs)
 *     <output>/hist        integer outputs: counts over axes + (value), value scale beside
 *     theory/<claim>       predictions on the same axes (NaN where the claim is silent)
 *     done                 uint8 over the axes: the resume ledger
 *   /verdicts              one row per (experiment, claim)
 *
 * Every dataset is created and allocated when the file is created, NaN-filled, so a
 * run afterwards only writes raw data: a process killed at any moment leaves a file
 * whose structure is intact and whose `done` ledger names exactly the points whose
 * data were flushed. Points are written in slabs of consecutive points, committed about
 * once a second (ar_store_write_point). The file is written as PATH.partial and renamed to PATH when
 * complete; the name PATH never holds a half-written result.
 *
 * A file read back is untrusted: opening it checks that every dataset its stored spec
 * implies is there, of the type and every dimension that spec gives, and every read
 * and write goes through the same check; attributes are read as one value of the
 * class expected. Anything else is refused in one line naming the file and dataset. */
#ifndef ATTNRANK_STORE_H
#define ATTNRANK_STORE_H

#include "attnrank/provenance.h"
#include "attnrank/spec.h"
#include "attnrank/stats.h"
#include "attnrank/theory.h"

typedef struct ar_store ar_store;

/* What to read into a verdict beyond it. */
typedef enum {
    AR_NOTE_NONE,
    AR_NOTE_LOOSE,        /* a bound the data stay far from (3% tighter would hold) */
    AR_NOTE_IMPLIED,      /* a tighter bound of the same experiment and output holds */
    AR_NOTE_CANNOT_FAIL,  /* an existence claim */
    AR_NOTE_EXCLUDES,     /* holds within the tolerance, yet the 95% interval excludes f */
    AR_NOTE_FAILED,       /* failed trials or points without data */
    AR_NOTE_IDENTITY      /* true by construction: a unit check, not evidence for a theory */
} ar_note;

/* One verdict, as the judge makes it and the printers read it: enums and numbers; the
 * store writes it to /verdicts as text and numbers (see store.c's verdict record). */
typedef struct ar_verdict_row {
    char claim[16];
    char experiment[64];
    char point[256];          /* the deciding point, "n=64 d_h=8" */
    char statement[160];
    double prediction, estimate, ci_lo, ci_hi;
    long long trials;
    int points;
    ar_verdict verdict, expected;
    ar_rule rule;
    ar_resolution resolution; /* what else the data would have judged HOLDS */
    ar_note note;
    char implied_by[16];      /* AR_NOTE_IMPLIED: by which claim */
    long failed, empty_points;
    ar_fit fit;               /* limits: the extrapolation */
    char explanation[240];    /* how the rule decided, in a sentence */
} ar_verdict_row;

/* How many rows of the stored /verdicts table differ, as the file holds them (every
 * field, text included; both NaN count as equal), from these rows as it would record
 * them; differs[r] (when not NULL) says which; the first such row and, in what, its
 * first differing field and both values. -1 with err set if the table cannot be read. */
int ar_store_verdicts_differ(ar_store *store, const ar_verdict_row *fresh, int n_rows, unsigned char *differs,
                             int *first, char *what, size_t what_len, char *err);
/* The note in a few words ("", "loose", "implied by H2", ...), for tables. */
void ar_store_note_describe(const ar_verdict_row *row, char *buf, size_t len);
/* The prediction column: the value, or the direction for a trend (whose theory value
 * is only a reference). */
void ar_store_prediction_describe(const ar_verdict_row *row, char *buf, size_t len);

/* A point where more than this fraction of the trials failed is marked, not averaged. */
#define AR_FAILURE_LIMIT 0.01

/* Create a new file with the whole layout for spec; fails if path exists. A shard's
 * file (shard_file) reserves its per-point datasets without filling them: the points
 * of other shards stay holes of a sparse file, read as zeros (their ledger entries 0),
 * and its theory/ datasets are left to the merge; on disk it takes about its own
 * points' share. */
ar_store *ar_store_create(const char *path, const ar_spec *spec, const char *command_line, const ar_provenance *how,
                          int shard_file, char *err);
/* Attack files (`attnrank attack`): the spec's provenance at the root, kind =
 * "attacks", attacks_done, and per attack done so far (the first `done` of the spec's)
 * /attacks/<id> (docs/attacks.md). Written whole to path, which must not exist; removed
 * if the write fails. */
int ar_store_write_attacks(const char *path, const ar_spec *spec, const char *command_line, const ar_provenance *how,
                           const ar_attack_record *records, const ar_judgement *judgements, const long *deciding,
                           int done, char *err);
/* Whether path is an attack file (its root says kind = "attacks"). */
int ar_store_is_attack_file(const char *path);
/* Whether path is a file attnrank wrote (an HDF5 file whose root has an attnrank_version
 * text): what a writer may treat as its own partial, where anything else is the user's. */
int ar_store_is_attnrank_file(const char *path);
/* Reads an attack file back: its spec (rebuilt from the stored canonical text), *done
 * (the attacks it holds: all in a finished file, the first few in a FILE.partial), each
 * one's record and stored verdict, every table checked first. 0, or -1 with err; the
 * caller frees spec (ar_spec_free) and each record's tables and the arrays. */
/* The file is read from a private copy (ar_snapshot_regular); with copy not NULL, *copy is
 * that copy's descriptor (at least 3, close-on-exec; the caller closes it), for whatever
 * else shows the file (the figure scripts), else 0. */
int ar_store_read_attacks(const char *path, ar_spec *spec, ar_attack_record **records, ar_verdict **verdicts,
                          int *done, int *copy, char *err);

/* How ar_store_open opens a file: to read (a private copy, ar_snapshot_regular: what
 * is checked is what is read and shown, whatever happens to the file meanwhile), to
 * write it, or to read it in place (a writer's look at its own partial, under its lock,
 * before it opens it to write: nothing of it is shown). */
enum { AR_STORE_READ = 0, AR_STORE_WRITE = 1, AR_STORE_READ_IN_PLACE = 2 };
/* Open an existing result file (access: AR_STORE_*). The spec is rebuilt from the file's
 * canonical spec. */
ar_store *ar_store_open(const char *path, int access, char *err);
/* The file this process has just created (a run's new partial): its layout checked, its
 * structure not walked again (it is the one ar_store_create wrote). */
ar_store *ar_store_open_created(const char *path, char *err);
const ar_spec *ar_store_spec(const ar_store *store);
const char *ar_store_path(const ar_store *store); /* as it was opened or created */
/* The descriptor the store reads the file through (the private copy it checked, for a
 * store opened to read), or -1; the store's own: never closed by the caller. */
int ar_store_descriptor(const ar_store *store);
/* Control characters (a newline, an escape) in a message that quotes a file's own text
 * replaced by spaces: refusals are one line. */
void ar_store_one_line(char *text);
int ar_store_done(const ar_store *store, int experiment, long point);
long ar_store_done_count(const ar_store *store, int experiment);

/* Write one point: summaries of every output's values one after the other (one for a
 * scalar, one per element for a vector), a histogram per integer output (NULL for the
 * others). Points are buffered in slabs of consecutive points and committed about once
 * a second (data flushed, then their done entries, flushed): a kill loses at most the
 * points since the last commit. ar_store_done says 1 from this call on. */
int ar_store_write_point(ar_store *store, int experiment, long point, const ar_summary *summaries,
                         long *const *histograms, char *err);
/* Every point written so far into the file and its ledger, flushed. Merges, the
 * verdicts' write and ar_store_close commit first; a reader never does. */
int ar_store_commit(ar_store *store, char *err);
/* Summaries of one output over the grid; for a vector output of the given element
 * (negative: from the end of each point's vector). Refused (-1) while points written
 * are not committed: a read never writes, so the writer commits before it reads. */
int ar_store_read_summaries(ar_store *store, int experiment, int output, int element, ar_summary *out,
                            char *err);
int ar_store_read_theory(ar_store *store, int experiment, const ar_claim *claim, double *out, char *err);
/* The c-th claim with a theory/<id> dataset in experiment x: every registered claim of
 * its simulator (listed in the spec or not), then the experiment's conjectures; NULL
 * past the last. */
const ar_claim *ar_store_theory_claim(const ar_experiment *x, int c);
/* Whether theory/<id> carries the attributes attnrank writes for the claim (description:
 * its statement; formula; kind: claim or conjecture; output: its output's name), all
 * re-derived from the stored spec and the claim table: 0 when they are, 1 when one
 * differs (what: which, and both texts, the stored one cut short), -1 with err. */
int ar_store_theory_text_differs(ar_store *store, int experiment, const ar_claim *claim, char *what, size_t len,
                                 char *err);
int ar_store_write_verdicts(ar_store *store, const ar_verdict_row *rows, int n_rows, char *err);
int ar_store_read_verdicts(ar_store *store, ar_verdict_row **rows, int *n_rows, char *err);
/* Named root attribute as text, whole, in a malloc'd string the caller frees ("" if
 * absent or not text; an integer attribute as its decimal text); NULL: out of memory.
 * Setting one replaces it. */
char *ar_store_attribute(ar_store *store, const char *name);
/* 0 if the file's points were drawn from this attnrank's streams (its rng attribute is
 * AR_RNG_STREAMS); -1 with err naming the file and `what` ("resuming", "merging") that
 * would mix two kinds of draws. */
int ar_store_check_streams(ar_store *store, const char *path, const char *what, char *err);
/* How the results were computed (openblas_core, openblas_core_origin, kernels): a merge
 * gives dst the inputs' values, or "mixed: LABEL: value; ..." where they differ; a resumed
 * run appends "; resumed with VALUE" where this process computes differently. */
int ar_store_join_provenance(ar_store *dst, ar_store *const *srcs, const char *const *labels, int n, char *err);
int ar_store_note_resumed_provenance(ar_store *store, const ar_provenance *how, char *err);
/* The shard a file holds (its `shard` attribute, "I/N"): 0/1 for a whole run, which has
 * none; -1, with err naming the file, for an attribute that is not I/N with 0 <= I < N
 * and N >= 2. */
int ar_store_shard(ar_store *store, int *index, int *count, char *err);
int ar_store_set_attribute(ar_store *store, const char *name, const char *value, char *err);
/* Copy every point that src has done, its shard owns (all, for a whole run) and dst
 * has not (data, histograms, then the done ledger, flushed) from src into dst; both
 * hold the same spec. src's values at its done points are checked first (-1, err
 * naming its file, dataset and point). The merge of shards. */
int ar_store_copy_points(ar_store *dst, ar_store *src, long *copied, char *err);
int ar_store_close(ar_store *store);

/* Verdict rows: one per (experiment, claim), in spec order. */
int ar_store_verdict_count(const ar_spec *spec);
/* The rows a file holds until every point is in: each NOT RUN, with no estimate (what a
 * run writes when it makes the file, and what an incomplete file's rows must be). */
void ar_store_pending_verdicts(const ar_spec *spec, ar_verdict_row *rows);

#endif

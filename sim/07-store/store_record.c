/* store_record: a /verdicts row as the file holds it (store_parts.h's verdict_record):
 * its fields, the HDF5 compound type built from them and how two rows differ. Below
 * the checked HDF5 access, which compares a stored table's type with this one. */
#define _GNU_SOURCE
#include "store_parts.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The record's fields, in the file's order: the HDF5 type and the comparison of two rows
 * both come from this one list. */
typedef enum { FIELD_TEXT, FIELD_DOUBLE, FIELD_LLONG, FIELD_INT } field_kind;
#define FIELD(name, kind) {#name, offsetof(verdict_record, name), sizeof(((verdict_record *)0)->name), kind}
static const struct {
    const char *name;
    size_t offset, size;
    field_kind kind;
} record_fields[] = {
    FIELD(claim, FIELD_TEXT),           FIELD(experiment, FIELD_TEXT),        FIELD(point, FIELD_TEXT),
    FIELD(statement, FIELD_TEXT),       FIELD(prediction, FIELD_DOUBLE),      FIELD(estimate, FIELD_DOUBLE),
    FIELD(ci_lo, FIELD_DOUBLE),         FIELD(ci_hi, FIELD_DOUBLE),           FIELD(trials, FIELD_LLONG),
    FIELD(points, FIELD_INT),           FIELD(verdict, FIELD_TEXT),           FIELD(expected, FIELD_TEXT),
    FIELD(rule, FIELD_TEXT),            FIELD(resolution, FIELD_TEXT),        FIELD(note, FIELD_TEXT),
    FIELD(rule_kind, FIELD_TEXT),       FIELD(resolution_kind, FIELD_TEXT),   FIELD(resolution_value, FIELD_DOUBLE),
    FIELD(resolution_lo, FIELD_DOUBLE), FIELD(resolution_hi, FIELD_DOUBLE),   FIELD(loose, FIELD_INT),
    FIELD(excludes, FIELD_INT),         FIELD(note_kind, FIELD_TEXT),         FIELD(implied_by, FIELD_TEXT),
    FIELD(failed, FIELD_LLONG),         FIELD(empty_points, FIELD_LLONG),     FIELD(fit_lines, FIELD_INT),
    FIELD(fit_sizes, FIELD_INT),        FIELD(fit_dof, FIELD_INT),            FIELD(fit_rate_profiled, FIELD_INT),
    FIELD(fit_b, FIELD_DOUBLE),         FIELD(fit_chi2, FIELD_DOUBLE),        FIELD(fit_undecided, FIELD_TEXT),
};
#undef FIELD
enum { N_RECORD_FIELDS = sizeof record_fields / sizeof *record_fields };

hid_t store_verdict_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(verdict_record));
    for (int f = 0; t >= 0 && f < N_RECORD_FIELDS; ++f) {
        field_kind kind = record_fields[f].kind;
        hid_t member = kind == FIELD_TEXT ? H5Tcopy(H5T_C_S1) : kind == FIELD_DOUBLE ? H5T_NATIVE_DOUBLE
                                                           : kind == FIELD_LLONG  ? H5T_NATIVE_LLONG
                                                                                  : H5T_NATIVE_INT;
        if (kind == FIELD_TEXT && member >= 0) {
            H5Tset_size(member, record_fields[f].size);
            H5Tset_strpad(member, H5T_STR_NULLTERM);
        }
        herr_t st = member < 0 ? -1 : H5Tinsert(t, record_fields[f].name, record_fields[f].offset, member);
        if (kind == FIELD_TEXT && member >= 0)
            H5Tclose(member);
        if (st < 0) {
            H5Tclose(t);
            return -1;
        }
    }
    return t;
}

/* One field's value as text, for saying how two records differ. */
static void field_text(const verdict_record *r, int f, char *buf, size_t len)
{
    const char *at = (const char *)r + record_fields[f].offset;
    switch (record_fields[f].kind) {
    case FIELD_TEXT: snprintf(buf, len, "'%.*s'", (int)strnlen(at, record_fields[f].size), at); break;
    case FIELD_DOUBLE: {
        double v;
        memcpy(&v, at, sizeof v);
        snprintf(buf, len, "%.17g", v);
        break;
    }
    case FIELD_LLONG: {
        long long v;
        memcpy(&v, at, sizeof v);
        snprintf(buf, len, "%lld", v);
        break;
    }
    default: {
        int v;
        memcpy(&v, at, sizeof v);
        snprintf(buf, len, "%d", v);
    }
    }
}

/* The first field in which two records differ (both NaN count as equal), or -1. */
static int first_difference(const verdict_record *ra, const verdict_record *rb)
{
    for (int f = 0; f < N_RECORD_FIELDS; ++f) {
        const char *x = (const char *)ra + record_fields[f].offset, *y = (const char *)rb + record_fields[f].offset;
        size_t size = record_fields[f].size;
        int same;
        if (record_fields[f].kind == FIELD_TEXT) {
            same = strncmp(x, y, size) == 0;
        } else if (record_fields[f].kind == FIELD_DOUBLE) {
            double u, v;
            memcpy(&u, x, sizeof u), memcpy(&v, y, sizeof v);
            same = memcmp(&u, &v, sizeof u) == 0 || (isnan(u) && isnan(v));
        } else {
            same = memcmp(x, y, size) == 0;
        }
        if (!same)
            return f;
    }
    return -1;
}

int store_record_difference(const verdict_record *stored, const verdict_record *now, char *what, size_t what_len)
{
    int f = first_difference(stored, now);
    if (f >= 0 && what) {
        char was[300], is[300];
        field_text(stored, f, was, sizeof was);
        field_text(now, f, is, sizeof is);
        snprintf(what, what_len, "field %s: stored %s, re-judged %s", record_fields[f].name, was, is);
    }
    return f >= 0;
}

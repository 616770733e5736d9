/* rule_table: what every reader of a rule needs of it (theory.h's ar_rule_info), one row
 * a rule: the tables and files (name), specs and conjectures (spec_name and the fields
 * they need), the mutants, the store's prediction column. */
#include "attnrank/theory.h"

const ar_rule_info ar_rules[AR_RULE_COUNT] = {
    [AR_RULE_UPPER_BOUND] = {"bound", "upper_bound", NULL, .needs_prediction = 1, .mutation = AR_MUTATE_TIGHTER},
    [AR_RULE_LOWER_BOUND] = {"lower bound", "lower_bound", NULL, .needs_prediction = 1, .mutation = AR_MUTATE_RAISED},
    [AR_RULE_EQUALS] = {"equality", "equality", NULL, .needs_tolerance = 1, .needs_prediction = 1,
                        .mutation = AR_MUTATE_BOTH_WAYS},
    [AR_RULE_LIMIT] = {"limit", "limit", NULL, .needs_tolerance = 1, .needs_axis = 1, .needs_prediction = 1,
                       .extrapolates = 1, .mutation = AR_MUTATE_BOTH_WAYS},
    [AR_RULE_LOG_SLOPE] = {"log slope", "log_slope", NULL, .needs_tolerance = 1, .needs_axis = 1,
                           .needs_prediction = 1, .extrapolates = 1, .mutation = AR_MUTATE_BOTH_WAYS},
    [AR_RULE_DECREASING] = {"decreasing", "decreasing", "decreasing", .needs_axis = 1, .mutation = AR_MUTATE_REVERSED},
    [AR_RULE_INCREASING] = {"increasing", "increasing", "increasing", .needs_axis = 1, .mutation = AR_MUTATE_REVERSED},
    [AR_RULE_STEEPER] = {"steeper", "steeper", "steeper", .needs_axis = 1, .needs_versus = 1,
                         .no_mutants = "steeper: its mutant (the other axis steeper) needs both axes (judge.c)"},
    [AR_RULE_EVERY_TRIAL] = {"every trial", "every_trial", NULL, .needs_prediction = 1,
                             .mutation = AR_MUTATE_TIGHTER},
    [AR_RULE_WITNESS] = {"witness", "witness", NULL, .needs_prediction = 1,
                         .no_mutants = "existence claim (witness): no prediction to perturb, cannot be VIOLATED"},
    [AR_RULE_MEASURE] = {"measure", "measure", NULL, .no_mutants = "measurement: no prediction"},
    [AR_RULE_REFERENCE] = {"reference", NULL, NULL, .needs_prediction = 1, .no_mutants = "reference curve: no verdict"},
};

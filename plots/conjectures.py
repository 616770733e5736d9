#!/usr/bin/python3
"""Figures of users' conjectures, for any experiment of any simulator, from an attnrank
result file (a run's, or the copy `attnrank judge -o` writes).

usage: conjectures.py RESULT.h5 OUTDIR [EXPERIMENT...]

A conjecture is a theory dataset whose `kind` attribute is "conjecture" (files written
before conjectures existed have no kind: their theory datasets are all claims, and get
no figure here). Each gets one figure: the estimate of its output (mean with its 95%
interval) against the conjecture's axis (its `along` field, else the experiment's first
axis), one line per value of the other axes where it speaks (at most MAX_LINES, the
deciding point's among them, starred), with the prediction theory/<id> dashed in the
line's colour (filled markers where the conjecture speaks, open where it is silent);
for every-trial and witness rules the largest trial too. The panel's title is the verdict and
resolution from /verdicts, the figure's title the statement, its caption the formula.
A per-layer output is drawn at the conjecture's `element`, read from its line in the
stored canonical spec (`element = K;`, negative from the end of each point's vector)."""
import itertools
import re
import sys

import numpy as np

import common
from common import AS_TEXT, THEORY, PlotError, each_drawn, figure, finish, main, text

MAX_LINES = 8
VERDICT_COLORS = {"HOLDS": "#2a7d2a", "VIOLATED": "#b22222", "INCONCLUSIVE": "#a0701a"}
# Rules whose theory values are only a reference (the direction is judged) and rules
# about single trials (the largest trial is drawn); spec names, then /verdicts' names.
TRENDS = ("increasing", "decreasing", "steeper")
PER_TRIAL = ("every_trial", "witness", "every trial")
STATS = ("mean", "stderr", "std", "ci_lo", "ci_hi", "min", "max", "count", "failed", "hist", "hist_value", "hist_count",
         "value")
# One `key = value;` of a canonical spec line: a quoted string, a [list], or a bare value.
FIELD = re.compile(r'(\w+)\s*=\s*("(?:[^"\\]|\\.)*"|\[[^\]]*\]|[^;"\[]*?)\s*;')


def conjecture_ids(exp):
    """The experiment's conjectures, in the order of its claims attribute."""
    theory = exp.group.get("theory")
    if theory is None or not hasattr(theory, "keys"):
        return []
    ids = [c for c in exp.claims if c in theory] + sorted(c for c in theory.keys() if c not in exp.claims)
    if common.THEORY_TEXTS is not None:  # only the stored spec's claims, as attnrank re-derives them
        ids = [c for c in ids if (exp.name, c) in common.THEORY_TEXTS]
    return [c for c in ids if hasattr(theory[c], "shape") and exp.theory_text(c)["kind"] == "conjecture"]


def spec_fields(exp, cid):
    """The conjecture's fields as the canonical spec stores them ({} if it is not there):
    the line `{ id = "CID"; ... }` after the experiment's `name = "..."` line."""
    canonical = text(exp.group.file.attrs.get("spec_canonical", ""))
    current = None
    for line in canonical.splitlines():
        name = re.fullmatch(r'\s*name\s*=\s*"([^"]*)";\s*', line)
        if name:
            current = name.group(1)
        elif current == exp.name and re.match(r'\s*\{\s*id\s*=\s*"' + re.escape(cid) + '";', line):
            return {k: v[1:-1] if v.startswith('"') else v for k, v in FIELD.findall(line)}
    return {}


def verdict_row(exp, cid):
    """The conjecture's row of /verdicts, its text fields, or {} if the file has none."""
    table = exp.group.file.get("verdicts")
    names = getattr(getattr(table, "dtype", None), "names", None) or ()
    if not {"claim", "experiment", "verdict"} <= set(names) or len(getattr(table, "shape", ())) != 1:
        return {}
    for row in table[...]:
        if text(row["claim"]) == cid and text(row["experiment"]) == exp.name:
            return {k: row[k].decode(errors="replace") if isinstance(row[k], bytes) else row[k].item() for k in names}
    return {}


def on_axis(value, want):
    """Does an axis value equal a value written as text in a verdict's point ('n=8')?"""
    if isinstance(value, str):
        return value == want
    try:
        return bool(np.isclose(float(value), float(want), rtol=1e-6))
    except (TypeError, ValueError):
        return False


def estimate(exp, output, element, names=("mean", "ci_lo", "ci_hi", "max")):
    """The statistics over the grid (a vector output's at the element) and the y label;
    None for the statistics where the element is not known."""
    grid = tuple(len(exp.coords[a]) for a in exp.axis_names)
    stats = [np.asarray(exp.get(output, s), float) for s in names]
    if any(s.shape != stats[0].shape for s in stats):
        raise PlotError(f"{exp.path}: /{exp.name}/{output}: {', '.join(names)} differ in shape")
    if stats[0].shape == grid:
        return stats, output
    if stats[0].shape[:-1] != grid or stats[0].shape[-1] < 1:
        raise PlotError(f"{exp.path}: /{exp.name}/{output}/mean has shape {stats[0].shape}, not the grid's {grid}")
    try:
        k = int(element)
    except (TypeError, ValueError):
        return None, output
    group, width = exp.group[output], stats[0].shape[-1]
    # A point's vector holds as many values as it has trials counted (finite or failed):
    # a negative element counts from the end of each point's own vector, as the judge's.
    lengths = np.full(grid, width)
    if k < 0 and all(s in group and group[s].shape == stats[0].shape for s in ("count", "failed")):
        seen = (group["count"][...] + group["failed"][...]) > 0
        lengths = np.where(seen.any(-1), width - np.argmax(seen[..., ::-1], axis=-1), 0)
    index = lengths + k if k < 0 else np.full(grid, k)
    valid = (index >= 0) & (index < lengths)
    at = np.clip(index, 0, width - 1)[..., None]
    picked = [np.where(valid, np.take_along_axis(s, at, -1)[..., 0], np.nan) for s in stats]
    # the vector's index (a 1-D dataset beside the statistics, e.g. layer) names the element
    scale = next((s for s in group.keys() if s not in STATS and getattr(group[s], "shape", None) == (width,)), None)
    if k < 0:
        which = f"last {scale}" if k == -1 and scale else f"element {k}"
    elif scale and k < width:
        value = group[scale][k]
        which = f"{scale} {text(value)}" if group[scale].dtype.kind in "SO" else f"{scale} {value:g}"
    else:
        which = f"element {k}"
    return picked, f"{output}, {which}"


def layout(exp, fields):
    """The x axis (the conjecture's along, else the first axis; one position for a
    single point): its name, the x values, tick labels for a non-numeric axis, its
    index among the axes and the other axes."""
    axes = exp.axis_names
    along = fields.get("along") if fields.get("along") in axes else (axes[0] if axes else None)
    if along is None:
        return None, np.zeros(1), ["single point"], 0, []
    values = exp.coords[along]
    numeric = not isinstance(values[0], str)
    xs = np.asarray(values, float) if numeric else np.arange(len(values), dtype=float)
    return along, xs, None if numeric else list(values), axes.index(along), [a for a in axes if a != along]


def through(exp, others, combo, decisive):
    """Does the line of this combination of the other axes pass the deciding point?"""
    return bool(decisive) and all(on_axis(exp.coords[a][i], decisive.get(a)) for a, i in zip(others, combo))


def lines_to_draw(exp, others, speaks_along, decisive):
    """Which combinations of the other axes get a line (index tuples): those where the
    conjecture speaks (all if it speaks on none), the deciding point's first, then
    spread evenly, MAX_LINES in all; and a note on those left out."""
    combos = list(itertools.product(*(range(len(exp.coords[a])) for a in others)))
    pool = [c for c in combos if speaks_along[c].any()] or combos
    chosen = [c for c in pool if through(exp, others, c, decisive)][:1]
    rest, room = [c for c in pool if c not in chosen], MAX_LINES - len(chosen)
    if room > 0 and rest:
        chosen += [rest[i] for i in np.unique(np.linspace(0, len(rest) - 1, min(room, len(rest))).astype(int))]
    some, over = f"{len(chosen)} of {len(combos)}", ", ".join(others)
    left_out = "" if len(chosen) == len(combos) else f"{some} lines over {over}" if len(chosen) < len(pool) else \
        f"only the lines where it speaks ({some} over {over})"
    return sorted(chosen), left_out


def label_of(exp, others, combo, fallback):
    return ", ".join(f"{a} = {exp.coords[a][i]}" if isinstance(exp.coords[a][i], str) else f"{a} = {exp.coords[a][i]:g}"
                     for a, i in zip(others, combo)) or fallback


def x_axis(ax, along, xs, ticks):
    """Names for a non-numeric axis; log scale for one over a decade or more; the grid's
    values as ticks when there are few."""
    ax.set_xlabel(along or "")
    if ticks is not None:
        ax.set_xticks(xs, ticks)
        return
    if (xs > 0).all() and xs.max() / xs.min() >= 10:
        ax.set_xscale("log", base=2 if all(float(x).is_integer() for x in xs) else 10)
    if len(xs) <= 8:
        ax.set_xticks(xs, [f"{x:g}" for x in xs])
        ax.minorticks_off()


def conjecture_figure(exp, cid, outdir):
    theory_ds = exp.group["theory"][cid]
    grid = tuple(len(exp.coords[a]) for a in exp.axis_names)
    if theory_ds.shape != grid:
        raise PlotError(f"{exp.path}: /{exp.name}/theory/{cid} has shape {theory_ds.shape}, not the grid's {grid}")
    texts = exp.theory_text(cid)
    output, statement, formula = texts["output"], texts["statement"], texts["formula"]
    fields, row = spec_fields(exp, cid), verdict_row(exp, cid)
    rule = fields.get("rule", row.get("rule_kind", ""))
    verdict, resolution = row.get("verdict", "no verdict row"), row.get("resolution", "")
    decisive = dict(part.split("=", 1) for part in row.get("point", "").split() if "=" in part)
    stats, ylabel = estimate(exp, output, fields.get("element"))
    along, xs, ticks, along_at, others = layout(exp, fields)

    def on_x(a):  # the array with the x axis last (one position for a single point)
        return np.moveaxis(np.asarray(a)[None] if along is None else np.asarray(a), along_at, -1)

    theory = on_x(exp.theory(cid))  # left out where the ledger says not done
    stats = stats and [on_x(s) for s in stats]
    # a conjecture without a prediction (a trend, a measure) stores 0 where it speaks: not drawn
    predicted = ("prediction" in fields or (not fields and formula not in ("", "(none)"))) and not exp.shard
    what = "reference" if rule in TRENDS else "prediction"
    chosen, left_out = lines_to_draw(exp, others, np.isfinite(theory), decisive)

    fig, (ax,) = figure(4.6, 2.8)
    star = None
    for c in chosen:
        label, f = label_of(exp, others, c, output), theory[c]
        speaks, color = np.isfinite(f), THEORY["color"]
        if stats is not None:
            mean, lo, hi, top = (s[c] for s in stats)
            (line,) = ax.plot(xs, mean, marker="o", markerfacecolor="none",
                              label=label + ("" if speaks.any() else " (silent)"))
            color = line.get_color()
            ax.fill_between(xs, lo, hi, color=color, alpha=0.2, linewidth=0)
            ax.plot(xs[speaks], mean[speaks], linestyle="none", marker="o", color=color, label=f"_speaks {label}")
            if rule in PER_TRIAL:
                ax.plot(xs, top, linestyle=":", marker="x", color=color, linewidth=0.8, label=f"_largest {label}")
            hit = [j for j in range(len(xs)) if along is None or on_axis(exp.coords[along][j], decisive.get(along))]
            if hit and through(exp, others, c, decisive):
                star = (xs[hit[0]], mean[hit[0]], color)
        if predicted:
            ax.plot(xs, f, **dict(THEORY, color=color), label=f"_prediction {label}")
    if star:
        ax.plot(star[0], star[1], linestyle="none", marker="*", markersize=9, color=star[2], markeredgecolor="black",
                markeredgewidth=0.5, label="deciding point")
    if stats is not None and rule in PER_TRIAL:
        ax.plot([], [], linestyle=":", marker="x", color="0.3", linewidth=0.8, label="largest trial")
    if predicted:
        ax.plot([], [], **THEORY, label=f"{what} (theory/{cid})")
    x_axis(ax, along, xs, ticks)
    ax.set_ylabel(f"E[{ylabel}]")
    ax.set_title(f"{verdict}: {resolution}" if resolution else verdict, fontsize=8,
                 color=VERDICT_COLORS.get(verdict, "0.3"), **AS_TEXT)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0)

    formula = formula if predicted else ""
    drawn = (
        "bands: 95% intervals" if stats is not None
        else f"estimate not drawn: {output} is per layer and the stored spec gives no element",
        f"dashed: the {what}" if predicted else exp.no_theory or
        "no prediction" + (": the rule judges the direction" if rule in TRENDS else ""),
        "dotted: the largest trial" if stats is not None and rule in PER_TRIAL else "",
        "" if exp.shard else "filled markers: where it speaks")
    title = f"user conjecture: {statement}"
    entry = finish(fig, exp, title if len(title) <= 90 else title[:87] + "...", [cid],
                   f"{exp.name}_conjecture_{cid}", outdir,
                   joined(f"user conjecture ({rule})", f"formula {formula}" if formula else "", left_out))
    # the report's caption says it all; the figure's own line stays short
    # the row's own numbers, as /verdicts stores them (the claims' captions give them too)
    number = lambda key: float(row.get(key, np.nan))  # noqa: E731
    value = f"estimate {number('estimate'):.6g} [{number('ci_lo'):.6g}, {number('ci_hi'):.6g}]" \
        if np.isfinite(number("estimate")) else "no estimate"
    against = f" against prediction {number('prediction'):.6g}" if np.isfinite(number("prediction")) else ""
    counts = f"{int(row.get('trials', 0))} trials over {int(row.get('points', 0))} points" if row else ""
    entry["caption"] = exp.caption(joined(
        f"user conjecture ({rule}): {statement}", f"formula {formula}" if formula else "",
        f"verdict {verdict}" + (f" (expected {row['expected']})" if row.get("expected") else "") +
        (f", resolution {resolution}" if resolution else ""), value + against if row else "", counts,
        *drawn, left_out))
    return entry


def joined(*parts):
    return "; ".join(p for p in parts if p)


def figures_for(exp, outdir):
    return each_drawn(exp, conjecture_ids(exp), lambda cid: conjecture_figure(exp, cid, outdir), lambda cid: cid)


if __name__ == "__main__":
    sys.exit(main(figures_for))

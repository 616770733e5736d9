#!/usr/bin/python3
"""A figure for every claim row of /verdicts (claim x experiment), whatever its family,
from an attnrank result file: what the verdict was decided on, as the file stores it.

usage: claims.py RESULT.h5 OUTDIR [EXPERIMENT...]

Two panels. Left: the estimate of the claim's output (mean with its 95% interval as a
band, theory/<claim>.attrs["output"]) against the claim's axis (the one its rule
names, "limit along n ..."; else the first axis with more than one value; one
position for a single point), one line per value of the other axes where the claim
speaks (at most MAX_LINES, the deciding point's among them, at most MAX_POINTS
positions a line, so a grid of 10^6 points stays one small figure), the prediction
theory/<claim> dashed where it is in the output's units, the largest trial dotted for
every-trial and witness rules, and a star where the verdict's estimate lies on a drawn
curve. Right: the verdict's own estimate and interval from /verdicts (a limit's
extrapolated constant, a slope, the deciding point's mean or largest trial) as one
point with its bar, beside the prediction, the verdict and the trial count in the
caption. Nothing is recomputed: every number drawn is a dataset's or /verdicts'.
A vector output (per layer) is drawn at the element whose value at the deciding point
is the verdict's estimate (the last one when none is; the caption says which).
Users' conjectures are left to conjectures.py, which draws the same for them."""
import re
import sys

import matplotlib.pyplot as plt
import numpy as np

import conjectures
from common import AS_TEXT, THEORY, PlotError, each_drawn, finish, main, text

MAX_LINES = conjectures.MAX_LINES
MAX_POINTS = 200  # positions drawn along a line; more are thinned evenly (said in the caption)
MARKERS_UP_TO = 40  # markers on the lines when this few positions are drawn
# Rules whose theory/<claim> is in the output's units (drawn beside it); the trends and a
# measurement store a placeholder, a log slope's is a slope.
SAME_UNITS = ("bound", "upper bound", "lower bound", "equality", "limit", "every trial", "witness")
NO_PREDICTION = ("increasing", "decreasing", "steeper", "measure", "reference")
PER_TRIAL = ("every trial", "witness")
FLOATS = ("estimate", "ci_lo", "ci_hi", "prediction")


def verdict_rows(exp):
    """The experiment's rows of /verdicts, each a dict (text decoded), in file order."""
    table = exp.group.file.get("verdicts")
    names = getattr(getattr(table, "dtype", None), "names", None) or ()
    if not {"claim", "experiment", "verdict", "estimate"} <= set(names) or len(getattr(table, "shape", ())) != 1:
        return []
    rows = []
    for row in table[...]:
        if text(row["experiment"]) != exp.name:
            continue
        rows.append({k: row[k].decode(errors="replace") if isinstance(row[k], bytes) else row[k].item()
                     for k in names})
    return rows


def is_conjecture(exp, cid):
    theory = exp.group.get("theory")
    try:
        return theory is not None and cid in theory and exp.theory_text(cid)["kind"] == "conjecture"
    except PlotError:  # no claim of the stored spec: claim_figure says so, for this row alone
        return False


def along_of(exp, row):
    """The claim's axis: the one its rule names, else the first swept axis, else None."""
    named = re.search(r"\balong ([A-Za-z_][A-Za-z0-9_]*)", row.get("rule", ""))
    if named and named.group(1) in exp.axis_names:
        return named.group(1)
    swept = [a for a in exp.axis_names if len(exp.coords[a]) > 1]
    numeric = [a for a in swept if not isinstance(exp.coords[a][0], str)]
    return (numeric or swept or exp.axis_names or [None])[0]


def deciding_index(exp, decisive):
    """The grid index of the verdict's point ('n=8 d_h=1024'), or None."""
    index = []
    for a in exp.axis_names:
        hit = [i for i, v in enumerate(exp.coords[a]) if conjectures.on_axis(v, decisive.get(a))]
        if not hit:
            return None
        index.append(hit[0])
    return tuple(index)


def element_of(exp, output, row, at):
    """For a vector output: the element the verdict's estimate is read at (-1: each
    point's last), and a note; (None, "") for a scalar output."""
    grid = tuple(len(exp.coords[a]) for a in exp.axis_names)
    group = exp.group[output]
    if "mean" not in group or group["mean"].shape == grid:
        return None, ""
    width = group["mean"].shape[-1]
    estimate = row.get("estimate", np.nan)
    if at is not None and np.isfinite(estimate):
        stats = [np.asarray(group[s][at], float) for s in ("mean", "max", "min") if s in group]
        length = width
        if "count" in group and "failed" in group:
            seen = (group["count"][at] + group["failed"][at]) > 0
            length = width - int(np.argmax(seen[::-1])) if seen.any() else 0
        order = ([length - 1] if length > 0 else []) + list(range(width))
        for k in order:
            if any(np.isclose(s[k], estimate, rtol=1e-9, atol=0) for s in stats):
                return (-1 if k == length - 1 else k), ""
    return -1, "the verdict's estimate is none of this point's values: drawn at each point's last element"


def thinned(n, keep):
    """At most MAX_POINTS positions of n, evenly spread, keep among them."""
    if n <= MAX_POINTS:
        return np.arange(n)
    picked = set(np.unique(np.linspace(0, n - 1, MAX_POINTS).astype(int)).tolist())
    picked.update(k for k in keep if k is not None)
    return np.array(sorted(picked))


def y_scale(ax, values):
    """Log for positive values over more than three decades, else linear (values of both
    signs stay linear: where the interval crosses 0 is what matters)."""
    v = np.concatenate([np.ravel(np.asarray(x, float)) for x in values]) if values else np.zeros(0)
    v = v[np.isfinite(v)]
    if v.size >= 2 and (v > 0).all() and v.max() / v.min() > 1e3:
        ax.set_yscale("log")


def what_estimate(row, along):
    """What the verdict's estimate is, for the right panel's label."""
    kind, point = row.get("rule_kind", ""), row.get("point", "")
    if not np.isfinite(row.get("estimate", np.nan)):
        return "no estimate to show"
    if kind == "limit":
        return f"extrapolated limit along {along}" if along else "extrapolated limit"
    if kind == "log slope":
        return f"fitted slope along ln {along}" if along else "fitted slope"
    if kind in PER_TRIAL:
        return f"largest trial at {point}; bar: smallest to largest trial"
    return f"mean at {point}; bar: 95% interval"


def claim_figure(exp, row, outdir):
    cid = row["claim"]
    theory_ds = exp.group["theory"][cid]
    grid = tuple(len(exp.coords[a]) for a in exp.axis_names)
    if theory_ds.shape != grid:
        raise PlotError(f"{exp.path}: /{exp.name}/theory/{cid} has shape {theory_ds.shape}, not the grid's {grid}")
    texts = exp.theory_text(cid)
    output = texts["output"]
    if output not in exp.group:
        raise PlotError(f"{exp.path}: /{exp.name} lacks the output {output} that theory/{cid} names")
    statement, formula = texts["statement"], texts["formula"]
    kind, verdict = row.get("rule_kind", ""), row.get("verdict", "")
    decisive = dict(part.split("=", 1) for part in row.get("point", "").split() if "=" in part)
    at = deciding_index(exp, decisive)
    element, element_note = element_of(exp, output, row, at)
    names = ("mean", "ci_lo", "ci_hi", "max")
    stats, ylabel = conjectures.estimate(exp, output, element, names)
    along, xs, ticks, along_at, others = conjectures.layout(exp, {"along": along_of(exp, row)})

    def on_x(a):  # the array with the x axis last (one position for a single point)
        return np.moveaxis(np.asarray(a)[None] if along is None else np.asarray(a), along_at, -1)

    theory = on_x(exp.theory(cid))  # left out where the ledger says not done
    stats = [on_x(s) for s in stats]
    chosen, left_out = conjectures.lines_to_draw(exp, others, np.isfinite(theory), decisive)
    hit = None if at is None or along is None else at[exp.axis_names.index(along)]
    shown = thinned(len(xs), [hit])
    thin = f"{len(shown)} of {len(xs)} values of {along}" if len(shown) < len(xs) else ""
    hit = None if hit is None else int(np.searchsorted(shown, hit))
    xs = xs[shown]
    if ticks is not None:
        ticks = [ticks[i] for i in shown]
    predicted = kind in SAME_UNITS and not exp.shard
    markers = dict(marker="o", markersize=3) if len(xs) <= MARKERS_UP_TO else dict(marker=None)

    fig, (ax, av) = plt.subplots(1, 2, figsize=(6.6, 3.1), gridspec_kw={"width_ratios": [3.2, 1]})
    star, drawn_values = None, []
    for c in chosen:
        label = conjectures.label_of(exp, others, c, output)
        mean, lo, hi, top = (s[c][shown] for s in stats)
        f = theory[c][shown]
        if len(xs) == 1:  # a single position: a bar, not a band
            line = ax.errorbar(xs, mean, yerr=[mean - lo, hi - mean], fmt="o", capsize=3, label=label)[0]
        else:
            (line,) = ax.plot(xs, mean, label=label, **markers)
            ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
        color = line.get_color()
        drawn_values += [mean, lo, hi]
        if kind in PER_TRIAL:
            ax.plot(xs, top, linestyle=":" if len(xs) > 1 else "none", marker="x", color=color, linewidth=0.8,
                    label=f"_largest {label}")
            drawn_values.append(top)
        if predicted and np.isfinite(f).any():
            if len(xs) == 1:  # a single position: the prediction across the panel
                ax.axhline(f[0], **dict(THEORY, color=color), label=f"_prediction {label}")
            else:
                ax.plot(xs, f, **dict(THEORY, color=color), label=f"_prediction {label}")
            drawn_values.append(f)
        if hit is not None and conjectures.through(exp, others, c, decisive):
            for curve in (mean, top):
                if np.isclose(curve[hit], row.get("estimate", np.nan), rtol=1e-9, atol=0):
                    star = (xs[hit], curve[hit], color)
                    break
    if star:
        ax.plot(star[0], star[1], linestyle="none", marker="*", markersize=9, color=star[2], markeredgecolor="black",
                markeredgewidth=0.5, label="verdict's estimate")
    if kind in PER_TRIAL:
        ax.plot([], [], linestyle=":", marker="x", color="0.3", linewidth=0.8, label="largest trial")
    if predicted:
        ax.plot([], [], **THEORY, label=f"prediction (theory/{cid})")
    conjectures.x_axis(ax, along, xs, ticks)
    if ticks is not None and sum(len(t) for t in ticks) > 40:  # names that would run into each other
        ax.tick_params(axis="x", labelrotation=30, labelsize=7)
    y_scale(ax, drawn_values)
    ax.set_ylabel(f"E[{ylabel}]")
    resolution = row.get("resolution", "").strip(" -")
    ax.set_title(f"{verdict}: {resolution}" if resolution else verdict, fontsize=8,
                 color=conjectures.VERDICT_COLORS.get(verdict, "0.3"), **AS_TEXT)
    legend(ax, 6)

    # the verdict's own estimate, interval and prediction, as /verdicts stores them
    estimate, lo, hi, prediction = (float(row.get(k, np.nan)) for k in FLOATS)
    has_prediction = kind not in NO_PREDICTION and np.isfinite(prediction)
    color = conjectures.VERDICT_COLORS.get(verdict, "0.3")
    if np.isfinite(estimate):
        below, above = (estimate - lo, hi - estimate) if np.isfinite(lo) and np.isfinite(hi) else (0, 0)
        av.errorbar([0], [estimate], yerr=[[max(below, 0)], [max(above, 0)]], fmt="*", markersize=9, capsize=4,
                    color=color, markeredgecolor="black", markeredgewidth=0.5, label="estimate")
    else:
        av.text(0.5, 0.5, f"no estimate\n({verdict or 'no verdict'})", ha="center", va="center", fontsize=7,
                transform=av.transAxes, **AS_TEXT)
        av.set_yticks([])
    if has_prediction:
        av.axhline(prediction, **THEORY, label=f"prediction {prediction:.4g}")
    y_scale(av, [estimate, lo, hi] + ([prediction] if has_prediction else []))
    av.set_xlim(-1, 1)
    av.set_xticks([0], [f"{int(row.get('trials', 0))} trials"], fontsize=6)
    av.set_xlabel(what_estimate(row, along), fontsize=6, wrap=True, **AS_TEXT)
    av.set_title(f"{verdict}\n(expected {row['expected']})" if row.get("expected") else verdict, fontsize=7,
                 color=color, **AS_TEXT)
    av.tick_params(axis="y", labelsize=6)
    legend(av, 5.5)

    value = f"estimate {estimate:.6g} [{lo:.6g}, {hi:.6g}]" if np.isfinite(estimate) else "no estimate"
    against = f"prediction {prediction:.6g}" if has_prediction else \
        "no prediction: the rule judges the direction" if kind in ("increasing", "decreasing", "steeper") else \
        "no prediction: a measurement" if kind == "measure" else ""
    drawn = joined("bands: 95% intervals of the mean",
                   "dashed: theory/" + cid if predicted else exp.no_theory if kind in SAME_UNITS else "",
                   "dotted: the largest trial" if kind in PER_TRIAL else "",
                   element_note and f"{ylabel}: {element_note}", thin, left_out)
    title = statement if len(statement) <= 90 else statement[:87] + "..."
    entry = finish(fig, exp, title, [cid], safe_stem(f"{exp.name}_verdict_{cid}"), outdir,
                   joined(f"{kind} rule", drawn), tight=False)
    entry["caption"] = exp.caption(joined(
        f"{cid} ({kind}): {statement}", f"formula {formula}" if formula else "",
        f"verdict {verdict}" + (f" (expected {row['expected']})" if row.get("expected") else "") +
        (f", resolution {resolution}" if resolution else ""),
        f"{value} against {against}" if against else value,
        f"{int(row.get('trials', 0))} trials over {int(row.get('points', 0))} points", f"rule: {row.get('rule', '')}",
        drawn))
    return entry


def legend(ax, size):
    if ax.get_legend_handles_labels()[0]:  # an empty legend is not drawn (nor warned about)
        ax.legend(fontsize=size, loc="best")


def safe_stem(stem):
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", stem)


def joined(*parts):
    return "; ".join(p for p in parts if p)


def figures_for(exp, outdir):
    """A figure per claim row of the experiment (users' conjectures: conjectures.py)."""
    rows = [row for row in verdict_rows(exp) if not is_conjecture(exp, row["claim"])
            and "theory" in exp.group and row["claim"] in exp.group["theory"]]
    return each_drawn(exp, rows, lambda row: claim_figure(exp, row, outdir), lambda row: row["claim"])


if __name__ == "__main__":
    sys.exit(main(figures_for))

#!/usr/bin/python3
"""A figure per attack of an attack file (`attnrank attack`): the search and where the
claim is tightest, drawn from /attacks/<id>'s tables.

usage: attacks.py ATTACKS.h5 OUTDIR

`attnrank report` checks the file first and writes OUTDIR/attacks.tsv: per attack the
values it re-derived (verdict, deciding point and row, estimate, counts, the space's log
dimensions). Titles and captions are drawn from those alone, never from the group's
display attributes (claim, point, estimate, ci_*, rule, ...), which nothing checks; only
the attacks it names are drawn. Run alone, without that file, the script draws each
search with no verdict.

Left: the objective of every evaluation against its order (larger is worse for the
claim; the halving, local and race stages in their own colours), the best so far as a
line, and the confirmed candidates' confirmation estimates as stars on the right edge.
Right: the searched region over the space's first two dimensions (a set drawn at its
values' positions), each candidate coloured by its last objective, the deciding
confirmation point ringed. Nothing is recomputed: every number is a dataset's (checked by
attnrank before the script runs) or one attnrank re-derived."""
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import common  # noqa: E402

STAGES = {0: ("halving", "tab:blue"), 1: ("local", "tab:orange"), 2: ("race", "tab:green")}


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def columns(dataset):
    return text(dataset.attrs["columns"]).split(",")


def derived_rows(outdir):
    """attnrank report's re-derived rows (attacks.tsv), by attack id; None without it."""
    path = os.path.join(outdir, "attacks.tsv")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as f:
        names = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(names, line.rstrip("\n").split("\t"))) for line in f if line.strip()]
    return {row["id"]: row for row in rows}


def figure_for(attack_id, g, outdir, derived=None):
    ev, conf = g["evaluations"][()], g["confirmations"][()]
    ecols, ccols = columns(g["evaluations"]), columns(g["confirmations"])
    dims = ecols[len(ecols) - (len(ecols) - 11):] if len(ecols) > 11 else []
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.2, 3.0))
    if len(ev):
        objective = ev[:, ecols.index("objective")]
        finite = np.isfinite(objective)
        order = np.arange(len(ev))
        for stage, (label, color) in STAGES.items():
            mask = finite & (ev[:, ecols.index("stage")] == stage)
            if mask.any():
                left.scatter(order[mask], objective[mask], s=4, color=color, label=label, alpha=0.6)
        best = np.maximum.accumulate(np.where(finite, objective, -np.inf))
        left.plot(order, np.where(np.isfinite(best), best, np.nan), color="black", linewidth=1, label="best so far")
    left.axhline(0, color="red", linestyle="--", linewidth=0.8, label="the claim's edge")
    left.set_xlabel("evaluation")
    left.set_ylabel("objective (worse for the claim: up)")
    left.legend(fontsize=6, loc="lower right")
    # the searched region: the first two dimensions, candidates at their last evaluation
    if dims and len(ev):
        xs = ev[:, ecols.index(dims[0])]
        ys = ev[:, ecols.index(dims[1])] if len(dims) > 1 else ev[:, ecols.index("objective")]
        last = {}
        for i, c in enumerate(ev[:, ecols.index("candidate")].astype(int)):
            last[c] = i
        rows = np.array(sorted(last.values()))
        objective = ev[rows, ecols.index("objective")]
        shown = np.isfinite(objective)
        points = right.scatter(xs[rows][shown], ys[rows][shown], c=objective[shown], s=8, cmap="viridis")
        fig.colorbar(points, ax=right, label="objective")
        deciding = int(derived["deciding_row"]) if derived else -1
        if 0 <= deciding < len(conf):
            cx = conf[deciding, ccols.index(dims[0])]
            cy = conf[deciding, ccols.index(dims[1])] if len(dims) > 1 else np.nan
            if len(dims) > 1:
                right.scatter([cx], [cy], s=80, facecolors="none", edgecolors="red", linewidths=1.5,
                              label="deciding point")
                right.legend(fontsize=6)
        right.set_xlabel(dims[0])
        right.set_ylabel(dims[1] if len(dims) > 1 else "objective")
        logs = derived["log_dims"].split() if derived else []
        for axis, name in ((right.xaxis, dims[0]), (right.yaxis, dims[1] if len(dims) > 1 else None)):
            if name in logs:
                (right.set_xscale if axis is right.xaxis else right.set_yscale)("log")
    if derived:
        d = derived
        title = f"attack {attack_id} on {d['claim']}: {d['verdict']}"
        caption = (f"{d['rule']}; {d['candidates']} candidates, {d['evaluations']} evaluations, "
                   f"{d['search_trials']} search trials; {d['confirmation_points']} confirmation points, "
                   f"{d['confirm_trials']} trials on fresh streams; deciding point {d['point']}")
        if np.isfinite(float(d["estimate"])):
            caption += (f": estimate {float(d['estimate']):.6g} [{float(d['ci_lo']):.6g}, {float(d['ci_hi']):.6g}] "
                        f"against {float(d['prediction']):.6g}; {d['resolution']}")
        claims = [d["claim"]]
    else:
        title = f"attack {attack_id}: the search (verdict not shown: attnrank report re-derives it)"
        caption = f"{len(ev)} evaluations, {len(conf)} confirmation points, as stored; nothing here is checked"
        claims = []
    fig.suptitle(title, fontsize=9, **common.AS_TEXT)
    fig.tight_layout(rect=(0, 0.08, 1, 0.93))
    fig.text(0.01, 0.01, caption, fontsize=6, color="0.35", wrap=True, **common.AS_TEXT)
    os.makedirs(outdir, exist_ok=True)
    files = {}
    for fmt in common.FORMATS:
        path = os.path.join(outdir, f"attack_{attack_id}.{fmt}")
        fig.savefig(path)
        files[fmt] = path
    plt.close(fig)
    return {"experiment": attack_id, "claims": claims, "title": title, "files": files, "caption": caption}


def figures_for_file(f, outdir):
    if "attacks" not in f:
        raise common.PlotError("no /attacks group: not an attack file")
    derived = derived_rows(outdir)
    if derived is None:
        return [figure_for(name, f["attacks"][name], outdir) for name in f["attacks"].keys()]
    # the attacks attnrank checked, in the spec's order; any other group is not drawn
    return [figure_for(name, f["attacks"][name], outdir, row) for name, row in derived.items()]


def run(argv):
    if len(argv) != 2:
        print("usage: attacks.py ATTACKS.h5 OUTDIR", file=sys.stderr)
        return 2
    try:
        with common.open_result(argv[0]) as f:
            entries = figures_for_file(f, argv[1])
    except common.PlotError as e:
        print(f"attacks.py: {e}", file=sys.stderr)
        return 2
    print(f"{len(entries)} figures in {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))

#!/usr/bin/python3
"""Figures of the hardmax rank bound (H1-H5), from an attnrank result file.

usage: sim/05-families/hardmax/hardmax.py RESULT.h5 OUTDIR [EXPERIMENT...]

hardmax_rank over (n, d_h): E[rank]/n against d_h, one line per n, with the bounds
(1 - 1/e) + 1/n (H1, or H4 where tied weights break its assumption) and
1 - (1 - 1/n)^n (H2) read from the file's theory datasets;
the rank's histogram at the largest n for a few d_h. softmax_rank over tau: the rank
measures against the temperature, log-x, one panel per d_h (H5); where the experiment
judges H5ratio, ln(sigma_{d_h+2} / sigma_{d_h+1}) against tau instead.
hardmax_saturation over log2_n: the saturation position against log2 n, log-log (H2sat)."""
import os
import sys

import numpy as np

if "common" not in sys.modules:  # run alone: the scripts' shared helpers are in plots/
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "plots"))
from common import THEORY, PlotError, band, figure, finish, main


# More lines than this in one panel are unreadable: a grid with more n draws this many
# of them, evenly spaced, and a heat map of the whole (n, d_h) plane.
MAX_LINES = 8


def heat_map(exp, fix, outdir, extra):
    """E[rank] over H2's bound on the whole (n, d_h) plane: one pixel a point, so a
    10^4-point plane stays one readable figure."""
    ns, dhs = np.asarray(exp.coords["n"]), np.asarray(exp.coords["d_h"])
    mean = exp.get("argmax_rank", "mean", **fix)
    try:
        bound = exp.theory("H2", **fix)
        if exp.shard:  # it holds no bound to divide by
            raise PlotError("a shard")
        ratio, label = mean / bound, "E[rank] / H2's bound n(1 - (1 - 1/n)^n)"
    except PlotError:
        ratio, label = mean / ns[:, None], "E[rank] / n"
    if exp.axis_names.index("n") > exp.axis_names.index("d_h"):
        ratio = ratio.T
    fig, (ax,) = figure(3.6, 2.9)
    # rasterized: an image of the plane, not a path per cell (10^6 cells would be 10^8 bytes of SVG)
    image = ax.pcolormesh(dhs, ns, ratio, shading="nearest", cmap="viridis", rasterized=True)
    fig.colorbar(image, ax=ax, label=label)
    ax.set_xscale("log", base=2) if dhs.min() > 0 and dhs.max() / dhs.min() > 16 else None
    ax.set_xlabel("head dimension $d_h$")
    ax.set_ylabel("tokens n")
    return finish(fig, exp, "hardmax rank over the (n, d_h) plane", ["H2"], f"{exp.name}_rank_map", outdir, extra)


def bound_figure(exp, outdir):
    if "n" not in exp.axis_names or "d_h" not in exp.axis_names:
        return []
    # the other axes at their first values: one (n, d_h) plane
    fix = exp.fixed(["n", "d_h"])
    extra = ", ".join(f"{a} = {v}" for a, v in fix.items())
    ns_all, dhs = np.asarray(exp.coords["n"]), np.asarray(exp.coords["d_h"])
    ns = ns_all[np.unique(np.linspace(0, len(ns_all) - 1, min(MAX_LINES, len(ns_all))).astype(int))]
    fig, (ax,) = figure(3.6, 2.7)
    colors = []
    for n in ns:
        mean = exp.get("argmax_rank", "mean", n=n, **fix)
        lo, hi = exp.get("argmax_rank", "ci_lo", n=n, **fix), exp.get("argmax_rank", "ci_hi", n=n, **fix)
        (line,) = ax.plot(dhs, mean / n, marker="o", label=f"n = {n:g}")
        ax.fill_between(dhs, lo / n, hi / n, color=line.get_color(), alpha=0.2, linewidth=0)
        colors.append(line.get_color())
    claims = []
    # H4 is H1's bound with an assumption broken (tied weights): where it is judged and
    # H1 is not, its own theory/H4 is drawn and named in H1's place
    first = "H4" if "H4" in exp.claims and "H1" not in exp.claims else "H1"
    for claim, style, label in ((first, "--", "(1 - 1/e) + 1/n"), ("H2", ":", "1 - (1 - 1/n)^n")):
        try:
            for n, color in zip(ns, colors):
                ax.plot(dhs, exp.theory(claim, n=n, **fix) / n, linestyle=style, color=color, linewidth=0.8)
            ax.plot([], [], linestyle=style, color="black", linewidth=0.8, label=f"{claim}: {label}")
            claims.append(claim)
        except PlotError:
            pass
    ax.set_xscale("log", base=2)
    ax.set_xlabel("head dimension $d_h$")
    ax.set_ylabel("E[rank] / n")
    ax.set_ylim(0, 1.05)  # rank / n lies in [0, 1]; intervals from few trials reach beyond
    ax.legend(ncol=2, loc="lower right")
    note = "bands: 95% intervals; lines: the bounds over n" + (f"; {len(ns)} of {len(ns_all)} n" if len(ns) < len(ns_all)
                                                                else "") + (f"; {extra}" if extra else "")
    entries = [finish(fig, exp, "hardmax rank against the head dimension", claims or [first], f"{exp.name}_rank",
                      outdir, note)]
    if len(ns_all) > MAX_LINES and len(dhs) > 1:
        entries.append(heat_map(exp, fix, outdir, extra))
    if exp.has_histogram("argmax_rank"):
        n = ns[-1]
        hist = exp.histogram("argmax_rank", n=n, **fix)
        values = exp.index_values("argmax_rank", "value")
        fig, (ax,) = figure(3.4, 2.4)
        for i in np.unique(np.linspace(0, len(dhs) - 1, min(4, len(dhs))).astype(int)):
            counts = hist[i]
            ax.step(values / n, counts / max(counts.sum(), 1), where="mid", label=f"$d_h$ = {dhs[i]:g}")
        try:
            ax.axvline(exp.theory(first, n=n, **fix)[0] / n, **THEORY, label=f"{first} bound")
        except PlotError:
            pass
        ax.set_xlim(0, 1)
        ax.set_xlabel("rank / n")
        ax.set_ylabel("fraction of trials")
        ax.legend()
        entries.append(finish(fig, exp, f"distribution of the hardmax rank at n = {n:g}", [first],
                              f"{exp.name}_hist", outdir))
    return entries


def temperature_figure(exp, outdir):
    if "tau" not in exp.axis_names:
        return []
    taus = np.asarray(exp.coords["tau"])
    panels = list(exp.coords["d_h"]) if "d_h" in exp.axis_names else [None]
    fig, axes = figure(2.6, 2.4, ncols=len(panels))
    others = {a: exp.coords[a][0] for a in exp.axis_names if a not in ("tau", "d_h")}
    for ax, dh in zip(axes, panels):
        fix = dict(others, **({"d_h": dh} if dh is not None else {}))
        for output in ("argmax_rank", "numrank_abs", "numrank_rel", "stable_rank", "effective_rank"):
            band(ax, taus, exp, output, output.replace("_", " "), **fix)
        if exp.has("numrank_first_order") and np.isfinite(exp.get("numrank_first_order", "mean", **fix)).any():
            band(ax, taus, exp, "numrank_first_order", "numrank first order", marker="x", **fix)
        for claim in ("H5a", "H5b"):  # the bounds, where they speak
            try:
                bound = exp.theory(claim, **fix)
            except PlotError:
                continue
            ax.plot(taus, bound, linestyle="none", marker="_", markersize=14, color="black",
                    label="bound (H5a, H5b)" if claim == "H5a" else None)
        ax.set_xscale("log")
        ax.set_xlabel(r"temperature $\tau / \sqrt{d_h}$")
        ax.set_title(f"$d_h$ = {dh:g}" if dh is not None else "")
    axes[0].set_ylabel("rank")
    axes[0].legend()
    # the rank measures drawn whose rise along tau is judged where the spec lists it
    measured = [c for c in ("H5tau_abs", "H5tau_stable", "H5tau_eff") if c in exp.claims]
    # the ids of the claims this experiment judges (all of them where it names none)
    drawn = [c for c in ["H5a", "H5b", "H5tau_rel", "H5steeper"] + measured if not exp.claims or c in exp.claims]
    return [finish(fig, exp, "rank measures of softmax attention against the temperature", drawn,
                   f"{exp.name}_tau", outdir)]


def tail_figure(exp, outdir):
    """H5ratio: ln(sigma_{d_h+2} / sigma_{d_h+1}) against tau, one line per d_h, with a
    line of slope -1 through each line's largest tau."""
    if "tau" not in exp.axis_names or not exp.has("log_tail_ratio"):
        return []
    taus = np.asarray(exp.coords["tau"], dtype=float)
    widths = list(exp.coords["d_h"]) if "d_h" in exp.axis_names else [None]
    others = {a: exp.coords[a][0] for a in exp.axis_names if a not in ("tau", "d_h")}
    fig, axes = figure(3.4, 2.5)
    ax = axes[0]
    drew = False
    for dh in widths:
        fix = dict(others, **({"d_h": dh} if dh is not None else {}))
        mean = np.asarray(exp.get("log_tail_ratio", "mean", **fix), dtype=float)
        if not np.isfinite(mean).any():
            continue
        line = band(ax, taus, exp, "log_tail_ratio", f"$d_h$ = {dh:g}" if dh is not None else None, **fix)
        last = np.flatnonzero(np.isfinite(mean))[-1]
        ax.plot(taus, mean[last] - np.log(taus / taus[last]), linestyle=":", color=line.get_color())
        drew = True
    if not drew:
        plt_close(fig)
        return []
    ax.set_xscale("log")
    ax.set_xlabel(r"temperature $\tau / \sqrt{d_h}$")
    ax.set_ylabel(r"$\ln \sigma_{d_h+2} / \sigma_{d_h+1}$")
    ax.legend()
    return [finish(fig, exp, "beyond rank d_h + 1 only the second order: the ratio falls like 1/tau (dotted: slope -1)",
                   ["H5ratio"], f"{exp.name}_tail", outdir)]


def saturation_figure(exp, outdir):
    """H2sat: the saturation position d_h* against log2 n, one line per shortfall, log-log,
    with a line proportional to log n through each line's smallest n."""
    if "log2_n" not in exp.axis_names:
        return []
    ks = np.asarray(exp.coords["log2_n"], dtype=float)
    levels = list(exp.coords["shortfall"]) if "shortfall" in exp.axis_names else [None]
    fig, axes = figure(3.4, 2.5)
    ax = axes[0]
    for eps in levels:
        fix = {"shortfall": eps} if eps is not None else {}
        mean = np.asarray(exp.get("saturation_d_h", "mean", **fix), dtype=float)
        line = band(ax, ks, exp, "saturation_d_h", f"$\\varepsilon$ = {eps:g}" if eps is not None else None, **fix)
        ax.plot(ks, mean[0] * ks / ks[0], linestyle=":", color=line.get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$\log_2 n$")
    ax.set_ylabel(r"saturation position $d_h^*$")
    ax.legend()
    return [finish(fig, exp, "where the rank saturates against log n (dotted: proportional to log n)", ["H2sat"],
                   f"{exp.name}_saturation", outdir)]


def plt_close(fig):
    import matplotlib.pyplot as plt
    plt.close(fig)


def figures_for(exp, outdir):
    if exp.simulator == "hardmax_rank" and "n" in exp.axis_names and "d_h" in exp.axis_names:
        return bound_figure(exp, outdir)
    if exp.simulator == "softmax_rank":
        if "H5ratio" in exp.claims:
            return tail_figure(exp, outdir)
        return temperature_figure(exp, outdir)
    if exp.simulator == "hardmax_saturation":
        return saturation_figure(exp, outdir)
    return []


if __name__ == "__main__":
    sys.exit(main(figures_for))

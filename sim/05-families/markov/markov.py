#!/usr/bin/python3
"""Figures of the spectral gap of random Markov attention (S1-S8), from a result file.

usage: sim/05-families/markov/markov.py RESULT.h5 OUTDIR [EXPERIMENT...]

markov_spectrum: the singular values of sqrt(n) A (outlier excluded) against the
quarter-circle density, sigma_1 marked (S1, S2); the eigenvalues of sqrt(n) A in the
complex plane with the unit disc (S3); the stable rank of A and A - 11^T/n against n with
1 + s^2/m^2 and n/4 (S4). width_collapse: the stable rank after one layer against n
(S5). depth_collapse: stable rank and mean |cosine| per layer for each variant (S6perp); the
gradient norm against n, log-log, with the fitted slope (S7perp); n x the per-layer
collapse factor against n with s^2/m^2 (S6) and the log gradient ratio with over without
the gap against n with the slope (L - 1)/2 (S7)."""
import os
import sys

import matplotlib.pyplot as plt
import numpy as np

if "common" not in sys.modules:  # run alone: the scripts' shared helpers are in plots/
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "plots"))
from common import THEORY, PlotError, band, figure, finish, main



def spectrum_figures(exp, outdir):
    entries = []
    ns = np.asarray(exp.coords["n"]) if "n" in exp.axis_names else None
    gaps = exp.coords.get("gap", [exp.param("gap")])
    if exp.has("sv_density") and np.isfinite(exp.get("sv_density", "mean")).any():
        fix = exp.fixed(["n"], **({"gap": "keep"} if "gap" in exp.axis_names else {}))
        x = exp.index_values("sv_density", "x")
        fig, (ax,) = figure(3.4, 2.5)
        for n in (ns if ns is not None else [None]):
            f = dict(fix, **({"n": n} if n is not None else {}))
            ax.plot(x, exp.get("sv_density", "mean", **f), drawstyle="steps-mid", label=f"n = {n:g}" if n else "")
        grid = np.linspace(0, 2, 400)
        ax.plot(grid, np.sqrt(np.maximum(4 - grid ** 2, 0)) / np.pi, **THEORY, label="quarter circle")
        sigma1 = exp.get("sigma1", "mean", **dict(fix, **({"n": ns[-1]} if ns is not None else {})))
        ax.text(0.98, 0.95, f"$\\sigma_1$ = {float(np.ravel(sigma1)[0]):.4f} (outlier, not shown)",
                transform=ax.transAxes, ha="right", va="top", fontsize=7)
        ax.set_xlabel(r"$\sqrt{n}\,\sigma_i / (s/m)$")
        ax.set_ylabel("density")
        ax.legend(loc="center right")
        entries.append(finish(fig, exp, "singular values of random Markov attention", ["S1", "S2", "S2ks"],
                              f"{exp.name}_singular_values", outdir, "gap kept; bulk only"))
    if exp.has("eig_density") and np.isfinite(exp.get("eig_density", "mean")).any():
        fix = exp.fixed([])
        if ns is not None:
            fix["n"] = ns[-1]
        density = exp.get("eig_density", "mean", **fix)
        re, im = exp.index_values("eig_density", "re"), exp.index_values("eig_density", "im")
        fig, (ax,) = figure(3.0, 2.8)
        step = re[1] - re[0]
        mesh = ax.imshow(density.T, origin="lower", cmap="Greys",
                         extent=(re[0] - step / 2, re[-1] + step / 2, im[0] - step / 2, im[-1] + step / 2))
        t = np.linspace(0, 2 * np.pi, 300)
        ax.plot(np.cos(t), np.sin(t), color="C3", linewidth=1, label="disc of radius s/m")
        fig.colorbar(mesh, ax=ax, label="density (disc law: 1/π)")
        ax.set_xlabel(r"Re $\sqrt{n}\lambda / (s/m)$")
        ax.set_ylabel(r"Im $\sqrt{n}\lambda / (s/m)$")
        ax.legend(loc="upper right")
        ax.set_aspect("equal")
        entries.append(finish(fig, exp, "eigenvalues of random Markov attention", ["S3", "S3ks"],
                              f"{exp.name}_eigenvalues", outdir, f"n = {fix.get('n', exp.param('n'))}"))
    if ns is not None and len(ns) > 1 and exp.has("stable_rank"):
        fig, axes = figure(3.0, 2.5, ncols=2)
        for ax, gap in zip(axes, ["keep", "remove"]):
            if gap not in gaps:
                ax.set_visible(False)
                continue
            fix = exp.fixed(["n", "entries"], **({"gap": gap} if "gap" in exp.axis_names else {}))
            laws = exp.coords.get("entries", [None])
            for law in laws:
                f = dict(fix, **({"entries": law} if law is not None else {}))
                band(ax, ns, exp, "stable_rank", law or "", **f)
                claim = "S4" if gap == "keep" else "S4perp"
                try:
                    # S4perp predicts stable_rank / n (1/4): drawn as n/4 beside the stable rank
                    scale = 1 if gap == "keep" else np.asarray(ns, dtype=float)
                    ax.plot(ns, exp.theory(claim, **f) * scale, **THEORY)
                except PlotError:
                    pass
            ax.set_xscale("log", base=2)
            if gap == "remove":
                ax.set_yscale("log")
            ax.set_xlabel("n")
            ax.set_title("A" if gap == "keep" else r"$A - \mathbf{1}\mathbf{1}^T/n$")
        axes[0].set_ylabel("stable rank")
        axes[0].legend()
        entries.append(finish(fig, exp, "stable rank with and without the gap", ["S4", "S4perp"],
                              f"{exp.name}_stable_rank", outdir, "dashed: 1 + s²/m² and n/4"))
    return entries


def width_figure(exp, outdir):
    if "n" not in exp.axis_names:
        return []
    ns = np.asarray(exp.coords["n"])
    fig, (ax,) = figure(3.4, 2.5)
    for gap in exp.coords.get("gap", [exp.param("gap")]):
        for gamma in exp.coords.get("gamma", [None]):
            fix = exp.fixed(["n", "gamma"], **({"gap": gap} if "gap" in exp.axis_names else {}))
            if gamma is not None:
                fix["gamma"] = gamma
            band(ax, ns, exp, "stable_rank", f"{'A' if gap == 'keep' else 'A⊥'}, γ = {gamma:g}" if gamma else gap,
                 **fix)
            if gap == "keep":
                try:
                    ax.plot(ns, exp.theory("S5", **fix), **THEORY)
                except PlotError:
                    pass
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel(r"stable rank of $X_1$")
    ax.legend(ncol=2)
    return [finish(fig, exp, "rank collapse in width after one layer", ["S5", "S5perp"], f"{exp.name}_width",
                   outdir, "dashed: 1 + s²/m²")]


def depth_figures(exp, outdir):
    entries = []
    variants = [a for a in exp.axis_names if a in ("gap", "norm", "skip", "attention", "scale")]
    layers = exp.index_values("stable_rank", "layer")
    fig, axes = figure(3.0, 2.5, ncols=2)
    shape = [len(exp.coords[a]) for a in variants]
    combos = list(np.ndindex(*shape))
    palette = plt.get_cmap("tab10" if len(combos) <= 10 else "tab20")
    for k, combo in enumerate(combos):
        fix = exp.fixed(variants)
        label = []
        for a, i in zip(variants, combo):
            fix[a] = exp.coords[a][i]
            label.append(f"{a} {exp.coords[a][i]}")
        if "n" in exp.axis_names:
            fix["n"] = exp.coords["n"][-1]
        color = palette(k % palette.N)
        style = "--" if fix.get("gap") == "remove" else "-"
        for ax, output in zip(axes, ("stable_rank", "mean_abs_cosine")):
            line = band(ax, layers, exp, output, ", ".join(label), color=color, marker=None, **fix)
            line.set_linestyle(style)
    axes[0].set_yscale("log")
    axes[0].set_ylabel(r"stable rank of $X_l$")
    axes[1].set_ylabel("mean |cosine| between tokens")
    for ax in axes:
        ax.set_xlabel("layer l")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=6.5)
    entries.append(finish(fig, exp, "rank collapse in depth", ["S6perp"], f"{exp.name}_depth", outdir,
                          "variants: " + ", ".join(variants) if variants else ""))
    if "n" in exp.axis_names and exp.has("grad_norm") and np.isfinite(exp.get("grad_norm", "mean")).any():
        ns = np.asarray(exp.coords["n"])
        fig, (ax,) = figure(3.4, 2.5)
        for gap in exp.coords.get("gap", [exp.param("gap")]):
            fix = exp.fixed(["n"], **({"gap": gap} if "gap" in exp.axis_names else {}))
            mean = exp.get("grad_norm", "mean", **fix)[..., 0]
            lo, hi = exp.get("grad_norm", "ci_lo", **fix)[..., 0], exp.get("grad_norm", "ci_hi", **fix)[..., 0]
            ok = mean > 0
            slope = np.polyfit(np.log(ns[ok]), np.log(mean[ok]), 1)[0] if ok.sum() > 1 else np.nan
            (line,) = ax.plot(ns, mean, marker="o", label=f"gap {gap}: slope {slope:.2f}")
            ax.fill_between(ns, np.maximum(lo, 1e-300), hi, color=line.get_color(), alpha=0.2, linewidth=0)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel(r"$\|\partial X_L / \partial W_0\|_F$")
        ax.legend()
        entries.append(finish(fig, exp, "gradient norm against n", ["S7perp"], f"{exp.name}_gradient", outdir,
                              "slopes: least squares on log-log axes"))
    rate = exp.has("collapse_factor_n") and np.isfinite(exp.get("collapse_factor_n", "mean")).any()
    ratio = exp.has("log_gap_ratio") and np.isfinite(exp.get("log_gap_ratio", "mean")).any()
    if "n" in exp.axis_names and (rate or ratio):
        entries.append(rate_figure(exp, outdir))
    return entries


def rate_figure(exp, outdir):
    """S6: n x the per-layer factor of the off-consensus part against n, with s²/m²; S7:
    the log of the gradient ratio with over without the gap against ln n, with the
    predicted slope (L - 1)/2 drawn through the largest n."""
    ns = np.asarray(exp.coords["n"], dtype=float)
    lines = [a for a in ("entries", "d", "gap") if a in exp.axis_names]
    fig, axes = figure(3.0, 2.5, ncols=2)
    for k, combo in enumerate(np.ndindex(*[len(exp.coords[a]) for a in lines])):
        fix = exp.fixed(["n"] + lines)
        label = []
        for a, i in zip(lines, combo):
            fix[a] = exp.coords[a][i]
            label.append(f"{a} {'n' if a == 'd' and exp.coords[a][i] == 0 else exp.coords[a][i]}")
        color = f"C{k % 10}"
        for ax, output, claim in ((axes[0], "collapse_factor_n", "S6"), (axes[1], "log_gap_ratio", "S7")):
            if not exp.has(output) or not np.isfinite(exp.get(output, "mean", **fix)).any():
                continue
            line = band(ax, ns, exp, output, ", ".join(label), color=color, **fix)
            try:
                f = exp.theory(claim, **fix)
            except PlotError:
                continue
            if not np.isfinite(f).any():
                continue
            if claim == "S6":
                ax.plot(ns, f, color=line.get_color(), **{k2: v for k2, v in THEORY.items() if k2 != "color"})
            else:  # slope f along ln n, through the largest n
                last = exp.get(output, "mean", **fix)[-1]
                ax.plot(ns, last + f * (np.log(ns) - np.log(ns[-1])), color=line.get_color(),
                        **{k2: v for k2, v in THEORY.items() if k2 != "color"})
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n")
    axes[0].set_ylabel("n × per-layer factor of off_consensus")
    axes[1].set_ylabel(r"$\ln$ (gradient with gap / without)")
    axes[0].legend(fontsize=6)
    return finish(fig, exp, "collapse rate and the gap's gradient", ["S6", "S7"], f"{exp.name}_rate", outdir,
                  "dashed: s²/m² (S6) and slope (L - 1)/2 (S7)")


def figures_for(exp, outdir):
    if exp.simulator == "markov_spectrum":
        return spectrum_figures(exp, outdir)
    if exp.simulator == "width_collapse":
        return width_figure(exp, outdir)
    if exp.simulator == "depth_collapse":
        return depth_figures(exp, outdir)
    return []


if __name__ == "__main__":
    sys.exit(main(figures_for))

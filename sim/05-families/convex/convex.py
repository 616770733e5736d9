#!/usr/bin/python3
"""Figures of convex attention (C1-C4), from an attnrank result file.

usage: sim/05-families/convex/convex.py RESULT.h5 OUTDIR [EXPERIMENT...]

convex_attention: the best and median network objective over the random starts
against the convex optimum (both as relative excess, log scale), with the fraction of
starts that reach it, against beta or the number of heads (C1, C3); the active token
positions against beta with the N + 1 bound (C2); the softmax attention network's
excess over the convex optimum against the heads, one line per positional variant and
beta (C4), and its active positions beside the convex solution's."""
import os
import sys

import numpy as np

if "common" not in sys.modules:  # run alone: the scripts' shared helpers are in plots/
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "plots"))
from common import THEORY, band, figure, finish, main



def figures_for(exp, outdir):
    if exp.simulator != "convex_attention":
        return []
    entries = []
    sweep = next((a for a in ("h", "beta", "N") if a in exp.axis_names and len(exp.coords[a]) > 1), None)
    trained = exp.has("network_excess") and np.isfinite(exp.get("network_excess", "mean")).any()
    if sweep and trained:
        xs = np.asarray(exp.coords[sweep], float)
        fix = exp.fixed([sweep])
        fig, axes = figure(3.0, 2.5, ncols=2)
        floor = 1e-16
        for output, label in (("network_excess", "best of the starts"), ("network_median_excess", "median start")):
            mean = exp.get(output, "mean", **fix)
            axes[0].plot(xs, np.maximum(mean, floor), marker="o", label=label)
        axes[0].plot(xs, np.maximum(exp.get("mapped_error", "max", **fix), floor), marker="s", color="black",
                     linestyle="none", label="network built from Z")
        axes[0].axhline(1e-6, **THEORY, label="reached: 1e-6")
        axes[0].set_yscale("log")
        axes[0].set_ylabel("(objective − convex optimum) / optimum")
        band(axes[1], xs, exp, "fraction_reached", "starts within 1e-6", **fix)
        axes[1].set_ylim(-0.02, 1.02)
        axes[1].set_ylabel("fraction of starts")
        for ax in axes:
            ax.set_xlabel({"h": "heads h", "beta": r"$\beta / \beta_{max}$", "N": "samples N"}[sweep])
            if sweep != "h":
                ax.set_xscale("log")
        axes[0].legend(fontsize=6.5)
        claims = ["C1", "C1opt", "C1lower"] + (["C3"] if sweep == "h" else [])
        entries.append(finish(fig, exp, "the network against the convex optimum", claims, f"{exp.name}_network",
                              outdir, "means over instances; below 1e-16 drawn at 1e-16"))
    if "beta" in exp.axis_names and len(exp.coords["beta"]) > 1:
        betas = np.asarray(exp.coords["beta"], float)
        fig, (ax,) = figure(3.4, 2.5)
        for N in exp.coords.get("N", [exp.param("N")]):
            fix = exp.fixed(["beta", "N"], **({"N": N} if "N" in exp.axis_names else {}))
            band(ax, betas, exp, "active_tokens", f"N = {N:g}", **fix)
            ax.plot(betas, exp.get("active_tokens", "max", **fix), linestyle=":", color=ax.lines[-1].get_color())
        ax.set_xscale("log")
        ax.set_xlabel(r"$\beta / \beta_{max}$")
        ax.set_ylabel("active token positions")
        ax.legend()
        entries.append(finish(fig, exp, "token sparsity of the convex optimum", ["C2", "C2beta"],
                              f"{exp.name}_sparsity", outdir, "dotted: largest over instances; bound N + 1"))
    entries += softmax_figures(exp, outdir)
    return entries


def softmax_figures(exp, outdir):
    """C4: (best softmax - P) / P against h, a panel per targets x positions, a line per
    beta; symmetric log scale, so that softmax attention below the relaxation shows."""
    if not exp.has("softmax_excess") or not np.isfinite(exp.get("softmax_excess", "mean")).any():
        return []
    if "h" not in exp.axis_names or len(exp.coords["h"]) < 2:
        return []
    xs = np.asarray(exp.coords["h"], float)
    panel_axes = [a for a in ("targets", "positions") if a in exp.axis_names]
    panels = list(np.ndindex(*[len(exp.coords[a]) for a in panel_axes])) or [()]
    lines = exp.coords.get("beta", [None])
    fig, axes = figure(2.6, 2.5, ncols=len(panels))
    for ax, panel in zip(axes, panels):
        keep = {a: exp.coords[a][i] for a, i in zip(panel_axes, panel)}
        for beta in lines:
            fix = exp.fixed(["h"], **keep, **({"beta": beta} if beta is not None else {}))
            label = f"β = {beta:g} β_max" if beta is not None else "softmax"
            (line,) = ax.plot(xs, exp.get("softmax_excess", "mean", **fix), marker="o", label=label)
            ax.plot(xs, exp.get("softmax_excess", "min", **fix), linestyle=":", color=line.get_color())
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_yscale("symlog", linthresh=1e-6)
        ax.set_xlabel("heads h")
        ax.set_title(", ".join(f"{a} {v}" for a, v in keep.items()), fontsize=7)
    axes[0].set_ylabel("(best softmax − P) / P")
    axes[0].legend(fontsize=6)
    return [finish(fig, exp, "softmax attention against its convex relaxation", ["C4", "C4heads", "C4gap"],
                   f"{exp.name}_softmax", outdir,
                   "solid: mean over instances, dotted: smallest; below 0: softmax beats the relaxation (symlog, linear "
                   "within 1e-6)")]


if __name__ == "__main__":
    sys.exit(main(figures_for))

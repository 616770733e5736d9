#!/usr/bin/python3
"""Figures of attention masks and LayerNorm (M1-M4), from an attnrank result file.

usage: sim/05-families/masks/masks.py RESULT.h5 OUTDIR [EXPERIMENT...]

mask_dynamics: mu / ||X||_F against the layer, log-y, one line per mask, a panel per
normalisation (M1, M3); the collapse rate against the window's half-width, log-log, with
the graph's radius on a second axis (M2) or against the logits' scale. ln_equilibria:
per rank k, the witness's residual and the bound on the spectral radius of dF at it
(unit checks: each rank has its own W_V), and where random starts end: the fraction
of trials collapsed, metastable, certified non-collapse and unsettled per point (M4)."""
import os
import sys

import numpy as np

if "common" not in sys.modules:  # run alone: the scripts' shared helpers are in plots/
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "plots"))
from common import band, figure, finish, main



def dynamics_figures(exp, outdir):
    entries = []
    layers = exp.index_values("mu_rel", "layer")
    if "mask" in exp.axis_names:
        norms = exp.coords.get("norm", [exp.param("norm")])
        fig, axes = figure(3.0, 2.6, ncols=len(norms))
        for ax, norm in zip(axes, norms):
            for mask in exp.coords["mask"]:
                fix = exp.fixed(["mask", "norm"], mask=mask, **({"norm": norm} if "norm" in exp.axis_names else {}))
                mean = exp.get("mu_rel", "mean", **fix)
                ax.plot(layers, np.maximum(mean, 1e-17), label=mask)
            ax.set_yscale("log")
            ax.set_ylim(1e-17, 2)
            ax.set_xlabel("layer t")
            ax.set_title("no LayerNorm" if norm == "none" else f"LayerNorm ({norm})")
        axes[0].set_ylabel(r"$\mu(X_t) / \|X_t\|_F$")
        axes[0].legend(fontsize=6.5)
        # M1 is the panel without LayerNorm, M3 one with it; M4fig2 (the masks paper's
        # Figure 2, LayerNorm and random weights) is this figure where it is judged
        tags = (["M1"] if "none" in norms else []) + (["M3"] if any(n != "none" for n in norms) else []) + \
            [c for c in ("M4fig2",) if c in exp.claims]
        entries.append(finish(fig, exp, "distance from rank one against depth, per mask", tags, f"{exp.name}_mu",
                              outdir, "mean over trials; 1e-17 marks exact collapse"))
    for axis, label, claims in (("w", "window half-width w", ["M2"]), ("scale", "scale of the logits", [])):
        if axis not in exp.axis_names or len(exp.coords[axis]) < 2:
            continue
        xs = np.asarray(exp.coords[axis], float)
        fig, (ax,) = figure(3.4, 2.5)
        series = exp.coords.get("mask", [None])
        for mask in series:
            fix = exp.fixed([axis, "mask"], **({"mask": mask} if mask is not None else {}))
            band(ax, xs, exp, "rate", mask or "rate", **fix)
        ax.set_xscale("log", base=2 if axis == "w" else 10)
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel(r"collapse rate of $\mu/\|X\|$ per layer")
        if axis == "w" and "mask" not in exp.axis_names:
            radius = exp.get("radius", "mean", **exp.fixed([axis]))
            twin = ax.twinx()
            twin.plot(xs, radius, color="0.5", linestyle=":", marker="s", label="radius r")
            twin.set_yscale("log", base=2)
            twin.set_ylabel("graph radius r (bound: (1 - ε^r)^(t/r))", color="0.4")
        ax.legend(loc="upper left")
        entries.append(finish(fig, exp, f"collapse rate against the {label}", claims, f"{exp.name}_rate_{axis}",
                              outdir, "bands: 95% intervals"))
    return entries


def equilibria_figure(exp, outdir):
    if "rank" not in exp.axis_names or not exp.has("witness_residual"):
        return []
    ks = np.asarray(exp.coords["rank"])
    fix = exp.fixed(["rank"])
    fig, axes = figure(2.8, 2.5, ncols=2)
    axes[0].semilogy(ks, exp.get("witness_residual", "max", **fix), "o-", label="largest residual")
    axes[0].axhline(1e-10, color="black", linestyle="--", linewidth=0.9, label="certificate 1e-10")
    axes[0].set_xlabel("rank k of the witness")
    axes[0].set_ylabel(r"$\|F(X^*) - X^*\|_F$")
    axes[0].legend()
    band(axes[1], ks, exp, "witness_radius", "spectral radius of dF")
    axes[1].axhline(1, color="black", linestyle="--", linewidth=0.9, label="attracts below 1")
    axes[1].set_yscale("log")
    axes[1].set_xlabel("rank k of the witness")
    axes[1].set_ylabel("spectral radius")
    axes[1].legend()
    axes[1].set_ylabel("spectral radius (upper bound)")
    return [finish(fig, exp, "witness equilibria of every rank with LayerNorm (unit checks)", ["M4", "M4rank"],
                   f"{exp.name}_equilibria", outdir, "each witness with its own W_V; radius band: 95% interval")]


CLASSES = (("collapsed", "0.6"), ("metastable", "tab:orange"), ("escaped", "tab:green"), ("unsettled", "tab:purple"))


def end_state_figure(exp, outdir):
    """Stacked fractions of the end-state classes, one bar per grid point."""
    if not exp.has("metastable"):
        return []
    combos = list(np.ndindex(*[len(exp.coords[a]) for a in exp.axis_names])) or [()]
    labels = ["\n".join(f"{a}={exp.coords[a][i]}" if isinstance(exp.coords[a][i], str) else f"{a}={exp.coords[a][i]:g}"
                         for a, i in zip(exp.axis_names, combo)) or "one point" for combo in combos]
    fig, (ax,) = figure(max(3.0, 0.55 * len(combos) + 1), 2.8)
    bottom = np.zeros(len(combos))
    for name, color in CLASSES:
        data = np.atleast_1d(exp.get(name, "mean"))
        values = np.array([data[combo] if combo else data.item() for combo in combos])
        ax.bar(range(len(combos)), values, bottom=bottom, color=color, label=name.replace("escaped", "certified"))
        bottom += values
    ax.set_xticks(range(len(combos)))
    ax.set_xticklabels(labels, fontsize=5)
    ax.set_ylim(0, 1)
    ax.set_ylabel("fraction of starts")
    ax.legend(fontsize=6, loc="upper right")
    return [finish(fig, exp, "where random starts end: collapsed, metastable, certified non-collapse", ["M4escape"],
                   f"{exp.name}_end_states", outdir, "metastable: a weight below 1e-12, or W_V isometric and the tokens "
                   "in one open hemisphere; only certified counts as escape")]


def figures_for(exp, outdir):
    if exp.simulator == "mask_dynamics":
        return dynamics_figures(exp, outdir)
    if exp.simulator == "ln_equilibria":
        return equilibria_figure(exp, outdir) + end_state_figure(exp, outdir)
    return []


if __name__ == "__main__":
    sys.exit(main(figures_for))

#!/usr/bin/python3
"""Every figure a result file supports: runs the figure scripts (hardmax, markov, masks,
convex) on each experiment and writes OUTDIR/figures.tsv, one line a figure:
experiment, claims (space-separated), title, SVG path, caption. `attnrank report`
reads it.

usage: plot_all.py [--svg-only] RESULT.h5 OUTDIR"""
import os
import sys

import common
import convex
import hardmax
import markov
import masks

MODULES = (hardmax, markov, masks, convex)


def figures_for(exp, outdir):
    entries = []
    for module in MODULES:
        entries += module.figures_for(exp, outdir)
    return entries


def run(argv):
    if argv[:1] == ["--svg-only"]:
        common.FORMATS[:] = ["svg"]
        argv = argv[1:]
    if len(argv) != 2:
        print("usage: plot_all.py [--svg-only] RESULT.h5 OUTDIR", file=sys.stderr)
        return 2
    path, outdir = argv
    os.makedirs(outdir, exist_ok=True)
    entries = []
    try:
        with common.open_result(path) as f:
            for name in f.keys():
                if isinstance(f[name], common.h5py.Group):
                    entries += figures_for(common.Experiment(path, f, name), outdir)
    except common.PlotError as e:
        print(f"plot_all.py: {e}", file=sys.stderr)
        return 2
    with open(os.path.join(outdir, "figures.tsv"), "w") as out:
        for e in entries:
            fields = [e["experiment"], " ".join(e["claims"]), e["title"], os.path.abspath(e["files"]["svg"]),
                      e["caption"]]
            out.write("\t".join(x.replace("\t", " ").replace("\n", " ") for x in fields) + "\n")
    print(f"{len(entries)} figures in {outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))

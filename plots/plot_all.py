#!/usr/bin/python3
"""Every figure a result file supports: runs, on each experiment, claims.py (a figure
per claim row of /verdicts: its estimate, interval and prediction, whatever the
family), the figure script its claim family names (the group's `plot_script`
attribute, written from attnrank's registry: sim/05-families/<family>/<family>.py, found
by its name in the family's folder of the source tree this folder sits in, or beside
this script, so a file that names plots/<family>.py, as before the scripts moved into the
families' folders, is drawn alike) and conjectures.py (a figure per user
conjecture, whatever the family), and writes OUTDIR/figures.tsv, one line a figure: experiment, claims
(space-separated), title, SVG path (relative to OUTDIR, so the folder can move),
caption. `attnrank report` reads it.

Only the experiments named after OUTDIR are drawn when any are (the report names those
of the stored spec: a group the spec does not name is never read). A figure that fails
is said on stderr (its claim and why) and the others are still drawn; the exit status
is then 1.

With --theory FILE (`attnrank report` gives its figures/theory.tsv) every claim's
statement, formula, kind and output come from FILE, as attnrank re-derives them from
the stored spec and its claim table, never from the theory datasets' attributes.

With --fd N (`attnrank report` gives it) the file read is the one open as descriptor N,
the one attnrank checked; RESULT.h5 is only the name captions show.

usage: plot_all.py [--svg-only] [--theory FILE] [--fd N] RESULT.h5 OUTDIR [EXPERIMENT...]"""
import importlib
import os
import re
import sys

import attacks
import claims
import common
import conjectures

HERE = os.path.dirname(os.path.abspath(__file__))
FAMILIES = os.path.join(HERE, "..", "sim", "05-families")  # a folder per claim family
# The figure scripts beside this one that are no family's: a plot_script naming one is refused.
NOT_FAMILIES = ("attacks", "claims", "common", "conjectures", "plot_all")


def family_script_folder(name):
    """Where the family script NAME.py is: beside this script (a folder of figure scripts
    ATTNRANK_PLOTS names may hold its own), else in the family's folder; None if nowhere."""
    for folder in (HERE, os.path.join(FAMILIES, name)):
        if os.path.exists(os.path.join(folder, name + ".py")):
            return folder
    return None


def figures_for(exp, outdir):
    """The verdict figure of each of the experiment's claims, the figures of its family
    script (none if it names no script that is there), then those of its conjectures."""
    script = common.text(exp.group.attrs.get("plot_script", ""), f"{exp.path}: attribute plot_script of /{exp.name}")
    name = os.path.splitext(os.path.basename(script))[0]  # the path itself is never followed
    family = []
    known = re.fullmatch(r"[a-z_][a-z0-9_]*", name) and name not in NOT_FAMILIES
    folder = family_script_folder(name) if known else None
    if folder:
        if folder not in sys.path:
            sys.path.append(folder)
        family = common.each_drawn(exp, [name], lambda n: importlib.import_module(n).figures_for(exp, outdir),
                                   lambda n: f"the family figures ({n}.py)")
        family = family[0] if family else []
    return claims.figures_for(exp, outdir) + family + conjectures.figures_for(exp, outdir)


def run(argv):
    if argv[:1] == ["--svg-only"]:
        common.FORMATS[:] = ["svg"]
        argv = argv[1:]
    if argv[:1] == ["--theory"] and len(argv) > 1:  # the claims' texts as attnrank re-derives them
        common.load_theory_texts(argv[1])
        argv = argv[2:]
    fd = None
    if argv[:1] == ["--fd"] and len(argv) > 1 and argv[1].isdigit():  # the file attnrank checked
        fd, argv = int(argv[1]), argv[2:]
    if len(argv) < 2:
        print("usage: plot_all.py [--svg-only] [--theory FILE] [--fd N] RESULT.h5 OUTDIR [EXPERIMENT...]",
              file=sys.stderr)
        return 2
    path, outdir, only = argv[0], argv[1], argv[2:]
    os.makedirs(outdir, exist_ok=True)
    entries = []
    try:
        with common.open_result(path, fd) as f:
            if common.text(f.attrs.get("kind", "")) == "attacks":  # `attnrank attack`'s file
                entries = attacks.figures_for_file(f, outdir)
            for name in [] if entries else only or f.keys():
                if name in f and isinstance(f[name], common.h5py.Group):
                    entries += figures_for(common.Experiment(path, f, name), outdir)
    except common.PlotError as e:
        print(f"plot_all.py: {e}", file=sys.stderr)
        return 2
    with open(os.path.join(outdir, "figures.tsv"), "w") as out:
        for e in entries:
            fields = [e["experiment"], " ".join(e["claims"]), e["title"], os.path.relpath(e["files"]["svg"], outdir),
                      e["caption"]]
            out.write("\t".join(x.replace("\t", " ").replace("\n", " ") for x in fields) + "\n")
    print(f"{len(entries)} figures in {outdir}")
    return 1 if common.FAILED else 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))

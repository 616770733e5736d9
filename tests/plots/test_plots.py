#!/usr/bin/python3
"""The figure scripts on a file written by a reduced run of every simulator: each runs,
writes non-empty SVG, PDF and PNG, fails in one line on a file that lacks its data, and
draws what the file holds (the plotted lines are read back from the figures and
compared with the datasets).

usage: test_plots.py ATTNRANK CASE   (ATTNRANK_SOURCE_ROOT names the source tree)"""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

ROOT = os.environ["ATTNRANK_SOURCE_ROOT"]
PLOTS = os.path.join(ROOT, "plots")
sys.path.insert(0, PLOTS)

SPEC = """seed = 3;
experiments = (
  { name = "bound"; simulator = "hardmax_rank"; trials = 200; n = [8, 16, 32]; d_h = [1, 4, 16]; },
  { name = "soft"; simulator = "softmax_rank"; trials = 20; n = 8; d_h = [2, 4]; tau = [1e-6, 1.0, 1e6]; },
  { name = "spectrum"; simulator = "markov_spectrum"; trials = 10; n = [16, 32]; gap = ["keep", "remove"]; },
  { name = "disc"; simulator = "markov_spectrum"; trials = 10; n = [16, 32]; eigenvalues = "yes"; },
  { name = "width"; simulator = "width_collapse"; trials = 10; n = [16, 32]; gap = ["keep", "remove"]; },
  { name = "depth"; simulator = "depth_collapse"; trials = 6; n = [8, 16]; layers = 4; gap = ["keep", "remove"]; },
  { name = "masks"; simulator = "mask_dynamics"; trials = 6; n = 16; d = 4; layers = 20;
    mask = ["complete", "window"]; value = "identity"; norm = ["none", "sphere"]; },
  { name = "window"; simulator = "mask_dynamics"; trials = 6; n = 16; d = 4; layers = 20; mask = "window";
    w = [1, 2, 4]; value = "identity"; },
  { name = "equilibria"; simulator = "ln_equilibria"; trials = 4; n = 3; d = 3; rank = [1, 2, 3]; layers = 20; },
  { name = "convex"; simulator = "convex_attention"; trials = 4; N = 3; n = 3; d = 2; beta = [0.05, 0.5];
    starts = 4; }
);
"""


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


def result_file(tmp, exe):
    spec = os.path.join(tmp, "all.cfg")
    with open(spec, "w") as f:
        f.write(SPEC)
    out = os.path.join(tmp, "all.h5")
    proc = subprocess.run([exe, "run", spec, "-o", out, "-q"], capture_output=True, text=True)
    check(proc.returncode in (0, 1, 4), f"the reduced run failed: {proc.stderr}")
    return out


def script(name, *args):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    return subprocess.run(["/usr/bin/python3", os.path.join(PLOTS, name), *args], capture_output=True, text=True,
                          env=env)


def case_scripts(tmp, exe):
    path = result_file(tmp, exe)
    expect = {"hardmax.py": ["bound_rank", "bound_hist", "soft_tau"],
              "markov.py": ["spectrum_singular_values", "spectrum_stable_rank", "disc_eigenvalues", "width_width",
                            "depth_depth", "depth_gradient"],
              "masks.py": ["masks_mu", "window_rate_w", "equilibria_equilibria"],
              "convex.py": ["convex_network", "convex_sparsity"]}
    for name, stems in expect.items():
        out = os.path.join(tmp, name)
        proc = script(name, path, out)
        check(proc.returncode == 0, f"{name}: exit {proc.returncode}: {proc.stderr}")
        for stem in stems:
            for fmt in ("svg", "pdf", "png"):
                file = os.path.join(out, f"{stem}.{fmt}")
                check(os.path.exists(file) and os.path.getsize(file) > 2000, f"{name}: {file} missing or empty")
    proc = script("plot_all.py", path, os.path.join(tmp, "all"))
    check(proc.returncode == 0 and "figures in" in proc.stdout, f"plot_all.py: {proc.stderr}")
    rows = open(os.path.join(tmp, "all", "figures.tsv")).read().splitlines()
    check(len(rows) >= 14 and all(len(r.split("\t")) == 5 for r in rows), f"figures.tsv: {rows[:3]}")
    # a file without the data a figure needs: one line naming it, exit 2
    broken = os.path.join(tmp, "broken.h5")
    shutil.copy(path, broken)
    with h5py.File(broken, "r+") as f:
        del f["bound/argmax_rank/ci_lo"]
    proc = script("hardmax.py", broken, os.path.join(tmp, "b"))
    check(proc.returncode == 2, f"broken file: exit {proc.returncode}")
    lines = proc.stderr.strip().splitlines()
    check(len(lines) == 1 and "bound lacks the dataset argmax_rank/ci_lo" in lines[0], f"message: {proc.stderr}")
    other = os.path.join(tmp, "other.h5")
    with h5py.File(other, "w") as f:
        f["x"] = np.arange(3)
    proc = script("markov.py", other, os.path.join(tmp, "o"))
    check(proc.returncode == 2 and "not an attnrank result file" in proc.stderr, f"other file: {proc.stderr}")
    proc = script("convex.py", os.path.join(tmp, "absent.h5"), os.path.join(tmp, "a"))
    check(proc.returncode == 2 and "absent.h5" in proc.stderr, f"absent file: {proc.stderr}")


def captured(module, function, exp, tmp):
    """Run a figure function with finish() replaced by one that keeps the figures."""
    import common
    kept = []

    def keep(fig, exp, title, claims, stem, outdir, extra=""):
        kept.append((stem, fig))
        return {"experiment": exp.name, "claims": claims}

    saved = module.finish
    module.finish = keep
    try:
        function(exp, tmp)
    finally:
        module.finish = saved
    return dict(kept), common


def case_curves(tmp, exe):
    """What is drawn is what the file holds: read the lines back from the figures."""
    import common
    import hardmax
    import masks
    path = result_file(tmp, exe)
    with common.open_result(path) as f:
        exp = common.Experiment(path, f, "bound")
        figs, _ = captured(hardmax, hardmax.bound_figure, exp, tmp)
        ax = figs["bound_rank"].axes[0]
        lines = [l for l in ax.get_lines() if l.get_label().startswith("n = ")]
        check(len(lines) == 3, f"one line per n: {[l.get_label() for l in ax.get_lines()]}")
        mean = f["bound/argmax_rank/mean"][...]
        theory = f["bound/theory/H1"][...]
        for i, (line, n) in enumerate(zip(lines, f["bound/n"][...])):
            check(np.allclose(line.get_xdata(), f["bound/d_h"][...]), "x: the d_h axis")
            check(np.allclose(line.get_ydata(), mean[i] / n), f"n = {n}: the line is mean rank / n")
        dashed = [l for l in ax.get_lines() if l.get_linestyle() == "--" and len(l.get_xdata())]
        check(any(np.allclose(l.get_ydata(), theory[0] / f["bound/n"][0]) for l in dashed),
              "the H1 line is theory/H1 / n")
        exp = common.Experiment(path, f, "masks")
        figs, _ = captured(masks, masks.dynamics_figures, exp, tmp)
        ax = figs["masks_mu"].axes[0]
        mu = f["masks/mu_rel/mean"][...]
        masks_axis = [m.decode() for m in f["masks/mask"][...]]
        norm_axis = [m.decode() for m in f["masks/norm"][...]]
        for line in ax.get_lines():
            i, j = masks_axis.index(line.get_label()), norm_axis.index("none")
            check(np.allclose(line.get_ydata(), np.maximum(mu[i, j], 1e-17)), f"{line.get_label()}: mu_rel")
    # and a figure of other data must not pass: perturb the file, the lines move
    with h5py.File(path, "r+") as f:
        f["bound/argmax_rank/mean"][0, 0] += 1.0
    with common.open_result(path) as f:
        exp = common.Experiment(path, f, "bound")
        figs, _ = captured(hardmax, hardmax.bound_figure, exp, tmp)
        line = [l for l in figs["bound_rank"].axes[0].get_lines() if l.get_label() == "n = 8"][0]
        check(not np.allclose(line.get_ydata(), mean[0] / 8), "the check sees a changed dataset")


def main():
    exe, case = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            {"scripts": case_scripts, "curves": case_curves}[case](tmp, exe)
        except Failure as e:
            print(f"FAIL {case}: {e}")
            return 1
    print(f"ok {case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

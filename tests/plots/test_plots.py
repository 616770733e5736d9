#!/usr/bin/python3
"""The figure scripts on a file written by a reduced run of every simulator: each runs,
writes non-empty SVG, PDF and PNG, fails in one line on a file that lacks its data, and
draws what the file holds (the plotted lines are read back from the figures and
compared with the datasets), users' conjectures included: a figure each, whose lines
are their estimate and theory/<id>, in a section of the report tagged as a conjecture;
and every claim row's verdict figure, whose lines are the datasets' and whose point is
the verdict's estimate and interval as /verdicts stores them.

usage: test_plots.py ATTNRANK CASE   (ATTNRANK_SOURCE_ROOT names the source tree)"""
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

ROOT = os.environ["ATTNRANK_SOURCE_ROOT"]
PLOTS = os.path.join(ROOT, "plots")
FAMILIES = ["hardmax", "markov", "masks", "convex"]  # each family's figure script is in its folder
sys.path[:0] = [PLOTS] + [os.path.join(ROOT, "sim", "05-families", f) for f in FAMILIES]

SPEC = """seed = 3;
experiments = (
  { name = "bound"; simulator = "hardmax_rank"; trials = 200; n = [8, 16, 32]; d_h = [1, 4, 16];
    conjectures = ( { id = "rank_06"; output = "argmax_rank"; rule = "upper_bound"; prediction = "0.6 * n + 2";
                      where = "d_h >= 4"; } ); },
  { name = "soft"; simulator = "softmax_rank"; trials = 20; n = 8; d_h = [2, 4]; tau = [1e-6, 1.0, 1e6];
    conjectures = ( { id = "tau_up"; output = "numrank_rel"; rule = "increasing"; prediction = "d_h + 1";
                      along = "tau"; } ); },
  { name = "tail"; simulator = "softmax_rank"; trials = 20; n = 8; d_h = 2; tau = [100.0, 1e3, 1e4, 1e5];
    claims = ["H5ratio"]; },
  { name = "sat"; simulator = "hardmax_saturation"; trials = 10; log2_n = [3, 4, 5, 6]; shortfall = [0.5, 0.1];
    claims = ["H2sat"]; },
  { name = "spectrum"; simulator = "markov_spectrum"; trials = 10; n = [16, 32]; gap = ["keep", "remove"]; },
  { name = "disc"; simulator = "markov_spectrum"; trials = 10; n = [16, 32]; eigenvalues = "yes"; },
  { name = "width"; simulator = "width_collapse"; trials = 10; n = [16, 32]; gap = ["keep", "remove"]; },
  { name = "depth"; simulator = "depth_collapse"; trials = 6; n = [8, 16]; layers = 4; gap = ["keep", "remove"];
    conjectures = ( { id = "sr_last"; output = "stable_rank"; rule = "upper_bound"; prediction = "n";
                      element = -1; } ); },
  { name = "masks"; simulator = "mask_dynamics"; trials = 6; n = 16; d = 4; layers = 20;
    mask = ["complete", "window"]; value = "identity"; norm = ["none", "sphere"]; },
  { name = "window"; simulator = "mask_dynamics"; trials = 6; n = 16; d = 4; layers = 20; mask = "window";
    w = [1, 2, 4]; value = "identity"; },
  { name = "equilibria"; simulator = "ln_equilibria"; trials = 4; n = 3; d = 3; rank = [1, 2, 3]; layers = 20; },
  { name = "convex"; simulator = "convex_attention"; trials = 4; N = 3; n = 3; d = 2; beta = [0.05, 0.5];
    starts = 4; }
);
"""
# Each conjecture of SPEC: experiment, id, the axis its figure runs along, its output
# and element (None: a scalar output).
CONJECTURES = [("bound", "rank_06", "n", "argmax_rank", None), ("soft", "tau_up", "tau", "numrank_rel", None),
               ("depth", "sr_last", "n", "stable_rank", -1)]
# Layers swept, so that each point's vector has its own end; judge adds a conjecture
# without a prediction (a trend) to a copy.
DEEP_SPEC = """seed = 5;
experiments = (
  { name = "deep"; simulator = "depth_collapse"; trials = 4; n = [8, 16]; layers = [2, 4]; claims = [];
    conjectures = ( { id = "sr_end"; output = "stable_rank"; rule = "upper_bound"; prediction = "n";
                      element = -1; } ); }
);
"""
DEEP_JUDGED = "id=flat; output=frobenius; rule=decreasing; along=n; element=0"


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def result_file(tmp, exe):
    spec = os.path.join(tmp, "all.cfg")
    with open(spec, "w") as f:
        f.write(SPEC)
    out = os.path.join(tmp, "all.h5")
    proc = subprocess.run([exe, "run", spec, "-o", out, "-q"], capture_output=True, text=True)
    check(proc.returncode in (0, 1, 4), f"the reduced run failed: {proc.stderr}")
    return out


def script_path(name):
    """plots/NAME, or a family's script in its folder (sim/05-families/<family>/<family>.py)."""
    stem = os.path.splitext(name)[0]
    return os.path.join(ROOT, "sim", "05-families", stem, name) if stem in FAMILIES else os.path.join(PLOTS, name)


def scripts(*calls):
    """Run figure scripts, (name, *args) each, side by side; their finished processes."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    started = [subprocess.Popen(["/usr/bin/python3", script_path(name), *args], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env) for name, *args in calls]
    done = []
    for proc in started:
        out, err = proc.communicate()
        done.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return done


def script(name, *args):
    return scripts((name, *args))[0]


def case_scripts(tmp, exe):
    path = result_file(tmp, exe)
    expect = {"hardmax.py": ["bound_rank", "bound_hist", "soft_tau", "tail_tail", "sat_saturation"],
              "markov.py": ["spectrum_singular_values", "spectrum_stable_rank", "disc_eigenvalues", "width_width",
                            "depth_depth", "depth_gradient"],
              "masks.py": ["masks_mu", "window_rate_w", "equilibria_equilibria"],
              "convex.py": ["convex_network", "convex_sparsity"],
              "conjectures.py": [f"{e}_conjecture_{c}" for e, c, *_ in CONJECTURES],
              "claims.py": ["bound_verdict_H1", "spectrum_verdict_S1", "masks_verdict_M2bound", "depth_verdict_S6perp",
                            "equilibria_verdict_M4escape"]}
    # every script at once, and plot_all.py with SVG only, as the report asks
    *procs, proc = scripts(*[(name, path, os.path.join(tmp, name)) for name in expect],
                           ("plot_all.py", "--svg-only", path, os.path.join(tmp, "all")))
    for (name, stems), done in zip(expect.items(), procs):
        check(done.returncode == 0, f"{name}: exit {done.returncode}: {done.stderr}")
        for stem in stems:
            for fmt in ("svg", "pdf", "png"):
                file = os.path.join(tmp, name, f"{stem}.{fmt}")
                check(os.path.exists(file) and os.path.getsize(file) > 2000, f"{name}: {file} missing or empty")
    check(proc.returncode == 0 and "figures in" in proc.stdout, f"plot_all.py: {proc.stderr}")
    rows = open(os.path.join(tmp, "all", "figures.tsv")).read().splitlines()
    check(len(rows) >= 17 and all(len(r.split("\t")) == 5 for r in rows), f"figures.tsv: {rows[:3]}")
    # plot_all.py found each family's script in the family's folder, by the path the file names
    family_svgs = {f"{stem}.svg" for name, stems in expect.items() if name[:-3] in FAMILIES for stem in stems}
    check(family_svgs <= {r.split("\t")[3] for r in rows}, f"family figures in figures.tsv: {sorted(family_svgs)}")
    with h5py.File(path) as f:
        named = {text(f[e].attrs["plot_script"]) for e in f
                 if isinstance(f[e], h5py.Group) and "plot_script" in f[e].attrs}
    check(named == {f"sim/05-families/{f}/{f}.py" for f in FAMILIES} and
          all(os.path.isfile(os.path.join(ROOT, n)) for n in named), f"plot_script attributes: {sorted(named)}")
    # a file written before the scripts moved names plots/<family>.py: drawn alike
    older = os.path.join(tmp, "older.h5")
    shutil.copy(path, older)
    with h5py.File(older, "r+") as f:
        for e in f:
            if isinstance(f[e], h5py.Group) and "plot_script" in f[e].attrs:
                f[e].attrs["plot_script"] = "plots/" + os.path.basename(text(f[e].attrs["plot_script"]))
    proc = script("plot_all.py", "--svg-only", older, os.path.join(tmp, "older"))
    older_rows = open(os.path.join(tmp, "older", "figures.tsv")).read().splitlines()
    check(proc.returncode == 0 and sorted(r.split("\t")[3] for r in older_rows) == sorted(r.split("\t")[3] for r in rows),
          f"plots/<family>.py named: {proc.stderr}")
    with h5py.File(path) as f:  # every claim row of /verdicts (conjectures aside) has its verdict figure
        conjectured = {(e, c) for e, c, *_ in CONJECTURES}
        claim_rows = [(r["experiment"].decode(), r["claim"].decode()) for r in f["verdicts"][...]]
    claim_rows = [r for r in claim_rows if r not in conjectured]
    verdict_rows = [r.split("\t") for r in rows if "_verdict_" in r.split("\t")[3]]
    check(sorted(tuple(r[:2]) for r in verdict_rows) == sorted(claim_rows) and
          all(r[3] == f"{r[0]}_verdict_{r[1]}.svg" for r in verdict_rows), f"figures.tsv: a verdict figure per claim row")
    for experiment, cid, *_ in CONJECTURES:  # a row each, naming the conjecture alone, its verdict in the caption
        row = [r.split("\t") for r in rows if r.split("\t")[:2] == [experiment, cid]]
        check(len(row) == 1 and row[0][3] == f"{experiment}_conjecture_{cid}.svg" and "user conjecture" in row[0][4]
              and re.search(r"verdict (HOLDS|VIOLATED|INCONCLUSIVE)", row[0][4]), f"figures.tsv, {cid}: {row}")
    # a file without the data a figure needs: one line naming it, exit 2
    broken = os.path.join(tmp, "broken.h5")
    shutil.copy(path, broken)
    with h5py.File(broken, "r+") as f:
        del f["bound/argmax_rank/ci_lo"]
    proc = script("hardmax.py", broken, os.path.join(tmp, "b"))
    check(proc.returncode == 2, f"broken file: exit {proc.returncode}")
    lines = proc.stderr.strip().splitlines()
    check(len(lines) == 1 and "bound lacks the dataset argmax_rank/ci_lo" in lines[0], f"message: {proc.stderr}")
    proc = script("conjectures.py", broken, os.path.join(tmp, "b"), "bound")  # rank_06 speaks of argmax_rank
    check(proc.returncode == 2 and proc.stderr.count("\n") == 1 and "argmax_rank/ci_lo" in proc.stderr,
          f"broken file, conjectures.py: exit {proc.returncode}: {proc.stderr}")
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

    def keep(fig, exp, title, claims, stem, outdir, extra="", tight=True):
        kept.append((stem, fig))
        return {"experiment": exp.name, "claims": claims}

    saved = module.finish
    module.finish = keep
    try:
        function(exp, tmp)
    finally:
        module.finish = saved
    return dict(kept), common


def axis_text(value):
    return value.decode() if isinstance(value, bytes) else f"{value:g}"


def check_conjecture(f, path, experiment, cid, along, output, element, tmp):
    """The conjecture's figure draws, per value of the other axes where it speaks, its
    output's mean (at the element) and theory/<id> along its axis, and stars the
    verdict's estimate."""
    import common
    import conjectures
    exp = common.Experiment(path, f, experiment)
    figs, _ = captured(conjectures, conjectures.figures_for, exp, tmp)
    check(f"{experiment}_conjecture_{cid}" in figs, f"{cid}: no figure ({sorted(figs)})")
    ax = figs[f"{experiment}_conjecture_{cid}"].axes[0]
    group = f[experiment]
    axes = group.attrs["axes"].split()
    mean = group[output]["mean"][...]
    if element is not None:  # the element of each point's own vector (count + failed says how long it is)
        seen = (group[output]["count"][...] + group[output]["failed"][...]) > 0
        length = seen.shape[-1] - np.argmax(seen[..., ::-1], axis=-1)
        index = length + element if element < 0 else np.full(length.shape, element)
        mean = np.take_along_axis(mean, index[..., None], -1)[..., 0]
    theory = group["theory"][cid][...]
    mean, theory = np.moveaxis(mean, axes.index(along), -1), np.moveaxis(theory, axes.index(along), -1)
    others = [a for a in axes if a != along]
    drawn = {l.get_label().removesuffix(" (silent)"): l for l in ax.get_lines()
             if len(l.get_xdata()) and not l.get_label().startswith("_") and l.get_label() != "deciding point"}
    predicted = {l.get_label().removeprefix("_prediction "): l for l in ax.get_lines()
                 if l.get_label().startswith("_prediction ")}
    combos = list(itertools.product(*(range(len(group[a])) for a in others)))
    combos = [c for c in combos if np.isfinite(theory[c]).any()] or combos
    check(len(drawn) == len(combos) == len(predicted), f"{cid}: a line per value of {others}: {sorted(drawn)}")
    for combo in combos:
        label = ", ".join(f"{a} = {axis_text(group[a][i])}" for a, i in zip(others, combo)) or output
        check(label in drawn and label in predicted, f"{cid}: no line {label!r}: {sorted(drawn)}")
        check(np.allclose(drawn[label].get_xdata(), group[along][...]), f"{cid}, {label}: x is {along}")
        check(np.allclose(drawn[label].get_ydata(), mean[combo], equal_nan=True), f"{cid}, {label}: the mean")
        check(np.allclose(predicted[label].get_ydata(), theory[combo], equal_nan=True),
              f"{cid}, {label}: the prediction is theory/{cid}: {predicted[label].get_ydata()} {theory[combo]}")
    row = [r for r in f["verdicts"][...] if r["claim"].decode() == cid and r["experiment"].decode() == experiment]
    star = [l for l in ax.get_lines() if l.get_label() == "deciding point"]
    check(len(row) == 1 and len(star) == 1 and np.isclose(star[0].get_ydata()[0], row[0]["estimate"]),
          f"{cid}: the star is the verdict's estimate at {row[0]['point'] if row else '?'}")
    check(row[0]["verdict"].decode() in ax.get_title(), f"{cid}: the verdict in the panel's title: {ax.get_title()}")
    return predicted


def check_claim_figure(f, path, experiment, cid, along, tmp):
    """A claim's verdict figure draws, per value of the other axes, its output's mean and
    theory/<claim> along the axis (and the largest trial for a per-trial rule), and beside
    them the verdict's estimate with its interval and the prediction from /verdicts."""
    import claims
    import common
    exp = common.Experiment(path, f, experiment)
    figs, _ = captured(claims, claims.figures_for, exp, tmp)
    stem = f"{experiment}_verdict_{cid}"
    check(stem in figs, f"{cid}: no verdict figure ({sorted(figs)})")
    left, right = figs[stem].axes
    group = f[experiment]
    axes = group.attrs["axes"].split()
    output = group["theory"][cid].attrs["output"]
    row = [r for r in f["verdicts"][...] if r["claim"].decode() == cid and r["experiment"].decode() == experiment]
    check(len(row) == 1, f"{cid}: one verdict row")
    row = row[0]
    mean, top = (np.moveaxis(group[output][s][...], axes.index(along), -1) for s in ("mean", "max"))
    theory = np.moveaxis(group["theory"][cid][...], axes.index(along), -1)
    others = [a for a in axes if a != along]
    lines = {l.get_label(): l for l in left.get_lines()}
    combos = list(itertools.product(*(range(len(group[a])) for a in others)))
    combos = [c for c in combos if np.isfinite(theory[c]).any()] or combos
    per_trial = row["rule_kind"].decode() in ("every trial", "witness")
    predicted = row["rule_kind"].decode() in claims.SAME_UNITS  # a trend's theory is a placeholder: not drawn
    check(predicted or not [l for l in lines if l.startswith("_prediction")], f"{cid}: no prediction drawn")
    for combo in combos:
        label = ", ".join(f"{a} = {axis_text(group[a][i])}" for a, i in zip(others, combo)) or output
        check(label in lines and (f"_prediction {label}" in lines) == predicted,
              f"{cid}: no line {label!r}: {sorted(lines)}")
        numeric = group[along].dtype.kind not in "SO"
        check(not numeric or np.allclose(lines[label].get_xdata(), group[along][...]), f"{cid}, {label}: x is {along}")
        check(np.allclose(lines[label].get_ydata(), mean[combo], equal_nan=True), f"{cid}, {label}: the mean")
        check(not predicted or np.allclose(lines[f"_prediction {label}"].get_ydata(), theory[combo], equal_nan=True),
              f"{cid}, {label}: the prediction is theory/{cid}")
        check(not per_trial or np.allclose(lines[f"_largest {label}"].get_ydata(), top[combo], equal_nan=True),
              f"{cid}, {label}: the largest trial")
    if not np.isfinite(row["estimate"]):
        check(not right.containers and any("no estimate" in t.get_text() for t in right.texts),
              f"{cid}: no estimate drawn where /verdicts has none")
        return
    bar = right.containers[0]
    (low, high), = [segment[:, 1] for segment in bar.lines[2][0].get_segments()]
    check(np.isclose(bar.lines[0].get_ydata()[0], row["estimate"]) and np.isclose(low, row["ci_lo"]) and
          np.isclose(high, row["ci_hi"]), f"{cid}: the verdict's estimate and interval, as stored")
    prediction = [l for l in right.get_lines() if l.get_label().startswith("prediction")]
    check(len(prediction) == predicted and all(np.allclose(l.get_ydata(), row["prediction"]) for l in prediction),
          f"{cid}: the verdict's prediction")
    check(row["verdict"].decode() in right.get_title(), f"{cid}: the verdict in the panel's title")


def check_deep_conjectures(tmp, exe):
    """Layers swept (each point's vector ends elsewhere) and a judged copy: its
    figures, a file from before kinds (none for it), and the report's sections."""
    import common
    import conjectures
    spec = os.path.join(tmp, "deep.cfg")
    with open(spec, "w") as f:
        f.write(DEEP_SPEC)
    path, copy = os.path.join(tmp, "deep.h5"), os.path.join(tmp, "judged.h5")
    proc = subprocess.run([exe, "run", spec, "-o", path, "-q"], capture_output=True, text=True)
    check(proc.returncode == 0, f"the deep run failed: {proc.stderr}")
    proc = subprocess.run([exe, "judge", path, "--conjecture", DEEP_JUDGED, "-o", copy], capture_output=True, text=True)
    check(proc.returncode in (0, 1, 4) and os.path.exists(copy), f"judge -o: {proc.stderr}")
    with common.open_result(copy) as f:
        check_conjecture(f, copy, "deep", "sr_end", "n", "stable_rank", -1, tmp)
        exp = common.Experiment(copy, f, "deep")
        figs, _ = captured(conjectures, conjectures.figures_for, exp, tmp)
        ax = figs["deep_conjecture_flat"].axes[0]
        check(not [l for l in ax.get_lines() if l.get_label().startswith("_prediction")],
              "a trend without a prediction draws none (its theory is a placeholder)")
    old = os.path.join(tmp, "old.h5")  # no kind attributes: every theory dataset a claim
    shutil.copy(copy, old)
    with h5py.File(old, "r+") as f:
        for name in f["deep/theory"]:
            del f["deep/theory"][name].attrs["kind"]
    with common.open_result(old) as f:
        check(conjectures.figures_for(common.Experiment(old, f, "deep"), tmp) == [], "no kind: no conjecture figure")
    report = os.path.join(tmp, "rep")
    proc = subprocess.run([exe, "report", copy, "-o", report], capture_output=True, text=True)
    check(proc.returncode == 0 and not proc.stderr, f"report: exit {proc.returncode}: {proc.stderr}")
    page = open(os.path.join(report, "report.html")).read()
    for cid in ("sr_end", "flat"):
        row = re.search(rf'<tr class=\w+><td><a href="#deep-{cid}">{cid}</a>([^<]*<span class=tag>[^<]*</span>)?', page)
        check(row and row.group(1) and "conjecture" in row.group(1), f"{cid}: the table's row is tagged: {row}")
        section = re.search(rf'<section id="deep-{cid}">(.*?)</section>', page, re.S)
        check(section and "<span class=tag>user conjecture</span>" in section.group(1).split("</h3>")[0],
              f"{cid}: a section tagged as a user conjecture")
        check(section.group(1).count("<svg") == 1 and "user conjecture" in section.group(1).split("<figcaption>")[-1],
              f"{cid}: its figure, and a caption that says it is a conjecture")


def case_curves(tmp, exe):
    """What is drawn is what the file holds: read the lines back from the figures."""
    import common
    import conjectures
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
        for conjecture in CONJECTURES:
            check_conjecture(f, path, *conjecture, tmp)
        for experiment, cid, along in (("bound", "H1", "n"), ("spectrum", "S1", "n"), ("masks", "M2bound", "mask"),
                                       ("window", "M2", "w")):
            check_claim_figure(f, path, experiment, cid, along, tmp)
    # and a figure of other data must not pass: perturb the file, the lines move
    with h5py.File(path, "r+") as f:
        f["bound/argmax_rank/mean"][0, 0] += 1.0
    with common.open_result(path) as f:
        exp = common.Experiment(path, f, "bound")
        figs, _ = captured(hardmax, hardmax.bound_figure, exp, tmp)
        line = [l for l in figs["bound_rank"].axes[0].get_lines() if l.get_label() == "n = 8"][0]
        check(not np.allclose(line.get_ydata(), mean[0] / 8), "the check sees a changed dataset")
    with h5py.File(path, "r+") as f:
        theory = f["bound/theory/rank_06"][...]
        f["bound/theory/rank_06"][0, 2] += 1.0
    with common.open_result(path) as f:
        figs, _ = captured(conjectures, conjectures.figures_for, common.Experiment(path, f, "bound"), tmp)
        line = [l for l in figs["bound_conjecture_rank_06"].axes[0].get_lines()
                if l.get_label() == "_prediction d_h = 16"]
        check(line and not np.allclose(line[0].get_ydata(), theory[:, 2]), "the check sees a changed theory")
    check_deep_conjectures(tmp, exe)


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

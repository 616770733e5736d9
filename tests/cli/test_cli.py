#!/usr/bin/python3
"""CLI tests: run the real attnrank binary and read what it writes with h5py.

usage: test_cli.py ATTNRANK CASE     (meson registers one test per case)
"""
import hashlib
import html.parser
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

EXE = None
HERE = os.path.dirname(os.path.abspath(__file__))

SMALL_SPEC = """seed = 4;
experiments = (
  { name = "e"; simulator = "hardmax_rank"; trials = 300;
    n = [8, 16, 32]; d_h = [1, 2, 8]; },
  { name = "soft"; simulator = "softmax_rank"; trials = 50;
    n = 12; d_h = 3; tau = [1e-6, 1.0, 1e6]; }
);
"""

# Enough work (about 2-4 s) for a kill to land mid-run.
SLOW_SPEC = """seed = 6;
experiments = (
  { name = "slow"; simulator = "hardmax_rank"; trials = 500;
    n = [64, 96, 128, 160, 192]; d_h = [16, 32, 64, 128]; sampler = "faithful"; }
);
"""


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


def run(args, expect=None, env=None, timeout=600):
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    proc = subprocess.run([EXE] + args, capture_output=True, text=True, env=full_env, timeout=timeout)
    if expect is not None and proc.returncode != expect:
        raise Failure(f"attnrank {' '.join(args)}: exit {proc.returncode}, want {expect}\n"
                      f"stdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def datasets(path):
    """Every dataset below the experiment groups and /verdicts, as raw bytes."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                out[name] = obj[()].tobytes() if obj.shape != () else np.array(obj[()]).tobytes()
        f.visititems(visit)
    return out


def same_datasets(a, b):
    da, db = datasets(a), datasets(b)
    check(da.keys() == db.keys(), f"{a} and {b} hold different datasets")
    differ = [k for k in da if da[k] != db[k]]
    check(not differ, f"{a} and {b} differ in {differ[:5]}")


def h5diff_groups(a, b, groups):
    for g in groups:
        proc = subprocess.run(["h5diff", a, b, g, g], capture_output=True, text=True)
        check(proc.returncode == 0, f"h5diff {a} {b} {g}: {proc.stdout} {proc.stderr}")


def asan_build():
    """Is the program under test built with AddressSanitizer? Its shadow memory fits under
    no ulimit -v, and memcheck cannot run it."""
    return "asan" in subprocess.run(["ldd", EXE], capture_output=True, text=True).stdout


def one_line_error(proc, *parts):
    lines = proc.stderr.strip().splitlines()
    check(len(lines) == 1, f"want one line on stderr, got {proc.stderr!r}")
    for part in parts:
        check(part in lines[0], f"stderr {lines[0]!r} lacks {part!r}")


# ---- cases ------------------------------------------------------------------------

def case_list(tmp):
    out = run(["list"], expect=0).stdout
    for word in ["hardmax_rank", "softmax_rank", "d_h", "orthonormal|gaussian", "argmax_rank",
                 "numrank_abs", "effective_rank", "H1", "H5b", "[2, 16384]"]:
        check(word in out, f"list lacks {word}")
    out = run(["list", "softmax_rank"], expect=0).stdout
    check("hardmax_rank:" not in out and "tau" in out, "list SIM shows one simulator")
    one_line_error(run(["list", "nope"], expect=2), "unknown simulator 'nope'")


def case_help(tmp):
    check("usage: attnrank COMMAND" in run(["--help"], expect=0).stdout, "--help")
    check("--resume" in run(["run", "--help"], expect=0).stdout, "run --help")
    check("--quick" in run(["help", "verify"], expect=0).stdout, "help verify")
    one_line_error(run(["frobnicate"], expect=2), "unknown command 'frobnicate'")
    check("OpenBLAS" in run(["--version"], expect=0).stdout, "--version names OpenBLAS")
    for command, option in (("merge", "--force"), ("plan", "core-hours"), ("report", "-o DIR"), ("run", "--shard"),
                            ("info", "OpenBLAS core"), ("list", "--tsv"), ("mutants", "mutants FILE")):
        check(option in run(["help", command], expect=0).stdout, f"help {command} mentions {option}")
        check(option in run([command, "--help"], expect=0).stdout, f"{command} --help mentions {option}")


def case_run_layout(tmp):
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    out = f"{tmp}/small.h5"
    proc = run(["run", spec, "-o", out, "--quiet"], expect=0)
    check("H1" in proc.stdout and "HOLDS" in proc.stdout, "run prints the verdict table")
    # H5b cannot fail (its cut is the remainder's own bound): the table says so
    h5b = [line for line in proc.stdout.splitlines() if line.startswith("H5b ")]
    check(len(h5b) == 1 and "unit check" in h5b[0], f"H5b labelled a unit check: {h5b}")
    check(not os.path.exists(out + ".partial"), "the partial file is renamed away")
    with h5py.File(out, "r") as f:
        for attr in ["attnrank_version", "git_revision", "created", "command_line", "spec", "spec_canonical",
                     "spec_hash", "seed", "openblas_core", "gsl_version", "hdf5_version"]:
            check(attr in f.attrs, f"root attribute {attr} missing")
        check(f.attrs["seed"] == 4, "seed attribute")
        e = f["e"]
        check(e.attrs["simulator"] == "hardmax_rank" and e.attrs["trials"] == 300, "group attributes")
        check(e.attrs["inputs"] == "orthonormal", "fixed parameters are attributes")
        check(list(e["n"][...]) == [8, 16, 32] and list(e["d_h"][...]) == [1, 2, 8], "axes")
        mean = e["argmax_rank/mean"]
        check(mean.shape == (3, 3), "mean shape")
        check(mean.dims[0].label == "n" and mean.dims[0][0].name == "/e/n", "dimension scale n")
        check(mean.dims[1][0].name == "/e/d_h", "dimension scale d_h")
        check("description" in mean.attrs, "datasets are described")
        check("distinct argmax" in e["argmax_rank"].attrs["definition"], "rank definition stored")
        hist = e["argmax_rank/hist"][...]
        check(hist.shape == (3, 3, 33), "hist shape: axes + values 0..max n")
        check((hist.sum(axis=2) == 300).all(), "histograms count every trial")
        values = e["argmax_rank/value"][...]
        from_hist = (hist * values).sum(axis=2) / hist.sum(axis=2)
        check(np.allclose(from_hist, mean[...], rtol=0, atol=1e-12), "mean agrees with the histogram")
        check((e["argmax_rank/count"][...] == 300).all(), "count")
        check((e["argmax_rank/ci_lo"][...] <= mean[...]).all() and (mean[...] <= e["argmax_rank/ci_hi"][...]).all(),
              "interval brackets the mean")
        n = e["n"][...].astype(float)[:, None]
        check(np.allclose(e["theory/H1"][...], (1 - np.exp(-1)) * n + 1 + 0 * mean[...]), "theory H1 on the axes")
        h3 = e["theory/H3"][...]
        check(np.isnan(h3[:, 1:]).all() and np.allclose(h3[:, 0], 2 - 2.0 ** (1 - n[:, 0])), "theory H3 where d_h = 1")
        hull = e["hull_vertices/mean"][...]
        check(np.isnan(hull[:, [0, 2]]).all() and np.isfinite(hull[:, 1]).all(), "hull only at d_h = 2")
        check((e["hull_vertices/mean"][:, 1] >= mean[:, 1]).all(), "hull vertices bound the rank")
        check((e["done"][...] == 1).all(), "done ledger")
        soft = f["soft"]
        check(soft["numrank_abs/mean"].shape == (3,), "softmax axis")
        check(soft["numrank_abs/mean"][2] <= 4, "rank <= d_h + 1 at tau = 1e6")
        v = f["verdicts"][...]
        claims = [c.decode() for c in v["claim"]]
        check(claims == ["H1", "H2", "H3", "H5a", "H5b", "H5tau_rel"], f"verdict rows {claims}")
        check(all(x.decode() in ("HOLDS", "INCONCLUSIVE") for x in v["verdict"]), "verdicts")
        check(all(t > 0 for t in v["trials"]), "verdict rows carry trial counts")
    info = run(["info", out], expect=0).stdout
    check("/e: simulator hardmax_rank, 300 trials per point, 9 of 9 points done" in info, "info summary")
    check("H5b" in info and "axis n" in info, "info shows axes and verdicts")
    dump = subprocess.run(["h5dump", "-H", out], capture_output=True, text=True)
    check(dump.returncode == 0 and "DIMENSION_LIST" in dump.stdout, "h5dump reads the file")


def case_threads_bitwise(tmp):
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    run(["run", spec, "-o", f"{tmp}/t1.h5", "-q", "--threads", "1"], expect=0)
    run(["run", spec, "-o", f"{tmp}/t2.h5", "-q", "--threads", "2"], expect=0)
    h5diff_groups(f"{tmp}/t1.h5", f"{tmp}/t2.h5", ["/e", "/soft", "/verdicts"])
    same_datasets(f"{tmp}/t1.h5", f"{tmp}/t2.h5")


def case_axis_gains_value(tmp):
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    run(["run", spec, "-o", f"{tmp}/a.h5", "-q"], expect=0)
    run(["run", spec, "-o", f"{tmp}/b.h5", "-q", "--set", "e.n=[8, 12, 16, 32]"], expect=0)
    with h5py.File(f"{tmp}/a.h5") as a, h5py.File(f"{tmp}/b.h5") as b:
        for stat in ["mean", "stderr", "hist"]:
            old, new = a[f"e/argmax_rank/{stat}"][...], b[f"e/argmax_rank/{stat}"][...]
            check(np.array_equal(old, new[[0, 2, 3]]), f"{stat}: a new n value changed other points")


def start_slow(tmp, out, extra=()):
    spec = write(f"{tmp}/slow.cfg", SLOW_SPEC)
    return subprocess.Popen([EXE, "run", spec, "-o", out, "-q", *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def case_resume_after_sigkill(tmp):
    spec = write(f"{tmp}/slow.cfg", SLOW_SPEC)
    reference = f"{tmp}/reference.h5"
    t0 = time.time()
    run(["run", spec, "-o", reference, "-q"], expect=0)
    full = time.time() - t0
    rnd = random.Random(7)
    for attempt in range(4):
        out = f"{tmp}/killed{attempt}.h5"
        proc = start_slow(tmp, out)
        time.sleep(rnd.uniform(0.15, 0.9) * full)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        partial = out + ".partial"
        if os.path.exists(partial):
            dump = subprocess.run(["h5dump", "-H", partial], capture_output=True, text=True)
            check(dump.returncode == 0, f"attempt {attempt}: the partial file is unreadable after SIGKILL")
            with h5py.File(partial, "r") as f:
                done = int(f["slow/done"][...].sum())
            resumed = run(["run", spec, "-o", out, "--resume"], expect=0)
            check(f"{done} of 20 points already done" in resumed.stderr or done == 0,
                  f"resume reports the saved points: {resumed.stderr}")
        elif not os.path.exists(out):
            # Killed before the layout was in place: nothing was saved, so start over.
            run(["run", spec, "-o", out, "-q"], expect=0)
        h5diff_groups(reference, out, ["/slow", "/verdicts"])
        same_datasets(reference, out)


def case_sigterm(tmp):
    out = f"{tmp}/term.h5"
    proc = start_slow(tmp, out)
    time.sleep(0.8)
    t0 = time.time()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    check(proc.returncode == 143, f"SIGTERM exit status {proc.returncode}, want 143 ({err})")
    check(time.time() - t0 < 20, "SIGTERM stops within a bounded time")
    check("interrupted by SIGTERM" in err and "--resume" in err, f"SIGTERM message: {err}")
    check(not os.path.exists(out) and os.path.exists(out + ".partial"), "a resumable partial file remains")
    spec = f"{tmp}/slow.cfg"
    run(["run", spec, "-o", out, "--resume", "-q"], expect=0)
    run(["run", spec, "-o", f"{tmp}/ref.h5", "-q"], expect=0)
    same_datasets(out, f"{tmp}/ref.h5")
    # SIGHUP (a dropped ssh session) stops as cleanly: exit 129, resumable, no lock left
    out = f"{tmp}/hup.h5"
    proc = start_slow(tmp, out)
    time.sleep(0.8)
    proc.send_signal(signal.SIGHUP)
    _, err = proc.communicate(timeout=60)
    check(proc.returncode == 129 and "interrupted by SIGHUP" in err, f"SIGHUP: exit {proc.returncode} ({err})")
    check(os.path.exists(out + ".partial") and not os.path.exists(out + ".lock"), "SIGHUP leaves a resumable run")
    run(["run", spec, "-o", out, "--resume", "-q"], expect=0)
    same_datasets(out, f"{tmp}/ref.h5")


def case_refuse_overwrite(tmp):
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    out = f"{tmp}/o.h5"
    run(["run", spec, "-o", out, "-q"], expect=0)
    before = digest(out)
    one_line_error(run(["run", spec, "-o", out, "-q"], expect=2), "exists", "--force")
    check(digest(out) == before, "an existing result is not touched")
    run(["run", spec, "-o", out, "-q", "--force", "--set", "seed=5"], expect=0)
    with h5py.File(out) as f:
        check(f.attrs["seed"] == 5, "--force replaced the file")
    one_line_error(run(["run", spec, "-o", out, "--resume"], expect=2), "already complete")


def case_resume_other_spec(tmp):
    out = f"{tmp}/x.h5"
    proc = start_slow(tmp, out)
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = out + ".partial"
    check(os.path.exists(partial), "a partial file after the kill")
    before = digest(partial)
    spec = f"{tmp}/slow.cfg"
    one_line_error(run(["run", spec, "-o", out, "--resume", "--set", "trials=100"], expect=2),
                   "written by a different spec", "refusing")
    check(digest(partial) == before, "the partial file of another spec is not touched")
    one_line_error(run(["run", spec, "-o", out], expect=2), "an interrupted run is there", "--resume")
    one_line_error(run(["run", spec, "-o", f"{tmp}/none.h5", "--resume"], expect=2), "nothing to resume")


def case_bad_input(tmp):
    good = write(f"{tmp}/good.cfg", SMALL_SPEC)
    cases = [
        ("unknown.cfg", SMALL_SPEC.replace("trials = 300;", "trials = 300; colour = 1;"), [],
         ["unknown.cfg:3: colour: unknown field"]),
        ("type.cfg", SMALL_SPEC.replace("n = [8, 16, 32]", "n = [8, \"x\", 32]"), [], ["type.cfg:"]),
        ("ortho.cfg", SMALL_SPEC.replace("d_h = [1, 2, 8];", "d_h = [1, 2, 8]; d = 16;"), [],
         ["ortho.cfg:4: d: orthonormal inputs need n <= d (n = 32, d = 16)"]),
        ("dh0.cfg", SMALL_SPEC.replace("d_h = [1, 2, 8]", "d_h = [0, 2]"), [], ["dh0.cfg:4: d_h: 0 is out of range"]),
        ("tau.cfg", SMALL_SPEC.replace("tau = [1e-6, 1.0, 1e6]", "tau = -1.0"), [], ["tau.cfg:6: tau:"]),
        ("nan.cfg", SMALL_SPEC.replace("tau = [1e-6, 1.0, 1e6]", "tau = nan"), [], ["nan.cfg:6:", "nan and inf"]),
        ("empty_axis.cfg", SMALL_SPEC.replace("d_h = [1, 2, 8]", "d_h = []"), [], ["empty_axis.cfg:4: d_h: empty axis"]),
        ("empty.cfg", "", [], ["empty.cfg: empty file"]),
        ("syntax.cfg", "seed = 1\nexperiments = (", [], ["syntax.cfg:2: syntax error"]),
    ]
    for name, text, extra, parts in cases:
        path = write(f"{tmp}/{name}", text)
        out = f"{tmp}/{name}.h5"
        one_line_error(run(["run", path, "-o", out] + extra, expect=2), *parts)
        check(not os.path.exists(out) and not os.path.exists(out + ".partial"), f"{name}: no output left")
    with open(f"{tmp}/binary.cfg", "wb") as f:
        f.write(bytes(range(256)))
    one_line_error(run(["run", f"{tmp}/binary.cfg", "-o", f"{tmp}/b.h5"], expect=2), "binary.cfg:", "NUL bytes")
    one_line_error(run(["run", f"{tmp}/missing.cfg"], expect=2), "missing.cfg: cannot open the spec")
    one_line_error(run(["run", good, "-o", f"{tmp}/no/such/dir/x.h5"], expect=2), "does not exist")
    os.mkdir(f"{tmp}/adir")
    one_line_error(run(["run", good, "-o", f"{tmp}/adir"], expect=2), "is a directory")
    one_line_error(run(["run", good, "-o", f"{tmp}/m.h5", "--max-memory", "4K"], expect=2),
                   "good.cfg:3: e: point", "needs", "--max-memory")
    one_line_error(run(["run", good, "-o", f"{tmp}/m.h5", "--set", "e.n=[8,"], expect=2), "--set")
    one_line_error(run(["run", good, "--threads", "0"], expect=2), "--threads")
    one_line_error(run(["run", good, "--bogus"], expect=2), "unknown option")
    one_line_error(run(["run"], expect=2), "missing the SPEC")
    # A grid too large to plan refuses before any work.
    big = SMALL_SPEC.replace("trials = 300;", "trials = 300; sigma = (" +
                             ", ".join(f"{1 + i / 10000:.4f}" for i in range(4000)) + ");")
    big = big.replace("d_h = [1, 2, 8];", "d_h = (" + ", ".join(str(i) for i in range(1, 1001)) + ");")
    path = write(f"{tmp}/big.cfg", big)
    one_line_error(run(["run", path, "-o", f"{tmp}/big.h5"], expect=2), "big.cfg:3: e: the grid has 1.2e+07 points")


def case_info_bad_files(tmp):
    write(f"{tmp}/text.h5", "not hdf5 at all\n")
    one_line_error(run(["info", f"{tmp}/text.h5"], expect=2), "not an HDF5 file")
    one_line_error(run(["info", f"{tmp}/absent.h5"], expect=2), "no such file")
    with h5py.File(f"{tmp}/other.h5", "w") as f:
        f["x"] = np.arange(3)
    one_line_error(run(["info", f"{tmp}/other.h5"], expect=2), "not an attnrank result file")
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    run(["run", spec, "-o", f"{tmp}/good.h5", "-q"], expect=0)
    data = open(f"{tmp}/good.h5", "rb").read()
    with open(f"{tmp}/trunc.h5", "wb") as f:
        f.write(data[: len(data) // 3])
    proc = run(["info", f"{tmp}/trunc.h5"], expect=2)
    check(len(proc.stderr.strip().splitlines()) == 1, f"truncated file: one line, got {proc.stderr!r}")
    with h5py.File(f"{tmp}/good.h5", "r+") as f:
        f.attrs["format_version"] = np.int32(99)
    one_line_error(run(["info", f"{tmp}/good.h5"], expect=2), "file format 99")


def case_verify_quick(tmp):
    os.chdir(tmp)
    proc = run(["verify", "--quick"], expect=None)
    # A tenth of the trials leaves some verdicts undecided (status 4); none may differ.
    check(proc.returncode in (0, 4) and "differs from expected" not in proc.stdout, f"exit {proc.returncode}")
    lines = proc.stdout.splitlines()
    for claim, verdict in [("H1", "HOLDS"), ("H3", "HOLDS"), ("H4", "VIOLATED")]:
        check(any(l.split()[:1] == [claim] and f" {verdict} " in l for l in lines), f"{claim} {verdict}: {proc.stdout}")
    made = [p for p in os.listdir(tmp) if p.startswith("attnrank-verify-") and p.endswith(".h5")]
    check(len(made) == 1, f"verify writes one HDF5 file: {made}")
    check(f"results: {made[0]}" in proc.stdout, "verify prints the file's path")
    report = made[0][:-3] + "-report/report.html"
    check(f"report: {report}" in proc.stdout and os.path.getsize(os.path.join(tmp, report)) > 10000,
          f"verify writes its report: {proc.stdout[-300:]}")


VERDICT_SPEC = """seed = 11;
experiments = (
  { name = "exact"; simulator = "hardmax_rank"; trials = 20000; d_h = 1; n = [2, 4, 8]; claims = ["H3"]; },
  { name = "sharp"; simulator = "hardmax_rank"; trials = 4000; n = 8; d_h = [64, 1024]; claims = ["H1", "H2"];
    EXPECT },
  { name = "limit"; simulator = "markov_spectrum"; trials = 40; spectrum = "top2"; entries = "uniform";
    n = [64, 96, 128, 192, 256]; claims = ["S1", "S4"]; }
);
"""


def case_verdicts_mutants(tmp):
    """Resolutions in the table and in /verdicts, exit status 4 for an undecided verdict
    the spec expects definite, and the mutants of a stored result."""
    spec = write(f"{tmp}/v.cfg", VERDICT_SPEC.replace("EXPECT", 'expect = { H2 = "INCONCLUSIVE"; };'))
    out = f"{tmp}/v.h5"
    proc = run(["run", spec, "-o", out, "-q"], expect=0)
    check(" resolution " in proc.stdout.splitlines()[0], f"resolution column: {proc.stdout}")
    lines = {(l.split()[0], l.split()[1]): l for l in proc.stdout.splitlines() if len(l.split()) > 3}
    check("H2" in lines.get(("H2", "sharp"), "") and "INCONCLUSIVE" in lines[("H2", "sharp")], "H2 at the bound")
    check(" loose " in lines[("H1", "sharp")], f"H1 far from its bound is loose: {lines[('H1', 'sharp')]}")
    check("% hold" in lines[("S4", "limit")] and " HOLDS " in lines[("S4", "limit")], "S4 extrapolated")
    with h5py.File(out) as f:
        rows = {(r["claim"].decode(), r["experiment"].decode()): r for r in f["verdicts"][...]}
        check(rows[("H3", "exact")]["resolution"].decode().endswith("% hold"), "resolution stored")
        check(rows[("H1", "sharp")]["note"].decode() == "loose", "vacuity stored")
        check(rows[("H1", "sharp")]["note_kind"].decode() == "loose", "the note's kind stored")
        s4 = rows[("S4", "limit")]  # c + a/n + a2/n^2 on 5 sizes: 2 degrees of freedom
        check(s4["fit_sizes"] == 5 and s4["fit_dof"] == 2 and s4["fit_b"] == 1 and s4["fit_lines"] == 1
              and s4["fit_undecided"].decode() == "", f"the limit's fit stored as numbers: {s4}")
    # Mutants: re-judged without simulating; H3 and S4 kill their 2% mutants.
    before = digest(out)
    proc = run(["mutants", out], expect=0)
    mut = {(l.split()[0], l.split()[1]): l for l in proc.stdout.splitlines() if len(l.split()) > 3}
    for key in [("H3", "exact"), ("S1", "limit"), ("S4", "limit")]:
        check(mut[key].rstrip().endswith("-2% / +2%"), f"{key} kills its 2% mutants: {mut[key]}")
    check(mut[("H2", "sharp")].rstrip().endswith("-2%"), f"H2 at the bound kills a 2% tightening: {proc.stdout}")
    check("NONE killed" in mut[("H1", "sharp")] and "loose" in mut[("H1", "sharp")], "H1's loose bound survives")
    check(digest(out) == before, "mutants leave the file as it was")
    # The same spec without the expectation: H2 undecided where HOLDS is expected -> 4.
    spec = write(f"{tmp}/w.cfg", VERDICT_SPEC.replace("EXPECT", ""))
    proc = run(["run", spec, "-o", f"{tmp}/w.h5", "-q"], expect=4)
    check("exit status 4" in proc.stdout, f"status 4 explained: {proc.stdout[-300:]}")
    # Expectations must fit the rule.
    bad = VERDICT_SPEC.replace("EXPECT", 'expect = { H2 = "MEASURED"; };')
    proc = run(["run", write(f"{tmp}/b.cfg", bad), "-o", f"{tmp}/b.h5"], expect=2)
    check("cannot be \"MEASURED\"" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr)
    # Mutants refuse what is not a finished result file, in one line.
    proc = run(["mutants", spec], expect=2)
    check(len(proc.stderr.strip().splitlines()) == 1, proc.stderr)
    run(["mutants"], expect=2)


def case_toy_family(tmp):
    """The toy family (tests/toy/), registered at run time, goes through list, run, the
    verdicts, mutants, info and the report like a built-in one."""
    proc = run(["list", "coin_flips"], expect=0)
    check("family: toy" in proc.stdout and "claims: T1 T2 T3" in proc.stdout, proc.stdout)
    spec = os.path.join(os.environ["ATTNRANK_SOURCE_ROOT"], "tests", "toy", "toy.cfg")
    out = f"{tmp}/toy.h5"
    proc = run(["run", spec, "-o", out, "-q"], expect=0)
    table = proc.stdout.split("\nclaims:")[0].splitlines()
    rows = {(l.split()[0], l.split()[1]): l.split()[2] for l in table if l.split()[:1] in (["T1"], ["T2"], ["T3"])}
    check(rows == {("T1", "fair"): "HOLDS", ("T2", "fair"): "HOLDS", ("T3", "fair"): "HOLDS",
                   ("T3", "bent"): "HOLDS"}, f"toy verdicts: {rows}")
    with h5py.File(out) as f:
        check(f["fair"].attrs["family"] == b"toy" or f["fair"].attrs["family"] == "toy", "family attribute")
        check(np.allclose(f["fair/theory/T1"][...], f["fair/n"][...] * 0.3), "T1's prediction n p stored")
    proc = run(["mutants", out], expect=0)
    check(any(l.startswith("T1 ") and l.rstrip().endswith("-2% / +2%") for l in proc.stdout.splitlines()),
          f"T1 kills its 2% mutants: {proc.stdout}")
    run(["info", out], expect=0)
    run(["report", out, "-o", f"{tmp}/report"], expect=0)
    check(os.path.getsize(f"{tmp}/report/report.html") > 1000, "the report of a toy run")


def case_markov_layout(tmp):
    spec = os.path.join(os.environ["ATTNRANK_SOURCE_ROOT"], "runs", "markov_spectrum.cfg")
    out = f"{tmp}/m.h5"
    proc = run(["run", spec, "-o", out, "-q", "--set", "spectrum.n=[32,64]", "--set", "top2.n=[128,256]",
                "--set", "disc.n=[32,64]", "--set", "width.n=[32,64]", "--set", "depth.n=[16,32]",
                "--set", "depth.layers=5", "--set", "gradient.n=[16,32]", "--set", "depth_keyquery.n=[16]",
                "--set", "depth_keyquery.layers=3", "--set", "gradient_variants.n=[16,32]",
                "--set", "gradient_variants.layers=3", "--set", "trials=12",
                "--set", "keyquery.scale=[0.1,1.0]", "--set", "keyquery.n=[32,64]", "--set", "keyquery.d_h=[0,16]",
                "--set", "depth_rate.n=[16,32,48]"], expect=None)
    # Two sizes cannot extrapolate a limit: those verdicts are INCONCLUSIVE, status 4.
    check(proc.returncode == 4 and "differs from expected" not in proc.stdout, f"exit {proc.returncode}")
    check("S4perp" in proc.stdout, "markov verdicts printed")
    with h5py.File(out) as f:
        g = f["spectrum"]
        check([x.decode() for x in g["entries"][...]] == ["lognormal", "exponential", "uniform"], "entries axis")
        check([x.decode() for x in g["gap"][...]] == ["keep", "remove"], "gap axis")
        for output in ["sigma1", "sqrt_n_sigma2", "stable_rank", "stable_rank_gram", "effective_rank",
                       "ks_quarter_circle"]:
            check(g[f"{output}/mean"].shape == (2, 3, 2), f"{output} over (n, entries, gap)")
        check((g["sigma1/mean"][:, :, 0] >= 1).all(), "a Markov matrix has sigma_1 >= 1")
        s1 = g["theory/S1"][...]
        check((s1[:, :, 0] == 1).all() and np.isnan(s1[:, :, 1]).all(), "S1 speaks only where the gap is kept")
        s2 = g["theory/S2"][...]
        check(np.allclose(s2[:, 2, 0], 2 / np.sqrt(3)), "S2 edge 2 s/m for uniform entries")
        dens = g["sv_density/mean"]
        check(dens.shape == (2, 3, 2, 60) and dens.dims[3].label == "x", "density over (n, entries, gap, x)")
        x = g["sv_density/x"][...]
        check(np.allclose(x[:2], [0.025, 0.075]), "bin centres as the x scale")
        mass = dens[...].sum(axis=3) * (x[1] - x[0])
        check(np.all(mass <= 1 + 1e-12) and np.all(mass > 0.95), f"densities integrate to about 1: {mass}")
        t = f["top2"]
        check(np.isnan(t["stable_rank_gram/mean"][...]).all() and (t["stable_rank_gram/count"][...] == 0).all(),
              "top2 computes no full-spectrum output")
        check(np.isfinite(t["stable_rank/mean"][...]).all(), "top2 stable rank")
        rows = [(r["experiment"].decode(), r["claim"].decode()) for r in f["verdicts"][...]]
        check([c for e, c in rows if e == "keyquery"] == ["S8", "S8rank", "S8edge"], "keyquery: the S8 verdicts")
        check(("top2", "S2ks") not in rows and ("spectrum", "S2ks") in rows, "claims as listed")
        d = f["disc"]
        check(d["bulk_radius/mean"].shape == (2, 2) and np.isfinite(d["bulk_radius/mean"][...]).all(),
              "disc: bulk radius over (n, entries)")
        check(np.isnan(g["bulk_radius/mean"][...]).all(), "no eigenvalues unless asked")
        eig = d["eig_density/mean"]
        check(eig.shape == (2, 2, 36, 36) and [eig.dims[k].label for k in (2, 3)] == ["re", "im"],
              "disc: eigenvalue density over (n, entries, re, im)")
        re, im = d["eig_density/re"][...], d["eig_density/im"][...]
        check(np.allclose(re, im) and np.isclose(re[0], -1.125 + 1.125 / 36), "cell centres as the re, im scales")
        cell = (re[1] - re[0]) ** 2
        mass = eig[...].sum(axis=(2, 3)) * cell
        check(np.all(mass <= 1 + 1e-12) and np.all(mass > 0.9), f"eigenvalue densities integrate to about 1: {mass}")
        check(("disc", "S3") in rows and ("disc", "S3ks") in rows, "S3 verdicts")
        w = f["width"]
        check(w["stable_rank/mean"].shape == (2, 2, 2), "width: stable rank over (n, gamma, gap)")
        check(("width", "S5") in rows and ("width", "S5perp") in rows, "S5 verdicts")
        dp = f["depth/stable_rank/mean"]
        check(dp.shape == (2, 2, 2, 3, 6), "depth: stable rank over (n, gap, norm, skip, layer)")
        check(dp.dims[4].label == "layer" and dp.dims[4][0].name == "/depth/stable_rank/layer",
              "the layer dimension has its scale")
        check(list(f["depth/stable_rank/layer"][...]) == list(range(6)), "layers 0..L")
        check((f["depth/stable_rank/count"][...] == 12).all(), "per-layer counts")
        check(("depth", "S6perp") in rows and ("depth_rate", "S6") in rows, "S6 verdicts")
        rate = f["depth_rate"]
        check(rate["collapse_factor_n/mean"].shape == (3, 3, 2) and rate["log_gap_ratio/mean"].shape == (3, 3, 2),
              "depth_rate: S6's factor and S7's ratio over (entries, n, d)")
        check(np.isfinite(rate["log_gap_ratio/mean"][...]).all() and (rate["log_gap_ratio/mean"][...] > 0).all(),
              "the gap keeps more of the gradient than its absence")
        check(rate["off_consensus/mean"].shape == (3, 3, 2, 7), "off_consensus per layer")
        check(np.isnan(f["depth/grad_norm/mean"][...]).all(), "gradient = none: no gradient norms")
        grad = f["gradient/grad_norm/mean"]
        check(grad.dims[2].label == "weight_layer" and np.isfinite(grad[...]).all(), "closed-form gradients")
        check(np.isnan(f["gradient/grad_norm_probe_se/mean"][...]).all(), "closed form: no probe error")
        probe = f["gradient_variants/grad_norm/mean"]
        check(probe.shape == (2, 2, 2, 2, 2, 3), "probed gradients over (n, gap, norm, skip, attention, layer)")
        check(np.isfinite(probe[...]).all() and np.isfinite(f["gradient_variants/grad_norm_probe_se/mean"][...]).all(),
              "probe estimates and their errors for every variant")
        check(("depth_rate", "S7") in rows and ("gradient", "S7perp") in rows, "S7 verdicts")
        kq = f["keyquery/sigma1/mean"][...]
        check(kq.shape == (2, 2, 2) and (kq >= 1 - 1e-12).all(), "key-query attention has the outlier")


def case_masks_layout(tmp):
    spec = os.path.join(os.environ["ATTNRANK_SOURCE_ROOT"], "runs", "masks.cfg")
    out = f"{tmp}/k.h5"
    small = ["--set", "trials=6", "--set", "depth.n=16", "--set", "depth.d=4", "--set", "depth.layers=40",
             "--set", "window_width.n=32", "--set", "window_width.w=[1,4,31]", "--set", "window_width.layers=60",
             "--set", "temperature.n=16", "--set", "temperature.layers=20", "--set", "bound.n=16",
             "--set", "bound.layers=30", "--set", "bound.p=0.3", "--set", "equilibria.n=3", "--set", "equilibria.d=3",
             "--set", "equilibria.rank=[1,2,3]", "--set", "equilibria.layers=50", "--set", "equilibria.trials=30",
             # (30 trials: an integer output's interval is never narrower than t(0.975, T-1)/T, and
             # M4rank's equality needs it within its tolerance)
             "--set", "escape.n=3",
             "--set", "escape.d=3", "--set", "escape.layers=300", "--set", "figure1.trials=60",
             "--set", "figure1.layers=500", "--set", "figure2.n=8", "--set", "figure2.d=4",
             "--set", "figure2.layers=30"]
    proc = run(["run", spec, "-o", out, "-q"] + small, expect=None)
    check(proc.returncode in (0, 1, 4), f"masks spec runs (exit {proc.returncode}): {proc.stderr}")
    with h5py.File(out) as f:
        d = f["depth"]
        check([x.decode() for x in d["mask"][...]] == ["complete", "causal", "window", "causal_window", "dilated",
                                                      "global", "random"], "mask axis")
        check([x.decode() for x in d["norm"][...]] == ["none", "sphere"], "norm axis")
        for name in ["mu", "mu_rel", "numrank"]:
            check(d[f"{name}/mean"].shape == (7, 2, 41) and d[f"{name}/mean"].dims[2].label == "layer",
                  f"{name} over (mask, norm, layer)")
        check(d["min_weight/mean"].shape == (7, 2, 40) and d["min_weight/mean"].dims[2].label == "step",
              "min_weight per step")
        radius = d["radius/mean"][...][:, 0]
        check(radius[0] == 1 and radius[1] == 1 and np.isnan(radius[4]), f"radius: complete, causal 1; dilated none: {radius}")
        check((d["mu_rel/mean"][...] <= 1 + 1e-12).all(), "mu_rel <= 1")
        check(np.isnan(d["bound_ratio/mean"][...]).all(), "no bound check with orthogonal W_V")
        rows = [(r["experiment"].decode(), r["claim"].decode(), r["verdict"].decode()) for r in f["verdicts"][...]]
        check(("depth", "M1", "HOLDS") in rows and ("depth", "M3", "HOLDS") in rows, f"M1, M3 verdicts: {rows}")
        check(("bound", "M2bound", "HOLDS") in rows, "the bound holds in every trial")
        check(not any(e == "temperature" for e, _, _ in rows), "temperature: reported only")
        b = f["bound/bound_ratio"]
        check(np.nanmax(b["max"][...]) <= 1, "bound ratios <= 1")
        e = f["equilibria"]
        check(e["witness_residual/max"].shape == (3,) and (e["witness_residual/max"][...] < 1e-10).all(),
              "witnesses certified")
        check(list(e["witness_rank/mean"][...]) == [1, 2, 3], "witness of every rank")
        check(e["witness_rank/hist"].shape == (3, 4), "rank histogram over 0..min(n, d)")
        check(("equilibria", "M4", "HOLDS") in rows and ("equilibria", "M4rank", "HOLDS") in rows, "M4 verdicts")
        # Every trial's end state is in exactly one class; nothing frozen counts as escape.
        for name in ["equilibria", "escape", "figure1"]:
            g = f[name]
            total = sum(g[f"{c}/mean"][...] for c in ["collapsed", "metastable", "escaped", "unsettled"])
            check(np.allclose(total, 1), f"{name}: the four end-state classes partition the trials")
        esc = f["escape"]
        check([x.decode() for x in esc["value"][...]] == ["identity", "orthogonal", "gaussian"], "escape's W_V axis")
        check((esc["escaped/mean"][...][0] == 0).all(), "W_V = I: no certified escape")
        fig1 = f["figure1"]
        check(fig1["escaped/mean"][...][0, 0] > 0 and (fig1["limit_rank/min"][...][0, 0] == 2),
              "Figure 1's setting: certified rank-2 escapes under the causal mask")
        check(("figure1", "M4escape", "HOLDS") in rows, "M4escape holds on a certified witness")
        check(("figure2", "M4fig2", "VIOLATED") in rows, "Figure 2's claim is VIOLATED here")
        m = f["bound"]
        check(np.nanmax(m["apriori_fraction/max"][...]) <= 1 and np.nanmin(m["apriori_rate/min"][...]) > 0,
              "the a-priori bound holds and guarantees a positive rate")
    # Bad input names the field.
    bad = write(f"{tmp}/bad.cfg", 'seed = 1;\nexperiments = ( { name = "e"; simulator = "mask_dynamics";\n'
                'trials = 4; n = 16; d = 8; init = "orthonormal"; } );\n')
    one_line_error(run(["run", bad, "-o", f"{tmp}/bad.h5"], expect=2), "bad.cfg:3: init: orthonormal rows need n <= d")
    bad = write(f"{tmp}/rank.cfg", 'seed = 1;\nexperiments = ( { name = "e"; simulator = "ln_equilibria";\n'
                'trials = 4; n = 3; d = 3; rank = [1, 4]; } );\n')
    one_line_error(run(["run", bad, "-o", f"{tmp}/rank.h5"], expect=2), "rank.cfg:3: rank: rank 4 is more than min(n, d) = 3")
    check(not os.path.exists(f"{tmp}/rank.h5"), "no output left")


def case_convex_layout(tmp):
    spec = os.path.join(os.environ["ATTNRANK_SOURCE_ROOT"], "runs", "convex.cfg")
    out = f"{tmp}/c.h5"
    small = ["--set", "trials=5", "--set", "equal.N=[3,4]", "--set", "equal.starts=20", "--set", "sparsity.N=4",
             "--set", "sparsity.n=8", "--set", "sparsity.d=4", "--set", "heads.N=4", "--set", "heads.h=[1,5]",
             "--set", "heads.starts=10", "--set", "random_y.N=4", "--set", "random_y.starts=10",
             "--set", "softmax.h=[1,2]", "--set", "softmax.beta=0.2", "--set", "softmax.softmax_starts=2",
             "--set", "softmax_tokens.beta=0.2", "--set", "softmax_tokens.softmax_starts=2"]
    proc = run(["run", spec, "-o", out, "-q"] + small, expect=None)
    check(proc.returncode in (0, 1, 4), f"convex spec runs (exit {proc.returncode}): {proc.stderr}")
    with h5py.File(out) as f:
        e = f["equal"]
        check(list(e["N"][...]) == [3, 4] and np.allclose(e["beta"][...], [0.05, 0.2, 0.5]), "N and beta axes")
        for name in ["convex_optimum", "duality_gap", "active_tokens", "iterations", "planted_found", "mapped_error",
                     "network_excess", "network_median_excess", "fraction_reached", "convex_minus_best"]:
            check(e[f"{name}/mean"].shape == (2, 3), f"{name} over (N, beta)")
        check((e["duality_gap/max"][...] < 1e-9).all(), "every convex solution certified")
        check((e["mapped_error/max"][...] < 1e-9).all(), "the mapped network attains the optimum")
        # 5 trials see at most 5 of the 7 values 0..n: the histogram keeps the values seen
        check("hist" not in e["active_tokens"] and e["active_tokens/hist_value"].shape == (2, 3, 5)
              and e["active_tokens/hist_count"].shape == (2, 3, 5) and e["active_tokens/value"].shape == (7,),
              "active-token histogram: sparse, 5 slots a point, values 0..n")
        seen = e["active_tokens/hist_count"][...]
        check((seen.sum(axis=-1) == e["active_tokens/count"][...]).all(), "the slots hold every trial")
        s = f["sparsity"]
        check(np.isnan(s["network_excess/mean"][...]).all(), "starts = 0: no network outputs")
        h = f["heads"]
        check(np.isnan(h["mapped_error/mean"][...][0]) or h["active_tokens/max"][...][0] <= 1,
              "one head: the mapping only where one position is active")
        rows = [(r["experiment"].decode(), r["claim"].decode(), r["verdict"].decode()) for r in f["verdicts"][...]]
        check(("equal", "C1", "HOLDS") in rows and ("equal", "C1lower", "HOLDS") in rows, f"C1 verdicts: {rows}")
        check(("sparsity", "C2", "HOLDS") in rows, "C2 verdict")
        sm = f["softmax"]
        check(sm["softmax_excess/mean"].shape == (2, 2, 2) and np.isfinite(sm["softmax_excess/mean"][...]).all(),
              "softmax excess over (h, targets, positions)")
        check(np.isnan(sm["network_excess/mean"][...]).all(), "starts = 0: no relaxed network")
        check((sm["convex_minus_softmax/max"][...] <= 1e-6).all(), "softmax attention stays above the relaxation")
        check(f["softmax_tokens/softmax_active_tokens/hist_value"].shape == (5,) and
              f["softmax_tokens/softmax_active_tokens/value"].shape == (11,), "softmax active tokens over 0..n, sparse")
        check(any(e == "softmax" and c == "C4" for e, c, _ in rows), "C4 judged")
        check(any(e == "heads" and c == "C3" for e, c, _ in rows), "C3 judged at h = 1")
    bad = write(f"{tmp}/bad.cfg", 'seed = 1;\nexperiments = ( { name = "e"; simulator = "convex_attention";\n'
                'trials = 4; n = 3; planted = 5; } );\n')
    one_line_error(run(["run", bad, "-o", f"{tmp}/bad.h5"], expect=2),
                   "bad.cfg:3: planted: more planted positions (5) than tokens (3)")
    check(not os.path.exists(f"{tmp}/bad.h5"), "no output left")


def case_resume_kill_loop(tmp):
    """Ten SIGKILLs at random moments of one run, each followed by h5dump and --resume:
    the file is readable after every kill and ends with the uninterrupted datasets."""
    spec = write(f"{tmp}/slow.cfg", SLOW_SPEC)
    reference = f"{tmp}/reference.h5"
    t0 = time.time()
    run(["run", spec, "-o", reference, "-q"], expect=0)
    full = time.time() - t0
    out, partial = f"{tmp}/looped.h5", f"{tmp}/looped.h5.partial"
    rnd = random.Random(11)
    kills = 0
    while kills < 10 and not os.path.exists(out):
        resume = ["--resume"] if os.path.exists(partial) else []
        proc = start_slow(tmp, out, resume)
        time.sleep(rnd.uniform(0.02, 0.25) * full)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += proc.returncode == -signal.SIGKILL
        for path in (partial, out):
            if os.path.exists(path):
                dump = subprocess.run(["h5dump", "-H", path], capture_output=True, text=True)
                check(dump.returncode == 0, f"kill {kills}: {path} unreadable by h5dump: {dump.stderr[:200]}")
    if not os.path.exists(out):
        run(["run", spec, "-o", out, "-q"] + (["--resume"] if os.path.exists(partial) else []), expect=0)
    check(kills >= 5, f"only {kills} kills landed mid-run")
    h5diff_groups(reference, out, ["/slow", "/verdicts"])
    same_datasets(reference, out)


def case_shards_merge(tmp):
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    single = f"{tmp}/single.h5"
    run(["run", spec, "-o", single, "-q"], expect=0)
    shards = [f"{tmp}/shard{i}.h5" for i in range(3)]
    for i, path in enumerate(shards):
        proc = run(["run", spec, "-o", path, "--shard", f"{i}/3", "-q"], expect=0)
        check(f"shard {i}/3 complete" in proc.stdout, f"shard {i} reports: {proc.stdout}")
        with h5py.File(path) as f:
            check(f.attrs["shard"] == f"{i}/3", "the shard is recorded in the file")
            done = f["e/done"][...].ravel()
            check(list(np.flatnonzero(done)) == [p for p in range(9) if p % 3 == i], f"shard {i} owns p mod 3")
    merged = f"{tmp}/merged.h5"
    proc = run(["merge", "-o", merged, shards[2], shards[0], shards[1]], expect=0)
    check("H1" in proc.stdout and "merged from 3 shards" in proc.stdout, f"merge prints verdicts: {proc.stdout}")
    h5diff_groups(single, merged, ["/e", "/soft", "/verdicts"])
    same_datasets(single, merged)
    # refusals, each one line naming the file
    one_line_error(run(["merge", "-o", f"{tmp}/m1.h5", shards[0], shards[1]], expect=2), "shard 2/3 is missing")
    one_line_error(run(["merge", "-o", f"{tmp}/m2.h5", shards[0], shards[0], shards[1]], expect=2),
                   "shard0.h5: shard 0/3 is given twice")
    other = f"{tmp}/other1.h5"
    run(["run", spec, "-o", other, "--shard", "1/3", "--set", "seed=5", "-q"], expect=0)
    one_line_error(run(["merge", "-o", f"{tmp}/m3.h5", shards[0], other, shards[2]], expect=2),
                   "other1.h5: another spec or seed")
    one_line_error(run(["merge", "-o", f"{tmp}/m4.h5", single, shards[0]], expect=2), "single.h5: not a shard")
    # an unfinished shard: SIGTERM mid-run, then merge refuses, resume finishes it
    slow = write(f"{tmp}/slow.cfg", SLOW_SPEC)
    part = f"{tmp}/slow0.h5"
    proc = subprocess.Popen([EXE, "run", slow, "-o", part, "--shard", "0/2", "-q"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    if proc.returncode == 143:
        one_line_error(run(["merge", "-o", f"{tmp}/m5.h5", part + ".partial"], expect=2), "lacks", "--resume")
        one_line_error(run(["run", slow, "-o", part, "--resume", "-q"], expect=2), "resume with the same --shard")
        run(["run", slow, "-o", part, "--shard", "0/2", "--resume", "-q"], expect=0)
    for path in (f"{tmp}/m1.h5", f"{tmp}/m2.h5", f"{tmp}/m3.h5", f"{tmp}/m4.h5"):
        check(not os.path.exists(path) and not os.path.exists(path + ".partial"), f"{path}: nothing left behind")
    one_line_error(run(["run", spec, "--shard", "3/3"], expect=2), "--shard")


def case_plan(tmp):
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    proc = run(["plan", spec], expect=0)
    for part in ["core-hours", "memory/thread", "total: 12 points", "result file about", "hardmax_rank"]:
        check(part in proc.stdout, f"plan prints {part!r}: {proc.stdout}")
    check(not os.listdir(tmp) == [] and not any(p.endswith(".h5") for p in os.listdir(tmp)), "plan writes no file")
    one_line_error(run(["plan", f"{tmp}/absent.cfg"], expect=2), "absent.cfg")


def case_mpi(tmp):
    """The MPI build under mpirun -np 3: the single process's datasets; a killed job
    resumed with --resume, keeping every point it had written."""
    env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMP_NUM_THREADS": "1"}
    mpirun = ["mpirun", "-np", "3", "--oversubscribe"]
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    single = f"{tmp}/single.h5"
    run(["run", spec, "-o", single, "-q"], expect=0, env=env)
    full_env = dict(os.environ, **env)
    out = f"{tmp}/mpi.h5"
    proc = subprocess.run(mpirun + [EXE, "run", spec, "-o", out, "-q"], capture_output=True, text=True,
                          env=full_env, timeout=300)
    check(proc.returncode == 0, f"mpirun: {proc.returncode} {proc.stderr}")
    check(proc.stdout.count("results:") == 1, "only rank 0 prints")
    h5diff_groups(single, out, ["/e", "/soft", "/verdicts"])
    same_datasets(single, out)
    # kill the whole job mid-run; mark a written point; resume under MPI
    slow = write(f"{tmp}/slow.cfg", SLOW_SPEC)
    # The reference is an uninterrupted job of the same size, timed: the kill lands at
    # 60% of that time, not after a fixed time (on a loaded machine mpirun alone can take
    # seconds to start the ranks).
    reference = f"{tmp}/reference.h5"
    t0 = time.time()
    proc = subprocess.run(mpirun + [EXE, "run", slow, "-o", reference, "-q"], capture_output=True, text=True,
                          env=full_env, timeout=600)
    check(proc.returncode == 0, f"mpirun (reference): {proc.returncode} {proc.stderr}")
    full = time.time() - t0
    out = f"{tmp}/mpi_slow.h5"
    partial = out + ".partial"
    # The reference may include a cold start (the first mpirun of a fresh machine) that
    # the killed job does not pay: a job that finished before its kill is run again,
    # killed earlier.
    for fraction in (0.6, 0.35, 0.2, 0.1):
        for leftover in (out, partial):
            if os.path.exists(leftover):
                os.unlink(leftover)
        job = subprocess.Popen(mpirun + [EXE, "run", slow, "-o", out, "-q"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=full_env, start_new_session=True)
        time.sleep(fraction * full)
        # Kill the whole job: mpirun and every rank (Open MPI puts the ranks in their own
        # process group, so killing mpirun alone leaves them running).
        os.killpg(job.pid, signal.SIGKILL)
        job.wait()
        for _ in range(100):
            subprocess.run(["pkill", "-KILL", "-f", out], capture_output=True)
            if subprocess.run(["pgrep", "-f", out], capture_output=True).returncode != 0:
                break
            time.sleep(0.1)
        if not os.path.exists(out):
            break
    check(os.path.exists(partial), "the killed job left its partial file")
    for _ in range(100):  # a killed rank's lock goes with its last descriptor: wait for the kernel
        try:
            h5py.File(partial, "r").close()
            break
        except BlockingIOError:
            time.sleep(0.1)
    with h5py.File(partial, "r+") as f:
        done = np.flatnonzero(f["slow/done"][...].ravel())
        check(len(done) > 1, "some points were written before the kill")
        group = f["slow/argmax_rank"]
        std = group["std"][...].reshape(-1)
        # A sentinel a recomputed point would overwrite: two written points' whole
        # statistics swapped (every dataset of the output, histogram included), which is
        # what the store's consistency checks accept and a recomputation would undo. Both
        # at one n, so that H1's and H2's bounds (functions of n) judge the swapped data
        # as they would the true: a pair across n put a rank of n = 192 under n = 64's bound.
        grid = f["slow/done"].shape
        n_of = np.unravel_index(np.arange(int(np.prod(grid))), grid)[0]
        pair = [(a, b) for a in done for b in done if std[a] != std[b] and n_of[a] == n_of[b]]
        check(pair, f"two written points at one n of different std: {std[done]}")
        a, b = pair[0]
        for name in group:
            data = group[name][...]
            if data.shape[:len(grid)] != grid:
                continue  # a scale (the histogram's values), not a per-point dataset
            flat = data.reshape((-1,) + data.shape[len(grid):])
            flat[[a, b]] = flat[[b, a]]
            group[name][...] = flat.reshape(data.shape)
    proc = subprocess.run(mpirun + [EXE, "run", slow, "-o", out, "--resume", "-q"], capture_output=True, text=True,
                          env=full_env, timeout=600)
    check(proc.returncode == 0, f"mpirun --resume: {proc.returncode} {proc.stderr}")
    with h5py.File(out) as f, h5py.File(reference) as r:
        got, want = f["slow/argmax_rank/std"][...].reshape(-1), r["slow/argmax_rank/std"][...].reshape(-1)
        check(got[a] == want[b] and got[b] == want[a], "points written before the kill were not recomputed")
        rest = np.ones(len(got), bool)
        rest[[a, b]] = False
        check(np.array_equal(got[rest], want[rest]), "every other point equals the uninterrupted run")


def case_runs_parse(tmp):
    """Every spec under runs/ (the cluster ones too) parses and builds its grid; a tiny
    --max-memory stops each before any work."""
    root = os.path.join(os.environ["ATTNRANK_SOURCE_ROOT"], "runs")
    specs = sorted(os.path.join(d, f) for d, _, files in os.walk(root) for f in files if f.endswith(".cfg"))
    check(len(specs) >= 8, f"specs found: {specs}")
    for spec in specs:
        proc = run(["run", spec, "-o", f"{tmp}/x.h5", "--max-memory", "1K"], expect=2)
        check("--max-memory" in proc.stderr, f"{spec}: {proc.stderr}")
    check(not os.listdir(tmp), "nothing written")


def chromium(args, timeout=120):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        return None
    return subprocess.run([exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--enable-logging=stderr", "--v=0", *args], capture_output=True, text=True,
                          timeout=timeout)


# What the report must give a figure per claim row of: an experiment at a fixed n and one
# at a fixed d_h, tied weights judged by H4 alone, a limit along d_h, a limit along n, a
# single point, a per-layer output (M4fig2 at the last layer), a trend and a measurement.
REPORT_SPEC = """seed = 9;
experiments = (
  { name = "fixed_n"; simulator = "hardmax_rank"; trials = 400; n = 4; d_h = [1, 2, 8]; claims = ["H1", "H2"]; },
  { name = "fixed_dh"; simulator = "hardmax_rank"; trials = 2000; d_h = 1; n = [2, 3, 4, 8]; claims = ["H3"]; },
  { name = "tied"; simulator = "hardmax_rank"; trials = 200; weights = "tied"; n = [16, 32]; d_h = [8, 16];
    claims = ["H4"]; expect = { H4 = "VIOLATED"; }; },
  { name = "sharp"; simulator = "hardmax_rank"; trials = 400; n = [8, 16]; d_h = [16, 64, 256, 1024];
    claims = ["H2lim", "H2gap"]; },
  { name = "one"; simulator = "hardmax_rank"; trials = 300; n = 8; d_h = 4; claims = ["H1"]; },
  { name = "spectrum"; simulator = "markov_spectrum"; trials = 10; spectrum = "top2"; n = [32, 48, 64, 96, 128];
    claims = ["S1", "S2"]; },
  { name = "fig2"; simulator = "mask_dynamics"; trials = 6; n = 8; d = 4; layers = 12; mask = ["complete", "causal"];
    value = "gaussian"; norm = "sphere"; weights = ["shared", "per_layer"]; claims = ["M4fig2", "M3rate"];
    expect = { M4fig2 = "VIOLATED"; }; }
);
"""


class ReportIndex(html.parser.HTMLParser):
    """A report page read back: the verdict table's claim rows (claim, experiment, the
    section they link to), the figures (inline SVG) of each section, its figure
    captions, and the headings. Reads the page as written and Chromium's DOM alike."""

    def __init__(self, page):
        super().__init__()
        self.rows, self.svgs, self.captions, self.headings = [], {}, {}, []
        self._table = self._row = self._cell = self._section = self._text = None
        self.feed(page)
        self.close()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "verdicts":
            self._table = True
        elif tag == "tr" and self._table:
            self._row = {"cells": [], "href": None}
        elif tag == "td" and self._row is not None:
            self._cell = ""
        elif tag == "a" and self._row is not None and self._row["href"] is None:
            self._row["href"] = a.get("href", "")
        elif tag == "section":
            self._section = a.get("id")
            self.svgs.setdefault(self._section, 0)
            self.captions.setdefault(self._section, [])
        elif tag == "svg" and self._section is not None:
            self.svgs[self._section] += 1
        elif tag in ("figcaption", "h2"):
            self._text = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self._table = None
        elif tag == "td" and self._cell is not None:
            self._row["cells"].append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if len(self._row["cells"]) >= 2 and (self._row["href"] or "").startswith("#"):
                claim = self._row["cells"][0].split()[0]
                self.rows.append((claim, self._row["cells"][1], self._row["href"][1:]))
            self._row = None
        elif tag == "section":
            self._section = None
        elif tag == "figcaption" and self._text is not None:
            if self._section is not None:
                self.captions[self._section].append(self._text)
            self._text = None
        elif tag == "h2" and self._text is not None:
            self.headings.append(self._text.strip())
            self._text = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        if self._text is not None:
            self._text += data

    def without_figure(self):
        """The claim rows whose own section shows no figure."""
        return [(claim, experiment) for claim, experiment, anchor in self.rows if not self.svgs.get(anchor)]


def case_report(tmp):
    check_every_claim_row_has_a_figure(tmp)
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    out = f"{tmp}/small.h5"
    run(["run", spec, "-o", out, "-q"], expect=0)
    proc = run(["report", out, "-o", f"{tmp}/rep"], expect=0)
    check(f"report: {tmp}/rep/report.html" in proc.stdout, f"report prints its path: {proc.stdout}")
    page = open(f"{tmp}/rep/report.html").read()
    with h5py.File(out) as f:
        claims = [r["claim"].decode() for r in f["verdicts"][...]]
    check(page.count("<tr class=") == len(claims), "one table row per verdict")
    figures = open(f"{tmp}/rep/figures/figures.tsv").read().splitlines()
    check(len(figures) >= 3 and page.count("<svg") >= len(figures), f"every figure embedded: {len(figures)}")
    fetched = [m for m in ("src=\"http", "href=\"http", "url(http", "@import") if m in page]
    check(not fetched, f"the page loads nothing from the network: {fetched}")
    check_damaged_row_marked(tmp, out, claims[0])
    # headless Chromium: the table and every figure render, no console errors
    dom = chromium(["--dump-dom", f"file://{tmp}/rep/report.html"])
    if dom is None:
        print("chromium is not installed: the browser check is skipped")
        sys.exit(77)
    check(dom.returncode == 0 and 'id="verdicts"' in dom.stdout, f"chromium renders the table: {dom.stderr[-300:]}")
    check(dom.stdout.count("<svg") == page.count("<svg"), "every figure is in the rendered page")
    shot = chromium([f"--screenshot={tmp}/shot.png", "--window-size=1200,2000", f"file://{tmp}/rep/report.html"])
    check(shot.returncode == 0 and os.path.getsize(f"{tmp}/shot.png") > 20000, "a screenshot")
    errors = [l for l in dom.stderr.splitlines() + shot.stderr.splitlines()
              if "CONSOLE" in l and any(w in l for w in ("Uncaught", "Error", "Failed", "error"))]
    check(not errors, f"console errors: {errors[:3]}")
    from PIL import Image
    pixels = np.asarray(Image.open(f"{tmp}/shot.png").convert("L"), dtype=float)
    check(pixels.std() > 10, "the screenshot is not blank")
    # without matplotlib: still the table, and a line saying what is missing
    broken = f"{tmp}/noplots"
    os.mkdir(broken)
    write(f"{broken}/plot_all.py", "import matplotlib_absent_module\n")
    proc = run(["report", out, "-o", f"{tmp}/rep2"], expect=0, env={"ATTNRANK_PLOTS": broken})
    check("figures not drawn" in proc.stderr and "ModuleNotFoundError" in proc.stderr, f"note: {proc.stderr}")
    page = open(f"{tmp}/rep2/report.html").read()
    check(page.count("<tr class=") == len(claims) and "<svg" not in page and "figures not drawn" in page,
          "the table alone, and the reason")
    one_line_error(run(["report", f"{tmp}/absent.h5"], expect=2), "absent.h5")


def check_damaged_row_marked(tmp, good, claim):
    """A /verdicts row forged in a file that names another revision: the page (and
    Chromium's rendering of it) shows the verdict the data give, the row marked."""
    forged = f"{tmp}/forged.h5"
    shutil.copy(good, forged)
    with h5py.File(forged, "r+") as f:
        rows = f["verdicts"][()]
        rows["verdict"][0] = b"VIOLATED" if rows["verdict"][0] != b"VIOLATED" else b"HOLDS"
        f["verdicts"][...] = rows
        f.attrs["git_revision"] = "0000000"
    run(["report", forged, "-o", f"{tmp}/forged-rep"], expect=2)
    dom = chromium(["--dump-dom", f"file://{tmp}/forged-rep/report.html"])
    text = dom.stdout if dom is not None else open(f"{tmp}/forged-rep/report.html").read()
    marked = [r for r in text.split("<tr ")[1:] if "data-damaged" in r]
    check(len(marked) == 1 and f">{claim}<" in marked[0] and "DAMAGED" in marked[0],
          f"the forged row is marked on the page: {marked}")


def check_every_claim_row_has_a_figure(tmp):
    """Every claim row of the verdict table (claim x experiment) has a figure in its own
    section, in the page and in Chromium's rendering of it: among them one that states
    the row's estimate, interval and prediction as /verdicts stores them; a tied-weights
    H4's hardmax figure is in H4's section, not among experiments without a verdict."""
    spec = write(f"{tmp}/claims.cfg", REPORT_SPEC)
    out = f"{tmp}/claims.h5"
    proc = run(["run", spec, "-o", out, "-q"])
    check(proc.returncode in (0, 1, 4) and os.path.exists(out), f"run: exit {proc.returncode}: {proc.stderr}")
    run(["report", out, "-o", f"{tmp}/claims-report"], expect=0)
    page = open(f"{tmp}/claims-report/report.html").read()
    index = ReportIndex(page)
    with h5py.File(out) as f:
        rows = [{k: (r[k].decode() if isinstance(r[k], bytes) else r[k]) for k in r.dtype.names}
                for r in f["verdicts"][...]]
    check(sorted((c, e) for c, e, _ in index.rows) == sorted((r["claim"], r["experiment"]) for r in rows),
          f"a table row per verdict: {index.rows}")
    missing = index.without_figure()
    check(not missing, f"{len(missing)} of {len(rows)} claim rows without a figure: {missing}")
    check(any(r["verdict"] == "NOT RUN" for r in rows), "a row without an estimate (M3rate: no point to judge)")
    for r in rows:
        captions = index.captions[f"{r['experiment']}-{r['claim']}"]
        stated = f"estimate {r['estimate']:.6g} [{r['ci_lo']:.6g}, {r['ci_hi']:.6g}]" if np.isfinite(r["estimate"]) \
            else "no estimate"
        check(any(stated in c and f"{r['trials']} trials" in c for c in captions),
              f"{r['claim']} in {r['experiment']}: no figure states {stated}: {captions}")
    tied = index.captions["tied-H4"]
    check(any(":/tied, hardmax_rank" in c and "bands: 95% intervals; lines: the bounds" in c for c in tied),
          f"tied weights: the hardmax figure is in H4's section: {tied}")
    check("Other figures" not in index.headings, f"every experiment here has a verdict: {index.headings}")
    check(len(page) < 4_000_000, f"the page stays small: {len(page)} bytes")
    dom = chromium(["--dump-dom", f"file://{tmp}/claims-report/report.html"])
    if dom is None:
        return
    rendered = ReportIndex(dom.stdout)
    check(dom.returncode == 0 and len(rendered.rows) == len(rows) and not rendered.without_figure(),
          f"chromium: {len(rendered.rows)} rows, without a figure: {rendered.without_figure()} {dom.stderr[-300:]}")


def bad_values(kind, default, lo, hi, choices):
    """(label, libconfig text) for a parameter: wrong type, out of range, NaN/Inf
    spelled as text, huge, empty axis."""
    cases = [("string", '"x"'), ("empty axis", "[]"), ("nan", '"nan"'), ("list of strings", '["a", "b"]')]
    if kind == "choice":
        cases += [("number", "3"), ("unknown choice", '"bogus"'), ("unknown choice in axis", f'["{choices[0]}", "bogus"]')]
    else:
        lo, hi = float(lo), float(hi)
        cases += [("below range", f"{lo - 1:.17g}" if kind == "real" else str(int(lo) - 1)),
                  ("above range", f"{hi * 10 + 1:.17g}" if kind == "real" else str(int(hi) + 1)),
                  ("huge", "1e308" if kind == "real" and hi < 1e307 else "9223372036854775807L"),
                  ("bad element of an axis",
                   f"[{float(default)!r}, {float(hi * 10 + 1)!r}]" if kind == "real"
                   else f"[{int(float(default))}, {int(hi) + 1}]")]
        if kind == "int":
            cases.append(("real for an integer", "2.5"))
    return cases


def case_bad_input_catalogue(tmp):
    """Every parameter of every simulator, fed wrong types, out-of-range, NaN, huge and
    empty values: one line naming the file, line and field, exit 2, nothing written."""
    rows = [line.split("\t") for line in run(["list", "--tsv"], expect=0).stdout.splitlines()]
    tried = 0
    for sim, name, kind, default, lo, hi, choices in rows:
        for label, value in bad_values(kind, default, lo, hi, choices.split("|")):
            text = f'seed = 1;\nexperiments = (\n  {{ name = "e"; simulator = "{sim}"; trials = 2;\n' \
                   f'    {name} = {value}; }}\n);\n'
            spec = write(f"{tmp}/bad.cfg", text)
            out = f"{tmp}/bad.h5"
            proc = run(["run", spec, "-o", out, "-q"])
            lines = proc.stderr.strip().splitlines()
            what = f"{sim}.{name} = {value} ({label})"
            check(proc.returncode == 2, f"{what}: exit {proc.returncode}, want 2: {proc.stderr}")
            check(len(lines) == 1, f"{what}: want one line, got {proc.stderr!r}")
            check("bad.cfg:" in lines[0] and (name in lines[0] or "syntax error" in lines[0]),
                  f"{what}: the line names neither the file nor the field: {lines[0]}")
            check(not os.path.exists(out) and not os.path.exists(out + ".partial"), f"{what}: output left behind")
            tried += 1
    # the spec as a whole
    whole = [("unknown key", 'seed = 1; colour = 2; experiments = ( { name = "e"; simulator = "hardmax_rank"; } );',
              "colour"),
             ("unknown experiment key", 'seed = 1; experiments = ( { name = "e"; simulator = "hardmax_rank"; x = 1; } );',
              "x: unknown field"),
             ("duplicate key", 'seed = 1; seed = 2; experiments = ( { name = "e"; simulator = "hardmax_rank"; } );',
              "bad.cfg:1"),
             ("duplicate experiment", 'seed = 1; experiments = ( { name = "e"; simulator = "hardmax_rank"; },'
                                      ' { name = "e"; simulator = "hardmax_rank"; } );', "e"),
             ("unknown simulator", 'seed = 1; experiments = ( { name = "e"; simulator = "nope"; } );', "nope"),
             ("no experiments", 'seed = 1;', "experiments"),
             ("not libconfig", '{"seed": 1, "experiments": []}', "bad.cfg:1"),
             ("negative seed", 'seed = -1; experiments = ( { name = "e"; simulator = "hardmax_rank"; } );', "seed"),
             ("trials zero", 'seed = 1; experiments = ( { name = "e"; simulator = "hardmax_rank"; trials = 0; } );',
              "trials"),
             ("self include", '@include "bad.cfg"\nseed = 1;', "bad.cfg")]
    for label, text, part in whole:
        spec = write(f"{tmp}/bad.cfg", text)
        proc = run(["run", spec, "-o", f"{tmp}/bad.h5", "-q"])
        lines = proc.stderr.strip().splitlines()
        check(proc.returncode == 2 and len(lines) == 1 and part in lines[0] and "bad.cfg" in lines[0],
              f"{label}: exit {proc.returncode}, {proc.stderr!r}")
        check(not os.path.exists(f"{tmp}/bad.h5"), f"{label}: output left behind")
        tried += 1
    print(f"{tried} bad inputs, each refused in one line")


def case_bad_files_catalogue(tmp):
    """Outputs that cannot be written and HDF5 inputs that cannot be trusted: one line,
    a documented status, nothing half-made left, no existing file altered."""
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    one_line_error(run(["run", spec, "-o", "/sys/attnrank.h5", "-q"], expect=2), "/sys/attnrank.h5")
    # a full disk, as a file-size limit (ulimit -f, KiB): refused before any work when the
    # estimate exceeds it; when only the real file does, the failed write is reported
    def limited(kib, out):
        return subprocess.run(["bash", "-c", f"ulimit -f {kib}; exec {EXE} run {tmp}/small.cfg -o {out} -q"],
                              capture_output=True, text=True)
    proc = limited(16, f"{tmp}/full.h5")
    one_line_error(proc, "full.h5", "file-size limit")
    check(proc.returncode == 2, f"file-size limit: exit {proc.returncode}, want 2")
    amount, unit = proc.stderr.split("needs about ")[1].split(";")[0].split()
    estimate = float(amount) * {"B": 1, "KiB": 1024, "MiB": 1048576, "GiB": 1073741824}[unit]
    run(["run", spec, "-o", f"{tmp}/sized.h5", "-q"], expect=0)
    actual = os.path.getsize(f"{tmp}/sized.h5")
    if actual > estimate + 4096:
        proc = limited(int((estimate + actual) / 2048), f"{tmp}/full2.h5")
        one_line_error(proc, "full2.h5", "disk full")
        check(proc.returncode == 3, f"failed write: exit {proc.returncode}, want 3")
    check(not [p for p in os.listdir(tmp) if p.startswith("full")], f"nothing left: {os.listdir(tmp)}")
    # HDF5 inputs: truncated, not HDF5, another format version, another spec
    good = f"{tmp}/good.h5"
    run(["run", spec, "-o", good, "-q"], expect=0)
    shard = f"{tmp}/shard0.h5"
    run(["run", spec, "-o", shard, "--shard", "0/2", "-q"], expect=0)
    data = open(shard, "rb").read()
    bad = {"truncated": data[: len(data) // 2], "text": b"not hdf5\n", "empty": b""}
    for label, content in bad.items():
        path = f"{tmp}/{label}.h5"
        with open(path, "wb") as f:
            f.write(content)
        for args in (["info", path], ["merge", "-o", f"{tmp}/m.h5", path, shard], ["report", path, "-o", f"{tmp}/r"]):
            proc = run(args)
            lines = proc.stderr.strip().splitlines()
            check(proc.returncode == 2 and len(lines) == 1 and f"{label}.h5" in lines[0],
                  f"{label}: {args[0]}: exit {proc.returncode}, {proc.stderr!r}")
        check(open(path, "rb").read() == content, f"{label}: the input was altered")
        # as a partial file to resume
        partial = f"{tmp}/res_{label}.h5.partial"
        with open(partial, "wb") as f:
            f.write(content)
        proc = run(["run", spec, "-o", f"{tmp}/res_{label}.h5", "--resume", "-q"])
        check(proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, f"resume {label}: {proc.stderr!r}")
        check(open(partial, "rb").read() == content, f"resume {label}: the partial file was altered")
    old = f"{tmp}/old.h5"
    shutil.copy(good, old)
    with h5py.File(old, "r+") as f:
        f.attrs["format_version"] = np.int32(0)
    for args in (["info", old], ["merge", "-o", f"{tmp}/m.h5", old], ["report", old, "-o", f"{tmp}/r"]):
        one_line_error(run(args, expect=2), "old.h5", "format")
    check(not os.path.exists(f"{tmp}/m.h5") and not os.path.exists(f"{tmp}/m.h5.partial"), "no merge output")


def case_failure_injection(tmp):
    """Trials that fail (as when LAPACK does not converge) are counted, never averaged; a
    point with more than 1% failed trials is marked; a memory rlimit gets the refusal.
    Run on attnrank_test, the test build (include/attnrank/test_hooks.h); attnrank itself
    (ATTNRANK_RELEASE_EXE) reads no test hook: issue 37, 5, where the release binary
    marked a point failed and turned H1 HOLDS into INCONCLUSIVE."""
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    clean = f"{tmp}/clean.h5"
    run(["run", spec, "-o", clean, "-q"], expect=0)
    release = os.environ.get("ATTNRANK_RELEASE_EXE")
    if release and os.path.realpath(release) != os.path.realpath(EXE):
        hooked = f"{tmp}/release_hooked.h5"
        proc = subprocess.run([release, "run", spec, "-o", hooked, "-q"], capture_output=True, text=True,
                              env=dict(os.environ, ATTNRANK_TEST_INJECT_FAILURES="0.2"), timeout=600)
        check(proc.returncode == 0 and "failed trials" not in proc.stderr,
              f"attnrank obeys the test hook: exit {proc.returncode}: {proc.stderr}")
        same_datasets(clean, hooked)
        with open(release, "rb") as f:
            check(b"ATTNRANK_TEST_INJECT_FAILURES" not in f.read(), "attnrank holds the test hook's variable name")
    few = f"{tmp}/few.h5"
    proc = run(["run", spec, "-o", few, "-q"], env={"ATTNRANK_TEST_INJECT_FAILURES": "0.005"})
    check(proc.returncode in (0, 1, 4), f"a few failures: exit {proc.returncode} {proc.stderr}")
    with h5py.File(few) as f, h5py.File(clean) as c:
        failed, count = f["e/argmax_rank/failed"][...], f["e/argmax_rank/count"][...]
        mean = f["e/argmax_rank/mean"][...]
        kept = failed <= 3  # at most 1% of 300 trials
        check(failed.sum() > 0 and kept.sum() >= 5, f"some failures, most points kept: {failed}")
        check((failed[kept] + count[kept] == 300).all(), f"failed and counted trials add up: {failed} {count}")
        check(np.isfinite(mean[kept]).all(), "the other trials are averaged")
        check((count[~kept] == 0).all() and np.isnan(mean[~kept]).all(), "points over 1% are marked")
        check((f["e/argmax_rank/hist"][...].sum(axis=-1) == count).all(), "histograms hold the counted trials")
        check(not np.array_equal(f["e/argmax_rank/mean"][...], c["e/argmax_rank/mean"][...]), "failures change it")
    many = f"{tmp}/many.h5"
    proc = run(["run", spec, "-o", many, "-q"], env={"ATTNRANK_TEST_INJECT_FAILURES": "0.2"})
    check("more than 1% failed trials: marked" in proc.stderr, f"the marking is reported: {proc.stderr}")
    with h5py.File(many) as f:
        check((f["e/argmax_rank/count"][...] == 0).all() and (f["e/argmax_rank/failed"][...] > 30).all(),
              "marked points: count 0, failed trials recorded")
        check(np.isnan(f["e/argmax_rank/mean"][...]).all(), "marked points are not averaged")
        verdicts = {r["claim"].decode(): r["verdict"].decode() for r in f["verdicts"][...]}
        check(verdicts["H1"] == "NOT RUN", f"no verdict from marked points: {verdicts}")
    # a memory rlimit (ulimit -v) gets the pre-flight refusal, not an OOM kill (not under
    # AddressSanitizer, whose shadow memory cannot live under such a limit)
    if asan_build():
        return
    big = write(f"{tmp}/big.cfg", 'seed = 1; experiments = ( { name = "big"; simulator = "markov_spectrum"; '
                                  'trials = 4; n = 8192; spectrum = "full"; } );')
    proc = subprocess.run(["bash", "-c", f"ulimit -v 1000000; exec {EXE} run {big} -o {tmp}/big.h5 -q"],
                          capture_output=True, text=True)
    one_line_error(proc, "big.cfg", "needs", "ulimit -v")
    check(proc.returncode == 2 and not os.path.exists(f"{tmp}/big.h5"), f"exit {proc.returncode}")


TINY_SPEC = """seed = 2;
experiments = (
  { name = "e"; simulator = "hardmax_rank"; trials = 20; n = [8, 16]; d_h = 2; },
  { name = "m"; simulator = "markov_spectrum"; trials = 4; n = 16; },
  { name = "k"; simulator = "mask_dynamics"; trials = 3; n = 8; d = 3; layers = 5; mask = ["causal", "window"];
    value = "identity"; },
  { name = "c"; simulator = "convex_attention"; trials = 2; N = 3; n = 3; d = 2; starts = 2; }
);
"""


def case_valgrind(tmp):
    """memcheck on the commands a user runs: no invalid access, no uninitialised use, no
    definite leak."""
    if not shutil.which("valgrind"):
        print("valgrind is not installed: skipped")
        sys.exit(77)
    if asan_build():
        print("an AddressSanitizer build: memcheck runs on the plain build")
        sys.exit(77)
    memcheck = ["valgrind", "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite",
                "--show-leak-kinds=definite", "-q", EXE]
    spec = write(f"{tmp}/tiny.cfg", TINY_SPEC)
    broken = f"{tmp}/noplots"
    os.mkdir(broken)
    write(f"{broken}/plot_all.py", "import sys; sys.exit(1)\n")
    env = dict(os.environ, ATTNRANK_PLOTS=broken)
    runs = [["run", spec, "-o", f"{tmp}/t.h5", "-q", "--threads", "1"],
            ["info", f"{tmp}/t.h5"],
            ["run", spec, "-o", f"{tmp}/s0.h5", "--shard", "0/2", "-q", "--threads", "1"],
            ["run", spec, "-o", f"{tmp}/s1.h5", "--shard", "1/2", "-q", "--threads", "1"],
            ["merge", "-o", f"{tmp}/merged.h5", f"{tmp}/s0.h5", f"{tmp}/s1.h5"],
            ["plan", spec],
            ["report", f"{tmp}/t.h5", "-o", f"{tmp}/rep"],
            ["run", write(f"{tmp}/bad.cfg", "seed = 1;\nexperiments = ( { name = \"e\"; n = 2; } );\n"),
             "-o", f"{tmp}/bad.h5"]]
    for args in runs:
        proc = subprocess.run(memcheck + args, capture_output=True, text=True, env=env, timeout=600)
        check(proc.returncode != 99, f"memcheck: attnrank {' '.join(args)}: {proc.stderr[-2000:]}")
    h5diff_groups(f"{tmp}/t.h5", f"{tmp}/merged.h5", ["/e", "/m", "/k", "/c"])


def case_xarray(tmp):
    try:
        import xarray as xr
        import h5netcdf  # noqa: F401
    except ImportError:
        print("xarray or h5netcdf missing (apt-get install python3-xarray python3-h5netcdf)")
        sys.exit(77)  # meson's skip
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    out = f"{tmp}/x.h5"
    run(["run", spec, "-o", out, "-q"], expect=0)
    exp = xr.open_dataset(out, group="e", engine="h5netcdf")
    check(list(exp.coords["n"].values) == [8, 16, 32] and list(exp.coords["d_h"].values) == [1, 2, 8],
          "xarray sees the axes as coordinates")
    rank = xr.open_dataset(out, group="e/argmax_rank", engine="h5netcdf").assign_coords(exp.coords)
    check(rank["mean"].dims == ("n", "d_h") and rank["hist"].dims == ("n", "d_h", "value"), "named dimensions")
    with h5py.File(out) as f:
        check(float(rank["mean"].sel(n=16, d_h=8)) == f["e/argmax_rank/mean"][1, 2], "values through xarray")


def main(cases=None):
    """Run the case named on the command line; other test scripts (hostile_*.py) pass
    their own case table and share this module's helpers."""
    global EXE
    cases = CASES if cases is None else cases
    if len(sys.argv) != 3 or sys.argv[2] not in cases:
        sys.exit(f"usage: {sys.argv[0]} ATTNRANK CASE, CASE one of {', '.join(cases)}")
    EXE = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="attnrank_cli_") as tmp:
        try:
            cases[sys.argv[2]](tmp)
        except Failure as failure:
            print(f"FAIL {sys.argv[2]}: {failure}", file=sys.stderr)
            sys.exit(1)
    print(f"ok {sys.argv[2]}")


def cases_of(namespace):
    """The case_* functions of a module's globals, by name without the prefix."""
    return {name[5:]: fn for name, fn in namespace.items() if name.startswith("case_")}


CASES = cases_of(globals())

if __name__ == "__main__":
    main()

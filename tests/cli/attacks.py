#!/usr/bin/python3
"""CLI tests of attacks: a search over a claim's assumptions for its worst case, then a
confirmation on fresh streams (docs/attacks.md).

usage: attacks.py ATTNRANK CASE     (meson registers one test per case)
"""
import os
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli  # noqa: E402
from test_cli import check, one_line_error, run, write  # noqa: E402

# A planted wrong conjecture: E[rank] <= 0.6 n + 2 holds on the experiment's corner
# (n = 16, d_h = 2) but not where d_h >> n and n > 62 (the rank nears 0.632 n there).
PLANTED = """seed = 1;
experiments = (
  { name = "rank"; simulator = "hardmax_rank"; trials = 400; n = 16; d_h = 2; claims = [];
    conjectures = ( { id = "rank_06"; output = "argmax_rank"; rule = "upper_bound";
                      prediction = "0.6 * n + 2"; expect = "VIOLATED"; } );
    attacks = ( { id = "corner"; claim = "rank_06"; budget = 20000;
                  space = { n = { range = [4, 128]; scale = "log"; };
                            d_h = { range = [1, 512]; scale = "log"; }; }; } ); }
);
"""

# A true claim, attacked over its own assumptions: H1 on orthonormal inputs, independent weights.
TRUE_H1 = """seed = 1;
experiments = (
  { name = "h1"; simulator = "hardmax_rank"; trials = 300; n = 16; d_h = 16; claims = ["H1"];
    attacks = ( { id = "h1"; claim = "H1"; budget = 30000;
                  space = { n = { range = [2, 64]; scale = "log"; };
                            d_h = { range = [1, 512]; scale = "log"; }; }; } ); }
);
"""


def attack(tmp, text, name="spec", args=(), expect=None):
    spec = write(f"{tmp}/{name}.cfg", text)
    out = f"{tmp}/{name}.attacks.h5"
    # one thread unless asked: tests run side by side, and OpenMP teams spinning on two
    # shared cores would cost more than they give
    threads = [] if "--threads" in args else ["--threads", "1"]
    proc = run(["attack", spec, "-o", out, "--force", "-q", *threads, *args], expect=expect, timeout=300)
    return proc, out


def row_of(stdout, attack_id):
    for line in stdout.splitlines():
        if line.split()[:1] == [attack_id]:
            return line.split()
    raise test_cli.Failure(f"no row for {attack_id}: {stdout}")


# ---- cases ------------------------------------------------------------------------


def case_planted_found(tmp):
    """The planted counterexample is found and confirmed: VIOLATED, as the spec expects."""
    proc, out = attack(tmp, PLANTED, expect=0)
    words = row_of(proc.stdout, "corner")
    check(words[2] == "VIOLATED", f"row: {words}")
    point = dict(w.split("=") for w in words[4:])
    check(int(point["n"]) > 62 and int(point["d_h"]) >= 64, f"counterexample outside the false region: {point}")
    with h5py.File(out, "r") as f:
        check(f.attrs["kind"] == b"attacks" or f.attrs["kind"] == "attacks", "kind attribute")
        g = f["attacks/corner"]
        ev, conf = g["evaluations"], g["confirmations"]
        cols = ev.attrs["columns"]
        cols = (cols.decode() if isinstance(cols, bytes) else cols).split(",")
        check(cols[-2:] == ["n", "d_h"], f"evaluation columns {cols}")
        # every trial accounted for: the search's, then the confirmation's, within the budget
        search = int(g.attrs["search_trials"])
        confirm = int(g.attrs["confirm_trials"])
        check(search + confirm <= 20000, f"spent {search} + {confirm} > budget")
        check(confirm == conf.shape[0] * 400, f"confirmation trials {confirm} for {conf.shape[0]} rows")
        # the confirmation's counts are its own trials, not the search's
        check(np.all(conf[:, cols.index("trials") if "trials" in cols else 4] == 400), "confirmation counts")


def case_true_claim_holds(tmp):
    """H1 over its own assumptions: not VIOLATED; the tightest point and its closeness shown."""
    proc, _ = attack(tmp, TRUE_H1)
    check(proc.returncode in (0, 4), f"exit {proc.returncode}: {proc.stdout}{proc.stderr}")
    words = row_of(proc.stdout, "h1")
    check(words[2] in ("HOLDS", "INCONCLUSIVE"), f"row: {words}")
    check("of the bound" in proc.stdout, f"no closeness: {proc.stdout}")


def case_threads_identical(tmp):
    """Same spec and seed, one thread or two: the same datasets bit for bit."""
    _, one = attack(tmp, PLANTED, name="one", args=["--threads", "1"])
    _, two = attack(tmp, PLANTED, name="two", args=["--threads", "2"])
    with h5py.File(one, "r") as a, h5py.File(two, "r") as b:
        for name in ["evaluations", "confirmations"]:
            x, y = a["attacks/corner"][name][()], b["attacks/corner"][name][()]
            check(x.shape == y.shape and x.tobytes() == y.tobytes(), f"{name} differ between thread counts")
        check(a["attacks/corner"].attrs["verdict"] == b["attacks/corner"].attrs["verdict"], "verdicts differ")


def case_seed_changes_search(tmp):
    """Another seed: another design and other draws (the search is not one fixed sequence)."""
    _, one = attack(tmp, PLANTED, name="s1")
    _, two = attack(tmp, PLANTED, name="s2", args=["--set", "seed=2"])
    with h5py.File(one, "r") as a, h5py.File(two, "r") as b:
        check(a["attacks/corner/evaluations"][()].tobytes() != b["attacks/corner/evaluations"][()].tobytes(),
              "seed 2 gave seed 1's search")


def case_judge_rederives(tmp):
    """judge re-derives each stored verdict from the stored confirmations; an edited one is refused."""
    proc, out = attack(tmp, PLANTED)
    again = run(["judge", out], expect=0)
    check(row_of(again.stdout, "corner")[2] == "VIOLATED", again.stdout)
    with h5py.File(out, "r+") as f:
        conf = f["attacks/corner/confirmations"]
        data = conf[()]
        cols = conf.attrs["columns"]
        cols = (cols.decode() if isinstance(cols, bytes) else cols).split(",")
        data[:, cols.index("mean")] = 1.0  # far below every bound
        data[:, cols.index("ci_hi")] = 1.5
        data[:, cols.index("ci_lo")] = 0.5
        conf[...] = data
    bad = run(["judge", out], expect=2)
    one_line_error(bad, out, "damaged", "corner")
    refused = run(["judge", out, "--mutants"], expect=2)
    one_line_error(refused, "attack file")


def case_forged_rows_refused(tmp):
    """Confirmation rows no run writes are refused in one line, never judged (a hostile
    user's findings: an `along` in a bound's row crashed judge; a forged prediction with a
    forged verdict was accepted)."""
    _, out = attack(tmp, PLANTED)
    with h5py.File(out, "r") as f:
        good = f["attacks/corner/confirmations"][()]
        cols = f["attacks/corner/confirmations"].attrs["columns"]
        cols = (cols.decode() if isinstance(cols, bytes) else cols).split(",")
    forged = {
        "along": (lambda a: a.__setitem__((0, cols.index("along")), 0.0), "along"),
        "prediction": (lambda a: a.__setitem__((slice(None), cols.index("prediction")), 1e6), "prediction"),
        "outside": (lambda a: a.__setitem__((0, cols.index("n")), 99999.0), "outside the attack's space"),
        "count": (lambda a: a.__setitem__((0, cols.index("count")), 1e6), "trials"),
        "rank": (lambda a: a.__setitem__((0, cols.index("rank")), 3.0), "rank"),
    }
    for name, (edit, part) in forged.items():
        copy = f"{tmp}/{name}.h5"
        with open(out, "rb") as src, open(copy, "wb") as dst:
            dst.write(src.read())
        with h5py.File(copy, "r+") as f:
            data = good.copy()
            edit(data)
            f["attacks/corner/confirmations"][...] = data
            if name == "prediction":
                f["attacks/corner"].attrs["verdict"] = "HOLDS"
        for command in (["judge", copy], ["info", copy]):
            proc = run(command)
            check(proc.returncode == 2, f"{name}: {command[0]} exit {proc.returncode}: {proc.stdout}{proc.stderr}")
            one_line_error(proc, "damaged", part)
    edited = f"{tmp}/edited.h5"
    with open(out, "rb") as src, open(edited, "wb") as dst:
        dst.write(src.read())
    with h5py.File(edited, "r+") as f:
        text = f.attrs["spec_canonical"]
        text = text.decode() if isinstance(text, bytes) else text
        f.attrs["spec_canonical"] = text.replace("budget = 20000L", "budget = 30000L")
    one_line_error(run(["judge", edited], expect=2), "spec_hash")


def case_nothing_evaluated(tmp):
    """No candidate the simulator accepts: INCONCLUSIVE, said why, and the file reads back."""
    text = """seed = 1;
experiments = ( { name = "e"; simulator = "hardmax_rank"; trials = 100; n = 8; d = 50; d_h = 4; claims = ["H1"];
  attacks = ( { id = "a"; claim = "H1"; budget = 5000; space = { n = { range = [60, 120]; }; }; } ); } );
"""
    proc, out = attack(tmp, text, expect=4)
    check("INCONCLUSIVE" in proc.stdout and "no candidate" in proc.stdout and "estimate 0" not in proc.stdout,
          proc.stdout)
    run(["judge", out], expect=4)


def case_large_budget_capped(tmp):
    """The largest budget runs in bounded memory, and max_seconds stops it and says so."""
    text = PLANTED.replace("budget = 20000;", "budget = 100000000000L; max_seconds = 2.0;")
    proc, out = attack(tmp, text)
    check(proc.returncode in (0, 4), f"exit {proc.returncode}: {proc.stderr}")
    check("stopped early by max_seconds" in proc.stdout, proc.stdout)
    run(["judge", out])


def case_directory_output_refused(tmp):
    spec = write(f"{tmp}/p.cfg", PLANTED)
    os.mkdir(f"{tmp}/adir")
    one_line_error(run(["attack", spec, "-o", f"{tmp}/adir", "--force"], expect=2), "directory")


def case_damaged_tables_refused(tmp):
    """A confirmations table of the wrong shape is refused in one line before it is read."""
    _, out = attack(tmp, PLANTED)
    with h5py.File(out, "r+") as f:
        g = f["attacks/corner"]
        del g["confirmations"]
        g.create_dataset("confirmations", data=np.zeros((3, 5)))
    one_line_error(run(["judge", out], expect=2), out, "confirmations", "damaged")


BAD_BLOCKS = {
    "empty range": ('d_h = { range = [1, 512]; scale = "log"; }', 'd_h = { range = [8, 8]; }', "empty"),
    "unknown parameter": ('d_h = { range = [1, 512]; scale = "log"; }', 'dh = { range = [1, 8]; }',
                          "unknown parameter"),
    "one choice": ('d_h = { range = [1, 512]; scale = "log"; }', 'inputs = ["gaussian"]', "two or more"),
    "budget too small": ("budget = 20000;", "budget = 1500;", "too few"),
    "log of zero": ('d_h = { range = [1, 512]; scale = "log"; }', 'rho = { range = [0.0, 0.5]; scale = "log"; }',
                    "lo > 0"),
    "range of a choice": ('d_h = { range = [1, 512]; scale = "log"; }', 'weights = { range = [0, 1]; }',
                          "is a choice"),
    "unknown claim": ('claim = "rank_06";', 'claim = "H9";', "not among the claims"),
    "trend claim": None,
    "unknown field": ("budget = 20000;", "budget = 20000; budjet = 3;", "unknown field"),
    "out of range": ('d_h = { range = [1, 512]; scale = "log"; }', 'd_h = { range = [1, 99999]; }',
                     "out of range"),
    "swept axis left out": ("n = 16;", "n = 16; rho = [0.1, 0.2];", "sweeps rho"),
}


def case_bad_blocks_refused(tmp):
    """Each bad attack block: exit 2 and one line naming the file, line and field."""
    for name, edit in BAD_BLOCKS.items():
        if edit is None:
            text = PLANTED.replace('rule = "upper_bound";', 'rule = "increasing"; along = "n";')
            text = text.replace('prediction = "0.6 * n + 2";', '').replace('n = 16;', 'n = [16, 32];')
            text = text.replace('space = { n = { range = [4, 128]; scale = "log"; };', 'space = {')
            part = "rule is increasing"
        else:
            old, new, part = edit
            check(old in PLANTED, f"{name}: {old!r} not in the spec")
            text = PLANTED.replace(old, new)
        spec = write(f"{tmp}/bad.cfg", text)
        proc = run(["attack", spec, "-o", f"{tmp}/bad.h5", "--force"])
        check(proc.returncode == 2, f"{name}: exit {proc.returncode}, want 2")
        one_line_error(proc, "bad.cfg:", part)
        check(not os.path.exists(f"{tmp}/bad.h5"), f"{name}: an output was written")


def case_no_attacks_refused(tmp):
    spec = write(f"{tmp}/plain.cfg", PLANTED.split("    attacks")[0] + "}\n);\n")
    one_line_error(run(["attack", spec, "-o", f"{tmp}/x.h5"], expect=2), "no attacks")


def case_existing_output_kept(tmp):
    """An existing output is not replaced without --force, and is not touched."""
    spec = write(f"{tmp}/p.cfg", PLANTED)
    out = write(f"{tmp}/keep.h5", "precious")
    one_line_error(run(["attack", spec, "-o", out], expect=2), "exists")
    check(open(out).read() == "precious", "the existing output was modified")


def case_canonical_roundtrip(tmp):
    """The stored spec reads back with the same attacks (judge rebuilds from it)."""
    _, out = attack(tmp, PLANTED)
    with h5py.File(out, "r") as f:
        canonical = f.attrs["spec_canonical"]
        canonical = canonical.decode() if isinstance(canonical, bytes) else canonical
    check('attacks = (' in canonical and 'scale = "log"' in canonical and "budget = 20000L" in canonical, canonical)
    again = write(f"{tmp}/again.cfg", canonical)
    _, out2 = attack(tmp, open(again).read(), name="again")
    with h5py.File(out, "r") as a, h5py.File(out2, "r") as b:
        check(a["attacks/corner/evaluations"][()].tobytes() == b["attacks/corner/evaluations"][()].tobytes(),
              "the canonical spec searched differently")


TWO = PLANTED.replace('claims = [];', 'claims = ["H1"];').replace(
    '} ); }\n);', '},\n                { id = "second"; claim = "H1"; budget = 60000;\n'
    '                  space = { n = { range = [4, 128]; scale = "log"; }; d_h = { range = [1, 512]; }; }; } ); }\n);')


def case_resume_identical(tmp):
    """Interrupted after the first attack, resumed: the same datasets as a run left alone."""
    check('id = "second"' in TWO, "the two-attack spec was not built")
    spec = write(f"{tmp}/two.cfg", TWO)
    whole = f"{tmp}/whole.h5"
    run(["attack", spec, "-o", whole, "-q", "--threads", "1"], expect=0)
    cut = f"{tmp}/cut.h5"
    proc = subprocess.Popen([test_cli.EXE, "attack", spec, "-o", cut, "--threads", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    # wait for the second attack to start, then interrupt it
    deadline = time.time() + 120
    line = ""
    while "second: searching" not in line and time.time() < deadline:
        line = proc.stderr.readline()
        check(line or proc.poll() is None, "the run ended before its second attack")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    check(proc.returncode == 130 or proc.returncode != 0, f"interrupted run exit {proc.returncode}")
    check(os.path.exists(cut + ".partial") and not os.path.exists(cut), "no .partial left, or a final file made")
    one_line_error(run(["attack", spec, "-o", cut, "-q"], expect=2), ".partial", "--resume")
    run(["attack", spec, "-o", cut, "--resume", "-q", "--threads", "1"], expect=0)
    with h5py.File(whole, "r") as a, h5py.File(cut, "r") as b:
        for attack_id in ["corner", "second"]:
            for name in ["evaluations", "confirmations"]:
                x, y = a[f"attacks/{attack_id}/{name}"][()], b[f"attacks/{attack_id}/{name}"][()]
                check(x.tobytes() == y.tobytes(), f"{attack_id}/{name} differ after resuming")
    other = write(f"{tmp}/other.cfg", TWO.replace("seed = 1;", "seed = 2;"))
    proc = subprocess.Popen([test_cli.EXE, "attack", other, "-o", f"{tmp}/o.h5", "--threads", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = ""
    while "second: searching" not in line and time.time() < deadline + 120:
        line = proc.stderr.readline()
        check(line or proc.poll() is None, "the run ended before its second attack")
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    one_line_error(run(["attack", spec, "-o", f"{tmp}/o.h5", "--resume"], expect=2), "another spec")


def case_report_draws(tmp):
    """The report of an attack file: the verdict table, the search's figure, the spec."""
    _, out = attack(tmp, PLANTED)
    proc = run(["report", out, "-o", f"{tmp}/rep"], expect=0)
    page = open(f"{tmp}/rep/report.html").read()
    check("attack report" in page and "corner" in page and "VIOLATED" in page, "table missing")
    if "figures not drawn" not in proc.stderr:
        check("<svg" in page, f"no figure embedded: {proc.stderr}")


def case_confirmation_sized(tmp):
    """confirm_trials = 6e8 (inside its range) allocated 22 GiB after the whole search.
    The attack is sized as a run is, before any search: its largest point against
    --max-memory (80% of RAM), ulimit -v, and the attack file against ulimit -f; refused
    in one line at once, exit 2, nothing written."""
    import resource
    text = PLANTED.replace("budget = 20000;", "budget = 3000000000L; confirm_trials = 600000000L;")
    spec = write(f"{tmp}/big.cfg", text)
    out = f"{tmp}/big.h5"
    t0 = time.time()
    proc = run(["attack", spec, "-o", out, "--max-memory", "4G", "--threads", "1"], expect=2, timeout=60)
    check(time.time() - t0 < 10, f"refused only after {time.time() - t0:.1f} s")
    one_line_error(proc, "big.cfg", "attack corner", "GiB", "--max-memory")
    check(not [f for f in os.listdir(tmp) if f.startswith("big.h5")], "an output was written")
    one_line_error(run(["attack", spec, "-o", out, "--max-memory", "lots"], expect=2), "--max-memory")
    # the same spec at its planted budget fits, and the file-size limit is looked at first
    small = write(f"{tmp}/small.cfg", PLANTED)

    def file_limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))
    proc = subprocess.run([test_cli.EXE, "attack", small, "-o", f"{tmp}/small.h5", "--threads", "1", "-q"],
                          capture_output=True, text=True, preexec_fn=file_limit, timeout=60)
    check(proc.returncode == 2, f"under ulimit -f: exit {proc.returncode}: {proc.stderr!r}")
    one_line_error(proc, "small.h5", "attack file", "ulimit -f")
    check(not [f for f in os.listdir(tmp) if f.startswith("small.h5")], "an output was written under ulimit -f")
    run(["attack", small, "-o", f"{tmp}/small.h5", "--threads", "1", "-q", "--max-memory", "1G"], expect=0)


SILENT = """seed = 1;
experiments = ( { name = "rank"; simulator = "hardmax_rank"; trials = 100; n = 16; d_h = 2; claims = ["H3"];
    attacks = ( { id = "silent"; claim = "H3"; budget = 100000000L; max_seconds = MAX; strategy = "random";
                  space = { rho = { range = [0.0, 0.5]; }; }; } ); } );
"""


def case_silent_space_stops(tmp):
    """A random search over a space where the claim is silent (H3 speaks at d_h = 1 only;
    every draw of the real rho is a new candidate that costs no trial) looked at neither
    the clock nor signals and kept every draw: 64 x budget/64 draws, past max_seconds and
    SIGTERM, 1 GB at budget 1e6. Now the clock is looked at while drawing, and draws that
    cost no trial end the search after as many as the first design holds."""
    import resource

    def bounded():  # the old code's draws would fill any memory: fail, not swap
        if not test_cli.asan_build():
            resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    for max_seconds, said in (("0.001", "stopped early by max_seconds"), ("60.0", "no candidate")):
        spec = write(f"{tmp}/silent.cfg", SILENT.replace("MAX", max_seconds))
        t0 = time.time()
        try:
            proc = subprocess.run([test_cli.EXE, "attack", spec, "-o", f"{tmp}/silent.h5", "--force", "-q",
                                   "--threads", "1"], capture_output=True, text=True, preexec_fn=bounded, timeout=60)
        except subprocess.TimeoutExpired:
            raise test_cli.Failure(f"max_seconds = {max_seconds}: the search does not stop")
        seconds = time.time() - t0
        check(proc.returncode == 4, f"max_seconds = {max_seconds}: exit {proc.returncode}: {proc.stderr!r}")
        check(said in proc.stdout and "INCONCLUSIVE" in proc.stdout, f"max_seconds = {max_seconds}: {proc.stdout}")
        check(seconds < 20, f"max_seconds = {max_seconds}: {seconds:.1f} s")
        with h5py.File(f"{tmp}/silent.h5", "r") as f:
            candidates = int(f["attacks/silent"].attrs["candidates"])
        check(candidates <= 1 << 16, f"{candidates} candidates kept")


# Seventh hostile review, A: an upper bound of 2 (the rank at d_h = 1) everywhere but a
# tiny one past the grid, where every rank of 2 violates it: (E - f) / |f| overflows there.
TINY_BOUND = """seed = 1;
experiments = (
  { name = "h3"; simulator = "hardmax_rank"; trials = 20; d_h = 1; n = [2, 8]; claims = [];
    conjectures = ( { id = "dip"; output = "argmax_rank"; rule = "upper_bound"; prediction = "F"; } );
    attacks = ( { id = "a1"; claim = "dip"; budget = 4000; space = { n = { range = [2, 60]; }; }; } ); }
);
"""


def case_overflowed_objective_ranked(tmp):
    """An objective (E - f) / |f| that overflows (|f| below about 1e-308, normal or
    subnormal) was taken for none: those candidates, the worst, were never confirmed, and
    the attack said HOLDS (or INCONCLUSIVE, "no candidate ... with the claim speaking
    there") where a run on the grid says VIOLATED. An infinite objective is ranked as the
    worst there is; the confirmation (fresh streams, the claim's own rule) decides."""
    for prediction in ("n > 8 ? 1e-320 : 5", "n > 8 ? 1e-308 : 5", "1e-320", "-1e-320"):
        proc, out = attack(tmp, TINY_BOUND.replace("F", prediction), name="tiny")
        check(proc.returncode == 1, f"{prediction}: exit {proc.returncode}: {proc.stdout}{proc.stderr}")
        check(row_of(proc.stdout, "a1")[2] == "VIOLATED", f"{prediction}: {proc.stdout}")
        check("not positive" not in proc.stdout, f"{prediction}: a positive bound called not positive: {proc.stdout}")
        check(run(["judge", out]).returncode == 1, f"{prediction}: judge does not re-derive VIOLATED")


CASES = test_cli.cases_of(globals())

if __name__ == "__main__":
    test_cli.main(CASES)

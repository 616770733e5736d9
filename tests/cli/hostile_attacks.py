#!/usr/bin/python3
"""Hostile-user CLI tests: attack files (`attnrank attack`) edited to lie. Each forgery is
made with h5py, its stored verdict set to what the forged rows give, and must be refused
by judge, info and report alike: one line naming the file, the attack and the field,
exit 2, nothing drawn (docs/attacks.md#what-reading-checks).

usage: hostile_attacks.py ATTNRANK CASE     (meson registers one test per case)
"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli  # noqa: E402
from test_cli import check, digest, one_line_error, run, write  # noqa: E402

# The worked example of docs/attacks.md: at d_h = 1 every rank is 2 near n = 37, so the
# confirmation rows there have min = max = 2 (0.1 s).
DIP = """seed = 1;
experiments = (
  { name = "h3"; simulator = "hardmax_rank"; trials = 200; d_h = 1; n = [2, 8, 32, 128]; claims = [];
    conjectures = ( { id = "dip"; output = "argmax_rank"; rule = "upper_bound"; expect = "VIOLATED";
        prediction = "2 - 2^(1-n) + 0.05 - 0.5 * exp(-((n - 37) / 3)^2 - (ln(sigma / 2.5) / 0.3)^2)"; } );
    attacks = ( { id = "dip_window"; claim = "dip"; budget = 5000;
        space = { n = { range = [2, 200]; }; sigma = { range = [0.1, 10.0]; scale = "log"; }; }; } ); }
);
"""

# An every-trial bound that fails (rank 4 of 4 tokens exceeds 3) while every mean is
# below it: lowering each row's max below its mean turns it into HOLDS.
EVERY = """seed = 1;
experiments = (
  { name = "rank"; simulator = "hardmax_rank"; trials = 200; n = 16; d_h = 2; claims = [];
    conjectures = ( { id = "rank_34"; output = "argmax_rank"; rule = "every_trial";
                      prediction = "0.75 * n"; expect = "VIOLATED"; } );
    attacks = ( { id = "every"; claim = "rank_34"; budget = 5000;
                  space = { n = { range = [4, 64]; scale = "log"; };
                            d_h = { range = [1, 64]; scale = "log"; }; }; } ); }
);
"""

# An upper bound on a 0/1 output (does the run collapse?) that fails: its evaluation
# rows' stderr is the largest values in [0, 1] with their mean can have.
INDICATOR = """seed = 5;
experiments = (
  { name = "m"; simulator = "mask_dynamics"; trials = 50; n = [4, 8]; layers = [2, 4]; d = 2; claims = [];
    conjectures = ( { id = "coll"; output = "collapsed"; rule = "upper_bound"; prediction = "0.5"; } );
    attacks = ( { id = "ca"; claim = "coll"; budget = 3000;
        space = { layers = { range = [1, 40]; }; n = { range = [2, 16]; }; }; } ); }
);
"""

# The dip with a budget only its clock stops: a capped search, "not reproducible" (long
# enough for the first evaluations: its first design alone is 65 536 candidates).
CAPPED = DIP.replace("budget = 5000;", "budget = 100000000000L; max_seconds = 2.0;")


def attacked(tmp, text, name):
    spec = write(f"{tmp}/{name}.cfg", text)
    out = f"{tmp}/{name}.h5"
    proc = run(["attack", spec, "-o", out, "-q", "--threads", "1"], timeout=300)
    check(proc.returncode in (0, 1, 4), f"attack {name}: exit {proc.returncode}: {proc.stderr}")
    return out


def columns(dataset):
    text = dataset.attrs["columns"]
    return (text.decode() if isinstance(text, bytes) else text).split(",")


def forge(source, path, attack_id, edit, verdict=None):
    """A copy of source with edit(group, confirmations, evaluations) applied to the
    attack's group (the tables as arrays, written back), and its verdict set."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shutil.copy(source, path)
    with h5py.File(path, "r+") as f:
        g = f[f"attacks/{attack_id}"]
        conf, ev = g["confirmations"][()], g["evaluations"][()]
        cc, ec = columns(g["confirmations"]), columns(g["evaluations"])
        edit(g, Table(conf, cc), Table(ev, ec))
        if "confirmations" in g and g["confirmations"].shape == conf.shape:
            g["confirmations"][...] = conf
        if "evaluations" in g and g["evaluations"].shape == ev.shape:
            g["evaluations"][...] = ev
        if verdict:
            g.attrs["verdict"] = verdict
    return path


class Table:
    """Rows with their columns by name: t["mean"] is the column, t.rows the array."""

    def __init__(self, rows, names):
        self.rows, self.names = rows, names

    def __getitem__(self, name):
        return self.rows[:, self.names.index(name)]

    def __setitem__(self, name, value):
        self.rows[:, self.names.index(name)] = value

    def set(self, row, name, value):
        self.rows[row, self.names.index(name)] = value


def refused_everywhere(path, attack_id, *parts):
    """judge, info and report: exit 2, one line naming the file, the attack and the
    field; the file left as it was and no report folder made."""
    before = digest(path)
    for command in (["judge", path], ["info", path], ["report", path, "-o", f"{path}.report", "-q"]):
        proc = run(command)
        check(proc.returncode == 2, f"{command[0]} {os.path.basename(path)}: exit {proc.returncode}, want 2\n"
                                    f"stdout: {proc.stdout}\nstderr: {proc.stderr}")
        one_line_error(proc, path, "damaged", attack_id, *parts)
    check(digest(path) == before, f"{path} was altered")
    check(not os.path.exists(f"{path}.report") and not os.path.exists(f"{path}.report.partial"),
          "report left a folder for a damaged file")


def set_table(g, name, rows):
    """The table replaced by rows (another row count), its columns kept."""
    names = g[name].attrs["columns"]
    del g[name]
    g.create_dataset(name, data=rows)
    g[name].attrs["columns"] = names


# ---- cases ------------------------------------------------------------------------


def case_mean_outside_its_values(tmp):
    """Every confirmation row's mean moved to 1.5 inside an edited interval while its min
    and max stay at 2: judge said HOLDS. The statistics are checked as a result file's."""
    dip = attacked(tmp, DIP, "dip")
    with h5py.File(dip, "r") as f:
        conf = f["attacks/dip_window/confirmations"]
        check((conf[:, columns(conf).index("min")] == 2).all(), "the dip's rows are not all 2")

    def edit(g, conf, ev):
        conf["mean"] = 1.5
        conf["ci_lo"] = 1.49
        conf["ci_hi"] = 1.51
    refused_everywhere(forge(dip, f"{tmp}/mean/f.h5", "dip_window", edit, "HOLDS"), "dip_window",
                       "confirmation row 0", "mean 1.5", "within [min, max]")


def case_every_trial_max_lowered(tmp):
    """An every-trial attack's max lowered below every row's mean: HOLDS, exit 0, before."""
    every = attacked(tmp, EVERY, "every")
    check("VIOLATED" in run(["judge", every]).stdout, "the every-trial bound did not fail")

    def edit(g, conf, ev):
        conf["max"] = conf["mean"] - 0.1
    refused_everywhere(forge(every, f"{tmp}/max/f.h5", "every", edit, "HOLDS"), "every", "confirmation row 0",
                       "within [min, max]")


def case_confirmations_emptied(tmp):
    """The confirmations emptied, the verdict set to INCONCLUSIVE ("the search kept no
    candidate") while the evaluations hold candidates the search would have confirmed."""
    dip = attacked(tmp, DIP, "dip")

    def edit(g, conf, ev):
        set_table(g, "confirmations", np.zeros((0, conf.rows.shape[1])))
        g.attrs["confirm_trials"] = 0
    forged = forge(dip, f"{tmp}/empty/f.h5", "dip_window", edit, "INCONCLUSIVE")
    refused_everywhere(forged, "dip_window", "0 confirmation rows", "rank best")

    def one_fewer(g, conf, ev):  # the last candidate's rows dropped: 3 candidates, not 4
        set_table(g, "confirmations", conf.rows[: -1])
        g.attrs["confirm_trials"] = int(g.attrs["confirm_trials"]) - 200
    refused_everywhere(forge(dip, f"{tmp}/fewer/f.h5", "dip_window", one_fewer), "dip_window",
                       "3 confirmation rows")

    def other_candidate(g, conf, ev):  # a confirmation of a candidate the search ranked lower
        conf.set(0, "candidate", ev["candidate"][0])
    refused_everywhere(forge(dip, f"{tmp}/other/f.h5", "dip_window", other_candidate), "dip_window",
                       "confirmation row 0", "rank best")


def case_statistics_forged(tmp):
    """A negative stderr, std = 1e300, an interval not the mean's: shown as stored before."""
    every = attacked(tmp, EVERY, "every")
    with h5py.File(every, "r") as f:
        conf = f["attacks/every/confirmations"]
        check((conf[:, columns(conf).index("std")] > 0).all(), "a row without spread")
    lies = {
        "negative stderr": (lambda c: c.set(0, "stderr", -c["stderr"][0]), "stderr"),
        "std 1e300": (lambda c: c.set(0, "std", 1e300), "std 1e+300"),
        "std and stderr together": (lambda c: (c.set(1, "std", 10 * c["std"][1]),
                                               c.set(1, "stderr", 10 * c["stderr"][1])), "std"),
        "interval moved": (lambda c: c.set(2, "ci_hi", c["ci_hi"][2] + 0.5), "ci_lo and ci_hi"),
        "count 1, statistics kept": (lambda c: (c.set(0, "count", 1), c.set(0, "failed", 199)), "undefined"),
        "min infinite": (lambda c: c.set(3, "min", -np.inf), "min and max"),
    }
    for what, (edit, part) in lies.items():
        forged = forge(every, f"{tmp}/{what.replace(' ', '_').replace(',', '')}/f.h5", "every",
                       lambda g, conf, ev, e=edit: e(conf))
        refused_everywhere(forged, "every", "confirmation row", part)


def case_counters_forged(tmp):
    """search_trials = -5, candidates = 999999, a string or a real where a count belongs,
    stopped_early = 0 on a capped search (the "not reproducible" warning gone): each was
    shown as stored. The counters are what the evaluations add up to, within the budget."""
    dip = attacked(tmp, DIP, "dip")
    capped = attacked(tmp, CAPPED, "capped")
    with h5py.File(capped, "r") as f:
        check(int(f["attacks/dip_window"].attrs["stopped_early"]) == 1, "the capped search was not stopped")
        check(f["attacks/dip_window/evaluations"].shape[0] > 0, "the capped search evaluated nothing")
    check("not reproducible" in run(["judge", capped]).stdout, "no warning on the capped search")
    lies = {
        "search_trials -5": (dip, "search_trials", -5, "search_trials is -5"),
        "search_trials one more": (dip, "search_trials", None, "search_trials"),
        "candidates 999999": (dip, "candidates", 999999, "candidates"),
        "candidates as text": (dip, "candidates", "139", "attribute candidates"),
        "search_trials real": (dip, "search_trials", 4184.0, "attribute search_trials"),
        "evaluations": (dip, "evaluations", 7, "evaluations attribute"),
        "confirm_trials": (dip, "confirm_trials", 900, "confirm_trials"),
        "stopped_early 1 uncapped": (dip, "stopped_early", 1, "stopped_early"),
        "stopped_early 2": (dip, "stopped_early", 2, "stopped_early"),
        "stopped_early 0 capped": (capped, "stopped_early", 0, "stopped_early is 0"),
    }
    for what, (source, name, value, part) in lies.items():
        def edit(g, conf, ev, name=name, value=value):
            g.attrs[name] = value if value is not None else np.int64(int(g.attrs[name]) + 1)
        refused_everywhere(forge(source, f"{tmp}/{what.replace(' ', '_')}/f.h5", "dip_window", edit),
                           "dip_window", part)


def case_evaluations_forged(tmp):
    """The evaluations (what the figure draws and the confirmation chose from) are the
    search's: each row's objective its statistics', each candidate's point and trials
    its own."""
    dip = attacked(tmp, DIP, "dip")
    lies = {
        "objective": (lambda ev: ev.set(5, "objective", 3.0), "objective"),
        "mean": (lambda ev: ev.set(5, "mean", ev["mean"][5] - 0.25), "objective"),
        "prediction": (lambda ev: ev.set(5, "prediction", 7.0), "prediction"),
        "trials": (lambda ev: ev.set(5, "trials", 9), "trials"),
        "order": (lambda ev: ev.set(5, "evaluation", 6), "evaluation 6"),
        "candidate renumbered": (lambda ev: ev.set(5, "candidate", ev["candidate"][1]), "another point"),
        "candidate out of order": (lambda ev: ev.set(5, "candidate", 2.5), "not a candidate's number"),
        "point outside": (lambda ev: ev.set(5, "n", 1000), "outside the attack's space"),
        "stderr negative": (lambda ev: ev.set(5, "stderr", -1), "stderr -1"),
        "stage": (lambda ev: ev.set(5, "stage", 3), "stage 3"),
        "local trials": (lambda ev: ev.set(5, "stage", 1), "what its stage gives"),
    }
    for what, (edit, part) in lies.items():
        forged = forge(dip, f"{tmp}/{what.replace(' ', '_')}/f.h5", "dip_window",
                       lambda g, conf, ev, e=edit: e(ev))
        refused_everywhere(forged, "dip_window", "evaluation row 5", part)



def forge_row(conf, row, values):
    """Confirmation row's statistics replaced by those of values, each agreeing with the
    others (an integer output's interval: its floor 1/count, t read off the row's own)."""
    values = np.asarray(values, dtype=float)
    c = len(values)
    mean, std = values.mean(), values.std(ddof=1)
    se = std / np.sqrt(c)
    t = (conf["ci_hi"][row] - conf["mean"][row]) / max(conf["stderr"][row], 1 / conf["count"][row])
    half = t * max(se, 1 / c)
    for name, value in {"mean": mean, "std": std, "stderr": se, "ci_lo": mean - half, "ci_hi": mean + half,
                        "min": values.min(), "max": values.max(), "count": c}.items():
        conf.set(row, name, value)


def case_impossible_values(tmp):
    """Issue 37: rows forged consistently with values the output cannot take passed every
    check: a confirmation row of rank n + 1 (every statistic agreeing: VIOLATED), one
    with a rank of 1.5 among its values, and an evaluation row's stderr 1 where every
    trial was equal (mean = max) or beyond what values in [0, max] with its mean can
    have. The output's range at its point bounds them (docs/file-format.md)."""
    dip = attacked(tmp, DIP, "dip")
    with h5py.File(dip, "r") as f:
        conf = f["attacks/dip_window/confirmations"]
        trials, n0 = int(conf[0, columns(conf).index("count")]), int(conf[0, columns(conf).index("n")])
    check(trials == 200, f"the dip's first row has {trials} counted trials")
    # the dip runs at d_h = 1, where a hardmax rank is at most 2 (the scores have rank one:
    # a row's argmax is the largest or the smallest key), so the range there is [1, 2]
    top = min(n0, 2)
    rows = {
        "above n": ([n0 + 1] * trials, "VIOLATED", f"outside [1, {top}]"),
        "not whole": ([1.5] + [2] * (trials - 1), None, "not whole"),
    }
    for what, (values, verdict, part) in rows.items():
        forged = forge(dip, f"{tmp}/{what.replace(' ', '_')}/f.h5", "dip_window",
                       lambda g, conf, ev, v=values: forge_row(conf, 0, v), verdict)
        refused_everywhere(forged, "dip_window", "confirmation row 0", "min and max", part)

    with h5py.File(dip, "r") as f:
        ev = Table(f["attacks/dip_window/evaluations"][()], columns(f["attacks/dip_window/evaluations"]))
    counted = ev["trials"] - ev["failed"]
    equal = np.flatnonzero((ev["mean"] == ev["max"]) & (counted >= 2))
    spread = np.flatnonzero((ev["mean"] < ev["max"]) & (counted >= 2))
    check(len(equal) > 0 and len(spread) > 0, "the dip has no evaluation row with (or without) equal trials")
    i, j = int(equal[0]), int(spread[0])
    most = np.sqrt((ev["max"][j] - ev["mean"][j]) * ev["mean"][j] / (counted[j] - 1))  # Bhatia-Davis, lower 0
    lies = {"all equal": (i, 1.0), "beyond the bound": (j, 2 * most)}
    for what, (row, stderr) in lies.items():
        forged = forge(dip, f"{tmp}/{what.replace(' ', '_')}/f.h5", "dip_window",
                       lambda g, conf, ev, r=row, v=stderr: ev.set(r, "stderr", v))
        refused_everywhere(forged, "dip_window", f"evaluation row {row}", "stderr", "is more than")
    # a 0/1 output's rows sit on the bound itself (mean p, variance p (1 - p) n/(n - 1)):
    # a real attack on one is read as written (1 s)
    indicator = attacked(tmp, INDICATOR, "indicator")
    for command in (["judge", indicator], ["info", indicator]):
        proc = run(command)
        check(proc.returncode in (0, 1) and "damaged" not in proc.stderr,
              f"{command[0]} of a real 0/1 attack: exit {proc.returncode}: {proc.stderr}")

def peak_rss_mib(args):
    """The peak resident memory of `attnrank ARGS` alone (a child of a fresh Python, so no
    earlier run counts), and its exit status and stderr."""
    probe = ("import resource, subprocess, sys\n"
             "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode)\n"
             "sys.stderr.write(p.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", probe, test_cli.EXE, *args], capture_output=True, text=True,
                          timeout=300)
    kib, status = proc.stdout.split()
    return int(kib) / 1024, int(status), proc.stderr


def case_rows_beyond_budget(tmp):
    """A 20 KB file declaring 3e6 evaluation rows (never written) cost 317 MiB in judge:
    row counts are bounded by what the stored spec's budget allows, and by the rows the
    file stores, before anything is allocated."""
    dip = attacked(tmp, DIP, "dip")
    good_mib, status, _ = peak_rss_mib(["judge", dip])
    check(status == 0, f"judge of the good file: exit {status}")

    def declared(rows):
        def edit(g, conf, ev):
            names = g["evaluations"].attrs["columns"]
            del g["evaluations"]
            g.create_dataset("evaluations", shape=(rows, ev.rows.shape[1]), dtype="f8")  # never written
            g["evaluations"].attrs["columns"] = names
        return edit
    forged = forge(dip, f"{tmp}/huge/f.h5", "dip_window", declared(3_000_000))
    check(os.path.getsize(forged) < 100_000, f"the forged file is {os.path.getsize(forged)} bytes")
    mib, status, stderr = peak_rss_mib(["judge", forged])
    check(status == 2 and "3000000 rows" in stderr and "at most" in stderr, f"exit {status}: {stderr}")
    check(mib < good_mib + 32, f"judge of the forged file peaked at {mib:.0f} MiB (the good file: {good_mib:.0f})")
    refused_everywhere(forged, "dip_window", "evaluations", "3000000 rows")
    # within the budget's rows but not in the file: zeros read for rows never written
    refused_everywhere(forge(dip, f"{tmp}/unwritten/f.h5", "dip_window", declared(300)), "dip_window",
                       "evaluations", "stores 0 bytes")

    def confirmations(g, conf, ev):
        set_table(g, "confirmations", np.zeros((1000, conf.rows.shape[1])))
    refused_everywhere(forge(dip, f"{tmp}/conf/f.h5", "dip_window", confirmations), "dip_window",
                       "confirmations", "1000 rows")


def case_random_stopped_flag_forged(tmp):
    """Review 3, case E: a random search stopped by max_seconds 1 s of a budget of 10^11,
    its stopped_early set to 0: the "not reproducible" warning was gone from info and
    judge, and the page never said it. A random search also stops short of its budget,
    uncapped, over a space with no new point where the claim speaks (attacks.py's
    silent_space_stops), which the file cannot tell apart: so the terminal and the page
    say from the counters what budget was left and what stops a search there."""
    capped = attacked(tmp, CAPPED.replace("max_seconds = 2.0;", 'max_seconds = 1.0; strategy = "random";'), "rnd")
    with h5py.File(capped, "r+") as f:
        g = f["attacks/dip_window"]
        check(int(g.attrs["stopped_early"]) == 1, "the random search was not stopped")
        check(g["evaluations"].shape[0] > 0, "the random search evaluated nothing")
        g.attrs["stopped_early"] = np.int64(0)
    for args in (["info", capped], ["judge", capped]):
        proc = run(args)
        check(proc.returncode in (0, 1, 4), f"{args[0]}: exit {proc.returncode}: {proc.stderr}")
        line = [x for x in proc.stdout.splitlines() if "search:" in x]
        check(line and "unspent" in line[0] and "not reproducible" in line[0], f"{args[0]}: {line}")
    run(["report", capped, "-o", f"{tmp}/rep", "-q"], expect=None)
    with open(f"{tmp}/rep/report.html") as page:
        text = page.read()
    check("unspent" in text and "not reproducible" in text, "the page does not say the search stopped short")


FORGED_DISPLAY = {"claim": "FORGEDCLAIM", "point": "n=999999 sigma=42", "estimate": 123456.0, "ci_lo": 123455.0,
                  "ci_hi": 123457.0, "prediction": 654321.0, "rule": "FORGEDRULE", "verdict_rule": "FORGEDVERDICTRULE",
                  "resolution": 777777.0, "deciding_row": 3, "statement": "FORGEDSTATEMENT",
                  "space_n": "integer range [2, 200], log scale"}


def case_figure_from_rederived(tmp):
    """The figure's title and caption came from unchecked attributes (claim, point,
    estimate, ci_*, rule): the page's table said one point, the figure another. They are
    drawn from what attnrank re-derives, never from display attributes, and a group the
    spec does not name is not drawn."""
    dip = attacked(tmp, DIP, "dip")
    judged = run(["judge", dip], expect=0).stdout

    def edit(g, conf, ev):
        for name, value in FORGED_DISPLAY.items():
            g.attrs[name] = value
        g.file.copy(g, "attacks/forged")  # a group the spec does not name
    forged = forge(dip, f"{tmp}/display/f.h5", "dip_window", edit)
    check(run(["judge", forged], expect=0).stdout == judged, "judge read a display attribute")
    proc = run(["report", forged, "-o", f"{tmp}/rep"], expect=0)
    if "figures not drawn" in proc.stderr:
        print(f"figures not drawn here: {proc.stderr.strip()}", file=sys.stderr)
        return
    page = open(f"{tmp}/rep/report.html").read()
    figures = "".join(open(os.path.join(f"{tmp}/rep/figures", name), errors="replace").read()
                      for name in os.listdir(f"{tmp}/rep/figures") if name.endswith((".svg", ".tsv")))
    for name, value in FORGED_DISPLAY.items():
        shown = str(value) if not isinstance(value, float) else f"{value:g}"
        if name not in ("space_n", "deciding_row"):
            check(shown not in page and shown not in figures, f"the forged {name} ({shown}) was drawn")
    check("attack_forged" not in figures and "attack forged" not in page, "a group outside the spec was drawn")
    # what is drawn is what judge re-derives: the deciding point and its estimate
    words = next(line for line in judged.splitlines() if line.startswith("dip_window")).split()
    estimate = next(line for line in judged.splitlines() if line.strip().startswith("estimate")).split()[1]
    caption = open(f"{tmp}/rep/figures/figures.tsv").read()
    check(" ".join(words[4:]) in caption and f"estimate {estimate}" in caption and "VIOLATED" in caption,
          f"the caption is not the re-derived row ({words[4:]}, {estimate}): {caption}")
    svg = open(f"{tmp}/rep/figures/attack_dip_window.svg").read()
    check("dip: VIOLATED" in svg, "the figure's title is not the re-derived verdict")
    # the figure's axes follow the spec (sigma on a log scale, n linear), not space_* attributes
    check("FORGED" not in svg, "a forged attribute reached the figure")


CASES = test_cli.cases_of(globals())

if __name__ == "__main__":
    test_cli.main(CASES)

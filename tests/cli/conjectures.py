#!/usr/bin/python3
"""CLI tests of conjectures: claims a user states in a spec's experiment or on
`attnrank judge`'s command line, judged by the verdict machinery of the built-in claims.

usage: conjectures.py ATTNRANK CASE     (meson registers one test per case)
"""
import math
import os
import re
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli  # noqa: E402
from test_cli import check, digest, h5diff_groups, one_line_error, run, same_datasets, write  # noqa: E402

# ---- helpers ------------------------------------------------------------------------


def table(stdout):
    """The verdict table's rows, as printed (header to the first blank line)."""
    lines = stdout.splitlines()
    check(lines and lines[0].startswith("claim "), f"no verdict table: {stdout[:500]}")
    end = lines.index("") if "" in lines else len(lines)
    return lines[1:end]


def statements(stdout):
    """The `claims:` section below the table."""
    lines = stdout.splitlines()
    start = lines.index("claims:")
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return lines[start + 1:end]


def rows_of(stdout):
    """Printed verdict rows by (claim, experiment)."""
    return {(line.split()[0], line.split()[1]): line for line in table(stdout)}


def mutant_rows(stdout):
    """The mutant table's rows by (claim, experiment): the words after the claim."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("mutants: "))
    check(lines[start + 1].startswith("claim "), f"mutant table header: {lines[start + 1]}")
    out = {}
    for line in lines[start + 2:]:
        if not line.strip():
            break
        words = line.split()
        out[(words[0], words[1])] = words[1:]
    return out


def verdict_rows(path):
    with h5py.File(path, "r") as f:
        return {(r["claim"].decode(), r["experiment"].decode()): r for r in f["verdicts"][...]}


def same_number(a, b, ulps=0):
    """a == b (NaN equal to NaN), or within `ulps` units in the last place."""
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if a == b:
        return True
    return ulps > 0 and abs(a - b) <= ulps * math.ulp(max(abs(a), abs(b)))


def refused_run(tmp, spec, *parts):
    """run SPEC: exit 2, one line holding every part, no output nor partial file left."""
    out = f"{tmp}/refused.h5"
    proc = run(["run", spec, "-o", out, "-q"], expect=2, timeout=120)
    one_line_error(proc, *parts)
    left = [f for f in os.listdir(tmp) if f.startswith("refused.h5")]
    check(not left, f"{spec}: left behind: {left}")
    return proc


def refused_judge(args, *parts):
    proc = run(["judge", *args], expect=2, timeout=120)
    one_line_error(proc, *parts)
    return proc


def quoted(value):
    """A value as libconfig writes it: numbers bare, strings quoted and escaped, lists."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(quoted(v) for v in value) + "]"
    if isinstance(value, (int, float)):
        return repr(value)
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def group(fields):
    """A conjecture as one libconfig group, on one line."""
    return "{ " + " ".join(f"{k} = {quoted(v)};" for k, v in fields.items()) + " }"


def line_of(fields):
    """The same conjecture as judge's --conjecture text (a list value as [lo, hi])."""
    def text(v):
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(text(x) for x in v) + "]"
        return str(v)
    return "; ".join(f"{k}={text(v)}" for k, v in fields.items())


def start_run(spec, out, extra=()):
    return subprocess.Popen([test_cli.EXE, "run", spec, "-o", out, "-q", *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def interrupted(spec, out, delays):
    """Starts a run of spec and sends it SIGTERM after each delay in turn (seconds) until
    one lands mid-run. Returns that run's stderr (exit 143, out.partial left)."""
    for delay in delays:
        for path in (out, out + ".partial"):
            if os.path.exists(path):
                os.remove(path)
        proc = start_run(spec, out)
        time.sleep(delay)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=300)
        if proc.returncode == 143:
            check(os.path.exists(out + ".partial") and not os.path.exists(out),
                  f"SIGTERM left no partial file: {os.listdir(os.path.dirname(out))}")
            return err
        # finished before the signal (try a shorter wait), or signalled before it could
        # catch SIGTERM (-15: at start-up; the next wait is shorter still, so give up on it)
        check(proc.returncode in (0, 1, 4, -signal.SIGTERM), f"run under SIGTERM: exit {proc.returncode}: {err}")
    raise test_cli.Failure(f"no SIGTERM landed mid-run (after {delays} s)")


# ---- 1. built-in claims restated as conjectures -------------------------------------------

# Each experiment lists one built-in claim and restates it as a conjecture on the same
# grid. H1 speaks wherever the inputs are orthonormal and the weights independent (the
# defaults here); H3 only at d_h = 1 (the grid also has d_h > 1), with its rel_tol 0.05;
# S4's limit 1 + s^2/m^2 along n at rate 1, tolerance 0.01, for exponential entries
# (m = s = 1: the limit is 2) and uniform ones (m = 1/2, s = 1/sqrt(12): 4/3); M2bound
# speaks where norm = none, value = identity and the mask has a spanning tree (a window
# with w >= 1): choice parameters, fixed by the experiment.
RESTATED_EXPERIMENTS = [
    ('name = "hard"; simulator = "hardmax_rank"; trials = 400; n = [8, 16, 32]; d_h = [1, 2, 8]; '
     'claims = ["H1", "H3"];',
     [("H1", {"id": "cH1", "output": "argmax_rank", "rule": "upper_bound", "prediction": "(1 - exp(-1)) * n + 1"}),
      ("H3", {"id": "cH3", "output": "argmax_rank", "rule": "equality", "prediction": "2 - 2^(1 - n)",
              "where": "d_h == 1", "tolerance": 0.05})]),
    ('name = "spec"; simulator = "markov_spectrum"; trials = 60; entries = "exponential"; '
     'n = [16, 32, 64, 128]; claims = ["S4"];',
     [("S4", {"id": "cS4", "output": "stable_rank", "rule": "limit", "prediction": "2", "tolerance": 0.01,
              "along": "n", "rate": 1, "next_order": 1})]),
    ('name = "spec_u"; simulator = "markov_spectrum"; trials = 60; entries = "uniform"; '
     'n = [16, 32, 64, 128]; claims = ["S4"];',
     [("S4", {"id": "cS4u", "output": "stable_rank", "rule": "limit", "prediction": "4/3", "tolerance": 0.01,
              "along": "n", "rate": 1, "next_order": 1})]),
    ('name = "masks"; simulator = "mask_dynamics"; trials = 30; mask = "window"; value = "identity"; norm = "none"; '
     'layers = 30; n = [8, 16]; w = [1, 2]; claims = ["M2bound"];',
     [("M2bound", {"id": "cM2", "output": "bound_ratio", "rule": "every_trial", "prediction": "1"})]),
]

# Where the conjecture's formula is the claim's C expression in the same order, the
# predictions are the same doubles. For uniform entries S4 computes r = (1/sqrt(12))/0.5
# and 1 + r*r, which is 4/3 only to a few ulps: there predictions, and what is computed
# from them (the resolution's factors), are compared to 4 ulps.
ULPS = {"cS4u": 4}


def restated_spec(with_conjectures):
    parts = []
    for fields, restated in RESTATED_EXPERIMENTS:
        body = fields
        if with_conjectures:
            body += "\n    conjectures = (\n      " + ",\n      ".join(group(c) for _, c in restated) + "\n    );"
        parts.append("  { " + body + " }")
    return "seed = 17;\nexperiments = (\n" + ",\n".join(parts) + "\n);\n"


def case_restated_identical(tmp):
    """H1, H3, S4 and M2bound restated as conjectures: the same verdict, estimate,
    interval, deciding point and resolution as the claim, in the run's /verdicts and
    table, in judge's mutants, and when the conjectures come to judge as strings."""
    spec = write(f"{tmp}/restated.cfg", restated_spec(True))
    out = f"{tmp}/restated.h5"
    proc = run(["run", spec, "-o", out, "-q"])
    check(proc.returncode in (0, 1, 4), f"run: exit {proc.returncode}: {proc.stderr}")
    ran = proc.stdout
    printed = rows_of(ran)
    stored = verdict_rows(out)
    pairs = [(claim, c["id"], fields.split('"')[1]) for fields, restated in RESTATED_EXPERIMENTS
             for claim, c in restated]
    for claim, conj, exp in pairs:
        a, b = stored[(claim, exp)], stored[(conj, exp)]
        what = f"{claim} and {conj} in {exp}"
        ulps = ULPS.get(conj, 0)
        for field in ("verdict", "point", "resolution", "resolution_kind", "trials", "points", "loose", "excludes",
                      "rule_kind", "failed", "empty_points", "fit_lines", "fit_sizes", "fit_dof", "fit_rate_profiled",
                      "fit_b", "fit_undecided") + (() if ulps else ("rule",)):  # "rule": the explanation's numbers
            check(a[field] == b[field], f"{what}: {field} {a[field]!r} != {b[field]!r}")
        for field in ("estimate", "ci_lo", "ci_hi", "fit_chi2"):  # the same data, the same arithmetic
            check(same_number(a[field], b[field]), f"{what}: {field} {a[field]!r} != {b[field]!r}")
        for field in ("prediction", "resolution_value", "resolution_lo", "resolution_hi"):
            check(same_number(a[field], b[field], ulps), f"{what}: {field} {a[field]!r} != {b[field]!r}")
        with h5py.File(out, "r") as f:
            t_claim, t_conj = f[f"{exp}/theory/{claim}"][...], f[f"{exp}/theory/{conj}"][...]
            check(f[f"{exp}/theory/{conj}"].attrs["kind"] == "conjecture", f"{conj}: theory kind")
        check(np.array_equal(np.isnan(t_claim), np.isnan(t_conj)), f"{what}: the theory speaks at other points")
        check(all(same_number(x, y, ulps) for x, y in zip(t_claim.ravel(), t_conj.ravel())),
              f"{what}: theory values differ: {t_claim} {t_conj}")
        resolution = a["resolution"].decode()
        for key in ((claim, exp), (conj, exp)):
            check(f"  {resolution} " in printed[key],
                  f"{key}: printed resolution is not {resolution!r}: {printed[key]}")
            for word in (a["verdict"].decode(), a["point"].decode()):
                check(word in printed[key], f"{key}: {word!r} not printed: {printed[key]}")
    # judge --mutants: the same verdict table as the run, and the same mutant cells.
    before = digest(out)
    judged = run(["judge", out, "--mutants"])
    check(judged.returncode == proc.returncode, f"judge exit {judged.returncode}, run {proc.returncode}")
    check(table(judged.stdout) == table(ran), f"judge's table differs from run's:\n{judged.stdout}\n{ran}")
    mutants = mutant_rows(judged.stdout)
    for claim, conj, exp in pairs:
        m_claim, m_conj = mutants[(claim, exp)], mutants[(conj, exp)]
        check(m_claim == m_conj, f"{claim}/{conj} in {exp}: mutants {m_claim} != {m_conj}")
        check(len(m_claim) > 3 and ":" in m_claim[2], f"{claim}: no mutant cells: {m_claim}")
    check(digest(out) == before, "judge modified the file")
    # The claims alone, then the conjectures given to judge as --conjecture strings.
    plain = write(f"{tmp}/plain.cfg", restated_spec(False))
    claims_only = f"{tmp}/claims_only.h5"
    proc2 = run(["run", plain, "-o", claims_only, "-q"])
    check(proc2.returncode in (0, 1, 4), f"run: exit {proc2.returncode}: {proc2.stderr}")
    # conjectures do not change what is simulated
    with h5py.File(out, "r") as a, h5py.File(claims_only, "r") as b:
        for fields, _ in RESTATED_EXPERIMENTS:
            exp = fields.split('"')[1]
            for name in a[exp]:
                if name != "theory" and isinstance(a[exp][name], h5py.Group):
                    for ds in a[exp][name]:
                        check(a[exp][name][ds][()].tobytes() == b[exp][name][ds][()].tobytes(),
                              f"/{exp}/{name}/{ds} differs with the conjectures")
    renamed = {}
    args = []
    for fields, restated in RESTATED_EXPERIMENTS:
        exp = fields.split('"')[1]
        for _, c in restated:
            new = dict(c)
            new["id"] = "j" + c["id"][1:]  # same length: the same column widths
            renamed[c["id"]] = new["id"]
            new["experiment"] = exp
            args += ["--conjecture", line_of(new)]
    proc3 = run(["judge", claims_only, *args])
    check(proc3.returncode == proc.returncode, f"judge exit {proc3.returncode}, run {proc.returncode}")

    def rename(line):
        for old, new in renamed.items():
            line = re.sub(rf"\b{re.escape(old)}\b", new, line)
        return line
    want = [rename(line) for line in table(ran)]
    check(table(proc3.stdout) == want, "judge with --conjecture strings printed other lines than the run:\n"
          + "\n".join(table(proc3.stdout)) + "\n--- run:\n" + "\n".join(want))
    check(statements(proc3.stdout) == [rename(line) for line in statements(ran)], "statements differ")


# ---- 2. bad conjectures ------------------------------------------------------------

# Spec of the bad-conjecture cases and the finished file judge is given: the conjecture
# under test goes into the experiment named by its case, on a line of its own.
BAD_EXPERIMENTS = {
    "h": 'name = "h"; simulator = "hardmax_rank"; trials = 20; n = [8, 16]; d_h = [2, 8];',
    "m": 'name = "m"; simulator = "markov_spectrum"; trials = 5; spectrum = "top2"; n = [8, 16, 32];',
    "m2": 'name = "m2"; simulator = "markov_spectrum"; trials = 5; spectrum = "top2"; entries = "uniform"; '
          'n = [8, 16, 32];',
    "k": 'name = "k"; simulator = "mask_dynamics"; trials = 5; n = [8, 16]; layers = 10;',
}
GOOD = {"id": "ok1", "output": "argmax_rank", "rule": "upper_bound", "prediction": "n"}


def bad_spec(experiment, conjecture_text):
    """The spec: GOOD in h, then the conjecture under test (text) in its experiment, each
    on a line of its own. Returns (spec text, the line the conjecture under test is on)."""
    lines = ["seed = 5;", "experiments = ("]
    at = None
    for name, fields in BAD_EXPERIMENTS.items():
        lines.append(f"  {{ {fields}")
        conj = []
        if name == "h":
            conj.append(group(GOOD))
        if name == experiment:
            conj.append(conjecture_text)
        if conj:
            lines.append("    conjectures = (")
            for i, c in enumerate(conj):
                lines.append("      " + c + ("," if i + 1 < len(conj) else ""))
                if c is conjecture_text:
                    at = len(lines)
            lines.append("    );")
        lines.append("  }" + ("," if name != list(BAD_EXPERIMENTS)[-1] else ""))
    lines.append(");")
    return "\n".join(lines) + "\n", at


def ub(**extra):
    c = {"id": "a", "output": "argmax_rank", "rule": "upper_bound", "prediction": "n"}
    c.update(extra)
    return {k: v for k, v in c.items() if v is not None}


# (label, experiment, fields, field named, tokens the message must quote; where: spec,
# judge or both)
BAD_CASES = [
    ("unknown variable", "h", ub(prediction="0.6 * x"), "prediction", ["'x'"], "both"),
    ("choice parameter in where", "h", ub(where="weights > 0"), "where", ["'weights'", "choice parameter"], "both"),
    ("syntax error", "h", ub(prediction="n +* 2"), "prediction", ["syntax error", "'*'"], "both"),
    ("unknown function", "h", ub(prediction="sin(n)"), "prediction", ["sin"], "both"),
    ("unknown output", "h", ub(output="argmax_rnk"), "output", ["'argmax_rnk'"], "both"),
    ("unknown rule", "h", ub(rule="upper"), "rule", ["'upper'"], "both"),
    ("histogram output", "m", ub(output="sv_density"), "output", ["sv_density", "histogram"], "both"),
    ("per-layer output without element", "k", ub(output="mu"), "output", ["mu", "element"], "both"),
    ("element outside the layers", "k", ub(output="mu", element=100), "element", ["100"], "both"),
    ("element of a scalar output", "h", ub(element=2), "element", ["argmax_rank"], "both"),
    ("division by zero", "h", ub(prediction="n/(d_h-2)"), "prediction", ["'n/(d_h-2)'", "+inf", "d_h=2"], "both"),
    ("NaN: sqrt", "h", ub(prediction="sqrt(1 - n)"), "prediction", ["'sqrt(1 - n)'", "NaN", "n=8"], "both"),
    ("NaN: ln", "h", ub(prediction="ln(d_h - 4)"), "prediction", ["'ln(d_h - 4)'", "NaN", "d_h=2"], "both"),
    ("NaN in where", "h", ub(where="sqrt(d_h - 4)"), "where", ["'sqrt(d_h - 4)'", "NaN", "d_h=2"], "both"),
    ("empty where", "h", ub(where=""), "where", ["empty"], "both"),
    ("blank where", "h", ub(where="   "), "where", ["empty"], "spec"),
    ("where false everywhere", "h", ub(where="n > 1000"), "where", ["'n > 1000'", "false at every point"], "both"),
    ("equality without tolerance", "h", ub(rule="equality"), "tolerance", ["missing", "equality"], "both"),
    ("limit without tolerance", "h", ub(rule="limit", along="n"), "tolerance", ["missing", "limit"], "both"),
    ("tolerance to an upper bound", "h", ub(tolerance=0.5), "tolerance", ["upper_bound"], "both"),
    ("tolerance out of (0, 1)", "h", ub(rule="equality", tolerance=1.5), "tolerance", ["'1.5'"], "both"),
    # a spec's number quoted as written (before: '1.1000000000000001', its %.17g)
    ("tolerance 1.1", "h", ub(rule="equality", tolerance=1.1), "tolerance", ["'1.1'"], "both"),
    ("rate [0.3, 0.1]", "h", ub(rule="limit", along="n", tolerance=0.5, rate=[0.3, 0.1]), "rate", ["'0.3, 0.1'"],
     "spec"),
    ("rate out of range", "h", ub(rule="limit", along="n", tolerance=0.5, rate=20), "rate", ["20"], "both"),
    ("rate the wrong way round", "h", ub(rule="limit", along="n", tolerance=0.5, rate=[2.0, 0.5]), "rate",
     ["2", "0.5"], "both"),
    ("next_order 2", "h", ub(rule="limit", along="n", tolerance=0.5, next_order=2), "next_order", ["'2'", "must be 1"],
     "both"),
    ("next_order to a bound", "h", ub(next_order=1), "next_order", ["limit and log_slope", "upper_bound"], "both"),
    ("along not swept", "h", ub(rule="increasing", prediction=None, along="d"), "along", ["'d'", "not swept"],
     "both"),
    ("along unknown", "h", ub(rule="increasing", prediction=None, along="zz"), "along", ["'zz'"], "both"),
    ("along missing", "h", ub(rule="increasing", prediction=None), "along", ["missing"], "both"),
    ("along a choice parameter", "m", ub(output="stable_rank", rule="limit", tolerance=0.5, along="entries"),
     "along", ["'entries'"], "spec"),
    ("versus equal to along", "h", ub(rule="steeper", prediction=None, along="n", versus="n"), "versus",
     ["'n'", "along"], "both"),
    ("versus to another rule", "h", ub(versus="d_h"), "versus", ["steeper"], "both"),
    ("built-in claim's id", "h", ub(id="H1"), "id", ["'H1'", "built-in"], "both"),
    ("another family's claim id", "h", ub(id="S4"), "id", ["'S4'", "built-in"], "both"),
    ("duplicate id", "h", ub(id="ok1"), "id", ["'ok1'", "given twice"], "both"),
    ("bad id", "h", ub(id="1abc"), "id", ["'1abc'"], "both"),
    ("id too long", "h", ub(id="a234567890123456"), "id", ["'a234567890123456'"], "both"),
    ("unknown field", "h", ub(foo=1), "foo", ["'foo'", "unknown field"], "both"),
    ("expect invalid", "h", ub(expect="SURE"), "expect", ["'SURE'"], "both"),
    ("expect MEASURED for a bound", "h", ub(expect="MEASURED"), "expect", ["MEASURED"], "both"),
    # the message quotes the character (before: "must be printable ASCII without quotes
    # or backslashes", no token)
    ("text with a quote", "h", ub(statement='say "hi" now'), "statement", ["character 5", "is '\"'"], "both"),
    ("text with a backslash", "h", ub(statement="a \\ b"), "statement", ["character 3", "is '\\'"], "both"),
    ("text with a tab", "h", ub(statement="a\tb"), "statement", ["character 2", "byte 0x09"], "judge"),
    ("formula with a quote", "h", ub(prediction='n + "1"'), "prediction", ["character 5", "is '\"'"], "both"),
    ("missing id", "h", {k: v for k, v in ub().items() if k != "id"}, "id", ["missing"], "both"),
    ("missing rule", "h", {k: v for k, v in ub().items() if k != "rule"}, "rule", ["missing"], "both"),
    ("missing prediction", "h", ub(prediction=None), "prediction", ["missing", "upper_bound"], "both"),
    ("experiment in a run spec", "h", ub(experiment="h"), "experiment", ["'experiment'", "unknown field"], "spec"),
    ("prediction a number", "h", ub(prediction=3), "prediction", ["must be a string"], "spec"),
    ("tolerance a string", "h", ub(rule="equality", tolerance="0.1"), "tolerance", ["must be a number"], "spec"),
    ("unknown experiment", "h", ub(experiment="nope"), "experiment", ["'nope'"], "judge"),
    ("ambiguous output", "m", ub(output="stable_rank", prediction="2"), "experiment",
     ["stable_rank", "m", "m2"], "judge"),
    ("output of no experiment", "h", ub(output="rate_ratio_x"), "output", ["'rate_ratio_x'"], "judge"),
    ("not key=value", "h", None, "field", ["'bogus'"], "judge"),
    ("field given twice", "h", None, "id", ["twice"], "judge"),
]


def judge_line(label, experiment, fields):
    if label == "not key=value":
        return "id=a; bogus"
    if label == "field given twice":
        return "id=a; id=b; output=argmax_rank; rule=upper_bound; prediction=n"
    fields = dict(fields)
    # the markov experiments share their outputs: name the one meant (but where the
    # ambiguity is the case under test)
    if experiment in ("m", "m2") and "experiment" not in fields and label != "ambiguous output":
        fields["experiment"] = experiment
    return line_of(fields)


def case_bad_catalogue(tmp):
    """Every bad conjecture, in a spec (run refuses it before anything runs: exit 2, no
    output nor partial) and as a --conjecture string (judge: exit 2), in one stderr line
    naming the place (file:line, "--conjecture N"), the field and the offending token."""
    base_text, _ = bad_spec(None, None)
    base_text = base_text.replace(group(GOOD), group(GOOD) + ",\n      " + group(
        {"id": "st1", "output": "argmax_rank", "rule": "lower_bound", "prediction": "1"}))
    base = f"{tmp}/base.h5"
    proc = run(["run", write(f"{tmp}/base.cfg", base_text), "-o", base, "-q"])
    check(proc.returncode in (0, 4), f"base run: exit {proc.returncode}: {proc.stderr}")
    before = digest(base)
    tried = 0
    for label, experiment, fields, field, tokens, where in BAD_CASES:
        if where in ("spec", "both"):
            text, at = bad_spec(experiment, group(fields))
            spec = write(f"{tmp}/bad.cfg", text)
            try:
                proc = refused_run(tmp, spec, f"bad.cfg:{at}:", *tokens)
                check(f" {field}: " in proc.stderr or f"'{field}'" in proc.stderr, f"{field} not named")
            except test_cli.Failure as failure:
                raise test_cli.Failure(f"{label} (spec): {failure}") from None
            tried += 1
        if where in ("judge", "both"):
            try:
                proc = refused_judge([base, "--conjecture", line_of(GOOD | {"id": "ok2"}), "--conjecture",
                                      judge_line(label, experiment, fields)], "--conjecture 2:", *tokens)
                check(f" {field}: " in proc.stderr or f"'{field}'" in proc.stderr, f"{field} not named")
            except test_cli.Failure as failure:
                raise test_cli.Failure(f"{label} (judge): {failure}") from None
            tried += 1
    # a conjecture the file already holds, and two strings with one id
    refused_judge([base, "--conjecture", line_of(GOOD | {"id": "st1"})], "--conjecture 1:", "id", "'st1'",
                  "given twice")
    twin = line_of(GOOD | {"id": "twin"})
    refused_judge([base, "--conjecture", twin, "--conjecture", twin], "--conjecture 2:", "id", "'twin'", "given twice")
    # at most AR_MAX_CLAIMS (32) claims and conjectures in an experiment
    held = sum(1 for key in verdict_rows(base) if key[1] == "h")
    many = [x for i in range(40 - held) for x in ("--conjecture", line_of(GOOD | {"id": f"c{i + 1}"}))]
    refused_judge([base, *many], f"--conjecture {32 - held + 1}:", "at most 32 claims and conjectures")
    text, _ = bad_spec("h", ",\n      ".join(group(ub(id=f"c{i}")) for i in range(40)))
    refused_run(tmp, write(f"{tmp}/many.cfg", text), "many.cfg:", "at most 32 claims and conjectures")
    # conjecture files that are not one
    refused_judge([base, "--conjectures", write(f"{tmp}/json.cfg", '{"conjectures": []}\n')], "json.cfg:1",
                  "not a valid libconfig file")
    refused_judge([base, "--conjectures", write(f"{tmp}/other.cfg", 'conjectures = ();\nseed = 1;\n')],
                  "other.cfg:2", "seed", "unknown field")
    refused_judge([base, "--conjectures", write(f"{tmp}/none.cfg", '# nothing\n')], "none.cfg", "conjectures",
                  "missing")
    refused_judge([base, "--conjectures", f"{tmp}/absent.cfg"], "absent.cfg")
    refused_judge([base, "--conjectures", tmp], tmp)
    refused_judge([base, "--conjectures", write(f"{tmp}/c1.cfg", "conjectures = ();\n"), "--conjectures",
                   f"{tmp}/c1.cfg"], "--conjectures once")
    refused_judge([base, "--conjecture"], "--conjecture")
    refused_judge([base, "--frobnicate"], "--frobnicate")
    refused_judge([], "one result FILE")
    refused_judge([f"{tmp}/base.cfg"], "base.cfg")
    tried += 14
    check(digest(base) == before, "a refused judge modified the file")
    # judge refuses an incomplete file: a shard, and a partial file after SIGTERM
    shard = f"{tmp}/shard.h5"
    run(["run", f"{tmp}/base.cfg", "-o", shard, "--shard", "0/2", "-q"], expect=0)
    refused_judge([shard], "shard.h5", "incomplete run")
    refused_judge([shard, "--conjecture", line_of(GOOD | {"id": "ok2"})], "shard.h5", "incomplete run")
    slow = write(f"{tmp}/slow.cfg", test_cli.SLOW_SPEC)  # 2-4 s here
    interrupted(slow, f"{tmp}/slow.h5", (0.8, 0.4, 0.2, 0.1))
    partial = f"{tmp}/slow.h5.partial"
    before = digest(partial)
    refused_judge([partial], "slow.h5.partial", "incomplete run")
    refused_judge([partial, "-o", f"{tmp}/slow_copy.h5"], "slow.h5.partial", "incomplete run")
    check(digest(partial) == before and not os.path.exists(f"{tmp}/slow_copy.h5"), "judge of a partial wrote")
    tried += 4
    print(f"{tried} bad conjectures and judge inputs, each refused in one line")


# ---- 3. judge -o COPY ---------------------------------------------------------------

COPY_SPEC = """seed = 23;
experiments = (
  { name = "h"; simulator = "hardmax_rank"; trials = 200; n = [8, 16, 32]; d_h = [1, 2, 8]; claims = ["H1", "H3"]; },
  { name = "spec"; simulator = "markov_spectrum"; trials = 10; spectrum = "top2"; n = [8, 16]; claims = []; }
);
"""
R06 = {"id": "r06", "output": "argmax_rank", "rule": "lower_bound", "prediction": "0.3 * n - 2", "where": "d_h >= 4"}


def case_judge_copy(tmp):
    """judge -o COPY: FILE untouched; COPY holds the conjecture's theory (kind
    "conjecture", the formula's values), its /verdicts rows, FILE's data bit for bit;
    info and judge read it; existing COPY and COPY = FILE refused; exit status from the
    verdicts."""
    spec = write(f"{tmp}/copy.cfg", COPY_SPEC)
    src = f"{tmp}/src.h5"
    run(["run", spec, "-o", src, "-q"], expect=0)
    before = digest(src)
    copy = f"{tmp}/copy.h5"
    ub = {"id": "ub", "output": "argmax_rank", "rule": "upper_bound", "prediction": "min(n, 5 * d_h)"}
    sr = {"id": "sr", "output": "stable_rank", "rule": "lower_bound", "prediction": "1"}
    made = run(["judge", src, "-o", copy, "--conjecture", line_of(R06), "--conjecture", line_of(ub),
                "--conjecture", line_of(sr)], expect=0)
    check(digest(src) == before, "judge -o modified FILE")
    check(f"copy with the conjectures: {copy}" in made.stdout, f"judge -o says where the copy is: {made.stdout[-300:]}")
    check(not [f for f in os.listdir(tmp) if f.startswith("copy.h5.")], f"left beside COPY: {os.listdir(tmp)}")
    with h5py.File(copy, "r") as f, h5py.File(src, "r") as g:
        n = f["h/n"][...].astype(float)[:, None]
        d_h = f["h/d_h"][...].astype(float)[None, :]
        theory = f["h/theory/r06"]
        check(theory.attrs["kind"] == "conjecture", f"theory/r06 kind {theory.attrs['kind']!r}")
        check(theory.attrs["formula"] == "0.3 * n - 2 where d_h >= 4", f"formula {theory.attrs['formula']!r}")
        check(theory.attrs["output"] == "argmax_rank", "theory output attribute")
        want = np.where(d_h >= 4, 0.3 * n - 2, np.nan)  # the same IEEE operations as the formula
        got = theory[...]
        check(np.array_equal(got, want, equal_nan=True), f"theory/r06 {got} != {want}")
        got = f["h/theory/ub"][...]
        check(np.array_equal(got, np.minimum(n, 5 * d_h)), f"theory/ub {got}")
        check("r06" not in g["h/theory"], "FILE gained the conjecture")
        rows = {(r["claim"].decode(), r["experiment"].decode()): r for r in f["verdicts"][...]}
        old = {(r["claim"].decode(), r["experiment"].decode()): r for r in g["verdicts"][...]}
        check(list(rows) == list(old)[:2] + [("r06", "h"), ("ub", "h")] + list(old)[2:] + [("sr", "spec")],
              f"COPY's verdict rows {list(rows)}")
        check(np.array_equal(f["spec/theory/sr"][...], np.ones(2)), "theory/sr")
        for key, row in old.items():
            for field in row.dtype.names:
                if field not in ("note", "note_kind", "implied_by"):  # a new bound may imply an old one
                    check(row[field].tobytes() == rows[key][field].tobytes(), f"{key}: {field} changed in COPY")
        check(rows[("r06", "h")]["verdict"] == b"HOLDS" and rows[("ub", "h")]["verdict"] == b"HOLDS",
              f"conjecture verdicts {rows[('r06', 'h')]['verdict']} {rows[('ub', 'h')]['verdict']}")
        check(rows[("r06", "h")]["statement"].decode() == "E[argmax_rank] >= 0.3 * n - 2 where d_h >= 4",
              "default statement")
        check("conjectures" in f.attrs["spec_canonical"] and "r06" in f.attrs["spec_canonical"],
              "COPY's stored spec holds the conjectures")
    # every dataset but the new theory and the verdicts, bit for bit
    a, b = test_cli.datasets(src), test_cli.datasets(copy)
    new = {k for k in b if k not in a}
    check(new == {"h/theory/r06", "h/theory/ub", "spec/theory/sr"}, f"COPY's new datasets {new}")
    differ = [k for k in a if k != "verdicts" and a[k] != b[k]]
    check(not differ, f"COPY's datasets differ from FILE's: {differ}")
    h5diff_groups(src, copy, ["/spec/stable_rank", "/h/argmax_rank", "/h/n", "/h/d_h", "/h/done"])
    info = run(["info", copy], expect=0).stdout
    check("r06" in info and "ub" in info and "conjecture" in info, f"info lists the conjectures: {info}")
    again = run(["judge", copy], expect=0)
    check(again.stdout.split("\njudged:")[0] == made.stdout.split("\njudged:")[0],
          f"judge COPY prints another table:\n{again.stdout}\n{made.stdout}")
    # COPY exists: refused without --force, replaced with it
    copied = digest(copy)
    refused_judge([src, "-o", copy, "--conjecture", line_of(R06)], "copy.h5", "--force")
    check(digest(copy) == copied, "a refused -o altered COPY")
    run(["judge", src, "-o", copy, "--force", "--conjecture", line_of(ub)], expect=0)
    with h5py.File(copy, "r") as f:
        check("ub" in f["h/theory"] and "r06" not in f["h/theory"], "--force replaced COPY")
    # COPY = FILE, by the same name, another spelling, or a link: refused, with or without --force
    os.symlink(src, f"{tmp}/link.h5")
    for target in (src, f"{tmp}/./src.h5", f"{tmp}/link.h5"):
        for force in ([], ["--force"]):
            refused_judge([src, "-o", target, *force, "--conjecture", line_of(R06)], "is FILE itself")
    refused_judge([f"{tmp}/link.h5", "-o", src, "--force"], "is FILE itself")
    check(digest(src) == before, "judge -o FILE modified FILE")
    # the exit status follows the verdicts
    low = {"id": "low", "output": "argmax_rank", "rule": "upper_bound", "prediction": "0.1 * n"}
    proc = run(["judge", src, "--conjecture", line_of(low)], expect=1)
    check(rows_of(proc.stdout)[("low", "h")].split()[2] == "VIOLATED", "a bound below the data is VIOLATED")
    check("differ from what the spec expects" in proc.stdout, "exit 1 explained")
    run(["judge", src, "--conjecture", line_of(low | {"expect": "VIOLATED"})], expect=0)
    # H3's formula with a tolerance the interval cannot meet: consistent, undecided
    tight = {"id": "tight", "output": "argmax_rank", "rule": "equality", "prediction": "2 - 2^(1 - n)",
             "where": "d_h == 1", "tolerance": 0.001}
    proc = run(["judge", src, "--conjecture", line_of(tight)], expect=4)
    check(rows_of(proc.stdout)[("tight", "h")].split()[2] == "INCONCLUSIVE", "tight equality undecided")
    run(["judge", src, "--conjecture", line_of(tight | {"expect": "INCONCLUSIVE"})], expect=0)
    run(["judge", src, "--conjecture", line_of(low), "--conjecture", line_of(tight)], expect=1)
    # -o with a VIOLATED conjecture: the copy is written, the status is 1
    run(["judge", src, "-o", f"{tmp}/violated.h5", "--conjecture", line_of(low)], expect=1)
    check(verdict_rows(f"{tmp}/violated.h5")[("low", "h")]["verdict"] == b"VIOLATED", "COPY's VIOLATED row")
    check(digest(src) == before, "FILE modified")


# ---- 4. --conjectures CFILE -------------------------------------------------------------

TWO_SPEC = """seed = 29;
experiments = (
  { name = "a"; simulator = "hardmax_rank"; trials = 100; n = [8, 16]; d_h = [1, 4]; },
  { name = "b"; simulator = "hardmax_rank"; trials = 100; n = [8, 32]; d_h = 2; claims = ["H1"]; }
);
"""

CFILE = """# conjectures about two experiments of one simulator
conjectures = (
  { experiment = "a"; id = "ca"; output = "argmax_rank"; rule = "upper_bound";
    prediction = "(1 - exp(-1)) * n + 1"; },
  { experiment = "b"; id = "cb"; output = "argmax_rank"; rule = "lower_bound"; prediction = "1"; },
  { experiment = "b"; id = "ca"; output = "argmax_rank"; rule = "increasing"; along = "n";
    statement = "rank rises with n"; }
);
"""


def case_conjecture_file(tmp):
    """--conjectures CFILE with experiment = NAME for a two-experiment file: each
    conjecture judged in its experiment; errors carry CFILE:line."""
    src = f"{tmp}/two.h5"
    run(["run", write(f"{tmp}/two.cfg", TWO_SPEC), "-o", src, "-q"], expect=0)
    before = digest(src)
    cfile = write(f"{tmp}/mine.cfg", CFILE)
    proc = run(["judge", src, "--conjectures", cfile], expect=0)
    rows = rows_of(proc.stdout)
    check(list(rows) == [("H1", "a"), ("H2", "a"), ("H3", "a"), ("ca", "a"), ("H1", "b"), ("cb", "b"), ("ca", "b")],
          f"rows {list(rows)}")
    check(rows[("ca", "a")].split()[2:4] == rows[("H1", "a")].split()[2:4], "ca restates H1 in a")
    check(rows[("ca", "b")].split()[3] == "HOLDS" and "increasing" in rows[("ca", "b")], rows[("ca", "b")])
    said = statements(proc.stdout)
    check(said[-2:] == ["  ca       E[argmax_rank] <= (1 - exp(-1)) * n + 1",
                        "  cb       E[argmax_rank] >= 1"], f"statements {said}")
    # the same as --conjecture strings, and both together (a file, then strings)
    strings = ["experiment=a; id=ca; output=argmax_rank; rule=upper_bound; prediction=(1 - exp(-1)) * n + 1",
               "experiment=b; id=cb; output=argmax_rank; rule=lower_bound; prediction=1",
               "experiment=b; id=ca; output=argmax_rank; rule=increasing; along=n; statement=rank rises with n"]
    by_strings = run(["judge", src] + [x for s in strings for x in ("--conjecture", s)], expect=0)
    check(table(by_strings.stdout) == table(proc.stdout), "CFILE and --conjecture strings judge alike")
    extra = "id=cc; output=argmax_rank; rule=upper_bound; prediction=n; experiment=a"
    both = run(["judge", src, "--conjectures", cfile, "--conjecture", extra], expect=0)
    check(("cc", "a") in rows_of(both.stdout), "--conjecture with --conjectures")
    refused_judge([src, "--conjectures", cfile, "--conjecture", extra.replace("cc", "cb").replace("=a", "=b")],
                  "--conjecture 1:", "'cb'", "given twice")
    # a quoted value may hold ';' (before: "'at most n'' is not key=value")
    quoted_line = extra + "; statement='rank; at most n' ;where = \"d_h >= 4\""
    said = run(["judge", src, "--conjecture", quoted_line], expect=0).stdout
    check(any(line.split()[:1] == ["cc"] and line.endswith("rank; at most n") for line in statements(said)),
          f"a quoted ';': {statements(said)}")
    check(rows_of(said)[("cc", "a")].split()[-1] == "d_h=4", f"where after a quoted ';': {rows_of(said)}")
    # -o: COPY holds them in both experiments; judge COPY repeats the table
    copy = f"{tmp}/copy.h5"
    run(["judge", src, "--conjectures", cfile, "-o", copy], expect=0)
    rows = verdict_rows(copy)
    check(rows[("ca", "b")]["statement"] == b"rank rises with n", "a conjecture's own statement stored")
    with h5py.File(copy, "r") as f:
        for exp, ids in (("a", ["ca"]), ("b", ["cb", "ca"])):
            for i in ids:
                check(f[f"{exp}/theory/{i}"].attrs["kind"] == "conjecture", f"{exp}/theory/{i}")
    check(table(run(["judge", copy], expect=0).stdout) == table(proc.stdout), "judge COPY")
    # errors name CFILE and the line
    def bad(text, *parts):
        refused_judge([src, "--conjectures", write(f"{tmp}/bad.cfg", text)], *parts)
    lines = CFILE.splitlines()
    bad("\n".join(lines[:4] + ['  { experiment = "b"; id = "cb"; output = "argmax_rank"; rule = "lower_bound";',
                               '    prediction = "1 + q"; }', ");"]) + "\n", "bad.cfg:6:", "prediction", "'q'")
    bad(CFILE.replace('experiment = "b"; id = "cb"', 'experiment = "zz"; id = "cb"'), "bad.cfg:5:", "experiment",
        "'zz'", "a, b")
    bad(CFILE.replace('experiment = "b"; id = "cb"; ', 'id = "cb"; '), "bad.cfg:5:", "experiment", "argmax_rank",
        "say which")
    bad(CFILE.replace('experiment = "a"; id = "ca"', 'experiment = "a"; id = "H2"'), "bad.cfg:3:", "id", "'H2'")
    bad(CFILE.replace('along = "n"', 'along = "d_h"'), "bad.cfg:6:", "along", "'d_h'", "not swept")
    bad(CFILE.replace("rule = \"lower_bound\"", "rule = \"lower_bound\"; seed = 3"), "bad.cfg:5:", "'seed'")
    bad("seed = 1;\n" + CFILE, "bad.cfg:1:", "seed")
    bad(CFILE.replace(");", ""), "bad.cfg:", "not a valid libconfig file")
    bad("conjectures = { id = \"x\"; };\n", "bad.cfg:1:", "conjectures", "must be a list")
    bad("conjectures = ( \"x\" );\n", "bad.cfg:", "conjectures", "must be a group")
    write(f"{tmp}/part.cfg", '  { experiment = "a"; id = "inc"; output = "argmax_rank";\n'
                             '    rule = "upper_bound"; prediction = "n * y"; }\n')
    bad('conjectures = (\n@include "part.cfg"\n);\n', "part.cfg:2:", "prediction", "'y'")
    check(digest(src) == before, "judge modified FILE")


# ---- 5. every rule kind through SIGTERM, --resume and the canonical spec ---------------

ROUND_SPEC = """seed = 31;
experiments = (
  { name = "slow"; simulator = "hardmax_rank"; trials = 400; sampler = "faithful";
    n = [16, 32, 64, 128]; d_h = [1, 4, 16, 64];
    claims = ["H1", "H2"];
    conjectures = (
      { id = "ub"; output = "argmax_rank"; rule = "upper_bound"; prediction = "(1 - 1/e) * n + 1"; },
      { id = "lb"; output = "argmax_rank"; rule = "lower_bound"; prediction = "1"; where = "d_h >= 4"; },
      { id = "eq"; output = "argmax_rank"; rule = "equality"; prediction = "2 - 2^(1 - n)"; where = "d_h == 1";
        tolerance = 0.05; },
      { id = "lim_fixed"; output = "argmax_rank"; rule = "limit"; prediction = "n * (1 - (1 - 1/n)^n)";
        along = "d_h"; tolerance = 0.05; rate = 1; where = "n <= 32"; },
      { id = "lim_range"; output = "argmax_rank"; rule = "limit"; prediction = "n * (1 - (1 - 1/n)^n)";
        along = "d_h"; tolerance = 0.1; rate = [0.5, 1.5]; },
      { id = "lim_default"; output = "argmax_rank"; rule = "limit"; prediction = "n * (1 - (1 - 1/n)^n)";
        along = "d_h"; tolerance = 0.1; },
      { id = "slope"; output = "argmax_rank"; rule = "log_slope"; prediction = "1"; along = "n";
        tolerance = 0.3; where = "d_h >= 16"; },
      { id = "dec"; output = "h2_deficit"; rule = "decreasing"; along = "d_h"; },
      { id = "inc"; output = "argmax_rank"; rule = "increasing"; along = "n"; where = "d_h > 1"; },
      { id = "st"; output = "argmax_rank"; rule = "steeper"; along = "n"; versus = "d_h"; },
      { id = "every"; output = "argmax_rank"; rule = "every_trial"; prediction = "n"; },
      { id = "wit"; output = "argmax_rank"; rule = "witness"; prediction = "1"; expect = "HOLDS";
        statement = "some trial's rank exceeds one"; },
      { id = "meas"; output = "h2_deficit"; rule = "measure"; },
      { id = "meas_f"; output = "argmax_rank"; rule = "measure"; prediction = "0.5 * n"; where = "n >= 32";
        expect = "MEASURED"; }
    );
  },
  { name = "layers"; simulator = "mask_dynamics"; trials = 10; n = [8, 16]; layers = 12;
    conjectures = (
      { id = "last"; output = "mu_rel"; rule = "upper_bound"; prediction = "1.5"; element = -1; },
      { id = "first"; output = "mu_rel"; rule = "lower_bound"; prediction = "0.01"; element = 0;
        expect = "INCONCLUSIVE"; statement = "mu_rel starts 'above' 1% (said to be undecided)"; }
    );
  }
);
"""

ROUND_IDS = ["ub", "lb", "eq", "lim_fixed", "lim_range", "lim_default", "slope", "dec", "inc", "st", "every", "wit",
             "meas", "meas_f", "last", "first"]


def case_canonical_roundtrip(tmp):
    """Conjectures of every rule kind: a run stopped by SIGTERM and resumed gives the
    uninterrupted run's file; the stored canonical spec re-reads to the same conjectures
    (same canonical text and hash when judge copies it, the same verdicts)."""
    spec = write(f"{tmp}/round.cfg", ROUND_SPEC)
    ref = f"{tmp}/ref.h5"
    t0 = time.monotonic()
    first = run(["run", spec, "-o", ref, "-q"])
    full = time.monotonic() - t0
    check(first.returncode in (0, 1, 4), f"run: exit {first.returncode}: {first.stderr}")
    ran = rows_of(first.stdout)
    for i in ROUND_IDS:
        check(any(key[0] == i for key in ran), f"conjecture {i} not judged: {first.stdout}")
    check(ran[("meas", "slow")].split()[2] == "MEASURED", "a measurement is MEASURED")
    with h5py.File(ref, "r") as f:
        canonical = f.attrs["spec_canonical"]
        spec_hash = f.attrs["spec_hash"]
        for i in ROUND_IDS:
            check(i in canonical, f"{i} not in the canonical spec")
        check("rate = [0.5, 1.5];" in canonical and "rate = 1.0;" in canonical, f"rates: {canonical}")
        check("element = -1;" in canonical and "element = 0;" in canonical, "elements")
        check("first = \"INCONCLUSIVE\";" in canonical, "an expectation in the canonical spec")
    # stopped by SIGTERM, resumed: the uninterrupted file
    out = f"{tmp}/resumed.h5"
    err = interrupted(spec, out, [f * full for f in (0.4, 0.2, 0.1, 0.05)])
    check("--resume" in err, f"SIGTERM message: {err}")
    resumed = run(["run", spec, "-o", out, "--resume", "-q"])
    check(resumed.returncode == first.returncode, f"resume: exit {resumed.returncode}: {resumed.stderr}")
    check(table(resumed.stdout) == table(first.stdout), "resumed verdicts differ")
    h5diff_groups(ref, out, ["/slow", "/layers", "/verdicts"])
    same_datasets(ref, out)
    with h5py.File(out, "r") as f:
        check(f.attrs["spec_canonical"] == canonical and f.attrs["spec_hash"] == spec_hash, "resumed spec")
    # shards re-read the stored spec to merge: the same file again
    shards = [f"{tmp}/shard{i}.h5" for i in range(2)]
    for i, path in enumerate(shards):
        proc = run(["run", spec, "-o", path, "--shard", f"{i}/2", "-q"], expect=0)
    merged = run(["merge", "-o", f"{tmp}/merged.h5", *shards])
    check(merged.returncode == first.returncode, f"merge: exit {merged.returncode}: {merged.stderr}")
    check(table(merged.stdout) == table(first.stdout), "the merged verdicts differ")
    same_datasets(ref, f"{tmp}/merged.h5")
    # the canonical spec read back: judge re-reads it; its copy stores what it re-wrote
    judged = run(["judge", ref])
    check(judged.returncode == first.returncode, f"judge exit {judged.returncode}")
    check(table(judged.stdout) == table(first.stdout), "judge of the stored spec printed other verdicts:\n"
          + "\n".join(table(judged.stdout)) + "\n--- run:\n" + "\n".join(table(first.stdout)))
    check(statements(judged.stdout) == statements(first.stdout), "statements differ after the round trip")
    # mutants of every rule kind: a row per conjecture, cells where a rule has them
    mutants = mutant_rows(run(["judge", ref, "--mutants"]).stdout)
    for i in ROUND_IDS:
        check(any(key[0] == i for key in mutants), f"no mutant row for {i}")
    check(mutants[("dec", "slow")][2] == "reversed:K", f"dec's reversed trend: {mutants[('dec', 'slow')]}")
    check(mutants[("eq", "slow")][2:8] == ["-2%:K", "+2%:K", "-5%:K", "+5%:K", "-10%:K", "+10%:K"],
          f"eq's mutants: {mutants[('eq', 'slow')]}")
    check(mutants[("meas", "slow")][2] == "-" and mutants[("wit", "slow")][2] == "-", "nothing to perturb")
    copy = f"{tmp}/copy.h5"
    run(["judge", ref, "-o", copy])
    with h5py.File(copy, "r") as f:
        check(f.attrs["spec_canonical"] == canonical, "the canonical spec changed on re-reading:\n"
              + f.attrs["spec_canonical"] + "\n---\n" + canonical)
        check(f.attrs["spec_hash"] == spec_hash, "spec hash changed on re-reading")
    same_datasets(ref, copy)
    # the canonical spec as a spec file: the same spec (resume finds the file complete)
    canon = write(f"{tmp}/canonical.cfg", canonical)
    proc = run(["run", canon, "-o", ref, "--resume", "-q"], expect=2)
    one_line_error(proc, "already complete")
    plan = run(["plan", canon], expect=0).stdout
    check("slow" in plan and "layers" in plan, f"plan of the canonical spec: {plan}")


# ---- 6. after the referee's review (aef9165) --------------------------------------------

# A small hardmax experiment to judge --conjecture strings against.
REVIEW_H = 'name = "h"; simulator = "hardmax_rank"; trials = 40; n = [8, 16]; d_h = [2, 8]; claims = [];'


def review_file(tmp, body=REVIEW_H, name="review"):
    """A finished run of one experiment (body), to judge conjectures against."""
    out = f"{tmp}/{name}.h5"
    proc = run(["run", write(f"{tmp}/{name}.cfg", f"seed = 41;\nexperiments = (\n  {{ {body} }}\n);\n"), "-o", out,
                "-q"])
    check(proc.returncode in (0, 1, 4), f"run {name}: exit {proc.returncode}: {proc.stderr}")
    return out, proc


def one_experiment(body, conjectures):
    """A spec of one experiment (body) with the conjectures, the first on line 5."""
    return ("seed = 41;\nexperiments = (\n  { " + body + "\n    conjectures = (\n      "
            + ",\n      ".join(group(c) for c in conjectures) + "\n    );\n  }\n);\n")


SAME_FIELDS = ("verdict", "point", "resolution", "resolution_kind", "trials", "points", "loose", "excludes",
               "rule_kind", "failed", "empty_points", "fit_lines", "fit_sizes", "fit_dof", "fit_rate_profiled",
               "fit_b", "fit_undecided", "rule", "note", "note_kind", "implied_by")


def same_rows(a, b, what):
    """Two /verdicts rows judged alike: every field but the ids and the statement."""
    for field in SAME_FIELDS:
        check(a[field] == b[field], f"{what}: {field} {a[field]!r} != {b[field]!r}")
    for field in ("prediction", "estimate", "ci_lo", "ci_hi", "fit_chi2", "resolution_value", "resolution_lo",
                  "resolution_hi"):
        check(same_number(a[field], b[field]), f"{what}: {field} {a[field]!r} != {b[field]!r}")


LIMIT_ALONG_D = {"id": "lim_d", "output": "argmax_rank", "rule": "limit", "prediction": "1000", "tolerance": 0.01,
                 "along": "d", "rate": 1}


def case_axis_not_positive(tmp):
    """A limit or log slope along an axis with a value <= 0 (hardmax_rank's d = 0, which
    means d = n; rho < 0 with correlated weights) is refused, in a spec and on judge's
    command line, naming the point; a where that leaves the point out is judged. Before:
    accepted, and the NaN fit's empty interval [inf, -inf] said HOLDS to prediction 1000."""
    zero = 'name = "z"; simulator = "hardmax_rank"; trials = 20; n = 16; d = [0, 16, 32, 64]; d_h = 4; claims = [];'
    refused_run(tmp, write(f"{tmp}/zero.cfg", one_experiment(zero, [LIMIT_ALONG_D])), "zero.cfg:5:",
                "conjectures: along:", "d = 0 at the point d=0", "rule limit extrapolates c + a d^-b",
                "defined for d > 0 only")
    slope = {"id": "sl_d", "output": "argmax_rank", "rule": "log_slope", "prediction": "1", "tolerance": 0.1,
             "along": "d"}
    refused_run(tmp, write(f"{tmp}/slope.cfg", one_experiment(zero, [slope])), "slope.cfg:5:",
                "along:", "d = 0 at the point d=0", "rule log_slope")
    rho = ('name = "r"; simulator = "hardmax_rank"; trials = 20; n = 8; d_h = 4; weights = "correlated"; '
           'rho = [-0.5, 0.25, 0.5, 1.0]; claims = [];')
    lim_rho = LIMIT_ALONG_D | {"id": "lim_rho", "along": "rho", "rate": [0.5, 1.5]}
    refused_run(tmp, write(f"{tmp}/rho.cfg", one_experiment(rho, [lim_rho])), "rho.cfg:5:", "along:",
                "rho = -0.5 at the point rho=-0.5", "defined for rho > 0 only")
    # judge: the same conjecture against a finished file
    src, _ = review_file(tmp, zero, "zero_run")
    before = digest(src)
    refused_judge([src, "--conjecture", line_of(LIMIT_ALONG_D)], "--conjecture 1:", "along:",
                  "d = 0 at the point d=0", "d > 0 only")
    refused_judge([src, "--conjecture", line_of(slope)], "--conjecture 1:", "along:", "d = 0 at the point d=0")
    # a where that leaves d = 0 out: judged on d = 16, 32, 64, and 1000 is no limit of ranks near 5
    proc = run(["judge", src, "--conjecture", line_of(LIMIT_ALONG_D | {"where": "d > 0"})], expect=1)
    row = rows_of(proc.stdout)[("lim_d", "z")]
    check(row.split()[2] == "VIOLATED", f"limit 1000 where d > 0: {row}")
    check(digest(src) == before, "judge modified the file")


def case_undecided_limit_shown(tmp):
    """A limit with too few sizes (S4 with --set making n two values, and a conjecture
    restating it) is INCONCLUSIVE with no estimate and no resolution: '-' in the table,
    NaN and kind none in /verdicts. Before: '0 [0, 0]' and 'no prediction would hold'.
    (S4 and its conjecture both with the model's next order, next_order = 1.)"""
    body = ('name = "m"; simulator = "markov_spectrum"; trials = 10; spectrum = "top2"; entries = "exponential"; '
            'n = [8, 16, 32, 64]; claims = ["S4"];')
    conj = {"id": "cS4", "output": "stable_rank", "rule": "limit", "prediction": "2", "tolerance": 0.01, "along": "n",
            "rate": 1, "next_order": 1}
    spec = write(f"{tmp}/s4.cfg", one_experiment(body, [conj]))
    out = f"{tmp}/s4.h5"
    proc = run(["run", spec, "-o", out, "-q", "--set", "m.n=[8,16]"], expect=4)
    for ran in (proc.stdout, run(["judge", out], expect=4).stdout):
        rows = rows_of(ran)
        for claim in ("S4", "cS4"):
            row = rows[(claim, "m")]
            check("no prediction would hold" not in row and "0 [0, 0]" not in row, f"{claim}: {row}")
            words = row.split()
            # claim experiment verdict expected prediction estimate trials resolution note point
            check(words[2] == "INCONCLUSIVE" and words[5] == "-" and words[7] == "-",
                  f"{claim}: estimate and resolution not '-': {row}")
    stored = verdict_rows(out)
    for claim in ("S4", "cS4"):
        r = stored[(claim, "m")]
        what = f"/verdicts {claim}"
        check(r["verdict"] == b"INCONCLUSIVE" and r["fit_undecided"] == b"too few sizes", f"{what}: {r}")
        check(all(math.isnan(r[f]) for f in ("estimate", "ci_lo", "ci_hi")), f"{what}: estimate {r['estimate']} "
              f"[{r['ci_lo']}, {r['ci_hi']}]")
        check(r["resolution_kind"] == b"none" and r["resolution"] == b"-", f"{what}: resolution "
              f"{r['resolution_kind']!r} {r['resolution']!r}")
        check(all(math.isnan(r[f]) for f in ("resolution_value", "resolution_lo", "resolution_hi")),
              f"{what}: resolution numbers {r['resolution_lo']} {r['resolution_hi']}")
    same_rows(stored[("S4", "m")], stored[("cS4", "m")], "S4 and cS4")


def case_trend_needs_two_points(tmp):
    """A trend or limit whose where (or whose output, measured only at some points) leaves
    no line along its axis with two points is refused, in a spec and on judge's command
    line. Before: accepted, and NOT RUN."""
    src, _ = review_file(tmp)
    before = digest(src)
    cases = [
        ({"id": "inc", "output": "argmax_rank", "rule": "increasing", "along": "d_h", "where": "d_h == 2"},
         "where:", "argmax_rank", "rule increasing compares values along d_h"),
        # hull_vertices is measured at d_h = 2 only
        ({"id": "hv", "output": "hull_vertices", "rule": "decreasing", "along": "d_h"}, "along:", "hull_vertices",
         "rule decreasing"),
        ({"id": "lim", "output": "argmax_rank", "rule": "limit", "prediction": "n", "tolerance": 0.1, "along": "n",
          "rate": 1, "where": "n == 8"}, "where:", "along n", "rule limit"),
        ({"id": "st", "output": "argmax_rank", "rule": "steeper", "along": "n", "versus": "d_h", "where": "n == 16"},
         "where:", "along n", "rule steeper"),
    ]
    for fields, field, *tokens in cases:
        axis = fields["along"]
        common = [field, f"no line along {axis} has two points where the conjecture speaks", *tokens]
        refused_run(tmp, write(f"{tmp}/trend.cfg", one_experiment(REVIEW_H, [fields])), "trend.cfg:5:", *common)
        refused_judge([src, "--conjecture", line_of(fields)], "--conjecture 1:", *common)
    # one line with two points is enough
    fine = {"id": "inc2", "output": "argmax_rank", "rule": "increasing", "along": "d_h", "where": "n == 8"}
    hv = {"id": "hv2", "output": "hull_vertices", "rule": "increasing", "along": "n"}
    proc = run(["judge", src, "--conjecture", line_of(fine), "--conjecture", line_of(hv)])
    check(proc.returncode in (0, 1, 4), f"judge: exit {proc.returncode}: {proc.stderr}")
    rows = rows_of(proc.stdout)
    for key in (("inc2", "h"), ("hv2", "h")):
        check(rows[key].split()[2] != "NOT", f"{key} not run: {rows[key]}")
    check(digest(src) == before, "judge modified the file")


def case_silent_where_unmeasured(tmp):
    """A conjecture on an output measured only at some points (hull_vertices at d_h = 2)
    is silent where it is not measured, as a built-in claim is: 'hull_vertices <= n' on
    d_h = [1, 2, 64] HOLDS. Before: INCONCLUSIVE (points without data)."""
    body = 'name = "h"; simulator = "hardmax_rank"; trials = 50; n = [8, 16]; d_h = [1, 2, 64]; claims = ["H1"];'
    src, _ = review_file(tmp, body)
    hv = {"id": "hv", "output": "hull_vertices", "rule": "upper_bound", "prediction": "n"}
    copy = f"{tmp}/copy.h5"
    proc = run(["judge", src, "-o", copy, "--conjecture", line_of(hv)], expect=0)
    row = rows_of(proc.stdout)[("hv", "h")]
    check(row.split()[2] == "HOLDS" and "d_h=2" in row and "empty" not in row, f"hv: {row}")
    r = verdict_rows(copy)[("hv", "h")]
    check(r["verdict"] == b"HOLDS" and r["empty_points"] == 0 and r["points"] == 2,
          f"/verdicts hv: {r['verdict']} empty_points {r['empty_points']} points {r['points']}")
    with h5py.File(copy, "r") as f:
        theory = f["h/theory/hv"][...]
        d_h = f["h/d_h"][...]
        n = f["h/n"][...].astype(float)
    want = np.where(d_h[None, :] == 2, n[:, None], np.nan)
    check(np.array_equal(theory, want, equal_nan=True), f"theory/hv {theory} != {want}")
    # in a spec too, and the expectation met
    spec = write(f"{tmp}/hv.cfg", one_experiment(body, [hv]))
    run(["run", spec, "-o", f"{tmp}/hv.h5", "-q"], expect=0)


def case_choice_indicators(tmp):
    """H1 restated with choice indicators in the where (weights_independent, and
    weights_independent && inputs_orthonormal) on grids that sweep the choices: the
    conjecture speaks where H1 does and gives H1's verdict, estimate, interval, deciding
    point and resolution exactly. Before: 'unknown variable weights_independent'."""
    formula = "(1 - exp(-1)) * n + 1"
    experiments = [
        ('name = "w"; simulator = "hardmax_rank"; trials = 100; n = [8, 16, 32]; d_h = [2, 8]; '
         'weights = ["independent", "tied"]; claims = ["H1"];', "weights_independent"),
        ('name = "wi"; simulator = "hardmax_rank"; trials = 100; n = [8, 16]; d = 32; d_h = 8; '
         'weights = ["tied", "independent", "correlated"]; inputs = ["gaussian", "orthonormal"]; claims = ["H1"];',
         "weights_independent && inputs_orthonormal"),
    ]
    parts = []
    for body, where in experiments:
        c = {"id": "cH1", "output": "argmax_rank", "rule": "upper_bound", "prediction": formula, "where": where}
        parts.append("  { " + body + "\n    conjectures = ( " + group(c) + " );\n  }")
    spec = write(f"{tmp}/choice.cfg", "seed = 43;\nexperiments = (\n" + ",\n".join(parts) + "\n);\n")
    out = f"{tmp}/choice.h5"
    proc = run(["run", spec, "-o", out, "-q"], expect=0)
    printed = rows_of(proc.stdout)
    stored = verdict_rows(out)
    for body, where in experiments:
        exp = body.split('"')[1]
        a, b = stored[("H1", exp)], stored[("cH1", exp)]
        check(a["verdict"] == b"HOLDS", f"H1 in {exp}: {a['verdict']}")
        same_rows(a, b, f"H1 and cH1 ({where}) in {exp}")
        check(printed[("H1", exp)].split()[1:] == printed[("cH1", exp)].split()[1:],
              f"printed rows differ:\n{printed[('H1', exp)]}\n{printed[('cH1', exp)]}")
        with h5py.File(out, "r") as f:
            t_claim, t_conj = f[f"{exp}/theory/H1"][...], f[f"{exp}/theory/cH1"][...]
        check(np.isnan(t_claim).any() and np.array_equal(t_claim, t_conj, equal_nan=True),
              f"{exp}: theory differs:\n{t_claim}\n{t_conj}")
    # judge: the same, as a --conjecture string
    plain = write(f"{tmp}/plain.cfg", "seed = 43;\nexperiments = (\n" + ",\n".join(
        "  { " + body + " }" for body, _ in experiments) + "\n);\n")
    claims_only = f"{tmp}/plain.h5"
    run(["run", plain, "-o", claims_only, "-q"], expect=0)
    args = []
    for body, where in experiments:
        exp = body.split('"')[1]
        args += ["--conjecture", line_of({"experiment": exp, "id": "cH1", "output": "argmax_rank",
                                          "rule": "upper_bound", "prediction": formula, "where": where})]
    judged = run(["judge", claims_only, *args], expect=0)
    check(table(judged.stdout) == table(proc.stdout), "judge --conjecture printed other rows than the run:\n"
          + judged.stdout + "\n---\n" + proc.stdout)


def case_equal_bounds_not_implied(tmp):
    """Two upper bounds equal at every point do not mark each other 'implied by' (in
    /verdicts note, note_kind and implied_by, and in the table); a strictly tighter bound
    still marks the looser one. Before (594e23e): the equal bounds marked each other."""
    bounds = [{"id": "eqa", "output": "argmax_rank", "rule": "upper_bound", "prediction": "n"},
              {"id": "eqb", "output": "argmax_rank", "rule": "upper_bound", "prediction": "n"},
              {"id": "loose", "output": "argmax_rank", "rule": "upper_bound", "prediction": "2 * n"},
              # equal to eqa at n = 8, looser at n = 16: eqa is tighter
              {"id": "part", "output": "argmax_rank", "rule": "upper_bound", "prediction": "n < 10 ? n : 2 * n"}]
    out = f"{tmp}/bounds.h5"
    proc = run(["run", write(f"{tmp}/bounds.cfg", one_experiment(REVIEW_H, bounds)), "-o", out, "-q"], expect=0)
    printed = rows_of(proc.stdout)
    stored = verdict_rows(out)
    for i in ("eqa", "eqb"):
        r = stored[(i, "h")]
        check(r["verdict"] == b"HOLDS", f"{i}: {r['verdict']}")
        check(r["implied_by"] == b"" and r["note_kind"] != b"implied" and b"implied" not in r["note"],
              f"{i}: marked implied: note {r['note']!r} note_kind {r['note_kind']!r} implied_by {r['implied_by']!r}")
        check("implied" not in printed[(i, "h")], f"{i}: {printed[(i, 'h')]}")
    for i, by in (("loose", "eqa"), ("part", "eqa")):
        r = stored[(i, "h")]
        check(r["implied_by"] == by.encode() and r["note_kind"] == b"implied"
              and r["note"] == f"implied by {by}".encode(),
              f"{i}: note {r['note']!r} note_kind {r['note_kind']!r} implied_by {r['implied_by']!r}, want {by}")
        check(f"implied by {by}" in printed[(i, "h")], f"{i}: {printed[(i, 'h')]}")
    # judge of the file, and the same bounds as --conjecture strings: the same marks
    check(table(run(["judge", out], expect=0).stdout) == table(proc.stdout), "judge's table differs")
    src, _ = review_file(tmp)
    copy = f"{tmp}/copy.h5"
    run(["judge", src, "-o", copy, *[x for c in bounds for x in ("--conjecture", line_of(c))]], expect=0)
    again = verdict_rows(copy)
    for i in ("eqa", "eqb", "loose", "part"):
        check(again[(i, "h")]["implied_by"] == stored[(i, "h")]["implied_by"], f"judge: {i} implied_by "
              f"{again[(i, 'h')]['implied_by']!r}")


def case_claims_attribute_32(tmp):
    """The experiment's `claims` attribute names every claim and conjecture: 32 ids of 15
    characters (the most an experiment holds), by run and by judge -o. Before: cut at 255
    characters (16 ids)."""
    ids = [f"c{i:02d}_" + "x" * 11 for i in range(32)]
    check(all(len(i) == 15 for i in ids), "ids of 15 characters")
    conj = [{"id": i, "output": "argmax_rank", "rule": "upper_bound", "prediction": "n"} for i in ids]
    body = 'name = "h"; simulator = "hardmax_rank"; trials = 10; n = [8, 16]; d_h = 2; claims = [];'
    out = f"{tmp}/many.h5"
    run(["run", write(f"{tmp}/many.cfg", one_experiment(body, conj)), "-o", out, "-q"], expect=0)
    with h5py.File(out, "r") as f:
        held = f["h"].attrs["claims"]
        check(held == " ".join(ids), f"claims attribute ({len(held)} characters) is not the 32 ids: ...{held[-60:]!r}")
        check(all(i in f["h/theory"] for i in ids), "theory datasets")
    check(sorted(k[0] for k in verdict_rows(out)) == sorted(ids), "32 verdict rows")
    # 31 in the spec and the 32nd from judge -o
    few = f"{tmp}/few.h5"
    run(["run", write(f"{tmp}/few.cfg", one_experiment(body, conj[:31])), "-o", few, "-q"], expect=0)
    copy = f"{tmp}/copy.h5"
    run(["judge", few, "-o", copy, "--conjecture", line_of(conj[31])], expect=0)
    with h5py.File(copy, "r") as f:
        held = f["h"].attrs["claims"]
        check(held == " ".join(ids), f"judge -o: claims attribute ({len(held)} characters): ...{held[-60:]!r}")


def case_empty_refused(tmp):
    """An empty --conjecture (blank, or separators only) and an empty statement, in a
    spec or a --conjecture string, are refused in one line (exit 2) saying 'empty'.
    Before: --conjecture '' said 'id: missing', and statement = "" was accepted."""
    src, _ = review_file(tmp)
    before = digest(src)
    for text in ("", "   ", " ; ;"):
        refused_judge([src, "--conjecture", text], "--conjecture 1:", "id:", "empty")
    good = {"id": "s", "output": "argmax_rank", "rule": "upper_bound", "prediction": "n"}
    refused_judge([src, "--conjecture", line_of(good), "--conjecture", ""], "--conjecture 2:", "empty")
    for text in (line_of(good) + "; statement=", line_of(good) + '; statement=""', line_of(good) + "; statement=''"):
        refused_judge([src, "--conjecture", text], "--conjecture 1:", "statement:", "empty")
    refused_judge([src, "--conjectures", write(f"{tmp}/c.cfg", "conjectures = ( " + group(good | {"statement": ""})
                                                + " );\n")], "c.cfg:1:", "statement:", "empty")
    refused_run(tmp, write(f"{tmp}/st.cfg", one_experiment(REVIEW_H, [good | {"statement": ""}])), "st.cfg:5:",
                "statement:", "empty")
    check(digest(src) == before, "judge modified the file")


def case_copy_other_streams(tmp):
    """judge -o refuses a file drawn from other random streams (its copy would be
    labelled with this attnrank's), saying that judge without -o prints its verdicts,
    and leaves no copy; judge without -o judges it. Before, the refusal said 'merging'."""
    src, _ = review_file(tmp)
    old = f"{tmp}/old.h5"
    with open(src, "rb") as f, open(old, "wb") as g:
        g.write(f.read())
    with h5py.File(old, "r+") as f:
        f.attrs["rng"] = "attnrank streams 1: an older sampler"
    before = digest(old)
    good = {"id": "s", "output": "argmax_rank", "rule": "upper_bound", "prediction": "n"}
    refused_judge([old, "--conjecture", line_of(good), "-o", f"{tmp}/copy.h5"], "other random streams",
                  "judge without -o prints its verdicts")
    check(not os.path.exists(f"{tmp}/copy.h5") and not os.path.exists(f"{tmp}/copy.h5.partial"), "no copy left")
    proc = run(["judge", old, "--conjecture", line_of(good)])
    check(proc.returncode in (0, 1, 4) and "s " in proc.stdout, f"judge without -o: {proc.returncode} {proc.stderr}")
    check(digest(old) == before, "judge modified the file")


def case_theory_changed_note(tmp):
    """judge judges with this attnrank's theory; a file whose theory/<claim> differs from
    it is refused as damaged, whatever revision it names (issue 37: the git_revision
    attribute cannot be verified); an unedited file gets no note."""
    src, _ = review_file(tmp, body=REVIEW_H.replace("claims = [];", 'claims = ["H1", "H2"];'), name="theory")
    plain = run(["judge", src])
    check("note:" not in plain.stdout, f"an unedited file gets no note: {plain.stdout}")
    edited = f"{tmp}/edited.h5"
    with open(src, "rb") as f, open(edited, "wb") as g:
        g.write(f.read())
    with h5py.File(edited, "r+") as f:
        experiment = next(name for name in f if name != "verdicts")
        claim = f[experiment].attrs["claims"]
        claim = (claim.decode() if isinstance(claim, bytes) else str(claim)).split()[0]  # one the experiment checks
        d = f[experiment]["theory"][claim]
        values = d[...]
        flat = values.reshape(-1)
        flat[np.flatnonzero(np.isfinite(flat))[0]] += 1
        d[...] = flat.reshape(values.shape)
    # this revision's file: an edited theory/ dataset is damage (the figures draw it)
    one_line_error(run(["judge", edited], expect=2), "edited.h5", f"theory/{claim}", "differs")
    with h5py.File(edited, "r+") as f:  # another revision's: provenance cannot be verified, damage too
        f.attrs["git_revision"] = "0123abc"
    one_line_error(run(["judge", edited], expect=2), "edited.h5", f"theory/{claim}", "differs")


def case_equality_at_zero_refused(tmp):
    """`rule=equality; prediction=0; tolerance=0.1` printed "f -inf% .. +inf% hold": an
    equality's tolerance is relative (the interval within tolerance x |prediction|), and
    around 0 there is no band. A prediction that is 0 where the conjecture speaks is
    refused in one line naming the point (exit 2), in judge and in a spec alike; the same
    statement away from the zero is judged."""
    src, _ = review_file(tmp)
    before = digest(src)
    zero = {"id": "z", "output": "argmax_rank", "rule": "equality", "prediction": "0", "tolerance": 0.1}
    refused_judge([src, "--conjecture", line_of(zero)], "--conjecture 1:", "prediction:", "is 0 at the point",
                  "relative", "upper_bound")
    shifted = zero | {"prediction": "n - 8"}
    refused_judge([src, "--conjecture", line_of(shifted)], "prediction:", "is 0 at the point n=8")
    refused_run(tmp, write(f"{tmp}/z.cfg", one_experiment(REVIEW_H, [zero])), "z.cfg:5:", "prediction:",
                "is 0 at the point")
    proc = run(["judge", src, "--conjecture", line_of(shifted | {"where": "n > 8"})], timeout=120)
    check(proc.returncode in (0, 1, 4) and "inf%" not in proc.stdout, f"judged away from 0: {proc.stdout}")
    check(digest(src) == before, "judge modified the file")


def case_no_nan_or_inf_printed(tmp):
    """A steeper row printed "changes 0 vs 0 (x -nan)" and an every-trial bound of 0
    "reaches -inf of the bound": no verdict row prints NaN or infinity, in the table or
    in /verdicts, whatever the rule and prediction (each is said in words instead)."""
    src, _ = review_file(tmp, body=REVIEW_H.replace("d_h = [2, 8]", "d_h = [1, 2]"), name="flat")
    asked = [
        {"id": "et0", "output": "argmax_rank", "rule": "every_trial", "prediction": "0"},
        {"id": "etneg", "output": "argmax_rank", "rule": "every_trial", "prediction": "-1"},
        {"id": "ub0", "output": "argmax_rank", "rule": "upper_bound", "prediction": "0"},
        {"id": "lbneg", "output": "argmax_rank", "rule": "lower_bound", "prediction": "-5"},
        {"id": "w0", "output": "argmax_rank", "rule": "witness", "prediction": "0"},
        {"id": "lim0", "output": "h2_deficit", "rule": "limit", "prediction": "0", "along": "n", "tolerance": 0.5},
        {"id": "st", "output": "argmax_rank", "rule": "steeper", "along": "n", "versus": "d_h"},
        {"id": "st1", "output": "hull_vertices", "rule": "steeper", "along": "n", "versus": "d_h"},
        {"id": "inc", "output": "argmax_rank", "rule": "increasing", "along": "d_h"},
        {"id": "m", "output": "h2_deficit", "rule": "measure"},
    ]
    copy = f"{tmp}/copy.h5"
    args = [src, "-o", copy]
    for c in asked:
        args += ["--conjecture", line_of(c)]
    proc = run(["judge", *args], timeout=120)
    check(proc.returncode in (0, 1, 4), f"judge: exit {proc.returncode}: {proc.stderr}")
    bad = [line for line in table(proc.stdout) if re.search(r"nan|inf", line.split(None, 5)[5], re.I)]
    check(not bad, f"NaN or infinity printed: {bad}")
    for key, row in verdict_rows(copy).items():
        text = row["resolution"].decode()
        check(not re.search(r"nan|inf", text, re.I), f"{key}: /verdicts resolution {text!r}")


CASES = test_cli.cases_of(globals())

if __name__ == "__main__":
    test_cli.main(CASES)

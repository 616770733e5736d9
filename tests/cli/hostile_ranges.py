#!/usr/bin/python3
"""Hostile-user CLI tests: every int and real parameter at both ends of its documented range
(from `attnrank list --tsv`): finite outputs where measured, no contradicted verdict, and
outputs and verdicts that do not move where the theory says the parameter cannot matter.

usage: hostile_ranges.py ATTNRANK CASE     (meson registers one test per case)
"""
import math
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli  # noqa: E402
from test_cli import check, one_line_error, run, write, SMALL_SPEC  # noqa: E402,F401


H3_SPEC = """seed = 4;
experiments = (
  { name = "e"; simulator = "hardmax_rank"; trials = 3000; n = [8, 16]; d_h = 1; sigma = SIGMA; }
);
"""


def binomial_tails(k, trials, p):
    """The smaller of P(K <= k) and P(K >= k) for K ~ Binomial(trials, p)."""
    pmf = [math.exp(math.lgamma(trials + 1) - math.lgamma(i + 1) - math.lgamma(trials - i + 1)
                    + i * math.log(p) + (trials - i) * math.log1p(-p)) for i in range(trials + 1)]
    return min(sum(pmf[:k + 1]), sum(pmf[k:]))


def case_sigma_scale_free(tmp):
    """H3's law holds for every sigma > 0: at the ends of sigma's range too (1e-200 once
    underflowed every score to 0, rank 1, E[rank] = 1). The point's stream is keyed by
    sigma, so the runs are compared with the theory, not with each other:
    sim/05-families/hardmax/test_claims.c compares them bit for bit on one stream, and
    softmax's at (sigma, tau) with those at (1, tau / sigma^2). With d_h = 1 the rank is 1 exactly when
    all n queries share a sign, so the count of rank-1 trials is Binomial(trials, 2^(1-n)):
    both its tails at the observed count must be >= 1e-5 (a false alarm once in 10^5 per
    point). Not the verdict: H3's is a 95% statement, VIOLATED by chance in about one run
    of twenty."""
    for sigma in ("5e-324", "1e-200", "1e100"):
        spec = write(f"{tmp}/h3.cfg", H3_SPEC.replace("SIGMA", sigma))
        out = f"{tmp}/h3_{sigma}.h5"
        proc = run(["run", spec, "-o", out, "-q"])
        check(proc.returncode in (0, 1), f"sigma = {sigma}: exit {proc.returncode}: {proc.stderr}")
        _, defects = verdicts_and_defects(out)
        check(not defects, f"sigma = {sigma}: {defects}")
        with h5py.File(out, "r") as f:
            hist, count = f["e/argmax_rank/hist"][()], f["e/argmax_rank/count"][()]
        for i, n in enumerate((8, 16)):
            ones, p = int(hist[i][1]), 2.0 ** (1 - n)  # hist's last axis is the rank
            check(binomial_tails(ones, int(count[i]), p) >= 1e-5,
                  f"sigma = {sigma}, n = {n}: {ones} of {count[i]} trials of rank 1, want about {p * count[i]:.1f}")
    # softmax's regimes are in tau / sigma^2: tau = 1e-6 at sigma = 1e-3 is temperature 1
    # (H5a, "hardmax", once read it there and said VIOLATED), tau = 1 at sigma = 1e4 is hardmax
    for sigma, tau, h5a in (("1e-3", "1e-6", None), ("1e4", "1.0", "HOLDS")):
        spec = write(f"{tmp}/h5a.cfg", 'seed = 5;\nexperiments = ( { name = "e"; simulator = "softmax_rank"; '
                     f'trials = 50; n = 16; d_h = 4; sigma = {sigma}; tau = {tau}; }} );\n')
        run(["run", spec, "-o", f"{tmp}/h5a_{sigma}.h5", "-q"], expect=0)
        verdicts, defects = verdicts_and_defects(f"{tmp}/h5a_{sigma}.h5")
        check(verdicts.get("H5a") == h5a and not defects, f"sigma = {sigma}, tau = {tau}: {verdicts}, {defects}")


# Small sizes per simulator: every run below takes well under a second.
BASE = {
    "hardmax_rank": {"n": "8", "d_h": "2"},
    "softmax_rank": {"n": "8", "d_h": "2"},
    "hardmax_saturation": {"log2_n": "4"},
    "markov_spectrum": {"n": "16"},
    "width_collapse": {"n": "16"},
    "depth_collapse": {"n": "8", "layers": "4"},
    "mask_dynamics": {"n": "8", "layers": "10"},
    "ln_equilibria": {"layers": "200"},
    "convex_attention": {"starts": "2"},
}
TRIALS = 20

# What each parameter's range ends must give, from the theory (THEORY.md, theory/NOTES.md):
#   same    the parameter does not enter the law of any judged output at the base point:
#           the verdicts must be the base run's;
#   holds   it changes the law, but every claim judged at the base holds for all its
#           values: no definite verdict may contradict the spec (exit 0 or 4);
#   marked  the end cannot give a result: its trials fail (counted, never averaged), the
#           point is marked and announced, no verdict is drawn from it;
#   skip    the end costs more than a CI case may (reason given).
# An end ("min", "max", or "all" for both) may instead list variants (rule, settings): the
# settings make it a valid point (cross-field rules), keep it cheap, show the same end
# where it does give a result, or choose the law that reads the parameter.
SAME, HOLDS, MARKED, SKIP = "same", "holds", "marked", "skip"
EXPECT = {
    ("hardmax_rank", "n"): (HOLDS, "H1/H2 hold at every n; 16384 is 2 GiB of scores a trial", {"max": SKIP}),
    ("hardmax_rank", "d"): (SAME, "the direct sampler draws X W exactly for every d >= n", {}),
    ("hardmax_rank", "d_h"): (HOLDS, "H1/H2 hold at every d_h", {}),
    ("hardmax_rank", "rho"): (SAME, "only weights = correlated reads it (where H1-H3 are silent)",
                              {"all": [(SAME, {}), (HOLDS, {"weights": '"correlated"'})]}),
    ("hardmax_rank", "sigma"): (SAME, "the argmax of sigma^2 S is that of S: scale-free", {}),
    ("hardmax_rank", "queries_given_keys"): (SAME, "only rank_given_keys reads it, from draws after every other "
                                                   "output's; no claim at the base judges it", {}),
    ("softmax_rank", "n"): (HOLDS, "no claim is judged at one tau; 16384 needs a 16384^2 SVD", {"max": SKIP}),
    ("softmax_rank", "d"): (SAME, "as hardmax_rank", {}),
    ("softmax_rank", "d_h"): (HOLDS, "H5 regimes hold at every d_h", {}),
    ("softmax_rank", "rho"): (SAME, "only weights = correlated reads it",
                              {"all": [(SAME, {}), (HOLDS, {"weights": '"correlated"'})]}),
    ("softmax_rank", "sigma"): (HOLDS, "enters as tau / sigma^2: uniform rows at 5e-324 (H5b judged), "
                                       "hardmax rows at 1e100", {}),
    ("softmax_rank", "tau"): (HOLDS, "H5a judged at the small end, H5b at the large end", {}),
    ("softmax_rank", "rank_tol"): (HOLDS, "only numrank_abs reads it, judged by no claim at tau = 1", {}),
    ("hardmax_saturation", "log2_n"): (HOLDS, "H2sat speaks along log2_n only; n = 1024 costs about 20 s",
                                       {"max": SKIP}),
    ("hardmax_saturation", "shortfall"): (HOLDS, "no claim at one n; near 0 the position runs to max_d_h (failed "
                                                 "trials, marked) unless the M-query estimate reaches the limit", {}),
    ("hardmax_saturation", "queries_per_token"): (HOLDS, "M = n is the estimator's least; more queries only "
                                                         "sharpen E[rank | keys]", {}),
    ("hardmax_saturation", "max_d_h"): (SAME, "where to stop, not what is drawn; at 1 no draw reaches 0.9 of "
                                              "the limit", {"min": [(MARKED, {})]}),
    ("markov_spectrum", "n"): (HOLDS, "limits are judged along n only; 16384 needs a 16384^2 SVD", {"max": SKIP}),
    ("markov_spectrum", "d_h"): (SAME, "only entries = keyquery reads it",
                                 {"all": [(SAME, {}), (HOLDS, {"entries": '"keyquery"'})]}),
    ("markov_spectrum", "d_h_per_n"): (SAME, "only entries = keyquery reads it",
                                       {"all": [(SAME, {}), (HOLDS, {"entries": '"keyquery"'})]}),
    ("markov_spectrum", "scale"): (SAME, "only entries = keyquery reads it",
                                   {"all": [(SAME, {}), (HOLDS, {"entries": '"keyquery"'})]}),
    ("width_collapse", "n"): (HOLDS, "no claim at one n; 8192 is an 8192 x 8192 SVD problem", {"max": SKIP}),
    ("width_collapse", "gamma"): (HOLDS, "S5 speaks along n at fixed gamma", {}),
    ("depth_collapse", "n"): (HOLDS, "collapse rates hold at every n; 4096 costs minutes", {"max": SKIP}),
    ("depth_collapse", "d"): (HOLDS, "as n; d = 4096 is a 4096^2 W per layer, minutes", {"max": SKIP}),
    ("depth_collapse", "layers"): (HOLDS, "per-layer rates at every depth", {}),
    ("depth_collapse", "scale"): (SAME, "only attention = keyquery reads it",
                                  {"all": [(SAME, {}), (HOLDS, {"attention": '"keyquery"'})]}),
    ("depth_collapse", "probes"): (SAME, "how the gradient is estimated, not what is drawn before it", {}),
    ("depth_collapse", "value_sd"): (HOLDS, "stable ranks, cosines and the collapse factors are scale-free in W; "
                                            "S7perp speaks at value_sd = 0 only", {}),
    ("depth_collapse", "layernorm_eps"): (SAME, "only norm = layernorm reads it",
                                          {"all": [(SAME, {}), (HOLDS, {"norm": '"layernorm"'})]}),
    ("mask_dynamics", "n"): (HOLDS, "M1/M2 hold at every n; 4096 costs minutes", {"max": SKIP}),
    ("mask_dynamics", "d"): (HOLDS, "M1/M2 hold at every d", {}),
    ("mask_dynamics", "layers"): (HOLDS, "collapse is judged per layer; at 5000 a Gaussian W_V takes ||X_t|| "
                                         "out of double range, orthogonal W_V keeps it",
                                  {"max": [(MARKED, {}), (HOLDS, {"value": '"orthogonal"'})]}),
    ("mask_dynamics", "w"): (SAME, "only the window masks read it; the base mask is complete",
                             {"all": [(SAME, {}), (HOLDS, {"mask": '"window"'})]}),
    ("mask_dynamics", "stride"): (SAME, "only mask = dilated reads it", {"all": [(SAME, {}), (HOLDS, {"mask": '"dilated"'})]}),
    ("mask_dynamics", "globals"): (SAME, "only mask = global reads it; there globals <= n, so its max needs n = 4096",
                                   {"min": [(SAME, {}), (HOLDS, {"mask": '"global"'})], "max": [(SAME, {})]}),
    ("mask_dynamics", "p"): (SAME, "only mask = random reads it", {"all": [(SAME, {}), (HOLDS, {"mask": '"random"'})]}),
    ("mask_dynamics", "scale"): (HOLDS, "M1 holds at every logit scale (slower at small ones)", {}),
    ("ln_equilibria", "n"): (HOLDS, "M4's witness holds for every n", {}),
    ("ln_equilibria", "d"): (HOLDS, "M4's witness holds for every d", {}),
    ("ln_equilibria", "rank"): (HOLDS, "equilibria of every rank <= min(n, d); at k = n the default logits "
                                       "(1/d) leave the k groups' weights too close to 11^T/n to invert",
                                {"max": [(MARKED, {"n": "16", "d": "16"}), (HOLDS, {"n": "16", "d": "16", "scale": "1.0"})]}),
    ("ln_equilibria", "layers"): (HOLDS, "certification does not depend on the cap", {"max": SKIP}),
    ("ln_equilibria", "scale"): (HOLDS, "the witness value map is built for every scale", {}),
    ("convex_attention", "N"): (HOLDS, "C1 holds for every N; 1000 samples cost minutes", {"max": SKIP}),
    ("convex_attention", "n"): (HOLDS, "C1 holds for every n", {"min": [(HOLDS, {"planted": "1"})], "max": SKIP}),
    ("convex_attention", "d"): (HOLDS, "C1 holds for every d; 256 costs 10 s", {"max": SKIP}),
    ("convex_attention", "h"): (HOLDS, "C1 needs h >= N + 1 (h = 0 means N + 1); 2000 heads cost minutes",
                                {"max": SKIP}),
    ("convex_attention", "beta"): (HOLDS, "C1 and C1lower are identities at every beta, 0 included", {}),
    ("convex_attention", "planted"): (HOLDS, "the teacher's support", {"max": SKIP}),
    ("convex_attention", "noise"): (HOLDS, "C1 holds whatever the targets", {}),
    ("convex_attention", "starts"): (HOLDS, "more starts only lower the best; 100000 cost minutes", {"max": SKIP}),
    ("convex_attention", "iterations"): (HOLDS, "a cap: 1e8 is never reached; one iteration certifies no optimum",
                                         {"min": [(MARKED, {})]}),
    ("convex_attention", "net_iterations"): (HOLDS, "a cap per start", {"max": SKIP}),
    ("convex_attention", "softmax_starts"): (HOLDS, "C4 is judged once trained; 100000 cost minutes", {"max": SKIP}),
    ("convex_attention", "softmax_iterations"): (HOLDS, "a cap per softmax start", {"max": SKIP}),
}


def sweep_spec(sim, settings):
    fields = " ".join(f"{k} = {v};" for k, v in settings.items())
    return f'seed = 3;\nexperiments = ( {{ name = "e"; simulator = "{sim}"; trials = {TRIALS}; {fields} }} );\n'


def verdicts_and_defects(path):
    """{claim: verdict} of a result file, and what is not finite where it was measured:
    a statistic of an output may be NaN only where no trial counted (the output does not
    apply there), and a trial's value only where the output's description says when. A
    stable rank (||M||_F^2 / ||M||_2^2) is at least 1 for any nonzero M."""
    defects, verdicts = [], {}
    with h5py.File(path, "r") as f:
        g = f["e"]
        for name, out in g.items():
            if not isinstance(out, h5py.Group) or "count" not in out:
                continue
            counted = out["count"][()] > 0
            for stat in ("mean", "min", "max"):
                values = out[stat][()]
                if not np.all(np.isfinite(values[counted])):
                    defects.append(f"{name}/{stat} not finite where measured")
            if name in ("stable_rank", "stable_rank_gram", "stable_rank_input") and np.any(out["min"][()][counted] < 1 - 1e-9):
                defects.append(f"{name}: a stable rank below 1")
            if np.any(out["failed"][()] > 0) and "NaN" not in out.attrs["description"]:
                defects.append(f"{name}: failed trials (NaN values), which its description does not mention")
        for row in f["verdicts"][()]:
            claim, verdict = (x.decode() if isinstance(x, bytes) else x for x in (row["claim"], row["verdict"]))
            verdicts[claim] = verdict
    return verdicts, defects


def same_law(a, b):
    """Outputs of two runs whose points differ only in a parameter the law cannot see:
    their streams differ (a point's key holds every parameter), so each mean must agree
    within 5 standard errors of the difference (fixed seeds: the check is deterministic)."""
    differ = []
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        for name, out in fa["e"].items():
            if not isinstance(out, h5py.Group) or "count" not in out:
                continue
            other = fb["e"][name]
            m1, m2 = out["mean"][()], other["mean"][()]
            se = np.hypot(out["stderr"][()], other["stderr"][()])
            both = (out["count"][()] > 0) & (other["count"][()] > 0)
            if np.any(np.abs(m1 - m2)[both] > (5 * se + 1e-9 * (1 + np.abs(m1)))[both]):
                differ.append(f"{name}: {np.atleast_1d(m1)[:3]} against {np.atleast_1d(m2)[:3]}")
    return differ


def sweep(tmp, sims):
    rows = [line.split("\t") for line in run(["list", "--tsv"], expect=0).stdout.splitlines()]
    listed = {(r[0], r[1]) for r in rows if r[2] != "choice"}
    mine = {key for key in EXPECT if key[0] in sims}
    check(listed >= mine and not {k for k in listed if k[0] in sims} - mine,
          f"every int and real parameter of {sims} needs a row in EXPECT: {sorted(listed ^ set(EXPECT))}")
    base = {}
    for sim in sims:
        write(f"{tmp}/base.cfg", sweep_spec(sim, BASE[sim]))
        proc = run(["run", f"{tmp}/base.cfg", "-o", f"{tmp}/{sim}.h5", "-q"])
        check(proc.returncode in (0, 4), f"{sim} base run: exit {proc.returncode}: {proc.stderr}")
        base[sim] = verdicts_and_defects(f"{tmp}/{sim}.h5")[0]
    tried = 0
    for sim, name, kind, default, lo, hi, _ in rows:
        if sim not in sims or kind == "choice":
            continue
        rule, reason, ends = EXPECT[(sim, name)]
        for end, text in (("min", lo), ("max", hi)):
            variants = ends.get(end, ends.get("all", [(rule, {})]))
            if variants == SKIP:
                continue
            for end_rule, extra in variants:
                check_end(tmp, sim, name, kind, end, float(text), end_rule, reason, extra, base[sim],
                          f"{tmp}/{sim}.h5")
                tried += 1
    print(f"{tried} range ends of {', '.join(sims)}")


def check_end(tmp, sim, name, kind, end, value, rule, reason, extra, base_verdicts, base_file):
    """One end of one parameter's range, judged by its rule."""
    spelled = repr(value) if kind == "real" else str(int(value))
    settings = dict(BASE[sim], **extra)
    settings[name] = spelled
    write(f"{tmp}/end.cfg", sweep_spec(sim, settings))
    out = f"{tmp}/end.h5"
    proc = run(["run", f"{tmp}/end.cfg", "-o", out, "-q", "--force"])
    if proc.returncode == 2 and kind == "real" and end == "min" and "range" in proc.stderr:
        # an open end: the nearest value inside it
        settings[name] = spelled = repr(math.nextafter(value, math.inf))
        write(f"{tmp}/end.cfg", sweep_spec(sim, settings))
        proc = run(["run", f"{tmp}/end.cfg", "-o", out, "-q", "--force"])
    what = f"{sim}.{name} = {spelled} {extra or ''} ({rule}: {reason})"
    check(proc.returncode in (0, 4), f"{what}: exit {proc.returncode}\n{proc.stdout}{proc.stderr}")
    verdicts, defects = verdicts_and_defects(out)
    if rule == MARKED:
        with h5py.File(out, "r") as f:
            marked = all(np.all(g["count"][()] == 0) and np.all(g["failed"][()] > 0)
                         for g in f["e"].values() if isinstance(g, h5py.Group) and "count" in g)
        check(marked and "failed trials: marked" in proc.stderr, f"{what}: not marked: {proc.stderr}")
        check(all(v not in ("HOLDS", "VIOLATED") for v in verdicts.values()), f"{what}: verdicts {verdicts}")
        return
    check(not defects, f"{what}: {defects}")
    if rule == SAME:
        check(verdicts == base_verdicts, f"{what}: verdicts {verdicts}, at the base {base_verdicts}")
        differ = same_law(base_file, out)
        check(not differ, f"{what}: outputs move: {differ}")


def case_range_ends_hardmax(tmp):
    sweep(tmp, ["hardmax_rank", "softmax_rank", "hardmax_saturation"])


def case_range_ends_markov(tmp):
    sweep(tmp, ["markov_spectrum", "width_collapse", "depth_collapse"])


def case_range_ends_masks(tmp):
    sweep(tmp, ["mask_dynamics", "ln_equilibria"])


def case_range_ends_convex(tmp):
    sweep(tmp, ["convex_attention"])


if __name__ == "__main__":
    test_cli.main(test_cli.cases_of(globals()))

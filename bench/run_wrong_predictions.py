#!/usr/bin/python3
"""Wrong theories, the way a skeptical reader tries them: edit one prediction in
sim/05-families/<family>/claims.c, rebuild, run `attnrank verify`, and see whether that claim comes out VIOLATED.

Works on a copy of the source tree (git worktree of HEAD in a temporary folder) with
its own build folder, so the checkout is never touched. Prints one row per wrong
prediction: the verdicts of the edited claim and verify's exit status. A bench (about
a minute per row), not a test.

    bench/run_wrong_predictions.py [--keep DIR] [--claims ID,ID...]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import h5py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (label, claim, file, exact text, replacement)
WRONG = [
    ("S2 bulk edge 2.4 s/m instead of 2 s/m (20% off)", "S2", "sim/05-families/markov/claims.c",
     "return spectrum_keeps_gap(p) ? 2 * spectrum_ratio(p) : NAN;",
     "return spectrum_keeps_gap(p) ? 2.4 * spectrum_ratio(p) : NAN;"),
    ("S2 bulk edge 1.8 s/m (10% off)", "S2", "sim/05-families/markov/claims.c",
     "return spectrum_keeps_gap(p) ? 2 * spectrum_ratio(p) : NAN;",
     "return spectrum_keeps_gap(p) ? 1.8 * spectrum_ratio(p) : NAN;"),
    ("S4 stable rank -> 2.2 instead of 2 (10% off)", "S4", "sim/05-families/markov/claims.c",
     "return spectrum_keeps_gap(p) ? 1 + r * r : NAN;", "return spectrum_keeps_gap(p) ? 1.1 * (1 + r * r) : NAN;"),
    ("S5 stable rank -> 2.2 instead of 2", "S5", "sim/05-families/markov/claims.c",
     "return width_keeps_gap(p) ? 1 + r * r : NAN;", "return width_keeps_gap(p) ? 1.1 * (1 + r * r) : NAN;"),
    ("H2 bound 3% tighter than n(1 - (1 - 1/n)^n)", "H2", "sim/05-families/hardmax/claims.c",
     "return assumptions_hold(p) ? ar_hardmax_h2_bound((int)n_of(p)) : NAN;",
     "return assumptions_hold(p) ? 0.97 * ar_hardmax_h2_bound((int)n_of(p)) : NAN;"),
    ("H3 2 - 2^-n instead of 2 - 2^(1-n)", "H3", "sim/05-families/hardmax/claims.c",
     "return 2.0 - pow(2.0, 1.0 - n_of(p));", "return 2.0 - pow(2.0, -n_of(p));"),
    ("S4 -> 1.85 instead of 2", "S4", "sim/05-families/markov/claims.c",
     "return spectrum_keeps_gap(p) ? 1 + r * r : NAN;", "return spectrum_keeps_gap(p) ? 0.925 * (1 + r * r) : NAN;"),
    ("S6 factor from the edge, 4 s^2/(m^2 n) per layer", "S6", "sim/05-families/markov/claims.c",
     "return depth_keeps_gap(p) && plain_stack(p) && full_width(p) ? r * r : NAN;",
     "return depth_keeps_gap(p) && plain_stack(p) && full_width(p) ? 4 * r * r : NAN;"),
    ("S7 exponent L/2 instead of (L - 1)/2", "S7", "sim/05-families/markov/claims.c",
     "(ar_point_int(p, AR_DEPTH_LAYERS) - 1) / 2.0", "ar_point_int(p, AR_DEPTH_LAYERS) / 2.0"),
    ("S7 exponent (L - 1)/2 + 5%", "S7", "sim/05-families/markov/claims.c",
     "(ar_point_int(p, AR_DEPTH_LAYERS) - 1) / 2.0", "1.05 * (ar_point_int(p, AR_DEPTH_LAYERS) - 1) / 2.0"),
    ("S8rank stable rank 1 + v (linearised) for e^v", "S8rank", "sim/05-families/markov/claims.c",
     "return keyquery_moderate(p) && full_head(p) ? 1 + r * r : NAN;",
     "return keyquery_moderate(p) && full_head(p) ? 1 + r * r - (r * r - log1p(r * r)) : NAN;"),
    ("S8rank stable rank 1 + v + v^2/2 (second order) for e^v", "S8rank", "sim/05-families/markov/claims.c",
     "return keyquery_moderate(p) && full_head(p) ? 1 + r * r : NAN;",
     "return keyquery_moderate(p) && full_head(p) ? 1 + log1p(r * r) + 0.5 * log1p(r * r) * log1p(r * r) : NAN;"),
    ("S8edge_dh the edge stays 0.02 above the matched model's", "S8edge_dh", "sim/05-families/markov/claims.c",
     "return keyquery_moderate(p) && bulk && per_n && top2 ? 0.0 : NAN;",
     "return keyquery_moderate(p) && bulk && per_n && top2 ? 0.02 : NAN;"),
    ("S8edge_dh the difference falls like (d_h/n)^-1/2", "S8edge_dh", "sim/05-families/markov/claims.c",
     '.trend_axis = "d_h_per_n", .rate_lo = 1, .rate_hi = 1, .second_order = 1},',
     '.trend_axis = "d_h_per_n", .rate_lo = 0.5, .rate_hi = 0.5, .second_order = 1},'),
    ("H2gap the deficit falls like d_h^-1/2", "H2gap", "sim/05-families/hardmax/claims.c",
     ".rate_lo = 1, .rate_hi = 1, .on_request = 1},", ".rate_lo = 0.5, .rate_hi = 0.5, .on_request = 1},"),
    ("H2gap the deficit falls like d_h^-2", "H2gap", "sim/05-families/hardmax/claims.c",
     ".rate_lo = 1, .rate_hi = 1, .on_request = 1},", ".rate_lo = 2, .rate_hi = 2, .on_request = 1},"),
    ("H5b rank d_h instead of d_h + 1", "H5b", "sim/05-families/hardmax/claims.c",
     "return dh1 < n_of(p) ? dh1 : NAN;", "return dh1 < n_of(p) ? dh1 - 1 : NAN;"),
    ("H5ratio beyond rank d_h + 1 a third-order tail (slope -2)", "H5ratio", "sim/05-families/hardmax/claims.c",
     "return assumptions_hold(p) && inside ? -1.0 : NAN;", "return assumptions_hold(p) && inside ? -2.0 : NAN;"),
    ("H5ratio the ratio falls like tau^-1/2", "H5ratio", "sim/05-families/hardmax/claims.c",
     "return assumptions_hold(p) && inside ? -1.0 : NAN;", "return assumptions_hold(p) && inside ? -0.5 : NAN;"),
    ("C2 at most N positions instead of N + 1", "C2", "sim/05-families/convex/claims.c",
     "? samples(p) + 1 : NAN;", "? samples(p) : NAN;"),
    ("C2 at most N - 1 positions", "C2", "sim/05-families/convex/claims.c",
     "? samples(p) + 1 : NAN;", "? samples(p) - 1 : NAN;"),
    ("M4fig2 mu above 1e-12 instead of 1e-6", "M4fig2", "sim/05-families/masks/claims.c",
     "AR_MASKDYN_VALUE_GAUSSIAN ? 1e-6 : NAN;", "AR_MASKDYN_VALUE_GAUSSIAN ? 1e-12 : NAN;"),
    ("C4 the relaxation bounds softmax within 5%", "C4", "sim/05-families/convex/claims.c",
     "return softmax_trained(p) ? 1e-8 : NAN;", "return softmax_trained(p) ? 0.05 : NAN;"),
]


def sh(args, cwd, quiet=True):
    return subprocess.run(args, cwd=cwd, check=True, capture_output=quiet, text=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keep", help="work in this folder and leave it")
    ap.add_argument("--claims", help="only the rows of these claims (comma-separated ids)")
    args = ap.parse_args()
    only = set(args.claims.split(",")) if args.claims else None
    work = args.keep or tempfile.mkdtemp(prefix="attnrank-wrong-")
    tree = os.path.join(work, "tree")
    if not os.path.isdir(tree):
        sh(["git", "worktree", "add", "--detach", tree, "HEAD"], ROOT)
    build = os.path.join(tree, "build")
    if not os.path.isdir(build):
        sh(["meson", "setup", build, "-Dtests=false"], tree)
    print(f"{'wrong prediction':52s} {'claim':6s} {'verdicts of the claim':34s} exit")
    try:
        rows = [w for w in WRONG if only is None or w[1] in only]
        for label, claim, path, old, new in rows + [("(none: the theory as it is)", "", "", "", "")]:
            source = os.path.join(tree, path) if path else None
            original = open(source).read() if source else None
            if source:
                if old not in original:
                    sys.exit(f"{path}: the text to edit is gone: {old}")
                open(source, "w").write(original.replace(old, new))
            try:
                sh(["ninja", "-C", build, "attnrank"], tree)
                proc = subprocess.run([os.path.join(build, "attnrank"), "verify", "--no-report", "-q", "-o",
                                       os.path.join(work, "v.h5"), "--force"], capture_output=True, text=True)
            finally:
                if source:
                    open(source, "w").write(original)
            verdicts = []
            if claim and os.path.exists(os.path.join(work, "v.h5")):
                with h5py.File(os.path.join(work, "v.h5"), "r") as f:
                    verdicts = [r["verdict"].decode() for r in f["verdicts"][...] if r["claim"].decode() == claim]
            print(f"{label:52s} {claim:6s} {', '.join(verdicts) or '-':34s} {proc.returncode}", flush=True)
    finally:
        if not args.keep:
            subprocess.run(["git", "worktree", "remove", "--force", tree], cwd=ROOT, capture_output=True)
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

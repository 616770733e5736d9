#!/usr/bin/python3
"""Calibration of the verdict rules: how often a true claim comes out VIOLATED.

Runs `attnrank verify` (by default --quick: a tenth of the trials) over many seeds and
prints, per claim and experiment, the fraction of seeds that gave each verdict. Every
claim verify expects to hold is true, so a VIOLATED there is a false alarm (and a HOLDS
of a claim it expects VIOLATED: H4's assumption break, S8edge, H5's other rank
measures); the rules aim at <= 5% per claim. A bench, not a test: it takes minutes.

    bench/run_calibration.py build/attnrank [--seeds 100] [--full] [--jobs 2]
"""
import argparse
import collections
import concurrent.futures
import os
import subprocess
import sys
import tempfile

import h5py


def one_seed(binary, seed, scale, workdir):
    out = os.path.join(workdir, f"s{seed}.h5")
    cmd = [binary, "verify", "--no-report", "-q", "--threads", "1", "-o", out, "--force",
           "--set", f"seed={seed}"]
    if scale:
        cmd.insert(2, scale)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    rows = []
    if os.path.exists(out):  # the verdicts as the file stores them, not as a table prints them
        with h5py.File(out, "r") as f:
            rows = [tuple(r[k].decode() for k in ("claim", "experiment", "verdict", "expected"))
                    for r in f["verdicts"][...]]
        os.unlink(out)
    return seed, proc.returncode, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--first-seed", type=int, default=1000)
    ap.add_argument("--full", action="store_true", help="verify's own trial counts (default: --quick)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    scale = None if args.full else "--quick"
    counts = collections.defaultdict(collections.Counter)
    expected = {}
    statuses = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        seeds = range(args.first_seed, args.first_seed + args.seeds)
        for seed, rc, rows in pool.map(lambda s: one_seed(args.binary, s, scale, tmp), seeds):
            statuses[rc] += 1
            for claim, experiment, verdict, expect in rows:
                counts[(claim, experiment)][verdict] += 1
                expected[(claim, experiment)] = expect
    n = args.seeds
    print(f"calibration: {n} seeds of verify {'(full trials)' if args.full else '--quick (a tenth of the trials)'}")
    print(f"exit statuses: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))
    print(f"{'claim':12s} {'experiment':16s} {'expected':12s} {'HOLDS':>7s} {'VIOLATED':>9s} {'INCONCL.':>9s}"
          f" {'MEASURED':>9s}  false alarms")
    worst = 0.0
    for (claim, experiment), c in counts.items():
        exp = expected[(claim, experiment)]
        wrong = c["VIOLATED"] if exp != "VIOLATED" else c["HOLDS"]
        rate = wrong / n
        worst = max(worst, rate) if exp in ("HOLDS", "INCONCLUSIVE") else worst
        flag = "  <-- above 5%" if rate > 0.05 and exp != "VIOLATED" else ""
        print(f"{claim:12s} {experiment:16s} {exp:12s} {c['HOLDS']/n:7.2f} {c['VIOLATED']/n:9.2f}"
              f" {c['INCONCLUSIVE']/n:9.2f} {c['MEASURED']/n:9.2f}  {rate:.2f}{flag}")
    print(f"largest false-VIOLATED rate of a true claim: {worst:.2f}")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Calibration of the verdict rules: how often a true claim comes out VIOLATED.

Runs `attnrank verify` (by default --quick: a tenth of the trials) over many seeds and
prints, per claim and experiment, the fraction of seeds that gave each verdict. Every
claim verify expects to hold is true, so a VIOLATED there is a false alarm (and a HOLDS
of a claim it expects VIOLATED: H4's assumption break, S8edge, H5's other rank
measures); the rules aim at <= 5% per claim. A bench, not a test: it takes minutes.

    bench/run_calibration.py build/attnrank [--seeds 100] [--first-seed 1000] [--full] [--jobs 2]
                             [--results DIR]

With --results DIR it runs in pieces: each seed's verdicts go to DIR/seed-<N>.json as
soon as it ends, seeds already there are not run again, and the table is over every seed
in DIR (so a job array can run a seed range a task and any task, or a last run with
--seeds 0, prints the whole table). The file names the trial scale: pieces of --full and
--quick do not mix.
"""
import argparse
import collections
import concurrent.futures
import glob
import json
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
    ap.add_argument("--results", help="a folder that keeps each seed's verdicts (resumable, in pieces)")
    args = ap.parse_args()
    scale = None if args.full else "--quick"
    kind = "full" if args.full else "quick"
    results = {}  # seed -> (exit status, rows)
    if args.results:
        os.makedirs(args.results, exist_ok=True)
        for path in glob.glob(os.path.join(args.results, "seed-*.json")):
            with open(path) as f:
                piece = json.load(f)
            if piece.get("scale") != kind:
                sys.exit(f"{path}: a {piece.get('scale')} piece among {kind} ones: use another folder")
            results[piece["seed"]] = (piece["status"], [tuple(r) for r in piece["rows"]])
    todo = [s for s in range(args.first_seed, args.first_seed + args.seeds) if s not in results]
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for seed, rc, rows in pool.map(lambda s: one_seed(args.binary, s, scale, tmp), todo):
            results[seed] = (rc, rows)
            if args.results:  # written whole, then renamed: a killed piece leaves no half file
                path = os.path.join(args.results, f"seed-{seed}.json")
                with open(path + ".tmp", "w") as f:
                    json.dump({"seed": seed, "scale": kind, "status": rc, "rows": rows}, f)
                os.replace(path + ".tmp", path)
    counts = collections.defaultdict(collections.Counter)
    expected = {}
    statuses = collections.Counter()
    for seed, (rc, rows) in sorted(results.items()):
        statuses[rc] += 1
        for claim, experiment, verdict, expect in rows:
            counts[(claim, experiment)][verdict] += 1
            expected[(claim, experiment)] = expect
    if not results:
        sys.exit("no seeds run or found")
    n = len(results)
    print(f"calibration: {n} seeds of verify {'(full trials)' if args.full else '--quick (a tenth of the trials)'}")
    print(f"seeds {min(results)}..{max(results)}; exit statuses: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))
    print(f"{'claim':12s} {'experiment':16s} {'expected':12s} {'HOLDS':>7s} {'VIOLATED':>9s} {'INCONCL.':>9s}"
          f" {'MEASURED':>9s}  false alarms")
    worst = 0.0
    for (claim, experiment), c in counts.items():
        exp = expected[(claim, experiment)]
        wrong = c["VIOLATED"] if exp != "VIOLATED" else c["HOLDS"]
        rate = wrong / n
        worst = max(worst, rate) if exp in ("HOLDS", "INCONCLUSIVE") else worst
        undecided = c["INCONCLUSIVE"] / n if exp in ("HOLDS", "VIOLATED") else 0.0
        flag = ("  <-- above 5%" if rate > 0.05 and exp != "VIOLATED" else "") + \
            (f"  <-- undecided in {undecided:.0%}" if undecided > 0.05 else "")
        print(f"{claim:12s} {experiment:16s} {exp:12s} {c['HOLDS']/n:7.2f} {c['VIOLATED']/n:9.2f}"
              f" {c['INCONCLUSIVE']/n:9.2f} {c['MEASURED']/n:9.2f}  {rate:.2f}{flag}")
    print(f"largest false-VIOLATED rate of a true claim: {worst:.2f}; verify exits 0 in "
          f"{statuses[0] / n:.0%} of the seeds (goal: 85%)")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Attacks against planted wrong conjectures and true claims, over many seeds.

    run_attack_benchmark.py ATTNRANK [--seeds N] [--threads T] [--only NAME]

Planted conjectures (each true on the coarse grid its experiment writes, false somewhere
else): `corner` (false only where n > 62 and d_h >> n), `between` (false only for n within
a few of 37, between the grid's sizes), `unswept` (false only for correlated weights, a
parameter the grid never sweeps). For each, over N seeds: the adaptive attack, random
search at the same budget (strategy = "random", the same confirmation), and the dense grid
over the same space: the coarsest grid, refined step by step, whose run is VIOLATED at
seed 1, then its success over the first few seeds. Prints success rates and trials, and
the ratio of the dense grid's trials to the attack's: the grid sure to put a point in the
false region whatever its alignment (computed from the planted formula), else the
coarsest grid found.

True claims (H1, H2, S4, M2bound), attacked over their assumptions: the fraction of seeds
VIOLATED (at most 5% is the target) and the tightest point of each.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

PLANTED = {
    "corner": dict(
        experiment='name = "rank"; simulator = "hardmax_rank"; trials = 200; n = 16; d_h = 2; claims = [];',
        conjecture='id = "c"; output = "argmax_rank"; rule = "upper_bound"; prediction = "0.6 * n + 2"; '
                   'expect = "VIOLATED";',
        space=[("n", "range", 4, 128, "log"), ("d_h", "range", 1, 512, "log")],
        budget=5000),
    # E[rank] at d_h = 1 is 2 - 2^(1-n) exactly; the planted bound dips below it only in a
    # small window of (n, sigma), sigma a parameter the rank does not depend on
    "between": dict(
        experiment='name = "h3"; simulator = "hardmax_rank"; trials = 200; d_h = 1; n = 8; claims = [];',
        conjecture='id = "c"; output = "argmax_rank"; rule = "upper_bound"; '
                   'prediction = "2 - 2^(1-n) + 0.05 - 0.5 * exp(-((n - 37) / 3)^2 - (ln(sigma / 2.5) / 0.3)^2)"; '
                   'expect = "VIOLATED";',
        space=[("n", "range", 2, 200, "linear"), ("sigma", "range", 0.1, 10.0, "log")],
        # false where the dip exceeds 0.05: |n - 37| / 3 and |ln(sigma / 2.5)| / 0.3 within an
        # ellipse of radius sqrt(ln 10) = 1.52: a grid sure to put a point in it, wherever it
        # is aligned, has spacings of the inscribed square's side, 4.55 sqrt(2) = 6.4 in n and
        # 0.455 sqrt(2) = 0.64 in ln sigma: 32 x 8 points
        guaranteed=32 * 8,
        budget=5000),
    # rank <= n (true) less n/2 in a narrow band of correlations, for correlated weights
    # only: the grid (independent weights) never sees it
    "unswept": dict(
        experiment='name = "w"; simulator = "hardmax_rank"; trials = 200; n = 16; d_h = 64; claims = [];',
        conjecture='id = "c"; output = "argmax_rank"; rule = "upper_bound"; '
                   'prediction = "n - 0.5 * n * weights_correlated * exp(-((rho - 0.4) / 0.03)^2)"; '
                   'expect = "VIOLATED";',
        space=[("n", "range", 8, 64, "log"), ("weights", "set", ["independent", "correlated"]),
               ("rho", "range", -1.0, 1.0, "linear")],
        # false where n/2 exp(-((rho - 0.4)/0.03)^2) exceeds the slack n - E[rank] ~ 0.366 n:
        # |rho - 0.4| < 0.03 sqrt(ln(0.5 / 0.366)) = 0.0168; a grid sure to hit that band
        # has rho spaced 0.034 (60 values), with both weights and the two ends of n
        guaranteed=60 * 2 * 2,
        budget=4000),
}

TRUE_CLAIMS = {
    "H1": dict(experiment='name = "h"; simulator = "hardmax_rank"; trials = 300; n = 16; d_h = 16; claims = ["H1"];',
               claim="H1", space=[("n", "range", 2, 64, "log"), ("d_h", "range", 1, 512, "log")], budget=20000),
    "H2": dict(experiment='name = "h"; simulator = "hardmax_rank"; trials = 300; n = 16; d_h = 16; claims = ["H2"];',
               claim="H2", space=[("n", "range", 2, 64, "log"), ("d_h", "range", 1, 512, "log")], budget=20000),
    "S4": dict(experiment='name = "m"; simulator = "markov_spectrum"; trials = 100; spectrum = "top2"; '
                          'n = [64, 128, 256, 512]; claims = ["S4"];',
               claim="S4", space=[("entries", "set", ["lognormal", "exponential", "uniform"])], budget=3000),
    "M2bound": dict(experiment='name = "k"; simulator = "mask_dynamics"; trials = 100; n = 16; d = 4; layers = 40; '
                               'value = "identity"; claims = ["M2bound"];',
                    claim="M2bound", space=[("mask", "set", ["causal", "window", "causal_window", "global", "random"]),
                                            ("w", "range", 1, 6, "linear"), ("p", "range", 0.05, 0.5, "linear")],
                    budget=6000),
}


def space_text(space):
    parts = []
    for dim in space:
        if dim[1] == "set":
            parts.append(f'{dim[0]} = [{", ".join(chr(34) + v + chr(34) for v in dim[2])}];')
        else:
            lo, hi = (f"{v:.1f}" if isinstance(v, float) else str(v) for v in dim[2:4])
            parts.append(f'{dim[0]} = {{ range = [{lo}, {hi}]; scale = "{dim[4]}"; }};')
    return " ".join(parts)


def attack_spec(case, seed, strategy, claim="c"):
    conj = f'conjectures = ( {{ {case["conjecture"]} }} );' if "conjecture" in case else ""
    return (f"seed = {seed};\nexperiments = ( {{ {case['experiment']} {conj}\n"
            f'  attacks = ( {{ id = "a"; claim = "{claim}"; budget = {case["budget"]}; strategy = "{strategy}";\n'
            f"    space = {{ {space_text(case['space'])} }}; }} ); }} );\n")


def grid_values(dim, g):
    if dim[1] == "set":
        return [f'"{v}"' for v in dim[2]]
    lo, hi, scale = dim[2], dim[3], dim[4]
    xs = [lo + (hi - lo) * i / (g - 1) for i in range(g)] if scale == "linear" else \
        [math.exp(math.log(lo) + (math.log(hi) - math.log(lo)) * i / (g - 1)) for i in range(g)]
    if isinstance(lo, int):
        out = sorted(set(int(round(x)) for x in xs))
        return [str(v) for v in out]
    return [repr(x) for x in xs]


def grid_spec(case, seed, g):
    axes, points = [], 1
    experiment = case["experiment"]
    for dim in case["space"]:
        values = grid_values(dim, g)
        points *= len(values)
        experiment = re.sub(rf"\b{dim[0]} = [^;]*;", "", experiment)
        axes.append(f"{dim[0]} = [{', '.join(values)}];")
    trials = int(re.search(r"trials = (\d+)", experiment).group(1))
    return (f"seed = {seed};\nexperiments = ( {{ {experiment} {' '.join(axes)}\n"
            f"  conjectures = ( {{ {case['conjecture']} }} ); }} );\n"), points * trials


def run(exe, args, threads):
    return subprocess.run([exe, *args, "--threads", str(threads)], capture_output=True, text=True, timeout=3600)


def attack(exe, tmp, text, threads):
    spec = os.path.join(tmp, "a.cfg")
    with open(spec, "w") as f:
        f.write(text)
    proc = run(exe, ["attack", spec, "-o", os.path.join(tmp, "a.h5"), "--force", "-q"], threads)
    if proc.returncode not in (0, 1, 4):
        sys.exit(f"attack failed ({proc.returncode}): {proc.stderr}")
    lines = proc.stdout.splitlines()
    row = lines[1].split()
    search = int(re.search(r"(\d+) trials;", proc.stdout).group(1))
    points = int(re.search(r"confirmation: (\d+) point", proc.stdout).group(1))
    per = int(re.search(r"x (\d+) trials on fresh", proc.stdout).group(1))
    close = re.search(r"(reaches [^\n]*|holds for [^\n]*|worst trial [^\n]*)", proc.stdout)
    return row[2], " ".join(row[4:]), search + points * per, close.group(1) if close else ""


def grid_verdict(exe, tmp, text, threads):
    spec = os.path.join(tmp, "g.cfg")
    with open(spec, "w") as f:
        f.write(text)
    proc = run(exe, ["run", spec, "-o", os.path.join(tmp, "g.h5"), "--force", "-q"], threads)
    for line in proc.stdout.splitlines():
        words = line.split()
        if words[:1] == ["c"]:
            return words[2] if words[2] in ("HOLDS", "VIOLATED", "INCONCLUSIVE") else words[3]
    sys.exit(f"grid run gave no verdict for c ({proc.returncode}): {proc.stdout}{proc.stderr}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("attnrank")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--grid-seeds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", default=None)
    args = ap.parse_args()
    exe = os.path.abspath(args.attnrank)
    tmp = tempfile.mkdtemp(prefix="attack_bench_")
    print(f"attack benchmark: {args.seeds} seeds, {args.threads} threads")
    print(f"{'planted':<9} {'strategy':<9} {'found':>7} {'trials':>9}  {'dense/this':>10}  example counterexample")
    for name, case in PLANTED.items():
        if args.only and name != args.only:
            continue
        results = {}
        for strategy in ("adaptive", "random"):
            found, trials, example = 0, 0, ""
            for seed in range(1, args.seeds + 1):
                verdict, point, spent, _ = attack(exe, tmp, attack_spec(case, seed, strategy), args.threads)
                found += verdict == "VIOLATED"
                trials = spent
                if verdict == "VIOLATED" and not example:
                    example = point
            results[strategy] = (found, trials, example)
        grid = None
        for g in (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64, 96, 128):
            text, cost = grid_spec(case, 1, g)
            if grid_verdict(exe, tmp, text, args.threads) == "VIOLATED":
                hits = sum(grid_verdict(exe, tmp, grid_spec(case, s, g)[0], args.threads) == "VIOLATED"
                           for s in range(1, args.grid_seeds + 1))
                grid = (g, cost, hits)
                break
        trials_each = int(re.search(r"trials = (\d+)", case["experiment"]).group(1))
        dense = case.get("guaranteed", 0) * trials_each or (grid[1] if grid else 0)
        for strategy in ("adaptive", "random"):
            found, trials, example = results[strategy]
            ratio = f"{dense / trials:10.1f}" if dense else f"{'-':>10}"
            print(f"{name:<9} {strategy:<9} {found:>3}/{args.seeds:<3} {trials:>9}  {ratio}  {example}")
        if case.get("guaranteed"):
            print(f"{name:<9} {'grid':<9} {'sure':>7} {dense:>9}  {1.0:10.1f}  (a grid sure to hit the false region, "
                  f"{case['guaranteed']} points of {trials_each} trials)")
        if grid:
            print(f"{name:<9} {'grid ' + str(grid[0]):<9} {grid[2]:>3}/{args.grid_seeds:<3} {grid[1]:>9}  "
                  f"{dense / grid[1]:10.1f}  (the coarsest uniform grid VIOLATED at seed 1, {grid[0]} values a "
                  "range: its alignment may be luck)")
        else:
            print(f"{name:<9} {'grid':<9} no grid up to 128 values a range was VIOLATED at seed 1")
        sys.stdout.flush()
    print()
    print(f"{'true claim':<10} {'VIOLATED':>9} {'trials':>8}  tightest point (seed 1), closeness")
    for name, case in TRUE_CLAIMS.items():
        if args.only and name != args.only:
            continue
        violated, first, trials = 0, None, 0
        for seed in range(1, args.seeds + 1):
            verdict, point, spent, close = attack(exe, tmp, attack_spec(case, seed, "adaptive", case["claim"]),
                                                  args.threads)
            violated += verdict == "VIOLATED"
            trials = spent
            if first is None:
                first = f"{verdict} at {point}; {close}"
        print(f"{name:<10} {violated:>4}/{args.seeds:<4} {trials:>8}  {first}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

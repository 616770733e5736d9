#!/usr/bin/python3
"""Side-by-side benchmark of the group-lasso solver: attnrank (C) against NumPy.

usage: run_bench_convex.py [PATH/TO/bench_convex] [--quick]

FISTA iterations per second (one thread) and the time to a certified relative duality
gap below 1e-9, at (N, n, d) = (200, 64, 32) and a smaller case; --quick: the small one.
"""
import os

from benchlib import HERE, ONE_THREAD as one, command_line, core, run


def main():
    exe, quick = command_line("bench_convex")
    sizes = [(20, 8, 4, 20000)] + ([] if quick else [(200, 64, 32, 2000)])
    rows = []
    for N, n, d, its in sizes:
        args = [str(N), str(n), str(d), str(its)]
        rows.append((N, n, d, run([exe] + args, one),
                     run(["/usr/bin/python3", os.path.join(HERE, "reference_convex.py")] + args, one)))
    print(f"OpenBLAS core: {core(rows[0][3])}; both sides on one thread\n")
    print(f"{'N':>4} {'n':>3} {'d':>3} {'side':<6} {'iterations/s':>13} {'to gap 1e-9 (ms)':>17} {'iterations':>10} "
          f"{'gap':>9} {'active':>6}")
    for N, n, d, c, py in rows:
        for x in (py, c):
            print(f"{N:>4} {n:>3} {d:>3} {x['impl']:<6} {x['iterations_per_s']:>13.0f} {x['solve_ms']:>17.2f} "
                  f"{x['solve_iterations']:>10} {x['gap']:>9.2g} {x['active']:>6}")
    print()
    for N, n, d, c, py in rows:
        print(f"(N, n, d) = ({N}, {n}, {d}): C vs NumPy {c['iterations_per_s'] / py['iterations_per_s']:.1f}x per "
              f"iteration, {py['solve_ms'] / c['solve_ms']:.1f}x to the certified solution")


if __name__ == "__main__":
    main()

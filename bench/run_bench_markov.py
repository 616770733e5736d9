#!/usr/bin/python3
"""Side-by-side benchmark of markov_spectrum trials: attnrank (C) against NumPy.

usage: run_bench_markov.py [PATH/TO/bench_markov] [--quick]

For n in 256, 1024 and 4096: ms per matrix for NumPy's full SVD (one thread), attnrank's
full spectrum (1 thread; 2 threads up to n = 1024) and its top-2 path; LAPACK's own dgesdd
time on the same matrices; dgesdd's GFLOP/s against dgemm's (the machine's peak for dense
kernels). n = 4096 takes about four minutes.
"""
import os

from benchlib import HERE, ONE_THREAD as one, command_line, core, run


def main():
    exe, quick = command_line("bench_markov")
    rows = []
    for n, trials in [(256, 40), (1024, 8)] + ([] if quick else [(4096, 2)]):
        r = {}
        numpy_trials = 1 if n >= 4096 else trials  # NumPy's SVD at 4096: ~30 s a matrix
        r["numpy"] = run(["/usr/bin/python3", os.path.join(HERE, "reference_markov.py"), str(n), str(numpy_trials)], one)
        r["full1"] = run([exe, str(n), str(trials), "1", "full"])
        if n <= 1024:
            r["full2"] = run([exe, str(n), str(2 * trials), "2", "full"])
        r["top2"] = run([exe, str(n), str(max(trials, 4)), "1", "top2"])
        rows.append((n, r))
    print(f"OpenBLAS core: {core(rows[0][1]['full1'])}; NumPy on one thread\n")
    print(f"{'n':>5} {'route':<34} {'ms/matrix':>10} {'matrices/s/core':>16}")
    for n, r in rows:
        for key, label in [("numpy", "NumPy, full SVD, 1 core"), ("full1", "C, full spectrum, 1 thread"),
                           ("full2", "C, full spectrum, 2 threads"), ("top2", "C, top-2 Lanczos, 1 thread")]:
            if key in r:
                x = r[key]
                print(f"{n:>5} {label:<34} {x['ms_per_matrix']:>10.2f} {1e3 / x['ms_per_matrix'] / x['threads']:>16.2f}")
    print()
    for n, r in rows:
        f1 = r["full1"]
        print(f"n = {n}: sampling {f1['sampling_ms']:.2f} ms, LAPACK dgesdd alone {f1['lapack_dgesdd_ms']:.2f} ms "
              f"({f1['dgesdd_gflops']:.1f} GFLOP/s of 8n^3/3; dgemm peak {f1['dgemm_gflops']:.1f} GFLOP/s)")
        print(f"   full spectrum per matrix / (sampling + LAPACK's own time): "
              f"{f1['ms_per_matrix'] / (f1['sampling_ms'] + f1['lapack_dgesdd_ms']):.2f}x")
        if "full2" in r:
            print(f"   full spectrum, 2 threads vs 1: {f1['ms_per_matrix'] / r['full2']['ms_per_matrix'] * 2 / 2:.2f}x")
        print(f"   top-2 vs NumPy's full-SVD route: {r['numpy']['ms_per_matrix'] / r['top2']['ms_per_matrix']:.1f}x; "
              f"full spectrum vs NumPy: {r['numpy']['ms_per_matrix'] / f1['ms_per_matrix']:.2f}x")
        print(f"   top-2 vs full spectrum: {f1['ms_per_matrix'] / r['top2']['ms_per_matrix']:.1f}x")


if __name__ == "__main__":
    main()

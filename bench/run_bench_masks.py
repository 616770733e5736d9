#!/usr/bin/python3
"""Side-by-side benchmark of mask_dynamics: attnrank (C) against NumPy.

usage: run_bench_masks.py [PATH/TO/bench_masks] [--quick]

Window masks of half-width w in {8, n} (w = n: every pair) at n in {128, 1024}, d = 32,
100 layers, orthogonal W_V, no LayerNorm: ms per layer for NumPy's dense route (one
thread), attnrank's dense route and its edges-only route (one thread; the edges-only
route on two threads too), and the attention step alone (no measurements) for both
routes. --quick: n = 128 only.
"""
import os

from benchlib import HERE, ONE_THREAD as one, command_line, core, run

D, LAYERS = 32, 100


def main():
    exe, quick = command_line("bench_masks")
    rows = []
    for n, trials in [(128, 20)] + ([] if quick else [(1024, 6)]):
        for w in (8, n):
            r = {"numpy": run(["/usr/bin/python3", os.path.join(HERE, "reference_masks.py"), str(n), str(D), str(w),
                               str(LAYERS), str(trials)], one)}
            for route in ("dense", "sparse"):
                r[route] = run([exe, str(n), str(D), str(w), str(LAYERS), str(trials), "1", route])
            r["sparse2"] = run([exe, str(n), str(D), str(w), str(LAYERS), str(2 * trials), "2", "sparse"])
            rows.append((n, w, r))
    print(f"OpenBLAS core: {core(rows[0][2]['dense'])}; NumPy on one thread; d = {D}, {LAYERS} layers\n")
    print(f"{'n':>5} {'w':>5} {'route':<34} {'ms/layer':>10} {'step ms':>9}")
    for n, w, r in rows:
        for key, label in [("numpy", "NumPy, dense, 1 core"), ("dense", "C, dense scores, 1 thread"),
                           ("sparse", "C, edges only, 1 thread"), ("sparse2", "C, edges only, 2 threads")]:
            x = r[key]
            step = f"{x['step_ms']:>9.4f}" if "step_ms" in x and key != "sparse2" else f"{'':>9}"
            print(f"{n:>5} {w:>5} {label:<34} {x['ms_per_layer']:>10.4f} {step}")
    print()
    for n, w, r in rows:
        best = min(r["dense"]["ms_per_layer"], r["sparse"]["ms_per_layer"])
        print(f"n = {n}, w = {w}: C (faster route) vs NumPy {r['numpy']['ms_per_layer'] / best:.1f}x; "
              f"C dense vs NumPy {r['numpy']['ms_per_layer'] / r['dense']['ms_per_layer']:.1f}x; "
              f"edges-only vs dense: {r['dense']['ms_per_layer'] / r['sparse']['ms_per_layer']:.1f}x per layer, "
              f"{r['dense']['step_ms'] / r['sparse']['step_ms']:.1f}x for the attention step; "
              f"2 threads vs 1: {r['sparse']['ms_per_layer'] / r['sparse2']['ms_per_layer'] * 2 / 2:.2f}x")
        print(f"   rate (first trial): NumPy {r['numpy']['rate']:.4f}, C {r['dense']['rate']:.4f} "
              f"(different random draws; same law)")


if __name__ == "__main__":
    main()

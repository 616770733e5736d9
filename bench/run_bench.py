#!/usr/bin/python3
"""Side-by-side benchmark of the hardmax trial: attnrank (C) against a NumPy reference.

usage: run_bench.py [PATH/TO/bench_hardmax] [--quick]

Runs both on the same points in one go, one process per configuration, and prints
microseconds per trial, the breakdown of the C trial, peak memory, and the ratios.
NumPy runs on one thread (OPENBLAS_NUM_THREADS=1): the figures are per core. The
environment is otherwise left as it is; the OpenBLAS core each side uses is printed,
since OPENBLAS_CORETYPE can change gemm speed by up to 1.6x.
"""
import os

from benchlib import HERE, ONE_THREAD as one, command_line, core, run


def main():
    exe, quick = command_line("bench_hardmax")
    sizes = [(64, 20000 if not quick else 2000, 1000), (256, 1000 if not quick else 100, 100)]
    rows = []
    for n, trials, batch in sizes:
        numpy_trials = max(batch, trials // 10)
        r = {}
        for sampler in ("faithful", "auto"):
            r[f"numpy-{sampler}"] = run(["/usr/bin/python3", os.path.join(HERE, "reference_hardmax.py"), str(n),
                                         str(n), str(numpy_trials), str(batch), sampler], one)
            for threads in (1, 2):
                r[f"c-{sampler}-{threads}"] = run([exe, str(n), str(n), str(trials), str(threads), sampler])
        c_big = run([exe, str(n), str(n), str(4 * trials), "1", "auto"])
        rows.append((n, r, c_big))

    print(f"\nOpenBLAS core: C {core(rows[0][1]['c-auto-1'])}, "
          f"NumPy {rows[0][1]['numpy-auto']['openblas_core']}; NumPy {rows[0][1]['numpy-auto']['numpy']}\n")
    print(f"{'n = d = d_h':>11} {'implementation':<28} {'us/trial':>10} {'trials/s/core':>14} {'peak MiB':>9} "
          f"{'mean rank':>10}")
    for n, r, _ in rows:
        for key, label in [("numpy-faithful", "NumPy, QR (faithful), 1 core"),
                           ("numpy-auto", "NumPy, direct, 1 core"),
                           ("c-faithful-1", "C, QR (faithful), 1 thread"),
                           ("c-faithful-2", "C, QR (faithful), 2 threads"),
                           ("c-auto-1", "C, direct, 1 thread"),
                           ("c-auto-2", "C, direct, 2 threads")]:
            x = r[key]
            per_core = 1e6 / x["us_per_trial"] / x["threads"]
            print(f"{n:>11} {label:<28} {x['us_per_trial']:>10.1f} {per_core:>14.0f} {x['peak_rss_mib']:>9.1f} "
                  f"{x['mean_rank']:>10.3f}")
    print("\nC trial breakdown, 1 thread (us): sampling / QR / gemm / argmax")
    for n, r, _ in rows:
        for sampler in ("faithful", "auto"):
            x = r[f"c-{sampler}-1"]
            total = x["sampling_us"] + x["qr_us"] + x["gemm_us"] + x["argmax_us"]
            parts = " / ".join(f"{x[k]:.1f} ({100 * x[k] / total:.0f}%)"
                               for k in ("sampling_us", "qr_us", "gemm_us", "argmax_us"))
            print(f"  n = {n:3d} {sampler:<8} {parts}")
    print("\nratios (higher is better for C)")
    for n, r, c_big in rows:
        nf, na = r["numpy-faithful"]["us_per_trial"], r["numpy-auto"]["us_per_trial"]
        cf1, ca1, ca2 = (r[k]["us_per_trial"] for k in ("c-faithful-1", "c-auto-1", "c-auto-2"))
        print(f"  n = {n:3d}: C direct vs NumPy faithful (same law)  {nf / ca1:6.2f}x per core")
        print(f"           C faithful vs NumPy faithful (same steps) {nf / cf1:6.2f}x per core")
        print(f"           C direct vs NumPy direct (same shortcut)  {na / ca1:6.2f}x per core")
        print(f"           C direct, 2 threads vs 1 thread           {ca1 / ca2:6.2f}x")
        print(f"           C peak memory at {r['c-auto-1']['trials']} and {c_big['trials']} trials: "
              f"{r['c-auto-1']['peak_rss_mib']:.1f} / {c_big['peak_rss_mib']:.1f} MiB "
              f"(one double per trial and output)")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Each family's trial against its floor, the previous build beside this one, in one table.

usage: run_floor.py [PATH/TO/bench_floor] [--old DIR] [--repeat N] [--quick]

The floor of a trial is what its unavoidable steps cost at the rates this machine reaches
on them, measured in the same run on one thread (bench_floor, large calls: no per-call
overhead):
  hardmax_rank (direct sampler)  2 n d_h normals at the sampler's rate + S = Q K^T's
                                 2 n^2 d_h flops at the dgemm peak (OpenBLAS, 2048^3) +
                                 argmax and rank of S (standalone);
  markov_spectrum (full)         n^2 normals and n^2 exp(mu + sigma z) (libm) at their
                                 rates + dgesdd of that size (standalone, the core in use);
  mask_dynamics (window, auto)   per layer: the gemms' flops at the peak (X W_Q, X W_K,
                                 A X W_V: 6 n d^2; the scores and A X: 4 n^2 d dense,
                                 4 edges d at the edges) + one ar_exp_nonpositive a
                                 mask edge at its rate + the rank measurement
                                 (ar_gram_eigenvalues, standalone) + the trial's n d +
                                 3 d^2 normals spread over its layers.
Trials run through the engine (bench_hardmax, bench_markov, bench_masks). With --old DIR
(a build's bench/ folder, or ATTNRANK_BENCH_OLD) the same benchmarks of that build run
interleaved with these; every figure is the best of --repeat runs (default 3), since a
shared machine's timings move by 15% or more from run to run. Below the table: the 1 -> 2
thread speed-up, the engine's time against the sum of its phases, the argmax ranks
under either gemm, and S = Q K^T by OpenBLAS against attnrank's small kernel. Takes
about three and a half minutes with --old (--quick: 1 run, n = 64, 128 and 256 only,
about 20 seconds).
"""
import os
import sys

from benchlib import core, run

D, LAYERS = 32, 100


def window_edges(n, w):
    """Edges of the window mask |i - j| <= w on n tokens, self-loops included."""
    return sum(min(n - 1, i + w) - max(0, i - w) + 1 for i in range(n))


def best_run(cmd, repeat):
    """`repeat` runs of cmd, each timing the best of its own runs (merged_min)."""
    return merged_min([run(cmd) for _ in range(repeat)])


def merged_min(runs, largest=("peak_gflops",)):
    """Field by field best of several runs of one benchmark: the smallest time (the
    largest rate), in nested dicts and lists of dicts too."""
    first = runs[0]
    if isinstance(first, list):
        return [merged_min([r[i] for r in runs], largest) for i in range(len(first))]
    out = dict(first)
    for key, value in first.items():
        if isinstance(value, (dict, list)):
            out[key] = merged_min([r[key] for r in runs], largest)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = (max if key in largest else min)(r[key] for r in runs)
    return out


def parse():
    args = sys.argv[1:]
    here = os.path.dirname(os.path.abspath(__file__))
    opts = {"exe": os.path.join(here, "..", "build", "bench", "bench_floor"),
            "old": os.environ.get("ATTNRANK_BENCH_OLD"), "repeat": 3, "quick": False}
    i = 0
    while i < len(args):
        if args[i] == "--old":
            opts["old"] = args[i + 1]
            i += 1
        elif args[i] == "--repeat":
            opts["repeat"] = int(args[i + 1])
            i += 1
        elif args[i] == "--quick":
            opts["quick"] = True
        else:
            opts["exe"] = args[i]
        i += 1
    if opts["quick"]:
        opts["repeat"] = 1
    return opts


def main():
    opts = parse()
    new_dir = os.path.dirname(os.path.abspath(opts["exe"]))
    old_dir = opts["old"] if opts["old"] and os.path.exists(os.path.join(opts["old"], "bench_hardmax")) else None
    sides = [("new", new_dir)] + ([("old", old_dir)] if old_dir else [])
    repeat, quick = opts["repeat"], opts["quick"]
    print(f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}; new: {new_dir}; "
          f"old: {old_dir or '(none: pass --old DIR)'}; best of {repeat} runs")

    hardmax_sizes = [(64, 4000 if quick else 20000), (256, 200 if quick else 1000)]
    markov_sizes = [(256, 20 if quick else 40)] + ([] if quick else [(1024, 8)])
    mask_sizes = [(128, 20)] + ([] if quick else [(1024, 6)])
    floor_args = ["--peak", "2048"]
    for n, _ in markov_sizes:
        floor_args += ["--svd", str(n)]
    for n, _ in mask_sizes:
        floor_args += ["--gram", f"{n}:{D}"]
    for n, _ in hardmax_sizes:
        floor_args += ["--argmax", str(n)]
    rates = merged_min([run([opts["exe"]] + floor_args) for _ in range(repeat)])
    gemm = merged_min([run([os.path.join(new_dir, "bench_gemm"), "0"]) for _ in range(repeat)])
    peak = rates["peak_gflops"] * 1e3  # flops per us
    normal_us, exp_us = rates["ns_per_normal"] * 1e-3, rates["ns_per_exp_nonpositive"] * 1e-3

    rows, notes = [], {}
    # hardmax_rank: 1 and 2 threads, both builds, interleaved
    # (the 1- and 2-thread runs of a build back to back, so that a burst of load on the
    # machine meets both or neither)
    hardmax = {}
    for n, trials in hardmax_sizes:
        runs = {}
        for _ in range(repeat):
            for side, d in sides:
                for threads in (1, 2):
                    runs.setdefault((threads, side), []).append(
                        run([os.path.join(d, "bench_hardmax"), str(n), str(n), str(trials), str(threads), "auto"]))
        for (threads, side), results in runs.items():
            hardmax[n, threads, side] = merged_min(results)
        sampling, flops = 2 * n * n * normal_us, 2.0 * n * n * n / peak
        argmax = rates["argmax_us"][str(n)]
        measured = {(s["n"], s["k"]): s["gemm_nt_us"] for s in gemm["shapes"]}.get((n, n),
                                                                                  hardmax[n, 1, "new"]["gemm_us"])
        floor = sampling + flops + argmax
        rows.append(("hardmax", f"n=d_h={n}, direct, 1 thread", "us/trial", hardmax.get((n, 1, "old")),
                     hardmax[n, 1, "new"], "us_per_trial", floor,
                     f"sampling {sampling:.1f} + gemm {flops:.1f} (ar_gemm_nt measured: {measured:.1f}) + "
                     f"argmax {argmax:.1f}"))

    markov = {}
    for n, trials in markov_sizes:
        for side, d in sides:
            markov[n, side] = best_run([os.path.join(d, "bench_markov"), str(n), str(trials), "1", "full"], repeat)
        sampling = n * n * (rates["ns_per_normal"] + rates["ns_per_lognormal_exp"]) * 1e-6
        svd = rates["svd_ms"][str(n)]
        rows.append(("markov", f"n={n}, full spectrum, 1 thread", "ms/matrix", markov.get((n, "old")), markov[n, "new"],
                     "ms_per_matrix", sampling + svd,
                     f"sampling {sampling:.2f} (normals + libm exp) + dgesdd {svd:.2f}"))

    for n, trials in mask_sizes:
        for w in (8, n):
            masks = {}
            for side, d in sides:
                masks[side] = best_run([os.path.join(d, "bench_masks"), str(n), str(D), str(w), str(LAYERS),
                                        str(trials), "1", "auto"], repeat)
            edges = window_edges(n, w)
            dense = 6 * edges > n * n  # mask_dynamics' route = auto
            flops = 6.0 * n * D * D + (4.0 * n * n * D if dense else 4.0 * edges * D)
            gemm_ms, exp_ms = flops / peak * 1e-3, edges * exp_us * 1e-3
            gram_ms = rates["gram_us"][f"{n}:{D}"] * 1e-3
            sampling_ms = (n * D + 3 * D * D) * normal_us / LAYERS * 1e-3
            floor = gemm_ms + exp_ms + gram_ms + sampling_ms
            rows.append(("masks", f"n={n} w={w} d={D} ({'dense' if dense else 'edges'}), 1 thread", "ms/layer",
                         masks.get("old"), masks["new"], "ms_per_layer", floor,
                         f"gemms {gemm_ms:.4f} + exp {exp_ms:.4f} ({edges} edges) + rank {gram_ms:.4f} + "
                         f"sampling {sampling_ms:.4f}"))
            if "edges" in masks["new"] and int(masks["new"]["edges"]) != edges:
                notes["edges"] = f"bench_masks counts {masks['new']['edges']} edges at n={n} w={w}, not {edges}"

    old_core = core(hardmax[hardmax_sizes[0][0], 1, "old"]) if old_dir else "-"
    print(f"\nOpenBLAS core: new {core(rates)}, old {old_core}; normals: {rates['normals_isa']} sampler; "
          f"small gemm: {gemm['small_kernel']}")
    print(f"rates, 1 thread, large calls: normals {rates['ns_per_normal']:.2f} ns, ar_exp_nonpositive "
          f"{rates['ns_per_exp_nonpositive']:.2f} ns, exp(mu + sigma z) (libm) {rates['ns_per_lognormal_exp']:.2f} ns, "
          f"dgemm peak {rates['peak_gflops']:.1f} GFLOP/s (measured at {rates['peak_n']}^3: "
          f"{rates['peak_ms']:.0f} ms)")
    big = hardmax_sizes[-1][0]
    print(f"normals as each build's trial draws them (bench_hardmax's sampling phase at n = d_h = {big}: "
          f"2 x {big * big} a trial): " +
          ", ".join(f"{side} {hardmax[big, 1, side]['sampling_us'] * 1e3 / (2 * big * big):.2f} ns/normal"
                    for side, _ in sides))
    print(f"\n{'family':<8} {'point':<36} {'unit':<9} {'old':>9} {'new':>9} {'floor':>9} {'old/floor':>9} "
          f"{'new/floor':>9}  floor = ...")
    for family, point, unit, old, new, key, floor, parts in rows:
        o = f"{old[key]:>9.4g}" if old else f"{'-':>9}"
        of = f"{old[key] / floor:>9.2f}" if old else f"{'-':>9}"
        print(f"{family:<8} {point:<36} {unit:<9} {o} {new[key]:>9.4g} {floor:>9.4g} {of} {new[key] / floor:>9.2f}  "
              f"{parts}")

    print("\nhardmax, 1 -> 2 threads (target >= 1.9x):")
    for n, _ in hardmax_sizes:
        line = ", ".join(f"{side} {hardmax[n, 1, side]['us_per_trial'] / hardmax[n, 2, side]['us_per_trial']:.2f}x"
                         for side, _ in sides)
        print(f"  n = {n}: {line}")
    n64 = hardmax[64, 1, "new"]["us_per_trial"]
    row256 = next(r for r in rows if r[1].startswith("n=d_h=256"))
    print(f"targets: hardmax n = 64 <= 30 us a trial on 1 thread: {n64:.1f} ({'met' if n64 <= 30 else 'NOT met'}); "
          f"n = 256 within 1.3x of the floor: {row256[4]['us_per_trial'] / row256[6]:.2f}x "
          f"({'met' if row256[4]['us_per_trial'] <= 1.3 * row256[6] else 'NOT met'})")
    print("\nengine against the sum of its phases (hardmax, new, 1 thread; phases timed one by one on 300 trials, "
          "best of 3 passes):")
    for n, _ in hardmax_sizes:
        x = hardmax[n, 1, "new"]
        phases = x["sampling_us"] + x["gemm_us"] + x["argmax_us"]
        print(f"  n = {n}: engine {x['us_per_trial']:.1f} us, phases {phases:.1f} (sampling {x['sampling_us']:.1f} + "
              f"gemm {x['gemm_us']:.1f} + argmax {x['argmax_us']:.1f}): difference "
              f"{x['us_per_trial'] - phases:+.1f} us")
    print("argmax ranks, the engine's (ar_gemm_nt) against OpenBLAS's dgemm on the same draws: " +
          "; ".join(f"n = {n}: {hardmax[n, 1, 'new'].get('ranks_differing_from_openblas', '?')} of "
                    f"{hardmax[n, 1, 'new'].get('ranks_checked', '?')} differ" for n, _ in hardmax_sizes))

    print(f"\nS = Q K^T (n x d_h times its transpose), 1 thread; FLOP time at the {rates['peak_gflops']:.1f} GFLOP/s "
          "peak")
    print(f"{'n':>5} {'d_h':>5} {'FLOP us':>9} {'OpenBLAS us':>12} {'x FLOP':>7} {'attnrank us':>12} {'x FLOP':>7} "
          f"{'plain us':>9} {'OpenBLAS/attnrank':>18}")
    for s in gemm["shapes"]:
        flop = 2.0 * s["n"] * s["n"] * s["k"] / peak
        print(f"{s['n']:>5} {s['k']:>5} {flop:>9.2f} {s['openblas_us']:>12.2f} {s['openblas_us'] / flop:>7.2f} "
              f"{s['small_us']:>12.2f} {s['small_us'] / flop:>7.2f} {s['plain_us']:>9.2f} "
              f"{s['openblas_us'] / s['small_us']:>17.2f}x")
    for note in notes.values():
        print(f"note: {note}")


if __name__ == "__main__":
    main()

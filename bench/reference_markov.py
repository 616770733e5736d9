#!/usr/bin/python3
"""NumPy reference of a markov_spectrum trial: lognormal entries, row normalisation,
all singular values (NumPy's route to sigma_1, sigma_2 and the rank measures).

usage: reference_markov.py N TRIALS      prints one JSON line like bench_markov
"""
import json
import resource
import sys
import time

import numpy as np


def trial(rng, n):
    g = np.exp(rng.normal(-0.5 * np.log(2), np.sqrt(np.log(2)), (n, n)))
    a = g / g.sum(axis=1, keepdims=True)
    s = np.linalg.svd(a, compute_uv=False)
    p = s / s.sum()
    return s[0], np.sqrt(n) * s[1], (s ** 2).sum() / s[0] ** 2, (s ** 4).sum() / s[0] ** 4, np.exp(-(p * np.log(p)).sum())


def main():
    n, trials = int(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(1)
    trial(rng, n)
    t0 = time.perf_counter()
    first = [trial(rng, n) for _ in range(trials)][0]
    dt = (time.perf_counter() - t0) / trials
    print(json.dumps({"impl": "numpy-full", "n": n, "threads": 1, "trials": trials, "ms_per_matrix": dt * 1e3,
                      "sigma1": float(first[0]),
                      "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main()

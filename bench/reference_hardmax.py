#!/usr/bin/python3
"""NumPy reference of the hardmax trial, batched as a careful user would write it.

usage: reference_hardmax.py N D_H TRIALS BATCH SAMPLER(faithful|auto)

faithful: X (n x d, d = n) Haar-orthonormal rows by QR of a Gaussian with the sign fix,
W_q, W_k iid N(0, 1); scores (X W_q)(X W_k)^T; rank = distinct argmax columns.
auto: X W_q and X W_k drawn directly as iid N(0, 1) (exact in distribution).
Prints one JSON line like bench_hardmax.
"""
import ctypes
import json
import resource
import sys
import time

import numpy as np


def openblas_core():
    for name in ("libblas.so.3", "libopenblas.so.0"):
        try:
            lib = ctypes.CDLL(name)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            return lib.openblas_get_corename().decode()
        except (OSError, AttributeError):
            continue
    return "unknown"


def distinct_per_row(idx):
    s = np.sort(idx, axis=1)
    return 1 + (np.diff(s, axis=1) != 0).sum(axis=1)


def batch_ranks(rng, n, dh, batch, faithful):
    d = n
    if faithful:
        g = rng.standard_normal((batch, d, n))
        qm, r = np.linalg.qr(g)                      # batched QR: (batch, d, n)
        signs = np.sign(np.diagonal(r, axis1=1, axis2=2))
        signs[signs == 0] = 1
        x = np.swapaxes(qm * signs[:, None, :], 1, 2)  # (batch, n, d), orthonormal rows
        wq = rng.standard_normal((batch, d, dh))
        wk = rng.standard_normal((batch, d, dh))
        q, k = x @ wq, x @ wk
    else:
        q = rng.standard_normal((batch, n, dh))
        k = rng.standard_normal((batch, n, dh))
    scores = q @ np.swapaxes(k, 1, 2)
    return distinct_per_row(scores.argmax(axis=2))


def main():
    n, dh, trials, batch = (int(a) for a in sys.argv[1:5])
    faithful = sys.argv[5] == "faithful"
    rng = np.random.default_rng(1)
    batch_ranks(rng, n, dh, min(batch, trials), faithful)  # warm-up
    best = float("inf")
    ranks = None
    for _ in range(2):
        t0 = time.perf_counter()
        ranks = np.concatenate([batch_ranks(rng, n, dh, min(batch, trials - b), faithful)
                                for b in range(0, trials, batch)])
        best = min(best, time.perf_counter() - t0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"impl": f"numpy-{sys.argv[5]}", "n": n, "d_h": dh, "threads": 1, "trials": trials,
                      "us_per_trial": best * 1e6 / trials, "mean_rank": float(ranks.mean()),
                      "peak_rss_mib": peak, "batch": batch, "openblas_core": openblas_core(),
                      "numpy": np.__version__}))


if __name__ == "__main__":
    main()

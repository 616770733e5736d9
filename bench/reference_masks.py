#!/usr/bin/python3
"""NumPy reference of a mask_dynamics trial: window mask of half-width w, Gaussian X_0,
W_Q, W_K, Haar orthogonal W_V, no LayerNorm; per layer mu, mu/||X||, the numerical rank
and the smallest weight on an edge; per trial the fitted rate. The natural NumPy route:
dense scores, the mask as -inf, a row softmax.

usage: reference_masks.py N D W LAYERS TRIALS     prints one JSON line like bench_masks
"""
import json
import resource
import sys
import time

import numpy as np


def trial(rng, n, d, w, layers):
    x = rng.normal(0, 1 / np.sqrt(d), (n, d))
    wq = rng.normal(0, 1 / np.sqrt(d), (d, d))
    wk = rng.normal(0, 1 / np.sqrt(d), (d, d))
    q, r = np.linalg.qr(rng.normal(size=(d, d)))
    wv = q * np.sign(np.diag(r))
    i = np.arange(n)
    edges = np.abs(i[:, None] - i[None, :]) <= w
    mu_rel = np.empty(layers + 1)
    for t in range(layers + 1):
        centred = x - x.mean(axis=0)
        mu = np.linalg.norm(centred)
        mu_rel[t] = mu / np.linalg.norm(x)
        s = np.linalg.svd(x, compute_uv=False)
        _rank = int((s > 1e-8 * s[0]).sum())
        if t == layers:
            break
        scores = np.where(edges, (x @ wq) @ (x @ wk).T / np.sqrt(d), -np.inf)
        scores -= scores.max(axis=1, keepdims=True)
        a = np.exp(scores)
        a /= a.sum(axis=1, keepdims=True)
        _least = a[edges].min()
        x = a @ x @ wv
    keep = np.flatnonzero(mu_rel < 1e-10)
    k = keep[0] if keep.size else layers + 1
    return -np.polyfit(np.arange(k), np.log(mu_rel[:k]), 1)[0] if k >= 2 else float("nan")


def main():
    n, d, w, layers, trials = (int(v) for v in sys.argv[1:6])
    rng = np.random.default_rng(1)
    trial(rng, n, d, w, 2)
    t0 = time.perf_counter()
    rate = [trial(rng, n, d, w, layers) for _ in range(trials)][0]
    dt = (time.perf_counter() - t0) / trials
    print(json.dumps({"impl": "numpy-dense", "n": n, "d": d, "w": w, "layers": layers, "threads": 1,
                      "trials": trials, "ms_per_layer": dt / layers * 1e3, "rate": float(rate),
                      "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""NumPy reference of attnrank's group-lasso solver: the same FISTA (gradient restarts,
the duality gap every 10 iterations from the scaled residual) on an instance of the same
law (iid N(0, 1) tokens, a teacher on the first and last positions, beta = 0.1 beta_max).

usage: reference_convex.py N n d ITERATIONS     prints one JSON line like bench_convex
"""
import json
import sys
import time

import numpy as np


def solve(D, y, beta, n, d, step, iterations, tol):
    N = len(y)
    z = np.zeros(n * d)
    w = z.copy()
    dz = np.zeros(N)
    dw = dz.copy()
    r = -y.copy()
    t = 1.0
    scale = 0.5 * y @ y
    objective = scale
    gap = np.inf
    for it in range(iterations + 1):
        if it % 10 == 0 or it == iterations:
            g = (D.T @ r).reshape(n, d)
            top = np.linalg.norm(g, axis=1).max()
            rr, ry = r @ r, r @ y
            limit = beta / top if top > 0 else np.inf
            s = np.clip(-ry / rr if rr > 0 else 0.0, -limit, limit)
            dual = -0.5 * s * s * rr - s * ry
            gap = (objective - dual) / max(objective, 1e-6 * scale)
            if gap < tol or it == iterations:
                return z, objective, gap, it
        g = D.T @ (dw - y)
        z_old, dz_old = z, dz
        u = (w - step * g).reshape(n, d)
        norms = np.linalg.norm(u, axis=1)
        factor = np.where(norms > step * beta, 1 - step * beta / np.maximum(norms, 1e-300), 0.0)
        z = (u * factor[:, None]).ravel()
        dz = D @ z
        r = dz - y
        objective = 0.5 * r @ r + beta * np.linalg.norm(z.reshape(n, d), axis=1).sum()
        t_next = (1 + np.sqrt(1 + 4 * t * t)) / 2
        momentum = (t - 1) / t_next
        if (w - z) @ (z - z_old) > 0:
            t_next, momentum = 1.0, 0.0
        w = z + momentum * (z - z_old)
        dw = dz + momentum * (dz - dz_old)
        t = t_next


def main():
    N, n, d, iterations = (int(v) for v in sys.argv[1:5])
    rng = np.random.default_rng(1)
    D = rng.normal(size=(N, n * d))
    teacher = np.zeros(n * d)
    teacher[:d] = rng.normal(size=d)
    teacher[-d:] = rng.normal(size=d)
    y = D @ teacher + 0.1 * rng.normal(size=N)
    beta = 0.1 * np.linalg.norm((D.T @ y).reshape(n, d), axis=1).max()
    t0 = time.perf_counter()
    step = 1 / (np.linalg.norm(D, 2) ** 2 * (1 + 1e-6))
    setup = time.perf_counter() - t0
    # per iteration: runs capped at 2k and k iterations, so the fixed cost cancels
    t1 = time.perf_counter()
    solve(D, y, beta, n, d, step, iterations, 0.0)
    t2 = time.perf_counter()
    solve(D, y, beta, n, d, step, 2 * iterations, 0.0)
    t3 = time.perf_counter()
    z, objective, gap, its = solve(D, y, beta, n, d, step, 1000000, 1e-9)
    t4 = time.perf_counter()
    active = int((np.linalg.norm(z.reshape(n, d), axis=1) > 0).sum())
    print(json.dumps({"impl": "numpy", "N": N, "n": n, "d": d, "iterations_per_s": iterations / ((t3 - t2) - (t2 - t1)),
                      "setup_ms": setup * 1e3, "solve_ms": (t4 - t3 + setup) * 1e3,
                      "solve_iterations": its, "gap": gap, "objective": objective, "active": active}))


if __name__ == "__main__":
    main()

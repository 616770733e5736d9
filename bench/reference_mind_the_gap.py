#!/usr/bin/python3
"""attnrank's depth_collapse against the "Mind the Gap" authors' own code, layer by layer.

usage: reference_mind_the_gap.py --authors PATH [--attnrank BIN] [--n 32] [--layers 8]
                                 [--seeds 200] [--seed 1]

A by-hand reference, not run by CI: PATH is a checkout of the authors' repository
(github.com/thizirinait/Mind-the-Gap-a-Spectral-Analysis-of-Rank-Collapse-and-Signal-
Propagation-in-Attention-Layers); their TransformerModel, configs and input generator are
imported from there (needs torch; nothing of theirs is copied here). It runs their configs
"A(X) + skip" and "A(X) + skip + LN" (key-query attention, skip_connections = True, W_V of
N(0, 1) entries, Xavier-normal W_Q, W_K) built as their stable_ranks.py builds them, over
--seeds seeds, in float32 (theirs) and in float64 (the same draws: the model built in float32
from the same seed, then converted with .double(), and the isometric input kept in double
before their rounding to float32), so that the two differ by arithmetic alone; it takes
their statistic, the stable rank of X X^T (sum s^2 / max s^2 over the singular values s of
X X^T; their row l is X_{l+1}).
attnrank runs the same configurations (a spec in a temporary folder, `attnrank run`) with
skip = "authors_double", and with skip = "plain" (X + A X W) and "none" (A X W), the
readings of their skip without the doubling. Printed per layer: their mean +- SE,
attnrank's, z = difference / combined SE, and rms z over the layers.
"""
import argparse
import importlib.util
import math
import os
import subprocess
import sys
import tempfile
import types

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SKIPS = ("authors_double", "plain", "none")
# Where the stable rank - 1 is below about this, the statistic is rounding, not signal:
# their float32 reads exactly 1 or a few ulps above (theory/NOTES.md, their float32 floor),
# and in double both sides read 1 within about 1e-14. The second rms z leaves out the
# layers where their mean - 1 is below the floor of their dtype.
FLOOR = {"float32": 1e-5, "float64": 1e-12}
THEIRS = {"none": "A(X) + skip", "layernorm": "A(X) + skip + LN"}


def import_authors(path):
    """Their model, configs and utils modules. utils imports omegaconf only for a helper
    not used here: a stand-in is put in its place when it is not installed."""
    sys.path.insert(0, os.path.abspath(path))
    if importlib.util.find_spec("omegaconf") is None:
        stub = types.ModuleType("omegaconf")
        stub.DictConfig = type("DictConfig", (dict,), {})
        sys.modules["omegaconf"] = stub
    import configs
    import model
    import utils
    return model, configs.configs, utils


def their_stable_ranks(authors, conf, n, layers, seeds, first_seed, dtype):
    """(seeds x layers) array of their stable rank of X_l X_l^T, l = 1..layers; NaN where
    their computation fails (their try/except)."""
    import torch
    model_mod, configs, utils = authors
    params = configs[conf]
    # generate_isometric_input draws in float64 and rounds to float32 on return; for the
    # float64 run the same draw is returned in double. The weights are drawn in float32
    # either way (torch's normal_ draws other numbers for float64 from the same seed).
    real_torch = utils.torch
    if dtype == torch.float64:
        utils.torch = types.SimpleNamespace(tensor=torch.tensor, float32=torch.float64)
    out = np.full((seeds, layers), np.nan)
    try:
        for i in range(seeds):
            np.random.seed(first_seed + i)
            torch.manual_seed(first_seed + i)
            x0 = utils.generate_isometric_input(seq_length=n, gamma=1)
            net = model_mod.TransformerModel(
                layers, n, 1, heads=params["heads"], attention_type=params["attention_type"],
                distribution_A=params["distribution_A"], distribution_V=params["distribution_V"],
                LN=params["layernorm"], skip_connections=params["skip_connections"],
                sigma_A=params["sigma_A"], sigma_V=params["sigma_V"], mlp=params["mlp"],
                distribution_Q=params["distribution_Q"], distribution_K=params["distribution_K"]).to(dtype)
            with torch.no_grad():
                _, xs = net.forward_with_embeds(x0.reshape(1, n, n))
            for l, x in enumerate(xs):
                try:
                    s = torch.linalg.svdvals(x[0] @ x[0].T)
                    out[i, l] = float((s**2).sum() / (s**2).max())
                except RuntimeError:
                    pass
    finally:
        utils.torch = real_torch
    return out


def attnrank_stable_ranks(binary, n, layers, trials, seed):
    """{(norm, skip): (mean, stderr, count) over layers 1..L} from one `attnrank run`."""
    spec = f"""seed = {seed};
title = "reference_mind_the_gap";
experiments = ({{
  name = "depth"; simulator = "depth_collapse"; trials = {trials};
  n = {n}; layers = {layers}; inputs = "orthonormal"; value_sd = 1.0; layernorm_eps = 1e-5;
  gap = "keep"; attention = "keyquery"; scale = 0.0;
  norm = ["none", "layernorm"]; skip = [{", ".join(f'"{s}"' for s in SKIPS)}];
  gradient = "none"; claims = [];
}});
"""
    with tempfile.TemporaryDirectory() as tmp:
        cfg, out = os.path.join(tmp, "mtg.cfg"), os.path.join(tmp, "mtg.h5")
        with open(cfg, "w") as f:
            f.write(spec)
        subprocess.run([binary, "run", cfg, "-o", out], check=True, stdout=subprocess.DEVNULL)
        with h5py.File(out, "r") as f:
            g = f["depth"]
            axes = g.attrs["axes"]
            axes = (axes.decode() if isinstance(axes, bytes) else str(axes)).split()
            if axes != ["norm", "skip"]:
                sys.exit(f"reference_mind_the_gap: {out}: axes {axes}, expected ['norm', 'skip']")
            names = {a: [v.decode() if isinstance(v, bytes) else str(v) for v in g[a][:]] for a in axes}
            s = g["stable_rank_gram"]
            mean, se, count = s["mean"][:], s["stderr"][:], s["count"][:]
    res = {}
    for i, norm in enumerate(names["norm"]):
        for j, skip in enumerate(names["skip"]):
            res[(norm, skip)] = (mean[i, j, 1:], se[i, j, 1:], count[i, j, 1:])
    return res


def summary(samples):
    ok = ~np.isnan(samples)
    count = ok.sum(axis=0)
    mean = np.nanmean(samples, axis=0)
    se = np.nanstd(samples, axis=0, ddof=1) / np.sqrt(count)
    return mean, se, count


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--authors", required=True, help="checkout of the authors' repository")
    ap.add_argument("--attnrank", default=os.path.join(HERE, "..", "build", "attnrank"))
    ap.add_argument("--n", type=int, default=32, help="n = d (their gamma = 1)")
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=200, help="trials a configuration, each side")
    ap.add_argument("--seed", type=int, default=1, help="first seed of theirs; attnrank's seed")
    a = ap.parse_args()

    import torch
    authors = import_authors(a.authors)
    ours = attnrank_stable_ranks(a.attnrank, a.n, a.layers, a.seeds, a.seed)
    print(f"n = d = {a.n}, L = {a.layers}, {a.seeds} seeds each side; torch {torch.__version__}; "
          f"stable rank of X_l X_l^T (their statistic), key-query attention, their skip_connections = True")
    for norm, conf in THEIRS.items():
        for dtype in (torch.float32, torch.float64):
            theirs = their_stable_ranks(authors, conf, a.n, a.layers, a.seeds, a.seed, dtype)
            tm, ts, tc = summary(theirs)
            name = str(dtype).replace("torch.", "")
            print(f"\n== theirs: \"{conf}\" in {name}  (norm = {norm}); stable rank - 1, mean ± SE")
            print(f"{'layer':>5} {'theirs':>20}" + "".join(f" {s:>20} {'z':>8}" for s in SKIPS))
            zs = {s: [] for s in SKIPS}
            for l in range(a.layers):
                row = f"{l + 1:5d} {tm[l] - 1:10.3e} ± {ts[l]:7.1e}"
                for s in SKIPS:
                    om, ose, _ = ours[(norm, s)]
                    z = (tm[l] - om[l]) / math.hypot(ts[l], ose[l])
                    zs[s].append(z)
                    row += f" {om[l] - 1:10.3e} ± {ose[l]:7.1e} {z:8.2f}"
                print(row)
            above = tm - 1 > FLOOR[name]
            for label, keep in (("rms z, all layers", np.ones(a.layers, bool)),
                                (f"rms z, theirs - 1 > {FLOOR[name]:g}", above)):
                print(f"{label:>26}" + "".join(
                    f" {'':>20} {math.sqrt(np.mean(np.square(np.array(zs[s])[keep]))) if keep.any() else math.nan:8.2f}"
                    for s in SKIPS))
            print(f"  theirs reading exactly 1, trials a layer: {' '.join(str(k) for k in (theirs == 1).sum(axis=0))}")
            if (tc < a.seeds).any():
                print(f"  theirs NaN (their try/except or overflow) in {a.seeds - tc} trials a layer")


if __name__ == "__main__":
    main()

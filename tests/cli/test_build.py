#!/usr/bin/python3
"""The test build (attnrank_test, ATTNRANK_TEST_EXE) against attnrank: the hooks and the
small sizes live in the test build only (include/attnrank/test_hooks.h), and the small
sizes change no bit of a result. With slabs of 3 points, batches of 4 and a commit every
20 ms, a run of a few hundred points crosses the boundaries that take attnrank a run of
10^4 points and more.

usage: test_build.py ATTNRANK CASE
"""
import os
import re
import signal
import subprocess

import h5py
import numpy as np

import test_cli
from test_cli import check, run, write
from grid_scale import grid_spec

ROOT = os.environ.get("ATTNRANK_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
TEST_EXE = os.environ.get("ATTNRANK_TEST_EXE")


def run_test_build(args, env=None):
    check(TEST_EXE and os.path.exists(TEST_EXE), "ATTNRANK_TEST_EXE names the test build")
    return subprocess.run([TEST_EXE] + args, capture_output=True, text=True, env=dict(os.environ, **(env or {})),
                          timeout=600)


def case_release_holds_no_hook(tmp):
    """attnrank holds none of the hooks' variable names (test_hooks.c names them all
    ATTNRANK_TEST_...), the test build holds each; every other ATTNRANK_ variable attnrank
    holds is a user setting documented in docs/manual.md."""
    hooks = re.findall(r'"(ATTNRANK_TEST_[A-Z0-9_]+)"', open(f"{ROOT}/sim/01-base/test_hooks.c").read())
    check(len(hooks) >= 7, f"test_hooks.c names its hooks: {hooks}")
    release = open(test_cli.EXE, "rb").read()
    hooked = open(TEST_EXE, "rb").read()
    check(b"ATTNRANK_TEST_" not in release, "attnrank holds a test hook's variable name")
    missing = [h for h in hooks if h.encode() not in hooked]
    check(not missing, f"the test build lacks the hooks {missing}")
    manual = open(f"{ROOT}/docs/manual.md").read()
    names = sorted({m.decode() for m in re.findall(rb"ATTNRANK_[A-Z0-9_]+", release)})
    undocumented = [n for n in names if not re.search(rf"`{n}[`=]", manual)]
    check(names and not undocumented, f"attnrank reads variables the manual does not name: {undocumented}")


# Cheap points (batches), points that spread their trials, a vector output wider than
# the test build's slab bytes (slabs of one point), and the four families.
SAME_BITS_SPEC = """seed = 9;
experiments = (
  { name = "g"; simulator = "hardmax_rank"; trials = 3; n = [4, 5, 6, 7, 8, 9, 10, 11]; d_h = [1, 2, 3, 4];
    sigma = [1.0, 1.001]; claims = ["H1", "H2"]; },
  { name = "e"; simulator = "hardmax_rank"; trials = 300; n = [8, 16]; d_h = [1, 2, 8]; },
  { name = "m"; simulator = "markov_spectrum"; trials = 4; n = [16, 24, 32]; },
  { name = "k"; simulator = "mask_dynamics"; trials = 3; n = 8; d = 3; layers = 5; mask = ["causal", "window"];
    value = "identity"; },
  { name = "c"; simulator = "convex_attention"; trials = 2; N = 3; n = 3; d = 2; starts = 2; }
);
"""


def case_same_bits(tmp):
    """The same spec and seed give attnrank's bits in the test build: whole, and in three
    shards merged (slabs broken by the gaps of a shard's points)."""
    spec = write(f"{tmp}/same.cfg", SAME_BITS_SPEC)
    release = f"{tmp}/release.h5"
    run(["run", spec, "-o", release, "-q", "--threads", "2"])
    check(os.path.exists(release), "attnrank: no result")
    small = f"{tmp}/small.h5"
    proc = run_test_build(["run", spec, "-o", small, "-q", "--threads", "2"])
    check(os.path.exists(small), f"the test build: no result: {proc.stderr}")
    test_cli.same_datasets(release, small)
    shards = []
    for i in range(3):
        shards.append(f"{tmp}/shard{i}.h5")
        proc = run_test_build(["run", spec, "-o", shards[-1], "-q", "--shard", f"{i}/3"])
        check(os.path.exists(shards[-1]), f"shard {i}: {proc.stderr}")
    merged = f"{tmp}/merged.h5"
    proc = run_test_build(["merge", "-o", merged, "-q"] + shards)
    check(os.path.exists(merged), f"merge: {proc.stderr}")
    test_cli.same_datasets(release, merged)


def case_kill_at_commit(tmp):
    """A run killed exactly inside a commit, its data flushed and its ledger not
    (ATTNRANK_TEST_KILL_AT_COMMIT: the third commit, after slabs of 3 points): the
    points written but not in the ledger are recomputed by --resume, and the result is
    attnrank's uninterrupted run, bit for bit. attnrank itself ignores the hook."""
    trials = 40
    spec = write(f"{tmp}/grid.cfg", grid_spec(12, 8, 4, trials))
    reference = f"{tmp}/reference.h5"
    proc = run(["run", spec, "-o", reference, "-q"], env={"ATTNRANK_TEST_KILL_AT_COMMIT": "1"})
    check(proc.returncode >= 0 and os.path.exists(reference), f"attnrank obeyed the hook: exit {proc.returncode}")
    out, partial = f"{tmp}/killed.h5", f"{tmp}/killed.h5.partial"
    proc = run_test_build(["run", spec, "-o", out, "-q", "--threads", "2"], env={"ATTNRANK_TEST_KILL_AT_COMMIT": "3"})
    check(proc.returncode == -signal.SIGKILL, f"the test build was not killed at its third commit: {proc.returncode}")
    check(os.path.exists(partial) and not os.path.exists(out), "the partial file stays, the result does not exist")
    with h5py.File(partial) as f:
        done, counts = f["g/done"][...], f["g/argmax_rank/count"][...]
    check(0 < done.sum() < done.size, f"two commits in the ledger, not all: {done.sum()} of {done.size}")
    check(np.all(counts[done == 1] == trials), "a point in the ledger lacks its data")
    check(np.any((done == 0) & (counts == trials)), "no point written but not in the ledger: not inside a commit")
    proc = run_test_build(["run", spec, "-o", out, "-q", "--resume", "--threads", "2"])
    check(os.path.exists(out) and not os.path.exists(partial), f"resume: exit {proc.returncode}: {proc.stderr}")
    test_cli.same_datasets(reference, out)


if __name__ == "__main__":
    test_cli.main(test_cli.cases_of(globals()))

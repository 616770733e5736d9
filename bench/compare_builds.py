#!/usr/bin/python3
"""Two builds of attnrank side by side: every command's output and every dataset, byte for byte.

    bench/compare_builds.py OLD_BINARY NEW_BINARY [--work DIR] [--full-verify] [--cluster]

For a change that must not change results (a refactor): the text each command prints
(help, every command's help, list, list --tsv and each simulator, plan of every runs/
spec with its timed numbers masked, verify's table, info, judge, mutants), exit statuses, and the datasets and
attributes of verify's file and of a small run (trials = 2) of every runs/ spec. The
attributes that name the build or the moment (git_revision, created, the command line
with the binary's path) are compared with those parts masked. Prints one line per
difference and a summary; exit 1 if anything differs.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Root attributes that say which build wrote a file and when.
BUILD_ATTRIBUTES = {"git_revision", "created", "attnrank_version", "resumed", "computed_by"}


def run(binary, args, cwd, timeout=900):
    try:
        p = subprocess.run([binary] + args, capture_output=True, text=True, cwd=cwd, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def masked(text, binary, work):
    text = text.replace(binary, "BINARY").replace(work, "WORK")
    text = re.sub(r"attnrank-verify-\d{8}T\d{6}Z", "attnrank-verify-TIME", text)
    text = re.sub(r"\b\d+(\.\d+)?\s?(s|ms|min)\b", "T", text)  # timings
    # info's lines of the build and the moment that wrote a file
    text = re.sub(r"^(  (git_revision|created) +).*$", r"\1...", text, flags=re.M)
    return text


def walk(f):
    items = {}
    f.visititems(lambda name, obj: items.__setitem__(name, obj))
    return items


def by_name(value, f):
    """An attribute with object references (dimension scales' DIMENSION_LIST and
    REFERENCE_LIST) as the names they point to: the addresses move with anything
    written before them (a longer command line), the names must not."""
    if isinstance(value, h5py.Reference):
        return f[value].name if value else None
    if isinstance(value, np.void):
        return tuple(by_name(value[k], f) for k in value.dtype.names)
    if isinstance(value, np.ndarray) and (value.dtype.kind in "OV"):
        return [by_name(v, f) for v in value.ravel()]
    if isinstance(value, (list, tuple)):
        return [by_name(v, f) for v in value]
    return value


def attrs_differ(a, b, where, masks, out):
    keys = set(a.attrs) | set(b.attrs)
    for k in sorted(keys):
        if where == "/" and k in BUILD_ATTRIBUTES:
            continue
        if k not in a.attrs or k not in b.attrs:
            out.append(f"{where}: attribute {k} only in {'new' if k in b.attrs else 'old'}")
            continue
        va, vb = a.attrs[k], b.attrs[k]
        if isinstance(va, bytes):
            va = va.decode(errors="replace")
        if isinstance(vb, bytes):
            vb = vb.decode(errors="replace")
        if isinstance(va, str) and isinstance(vb, str):
            va, vb = masks[0](va), masks[1](vb)
            if va != vb:
                out.append(f"{where}: attribute {k}: {va[:80]!r} != {vb[:80]!r}")
        elif k in ("DIMENSION_LIST", "REFERENCE_LIST"):
            if repr(by_name(va, a.file)) != repr(by_name(vb, b.file)):
                out.append(f"{where}: attribute {k} names other objects")
        elif np.asarray(va).dtype.kind == "O":  # variable-length strings: by value
            if [str(x) for x in np.asarray(va).ravel()] != [str(x) for x in np.asarray(vb).ravel()]:
                out.append(f"{where}: attribute {k} differs")
        elif np.asarray(va).tobytes() != np.asarray(vb).tobytes():
            out.append(f"{where}: attribute {k} differs")


def compare_files(old, new, masks, out):
    with h5py.File(old, "r") as a, h5py.File(new, "r") as b:
        attrs_differ(a, b, "/", masks, out)
        ia, ib = walk(a), walk(b)
        for name in sorted(set(ia) | set(ib)):
            if name not in ia or name not in ib:
                out.append(f"{old}: /{name} only in {'new' if name in ib else 'old'}")
                continue
            x, y = ia[name], ib[name]
            attrs_differ(x, y, "/" + name, masks, out)
            if isinstance(x, h5py.Dataset):
                if x.dtype != y.dtype or x.shape != y.shape:
                    out.append(f"/{name}: {x.dtype}{x.shape} != {y.dtype}{y.shape}")
                elif x[()].tobytes() != y[()].tobytes():
                    out.append(f"/{name}: values differ")
        return len(ia)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--work")
    ap.add_argument("--full-verify", action="store_true", help="verify at its own trials (default --quick)")
    ap.add_argument("--cluster", action="store_true", help="also runs/cluster/*.cfg")
    ap.add_argument("--reuse-old", action="store_true",
                    help="take the old build's outputs from an earlier run in the same --work (its results.json)")
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="compare-builds-")
    dirs = {}
    for side in ("old", "new"):
        dirs[side] = os.path.join(work, side)
        os.makedirs(dirs[side], exist_ok=True)
    bins = {"old": os.path.abspath(args.old), "new": os.path.abspath(args.new)}
    mask = {s: (lambda t, s=s: masked(t, bins[s], dirs[s])) for s in bins}
    diffs, compared = [], 0
    cache_path = os.path.join(dirs["old"], "results.json")
    cache = json.load(open(cache_path)) if args.reuse_old and os.path.exists(cache_path) else {}
    if not args.reuse_old:
        cache = {}

    def same_text(label, cmd_args, output=None, timed=False):
        nonlocal compared
        res = {}
        for s in bins:
            a = [x.replace("OUT", os.path.join(dirs[s], output)) if output else x for x in cmd_args]
            if s == "old" and label in cache:
                code, so, se = cache[label]
            else:
                code, so, se = run(bins[s], a, cwd=ROOT)
                if s == "old":
                    cache[label] = (code, so, se)
                    json.dump(cache, open(cache_path, "w"))
            if timed:  # plan's numbers come from timings: compare its words, not its widths
                so = re.sub(r" +", " ", re.sub(r"\d+(\.\d+)?(e[+-]?\d+)?", "N", so))
            res[s] = (code, mask[s](so), mask[s](se))
        compared += 1
        if res["old"] != res["new"]:
            for i, part in enumerate(("exit status", "stdout", "stderr")):
                if res["old"][i] != res["new"][i]:
                    o = str(res["old"][i]).splitlines() or [""]
                    n = str(res["new"][i]).splitlines() or [""]
                    first = next((k for k in range(max(len(o), len(n)))
                                  if (o[k] if k < len(o) else None) != (n[k] if k < len(n) else None)), 0)
                    diffs.append(f"{label}: {part} differs at line {first + 1}: "
                                 f"{(o[first] if first < len(o) else '')[:100]!r} != "
                                 f"{(n[first] if first < len(n) else '')[:100]!r}")
        return res["new"][0]

    same_text("--help", ["--help"])
    same_text("--version", ["--version"])
    for cmd in ("list", "run", "merge", "plan", "verify", "info", "mutants", "judge", "report", "help"):
        same_text(f"help {cmd}", ["help", cmd])
        same_text(f"{cmd} --help", [cmd, "--help"])
    same_text("list", ["list"])
    same_text("list --tsv", ["list", "--tsv"])
    sims = [l.split(":")[0] for l in run(bins["new"], ["list"], ROOT)[1].splitlines() if l and not l[0].isspace()
            and ":" in l]
    for sim in sims:
        same_text(f"list {sim}", ["list", sim])
    # runs/*.cfg; the showcase grids of runs/cluster/ too with --cluster (their plans time
    # trials of minutes, their runs take hours even at 2 trials a point)
    specs = sorted(glob.glob(os.path.join(ROOT, "runs", "*.cfg")))
    if args.cluster:
        specs += sorted(glob.glob(os.path.join(ROOT, "runs", "cluster", "*.cfg")))
    for spec in specs:
        rel = os.path.relpath(spec, ROOT)
        same_text(f"plan {rel}", ["plan", rel], timed=True)
    scale = [] if args.full_verify else ["--quick"]
    same_text("verify", ["verify"] + scale + ["--no-report", "-q", "--threads", "2", "--force", "-o", "OUT"],
              "verify-command.h5")
    # its own name: the run of runs/verify.cfg below writes verify.h5
    files = [("verify", "verify-command.h5")]
    for spec in specs:
        rel = os.path.relpath(spec, ROOT)
        name = os.path.basename(spec).replace(".cfg", ".h5")
        code = same_text(f"run {rel} trials=2", ["run", rel, "--set", "trials=2", "-q", "--threads", "2",
                                                "--force", "-o", "OUT"], name)
        if code == "timeout":
            diffs.append(f"run {rel}: timed out (not compared)")
        files.append((rel, name))
    for label, name in files:
        o, n = os.path.join(dirs["old"], name), os.path.join(dirs["new"], name)
        if not (os.path.exists(o) and os.path.exists(n)):
            if os.path.exists(o) != os.path.exists(n):
                diffs.append(f"{label}: a file from only one build")
            continue
        rel_o, rel_n = os.path.relpath(o, ROOT), os.path.relpath(n, ROOT)
        compared += compare_files(o, n, (mask["old"], mask["new"]), diffs)
        for cmd in (["info"], ["judge"], ["mutants"]):
            res = {}
            for s, f in (("old", o), ("new", n)):
                code, so, se = run(bins[s], cmd + [f], ROOT)
                res[s] = (code, mask[s](so).replace(f, "FILE"), mask[s](se).replace(f, "FILE"))
            compared += 1
            if res["old"] != res["new"]:
                diffs.append(f"{cmd[0]} {label}: output differs")
    for d in diffs:
        print(d)
    print(f"compare_builds: {compared} outputs and objects compared, {len(diffs)} differences "
          f"({args.old} against {args.new}; files in {work})")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The library's layers, checked on what was built and what is written.

    check_layers.py SOURCE_ROOT BUILD_ROOT LAYER...      (LAYER: name=archive, lowest first)

1. Objects (nm): a module (a source file, or the files that share its name's first
   word: store, store_hdf5, store_points ... are the module "store") calls no module of a
   layer above its own, and no two modules call each other, directly or around a
   cycle. The one pair allowed: linalg and gemm (linalg's gemm picks gemm_small's
   kernel for small products, which computes its remainder with linalg's gemm).
2. Sources: no file of a layer includes a header of a layer above it; a header belongs to
   the layer of the module that defines what it declares (HEADER_LAYER below).
Prints one line per finding and exits 1 on any; else a line of counts.
"""
import collections
import os
import re
import subprocess
import sys

ALLOWED_CYCLES = [{"linalg", "gemm"}]

# The public headers (include/attnrank/*.h) and the families' headers, by layer.
HEADER_LAYER = {
    "base": ["rng", "sim", "stats", "revision", "message", "format", "regular_file"],
    "numerics": ["openblas", "attention", "convex", "dynamics", "equilibrium", "gradient", "layer", "linalg", "mask",
                 "rank", "softmax_network"],
    "rules": ["theory", "expression"],
    "families": ["hardmax/hardmax", "markov/markov", "masks/masks", "convex/convex"],
    "theory": [],
    "spec": ["registry", "spec", "conjecture", "attack"],
    "store": ["store"],
    "platform": ["process", "signals", "blas_core", "mpi_world", "output", "provenance"],
    "engine": ["engine", "judge", "plan", "progress"],
    "cli": ["cli", "report", "builtin_families"],
}
# Where each layer's sources are.
LAYER_DIRS = {
    "base": ["sim/01-base"], "numerics": ["sim/02-numerics"], "rules": ["sim/04-rules"],
    "families": ["sim/05-families"], "theory": ["sim/06-theory"], "spec": ["sim/07-spec"], "store": ["sim/08-store"],
    "platform": ["sim/03-platform"], "engine": ["sim/09-engine"], "cli": ["sim/10-cli"],
}


def module_of(obj):
    """libattnrank_store.a.p/store_hdf5.c.o -> store"""
    base = os.path.basename(obj).split(".")[0]
    return base.split("_")[0]


def symbols(archive):
    out = subprocess.run(["nm", "-A", archive], capture_output=True, text=True, check=True).stdout
    defined, used = {}, collections.defaultdict(set)
    for line in out.splitlines():
        head, _, rest = line.rpartition(":")
        obj = head.split(":")[-1]
        parts = rest.split()
        if len(parts) == 3 and parts[1] in "TDBRCG":
            defined[parts[2]] = obj
        elif len(parts) == 2 and parts[0] == "U":
            used[obj].add(parts[1])
    return defined, used


def check_objects(layers, problems):
    defined, used, layer_of = {}, collections.defaultdict(set), {}
    for rank, (name, archive) in enumerate(layers):
        d, u = symbols(archive)
        for sym, obj in d.items():
            defined[sym] = (module_of(obj), rank)
        for obj, syms in u.items():
            used[(module_of(obj), rank)] |= syms
    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for (mod, rank), syms in used.items():
        layer_of[mod] = rank
        for sym in syms:
            if sym not in defined:
                continue
            target, target_rank = defined[sym]
            layer_of[target] = target_rank
            if target == mod:
                continue
            edges[mod][target].add(sym)
            if target_rank > rank:
                problems.append(f"up-arrow: {mod} ({layers[rank][0]}) calls {sorted(edges[mod][target])[0]} of "
                                f"{target} ({layers[target_rank][0]})")
    # cycles between modules (Tarjan)
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(set(edges) | set(layer_of)):
        if v not in index:
            visit(v)
    for comp in comps:
        if comp in ALLOWED_CYCLES:
            continue
        calls = [f"{a} -> {b} ({sorted(edges[a][b])[0]})" for a in sorted(comp) for b in sorted(edges[a]) if b in comp]
        problems.append("cycle: " + ", ".join(calls))
    return len(layer_of), sum(len(t) for t in edges.values())


def check_includes(root, layer_names, problems):
    rank = {name: r for r, name in enumerate(layer_names)}
    header_rank = {}
    for layer, headers in HEADER_LAYER.items():
        for h in headers:
            header_rank[(h if "/" in h else "attnrank/" + h) + ".h"] = rank[layer]
    files = 0
    for layer in layer_names:
        for d in LAYER_DIRS[layer]:
            for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
                for f in filenames:
                    if not f.endswith((".c", ".h")):
                        continue
                    files += 1
                    path = os.path.join(dirpath, f)
                    for n, line in enumerate(open(path, encoding="utf-8"), 1):
                        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                        if not m:
                            continue
                        h = m.group(1)
                        if h not in header_rank:
                            if h.startswith("attnrank/") or h.count("/") == 1:
                                problems.append(f"{os.path.relpath(path, root)}:{n}: {h} has no layer in "
                                                "tests/layers/check_layers.py")
                            continue
                        if header_rank[h] > rank[layer]:
                            problems.append(f"{os.path.relpath(path, root)}:{n}: includes {h} of layer "
                                            f"{layer_names[header_rank[h]]}, above {layer}")
    # every public header has a layer
    for h in sorted(os.listdir(os.path.join(root, "include", "attnrank"))):
        if h.endswith(".h") and "attnrank/" + h not in header_rank:
            problems.append(f"include/attnrank/{h} has no layer in tests/layers/check_layers.py")
    return files


def main():
    root, build = sys.argv[1], sys.argv[2]
    layers = [tuple(a.split("=", 1)) for a in sys.argv[3:]]
    layers = [(n, a if os.path.isabs(a) else os.path.join(build, a)) for n, a in layers]
    problems = []
    modules, edges = check_objects(layers, problems)
    files = check_includes(root, [n for n, _ in layers], problems)
    for p in problems:
        print(p)
    if problems:
        print(f"layers: {len(problems)} finding(s)")
        return 1
    print(f"layers: {len(layers)} layers, {modules} modules, {edges} calls between modules, {files} files' "
          "includes: no call upward, no cycle but linalg/gemm, no header from above")
    return 0


if __name__ == "__main__":
    sys.exit(main())

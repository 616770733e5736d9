#!/usr/bin/python3
"""The library's layers, checked on what was built and what is written.

    check_layers.py SOURCE_ROOT BUILD_ROOT LAYER...   (LAYER: name=archive)

The layers are the folders of sim/, bottom to top in the order `ls` lists them: the
folder sim/NN-name is the layer "name". Meson's layer_order (the LAYER arguments) must
name the same layers in the same order; nothing else lists them.

1. Objects (nm): no file calls a file of a layer above its own, and no two files call
   each other, directly or around a cycle; nor do two modules (a module is the files of
   a layer that share their name's first word: store, store_hdf5, store_points ... are
   the module "store"). The one pair allowed: linalg and gemm_small (linalg's gemm picks
   gemm_small's kernel for small products, which computes its remainder with linalg's
   gemm).
2. Sources: no file of a layer includes a header of a layer above it (a test beside the
   code, test_*.c, is a client of the whole library and not checked). A header in a
   layer's folder is that layer's; a public header (include/attnrank/X.h) is the layer's
   whose objects define the functions and data it declares. A public header that
   declares nothing a layer defines, or things of two layers, is a finding:
   declarations live with their definitions.
Prints one line per finding and exits 1 on any; else a line of counts.
"""
import collections
import os
import re
import subprocess
import sys

ALLOWED_CYCLES = [{"linalg", "gemm"}]
LAYER_FOLDER = re.compile(r"^\d\d-([a-z]+)$")


def layer_folders(root, problems):
    """[(name, folder)] of sim/, in `ls` order."""
    out = []
    for d in sorted(os.listdir(os.path.join(root, "sim"))):
        if not os.path.isdir(os.path.join(root, "sim", d)):
            continue
        m = LAYER_FOLDER.match(d)
        if not m:
            problems.append(f"sim/{d}: not a layer's name (NN-name, NN its place from the bottom)")
            continue
        out.append((m.group(1), os.path.join("sim", d)))
    return out


def file_of(obj):
    """libattnrank_store.a.p/store_hdf5.c.o -> store_hdf5"""
    base = os.path.basename(obj)
    return base[:-len(".c.o")] if base.endswith(".c.o") else base.split(".")[0]


def module_of(node):
    """(rank, "store_hdf5") -> (rank, "store")"""
    return node[0], node[1].split("_")[0]


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


def find_cycles(nodes, edges, what, problems):
    """One finding per cycle (Tarjan's strongly connected components) but the one allowed."""
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
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    for comp in comps:
        if len(comp) == 2 and {m.split("_")[0] for _, m in comp} in ALLOWED_CYCLES:
            continue
        calls = [f"{a[1]} -> {b[1]} ({sorted(edges[a][b])[0]})" for a in sorted(comp) for b in sorted(edges[a])
                 if b in comp]
        problems.append(f"cycle between {what}: " + ", ".join(calls))


def check_objects(layers, problems):
    """Returns the layer (rank) of every symbol the library defines, and counts."""
    defined, used = {}, collections.defaultdict(set)
    for rank, (name, archive) in enumerate(layers):
        d, u = symbols(archive)
        for sym, obj in d.items():
            defined[sym] = ((rank, file_of(obj)), rank)
        for obj, syms in u.items():
            used[(rank, file_of(obj))] |= syms
    nodes = {node for node, _ in defined.values()} | set(used)
    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    module_edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for node, syms in used.items():
        for sym in syms:
            if sym not in defined or defined[sym][0] == node:
                continue
            target, target_rank = defined[sym]
            edges[node][target].add(sym)
            if module_of(target) != module_of(node):
                module_edges[module_of(node)][module_of(target)].add(sym)
    for node in sorted(edges):
        for target in sorted(edges[node]):
            if target[0] > node[0]:
                problems.append(f"up-arrow: {node[1]} ({layers[node[0]][0]}) calls {sorted(edges[node][target])[0]} of "
                                f"{target[1]} ({layers[target[0]][0]})")
    find_cycles(nodes, edges, "files", problems)
    find_cycles({module_of(n) for n in nodes}, module_edges, "modules", problems)
    layer_of_symbol = {sym: rank for sym, (_, rank) in defined.items()}
    return layer_of_symbol, len(nodes), sum(len(t) for t in edges.values())


def file_scope_text(path):
    """A header's text with comments, preprocessor lines and every {...} body taken out:
    what is left declares (prototypes, extern data, typedef names)."""
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
    text = re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    out, depth = [], 0
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def public_header_layers(root, layer_names, layer_of_symbol, problems):
    """{"attnrank/X.h": rank} for the public headers, from what they declare."""
    ranks = {}
    folder = os.path.join(root, "include", "attnrank")
    for h in sorted(os.listdir(folder)):
        if not h.endswith(".h"):
            continue
        declared = set(re.findall(r"\b[A-Za-z_]\w*\b", file_scope_text(os.path.join(folder, h))))
        where = collections.defaultdict(list)
        for name in sorted(declared & set(layer_of_symbol)):
            where[layer_of_symbol[name]].append(name)
        if not where:
            problems.append(f"include/attnrank/{h}: declares nothing a layer defines, so it has no layer")
        elif len(where) > 1:
            parts = "; ".join(f"{', '.join(names[:3])} of {layer_names[r]}" for r, names in sorted(where.items()))
            problems.append(f"include/attnrank/{h}: declares things of {len(where)} layers ({parts}): a declaration "
                            "lives in a header of the layer that defines it")
        if where:
            ranks["attnrank/" + h] = min(where)  # a mixed header is one finding above, not one per includer
    return ranks


def check_includes(root, folders, header_rank, problems):
    rank_of_folder = {d: r for r, (_, d) in enumerate(folders)}
    names = [n for n, _ in folders]

    def rank_of(path):
        rel = os.path.relpath(path, root).split(os.sep)
        return rank_of_folder.get(os.path.join(*rel[:2])) if len(rel) > 2 else None

    files = 0
    for layer_rank, (layer, d) in enumerate(folders):
        for dirpath, _, filenames in os.walk(os.path.join(root, d)):
            for f in sorted(filenames):
                if not f.endswith((".c", ".h")) or f.startswith("test_"):
                    continue  # a test beside the code (test_*.c) is a client of the whole library
                files += 1
                path = os.path.join(dirpath, f)
                for n, line in enumerate(open(path, encoding="utf-8"), 1):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    h, r = m.group(1), None
                    if h.startswith("attnrank/"):
                        if os.path.exists(os.path.join(root, "include", h)):
                            r = header_rank.get(h)  # None: reported with the header
                    else:  # beside the file, or in a layer's folder (the families' include directory)
                        for base in [dirpath] + [os.path.join(root, fd) for _, fd in folders]:
                            if os.path.exists(os.path.join(base, h)):
                                r = rank_of(os.path.join(base, h))
                                break
                    if r is not None and r > layer_rank:
                        problems.append(f"{os.path.relpath(path, root)}:{n}: includes {h} of layer {names[r]}, "
                                        f"above {layer}")
    return files


def main():
    args = sys.argv[1:]
    root, build = args[0], args[1]
    layers = [tuple(a.split("=", 1)) for a in args[2:]]
    layers = [(n, a if os.path.isabs(a) else os.path.join(build, a)) for n, a in layers]
    problems = []
    folders = layer_folders(root, problems)
    if [n for n, _ in layers] != [n for n, _ in folders]:
        problems.append(f"meson's layer_order ({' '.join(n for n, _ in layers)}) is not the folders of sim/ in "
                        f"order ({' '.join(n for n, _ in folders)})")
        folders = [(n, d) for n, d in folders if n in dict(layers)]
        layers = [(n, dict(layers)[n]) for n, _ in folders]
    layer_of_symbol, modules, edges = check_objects(layers, problems)
    header_rank = public_header_layers(root, [n for n, _ in layers], layer_of_symbol, problems)
    sources = check_includes(root, folders, header_rank, problems)
    for p in problems:
        print(p)
    if problems:
        print(f"layers: {len(problems)} finding(s)")
        return 1
    print(f"layers: {len(layers)} layers ({', '.join(d for _, d in folders)}), {modules} files, {edges} calls "
          f"between files, {len(header_rank)} public headers, {sources} files' includes: no call upward, no cycle "
          "but linalg/gemm_small, no header from above")
    return 0


if __name__ == "__main__":
    sys.exit(main())

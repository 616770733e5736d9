#!/usr/bin/python3
"""CLI tests: the OpenBLAS core attnrank runs with, how it is chosen, and that results do
not depend on it beyond round-off.

usage: blas_core.py ATTNRANK CASE     (meson registers one test per case)

Most cases run attnrank_test (ATTNRANK_BLAS_TEST_EXE), the test build with the BLAS
core's hooks (include/attnrank/test_hooks.h): ATTNRANK_TEST_BLAS_DETECTED pretends OpenBLAS detected another
core (how a Zen 3 machine, where OpenBLAS picks Zen, gets the Prescott fallback to
choose from), ATTNRANK_TEST_BLAS_CANDIDATE bypasses the flag check, ATTNRANK_TEST_BLAS_CHILD
makes the check's child crash, hang or lie, ATTNRANK_TEST_BLAS_TIMEOUT shortens its
timeout, ATTNRANK_TEST_BLAS_TRACE prints what happens. The program users run has none of
them. Every run gets its own XDG_CACHE_HOME: the user's cache is never touched.
"""
import json
import os
import re
import resource
import stat
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli  # noqa: E402
from test_cli import check, write  # noqa: E402

HOOKED = os.environ.get("ATTNRANK_BLAS_TEST_EXE")
TINY = 'seed = 3; experiments = ( { name = "e"; simulator = "hardmax_rank"; trials = 20; n = 8; d_h = 2; } );\n'
NOTE = "attnrank: note: OpenBLAS uses its"


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def has_avx512():
    return {"avx512f", "avx512dq", "avx512bw", "avx512vl"} <= cpu_flags()


def has_avx2():
    return {"avx2", "fma"} <= cpu_flags()


def need_unset():
    """The cases that exercise attnrank's own choice need OPENBLAS_CORETYPE unset; where
    the environment sets it they are skipped: it is never changed."""
    if "OPENBLAS_CORETYPE" in os.environ:
        print(f"OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']!r} is set in this environment: attnrank "
              "leaves it alone, so its own choice cannot be tested here (skipped; unset it to run this case)")
        sys.exit(77)


def candidates():
    """The cores attnrank tries above a pretended Prescott on this CPU, best first
    (blas_core.c: ar_blas_core_candidates): SkylakeX then Haswell with AVX-512, Haswell
    with AVX2 + FMA only."""
    return (["SkylakeX"] if has_avx512() else []) + (["Haswell"] if has_avx2() else [])


def need_candidates():
    """The cases of attnrank's own choice need a CPU with at least AVX2 + FMA; each prints
    the candidates it expects, so a log says which path ran."""
    if not candidates():
        print("this case needs a CPU with AVX2 and FMA (skipped)")
        sys.exit(77)
    print(f"this CPU: {'AVX-512' if has_avx512() else 'AVX2'}; candidates above Prescott: {' '.join(candidates())}")
    return candidates()[0]


def detected_core(tmp):
    """The core OpenBLAS itself detects here (what runs when a candidate is refused)."""
    proc = attnrank(test_cli.EXE, ["--version"], base_env(tmp, cache="detect", ATTNRANK_BLAS_CORE="off"))
    m = re.search(r"\(core (\w+), ", proc.stdout)
    check(m, f"--version names the core: {proc.stdout!r}")
    return m.group(1)


def base_env(tmp, cache="cache", **extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ATTNRANK_TEST_BLAS") and k not in ("ATTNRANK_BLAS_CORE", "ATTNRANK_BLAS_CORE_CHOSEN")}
    env["XDG_CACHE_HOME"] = f"{tmp}/{cache}"
    env.update({k: v for k, v in extra.items() if v is not None})
    return env


def attnrank(exe, args, env, timeout=120, preexec=None):
    try:
        return subprocess.run([exe] + args, capture_output=True, text=True, env=env, timeout=timeout,
                              preexec_fn=preexec)
    except subprocess.TimeoutExpired:
        raise test_cli.Failure(f"{exe} {' '.join(args)} hangs (over {timeout} s)")


def hooked(tmp, args, cache="cache", **extra):
    """The hooked program with a trace, a pretended Prescott unless told otherwise."""
    check(HOOKED and os.path.exists(HOOKED), f"the hooked program is missing: {HOOKED!r}")
    extra.setdefault("ATTNRANK_TEST_BLAS_DETECTED", "Prescott")
    extra.setdefault("ATTNRANK_TEST_BLAS_TRACE", "1")
    return attnrank(HOOKED, args, base_env(tmp, cache, **extra))


def spawned(proc):
    return len(re.findall(r"trace: self-check of \w+: spawned", proc.stderr))


def notes(proc):
    return [line for line in proc.stderr.splitlines() if line.startswith(NOTE)]


def origin(proc):
    m = re.search(r"^BLAS core: (\S+) \((\w+)\)$", proc.stdout, re.M)
    check(m, f"info names the core and its origin: {proc.stdout!r}")
    return m.group(1), m.group(2)


def cache_files(tmp, cache="cache"):
    folder = f"{tmp}/{cache}/attnrank"
    return sorted(f"{folder}/{n}" for n in os.listdir(folder)) if os.path.isdir(folder) else []


def figure_environment(exe, tmp, result, env):
    """The environment attnrank's figure scripts get: a plot_all.py that saves it."""
    plots = f"{tmp}/envplots"
    os.makedirs(plots, exist_ok=True)
    write(f"{plots}/plot_all.py", "import json, os, sys\n"
          "json.dump(dict(os.environ), open(os.environ['ENV_DUMP'], 'w'))\n")
    dump = f"{tmp}/env.json"
    env = dict(env, ATTNRANK_PLOTS=plots, ENV_DUMP=dump)
    proc = attnrank(exe, ["report", result, "-o", f"{tmp}/rep"], env)
    check(proc.returncode == 0 and os.path.exists(dump), f"report: {proc.returncode} {proc.stderr!r}")
    with open(dump) as f:
        return json.load(f)


# ---- cases ------------------------------------------------------------------------

def case_info_detected(tmp):
    """On this machine (Zen 3: OpenBLAS picks Zen, nothing better exists) info says
    "detected", nothing is checked or cached, and stderr stays empty; result files record
    the origin; files without the attribute (older ones) still read."""
    need_unset()
    env = base_env(tmp)
    proc = attnrank(test_cli.EXE, ["info"], env)
    check(proc.returncode == 0 and proc.stderr == "", f"info: {proc.returncode} {proc.stderr!r}")
    core, how = origin(proc)
    print(proc.stdout)
    if "self-check not needed" in proc.stdout:
        check(how == "detected", f"nothing better: detected, got {how}")
        check(not os.path.exists(f"{tmp}/cache"), "nothing cached where nothing is checked")
    else:
        check(how in ("detected", "chosen"), f"origin {how}")
    check(f"(core {core}, {how})" in attnrank(test_cli.EXE, ["--version"], env).stdout, "--version says it too")
    spec = write(f"{tmp}/tiny.cfg", TINY)
    out = f"{tmp}/t.h5"
    check(attnrank(test_cli.EXE, ["run", spec, "-o", out, "-q"], env).returncode == 0, "run")
    with h5py.File(out, "r") as f:
        check(f.attrs["openblas_core"] in (core, core.encode()), "openblas_core")
        check(f.attrs["openblas_core_origin"] in (how, how.encode()), "openblas_core_origin")
    proc = attnrank(test_cli.EXE, ["info", out], env)
    check(proc.returncode == 0 and re.search(rf"openblas_core_origin +{how}", proc.stdout), f"info FILE: {proc.stdout}")
    with h5py.File(out, "r+") as f:
        del f.attrs["openblas_core_origin"]  # as a file written before this attribute
    proc = attnrank(test_cli.EXE, ["info", out], env)
    check(proc.returncode == 0 and "openblas_core_origin" not in proc.stdout and "openblas_core" in proc.stdout,
          f"an older file: {proc.returncode} {proc.stderr!r}")
    check(attnrank(test_cli.EXE, ["report", out, "-o", f"{tmp}/rep"],
                   dict(env, ATTNRANK_PLOTS=f"{tmp}/none")).returncode == 0, "report on an older file")
    test_cli.one_line_error(attnrank(test_cli.EXE, ["info", out, out], env), "info: give one result file")


def case_environment(tmp):
    """OPENBLAS_CORETYPE set (even empty): "environment", never checked or replaced, and
    what attnrank starts (its figure scripts) gets the same value."""
    value = os.environ.get("OPENBLAS_CORETYPE", "Prescott")
    env = base_env(tmp, OPENBLAS_CORETYPE=value)
    proc = attnrank(test_cli.EXE, ["info"], env)
    core, how = origin(proc)
    check(how == "environment" and f"OPENBLAS_CORETYPE={value} in the environment" in proc.stdout, proc.stdout)
    if value == "Prescott":
        check(core == "Prescott", f"OpenBLAS runs the core asked for: {core}")
    # the hooked program, told OpenBLAS fell back: still no check, no start again
    proc = hooked(tmp, ["info"], OPENBLAS_CORETYPE=value)
    check(origin(proc)[1] == "environment" and spawned(proc) == 0 and "start again" not in proc.stderr
          and not notes(proc), f"left alone: {proc.stderr!r}")
    check(not cache_files(tmp), "nothing cached")
    proc = hooked(tmp, ["info"], OPENBLAS_CORETYPE="")
    check(origin(proc)[1] == "environment" and spawned(proc) == 0, f"an empty value is a value: {proc.stdout}")
    spec = write(f"{tmp}/tiny.cfg", TINY)
    out = f"{tmp}/t.h5"
    check(attnrank(test_cli.EXE, ["run", spec, "-o", out, "-q"], env).returncode == 0, "run")
    with h5py.File(out, "r") as f:
        check(f.attrs["openblas_core_origin"] in ("environment", b"environment"), "recorded as environment")
    seen = figure_environment(test_cli.EXE, tmp, out, env)
    check(seen.get("OPENBLAS_CORETYPE") == value, f"the figure scripts get the user's value: {seen.get('OPENBLAS_CORETYPE')!r}")
    # a marker not made by this process (inherited, or set by hand) does not make it "chosen"
    for marker in (f"{value}/Prescott/1", "Haswell/Prescott/abc", "x" * 5000, "//", "Haswell", "Haswell/Zen/"):
        proc = hooked(tmp, ["info"], OPENBLAS_CORETYPE=value, ATTNRANK_BLAS_CORE_CHOSEN=marker)
        check(proc.returncode == 0 and origin(proc)[1] == "environment", f"marker {marker[:20]!r}: {proc.stdout}")


MARKOV = 'seed = 3; experiments = ( { name = "m"; simulator = "markov_spectrum"; trials = 4; n = 64; } );\n'


def case_lacking_core(tmp):
    """OPENBLAS_CORETYPE naming a core whose kernels use instructions this CPU lacks
    (SkylakeX without AVX-512, Bulldozer without FMA4): OpenBLAS ran them and the run died
    of SIGILL at its first BLAS call, leaving OUT.partial and OUT.lock, while `info` said
    "decided by OPENBLAS_CORETYPE", exit 0. Now refused in one line naming the core and
    what is lacking, exit 2, before any work, for every command; never replaced. Only
    cores this CPU provably lacks (/proc/cpuinfo) are set; none: skipped."""
    flags = cpu_flags()
    lacking = [(core, what) for core, flag, what in (
        ("SkylakeX", "avx512f", "AVX-512"), ("Cooperlake", "avx512f", "AVX-512"), ("Bulldozer", "fma4", "FMA4"),
        ("Haswell", "avx2", "AVX2")) if flag not in flags]
    if "avx512f" in flags and "avx512_bf16" not in flags:
        lacking.append(("Cooperlake", "AVX512_BF16"))
    if not lacking:
        print("this CPU has every instruction set the table knows: nothing to refuse")
        sys.exit(77)
    spec = write(f"{tmp}/m.cfg", MARKOV)
    out = f"{tmp}/o.h5"
    for core, what in lacking:
        for args in (["run", spec, "-o", out, "-q"], ["plan", spec], ["info"], ["--version"]):
            proc = attnrank(test_cli.EXE, args, base_env(tmp, OPENBLAS_CORETYPE=core))
            check(proc.returncode == 2, f"{core} {args[0]}: exit {proc.returncode}, want 2: {proc.stderr!r}")
            test_cli.one_line_error(proc, f"OPENBLAS_CORETYPE={core}", what, "this CPU lacks")
        check(not [p for p in os.listdir(tmp) if p.startswith("o.h5")], f"nothing written: {os.listdir(tmp)}")
    check(not cache_files(tmp), "nothing cached")


def case_switch(tmp):
    """ATTNRANK_BLAS_CORE=off keeps OpenBLAS's choice without a check or a note; auto and
    empty are the default; anything else is refused in one line, exit 2, also under
    ulimit -v (no hang on OpenBLAS's pool)."""
    need_unset()
    proc = hooked(tmp, ["info"], ATTNRANK_BLAS_CORE="off")
    check(proc.returncode == 0 and origin(proc)[1] == "detected" and "ATTNRANK_BLAS_CORE=off" in proc.stdout,
          proc.stdout)
    check(spawned(proc) == 0 and not notes(proc) and not cache_files(tmp), f"off: nothing checked {proc.stderr!r}")
    for value in ("auto", ""):
        proc = attnrank(test_cli.EXE, ["--version"], base_env(tmp, ATTNRANK_BLAS_CORE=value))
        check(proc.returncode == 0 and proc.stderr == "", f"{value!r}: {proc.returncode} {proc.stderr!r}")
    limit = 200000 * 1024
    for value in ("on", "OFF", "1", "off ", "Haswell", "auto\n", "\x1b[31mred", "x" * 100000):
        for args in (["--version"], ["info"], ["run", "nothing.cfg"]):
            proc = attnrank(test_cli.EXE, args, base_env(tmp, ATTNRANK_BLAS_CORE=value))
            check(proc.returncode == 2, f"{value[:20]!r} {args}: exit {proc.returncode}")
            test_cli.one_line_error(proc, "ATTNRANK_BLAS_CORE=", "want auto (the default) or off")
            check("\x1b" not in proc.stderr and len(proc.stderr) < 300, f"shown printable and short: {proc.stderr!r}")
    if not test_cli.asan_build():
        proc = attnrank(test_cli.EXE, ["--version"], base_env(tmp, ATTNRANK_BLAS_CORE="on"), timeout=60,
                        preexec=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
        check(proc.returncode == 2, f"under ulimit -v: exit {proc.returncode} {proc.stderr!r}")


def case_chosen_cached(tmp):
    """OpenBLAS (pretended) fell back to Prescott: the best candidate (Haswell on an AVX2
    CPU, SkylakeX on an AVX-512 one) is checked in a child, passes, is cached, and the program starts again with it; the second start
    reads the cache and spawns nothing; result files say "chosen"; the figure scripts see
    the user's environment, not the chosen core."""
    need_unset()
    best = need_candidates()
    first = hooked(tmp, ["info"])
    check(first.returncode == 0 and spawned(first) == 1 and not notes(first), f"first: {first.stderr!r}")
    check(origin(first) == (best, "chosen"), f"first: {first.stdout}")
    check(f"{best} passed" in first.stdout and "cache " in first.stdout, first.stdout)
    files = cache_files(tmp)
    check(len(files) == 1, f"one cache entry: {files}")
    mode = os.stat(files[0]).st_mode
    check(stat.S_IMODE(mode) == 0o600 and stat.S_IMODE(os.stat(os.path.dirname(files[0])).st_mode) == 0o700,
          f"private: {oct(mode)}")
    text = open(files[0]).read()
    check(f"\nchosen {best}\n" in text and f"\ncandidates {' '.join(candidates())}\n" in text, text)
    check(files[0] in first.stdout, "info names the cache file")
    second = hooked(tmp, ["info"])
    check(spawned(second) == 0 and "cache hit" in second.stderr and origin(second) == (best, "chosen"),
          f"second: {second.stderr!r}")
    check(second.stderr.count("start again") == 1, f"one start again, no loop: {second.stderr!r}")
    spec = write(f"{tmp}/tiny.cfg", TINY)
    out = f"{tmp}/t.h5"
    proc = hooked(tmp, ["run", spec, "-o", out, "-q"])
    check(proc.returncode == 0 and spawned(proc) == 0 and not notes(proc), f"run: {proc.stderr!r}")
    with h5py.File(out, "r") as f:
        check(f.attrs["openblas_core"] in (best, best.encode()), f"the file records {best}")
        check(f.attrs["openblas_core_origin"] in ("chosen", b"chosen"), "...chosen")
    env = base_env(tmp, ATTNRANK_TEST_BLAS_DETECTED="Prescott")
    seen = figure_environment(HOOKED, tmp, out, env)
    check("OPENBLAS_CORETYPE" not in seen and "ATTNRANK_BLAS_CORE_CHOSEN" not in seen,
          f"the figure scripts see the user's environment: {seen.get('OPENBLAS_CORETYPE')!r}")
    # without XDG_CACHE_HOME (or with a relative one) the cache is ~/.cache/attnrank
    for xdg in (None, "relative/dir"):
        home = f"{tmp}/home{'' if xdg is None else '2'}"
        os.makedirs(home)
        env = base_env(tmp, HOME=home, ATTNRANK_TEST_BLAS_DETECTED="Prescott", ATTNRANK_TEST_BLAS_TRACE="1")
        del env["XDG_CACHE_HOME"]
        if xdg:
            env["XDG_CACHE_HOME"] = xdg
        proc = attnrank(HOOKED, ["info"], env)
        check(spawned(proc) == 1 and len(os.listdir(f"{home}/.cache/attnrank")) == 1, f"HOME: {proc.stderr!r}")
        check(not os.path.exists("relative"), "a relative XDG_CACHE_HOME is not used")
    # no HOME at all: checked, used, nothing written, no note
    env = base_env(tmp, ATTNRANK_TEST_BLAS_DETECTED="Prescott", ATTNRANK_TEST_BLAS_TRACE="1")
    del env["XDG_CACHE_HOME"]
    env.pop("HOME", None)
    proc = attnrank(HOOKED, ["info"], env)
    check(proc.returncode == 0 and origin(proc) == (best, "chosen") and "cache      none" in proc.stdout,
          f"no cache: {proc.stdout}")


def case_flag_check(tmp):
    """The candidates come from the CPU's flags: above a pretended Prescott an AVX2 CPU
    tries Haswell only, never SkylakeX, and an AVX-512 CPU SkylakeX first (Haswell only if
    SkylakeX fails); above SkylakeX nothing is tried, nor above Haswell or Zen on an AVX2
    CPU (no child, no cache, no note)."""
    need_unset()
    best = need_candidates()
    proc = hooked(tmp, ["--version"])
    check(f"{len(candidates())} candidate(s)" in proc.stderr and f"self-check of {best}" in proc.stderr
          and spawned(proc) == 1, f"{best} first, and alone when it passes: {proc.stderr!r}")
    check(has_avx512() or "SkylakeX" not in proc.stderr, f"no SkylakeX without AVX-512: {proc.stderr!r}")
    nothing_above = ("SkylakeX", "Cooperlake", "NeoverseN1", "Unknown") + (() if has_avx512() else ("Haswell", "Zen"))
    for detected in ("Haswell", "Zen") if has_avx512() else ():
        proc = hooked(tmp, ["info"], cache=f"c-{detected}", ATTNRANK_TEST_BLAS_DETECTED=detected)
        check(proc.returncode == 0 and "1 candidate(s)" in proc.stderr and "self-check of SkylakeX" in proc.stderr,
              f"above {detected} on an AVX-512 CPU: SkylakeX alone: {proc.stderr!r}")
    for detected in nothing_above:
        proc = hooked(tmp, ["info"], cache=f"c-{detected}", ATTNRANK_TEST_BLAS_DETECTED=detected)
        check(proc.returncode == 0 and "0 candidate(s)" in proc.stderr and spawned(proc) == 0 and not notes(proc),
              f"{detected}: {proc.stderr!r}")
        check(not os.path.exists(f"{tmp}/c-{detected}"), f"{detected}: nothing cached")


def own_children_left(tmp):
    """Self-check children still running that this case started: their environment names
    its folder (other tests, run in parallel, have children of their own)."""
    found = []
    for pid in subprocess.run(["pgrep", "-f", "blas-core-self-check"], capture_output=True, text=True).stdout.split():
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if tmp.encode() in f.read():
                    found.append(pid)
        except OSError:
            pass  # it ended meanwhile
    return found


def case_crash_contained(tmp):
    """A candidate that crashes, hangs, gives wrong numbers or is not the core asked for
    is refused; the program goes on with OpenBLAS's core and says so in one line, once
    per machine. The real crash: OpenBLAS's SkylakeX kernels on a CPU without AVX-512
    (the hook skips the flag check) die of SIGILL in the child; on an AVX-512 CPU that
    sub-case cannot happen and is left out (the log says so). A misbehaving child fails
    every candidate, each checked once."""
    need_unset()
    best = need_candidates()
    detected = detected_core(tmp)
    level = "AVX-512" if has_avx512() else "AVX2"
    tried = len(candidates())
    cases = {
        "sigsegv": ({"ATTNRANK_TEST_BLAS_CHILD": "crash"}, f"{best} crashed (signal 11", tried),
        "hang": ({"ATTNRANK_TEST_BLAS_CHILD": "hang", "ATTNRANK_TEST_BLAS_TIMEOUT": "1"},
                 f"{best} did not finish within 1 s", tried),
        "garbage": ({"ATTNRANK_TEST_BLAS_CHILD": "garbage"}, f"{best}: dgesdd 200x137 differs by 1e-06 sigma_1",
                    tried),
        "unknown name": ({"ATTNRANK_TEST_BLAS_CANDIDATE": "Bogus"}, "when asked for Bogus", 1),
    }
    if not has_avx512():
        cases["sigill"] = ({"ATTNRANK_TEST_BLAS_CANDIDATE": "SkylakeX"}, "SkylakeX crashed (signal 4", 1)
    print(f"sub-cases on this {level} CPU (OpenBLAS detects {detected}): {', '.join(cases)}"
          + ("" if "sigill" in cases else "; sigill left out (SkylakeX runs here)"))
    for label, (hooks, why, children) in cases.items():
        cache = f"cache-{label.replace(' ', '_')}"
        first = hooked(tmp, ["--version"], cache=cache, **hooks)
        check(first.returncode == 0 and f"(core {detected}, detected)" in first.stdout, f"{label}: {first.stdout!r}")
        check(spawned(first) == children and len(notes(first)) == 1 and why in notes(first)[0],
              f"{label}: {children} check(s), one note saying why: {first.stderr!r}")
        check(f"on this {level} CPU" in notes(first)[0] and "Prescott kernels" in notes(first)[0], notes(first)[0])
        second = hooked(tmp, ["--version"], cache=cache, **hooks)
        check(spawned(second) == 0 and not notes(second), f"{label}: told once per machine: {second.stderr!r}")
        info = hooked(tmp, ["info"], cache=cache, **hooks)
        check(origin(info)[1] == "detected" and why in info.stdout, f"{label}: info says why: {info.stdout}")
    check(not own_children_left(tmp), f"no child left behind: {own_children_left(tmp)}")
    # a cache that cannot be written (its folder's parent is a file): checked and told once per process
    write(f"{tmp}/file", "")
    for _ in range(2):
        proc = hooked(tmp, ["--version"], cache="file/sub", ATTNRANK_TEST_BLAS_CHILD="crash")
        check(proc.returncode == 0 and spawned(proc) == tried and len(notes(proc)) == 1,
              f"unwritable: {proc.stderr!r}")


def case_could_not_check(tmp):
    """A check that could not start (no file descriptor for its pipe) learnt nothing: it is
    not cached as a failure and no note blames the core; the next start checks and uses it."""
    need_unset()
    best = need_candidates()
    import resource
    few_fds = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (4, 4))  # noqa: E731
    env = base_env(tmp, "cache", ATTNRANK_TEST_BLAS_DETECTED="Prescott", ATTNRANK_TEST_BLAS_TRACE="1")
    first = attnrank(HOOKED, ["info"], env, preexec=few_fds)
    check(first.returncode == 0 and not notes(first) and not cache_files(tmp), f"{first.stdout!r} {first.stderr!r}")
    check("could not start" in first.stdout, f"info says why: {first.stdout}")
    second = hooked(tmp, ["--version"])
    check(spawned(second) == 1 and f"{best}, chosen" in second.stdout and len(cache_files(tmp)) == 1,
          f"checked again and chosen: {second.stdout!r} {second.stderr!r}")


def entry_text(key, cands=None, chosen=None, hinted="no", detail="x"):
    cands = " ".join(candidates()) if cands is None else cands
    chosen = candidates()[0] if chosen is None else chosen
    return (f"attnrank blas core cache 1\nmachine {key}\ncandidates {cands}\nchosen {chosen}\n"
            f"hinted {hinted}\ndetail {detail}\n")


def case_hostile_cache(tmp):
    """A cache file that is corrupt, huge, a link, a FIFO, a folder, another user's,
    writable by others, for another machine or naming a core the flags did not allow is
    ignored (the check runs again and, where it can, replaces it), never a crash or a hang."""
    need_unset()
    best = need_candidates()
    first = hooked(tmp, ["info"], cache="good")
    path = cache_files(tmp, "good")[0]
    good = open(path).read()
    key = re.search(r"^machine (.*)$", good, re.M).group(1)
    name = os.path.basename(path)

    def setup(label, make):
        folder = f"{tmp}/{label}/attnrank"
        os.makedirs(folder)
        make(f"{folder}/{name}")
        return label

    def garbage(p):
        with open(p, "wb") as f:
            f.write(os.urandom(3000))

    def huge(p):
        with open(p, "wb") as f:
            f.truncate(1 << 30)  # sparse: 1 GiB that is never read

    def truncated(p):
        write(p, good[: len(good) // 2])

    def link(p):
        target = f"{tmp}/elsewhere"
        write(target, good)
        os.symlink(target, p)

    def fifo(p):
        os.mkfifo(p)

    def folder(p):
        os.mkdir(p)

    def others_writable(p):
        write(p, good)
        os.chmod(p, 0o666)

    def other_machine(p):
        write(p, entry_text(key + " but another"))

    def foreign_core(p):
        write(p, entry_text(key, chosen="Zen" if has_avx512() else "SkylakeX"))  # not a candidate here

    def control_chars(p):
        write(p, entry_text(key, chosen="-", detail="\x1b[2J\x07 wiped"))

    def nul(p):
        write(p, good.replace("chosen", "cho\0sen"))

    def extra_line(p):
        write(p, good + f"chosen {best}\n")

    makers = [garbage, huge, truncated, link, fifo, folder, others_writable, other_machine, foreign_core, nul,
              extra_line]
    if os.geteuid() == 0:
        def foreign_owner(p):
            write(p, good)
            os.chown(p, 65534, 65534)
        makers.append(foreign_owner)
    else:
        def unreadable(p):
            write(p, good)
            os.chmod(p, 0)
        makers.append(unreadable)
    for make in makers:
        label = setup(make.__name__, make)
        proc = hooked(tmp, ["info"], cache=label)
        check(proc.returncode == 0 and spawned(proc) == 1, f"{label}: ignored and checked again: {proc.stderr!r}")
        check(origin(proc) == (best, "chosen"), f"{label}: {proc.stdout}")
        p = f"{tmp}/{label}/attnrank/{name}"
        if make not in (folder,):
            check(os.path.isfile(p) and not os.path.islink(p) and open(p).read().startswith("attnrank blas core"),
                  f"{label}: replaced by a good entry")
    check(open(f"{tmp}/elsewhere").read() == good, "a link's target is not written through")
    # an entry that says no core passed, with control characters in its detail: no check, one note, printable
    label = setup("told", control_chars)
    proc = hooked(tmp, ["info"], cache=label)
    check(spawned(proc) == 0 and origin(proc)[1] == "detected" and len(notes(proc)) == 1, f"told: {proc.stderr!r}")
    check("\x1b" not in proc.stdout + proc.stderr and "\x07" not in proc.stderr, "printable")
    check(not notes(hooked(tmp, ["info"], cache=label)), "and told once")


def case_address_space(tmp):
    """Under ulimit -v the check does not run (its OpenBLAS buffer may not fit), nothing
    is cached or told; a cached proof is used with the pool's start merged into one exec
    (OPENBLAS_CORETYPE and OPENBLAS_NUM_THREADS=1 together), no loop, no hang."""
    need_unset()
    best = need_candidates()
    if test_cli.asan_build():
        print("an AddressSanitizer build: RLIMIT_AS cases run on the plain build")
        sys.exit(77)
    kib = 300000

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (kib * 1024, kib * 1024))
    env = base_env(tmp, ATTNRANK_TEST_BLAS_DETECTED="Prescott", ATTNRANK_TEST_BLAS_TRACE="1")
    proc = attnrank(HOOKED, ["info"], env, timeout=60, preexec=limited)
    check(proc.returncode == 0 and spawned(proc) == 0 and not notes(proc) and not cache_files(tmp),
          f"not checked under a limit: {proc.stderr!r}")
    check("did not run (the address space is limited)" in proc.stdout, proc.stdout)
    hooked(tmp, ["--version"])  # the check, without a limit
    proc = attnrank(HOOKED, ["info"], env, timeout=60, preexec=limited)
    starts = [l for l in proc.stderr.splitlines() if "start again" in l]
    check(starts == [f"attnrank: trace: start again with OPENBLAS_CORETYPE={best} OPENBLAS_NUM_THREADS=1"],
          f"one merged exec: {proc.stderr!r}")
    check(proc.returncode == 0 and origin(proc) == (best, "chosen"), proc.stdout)
    spec = write(f"{tmp}/tiny.cfg", TINY)
    proc = attnrank(HOOKED, ["run", spec, "-o", f"{tmp}/t.h5", "-q", "--threads", "1"], env, timeout=120,
                    preexec=limited)
    check(proc.returncode == 0, f"a run under the limit with the chosen core: {proc.stderr!r}")


CROSS_SPEC = """seed = 11;
experiments = (
  { name = "h"; simulator = "hardmax_rank"; trials = 200; n = [8, 32]; d_h = [2, 16]; sampler = "faithful"; },
  { name = "m"; simulator = "markov_spectrum"; trials = 40; n = [32, 96]; entries = "exponential"; }
);
"""
# SVD-based outputs (sigma1 ~ 1, sqrt(n) sigma2 ~ 2, stable ranks ~ 2): one trial's value
# moves by at most p(n) eps sigma_1 (times sqrt(n) for sqrt_n_sigma2, divided by
# sigma_1^2 for the stable rank) between cores: with p(n) = 32 n (the self-check's
# bound), n = 96: 32 * 96 * 2.2e-16 * sqrt(96) ~ 7e-12 at most; statistics over trials
# move no more than their worst trial. Tolerance: 1e-11 relative to max(1, |value|).
SVD_TOLERANCE = 1e-11


def case_cross_core(tmp):
    """Integer outputs (hardmax ranks: every statistic and histogram, counts, the ledger)
    are bitwise identical under every core this CPU runs; SVD-based outputs (markov's
    sigma1, sqrt(n) sigma2, stable ranks, densities) agree within SVD_TOLERANCE. Only with
    OPENBLAS_CORETYPE unset here: the cores are set for attnrank's runs alone."""
    need_unset()
    cores = [None, "Prescott"] + (["Sandybridge"] if "avx" in cpu_flags() else []) + \
        (["Haswell"] if has_avx2() else []) + (["SkylakeX"] if has_avx512() else []) + \
        (["Cooperlake"] if has_avx512() and "avx512_bf16" in cpu_flags() else [])
    spec = write(f"{tmp}/cross.cfg", CROSS_SPEC)
    files = {}
    for core in cores:
        out = f"{tmp}/{core or 'detected'}.h5"
        env = base_env(tmp, OPENBLAS_CORETYPE=core)
        proc = attnrank(test_cli.EXE, ["run", spec, "-o", out, "-q", "--threads", "1"], env, timeout=600)
        check(proc.returncode in (0, 1, 4), f"{core}: exit {proc.returncode} {proc.stderr!r}")
        with h5py.File(out, "r") as f:
            used = f.attrs["openblas_core"]
            used = used.decode() if isinstance(used, bytes) else used
        check(core is None or used == core, f"ran {used}, asked {core}")
        files[core or f"detected ({used})"] = out
    names = list(files)
    ref = test_cli.datasets(files[names[0]])
    with h5py.File(files[names[0]], "r") as f:
        kinds = {}

        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                kinds[name] = obj.dtype
        f.visititems(visit)
    worst = {}
    for other in names[1:]:
        got = test_cli.datasets(files[other])
        check(got.keys() == ref.keys(), f"{other}: the same datasets")
        with h5py.File(files[names[0]], "r") as fa, h5py.File(files[other], "r") as fb:
            for name in ref:
                integer = name.startswith("h/") or name.endswith(("/count", "/failed", "/hist", "/done")) \
                    or not np.issubdtype(kinds[name], np.floating)
                if name.startswith("verdicts"):
                    continue  # compared below, column by column
                if integer:
                    check(ref[name] == got[name], f"{other}: {name} differs bitwise from {names[0]}")
                    continue
                a, b = np.asarray(fa[name][()], dtype=float), np.asarray(fb[name][()], dtype=float)
                both = np.isfinite(a) & np.isfinite(b)
                check(np.array_equal(np.isfinite(a), np.isfinite(b)), f"{other}: {name} NaNs differ")
                dev = float(np.max(np.abs(a[both] - b[both]) / np.maximum(1, np.abs(a[both])))) if both.any() else 0
                worst[(other, name)] = dev
                check(dev <= SVD_TOLERANCE, f"{other}: {name} differs by {dev:.3g} (tolerance {SVD_TOLERANCE})")
            va, vb = fa["verdicts"][()], fb["verdicts"][()]
            check([r["verdict"] for r in va] == [r["verdict"] for r in vb], f"{other}: the same verdicts")
    print(f"cores: {', '.join(names)}; hardmax datasets bitwise identical")
    for other in names[1:]:
        mine = {n: d for (o, n), d in worst.items() if o == other}
        top = sorted(mine.items(), key=lambda kv: -kv[1])[:4]
        print(f"{other} vs {names[0]}: largest relative differences " +
              ", ".join(f"{n} {d:.2g}" for n, d in top))


if __name__ == "__main__":
    test_cli.main(test_cli.cases_of(globals()))

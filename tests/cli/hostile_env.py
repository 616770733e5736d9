#!/usr/bin/python3
"""Hostile-user CLI tests: the environment: memory and thread limits, hostile OMP/OpenBLAS settings, plan against measured runs.

usage: hostile_env.py ATTNRANK CASE     (meson registers one test per case)
"""
import os
import re
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli  # noqa: E402
from test_cli import asan_build, check, one_line_error, run, write, SMALL_SPEC  # noqa: E402,F401


def limited(args, kib, timeout=60, env=None):
    """attnrank ARGS under an address-space limit (ulimit -v KIB); a hang fails the case
    instead of the suite."""
    def preexec():
        resource.setrlimit(resource.RLIMIT_AS, (kib * 1024, kib * 1024))
    try:
        return subprocess.run([test_cli.EXE] + args, capture_output=True, text=True, timeout=timeout,
                              preexec_fn=preexec, env=dict(os.environ, **(env or {})))
    except subprocess.TimeoutExpired:
        raise test_cli.Failure(f"attnrank {' '.join(args)} under ulimit -v {kib} hangs (over {timeout} s)")


MARKOV_1024 = 'seed = 1; experiments = ( { name = "m"; simulator = "markov_spectrum"; trials = 4; n = 1024; } );\n'


def case_address_space_limit(tmp):
    """Under ulimit -v the program never hangs: OpenBLAS's pool is not started (its threads
    would spin on a buffer they cannot map, and exit would wait for them), and a run whose
    team and largest point do not fit is refused up front."""
    if asan_build():
        print("an AddressSanitizer build: RLIMIT_AS cases run on the plain build")
        sys.exit(77)
    for kib in (200000, 100000):
        proc = limited(["--version"], kib)
        check(proc.returncode == 0 and "OpenBLAS" in proc.stdout, f"--version under {kib}: {proc.returncode} "
              f"{proc.stderr!r}")
    spec = write(f"{tmp}/markov.cfg", MARKOV_1024)
    for args in (["run", spec, "-o", f"{tmp}/m.h5", "-q"], ["plan", spec]):
        proc = limited(args, 100000)
        one_line_error(proc, "markov.cfg", "needs", "ulimit -v", "OpenBLAS buffer")
        check(proc.returncode == 2, f"{args[0]} under ulimit -v 100000: exit {proc.returncode}")
    check(not [p for p in os.listdir(tmp) if p.startswith("m.h5")], f"nothing written: {os.listdir(tmp)}")
    # room for one thread but not two: --threads 2 is refused, --threads 1 runs
    proc = limited(["run", spec, "-o", f"{tmp}/m.h5", "-q", "--threads", "2"], 350000)
    one_line_error(proc, "with 2 thread(s)", "ulimit -v")
    proc = limited(["run", spec, "-o", f"{tmp}/m.h5", "-q", "--threads", "1"], 350000)
    check(proc.returncode in (0, 1, 4) and os.path.exists(f"{tmp}/m.h5"), f"one thread fits: {proc.returncode} "
          f"{proc.stderr!r}")


def refused_for(proc, name):
    """Exit 2 and our one line naming the variable. libgomp itself warns about a value it
    cannot parse when the program loads, before main(): that line may come first."""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    ours = [line for line in lines if not line.startswith("libgomp: Invalid value for environment variable")]
    check(proc.returncode == 2, f"{name}: exit {proc.returncode}, want 2: {proc.stderr!r}")
    check(len(ours) == 1 and ours[0].startswith("attnrank: ") and name in ours[0],
          f"{name}: want one line naming it, got {proc.stderr!r}")


def case_thread_counts(tmp):
    """Thread counts from the environment and the command line: too many are refused in
    one line with exit 2 (libgomp segfaulted at 100000 and exited 1, the verdict status,
    at 40000); malformed OpenMP variables are refused, not ignored; legal ones run."""
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    out = f"{tmp}/o.h5"
    for value in ("100000", "40000", "99999999999", "5000"):
        proc = run(["run", spec, "-o", out, "-q"], env={"OMP_NUM_THREADS": value}, timeout=120)
        refused_for(proc, "OMP_NUM_THREADS")
        check("at most 4096" in proc.stderr, f"says the limit: {proc.stderr!r}")
    for value in ("abc", "-1", "0", "", "3abc", "2,", "1,,2"):
        refused_for(run(["run", spec, "-o", out, "-q"], env={"OMP_NUM_THREADS": value}), "OMP_NUM_THREADS")
        refused_for(run(["plan", spec], env={"OMP_NUM_THREADS": value}), "OMP_NUM_THREADS")
    refused_for(run(["run", spec, "-o", out, "-q"], env={"OMP_THREAD_LIMIT": "abc"}), "OMP_THREAD_LIMIT")
    refused_for(run(["run", spec, "-o", out, "-q"], env={"OMP_STACKSIZE": "lots"}), "OMP_STACKSIZE")
    one_line_error(run(["run", spec, "-o", out, "-q", "--threads", "100000"], expect=2), "--threads", "100000")
    check(not [p for p in os.listdir(tmp) if p.startswith("o.h5")], f"nothing written: {os.listdir(tmp)}")
    # legal values: a nested list, spaces, a thread limit below --threads, a stack size
    reference = f"{tmp}/ref.h5"
    run(["run", spec, "-o", reference, "-q", "--threads", "1"], expect=0)
    for env in ({"OMP_NUM_THREADS": "2,1"}, {"OMP_NUM_THREADS": " 3 "}, {"OMP_THREAD_LIMIT": "1"},
                {"OMP_STACKSIZE": "16M"}):
        run(["run", spec, "-o", out, "-q", "--force"], expect=0, env=env)
        test_cli.same_datasets(reference, out)


LN_SPEC = 'seed = 1; experiments = ( { name = "x"; simulator = "ln_equilibria"; trials = 4; claims = []; } );\n'


def stack_limited(args, kib, env=None):
    """attnrank ARGS with the main thread's stack limited (ulimit -s KIB)."""
    def preexec():
        resource.setrlimit(resource.RLIMIT_STACK, (kib * 1024, resource.RLIM_INFINITY))
    return subprocess.run([test_cli.EXE] + args, capture_output=True, text=True, timeout=120, preexec_fn=preexec,
                          env=dict(os.environ, **(env or {})))


def case_small_stacks(tmp):
    """Stacks too small for a run: OMP_STACKSIZE 16K-64K made libgomp exit 1 (the status of
    a contradicted verdict, "Thread creation failed"), 72K-96K and ulimit -s 32-80
    crashed simulators (SIGSEGV), each leaving OUT.partial and OUT.lock. Now a stack
    below 1 MiB (for each thread: OMP_STACKSIZE, GOMP_STACKSIZE, ulimit -s) is refused
    in one line, exit 2, before any file is made; 1M runs, with the same bits."""
    spec = write(f"{tmp}/ln.cfg", LN_SPEC)
    out = f"{tmp}/o.h5"
    for name, value in (("OMP_STACKSIZE", "64K"), ("OMP_STACKSIZE", "96K"), ("OMP_STACKSIZE", "512K"),
                        ("GOMP_STACKSIZE", "100K")):
        for args in (["run", spec, "-o", out, "-q", "--threads", "2"], ["plan", spec]):
            proc = run(args, env={name: value}, timeout=120)
            check(proc.returncode == 2, f"{name}={value} {args[0]}: exit {proc.returncode}, want 2: {proc.stderr!r}")
            one_line_error(proc, f"{name}='{value}'", "below the 1 MiB")
    for threads in ("1", "2"):
        proc = stack_limited(["run", spec, "-o", out, "-q", "--threads", threads], 64)
        check(proc.returncode == 2, f"ulimit -s 64, --threads {threads}: exit {proc.returncode}: {proc.stderr!r}")
        one_line_error(proc, "ulimit -s", "64 KiB", "below the 1 MiB")
    # above the machine's memory and swap: libgomp's "Thread creation failed", exit 1 mid-run
    for name, value in (("OMP_STACKSIZE", "100000G"), ("OMP_STACKSIZE", "104857600000M"),
                        ("GOMP_STACKSIZE", "109951162777600k")):
        for args in (["run", spec, "-o", out, "-q", "--threads", "2"], ["plan", spec]):
            proc = run(args, env={name: value}, timeout=120)
            check(proc.returncode == 2, f"{name}={value} {args[0]}: exit {proc.returncode}, want 2: {proc.stderr!r}")
            one_line_error(proc, f"{name}='{value}'", "more than this machine can map")
    # 2^64 bytes or more libgomp ignores, saying "Invalid value" as it loads (its line, then
    # attnrank's), where attnrank accepted it
    proc = run(["run", spec, "-o", out, "-q", "--threads", "2"], env={"OMP_STACKSIZE": "99999999999999999999"},
               timeout=120)
    lines = proc.stderr.strip().splitlines()
    check(proc.returncode == 2 and "OMP_STACKSIZE='99999999999999999999' is not a stack size" in lines[-1],
          f"OMP_STACKSIZE=99999999999999999999: exit {proc.returncode}, want 2: {proc.stderr!r}")
    proc = stack_limited(["run", spec, "-o", out, "-q"], 64, env={"OMP_STACKSIZE": "16M"})
    one_line_error(proc, "ulimit -s")  # the main thread's own stack, whatever the team's
    check(not [p for p in os.listdir(tmp) if p.startswith("o.h5")], f"nothing written: {os.listdir(tmp)}")
    if asan_build():
        print("an AddressSanitizer build: its frames are larger; the runs at the floor are the plain build's")
        return
    reference = f"{tmp}/ref.h5"
    run(["run", spec, "-o", reference, "-q", "--threads", "1"], expect=0)
    run(["run", spec, "-o", out, "-q", "--threads", "2"], expect=0, env={"OMP_STACKSIZE": "1M"})
    test_cli.same_datasets(reference, out)
    proc = stack_limited(["run", spec, "-o", out, "-q", "--force", "--threads", "2"], 1024)
    check(proc.returncode == 0, f"ulimit -s 1024 runs: {proc.returncode} {proc.stderr!r}")
    test_cli.same_datasets(reference, out)


def case_max_memory_units(tmp):
    """Sizes in messages carry the unit that shows their digits: --max-memory 1 said
    "needs 0.00 GiB ... limit is 0.00 GiB"."""
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    proc = run(["run", spec, "-o", f"{tmp}/o.h5", "-q", "--max-memory", "1"], expect=2)
    one_line_error(proc, "small.cfg", "the limit is 1 B")
    need = re.search(r"needs ([0-9.]+) (B|KiB|MiB|GiB)", proc.stderr)
    check(need and float(need.group(1)) >= 1, f"the need is shown with its digits: {proc.stderr!r}")
    proc = run(["run", spec, "-o", f"{tmp}/o.h5", "-q", "--max-memory", "20K"], expect=2)
    one_line_error(proc, "the limit is 20 KiB")


PLAN_GRIDS = {
    # one-point experiments by the hundred: the layout dominates (the 3000 of them
    # were planned at 1.7 MiB and 0.0045 s, and took 62 MB, 47 s and 407 MB)
    "experiments": "seed = 1;\nexperiments = (\n" + ",\n".join(
        f'  {{ name = "e{i}"; simulator = "hardmax_rank"; trials = 2; n = 8; d_h = 2; }}' for i in range(150))
    + "\n);\n",
    # a grid of 2500 cheap points: each point's write and flush dominate
    "grid": 'seed = 1; experiments = ( { name = "g"; simulator = "hardmax_rank"; trials = 2; n = ['
    + ", ".join(str(8 + i) for i in range(50)) + "]; d_h = [" + ", ".join(str(1 + i) for i in range(50))
    + "]; } );\n",
    # 10^5 cheap points: the engine's own cost per point dominates
    "cheap_grid": 'seed = 1; experiments = ( { name = "g"; simulator = "hardmax_rank"; trials = 2; n = 8; d_h = 4; '
    + "sigma = [" + ", ".join(f"{1 + i * 1e-4:.4f}" for i in range(1000)) + "]; rho = ["
    + ", ".join(f"{i * 1e-3:.3f}" for i in range(100)) + "]; } );\n",
    # the trials dominate
    "trials": SMALL_SPEC,
}


def plan_numbers(text):
    total = [line for line in text.splitlines() if line.startswith("total:")][0]
    hours = float(re.search(r"([0-9.e+-]+) core-hours", total).group(1))
    units = {"B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3}
    size = re.search(r"result file about ([0-9.]+) (\w+)", total)
    memory = re.search(r"memory about ([0-9.]+) (\w+)", total)
    return (hours * 3600, float(size.group(1)) * units[size.group(2)],
            float(memory.group(1)) * units[memory.group(2)])


def measured_run(args, tmp):
    """CPU seconds (user + system) and peak RSS in bytes of attnrank ARGS. Through GNU
    time where it is installed: a child forked from this Python process counts Python's
    resident pages in its own peak (the kernel keeps the peak across exec)."""
    if os.path.exists("/usr/bin/time"):
        report = f"{tmp}/time.txt"
        proc = subprocess.run(["/usr/bin/time", "-o", report, "-f", "%M %U %S", test_cli.EXE] + args,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        rss, user, system = open(report).read().split()[-3:]
        return proc.returncode, float(user) + float(system), int(rss) * 1024
    child = subprocess.Popen([test_cli.EXE] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def case_plan_measured(tmp):
    """plan's core-hours, result file and memory against the run of the same grid: its
    CPU time (user + system: a busy machine's waiting is not counted), file size and peak
    RSS, the last two within a factor 1.5."""
    for label, text in PLAN_GRIDS.items():
        spec = write(f"{tmp}/{label}.cfg", text)
        seconds, size, memory = plan_numbers(run(["plan", spec, "--threads", "1"], expect=0).stdout)
        out = f"{tmp}/{label}.h5"
        status, cpu, rss = measured_run(["run", spec, "-o", out, "-q", "--threads", "1"], tmp)
        check(status in (0, 1, 4), f"{label}: run exit {status}")
        # (under, over): the file and the memory within 1.5 times either way; the CPU time
        # may exceed the plan 3 times, since contention for caches and cores on a loaded
        # machine inflates it, and fall short of it twice
        measured = {"CPU seconds": (cpu, seconds, 2, 3), "file bytes": (os.path.getsize(out), size, 1.5, 1.5),
                    "peak RSS bytes": (rss, memory, 1.5, 1.5)}
        print(label, {k: f"measured {m:.4g}, planned {p:.4g}" for k, (m, p, _, _) in measured.items()})
        for what, (got, planned, under, over) in measured.items():
            if what != "file bytes" and asan_build():
                continue  # AddressSanitizer's slower code, shadow and quarantine are no part of the plan
            # the kernel counts CPU time in 10 ms ticks; a process's own memory varies by some
            # MiB from run to run (OpenBLAS's buffers, the BLAS-core check's cache)
            slack = {"CPU seconds": 0.05, "peak RSS bytes": 16 * 2 ** 20}.get(what, 0)
            check(planned / under - slack <= got <= planned * over + slack,
                  f"{label}: {what} measured {got:.4g}, planned {planned:.4g}")


def case_mpi_marked(tmp):
    """Under mpirun, points marked for too many failed trials are announced as a single
    process announces them (the MPI build only)."""
    env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMP_NUM_THREADS": "1",
           "ATTNRANK_TEST_INJECT_FAILURES": "0.2"}
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    single = run(["run", spec, "-o", f"{tmp}/single.h5", "-q"], env=env)
    proc = subprocess.run(["mpirun", "-np", "3", "--oversubscribe", test_cli.EXE, "run", spec, "-o",
                           f"{tmp}/mpi.h5", "-q"], capture_output=True, text=True, env=dict(os.environ, **env),
                          timeout=300)
    announced = [line for line in single.stderr.splitlines() if "failed trials: marked" in line]
    check(len(announced) == 1, f"the single process announces the marked points: {single.stderr!r}")
    check(announced[0] in proc.stderr.splitlines(), f"mpirun announces them alike: {proc.stderr!r}")
    test_cli.same_datasets(f"{tmp}/single.h5", f"{tmp}/mpi.h5")


def case_normals_variable(tmp):
    """ATTNRANK_NORMALS named the normal sampler's variant; a name that is none (a typo,
    `AVX2`, `avx2 `) was silently ignored. Now it is refused in one line naming the
    variable and the allowed values, exit 2, before any work, for every command; the
    four names (and an empty value, as unset) run, with the same bits."""
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    out = f"{tmp}/o.h5"
    for value in ("bogus", "AVX2", "avx2 ", "avx", "scalar,avx2", "x" * 5000, "\x1b[31m"):
        for args in (["run", spec, "-o", out, "-q"], ["plan", spec], ["--version"]):
            proc = run(args, env={"ATTNRANK_NORMALS": value}, timeout=120)
            check(proc.returncode == 2, f"ATTNRANK_NORMALS={value[:20]!r} {args[0]}: exit {proc.returncode}, want 2")
            one_line_error(proc, "ATTNRANK_NORMALS", "scalar, sse2, avx2 or avx512")
            check("\x1b" not in proc.stderr and len(proc.stderr) < 400, f"a printable, short line: {proc.stderr!r}")
        check(not [p for p in os.listdir(tmp) if p.startswith("o.h5")], f"nothing written: {os.listdir(tmp)}")
    reference = f"{tmp}/ref.h5"
    run(["run", spec, "-o", reference, "-q"], expect=0)
    for value in ("scalar", "sse2", "avx2", "avx512", ""):
        run(["run", spec, "-o", out, "-q", "--force"], expect=0, env={"ATTNRANK_NORMALS": value})
        test_cli.same_datasets(reference, out)


def check_once_env(tmp):
    """The hooked program's environment for a BLAS-core check that takes a second and
    fails: OpenBLAS pretended to fall back to Prescott, one candidate (Haswell), a child
    that hangs, killed after 1 s; a fresh cache; OPENBLAS_CORETYPE unset (else attnrank
    leaves the choice alone and checks nothing)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ATTNRANK_TEST_BLAS") and k not in ("ATTNRANK_BLAS_CORE", "OPENBLAS_CORETYPE")}
    env.update(XDG_CACHE_HOME=f"{tmp}/cache", ATTNRANK_TEST_BLAS_DETECTED="Prescott",
               ATTNRANK_TEST_BLAS_CANDIDATE="Haswell", ATTNRANK_TEST_BLAS_CHILD="hang", ATTNRANK_TEST_BLAS_TIMEOUT="1",
               ATTNRANK_TEST_BLAS_TRACE="1", OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def hooked_exe():
    exe = os.environ.get("ATTNRANK_BLAS_TEST_EXE")
    check(exe and os.path.exists(exe), "ATTNRANK_BLAS_TEST_EXE names the program with blas_core.c's test hooks")
    return exe


def spawned_checks(stderr):
    return len(re.findall(r"trace: self-check of \w+: spawned", stderr))


def case_blas_check_once(tmp):
    """Processes that start together on one machine (the ranks of an MPI job, a job
    array's tasks on a node) each ran their own BLAS-core self-check, a child process
    each: the first now checks under a lock on the cache folder and the others wait for
    it and read its entry. Three starts at once: one check, one note."""
    exe, env = hooked_exe(), check_once_env(tmp)
    procs = [subprocess.Popen([exe, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    check(all(p.returncode == 0 for p in procs), f"exit statuses {[p.returncode for p in procs]}: {outs}")
    stderr = "".join(err for _, err in outs)
    check(spawned_checks(stderr) == 1, f"one check for three starts, not {spawned_checks(stderr)}: {stderr}")
    notes = [line for line in stderr.splitlines() if line.startswith("attnrank: note:")]
    check(len(notes) == 1, f"one note: {notes}")
    check(os.listdir(f"{tmp}/cache/attnrank") and len(os.listdir(f"{tmp}/cache/attnrank")) == 1,
          f"the cache folder holds its one entry: {os.listdir(f'{tmp}/cache/attnrank')}")


def case_mpi_blas_check_once(tmp):
    """Under mpirun -np 3 each rank ran its own BLAS-core self-check (three children):
    now one rank checks and the others take its cached outcome (the MPI build only)."""
    exe, env = hooked_exe(), check_once_env(tmp)
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    proc = subprocess.run(["mpirun", "-np", "3", "--oversubscribe", exe, "run", spec, "-o", f"{tmp}/mpi.h5", "-q"],
                          capture_output=True, text=True, env=env, timeout=300)
    check(proc.returncode == 0, f"mpirun: exit {proc.returncode}: {proc.stderr}")
    check(spawned_checks(proc.stderr) == 1, f"one check for three ranks, not {spawned_checks(proc.stderr)}: "
          f"{proc.stderr}")


if __name__ == "__main__":
    test_cli.main(test_cli.cases_of(globals()))

#!/usr/bin/python3
"""Hostile-user CLI tests: outputs: one writer per output, merge and report as safe as run, no shell.

usage: hostile_writers.py ATTNRANK CASE     (meson registers one test per case)
"""
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import time

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli  # noqa: E402
from test_cli import check, one_line_error, run, write, SMALL_SPEC  # noqa: E402,F401

# A run of a few seconds (more under AddressSanitizer): long enough for a second writer
# to come while it holds its output.
BUSY_SPEC = """seed = 6;
experiments = (
  { name = "busy"; simulator = "hardmax_rank"; trials = 200;
    n = [64, 96, 128]; d_h = [16, 32, 64]; sampler = "faithful"; }
);
"""

# 400 cheap points: shards and their merge in a few seconds, and a merge long enough to
# be caught holding its output.
WIDE_SPEC = """seed = 3;
experiments = (
  { name = "m"; simulator = "hardmax_rank"; trials = 2;
    n = [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27];
    d_h = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]; }
);
"""

# H1 only: at 40 trials H2's verdict is the draws' to decide (exit 4 when INCONCLUSIVE).
TINY_SPEC = """seed = 3;
experiments = ( { name = "e"; simulator = "hardmax_rank"; trials = 40; n = [8, 16]; d_h = [1, 2, 8];
    claims = ["H1"]; } );
"""

INJECTION = "a'; touch INJECTED; echo '"


def beside(path):
    """The names a writer of path makes beside it, that are there now."""
    return [p for p in (path, path + ".partial", path + ".partial.tmp", path + ".lock") if os.path.exists(p)]


def nothing_left(path, label):
    check(not beside(path), f"{label}: left behind: {beside(path)}")


def start(args, **kw):
    return subprocess.Popen([test_cli.EXE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def ended(proc, stderr):
    """A finished Popen as one_line_error reads a run's result."""
    return subprocess.CompletedProcess(proc.args, proc.returncode, None, stderr)


def wait_for_any(paths, proc, timeout=60):
    """Polls until one of paths exists (the writer is inside its run), or proc ends."""
    t0 = time.time()
    while time.time() - t0 < timeout and proc.poll() is None:
        if any(os.path.exists(p) for p in paths):
            return True
        time.sleep(0.001)
    return False


def descendants(pid):
    """The processes below pid (mpirun's ranks), from /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def signal_all(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def file_limit(kib):
    """A preexec_fn: the file-size limit of `ulimit -f kib`."""
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (kib * 1024, kib * 1024))


def complete(path, seed, group):
    with h5py.File(path, "r") as f:
        check(int(f.attrs["seed"]) == seed, f"{path}: seed {f.attrs['seed']}, want {seed}")
        check(bool(f[f"{group}/done"][...].all()), f"{path}: not every point done")


def case_two_writers(tmp):
    """A second run on an output a first one is writing, with --force and another seed:
    refused in one line naming the holder's PID and host; the first completes with its
    own data. Also --resume and merge on that output."""
    spec = write(f"{tmp}/busy.cfg", BUSY_SPEC)
    tiny = write(f"{tmp}/tiny.cfg", TINY_SPEC)
    shards = [f"{tmp}/t{i}.h5" for i in range(2)]
    for i, path in enumerate(shards):
        run(["run", tiny, "-o", path, "--shard", f"{i}/2", "-q"], expect=0)
    out = f"{tmp}/o.h5"
    first = start(["run", spec, "-o", out, "-q"])
    if not wait_for_any([out + ".partial"], first):
        check(False, f"the first run never started: {first.communicate()}")
    first.send_signal(signal.SIGSTOP)  # holds its output for as long as the test needs
    second = run(["run", spec, "-o", out, "-q", "--force", "--set", "seed=9"], expect=2)
    one_line_error(second, "o.h5", f"PID {first.pid}", socket.gethostname(), "o.h5.lock")
    one_line_error(run(["run", spec, "-o", out, "-q", "--resume"], expect=2), f"PID {first.pid}")
    one_line_error(run(["merge", "-o", out, "--force", *shards], expect=2), f"PID {first.pid}")
    first.send_signal(signal.SIGCONT)
    stdout, stderr = first.communicate(timeout=300)
    check(first.returncode == 0 and f"results: {out}" in stdout, f"the first run: exit {first.returncode}: {stderr}")
    complete(out, 6, "busy")
    check(beside(out) == [out], f"only the result is left: {beside(out)}")


def case_identical_runs(tmp):
    """Two identical runs started together: exactly one runs, the other is refused."""
    spec = write(f"{tmp}/busy.cfg", BUSY_SPEC)
    out = f"{tmp}/o.h5"
    procs = [start(["run", spec, "-o", out, "-q"]) for _ in range(2)]
    results = [p.communicate(timeout=300) for p in procs]
    codes = sorted(p.returncode for p in procs)
    check(codes == [0, 2], f"exit statuses {codes}, want one 0 and one 2: {results}")
    loser = [r for p, r in zip(procs, results) if p.returncode == 2][0]
    winner = [p for p in procs if p.returncode == 0][0]
    lines = loser[1].strip().splitlines()
    check(len(lines) == 1 and f"PID {winner.pid}" in lines[0], f"the refusal names the winner: {loser[1]!r}")
    complete(out, 6, "busy")
    check(beside(out) == [out], f"only the result is left: {beside(out)}")


def case_mpi_lock(tmp):
    """The MPI build (registered with -Dmpi=true): rank 0 holds the output's lock, so a
    job is refused on an output another process writes, and a run is refused on one a
    job writes; the job leaves only its result."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1")
    mpirun = ["mpirun", "-np", "2", "--oversubscribe", test_cli.EXE]
    spec = write(f"{tmp}/busy.cfg", BUSY_SPEC)
    out = f"{tmp}/o.h5"
    first = start(["run", spec, "-o", out, "-q"])
    if not wait_for_any([out + ".partial"], first):
        check(False, f"the first run never started: {first.communicate()}")
    first.send_signal(signal.SIGSTOP)
    job = subprocess.run(mpirun + ["run", spec, "-o", out, "-q", "--force"], capture_output=True, text=True,
                         env=env, timeout=300)
    first.send_signal(signal.SIGCONT)
    check(job.returncode == 2 and f"PID {first.pid}" in job.stderr, f"mpirun: exit {job.returncode}: {job.stderr}")
    first.communicate(timeout=300)
    check(first.returncode == 0, f"the first run: exit {first.returncode}")
    complete(out, 6, "busy")
    out = f"{tmp}/mpi.h5"
    # The ranks are stopped once the job holds its output (a job of this size can finish
    # before a second writer looks), so the second writer meets a job that is writing.
    slow = write(f"{tmp}/slow.cfg", BUSY_SPEC.replace("trials = 200", "trials = 2000"))
    job = subprocess.Popen(mpirun + ["run", slow, "-o", out, "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=env)
    if not wait_for_any([out + ".partial"], job):
        check(False, f"the job never started: {job.communicate()}")
    ranks = descendants(job.pid)
    check(len(ranks) >= 2, f"the job's ranks: {ranks}")
    signal_all(ranks, signal.SIGSTOP)
    try:
        one_line_error(run(["run", spec, "-o", out, "-q", "--force"], expect=2), "another attnrank is writing it")
    finally:
        signal_all(ranks, signal.SIGCONT)
    job.communicate(timeout=300)
    check(job.returncode == 0, f"the job: exit {job.returncode}")
    complete(out, 6, "busy")
    check(beside(out) == [out], f"only the result is left: {beside(out)}")


def two_shards(tmp, text=WIDE_SPEC):
    spec = write(f"{tmp}/shards.cfg", text)
    paths = [f"{tmp}/w{i}.h5" for i in range(2)]
    for i, path in enumerate(paths):
        run(["run", spec, "-o", path, "--shard", f"{i}/2", "-q"], expect=0)
    return paths


def case_merge_sigterm(tmp):
    """SIGTERM while merge writes: exit 143, one line, nothing left (a merge has nothing to
    resume); a partial a run left is its progress: kept, --force included."""
    shards = two_shards(tmp)
    out = f"{tmp}/m.h5"
    caught = 0
    for attempt in range(20):
        proc = start(["merge", "-o", out, *shards])
        if wait_for_any([out + ".lock", out + ".partial.tmp", out + ".partial"], proc):
            proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
        if proc.returncode in (0, 4):  # finished before the signal came (4: two trials decide little)
            os.remove(out)
            nothing_left(out, "a merge that finished")
            continue
        check(proc.returncode == 143, f"merge under SIGTERM: exit {proc.returncode}, want 143: {stderr!r}")
        one_line_error(ended(proc, stderr), "m.h5", "interrupted by SIGTERM", "run it again")
        check("--resume" not in stderr, f"merge does not offer --resume: {stderr!r}")
        nothing_left(out, "an interrupted merge")
        caught += 1
        if caught == 3:
            break
    check(caught >= 1, "no SIGTERM landed inside the merge in 20 tries")
    print(f"{caught} of {attempt + 1} merges caught by SIGTERM")
    # a partial a run left (resumable: not the merge's to remove) is kept, --force
    # included (seventh hostile review, B: --force deleted it)
    with open(shards[0], "rb") as f, open(out + ".partial", "wb") as g:
        g.write(f.read())
    before = test_cli.digest(out + ".partial")
    for extra in ([], ["--force"]):
        proc = run(["merge", "-o", out, *extra, *shards], expect=2)
        one_line_error(proc, "m.h5.partial", "attnrank run", "--resume", "--force included")
        check(beside(out) == [out + ".partial"] and test_cli.digest(out + ".partial") == before,
              f"merge {extra}: the run's partial was replaced: {beside(out)}")


def case_merge_file_limit(tmp):
    """ulimit -f below the merged file's size: merge and judge -o are refused before they
    write, as run is, in one line naming the limit, exit 2, nothing left (before: exit 3,
    "disk full?", after writing up to the limit). No SIGXFSZ either way. Below an input's
    size the private copy every reader reads (ar_snapshot_regular) is refused first, in
    one line naming the input and the limit."""
    shards = two_shards(tmp, TINY_SPEC)
    whole = f"{tmp}/whole.h5"
    run(["run", write(f"{tmp}/tiny.cfg", TINY_SPEC), "-o", whole, "-q"], expect=0)
    conjecture = "id=c; output=argmax_rank; rule=upper_bound; prediction=n"
    for kib in (8, 40):
        for label, args in (("merge", ["merge", "-o", f"{tmp}/m{kib}.h5", *shards]),
                            ("judge -o", ["judge", whole, "--conjecture", conjecture, "-o", f"{tmp}/m{kib}.h5"])):
            out = f"{tmp}/m{kib}.h5"
            proc = subprocess.run([test_cli.EXE, *args], capture_output=True, text=True, preexec_fn=file_limit(kib))
            check(proc.returncode == 2, f"{label} under ulimit -f {kib}: exit {proc.returncode}, want 2: {proc.stderr!r}")
            if "private copy" in proc.stderr:  # below an input's size: the copy it reads is refused first
                one_line_error(proc, "file-size limit (ulimit -f)")
            else:
                one_line_error(proc, f"m{kib}.h5", "file-size limit (ulimit -f)", f"{kib} KiB")
            nothing_left(out, f"{label} under ulimit -f {kib}")
    check(run(["merge", "-o", f"{tmp}/m.h5", *shards]).returncode in (0, 4), "the merge without the limit")
    check(run(["judge", whole, "--conjecture", conjecture, "-o", f"{tmp}/c.h5"]).returncode in (0, 4),
          "judge -o without the limit")


def small_result(tmp, name="small.h5"):
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    out = f"{tmp}/{name}"
    run(["run", spec, "-o", out, "-q"], expect=0)
    return out


def case_report_sigterm(tmp):
    """SIGTERM while the report draws its figures: exit 143, one line, no folder left; the
    figure scripts stop too. A second report on the same folder meanwhile is refused."""
    result = small_result(tmp)
    rep = f"{tmp}/rep"
    proc = start(["report", result, "-o", rep])
    if not wait_for_any([f"{rep}.partial/figures/plot.log", f"{rep}/figures/plot.log"], proc):
        check(False, f"the report never drew: {proc.communicate()}")
    one_line_error(run(["report", result, "-o", rep], expect=2), "rep", f"PID {proc.pid}")
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    check(proc.returncode == 143, f"report under SIGTERM: exit {proc.returncode}, want 143: {stderr!r}")
    one_line_error(ended(proc, stderr), "rep", "interrupted by SIGTERM")
    time.sleep(0.5)  # a figure script that outlived the report would write on
    nothing_left(rep, "an interrupted report")
    # and the report then works, and replaces a report, not other folders
    run(["report", result, "-o", rep], expect=0)
    run(["report", result, "-o", rep + "/"], expect=0)
    check(os.path.exists(f"{rep}/report.html") and beside(rep) == [rep], f"one report folder: {beside(rep)}")
    other = f"{tmp}/mine"
    os.mkdir(other)
    write(f"{other}/notes.txt", "keep me\n")
    one_line_error(run(["report", result, "-o", other], expect=2), "mine", "notes.txt")
    check(open(f"{other}/notes.txt").read() == "keep me\n", "a folder that is not a report is left alone")


def case_report_sigterm_stuck_script(tmp):
    """SIGTERM while a figure script ignores it (stuck, or written so): the report waited
    for it forever. It is killed after a grace of seconds, and the report ends with its
    documented status, nothing left."""
    result = small_result(tmp)
    plots = f"{tmp}/plots"
    os.mkdir(plots)
    write(f"{plots}/plot_all.py", "import os, signal, sys, time\n"
          "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
          f"open({tmp + '/script.pid'!r}, 'w').write(str(os.getpid()))\n"
          "time.sleep(600)\n")
    rep = f"{tmp}/rep"
    proc = start(["report", result, "-o", rep], env={**os.environ, "ATTNRANK_PLOTS": plots})
    if not wait_for_any([f"{tmp}/script.pid"], proc):
        check(False, f"the figure script never started: {proc.communicate()}")
    time.sleep(0.3)
    pid = int(open(f"{tmp}/script.pid").read())
    t0 = time.time()
    proc.send_signal(signal.SIGTERM)
    try:
        _, stderr = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise test_cli.Failure("report waits for a figure script that ignores SIGTERM")
    check(time.time() - t0 < 15, f"report took {time.time() - t0:.1f} s to stop")
    check(proc.returncode == 143, f"report under SIGTERM: exit {proc.returncode}, want 143: {stderr!r}")
    one_line_error(ended(proc, stderr), "rep", "interrupted by SIGTERM")
    try:
        os.kill(pid, 0)
        alive = open(f"/proc/{pid}/stat").read().split()[2] != "Z"
    except (ProcessLookupError, FileNotFoundError):
        alive = False
    check(not alive, f"the figure script {pid} outlived the report")
    nothing_left(rep, "an interrupted report")


def case_report_partial_not_ours(tmp):
    """Issue 37, 4: `report F -o mine` deleted an existing mine.partial/ with the user's
    files in it. A folder no report made (it lacks the report's mark) is refused in one
    line, exit 2, and kept; one a killed report left (marked) is cleared as before."""
    result = small_result(tmp)
    rep = f"{tmp}/mine"
    os.mkdir(f"{rep}.partial")
    write(f"{rep}.partial/notes.txt", "keep me\n")
    one_line_error(run(["report", result, "-o", rep], expect=2), "mine.partial", "no report made it")
    check(open(f"{rep}.partial/notes.txt").read() == "keep me\n", "the user's folder is kept")
    check(not os.path.exists(rep) and not os.path.exists(f"{rep}.lock"), f"nothing made: {beside(rep)}")
    os.remove(f"{rep}.partial/notes.txt")
    os.rmdir(f"{rep}.partial")
    # a report killed while drawing leaves its marked folder: the next one clears it
    proc = start(["report", result, "-o", rep])
    if not wait_for_any([f"{rep}.partial/figures/plot.log"], proc):
        check(False, f"the report never drew: {proc.communicate()}")
    proc.kill()
    proc.communicate(timeout=60)
    run(["report", result, "-o", rep], expect=0)
    check(os.path.exists(f"{rep}/report.html") and beside(rep) == [rep], f"one report folder: {beside(rep)}")


def case_report_partial_user_files(tmp):
    """A third hostile review: a user's file put inside a report's own DIR.partial (it
    holds the report's mark) was deleted with it. DIR.partial is checked as DIR is: a
    file no report wrote is refused in one line, exit 2, and everything kept."""
    result = small_result(tmp)
    rep = f"{tmp}/mine"
    for where in ("", "figures/"):
        os.makedirs(f"{rep}.partial/figures", exist_ok=True)
        write(f"{rep}.partial/.attnrank-report", "")
        write(f"{rep}.partial/{where}my_notes.txt", "keep me\n")
        proc = run(["report", result, "-o", rep], expect=2)
        one_line_error(proc, "mine.partial", f"holds {where}my_notes.txt, which no report wrote")
        check(open(f"{rep}.partial/{where}my_notes.txt").read() == "keep me\n", "the user's file is kept")
        check(not os.path.exists(rep) and not os.path.exists(f"{rep}.lock"), f"nothing made: {beside(rep)}")
        os.remove(f"{rep}.partial/{where}my_notes.txt")


def case_report_attack_sigterm(tmp):
    """Issue 37, 4: SIGTERM while reporting an attack file exited 3 with the message
    `attnrank: ` (empty): now exit 143 and one line saying so, no folder left."""
    import attacks
    _, out = attacks.attack(tmp, attacks.PLANTED)
    rep = f"{tmp}/rep"
    proc = start(["report", out, "-o", rep])
    if not wait_for_any([f"{rep}.partial/figures/plot.log"], proc):
        check(False, f"the report never drew: {proc.communicate()}")
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    check(proc.returncode == 143, f"attack report under SIGTERM: exit {proc.returncode}, want 143: {stderr!r}")
    one_line_error(ended(proc, stderr), "rep", "interrupted by SIGTERM")
    time.sleep(0.5)
    nothing_left(rep, "an interrupted attack report")


def case_output_is_spec(tmp):
    """Issue 37, 5: `attack s.cfg -o s.cfg --force` and `run s.cfg -o s.cfg --force`
    replaced the spec with HDF5. An output that is the spec (by that name, another name or
    a hard link, or as the OUTPUT.partial a writer makes) is refused in one line, exit 2,
    the spec kept, as merge and judge -o refuse their inputs."""
    import attacks
    spec = write(f"{tmp}/s.cfg", attacks.PLANTED)
    os.link(spec, f"{tmp}/link.cfg")
    before = test_cli.digest(spec)
    for command in ("run", "attack"):
        for out in (spec, f"{tmp}/link.cfg", f"{tmp}/./s.cfg", f"{tmp}/s"):
            if out.endswith("/s"):  # s.partial is the spec's other name
                os.link(spec, f"{out}.partial")
            one_line_error(run([command, spec, "-o", out, "--force", "-q"], expect=2), "the spec", "give another -o")
            check(test_cli.digest(spec) == before, f"{command} -o {out} --force: the spec was replaced")
            if out.endswith("/s"):
                os.unlink(f"{out}.partial")
        check(sorted(os.listdir(tmp)) == ["link.cfg", "s.cfg"], f"{command}: something was left: {os.listdir(tmp)}")


def case_review_findings(tmp):
    """A second review's findings: another writer's names as an output (a run on
    o.h5.partial replaced the file a run on o.h5 was writing), files of the user's inside
    figures/ of an earlier report (deleted before), and a report under ulimit -v (its
    figure scripts waited forever for numpy's OpenBLAS buffer)."""
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    for suffix in (".partial", ".partial.tmp", ".lock"):
        out = f"{tmp}/o.h5{suffix}"
        one_line_error(run(["run", spec, "-o", out], expect=2), out, suffix, "a writer makes")
        check(not os.path.exists(out) and not beside(out), f"nothing made for -o {out}")
    result = small_result(tmp)
    one_line_error(run(["merge", "-o", f"{tmp}/m.h5.partial", result], expect=2), "m.h5.partial")
    one_line_error(run(["report", result, "-o", f"{tmp}/r.lock"], expect=2), "r.lock")
    rep = f"{tmp}/rep"
    run(["report", result, "-o", rep], expect=0)
    write(f"{rep}/figures/notes.txt", "keep me\n")
    one_line_error(run(["report", result, "-o", rep], expect=2), "rep", "figures/notes.txt")
    check(open(f"{rep}/figures/notes.txt").read() == "keep me\n", "the user's file in figures/ is kept")
    os.remove(f"{rep}/figures/notes.txt")
    os.mkdir(f"{rep}/figures/sub")
    one_line_error(run(["report", result, "-o", rep], expect=2), "rep", "figures/sub")
    os.rmdir(f"{rep}/figures/sub")
    run(["report", result, "-o", rep], expect=0)
    # a closed pipe on stderr (`attnrank run ... 2>&1 | head -c 10`) killed the run with
    # SIGPIPE at its next progress line: now the write fails and the run finishes
    piped = f"{tmp}/piped.h5"
    proc = subprocess.Popen([test_cli.EXE, "run", spec, "-o", piped], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    proc.stderr.close()
    proc.wait(timeout=120)
    check(proc.returncode == 0 and os.path.exists(piped) and beside(piped) == [piped],
          f"a run whose stderr pipe closed: exit {proc.returncode}, left {beside(piped)}")
    # a stored statement holding a terminal escape and a newline is shown, not obeyed
    edited = f"{tmp}/edited.h5"
    shutil.copy(result, edited)
    with h5py.File(edited, "r+") as f:
        rows = f["verdicts"][...]
        rows["statement"][0] = b"\x1b[31mHACK\n\x07"
        f["verdicts"][...] = rows
    # whatever revision it names, the edited row is damage (the re-judge differs), said without the escape
    for revision in (None, "0123abc"):
        if revision:
            with h5py.File(edited, "r+") as f:
                f.attrs["git_revision"] = revision
        shown = subprocess.run([test_cli.EXE, "info", edited], capture_output=True)
        check(shown.returncode == 2 and b"/verdicts" in shown.stderr and b"\x1b" not in shown.stdout + shown.stderr
              and b"\x07" not in shown.stdout + shown.stderr,
              f"info of an edited verdict row: {shown.returncode} {shown.stderr[-300:]!r} {shown.stdout[-300:]!r}")
    if test_cli.asan_build():
        return  # AddressSanitizer's shadow memory does not fit under any ulimit -v
    limit = 150000 * 1024
    try:
        proc = subprocess.run([test_cli.EXE, "report", result, "-o", f"{tmp}/limited"], capture_output=True,
                              text=True, timeout=120,
                              preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    except subprocess.TimeoutExpired:
        check(False, "report under ulimit -v 150000 hangs")
    check(proc.returncode == 0, f"report under ulimit -v: exit {proc.returncode}: {proc.stderr!r}")
    one_line_error(proc, "figures not drawn", "address space")
    check(os.path.exists(f"{tmp}/limited/report.html"), "the page is written without figures")


def case_lock_not_ours(tmp):
    """OUT.lock that is not attnrank's lock (a user's file of that name, or a hard link to
    a result file) is refused and left as it is: every writer truncated, wrote and then
    deleted it, which destroyed the linked result."""
    result = small_result(tmp)
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    before = open(result, "rb").read()
    jobs = {"run": ["run", spec, "-o", f"{tmp}/r.h5", "-q"],
            "judge -o": ["judge", result, "-o", f"{tmp}/j.h5"],
            "merge": ["merge", "-o", f"{tmp}/m.h5", result],
            "report": ["report", result, "-o", f"{tmp}/rep"]}
    for label, args in jobs.items():
        out = args[args.index("-o") + 1]
        os.link(result, f"{out}.lock")
        one_line_error(run(args, expect=2), "is not an attnrank lock", "hard link")
        check(open(result, "rb").read() == before, f"{label}: the linked result was altered")
        os.unlink(f"{out}.lock")
        write(f"{out}.lock", "my notes\n")
        one_line_error(run(args, expect=2), "is not an attnrank lock")
        check(open(f"{out}.lock").read() == "my notes\n", f"{label}: the user's file was altered")
        os.unlink(f"{out}.lock")
        check(run(args).returncode in (0, 4), f"{label}: runs once the name is free")


def case_report_file_limit(tmp):
    """ulimit -f below the page's size: one line, exit 3, no folder left (no SIGXFSZ).
    Below the input's size, the private copy the report reads is refused first: one line
    naming the input and the limit, exit 2."""
    result = small_result(tmp)
    rep = f"{tmp}/rep"
    above_input = os.path.getsize(result) // 1024 + 1
    proc = subprocess.run([test_cli.EXE, "report", result, "-o", rep], capture_output=True, text=True,
                          preexec_fn=file_limit(above_input))
    check(proc.returncode == 3, f"report under ulimit -f {above_input}: exit {proc.returncode}, want 3: "
          f"{proc.stderr!r}")
    one_line_error(proc, "rep")
    nothing_left(rep, "a report under a file-size limit")
    proc = subprocess.run([test_cli.EXE, "report", result, "-o", rep], capture_output=True, text=True,
                          preexec_fn=file_limit(2))
    check(proc.returncode == 2, f"report under ulimit -f 2: exit {proc.returncode}, want 2: {proc.stderr!r}")
    one_line_error(proc, "small.h5", "file-size limit (ulimit -f)")
    nothing_left(rep, "a report under a file-size limit")


def case_report_injection(tmp):
    """A result file named like a shell command: no command runs, the report works."""
    result = small_result(tmp, INJECTION + ".h5")
    proc = subprocess.run([test_cli.EXE, "report", result], capture_output=True, text=True, cwd=tmp)
    check(proc.returncode == 0, f"report: exit {proc.returncode}: {proc.stderr!r}")
    check(not os.path.exists(f"{tmp}/INJECTED"), "the file name ran as a shell command")
    page = open(f"{tmp}/{INJECTION}-report/report.html").read()
    check("<svg" in page and "figures not drawn" not in page, "the figures are drawn for that name too")
    check(not proc.stderr, f"nothing on stderr: {proc.stderr!r}")


def case_messages(tmp):
    """Small defects of the command line: each one line, the documented status."""
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    result = small_result(tmp)
    for args in (["run", spec, "-o"], ["run", spec, "--set"], ["merge", "-o"], ["report", result, "-o"]):
        proc = run(args, expect=2)
        one_line_error(proc, "needs an argument", f"'{args[-1]}'")
    one_line_error(run(["run", spec, "-qz"], expect=2), "unknown option '-z'")
    # names a run cannot make beside its output: refused before any work
    for name in ("a" * 244, "b" * 255):
        out = f"{tmp}/{name}"
        one_line_error(run(["run", spec, "-o", out, "-q"], expect=2), "NAME_MAX", "255")
        nothing_left(out, "a name too long")
    one_line_error(run(["report", result, "-o", f"{tmp}/{'r' * 250}"], expect=2), "NAME_MAX")
    proc = subprocess.run([test_cli.EXE, "run", spec, "-o", "", "-q"], capture_output=True, text=True, cwd=tmp)
    check(proc.returncode == 2, f"-o '': exit {proc.returncode}: {proc.stderr!r}")
    one_line_error(proc, "empty")
    check(not [p for p in os.listdir(tmp) if p.startswith(".")], f"-o '': nothing made: {os.listdir(tmp)}")
    one_line_error(run(["report", result, "-o", ""], expect=2), "empty")
    # a control character in a name stays inside the one line
    for name in ("x\ny/z.h5", "x\ty\rz/\x1b[31m.h5"):
        proc = run(["run", spec, "-o", f"{tmp}/{name}", "-q"], expect=2)
        one_line_error(proc, "does not exist", name.split("/")[0].encode("unicode_escape").decode()[:4])
    one_line_error(run(["info", f"{tmp}/no\nsuch.h5"], expect=2), "such.h5")
    # --shard: integers that do not fit are refused, not wrapped
    for shard in ("1/99999999999", "4294967297/4294967298", "-1/3", "1/0", "1/", "/3", "1/3x", "0x1/3"):
        one_line_error(run(["run", spec, "--shard", shard, "-o", f"{tmp}/s.h5", "-q"], expect=2), "--shard")
    check(not os.path.exists(f"{tmp}/s.h5"), "no shard written")
    # stdout that cannot be written: the I/O status and one line, for every command
    with open("/dev/full", "w") as full:
        for args in (["info", result], ["list"], ["help"], ["run", "--help"], ["--version"]):
            proc = subprocess.run([test_cli.EXE, *args], stdout=full, stderr=subprocess.PIPE, text=True)
            check(proc.returncode == 3, f"{args} > /dev/full: exit {proc.returncode}, want 3")
            one_line_error(proc, "standard output")


def case_verify_no_report(tmp):
    """verify --no-report writes the file and no report; the report folders verify makes
    in a checkout are ignored by git."""
    out = f"{tmp}/v.h5"
    proc = run(["verify", "--quick", "--no-report", "-q", "-o", out, "--set", "trials=4"])
    check(proc.returncode in (0, 1, 4) and os.path.exists(out), f"verify: exit {proc.returncode}: {proc.stderr!r}")
    check(not os.path.exists(f"{tmp}/v-report") and "report:" not in proc.stdout, "--no-report writes no report")
    root = os.environ.get("ATTNRANK_SOURCE_ROOT")
    if not root or subprocess.run(["git", "-C", root, "rev-parse"], capture_output=True).returncode != 0:
        print("not in a git checkout: the .gitignore check is skipped")
        return
    for name in ("attnrank-verify-20260101T000000Z.h5", "attnrank-verify-20260101T000000Z-report/report.html",
                 "attnrank-verify-20260101T000000Z-report.partial/report.html",
                 "attnrank-verify-20260101T000000Z-report.lock", "x.h5.lock", "x.h5.partial.tmp"):
        ignored = subprocess.run(["git", "-C", root, "check-ignore", "-q", "--no-index", name])
        check(ignored.returncode == 0, f".gitignore does not cover {name}")


def case_merge_onto_input(tmp):
    """merge -o naming one of its own inputs (by that name, ./name, a symbolic or a hard
    link), with --force, replaced that shard with the merge; so did an input named like
    the output's partial file. Now refused in one line, exit 2, every input untouched, as
    judge refuses -o FILE itself."""
    shards = two_shards(tmp, TINY_SPEC)
    digests = [test_cli.digest(p) for p in shards]
    os.symlink(shards[0], f"{tmp}/sym.h5")
    os.link(shards[0], f"{tmp}/hard.h5")
    here = os.path.basename(shards[0])
    for out, cwd in ((shards[0], None), ("./" + here, tmp), (f"{tmp}/sym.h5", None), (f"{tmp}/hard.h5", None),
                     (shards[1], None)):
        for force in ([], ["--force"]):
            proc = subprocess.run([test_cli.EXE, "merge", "-o", out, *force, *shards], capture_output=True,
                                  text=True, cwd=cwd)
            check(proc.returncode == 2, f"merge -o {out} {force}: exit {proc.returncode}, want 2: {proc.stderr!r}")
            one_line_error(ended(proc, proc.stderr), "is the input", "merge never modifies its inputs")
    # an input named like the output's partial file
    os.rename(shards[1], f"{tmp}/m.h5.partial")
    inputs = [shards[0], f"{tmp}/m.h5.partial"]
    for force in ([], ["--force"]):
        one_line_error(run(["merge", "-o", f"{tmp}/m.h5", *force, *inputs], expect=2), "m.h5.partial",
                       "merge never modifies its inputs")
    os.rename(f"{tmp}/m.h5.partial", shards[1])
    check([test_cli.digest(p) for p in shards] == digests, "an input was modified")
    check(not os.path.exists(f"{tmp}/m.h5"), "no merge was written")
    # judge -o through a hard link to FILE, and FILE's partial name
    whole = f"{tmp}/whole.h5"
    run(["run", write(f"{tmp}/tiny.cfg", TINY_SPEC), "-o", whole, "-q"], expect=0)
    before = test_cli.digest(whole)
    os.link(whole, f"{tmp}/whole_link.h5")
    one_line_error(run(["judge", whole, "-o", f"{tmp}/whole_link.h5", "--force"], expect=2), "FILE itself")
    os.rename(whole, f"{tmp}/c.h5.partial")
    one_line_error(run(["judge", f"{tmp}/c.h5.partial", "-o", f"{tmp}/c.h5", "--force"], expect=2),
                   "c.h5.partial", "never modifies")
    check(test_cli.digest(f"{tmp}/c.h5.partial") == before, "judge modified FILE")
    check(run(["merge", "-o", f"{tmp}/m.h5", *shards]).returncode in (0, 4), "a merge to another name works")


def killed_mid_write(args, out, label, tries=30):
    """Starts attnrank ARGS and SIGKILLs it once out.partial exists; returns when a kill
    left out.partial (and no out), or fails after `tries`."""
    for _ in range(tries):
        for path in beside(out):
            os.remove(path)
        proc = start(args)
        if wait_for_any([out + ".partial"], proc):
            proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        if proc.returncode == -signal.SIGKILL and os.path.exists(out + ".partial") and not os.path.exists(out):
            return
    check(False, f"no SIGKILL landed while {label} wrote its partial file in {tries} tries")


def case_stale_partial_cleared(tmp):
    """After kill -9 of a merge or judge -o, the rerun was refused for the partial file the
    killed one left, which only --force removed (and --force would also replace a finished
    COPY). A writer with nothing to resume now clears its own stale partial when the lock is
    free, without --force; a partial a run left (resumable) is still not its to remove, and
    a finished FILE is still not replaced without --force."""
    shards = two_shards(tmp)
    out = f"{tmp}/m.h5"
    killed_mid_write(["merge", "-o", out, *shards], out, "merge")
    proc = run(["merge", "-o", out, *shards])
    check(proc.returncode in (0, 4), f"the rerun after kill -9: exit {proc.returncode}: {proc.stderr!r}")
    check(beside(out) == [out], f"only the result is left: {beside(out)}")
    whole = f"{tmp}/whole.h5"
    run(["merge", "-o", whole, *shards], expect=None)
    copy = f"{tmp}/copy.h5"
    judge = ["judge", whole, "--conjecture", "id=c; output=argmax_rank; rule=upper_bound; prediction=n", "-o", copy]
    killed_mid_write(judge, copy, "judge -o")
    proc = run(judge)
    check(proc.returncode in (0, 1, 4), f"judge -o after kill -9: exit {proc.returncode}: {proc.stderr!r}")
    check(beside(copy) == [copy], f"only the copy is left: {beside(copy)}")
    # with the copy there, a killed judge's partial beside it: cleared, the copy kept
    before = test_cli.digest(copy)
    with open(copy, "rb") as f, open(copy + ".partial", "wb") as g:
        g.write(f.read())
    one_line_error(run(judge, expect=2), "copy.h5", "exists", "--force")
    check(not os.path.exists(copy + ".partial") and test_cli.digest(copy) == before,
          f"the stale partial cleared, the finished copy kept: {beside(copy)}")


def case_option_names(tmp):
    """`--quiet=1` said "unknown option '-q'": a message names the option as the user wrote
    it, and one that takes no value says so; merge (and judge, report) take -q/--quiet as
    run does (they print no progress, so it changes nothing)."""
    spec = write(f"{tmp}/small.cfg", TINY_SPEC)
    result = small_result(tmp)
    for args, name in ((["run", spec, "--quiet=1"], "--quiet"), (["run", spec, "--quie=1"], "--quie"),
                       (["run", spec, "--force=yes"], "--force"), (["plan", spec, "--resume=1"], "--resume"),
                       (["merge", "-o", f"{tmp}/m.h5", "--force=1", result], "--force"),
                       (["merge", "-o", f"{tmp}/m.h5", "--quiet=1", result], "--quiet"),
                       (["judge", result, "--mutants=1"], "--mutants"),
                       (["info", result, "--quiet=1"], "--quiet"),
                       (["verify", "--quick=1"], "--quick")):
        one_line_error(run(args, expect=2), f"option '{name}' takes no value")
    for args, name in ((["run", spec, "--bogus=1"], "--bogus"), (["run", spec, "--bogus"], "--bogus"),
                       (["merge", "-o", f"{tmp}/m.h5", "--bogus=3", result], "--bogus"),
                       (["run", spec, "-qz"], "-z"), (["run", spec, "--force", "-zq"], "-z"),
                       (["verify", "--quick", "-Qx"], "-Q"), (["info", "--foo", result], "--foo"),
                       (["info", result, "--verbose"], "--verbose")):
        one_line_error(run(args, expect=2), f"unknown option '{name}'")
    one_line_error(run(["run", spec, "--f"], expect=2), "option '--f' is ambiguous", "--force", "--full")
    # -q everywhere
    check(run(["merge", "-q", "-o", f"{tmp}/m.h5", result]).returncode in (0, 4), "merge -q")
    check(run(["merge", "--quiet", "-o", f"{tmp}/m2.h5", result]).returncode in (0, 4), "merge --quiet")
    check(run(["judge", result, "-q"]).returncode in (0, 1, 4), "judge -q")
    run(["report", result, "-q", "-o", f"{tmp}/rep"], expect=0)
    run(["info", "-q", result], expect=0)


def special_file(path, kind):
    """Makes a node of kind at path: "fifo", "socket", "device" (a copy of /dev/null, made
    with mknod: root only), or "link" (a symbolic link to such a device). False where it
    cannot be made here (not root)."""
    import stat
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(path)
        sock.close()
    elif kind in ("device", "link"):
        target = path if kind == "device" else path + ".dev"
        try:
            os.mknod(target, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except PermissionError:
            return False
        if kind == "link":
            os.symlink(os.path.basename(target), path)
    return True


def same_kind(path, kind):
    import stat
    mode = os.stat(path).st_mode if os.path.exists(path) or os.path.islink(path) else 0
    return {"fifo": stat.S_ISFIFO, "socket": stat.S_ISSOCK, "device": stat.S_ISCHR,
            "link": stat.S_ISCHR}[kind](mode) and (kind != "link" or os.path.islink(path))


def case_output_not_regular(tmp):
    """Hostile review (outputs, 1): `run s.cfg -o DEV --force`, with DEV a character device
    made by mknod (as /dev/null is), exited 0 and DEV became an HDF5 file; so for judge -o,
    merge -o, attack -o, a FIFO or a socket as the output, and a symbolic link to a
    device. An output that is there and is not a regular file is refused in one line, exit
    2, and left as it is, --force or not, by every command that writes one."""
    import attacks
    result = small_result(tmp)
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    planted = write(f"{tmp}/planted.cfg", attacks.PLANTED)
    for kind in ("device", "link", "fifo", "socket"):
        out = f"{tmp}/out-{kind}"
        if not special_file(out, kind):
            print(f"skipped: {kind} (mknod needs root)")
            continue
        jobs = {"run": ["run", spec, "-o", out, "-q"], "judge -o": ["judge", result, "-o", out],
                "merge": ["merge", "-o", out, result], "attack": ["attack", planted, "-o", out, "-q"],
                "verify": ["verify", "--quick", "--no-report", "-o", out, "-q"]}
        for label, args in jobs.items():
            for force in ([], ["--force"]):
                proc = run(args + force, expect=2, timeout=120)
                one_line_error(proc, out, "not a regular file", "give another -o")
                check(same_kind(out, kind), f"{label} {force}: the {kind} {out} was replaced")
                check(beside(out) == [out], f"{label} {force}: left {beside(out)}")
    os.mkfifo(f"{tmp}/rep")
    one_line_error(run(["report", result, "-o", f"{tmp}/rep"], expect=2), "rep")
    check(same_kind(f"{tmp}/rep", "fifo"), "report: the FIFO was replaced")


def case_report_output_link(tmp):
    """Issue 37 (smaller): `report F -o LINK`, LINK a symbolic link to a folder, said
    "exists and is not a folder". It says what LINK is (a symbolic link, to a folder) and
    that attnrank does not follow it, and still refuses: exit 2, the link and the folder
    it names as they were."""
    result = small_result(tmp)
    os.mkdir(f"{tmp}/mine")
    write(f"{tmp}/mine/keep.txt", "the user's\n")
    os.symlink("mine", f"{tmp}/rep")
    proc = run(["report", result, "-o", f"{tmp}/rep"], expect=2)
    one_line_error(proc, "rep", "is a symbolic link to a folder", "does not follow it", "give the report another -o")
    check("is not a folder" not in proc.stderr, f"the old message: {proc.stderr}")
    check(os.path.islink(f"{tmp}/rep") and os.listdir(f"{tmp}/mine") == ["keep.txt"], "the link or its folder changed")


def case_report_dot(tmp):
    """Review 5 G: `report F -o .` in an empty folder said it "holds ..lock, which no report
    wrote": the lock it had just made itself, as DIR.lock for DIR = '.'. An output named '.'
    or '..' (the folder one is in, or its parent: no new name) is refused by what it is,
    before any lock is made, for every writer; `-o DIR/` names DIR and writes it."""
    result = small_result(tmp)
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    exe = os.path.abspath(test_cli.EXE)
    empty = f"{tmp}/empty"
    os.mkdir(empty)
    for args in (["report", result, "-o", "."], ["report", result, "-o", "./"], ["report", result, "-o", ".."],
                 ["report", result, "-o", "sub/.."], ["run", spec, "-o", ".", "-q"], ["judge", result, "-o", "."]):
        proc = subprocess.run([exe, *args], capture_output=True, text=True, cwd=empty, timeout=60)
        check(proc.returncode == 2, f"{args}: exit {proc.returncode}: {proc.stderr!r}")
        one_line_error(proc, "a folder that exists, not a new name", "give -o a name of its own")
        check("lock" not in proc.stderr, f"{args}: {proc.stderr!r}")
        check(os.listdir(empty) == [] and sorted(os.listdir(tmp)) == ["empty", "small.cfg", "small.h5"],
              f"{args} left {os.listdir(empty)} {os.listdir(tmp)}")
    proc = subprocess.run([exe, "report", result, "-o", "rep/"], capture_output=True, text=True, cwd=empty, timeout=300)
    check(proc.returncode == 0 and os.path.isfile(f"{empty}/rep/report.html") and os.listdir(empty) == ["rep"],
          f"-o rep/: exit {proc.returncode}: {proc.stderr!r}, left {os.listdir(empty)}")


def case_create_errno(tmp):
    """Review 5 E: out of file descriptors (ulimit -n 4) was reported as "cannot create the
    HDF5 file (does it exist already, or is the directory unwritable?)", as was a full
    disk (which left a 0-byte OUT.partial.tmp). The message now gives the system's reason,
    exit 3, and nothing is left beside the output. (A disk that fills at the very create
    is not made here: the writers' up-front size checks refuse a full one first, and a
    small file system needs a mount.)"""
    import attacks
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    planted = write(f"{tmp}/planted.cfg", attacks.PLANTED)
    few = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (4, 4))  # noqa: E731
    for label, args in (("run", ["run", spec, "-o", f"{tmp}/r.h5", "-q"]),
                        ("attack", ["attack", planted, "-o", f"{tmp}/a.h5", "-q", "--threads", "1"])):
        proc = subprocess.run([test_cli.EXE, *args], capture_output=True, text=True, preexec_fn=few, timeout=120)
        check(proc.returncode == 3, f"{label} under ulimit -n 4: exit {proc.returncode}: {proc.stderr!r}")
        one_line_error(proc, "Too many open files")
        check("does it exist already" not in proc.stderr, f"{label}: {proc.stderr!r}")
        left = [f for f in os.listdir(tmp) if f.startswith(("r.h5", "a.h5"))]
        check(not left, f"{label} left {left}")


def case_beside_not_regular(tmp):
    """Hostile review (outputs, 3 and 4): OUT.partial a directory: a run said "an interrupted
    run is there; continue it with --resume", and with --force exited 3 ("cannot create: Is
    a directory"); OUT.partial, OUT.partial.tmp or OUT.lock a FIFO or a device: never
    opened, blocked on or removed. Each is refused in one line, exit 2, and left there,
    by run (plain, --force, --resume), merge, judge -o and attack; so is a symbolic link
    to a FIFO as OUT.partial (fourth review, case L: it hung all but attack)."""
    import attacks
    result = small_result(tmp)
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    planted = write(f"{tmp}/planted.cfg", attacks.PLANTED)
    out = f"{tmp}/o.h5"
    jobs = {"run": ["run", spec, "-o", out, "-q"], "run --force": ["run", spec, "-o", out, "-q", "--force"],
            "run --resume": ["run", spec, "-o", out, "-q", "--resume"], "judge -o": ["judge", result, "-o", out],
            "merge": ["merge", "-o", out, result], "merge --force": ["merge", "-o", out, "--force", result],
            "attack": ["attack", planted, "-o", out, "-q", "--force"]}
    os.mkdir(out + ".partial")
    for label, args in jobs.items():
        one_line_error(run(args, expect=2, timeout=120), "o.h5.partial", "is a directory", "did not make")
        check(os.path.isdir(out + ".partial") and beside(out) == [out + ".partial"], f"{label}: left {beside(out)}")
    os.rmdir(out + ".partial")
    for suffix in (".partial", ".partial.tmp", ".lock"):
        for kind in ("fifo", "device", "socket"):
            name = out + suffix
            if not special_file(name, kind):
                continue
            for label, args in jobs.items():
                proc = run(args, expect=2, timeout=60)
                one_line_error(proc, name, {"fifo": "FIFO", "device": "character device", "socket": "socket"}[kind])
                check(same_kind(name, kind) and beside(out) == [name], f"{label}: {name} ({kind}): {beside(out)}")
            os.unlink(name)
    # fourth review, case L: OUT.partial a symbolic link to a FIFO blocked run (--force,
    # --resume), merge and judge -o in open(), the partial's kind asked by its name
    fifo = f"{tmp}/fifo"
    os.mkfifo(fifo)
    os.symlink(fifo, out + ".partial")
    for label, args in jobs.items():
        one_line_error(run(args, expect=2, timeout=60), "o.h5.partial", "a link to a FIFO")
        check(os.path.islink(out + ".partial") and same_kind(fifo, "fifo"), f"{label}: the link or the FIFO changed")
    os.unlink(out + ".partial")
    os.unlink(fifo)


def case_resume_through_link(tmp):
    """Hostile review (outputs, 2): after an interrupted run, `ln o.h5.partial other.h5; run
    --resume` exited 0 and other.h5 changed with it: resuming writes the partial in place.
    A partial with other names, or a symbolic link as the partial, is refused in one line,
    exit 2, both files as they were; once it is a file of its own the run resumes."""
    spec = write(f"{tmp}/busy.cfg", BUSY_SPEC)
    out = f"{tmp}/o.h5"
    partial = out + ".partial"
    for _ in range(30):
        proc = start(["run", spec, "-o", out, "-q"])
        if wait_for_any([partial], proc):
            time.sleep(0.3)
            proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=120)
        if os.path.exists(partial) and not os.path.exists(out):
            break
        for path in beside(out):
            os.remove(path)
    check(os.path.exists(partial), "no interrupted run left its partial")
    other = f"{tmp}/other.h5"
    os.link(partial, other)
    before = test_cli.digest(other)
    one_line_error(run(["run", spec, "-o", out, "--resume", "-q"], expect=2), partial, "hard link")
    check(test_cli.digest(other) == before and test_cli.digest(partial) == before, "the linked file changed")
    os.unlink(partial)
    os.symlink("other.h5", partial)
    one_line_error(run(["run", spec, "-o", out, "--resume", "-q"], expect=2), partial, "symbolic link")
    check(test_cli.digest(other) == before and os.path.islink(partial), "the linked file changed")
    os.unlink(partial)
    os.rename(other, partial)
    run(["run", spec, "-o", out, "--resume", "-q"], expect=0)
    check(beside(out) == [out], f"left {beside(out)}")



def case_partial_not_attnrank(tmp):
    """Hostile review (small, 3): `echo "my thesis" > k7.h5.partial; run s.cfg -o k7.h5` said
    "an interrupted run is there; continue with --resume or start over with --force", and
    --force deleted it; attack called any such file "an interrupted run's or merge's". A
    .partial that is not HDF5, or an HDF5 file attnrank did not write, is named as not an
    attnrank file, in one line, exit 2, and left as it is, --force and --resume included."""
    import attacks
    result = small_result(tmp)
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    planted = write(f"{tmp}/planted.cfg", attacks.PLANTED)
    out = f"{tmp}/k7.h5"
    partial = out + ".partial"
    jobs = {"run": ["run", spec, "-o", out, "-q"], "merge": ["merge", "-o", out, result],
            "attack": ["attack", planted, "-o", out, "-q"]}
    for what in ("text", "hdf5"):
        if what == "text":
            write(partial, "my thesis\n")
        else:
            with h5py.File(partial, "w") as f:
                f["thesis"] = [1.0, 2.0]
        with open(partial, "rb") as f:
            before = f.read()
        for label, args in jobs.items():
            for extra in ([], ["--force"], ["--resume"]):
                if label == "merge" and extra == ["--resume"]:
                    continue
                proc = run(args + extra, expect=2, timeout=120)
                one_line_error(proc, "k7.h5", "not an attnrank file", "remove it yourself")
                check(os.path.exists(partial), f"{label} {extra} on a {what} .partial removed it")
                with open(partial, "rb") as f:
                    check(f.read() == before, f"{label} {extra} on a {what} .partial changed it")
                check(beside(out) == [partial], f"{label} {extra}: left {beside(out)}")
        os.unlink(partial)


def case_partial_of_another_command(tmp):
    """Seventh hostile review, B: `judge R -o X --force` and `merge -o X --force` deleted
    X.partial that an interrupted attack or run left (its resumable progress), and without
    --force their refusal told the user to use it (calling an intact attack's partial
    "damaged: group /h3 is missing"). One command's partial is never another's to replace:
    refused in one line naming the partial and the command that continues it, exit 2,
    --force included, the partial kept; `run` beside an attack's partial says the same."""
    import attacks
    result = small_result(tmp)
    _, attack_file = attacks.attack(tmp, attacks.PLANTED, name="a")
    out = f"{tmp}/lp.h5"
    partial = out + ".partial"
    for kind, source, resumer in (("attack", attack_file, "attack SPEC -o FILE --resume"),
                                  ("run", result, "run SPEC -o FILE --resume")):
        shutil.copy(source, partial)
        before = test_cli.digest(partial)
        for label, args in (("judge -o", ["judge", result, "-o", out]), ("merge", ["merge", "-o", out, result])):
            for extra in ([], ["--force"]):
                proc = run(args + extra, expect=2)
                one_line_error(proc, "lp.h5.partial", f"interrupted {'attack' if kind == 'attack' else '`attnrank run`'}",
                               resumer, "--force included")
                check("damaged" not in proc.stderr and "replace it with --force" not in proc.stderr,
                      f"{label} {extra} on a {kind}'s partial: {proc.stderr!r}")
                check(test_cli.digest(partial) == before and not os.path.exists(out),
                      f"{label} {extra}: the {kind}'s partial was replaced: {beside(out)}")
    shutil.copy(attack_file, partial)
    spec = write(f"{tmp}/small.cfg", SMALL_SPEC)
    for extra in ([], ["--force"]):
        one_line_error(run(["run", spec, "-o", out, "-q", *extra], expect=2), "lp.h5.partial",
                       "interrupted attack", "attack SPEC -o FILE --resume", "--force included")

if __name__ == "__main__":
    test_cli.main(test_cli.cases_of(globals()))

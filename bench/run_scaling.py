#!/usr/bin/python3
"""Strong scaling of one grid (bench/scaling.cfg) on this machine: one process with 1
and 2 OpenMP threads, MPI with 1, 2 and (oversubscribed) 4 workers of one thread each
(plus rank 0, which only hands out points and writes), and 2 shards run side by side
and merged. Points per second, speed-up and efficiency against one process on one
core, and a check that every file holds the single run's datasets.

usage: run_scaling.py [BUILD_DIR [MPI_BUILD_DIR]]   (defaults: build, build-mpi)
"""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "scaling.cfg")
ROOT_OK = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def timed(cmd, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), **ROOT_OK)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def same(a, b):
    groups = ["/hardmax", "/markov", "/masks", "/verdicts"]
    return all(subprocess.run(["h5diff", a, b, g, g], capture_output=True).returncode == 0 for g in groups)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build")
    mpi_build = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "build-mpi")
    exe, mpi_exe = os.path.join(build, "attnrank"), os.path.join(mpi_build, "attnrank")
    points = 32
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        ref = f"{tmp}/one.h5"
        rows.append(("1 process, 1 thread", 1, timed([exe, "run", SPEC, "-o", ref, "-q"], 1), ref))
        out = f"{tmp}/two.h5"
        rows.append(("1 process, 2 threads", 2, timed([exe, "run", SPEC, "-o", out, "-q"], 2), out))
        if os.path.exists(mpi_exe):
            for workers in (1, 2, 4):
                out = f"{tmp}/mpi{workers}.h5"
                cmd = ["mpirun", "-np", str(workers + 1), "--oversubscribe", "--bind-to", "none", mpi_exe, "run", SPEC,
                       "-o", out, "-q"]
                rows.append((f"MPI, {workers} worker{'s' if workers > 1 else ''} x 1 thread", min(workers, 2),
                             timed(cmd, 1), out))
        # two shards side by side, then the merge
        env = dict(os.environ, OMP_NUM_THREADS="1")
        t0 = time.perf_counter()
        procs = [subprocess.Popen([exe, "run", SPEC, "-o", f"{tmp}/s{i}.h5", "--shard", f"{i}/2", "-q"], env=env,
                                  stdout=subprocess.DEVNULL) for i in range(2)]
        for p in procs:
            p.wait()
        shards = time.perf_counter() - t0
        merge = timed([exe, "merge", "-o", f"{tmp}/merged.h5", f"{tmp}/s0.h5", f"{tmp}/s1.h5"], 1)
        rows.append(("2 shards x 1 thread, then merge", 2, shards + merge, f"{tmp}/merged.h5"))
        base = rows[0][2]
        print(f"{points} points; this machine has {os.cpu_count()} cores\n")
        print(f"{'configuration':<34} {'cores':>5} {'seconds':>8} {'points/s':>9} {'speed-up':>9} {'efficiency':>10} "
              f"{'same data':>9}")
        for name, cores, seconds, path in rows:
            speed = base / seconds
            print(f"{name:<34} {cores:>5} {seconds:>8.2f} {points / seconds:>9.2f} {speed:>8.2f}x {speed / cores:>10.2f} "
                  f"{'yes' if same(ref, path) else 'NO':>9}")
        print(f"\nmerge of the 2 shards: {merge:.2f} s")


if __name__ == "__main__":
    main()

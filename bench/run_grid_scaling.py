#!/usr/bin/python3
"""Grids at scale: the engine's own cost per point from 10^3 to 10^6 points.

The cheapest simulator (hardmax_rank, n = 8, d_h = 4, 2 trials a point) over sigma x rho,
so that the trials cost about a microsecond a point and the rest is the engine: points per
second and per-point overhead (the run's wall time less a one-point run's, which is the
start and the verdicts' fixed part, less the trials' own time, timed by `attnrank plan`)
for one process with one and two threads and under `mpirun -np 2` and `-np 3`; the file
size a point; and the time of info, judge, report, 8 shards and their merge, and a resume
of a run killed half way. Side by side in one run; ratios against one process.

usage: run_grid_scaling.py ATTNRANK [MPI_ATTNRANK] [--quick]   (--quick: up to 10^5 points)
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT_OK = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def spec_text(n_sigma, n_rho, claims='"H1", "H2"'):
    sigma = ", ".join(f"{1 + i * 1e-4:.4f}" for i in range(n_sigma))
    rho = ", ".join(f"{-0.5 + i * 1e-4:.4f}" for i in range(n_rho))
    return (f'seed = 11;\nexperiments = ( {{ name = "g"; simulator = "hardmax_rank"; trials = 2; n = 8; d_h = 4; '
            f'sigma = [{sigma}]; rho = [{rho}]; claims = [{claims}]; }} );\n')


SIZES = {1000: (100, 10), 10000: (100, 100), 100000: (1000, 100), 1000000: (1000, 1000)}


def timed(cmd, threads=1, check=True):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), **ROOT_OK)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    if check and proc.returncode not in (0, 4):
        sys.exit(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr[-400:]}")
    return seconds


def trial_seconds(exe, spec):
    out = subprocess.run([exe, "plan", spec, "--threads", "1"], capture_output=True, text=True, check=True).stdout
    row = [line for line in out.splitlines() if line.startswith("g ")][0]
    return float(row.split()[5])


def killed_then_resumed(exe, spec, out, full):
    """A run killed (SIGKILL) at half its time, then --resume timed."""
    for path in (out, out + ".partial"):
        if os.path.exists(path):
            os.unlink(path)
    proc = subprocess.Popen([exe, "run", spec, "-o", out, "-q"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=dict(os.environ, OMP_NUM_THREADS="1"))
    time.sleep(0.5 * full)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    if not os.path.exists(out + ".partial"):
        return float("nan")
    return timed([exe, "run", spec, "-o", out, "-q", "--resume"])


def openblas_core(exe, path):
    out = subprocess.run([exe, "info", path], capture_output=True, text=True).stdout
    found = re.search(r"openblas_core\s+(\S+)", out)
    return found.group(1) if found else "?"


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        sys.exit(__doc__)
    exe = os.path.abspath(args[0])
    mpi_exe = os.path.abspath(args[1]) if len(args) > 1 and os.path.exists(args[1]) else None
    if mpi_exe and not shutil.which("mpirun"):
        mpi_exe = None
    sizes = [s for s in SIZES if "--quick" not in sys.argv or s <= 100000]
    rows = []
    with tempfile.TemporaryDirectory(prefix="attnrank_grid_") as tmp:
        one = f"{tmp}/one.cfg"
        with open(one, "w") as f:
            f.write(spec_text(1, 1))
        fixed = min(timed([exe, "run", one, "-o", f"{tmp}/one.h5", "-q", "--force"]) for _ in range(3))
        core = openblas_core(exe, f"{tmp}/one.h5")
        per_trial = trial_seconds(exe, one)
        for points in sizes:
            spec = f"{tmp}/g{points}.cfg"
            with open(spec, "w") as f:
                f.write(spec_text(*SIZES[points]))
            out = f"{tmp}/g{points}.h5"
            row = {"points": points}
            row["t1"] = timed([exe, "run", spec, "-o", out, "-q", "--force"], 1)
            row["t2"] = timed([exe, "run", spec, "-o", f"{tmp}/t2.h5", "-q", "--force"], 2)
            trials = per_trial * 2 * points
            row["overhead_us"] = 1e6 * (row["t1"] - fixed - trials) / points
            row["bytes"] = os.path.getsize(out) / points
            if mpi_exe:
                # Without claims: at 2 trials a point they are undecided, and mpirun spends
                # about 2 s tearing a job down whose exit status (4) is not 0.
                bare = f"{tmp}/bare{points}.cfg"
                with open(bare, "w") as f:
                    f.write(spec_text(*SIZES[points], claims=""))
                row["bare2"] = timed([exe, "run", bare, "-o", f"{tmp}/t2.h5", "-q", "--force"], 2)
                for ranks in (2, 3):
                    row[f"mpi{ranks}"] = timed(["mpirun", "-np", str(ranks), "--oversubscribe", "--bind-to", "none",
                                                mpi_exe, "run", bare, "-o", f"{tmp}/m{ranks}.h5", "-q", "--force"], 1)
            row["info"] = timed([exe, "info", out])
            row["judge"] = timed([exe, "judge", out])
            row["report"] = timed([exe, "report", out, "-o", f"{tmp}/report{points}"])
            shards = [f"{tmp}/s{i}.h5" for i in range(8)]
            t0 = time.perf_counter()
            for i, path in enumerate(shards):
                timed([exe, "run", spec, "-o", path, "--shard", f"{i}/8", "-q", "--force"], 1)
            row["shards"] = time.perf_counter() - t0
            row["shard_disk"] = sum(os.stat(p).st_blocks * 512 for p in shards) / os.stat(out).st_blocks / 512
            row["merge"] = timed([exe, "merge", "-o", f"{tmp}/merged.h5", "--force", *shards])
            row["resume"] = killed_then_resumed(exe, spec, f"{tmp}/resumed.h5", row["t1"])
            for path in shards + [f"{tmp}/merged.h5", f"{tmp}/t2.h5", f"{tmp}/resumed.h5"]:
                if os.path.exists(path):
                    os.unlink(path)
            shutil.rmtree(f"{tmp}/report{points}", ignore_errors=True)
            rows.append(row)
            print(f"done {points} points", file=sys.stderr)
    print(f"OpenBLAS core {core}; OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}; "
          f"a trial {per_trial * 1e6:.2f} us (plan's timing); a one-point run {fixed:.3f} s")
    head = f"{'points':>8} {'1 thread':>9} {'pts/s':>9} {'overhead':>9} {'2 thr':>7} {'x':>5}"
    if mpi_exe:
        head += f" {'np 2':>7} {'vs 2thr':>7} {'np 3':>7}"
    head += f" {'B/point':>8} {'info':>6} {'judge':>6} {'report':>6} {'8 shards':>8} {'disk':>5} {'merge':>6} {'resume':>6}"
    print(head)
    for r in rows:
        line = (f"{r['points']:>8} {r['t1']:>8.2f}s {r['points'] / r['t1']:>9.3g} {r['overhead_us']:>7.2f}us "
                f"{r['t2']:>6.2f}s {r['t1'] / r['t2']:>5.2f}")
        if mpi_exe:
            line += f" {r['mpi2']:>6.2f}s {r['bare2'] / r['mpi2']:>7.2f} {r['mpi3']:>6.2f}s"
        line += (f" {r['bytes']:>8.0f} {r['info']:>5.2f}s {r['judge']:>5.2f}s {r['report']:>5.2f}s "
                 f"{r['shards']:>7.2f}s {r['shard_disk']:>5.2f} {r['merge']:>5.2f}s "
                 + (f"{r['resume']:>5.2f}s" if r['resume'] == r['resume'] else f"{'-':>6}"))
        print(line)
    if mpi_exe and "--quick" not in sys.argv:
        # MPI on points that cost their trials: runs/grid_million.cfg (n up to 103), claims off
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        with open(os.path.join(root, "runs", "grid_million.cfg")) as f:
            text = re.sub(r'claims = \[[^\]]*\];', "claims = [];", f.read())
        with tempfile.TemporaryDirectory(prefix="attnrank_grid_") as tmp:
            spec = f"{tmp}/million.cfg"
            with open(spec, "w") as f:
                f.write(text)
            two = timed([exe, "run", spec, "-o", f"{tmp}/a.h5", "-q"], 2)
            mpi = timed(["mpirun", "-np", "2", "--oversubscribe", "--bind-to", "none", mpi_exe, "run", spec, "-o",
                         f"{tmp}/b.h5", "-q"], 1)
        print(f"runs/grid_million.cfg (10^6 points, n up to 103, no claims): 1 process x 2 threads {two:.2f}s, "
              f"mpirun -np 2 x 1 thread {mpi:.2f}s: {two / mpi:.2f} of one process")
    print("overhead: the run's wall time less a one-point run's and the trials' own time, a point; x: 1 thread over "
          "2; vs 2thr: one process with 2 threads over mpirun -np 2 (1 thread a rank; both without claims, mpirun's "
          "start included); disk: 8 shards' blocks "
          "on disk over one run's; resume: --resume of a run killed half way ('-': the run ended before its kill)")


if __name__ == "__main__":
    main()

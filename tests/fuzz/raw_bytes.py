#!/usr/bin/python3
"""Raw-byte damage to a result file, counted: the measurement behind keeping the result
file's attributes variable-length strings (docs/development.md, "How it is tested against misuse"):
fixed-length ones moved libhdf5's crashes elsewhere (H5Aexists) rather than ending them.

usage: raw_bytes.py ATTNRANK FILE MUTATIONS [SEED]     (RAW_BYTES_KEEP=DIR keeps crashing copies)

Writes MUTATIONS copies of FILE, each with 1 to 4 bytes set to random values at random
offsets, runs `ATTNRANK info` on each (build ATTNRANK with AddressSanitizer) and counts
the outcomes: refused (exit 2), read (exit 0), and crashes (a signal, a sanitizer report,
any other status, or more than 20 s). Prints the counts and where the crashes were.
"""
import collections
import os
import random
import subprocess
import sys
import tempfile


def main():
    exe, path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    data = open(path, "rb").read()
    outcomes, sites = collections.Counter(), collections.Counter()
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1", UBSAN_OPTIONS="print_stacktrace=1")
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "damaged.h5")
        for _ in range(count):
            damaged = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                damaged[rng.randrange(len(damaged))] = rng.randrange(256)
            with open(target, "wb") as f:
                f.write(damaged)
            try:
                proc = subprocess.run([exe, "info", target], capture_output=True, text=True, env=env, timeout=20,
                                      errors="replace")
                status, err = proc.returncode, proc.stderr
            except subprocess.TimeoutExpired:
                status, err = "timeout", ""
            # libhdf5 asking for an absurd allocation gets NULL (allocator_may_return_null)
            # and fails cleanly: a refusal, counted apart
            huge = "requested allocation size" in err or "failed to allocate" in err
            sanitizer = ("AddressSanitizer" in err and not huge) or "runtime error" in err
            if status in (0, 2) and not sanitizer:
                outcomes["read" if status == 0 else "refused after a huge allocation" if huge else "refused"] += 1
                continue
            outcomes["crash"] += 1
            keep = os.environ.get("RAW_BYTES_KEEP")  # a folder for the crashing copies
            if keep:
                with open(os.path.join(keep, f"crash-{outcomes['crash']}.h5"), "wb") as f:
                    f.write(damaged)
            frames = [l.split(" in ")[1].split(" ")[0] for l in err.splitlines() if " in " in l and "#" in l]
            sites[frames[0] if frames else f"status {status}"] += 1
    print(f"{path}: {count} mutations: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    for site, n in sites.most_common(8):
        print(f"  {n:4d} crashes in {site}")


if __name__ == "__main__":
    main()

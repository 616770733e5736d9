#!/usr/bin/python3
"""Hostile-user CLI tests: spec files and command lines: integers that must not wrap, one assignment per --set, BOM and includes.

usage: hostile_spec.py ATTNRANK CASE     (meson registers one test per case)
"""
import os
import subprocess
import sys
import time

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_cli  # noqa: E402
from test_cli import check, one_line_error, run, write, SMALL_SPEC  # noqa: E402,F401

# One point, well under a second even under AddressSanitizer.
ONE_POINT = """seed = {seed};
experiments = (
  {{ name = "{name}"; simulator = "hardmax_rank"; trials = {trials};
    n = {n}; d_h = 2; }}
);
"""


def spec(tmp, name="s.cfg", seed="1", exp="e", trials="10", n="8", prefix=""):
    return write(f"{tmp}/{name}", prefix + ONE_POINT.format(seed=seed, name=exp, trials=trials, n=n))


def refused(tmp, args, *parts, timeout=120):
    """Exit 2, one line with every part, no output and no partial left."""
    out = f"{tmp}/out.h5"
    proc = run(["run", *args, "-o", out, "-q"], expect=2, timeout=timeout)
    one_line_error(proc, *parts)
    left = [f for f in os.listdir(tmp) if f.startswith("out.h5")]
    check(not left, f"{args}: left behind: {left}")
    return proc


def seed_of(path):
    with h5py.File(path, "r") as f:
        return int(f.attrs["seed"])


def case_integers_wrap(tmp):
    """libconfig 1.5 reads integers without L as 32 bits: seed 4294967297 ran as seed 1,
    trials 4294967396 as 100, n 4294967304 as 8. Now each is read whole, and refused
    where out of range or beyond 64 bits."""
    for seed in ["4294967297", "0x100000001"]:
        out = f"{tmp}/wide.h5"
        run(["run", spec(tmp, seed=seed), "-o", out, "-q"], expect=0)
        check(seed_of(out) == 4294967297, f"seed = {seed} stored as {seed_of(out)}")
        os.remove(out)
    run(["run", spec(tmp), "-o", f"{tmp}/wide.h5", "-q", "--set", "seed=4294967297"], expect=0)
    check(seed_of(f"{tmp}/wide.h5") == 4294967297, "--set seed=4294967297 did not reach the file whole")
    os.remove(f"{tmp}/wide.h5")
    refused(tmp, [spec(tmp, trials="4294967396")], "s.cfg:3", "trials", "4294967396")
    refused(tmp, [spec(tmp, n="4294967304")], "s.cfg:4", "n", "4294967304 is out of range")
    refused(tmp, [spec(tmp, n="[8, -4294967280]")], "s.cfg:4", "n", "-4294967280 is out of range")
    refused(tmp, [spec(tmp, seed="99999999999999999999")], "s.cfg:1", "seed",
            "99999999999999999999 does not fit in a 64-bit integer")
    refused(tmp, [spec(tmp), "--set", "seed=99999999999999999999"], "--set seed=99999999999999999999",
            "does not fit in a 64-bit integer")
    refused(tmp, [spec(tmp), "--set", "e.n=4294967304"], "--set e.n=4294967304", "n: 4294967304 is out of range")


def case_set_one_assignment(tmp):
    """--set 'e.n=8; seed=9' applied n = 8 and dropped seed = 9 without a word."""
    refused(tmp, [spec(tmp), "--set", "e.n=8; seed=9"], "e.n=8; seed=9", "one assignment per --set")
    refused(tmp, [spec(tmp), "--set", "e.n=8;;"], "e.n=8;;", "cannot read the value")
    # one trailing ';' is harmless
    proc = run(["plan", spec(tmp), "--set", "e.n=[8, 16];"], expect=0)
    row = [line.split() for line in proc.stdout.splitlines() if line.startswith("e ")]
    check(row and row[0][2] == "2", f"--set 'e.n=[8, 16];' not applied: {proc.stdout}")


def case_set_field_names(tmp):
    """--set e.=8 said "no experiment named 'e'"; --set 1x=8 crashed (SIGSEGV)."""
    refused(tmp, [spec(tmp), "--set", "e.=8"], "e.=8", "the field name after 'e.' is missing")
    refused(tmp, [spec(tmp), "--set", ".n=8"], ".n=8", "the experiment's name before '.' is missing")
    refused(tmp, [spec(tmp), "--set", "1x=8"], "1x=8", "'1x' is not a field name")
    refused(tmp, [spec(tmp), "--set", "e.-n=8"], "e.-n=8", "'-n' is not a field name")
    refused(tmp, [spec(tmp), "--set", "zz.n=8"], "zz.n=8", "no experiment named 'zz'")


def case_reserved_name(tmp):
    """An experiment named verdicts ran into the store's /verdicts: "cannot write the HDF5
    layout (disk full?)" after the pre-flight. Refused at its line instead."""
    refused(tmp, [spec(tmp, exp="verdicts")], "s.cfg:3", "name", "'verdicts' is reserved")


def case_bom(tmp):
    """A UTF-8 byte-order mark before the first line gave only "syntax error"."""
    path = f"{tmp}/bom.cfg"
    with open(path, "wb") as f:
        f.write(b"\xef\xbb\xbf" + ONE_POINT.format(seed=5, name="e", trials=10, n=8).encode())
    run(["run", path, "-o", f"{tmp}/bom.h5", "-q"], expect=0)
    check(seed_of(f"{tmp}/bom.h5") == 5, "BOM spec: wrong seed")
    with open(path, "wb") as f:
        f.write(b"\xef\xbb\xbf" + ONE_POINT.format(seed=5, name="e", trials=10, n="\"x\"").encode())
    refused(tmp, [path], "bom.cfg:4", "n: must be an integer")


def case_review_findings(tmp):
    """A second review's findings: "0x" was said not to fit in 64 bits, a near-integer was
    printed rounded to the integer it is not, and a spec ending inside a comment or a
    string was accepted (the same ending in an included file was refused)."""
    refused(tmp, [spec(tmp, seed="0x")], "s.cfg:1", "syntax error")
    refused(tmp, [spec(tmp, n="8.0000000001")], "s.cfg:4", "n: must be an integer, not 8.0000000001")
    path = write(f"{tmp}/open_comment.cfg", ONE_POINT.format(seed=1, name="e", trials=10, n=8) + "/* open")
    refused(tmp, [path], "open_comment.cfg", "ends inside a comment")
    path = write(f"{tmp}/open_string.cfg", ONE_POINT.format(seed=1, name="e", trials=10, n=8) + 'title = "open')
    refused(tmp, [path], "open_string.cfg", "ends inside a string")


def case_include_lines(tmp):
    """Includes are expanded before libconfig reads: a wrapping integer in an included file
    is caught, and every message names the file and line it came from."""
    write(f"{tmp}/part.cfg", '  { name = "e"; simulator = "hardmax_rank";\n    trials = 10;\n    n = 4294967304; }\n')
    main = write(f"{tmp}/main.cfg", 'seed = 1;\nexperiments = (\n@include "part.cfg"\n);\n')
    refused(tmp, [main], "part.cfg:3", "n: 4294967304 is out of range")
    write(f"{tmp}/part.cfg", '  { name = "e"; simulator = "hardmax_rank"; trials = 10; n = 8; d_h = 2; }\n')
    write(main, 'seed = 1;\nexperiments = (\n@include "part.cfg"\n,\n { name = "f"; simulator = "hardmax_rank";\n'
                '   sigma = 1.0; bogus = 2; }\n);\n')
    refused(tmp, [main], "main.cfg:6", "bogus: unknown field")
    write(main, 'seed = 1;\nexperiments = (\n@include "part.cfg"\n);\n')
    run(["run", main, "-o", f"{tmp}/inc.h5", "-q"], expect=0)
    # a spec that includes itself stays refused
    write(main, '@include "main.cfg"\nseed = 1;\n')
    refused(tmp, [main], "main.cfg:1", "includes nest deeper than 10")


def case_include_directory(tmp):
    """@include of a directory printed flex's "input in flex scanner failed", no file or line."""
    os.mkdir(f"{tmp}/sub")
    main = write(f"{tmp}/main.cfg", 'seed = 1;\n@include "sub"\nexperiments = ();\n')
    refused(tmp, [main], "main.cfg:2", '@include "sub"', "is a directory")
    write(main, 'seed = 1;\n@include "nowhere.cfg"\nexperiments = ();\n')
    refused(tmp, [main], "main.cfg:2", '@include "nowhere.cfg"', "cannot open")


def case_include_too_large(tmp):
    """A 20 MiB one-line include parsed for minutes past the 1 MiB spec cap: the cap covers
    the spec and everything it includes."""
    with open(f"{tmp}/big.cfg", "w") as f:
        f.write("seed = 1; # " + "x" * (20 << 20) + "\n")
    main = write(f"{tmp}/main.cfg", '@include "big.cfg"\nexperiments = ( { name = "e"; simulator = "hardmax_rank"; } );\n')
    start = time.monotonic()
    refused(tmp, [main], "main.cfg:1", '@include "big.cfg"', "exceed 1048576 bytes", timeout=60)
    check(time.monotonic() - start < 30, "the refusal took more than 30 s")


def refused_quickly(tmp, args, *parts, timeout=30):
    """As refused, but a hang is a failure of the case, not of the suite."""
    try:
        return refused(tmp, args, *parts, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise test_cli.Failure(f"attnrank run {' '.join(args)} hangs (over {timeout} s)")


def case_fifo_refused(tmp):
    """A FIFO as the spec, as an included file or as judge's --conjectures file blocked
    the program in open() until a writer came (forever, without one). Now a file that is
    not a regular file is refused without blocking, in one line naming it, exit 2."""
    fifo = f"{tmp}/pipe.cfg"
    os.mkfifo(fifo)
    refused_quickly(tmp, [fifo], "pipe.cfg", "not a regular file", "a FIFO")
    main = write(f"{tmp}/main.cfg", 'seed = 1;\n@include "pipe.cfg"\nexperiments = ();\n')
    refused_quickly(tmp, [main], "main.cfg:2", '@include "pipe.cfg"', "not a regular file", "a FIFO")
    # a Unix socket: open() fails with "No such device or address"; it is named as a socket
    import socket
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(f"{tmp}/sock.cfg")
    refused_quickly(tmp, [f"{tmp}/sock.cfg"], "sock.cfg", "not a regular file", "a socket")
    sock.close()
    # a character device reads as empty: refused as what it is, not as an empty spec
    refused_quickly(tmp, ["/dev/null"], "/dev/null", "not a regular file", "a character device")
    good = spec(tmp)
    out = f"{tmp}/good.h5"
    run(["run", good, "-o", out, "-q"], expect=0)
    try:
        proc = run(["judge", out, "--conjectures", fifo], expect=2, timeout=30)
    except subprocess.TimeoutExpired:
        raise test_cli.Failure("judge --conjectures FIFO hangs")
    one_line_error(proc, "pipe.cfg", "not a regular file", "a FIFO")
    # a link to a regular file is still read
    os.symlink(good, f"{tmp}/link.cfg")
    run(["run", f"{tmp}/link.cfg", "-o", f"{tmp}/link.h5", "-q"], expect=0)


def case_integer_fields_float(tmp):
    """`n = 8.0` was accepted for an integer parameter while `trials = 4.0` was refused:
    a real number is refused for every integer field, naming the file, line and field,
    in files, arrays, included files and --set alike."""
    refused(tmp, [spec(tmp, n="8.0")], "s.cfg:4", "n: must be an integer", "8.0")
    refused(tmp, [spec(tmp, n="[8.0, 16.0]")], "s.cfg:4", "n: must be an integer", "8.0")
    refused(tmp, [spec(tmp, n="(8, 1.6e1)")], "s.cfg:4", "n: must be an integer")
    refused(tmp, [spec(tmp, trials="4.0")], "s.cfg:3", "trials: must be an integer")
    refused(tmp, [spec(tmp, seed="1.0")], "s.cfg:1", "seed: must be an integer")
    refused(tmp, [spec(tmp), "--set", "e.n=8.0"], "--set", "n: must be an integer")
    refused(tmp, [spec(tmp), "--set", "n=[8.0]"], "--set", "n: must be an integer")
    write(f"{tmp}/part.cfg", '  { name = "e"; simulator = "hardmax_rank"; trials = 10;\n    n = 8.0; d_h = 2; }\n')
    main = write(f"{tmp}/main.cfg", 'seed = 1;\nexperiments = (\n@include "part.cfg"\n);\n')
    refused(tmp, [main], "part.cfg:2", "n: must be an integer")
    # real parameters still take integers and reals
    run(["run", spec(tmp, prefix=""), "-o", f"{tmp}/ok.h5", "-q", "--set", "e.sigma=2"], expect=0)


if __name__ == "__main__":
    test_cli.main(test_cli.cases_of(globals()))

#!/usr/bin/python3
"""Keeps the misuse catalogue in docs/development.md pointing at tests that exist.

usage: check_misuse_tables.py DEVELOPMENT_MD INTROSPECT_JSON

The catalogue ("How it is tested against misuse") is tables whose last column names
tests in backquotes. Each name must be a test of this build (INTROSPECT_JSON: the output
of `meson introspect --tests`, which meson writes to meson-info/intro-tests.json) or,
where its row says "(MPI build)", a name registered in a tests/ meson.build file.
A problem is one line naming the test and the row; exit 0 and "misuse tables: N tests
named, all registered" when there is none, 1 otherwise, 2 for a usage error.
"""
import json
import os
import re
import sys


def catalogue_rows(text):
    start = text.find("### How it is tested against misuse")
    if start < 0:
        return None
    end = text.find("\n### ", start + 1)
    section = text[start:end if end > 0 else len(text)]
    return [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| misuse")]


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        rows = catalogue_rows(f.read())
    if not rows:
        print(f"{argv[1]}: no misuse tables under 'How it is tested against misuse'")
        return 1
    with open(argv[2], encoding="utf-8") as f:
        registered = {t["name"] for t in json.load(f)}
    tests_dir = os.path.join(os.path.dirname(os.path.abspath(argv[1])), "..", "tests")
    meson_text = ""
    for folder, _, files in os.walk(tests_dir):
        for name in files:
            if name == "meson.build":
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    meson_text += f.read()
    problems, named = 0, 0
    for row in rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        for test in re.findall(r"`([A-Za-z0-9_]+)`", cells[-1]):
            named += 1
            if test in registered:
                continue
            # an MPI-only test: registered only where the MPI build is configured
            suffix = test.split("_", 2)[-1] if test.startswith("hostile_") else test
            if "(MPI build)" in cells[-1] and ("'" + suffix + "'" in meson_text or "'" + test + "'" in meson_text):
                continue
            print(f"{argv[1]}: misuse table names `{test}`, which is no test of this build: {cells[0][:70]}")
            problems += 1
    if problems:
        return 1
    print(f"misuse tables: {named} tests named, all registered")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/python3
"""check_claims_page.py catches a family's section drifting from its folder: on copies of
the claims page it must fail, naming the claim or family, when a claim's row sits in
another family's section, a family's section is missing, two sections are swapped, a
section names a family attnrank does not have, or a row is missing; and pass on the page.

usage: claims_page_catches.py ATTNRANK CLAIMS_MD"""
import os
import re
import subprocess
import sys
import tempfile

CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_claims_page.py")


def section(page, family):
    """The text of FAMILY's section, markers included."""
    m = re.search(rf"<!-- claims-table:{family}:begin -->.*?<!-- claims-table:{family}:end -->\n", page, re.S)
    return m.group(0)


def row(page, cid):
    return re.search(rf"^\| {cid} \|.*\n", page, re.M).group(0)


def main(argv):
    exe, page_name = argv[1], argv[2]
    page = open(page_name, encoding="utf-8").read()
    h1 = row(page, "H1")
    markov = section(page, "markov")
    cases = {
        "the page": (page, 0, "families in step"),
        "H1 in markov's section": (page.replace(h1, "").replace(
            "<!-- claims-table:markov:end -->", h1 + "<!-- claims-table:markov:end -->"), 1,
            "H1: in the section of markov"),
        "convex's section gone": (page.replace(section(page, "convex"), ""), 1, "family convex has no section"),
        "sections swapped": (page.replace(markov, "@@").replace(section(page, "masks"), markov).replace(
            "@@", section(page, "masks")), 1, "the sections are in the order"),
        "a family attnrank lacks": (page + "<!-- claims-table:toy:begin -->\n| id | simulator | rule | judged |\n"
                                    "|---|---|---|---|\n<!-- claims-table:toy:end -->\n", 1,
                                    "a section for family toy"),
        "a row missing": (page.replace(row(page, "C4gap"), ""), 1, "C4gap: missing from the claims table of convex"),
    }
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (text, status, said) in cases.items():
            path = os.path.join(tmp, "claims.md")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            proc = subprocess.run([sys.executable, CHECKER, exe, path], capture_output=True, text=True, timeout=120)
            ok = proc.returncode == status and said in proc.stdout
            failed += not ok
            print(f"{'ok' if ok else 'FAIL'}: {name}" + ("" if ok else f": exit {proc.returncode}: {proc.stdout}"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

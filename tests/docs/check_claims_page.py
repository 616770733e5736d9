#!/usr/bin/python3
"""Keeps docs/claims.md in step with the claims attnrank itself knows, family by family.

usage: check_claims_page.py ATTNRANK CLAIMS_MD

CLAIMS_MD has a section per claim family (a family is a folder sim/05-families/<family>/
whose claims.c holds its claim table), in the order `attnrank list` shows the families:
the table between the lines <!-- claims-table:<family>:begin --> and
<!-- claims-table:<family>:end -->, a row per claim of the family whose first four
columns mirror what the program prints: id, simulator, rule (the rule's name as
`attnrank list` prints it) and judged ("default", "on request" for a claim judged only
where a spec lists it, "not judged" for a reference curve).

Where the program's claims come from: `attnrank list --tsv` gives the simulators (one
line per parameter: simulator, parameter, type, default, min, max, choices); it holds
no claims, so they are read from `attnrank list`: under each simulator its
"family: <family> (<paper>)" line, then the "claim checks:" lines, one per claim:

    <4 spaces><id, padded to 8> <rule, padded to 11> <statement>[ [only when listed]]

A problem is one line naming the claim or the family: a family of the program with no
section, or sections out of the program's order; a section naming a family the program
does not have; a claim of the program missing from its family's section, or in
another family's; a row (in any table of the page) naming an id the program does not
have; a duplicate row; a mirrored field that differs; a claim whose simulator the tsv
does not list. Exit status 0 and "claims page: N claims of F families in step" when
there is none, 1 otherwise, 2 for a usage error. Standard library only; the program is
started with an argument vector, never through a shell.
"""
import re
import subprocess
import sys

# A family's section: <!-- claims-table:<family>:begin --> ... <!-- claims-table:<family>:end -->
MARKER = re.compile(r"^<!-- claims-table:([A-Za-z0-9_]+):(begin|end) -->$")
MIRRORED = ("id", "simulator", "rule", "judged")
# A table row's first cell that names a claim: a capital letter, then letters, digits, '_'.
CLAIM_ID = re.compile(r"^[A-Z][A-Za-z0-9_]*$")
ON_REQUEST = " [only when listed]"


def run(binary, *args):
    """stdout of BINARY ARGS, or raise RuntimeError with the reason."""
    try:
        proc = subprocess.run([binary, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RuntimeError(f"cannot run {binary} {' '.join(args)}: {e}") from e
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"{binary} {' '.join(args)} exited {proc.returncode}"
                           + (f": {err[-1]}" if err else ""))
    return proc.stdout.decode("utf-8", "replace")


def simulators_from_tsv(text):
    """The simulators of `list --tsv`, in order; raise ValueError on a malformed line."""
    sims = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line:
            continue
        fields = line.split("\t")
        if len(fields) != 7:
            raise ValueError(f"list --tsv line {number}: {len(fields)} fields, expected 7")
        if fields[0] not in sims:
            sims.append(fields[0])
    if not sims:
        raise ValueError("list --tsv printed no simulator")
    return sims


def claims_from_list(text):
    """[{id, simulator, family, rule, judged}] from the "claim checks:" blocks of `list`."""
    claims, problems = [], []
    sim, family, in_block = None, None, False
    for line in text.splitlines():
        head = re.match(r"^([A-Za-z0-9_]+): ", line)
        if head:
            sim, family, in_block = head.group(1), None, False
            continue
        named = re.match(r"^  family: ([A-Za-z0-9_]+)( |$)", line)
        if named:
            family = named.group(1)
            continue
        if line == "  claim checks:":
            in_block = True
            continue
        if not in_block:
            continue
        if not line.startswith("    ") or not line.strip():
            in_block = False
            continue
        rest = line[4:]
        cid = rest.split(" ", 1)[0]
        start = max(8, len(cid)) + 1
        field = rest[start:]
        rule = field[:11].rstrip()
        if not rule or rest[len(cid):start].strip() or (len(field) > 11 and field[11] != " "):
            problems.append(f"claims page: {cid}: cannot read its rule from `attnrank list`: {line.strip()!r}")
            continue
        statement = field[12:]
        on_request = statement.endswith(ON_REQUEST)
        judged = "not judged" if rule == "reference" else "on request" if on_request else "default"
        if family is None:
            problems.append(f"claims page: {cid}: `attnrank list` names no family for {sim}")
            continue
        claims.append({"id": cid, "simulator": sim, "family": family, "rule": rule, "judged": judged})
    return claims, problems


def split_row(line):
    """Cells of a markdown table row, '\\|' kept as '|', surrounding backticks dropped."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]
    return [c[1:-1] if len(c) > 1 and c[0] == "`" and c[-1] == "`" else c for c in cells]


def is_separator(cells):
    return all(re.fullmatch(r":?-{3,}:?", c) for c in cells)


def page_tables(lines):
    """Every table of the page: (first line number, header cells, [(line number, cells)])."""
    tables, i = [], 0
    while i < len(lines):
        if lines[i].lstrip().startswith("|") and i + 1 < len(lines) and \
                lines[i + 1].lstrip().startswith("|") and is_separator(split_row(lines[i + 1])):
            header, rows, j = split_row(lines[i]), [], i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                rows.append((j + 1, split_row(lines[j])))
                j += 1
            tables.append((i + 1, header, rows))
            i = j
        else:
            i += 1
    return tables


def sections(lines, page_name):
    """{family: (begin, end)} of the page's family sections, their families in page order,
    and the problems with their markers (a begin without its end, a family twice)."""
    found, order, problems, open_at = {}, [], [], None
    for i, line in enumerate(lines):
        m = MARKER.match(line.strip())
        if not m:
            continue
        family, which = m.groups()
        if which == "begin":
            if open_at is not None:
                problems.append(f"claims page: {page_name}: line {i + 1}: section {family} begins inside "
                                f"section {open_at[0]}")
            elif family in found:
                problems.append(f"claims page: {page_name}: line {i + 1}: a second section for family {family}")
            open_at = (family, i)
        elif open_at is None or open_at[0] != family:
            problems.append(f"claims page: {page_name}: line {i + 1}: the end of section {family} without its begin")
        else:
            found[family] = (open_at[1], i)
            order.append(family)
            open_at = None
    if open_at is not None:
        problems.append(f"claims page: {page_name}: section {open_at[0]} has no end marker")
    return found, order, problems


def check(claims, sims, page_text, page_name):
    lines = page_text.splitlines()
    found, page_order, problems = sections(lines, page_name)
    families = []  # the program's, in its order
    for c in claims:
        if c["family"] not in families:
            families.append(c["family"])
    by_id = {c["id"]: c for c in claims}
    for c in claims:
        if c["simulator"] not in sims:
            problems.append(f"claims page: {c['id']}: simulator {c['simulator']} is not in `attnrank list --tsv`")
    for family in families:
        if family not in found:
            problems.append(f"claims page: {page_name}: family {family} has no section (no claims table between "
                            f"<!-- claims-table:{family}:begin --> and <!-- claims-table:{family}:end -->)")
    for family in found:
        if family not in families:
            problems.append(f"claims page: {page_name}: a section for family {family}, which attnrank does not have")
    shown = [f for f in page_order if f in families]
    if shown != [f for f in families if f in found]:
        problems.append(f"claims page: {page_name}: the sections are in the order {shown}, attnrank lists the "
                        f"families as {families}")

    seen = {}
    for family, (begin, end) in found.items():
        inside = page_tables(lines[begin + 1:end])
        if len(inside) != 1:
            problems.append(f"claims page: {page_name}: section {family}: {len(inside)} tables between its "
                            f"markers, expected 1")
            continue
        _, header, rows = inside[0]
        header = [h.lower() for h in header]
        if tuple(header[:len(MIRRORED)]) != MIRRORED:
            problems.append(f"claims page: {page_name}: section {family}: the claims table's first columns are "
                            f"{header[:len(MIRRORED)]}, expected {list(MIRRORED)}")
            continue
        for number, cells in rows:
            cells = cells + [""] * (len(MIRRORED) - len(cells))
            cid, line = cells[0], begin + 1 + number
            if cid in seen:
                problems.append(f"claims page: {cid}: a second row (lines {seen[cid]} and {line})")
                continue
            seen[cid] = line
            claim = by_id.get(cid)
            if claim is None:
                problems.append(f"claims page: {cid}: in the claims table of {family} (line {line}) but not a "
                                f"claim of attnrank")
                continue
            if claim["family"] != family:
                problems.append(f"claims page: {cid}: in the section of {family} (line {line}), a claim of "
                                f"family {claim['family']}")
            for k, field in enumerate(MIRRORED[1:], 1):
                if cells[k] != claim[field]:
                    problems.append(f"claims page: {cid}: {field} is '{cells[k]}' on the page, "
                                    f"'{claim[field]}' in attnrank")
    for c in claims:
        if c["id"] not in seen and c["family"] in found:
            problems.append(f"claims page: {c['id']}: missing from the claims table of {c['family']} "
                            f"({c['simulator']}, {c['rule']}, {c['judged']})")

    # Any other table of the page that names a claim in its first column names a real one.
    for first, _, other_rows in page_tables(lines):
        if any(begin < first <= end for begin, end in found.values()):
            continue
        for number, cells in other_rows:
            cid = cells[0] if cells else ""
            if CLAIM_ID.match(cid) and cid not in by_id:
                problems.append(f"claims page: {cid}: named in the table at line {first} (line {number}) "
                                f"but not a claim of attnrank")
    return problems, len(families)


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    binary, page_name = argv[1], argv[2]
    try:
        sims = simulators_from_tsv(run(binary, "list", "--tsv"))
        listing = run(binary, "list")
        claims, problems = claims_from_list(listing)
        with open(page_name, encoding="utf-8") as f:
            page = f.read()
    except (RuntimeError, ValueError, OSError) as e:
        print(f"claims page: {e}")
        return 1
    if not claims:
        problems.append("claims page: `attnrank list` printed no claim")
    for s in sims:
        if not re.search(rf"^{re.escape(s)}: ", listing, re.M):
            problems.append(f"claims page: simulator {s} of `list --tsv` is not in `attnrank list`")
    more, families = check(claims, sims, page, page_name)
    problems += more
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"claims page: {len(claims)} claims of {families} families in step")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

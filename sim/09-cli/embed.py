#!/usr/bin/env python3
"""Write a C file defining `const char NAME[]` with the bytes of a text file."""
import sys

src, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
data = open(src, encoding="utf-8").read()
lines = [f"/* generated from {src.split('/')[-1]} by sim/embed.py; do not edit */",
         f"const char {name}[] ="]
for line in data.splitlines(keepends=True):
    escaped = line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    lines.append(f'    "{escaped}"')
lines.append(";")
open(out, "w", encoding="utf-8").write("\n".join(lines) + "\n")

#!/usr/bin/env python3
"""Lists functions longer than N lines (default 100) in the C++ sources, longest first.

A function is a definition that starts at column 0 or at one indentation level inside an
unnamed or class scope ("    " prefix) and ends at the matching closing brace at the same
indentation: the layout clang-format (.clang-format) gives every file here. Lambdas count
towards their enclosing function. usage: scripts/function_lengths.py [N] [dirs...]
"""
import os
import re
import sys

limit = int(sys.argv[1]) if len(sys.argv) > 1 else 100
dirs = sys.argv[2:] or ["instances", "evaluators", "moves", "placement", "optimizer", "cli"]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
start = re.compile(r"^( {0,4})(?!namespace|class|struct|enum|union|if\b|for\b|while\b|switch\b|return\b|else\b|do\b|case\b)[A-Za-z_~][\w:<>,\s\*&~]*\(")
found = []
for d in dirs:
    for dirpath, _, files in os.walk(os.path.join(root, d)):
        for f in sorted(files):
            if not f.endswith((".cpp", ".h")):
                continue
            path = os.path.join(dirpath, f)
            lines = open(path, encoding="utf-8").read().split("\n")
            i = 0
            while i < len(lines):
                m = start.match(lines[i])
                # The signature may span a few lines; it ends with "{" (a definition), or ";" (a declaration).
                k = i
                while m and k < min(i + 4, len(lines)) and not lines[k].rstrip().endswith(("{", ";")):
                    k += 1
                if not m or k >= len(lines) or not lines[k].rstrip().endswith("{") or "=" in lines[i].split("(")[0]:
                    i += 1
                    continue
                indent = m.group(1)
                j = k + 1
                while j < len(lines) and lines[j] != indent + "}" and not lines[j].startswith(indent + "};"):
                    j += 1
                n = j - i + 1
                name = re.sub(r"\s*\(.*", "", lines[i].strip()).split()[-1] if "(" in lines[i] else lines[i].strip()
                if n > limit:
                    found.append((n, os.path.relpath(path, root), i + 1, name))
                i = j + 1
for n, path, line, name in sorted(found, reverse=True):
    print(f"{n:5d}  {path}:{line}  {name}")
print(f"{len(found)} function(s) over {limit} lines")

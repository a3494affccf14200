#!/usr/bin/env python3
"""Include depth, reach and back arrows between folders, from the `#include "..."` lines.

Follows every quoted include between the tracked C++ files (git ls-files *.h *.cpp; a name is
looked up next to the including file, then from the repository root, as the compiler's -I does).
Prints: the deepest chain (the number of include arrows on the longest path and the path), the
widest reach (the number of project files a file pulls in, itself excluded), and every pair of
folders whose files include each other both ways, with the arrows of each direction.
usage: scripts/include_depth.py [--rev REV] [folder...]   (folders: restrict the both-way report;
default: every folder). With --rev the files are read from that commit, not the work tree.
"""
import functools
import os
import re
import subprocess
import sys

args = sys.argv[1:]
rev = None
if args[:1] == ["--rev"]:
    rev, args = args[1], args[2:]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def git(*cmd):
    return subprocess.run(["git", "-C", root, *cmd], check=True, capture_output=True, text=True).stdout


if rev:
    files = [f for f in git("ls-tree", "-r", "--name-only", rev).split("\n") if f.endswith((".h", ".cpp"))]
    read = lambda f: git("show", f"{rev}:{f}")
else:
    files = [f for f in git("ls-files", "*.h", "*.cpp").split("\n") if f]
    read = lambda f: open(os.path.join(root, f), encoding="utf-8").read()
known = set(files)
include = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
edges = {}
for f in files:
    out = []
    for name in include.findall(read(f)):
        beside = os.path.normpath(os.path.join(os.path.dirname(f), name))
        if beside in known:
            out.append(beside)
        elif name in known:
            out.append(name)
    edges[f] = sorted(set(out))


@functools.lru_cache(maxsize=None)
def deepest(f):
    """The longest include path starting at f (a list of files, f first); include guards cut cycles."""
    best = [f]
    for g in edges[f]:
        if g == f:
            continue
        p = deepest(g)
        if f not in p and len(p) + 1 > len(best):
            best = [f] + p
    return best


def reach(f):
    seen, todo = set(), [f]
    while todo:
        for g in edges[todo.pop()]:
            if g not in seen and g != f:
                seen.add(g)
                todo.append(g)
    return seen


sys.setrecursionlimit(10000)
chain = max((deepest(f) for f in files), key=len)
print(f"deepest chain: {len(chain) - 1} includes")
print("  " + " -> ".join(chain))
wide = max(files, key=lambda f: (len(reach(f)), f))
print(f"widest reach: {len(reach(wide))} project files ({wide})")
folder = os.path.dirname
arrows = {}
for f, out in edges.items():
    for g in out:
        if folder(f) != folder(g):
            arrows.setdefault((folder(f), folder(g)), []).append(f"{f} -> {g}")
pairs = sorted((a, b) for (a, b) in arrows if a < b and (b, a) in arrows and (not args or (a in args and b in args)))
print(f"folder pairs including each other both ways: {len(pairs)}")
for a, b in pairs:
    print(f"  {a} <-> {b}")
    for line in arrows[(a, b)] + arrows[(b, a)]:
        print(f"    {line}")

#!/usr/bin/env python3
"""The tree's layering, checked (docs/architecture.md).

src/ has one folder per layer, lowest first:
    lib  syms  model  kernel  view  cmd  cli  (main.c)
and each command in cmd/<name>/ is a module of the cmd layer.  A file may
include files of its own module and of lower layers only, by path from src/
("model/measure.h").  Checks:
  - every #include "x/y.h" of a source names a file that exists;
  - no include points to a higher layer;
  - the include graph between modules has no cycle (modules of one layer,
    the commands, may use each other, but not in a loop);
  - no source file is over MAX_LINES lines: a file that grows past it has
    more than one job.
Prints one line per finding and ends with "N passed, N failed".
"""
import collections
import glob
import os
import re
import sys

MAX_LINES = 900
LAYERS = ["lib", "syms", "model", "kernel", "view", "cmd", "cli", "main"]


def module(path):
    parts = os.path.relpath(path, "src").split(os.sep)
    if len(parts) == 1:
        return "main"
    if parts[0] == "cmd" and len(parts) > 2:
        return "cmd/" + parts[1]
    return parts[0]


def layer(mod):
    return LAYERS.index(mod.split("/")[0])


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    passed = failed = 0
    edges = collections.defaultdict(set)
    files = sorted(glob.glob("src/**/*.[ch]", recursive=True))
    for f in files:
        mod = module(f)
        if mod.split("/")[0] not in LAYERS:
            print(f"FAIL {f}: not in a layer folder ({', '.join(LAYERS[:-1])})")
            failed += 1
            continue
        ok = True
        lines = sum(1 for _ in open(f))
        if lines > MAX_LINES:
            print(f"FAIL {f}: {lines} lines, over {MAX_LINES}")
            ok = False
        for inc in re.findall(r'^#include "([^"]+)"', open(f).read(), re.M):
            if "/" not in inc:
                continue  # generated in the build folder: skeletons, tables
            target = os.path.join("src", inc)
            if not os.path.exists(target):
                print(f"FAIL {f}: includes {inc}, which is not in src/")
                ok = False
                continue
            tmod = module(target)
            if layer(tmod) > layer(mod):
                print(f"FAIL {f}: includes {inc}, a higher layer ({tmod} above {mod})")
                ok = False
            elif tmod != mod:
                edges[mod].add(tmod)
        passed, failed = passed + ok, failed + (not ok)
    # a cycle between modules: depth-first search for a back edge
    state, stack, cycle = {}, [], None

    def visit(m):
        nonlocal cycle
        state[m] = 1
        stack.append(m)
        for t in sorted(edges[m]):
            if cycle:
                return
            if state.get(t) == 1:
                cycle = stack[stack.index(t):] + [t]
                return
            if not state.get(t):
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if not state.get(m) and not cycle:
            visit(m)
    if cycle:
        print("FAIL include cycle between modules: " + " -> ".join(cycle))
        failed += 1
    else:
        print(f"PASS no include cycle between {len(edges)} modules")
        passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

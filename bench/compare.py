#!/usr/bin/env python3
"""Compare two bench.json files, or make README's overhead table from one.

  bench/compare.py OLD.json NEW.json      every ratio and added cost, side by side
  bench/compare.py --table BENCH.json     the overhead table (Markdown)
  bench/compare.py --readme BENCH.json README.md [--check]
                                          write the table into README.md between
                                          its markers (--check: exit 1 if it differs)
"""
import json, sys
from bench import VERDICT

BEGIN = "<!-- overhead table: bench/compare.py --readme build/bench.json README.md -->"
END = "<!-- end of the overhead table -->"
# README's rows: the paths users run most (targets suite), then the peers
# (syscalls suite), each against kdist pair of its own suite
ROWS = [("targets", "kdist pair", "kdist pair", None),
        ("targets", "kdist syscalls", "`kdist syscalls`", "kdist syscalls / kdist pair"),
        ("targets", "kdist pair -o json", "`kdist pair -o json`",
         "kdist pair -o json / kdist pair"),
        ("targets", "kdist --slower-than", "`kdist pair --slower-than 1s` (no pair slower)",
         "kdist --slower-than / kdist pair"),
        ("targets", "kdist pair -o json -v",
         "`kdist pair -o json -v` (BPF statistics on throughout)",
         "kdist pair -o json -v / kdist pair"),
        ("syscalls", "syscount -L", "libbpf-tools `syscount -L`", None),
        ("syscalls", "bpftrace hist", "bpftrace `hist()`", None)]


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"failed to read {path}: {e}")


def flat(doc):
    """name -> number: every ratio and every added cost of a bench.json."""
    out = {f"ratio {k}": v["value"] for k, v in doc.get("ratios", {}).items()}
    for suite, unit in (("targets", "ns per call"), ("syscalls", "ns per call"),
                        ("offcpu", "ns per switch")):
        for k, v in (doc.get(suite) or {}).items():
            if k != "none":
                out[f"added {unit} ({suite}): {k}"] = v["added_ns"]
    for k, v in (doc.get("profile") or {}).items():
        out[f"CPU share: {k}"] = v["cpu_share"]
    if doc.get("wall_s"):
        out["bench wall time s"] = doc["wall_s"]
    return out


def compare(a, b):
    fa, fb = flat(a), flat(b)
    print(f"{'':60s} {'old':>10s} {'new':>10s} {'new/old':>8s}")
    for k in list(fa) + [k for k in fb if k not in fa]:
        x, y = fa.get(k), fb.get(k)
        rel = f"{y / x:8.2f}" if x and y is not None else f"{'':8s}"
        print(f"{k:60s} {'' if x is None else f'{x:10.2f}':>10s} "
              f"{'' if y is None else f'{y:10.2f}':>10s} {rel}")
    for k, v in b.get("ratios", {}).items():
        if v.get("target") is not None:
            print(f"target {k} <= {v['target']}: {VERDICT[v['met']]} "
                  f"({v['value']:.2f})")


def table(doc):
    ratios = doc.get("ratios", {})
    m = doc.get("machine", {})
    peers = f"; the peers: of {doc.get('rounds')}" if doc.get("syscalls") else ""
    how = ("; each run's added cost against the same process before and after it"
           if "targets" in doc.get("bracketed", []) else "")
    lines = [f"`make bench`, {doc.get('calls', 0):,} getppid calls traced as "
             "`raw_syscalls:sys_enter` → `sys_exit` of the loop's pid, medians of "
             f"{doc.get('target_rounds')} interleaved rounds{how}{peers} (kernel "
             f"{m.get('kernel')}, {m.get('cpus')} CPUs, load average "
             f"{m.get('loadavg', [0])[0]:.1f}):", "",
             "| what | added ns per call | × kdist pair | target |", "|---|---|---|---|"]
    for suite, key, label, rkey in ROWS:
        sc = doc.get(suite) or {}
        if key not in sc:
            continue
        pair = sc.get("kdist pair", {}).get("added_ns")
        r = ratios.get(rkey)
        # the median of the rounds' ratios where the bench took one
        x = r["value"] if r else sc[key]["added_ns"] / pair if pair else None
        tgt = f"≤ {r['target']} ({VERDICT[r['met']].lower()})" \
            if r and r.get("target") is not None else ""
        lines.append(f"| {label} | {sc[key]['added_ns']:+.0f} | "
                     f"{'' if x is None else f'{x:.2f}'} | {tgt} |")
    for suite, u in (doc.get("unsteady") or {}).items():
        lines += ["", f"(The untraced loop of the {suite} part ranged {u['none_min']:.0f}-"
                  f"{u['none_max']:.0f} ns per call over the rounds: the machine was too "
                  "loaded for these figures.)"]
    oc, r = doc.get("offcpu") or {}, ratios.get("kdist offcpu / offcputime")
    if "kdist offcpu" in oc and "offcputime" in oc:
        lines += ["", f"`kdist offcpu` adds {oc['kdist offcpu']['added_ns']:+.0f} ns per "
                  f"context switch, libbpf-tools `offcputime` "
                  f"{oc['offcputime']['added_ns']:+.0f} ns"
                  + (f" ({r['value']:.2f} ×)." if r else ".")]
    return "\n".join(lines) + "\n"


def readme(doc, path, check):
    try:
        text = open(path).read()
    except OSError as e:
        sys.exit(f"failed to read {path}: {e}")
    try:
        a = text.index(BEGIN) + len(BEGIN)
        b = text.index(END, a)
    except ValueError:
        sys.exit(f"failed to find the overhead table's markers in {path}")
    new = text[:a] + "\n" + table(doc) + text[b:]
    if check:
        if new != text:
            sys.exit(f"{path}'s overhead table differs from what the bench JSON gives")
        return
    with open(path, "w") as f:
        f.write(new)


def main(argv):
    if len(argv) == 3 and argv[1] == "--table":
        sys.stdout.write(table(load(argv[2])))
    elif len(argv) in (4, 5) and argv[1] == "--readme" and argv[4:] in ([], ["--check"]):
        readme(load(argv[2]), argv[3], argv[4:] == ["--check"])
    elif len(argv) == 3 and not argv[1].startswith("-"):
        compare(load(argv[1]), load(argv[2]))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)

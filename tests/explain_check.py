#!/usr/bin/env python3
# explain_check.py JSONL TIMES WHAT...: checks of kdist --explain output
# (--slower-than lines and the measurement, JSON Lines) against the
# references splitwork (tests/workloads/splitwork.c) took inside each
# interval.  Prints what it measured; exits 1 with the reason on a failure.
#   sum            every line's and every row's parts add up to its latency
#   cpu            on-CPU + irq within max(100 us, 2%) of the thread's CPU time
#   cpu=R+R...     ... of the sum of the references R (--explain end: the
#                  CPU time of each thread the interval went through)
#   runnable       runnable within max(100 us, 2%) of the schedstat run_delay
#                  (both: in all intervals but at most two, each one named;
#                  a VM's vCPU can be descheduled or its kernel leave a
#                  switch unreported, and the thread's CPU clock and the
#                  scheduler then tell a different story from wall time)
#   min_PART=NS    PART (runnable, blocked_s...) of every interval at least NS
#   count=N        N intervals
#   running=R+R... on-CPU + irq + runnable of every interval at least the
#                  sum of the wall-clock references R, less 100 us each
#   followed=T     --explain end: every interval followed to the finisher
#                  (its tid reference tid_finisher), woken by thread T
#                  (tid_T), the handoff after T's share and before the
#                  finisher's spin (fin_wall); the group says all followed
import json
import sys

lines, times, whats = sys.argv[1], sys.argv[2], sys.argv[3:]
docs = [json.loads(l) for l in open(lines) if l.strip()]
ev = [d for d in docs if d.get("event") == "slow"]
m = [d for d in docs if "groups" in d][-1]
ref = {}
for l in open(times):
    k, v = l.split()
    ref.setdefault(k, []).append(int(v))
PARTS = ("oncpu", "irq", "runnable", "blocked_s", "blocked_d", "blocked_other", "unattributed")


def die(msg):
    print(msg)
    sys.exit(1)


def tol(r):
    return max(100000, 0.02 * r)


out = []
for w in whats:
    if w == "sum":
        for e in ev:
            s = sum(e[p + "_ns"] or 0 for p in PARTS)
            if s != e["latency_ns"]:
                die(f"line parts {s} != latency {e['latency_ns']}")
        g = m["groups"][0]
        for t in [g["explain"]["all"]] + g["explain"]["rows"]:
            s = sum(v or 0 for v in t["parts"].values())
            if s != t["sum"]:
                die(f"row parts {s} != sum {t['sum']}")
        if g["explain"]["all"]["sum"] != g["sum"] or g["explain"]["all"]["count"] != g["count"]:
            die(f"explained {g['explain']['all']['count']}/{g['explain']['all']['sum']} ns, "
                f"measured {g['count']}/{g['sum']} ns")
        out.append(f"parts add up exactly ({len(ev)} lines, {g['count']} intervals, {g['sum']} ns)")
    elif w.startswith("count="):
        n = int(w[6:])
        if len(ev) != n or len(ref["cpu"]) != n:
            die(f"{len(ev)} lines, {len(ref['cpu'])} references, expected {n}")
    elif w.split("=")[0] in ("cpu", "runnable"):
        keys = w[4:].split("+") if w.startswith("cpu=") else ["cpu" if w == "cpu" else "run_delay"]
        refs = [sum(v) for v in zip(*(ref[k] for k in keys))]
        w = w.split("=")[0]
        worst, off = 0, []
        # not the first interval: the first probe hit of a process maps its
        # out-of-line page for the probed instruction, after START and
        # before the workload's first reference (a few hundred us here)
        for i, (e, r) in list(enumerate(zip(ev, refs)))[1:]:
            got = e["oncpu_ns"] + (e["irq_ns"] or 0) if w == "cpu" else e["runnable_ns"]
            if abs(got - r) > tol(r):
                off.append(f"interval {i}: {w} {got} ns, reference {r} ns")
            else:
                worst = max(worst, abs(got - r))
        if len(off) > 2:
            die(f"{len(off)} intervals off by more than max(100 us, 2%): " + "; ".join(off))
        mean = sum(refs[1:]) / (len(refs) - 1)
        out.append(f"{w} within {worst / 1e3:.1f} us of the reference (mean {mean / 1e3:.0f} us)"
                   + (f", except {'; '.join(off)}" if off else ""))
    elif w.startswith("running="):
        keys = w[8:].split("+")
        refs = [sum(v) for v in zip(*(ref[k] for k in keys))]
        for i, (e, r) in list(enumerate(zip(ev, refs)))[1:]:
            got = e["oncpu_ns"] + (e["irq_ns"] or 0) + e["runnable_ns"]
            if got < r - 100000 * len(keys):
                die(f"interval {i}: on-CPU, irq and runnable {got} ns, < {r} ns of spins")
        out.append(f"on-CPU, irq and runnable hold the spins' {sum(refs) / len(refs) / 1e3:.0f} us")
    elif w.startswith("followed="):
        waker, fin = ref["tid_" + w[9:]][0], ref["tid_finisher"][0]
        before = ref.get("relay_wall", [0] * len(ev))
        for i, e in enumerate(ev):
            got = (e.get("end_tid"), e.get("end_waker_tid"))
            if got != (fin, waker):
                die(f"interval {i}: ended on {got[0]} woken by {got[1]}, "
                    f"not on the finisher {fin} woken by {waker}: {e}")
            if not before[i] <= e["handoff_ns"] <= e["latency_ns"] - ref["fin_wall"][i]:
                die(f"interval {i}: handed over {e['handoff_ns']} ns after its START, "
                    f"not in [{before[i]}, {e['latency_ns']} - {ref['fin_wall'][i]}]")
        g = m["groups"][0]["explain"]["all"]
        if g["followed"] != g["count"]:
            die(f"{g['followed']} of {g['count']} intervals followed")
        out.append(f"all {g['count']} followed to the finisher {fin}, woken by {w[9:]} {waker}")
    elif w.startswith("min_"):
        part, lo = w[4:].split("=")
        low = min(e[part + "_ns"] for e in ev)
        if low < int(lo):
            die(f"{part} {low} ns < {lo} ns")
        out.append(f"{part} >= {low / 1e3:.0f} us")
    else:
        die(f"unknown check {w}")
print("; ".join(out))

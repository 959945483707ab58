#!/usr/bin/env python3
"""kdist's benchmark against its peers, in one run.

Three workloads, each traced by every tool that measures the same thing:

  syscalls  a getppid loop; raw_syscalls sys_enter -> sys_exit, filtered to
            the loop's pid: no tracing, the floor (empty programs, as
            tracepoints and raw tracepoints; raw tracepoint programs that
            only read the clock), kdist pair and its variants,
            libbpf-tools syscount -L, bpftrace hist(); added ns per call.
  targets   the same loop with kdist pair and the paths users run most
            (kdist syscalls, -o json, --slower-than): the targets' ratios,
            from more rounds of fewer configurations, each round's runs
            close together in time.
  offcpu    two threads waking each other through pipes: kdist offcpu
            against libbpf-tools offcputime; added ns per context switch.
  profile   busy CPU work: kdist profile against perf record -g at the same
            frequency; the tracer's share of one CPU.
  recipes   softirq, irq, wq and bio, each beside the pair it expands to
            without its --by, over loopback UDP, direct disk writes and vm
            stat refreshes: kdist's own ns per program run (BPF statistics).

The cost is the workload's own CPU time (the thread's CPU clock, or the
rusage of the workload), not wall time: on a shared, loaded machine the
wall time holds other tasks' time, the CPU time only what ran on behalf of
the workload, including the BPF programs that ran in its context.
Configurations are interleaved over several rounds and medians taken.
Every tool's start-to-attached time and peak RSS are measured in the same
runs.  The figures are printed as a table and written as JSON
(BENCH_JSON, default build/bench.json), every ratio with its rounds and
target; bench/compare.py compares two such files.  Every wait is bounded
(BENCH_*_TIMEOUT below) and names what it waited for when it gives up."""
import json, math, os, random, re, select, signal, statistics, subprocess, sys, time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.join(TOP, "build")
# BENCH_KDIST: another build of kdist, e.g. to measure a change against main
KDIST = os.environ.get("BENCH_KDIST", os.path.join(B, "kdist"))
WL = os.path.join(B, "tests")
FLOOR = os.path.join(B, "floor")
N = int(os.environ.get("BENCH_CALLS", "2000000"))
SWITCHES = int(os.environ.get("BENCH_PINGPONG", "100000"))
PROFILE_ROUNDS = int(os.environ.get("BENCH_HOTSPOTS", "500"))	# 4 ms of CPU each
HZ = os.environ.get("BENCH_HZ", "999")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "7"))
# the targets' part: a run's added cost moves by 10-20% from one run to the
# next on a shared VM, so a ratio of two needs many rounds to tell 1.10
# from 1.15 (90% interval of the median of 15: about +-0.07, of 31: +-0.06)
TARGET_ROUNDS = int(os.environ.get("BENCH_TARGET_ROUNDS", "51"))
OUT = os.environ.get("BENCH_JSON", os.path.join(B, "bench.json"))
# which parts run: the four suites, 100,000 groups live, the VM part
# (kernel functions) and the uprobe attach times; e.g. BENCH_PARTS=syscalls
# for the pair figures alone
PARTS = os.environ.get("BENCH_PARTS",
                       "targets syscalls offcpu profile recipes groups vm uprobe").split()
# every wait is bounded: a tracer's attach, a workload's run, a tracer's
# exit after SIGINT, each script part (seconds)
ATTACH_TIMEOUT = float(os.environ.get("BENCH_ATTACH_TIMEOUT", "60"))
RUN_TIMEOUT = float(os.environ.get("BENCH_RUN_TIMEOUT", "300"))
EXIT_TIMEOUT = float(os.environ.get("BENCH_EXIT_TIMEOUT", "60"))
PART_TIMEOUT = float(os.environ.get("BENCH_PART_TIMEOUT", "1800"))
# the targets of the hot paths users run most (ratios of added cost)
TARGETS = {"kdist syscalls / kdist pair": 1.15, "kdist pair -o json / kdist pair": 1.05,
           "kdist --slower-than / kdist pair": 1.2}
# a target's verdict by the 90% interval of its median (ratio()): wholly at
# or under it, wholly over it, or holding it
VERDICT = {True: "met", False: "NOT met", None: "undecided"}

BPFTRACE = ("tracepoint:raw_syscalls:sys_enter /pid == {pid}/ {{ @s[tid] = nsecs; }} "
            "tracepoint:raw_syscalls:sys_exit /pid == {pid} && @s[tid]/ "
            "{{ @h = hist(nsecs - @s[tid]); delete(@s[tid]); }}")
# libbpf-tools buffer stdout when it is a pipe: line-buffer their "Tracing"
LINE = ["stdbuf", "-oL"]
# the workload on the last CPU, every tracer's user space on the others:
# the programs run in the workload's context either way, and a tracer's
# own threads (reading its maps, kdist's cost sampler) then neither
# take the workload's CPU nor move it (BENCH_PIN=0: no pinning)
CPUS = sorted(os.sched_getaffinity(0))
PIN = os.environ.get("BENCH_PIN", "1") != "0" and len(CPUS) > 1
WL_CPUS, TRACER_CPUS = ({CPUS[-1]}, set(CPUS[:-1])) if PIN else (set(CPUS), set(CPUS))

# name: (command for the workload's pid, how to know it is attached, the
# executable that must exist).  Attached: a word it prints once attached;
# LINKED, a BPF link among its open files (for tools that print nothing
# until they exit); or a fixed wait in seconds.
LINKED = "a BPF link among its open files"
SYSCALLS = {
    "none": None,
    "floor (tracepoint)": (lambda p: [FLOOR, "tp"], b"attached", FLOOR),
    "floor (raw tracepoint)": (lambda p: [FLOOR, "raw"], b"attached", FLOOR),
    # each program reads the clock once: the least a tool timing the pair pays
    "floor (raw, clock)": (lambda p: [FLOOR, "clock"], b"attached", FLOOR),
    # steps towards kdist pair (docs/pair.md): + the current task and -p on it,
    # + the START time in task storage
    "floor (clock, thread)": (lambda p: [FLOOR, "thread", str(p)], b"attached", FLOOR),
    "floor (clock, storage)": (lambda p: [FLOOR, "storage", str(p)], b"attached", FLOOR),
    # the same with BPF run-time statistics on, as kdist keeps them for its cost line
    "floor (raw, statistics)": (lambda p: [FLOOR, "raw", "stats"], b"attached", FLOOR),
    # as people run it: text, no cost shown, so no run-time statistics
    "kdist pair": (lambda p: [KDIST, "pair", "raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
                              "-p", str(p)], b"Tracing", KDIST),
    # several STARTs in flight per thread (a queue in task storage) against
    # the one START of a plain pair (docs/explain.md)
    "kdist pair --match fifo": (lambda p: [KDIST, "pair", "raw_syscalls:sys_enter",
                                           "raw_syscalls:sys_exit", "-p", str(p),
                                           "--match", "fifo"], b"Tracing", KDIST),
    # each pair armed and split (no switch inside a getppid): START and END's share
    "kdist pair --explain": (lambda p: [KDIST, "pair", "raw_syscalls:sys_enter",
                                        "raw_syscalls:sys_exit", "-p", str(p), "--explain"],
                             b"Tracing", KDIST),
    "syscount -L": (lambda p: LINE + ["syscount", "-L", "-p", str(p)], b"Tracing", "syscount"),
    "bpftrace hist": (lambda p: ["bpftrace", "-e", BPFTRACE.format(pid=p)], b"Attaching",
                      "bpftrace"),
}
# the parts whose runs measure their own added cost (bracketed_run)
BRACKETED = {"targets"}
TARGET_CFGS = {
    "none": None,
    "kdist pair": SYSCALLS["kdist pair"],
    # JSON carries kdist's cost: timed by its programs in windows (docs/pair.md)
    "kdist pair -o json": (lambda p: [KDIST, "pair", "raw_syscalls:sys_enter",
                                      "raw_syscalls:sys_exit", "-p", str(p), "-o", "json"],
                           b"Tracing", KDIST),
    # -v keeps them on the whole run: the exact figure the sample estimates
    "kdist pair -o json -v": (lambda p: [KDIST, "pair", "raw_syscalls:sys_enter",
                                         "raw_syscalls:sys_exit", "-p", str(p), "-o", "json",
                                         "-v"], b"Tracing", KDIST),
    # every pair below the threshold: what --slower-than adds when nothing is slow
    "kdist --slower-than": (lambda p: [KDIST, "pair", "raw_syscalls:sys_enter",
                                       "raw_syscalls:sys_exit", "-p", str(p),
                                       "--slower-than", "1s"], b"Tracing", KDIST),
    "kdist syscalls": (lambda p: [KDIST, "syscalls", "-p", str(p)], b"Tracing",
                       KDIST),
}
OFFCPU = {
    "none": None,
    "kdist offcpu": (lambda p: [KDIST, "offcpu", "-p", str(p)], b"Tracing", KDIST),
    # --explain's scheduler programs per context switch (docs/explain.md): the
    # pair alone, then with --explain on the workload (its reads block: every
    # switch is of an armed thread), then on another process (pid 1): every
    # switch is of threads that are not armed
    "kdist pair (syscalls)": (lambda p: [KDIST, "pair", "raw_syscalls:sys_enter",
                                         "raw_syscalls:sys_exit", "-p", str(p)], b"Tracing", KDIST),
    "kdist pair --explain": (lambda p: [KDIST, "pair", "raw_syscalls:sys_enter",
                                        "raw_syscalls:sys_exit", "-p", str(p), "--explain"],
                             b"Tracing", KDIST),
    "kdist --explain (unarmed)": (lambda p: [KDIST, "pair", "raw_syscalls:sys_enter",
                                            "raw_syscalls:sys_exit", "-p", "1", "--explain"],
                                 b"Tracing", KDIST),
    # the same pair on pid 1 without --explain: what the unarmed switches
    # cost is the difference
    "kdist pair (pid 1)": (lambda p: [KDIST, "pair", "raw_syscalls:sys_enter",
                                     "raw_syscalls:sys_exit", "-p", "1"], b"Tracing", KDIST),
    # Debian's offcputime (libbpf-tools 0.26) prints nothing until it exits
    "offcputime": (lambda p: ["offcputime", "-p", str(p)], LINKED, "offcputime"),
}
PROFILE = {
    "none": None,
    "kdist profile": (lambda p: [KDIST, "profile", "-F", HZ, "-p", str(p), "-o", "json"],
                      b"Tracing", KDIST),
    # perf record says nothing once attached: give it a second
    "perf record": (lambda p: ["perf", "record", "-q", "-g", "-F", HZ, "-p", str(p),
                               "-o", "/tmp/kdist-bench-perf.data"], 1.0, "perf"),
}


def have(exe):
    return os.path.isabs(exe) and os.access(exe, os.X_OK) or \
        subprocess.call(["which", exe], stdout=subprocess.DEVNULL) == 0


# tracers running now: killed if the bench itself is stopped (Ctrl-C, a
# signal), so that no probe outlives it
LIVE = set()


def stop_live(*_):
    for p in list(LIVE):
        try:
            os.killpg(p.pid, signal.SIGKILL)	# a workload loop and its children
        except OSError:
            pass
        p.kill()
        p.wait()
    sys.exit(130)


class GaveUp(Exception):
    """A bounded wait ran out or a tool failed; the message names what was
    waited for."""


def bpf_links(pid):
    """The BPF links among pid's open files."""
    n = 0
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                n += os.readlink(f"/proc/{pid}/fd/{fd}") == "anon_inode:bpf_link"
            except OSError:
                pass
    except OSError:
        pass
    return n


def wait_ready(proc, ready, name):
    """Wait, at most ATTACH_TIMEOUT s, until the tracer is attached: it
    printed the word ready, or (LINKED) holds a BPF link.  Its output is
    read all along, so that a full pipe never stops it."""
    buf, deadline, links = b"", time.monotonic() + ATTACH_TIMEOUT, 0
    while True:
        if ready == LINKED:
            n = bpf_links(proc.pid)
            # the links of one tool come in one burst: ready once their
            # number held for 100 ms
            if n and n == links:
                return buf
            links = n
        elif ready in buf:
            return buf
        left = deadline - time.monotonic()
        if left <= 0:
            raise GaveUp(f"{name}: no {ready!r} from {' '.join(proc.args)} after "
                         f"{ATTACH_TIMEOUT:.0f} s (BENCH_ATTACH_TIMEOUT)" if ready != LINKED else
                         f"{name}: no BPF link held by {' '.join(proc.args)} after "
                         f"{ATTACH_TIMEOUT:.0f} s (BENCH_ATTACH_TIMEOUT)")
        r, _, _ = select.select([proc.stdout], [], [], min(left, 0.1))
        if r:
            c = proc.stdout.read1(4096)
            if not c:
                proc.wait()
                raise GaveUp(f"{name}: exited ({proc.returncode}) before attaching: "
                             + buf.decode(errors="replace").strip()[-300:])
            buf += c


def rusage_of(pid, timeout, what):
    """Reap pid, waiting at most timeout s (then kill it): (CPU seconds,
    peak RSS kB, context switches)."""
    deadline = time.monotonic() + timeout
    while True:
        p, _, ru = os.wait4(pid, os.WNOHANG)
        if p:
            return ru.ru_utime + ru.ru_stime, ru.ru_maxrss, ru.ru_nvcsw + ru.ru_nivcsw
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.wait4(pid, 0)
            raise GaveUp(f"{what} did not end within {timeout:.0f} s: killed")
        time.sleep(0.02)


def read_all(f, timeout, what):
    """Everything f gives until EOF, waiting at most timeout s."""
    out, deadline = b"", time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise GaveUp(f"{what}: no end of output within {timeout:.0f} s")
        r, _, _ = select.select([f], [], [], left)
        if r:
            c = f.read1(65536)
            if not c:
                return out
            out += c


def kdist_cost(out):
    """kdist's cost over the run, from its JSON (last document)."""
    lines = [l for l in out.decode(errors="replace").splitlines() if l.startswith("{")]
    if not lines:
        return {}
    return json.loads(lines[-1]).get("cost", {})


def kdist_p50(out):
    """The p50 (ns) of kdist's one group, from its text or JSON; None
    without one."""
    text = out.decode(errors="replace")
    docs = [l for l in text.splitlines() if l.startswith("{")]
    if docs:
        g = json.loads(docs[-1]).get("groups") or [{}]
        return g[0].get("p50")
    m = re.search(r"^count \d+ .* p50 ([\d.]+)(ns|us|ms|s)\b", text, re.M)
    return float(m.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)] if m else None


def start_tracer(name, cfg, pid, r):
    """Start tracer cfg on pid and wait until it is attached (bounded)."""
    cmd, ready, _ = cfg
    t0 = time.monotonic()
    # bpftrace says "Attaching" on stdout, the others on stderr
    tracer = subprocess.Popen(cmd(pid), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              preexec_fn=lambda: os.sched_setaffinity(0, TRACER_CPUS))
    LIVE.add(tracer)
    try:
        if isinstance(ready, float):
            time.sleep(ready)
        else:
            wait_ready(tracer, ready, name)
            r["attach_ms"] = (time.monotonic() - t0) * 1000
    except GaveUp:
        stop_tracer(name, tracer, r)
        raise
    time.sleep(0.2)
    return tracer


def stop_tracer(name, tracer, r):
    """SIGINT, then wait (bounded) for its output and its exit: no probe
    outlives it."""
    tracer.send_signal(signal.SIGINT)
    what = f"{name}: {' '.join(tracer.args[:3])} after SIGINT"
    try:
        out = read_all(tracer.stdout, EXIT_TIMEOUT, what)
        r["tracer_cpu_s"], r["rss_kb"], _ = rusage_of(tracer.pid, EXIT_TIMEOUT, what)
        tracer.returncode = 0
    except GaveUp:
        tracer.kill()
        tracer.wait()
        raise
    finally:
        LIVE.discard(tracer)
    if tracer.args[0] == KDIST:
        r["cost"] = kdist_cost(out)
        r["run_ns"] = r["cost"].get("run_ns")
        r["p50"] = kdist_p50(out)


def one_run(name, cfg, workload):
    """Run the workload (it waits for a byte on stdin) with the tracer cfg
    attached to it.  Returns a dict of what was measured; raises GaveUp
    naming what it waited for when a bounded wait ran out."""
    rfd, wfd = os.pipe()
    # (getppid_loop prints its CPU ns per call too with KDIST_WL_CPU)
    wl = subprocess.Popen(["sh", "-c", 'read x; exec "$@"', "sh"] + workload, stdin=rfd,
                          stdout=subprocess.PIPE, env=dict(os.environ, KDIST_WL_CPU="1"),
                          preexec_fn=lambda: os.sched_setaffinity(0, WL_CPUS))
    os.close(rfd)
    r = {}
    tracer = None
    reaped = False
    try:
        if cfg:
            tracer = start_tracer(name, cfg, wl.pid, r)
        t0 = time.monotonic()
        os.write(wfd, b"\n")
        what = f"{name}: the workload {os.path.basename(workload[0])}"
        out = read_all(wl.stdout, RUN_TIMEOUT, what)
        r["cpu_s"], _, r["switches"] = rusage_of(wl.pid, EXIT_TIMEOUT, what)
        wl.returncode, reaped = 0, True
        r["wall_s"] = time.monotonic() - t0
        r["out"] = out.decode().split()
    finally:
        os.close(wfd)
        if not reaped:
            wl.kill()
            wl.wait()
        if tracer:
            stop_tracer(name, tracer, r)
    return r


def read_line(f, timeout, what):
    """One line of f, waiting at most timeout s."""
    out, deadline = b"", time.monotonic() + timeout
    while not out.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([f], [], [], left)[0]:
            raise GaveUp(f"{what}: no line within {timeout:.0f} s")
        c = os.read(f.fileno(), 1)
        if not c:
            raise GaveUp(f"{what}: ended before its line")
        out += c
    return out.decode()


def bracketed_run(name, cfg, workload):
    """The getppid loop in three phases (getppid_loop N bracket): before the
    tracer is attached, while it is, after it has exited.  The added cost
    is the middle phase's CPU ns per call less the mean of the other two,
    all in one process within seconds: the drift of the machine's speed
    between separate runs (10-20% of the added cost on a shared VM) stays
    out of it.  With no tracer ("none") it is the method's own noise."""
    wl = subprocess.Popen(workload + ["bracket"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          preexec_fn=lambda: os.sched_setaffinity(0, WL_CPUS))
    r, tracer, phases = {}, None, {}
    what = f"{name}: the workload {os.path.basename(workload[0])}"

    def phase():
        wl.stdin.write(b"\n")
        wl.stdin.flush()
        p, wall, cpu = read_line(wl.stdout, RUN_TIMEOUT, what).split()
        phases[p] = float(cpu)

    try:
        phase()
        if cfg:
            tracer = start_tracer(name, cfg, wl.pid, r)
        phase()
        if tracer:
            stop_tracer(name, tracer, r)
            tracer = None
        phase()
        wl.stdin.close()
        r["cpu_s"], _, r["switches"] = rusage_of(wl.pid, EXIT_TIMEOUT, what)
        wl.returncode = 0
    finally:
        if wl.returncode is None:
            wl.kill()
            wl.wait()
        if tracer:
            stop_tracer(name, tracer, r)
    r["phases"] = phases
    r["added"] = phases["during"] - (phases["before"] + phases["after"]) / 2
    return r


def med(runs, key):
    v = [r[key] for r in runs if r and r.get(key) is not None]
    return statistics.median(v) if v else None


def median_interval(xs, level=0.9):
    """A distribution-free interval for the median of xs: the k-th smallest
    and k-th largest, k the largest for which the median lies between them
    with probability >= level (each value falls either side of the median
    with probability 1/2: a binomial count).  None below 3 values or when
    no k reaches the level."""
    xs, n = sorted(xs), len(xs)
    best = None
    for k in range(1, n // 2 + 1):
        below = sum(math.comb(n, i) for i in range(k)) / 2 ** n
        if 1 - 2 * below >= level:
            best = (xs[k - 1], xs[n - k])
    return best


def ratio(doc, name, rounds, note="", target=None):
    """Record and print one ratio: the median of its per-round values (each
    round's configurations ran close together in time, so a change of the
    machine's load between rounds cancels out), with a 90% interval of that
    median.  A target is met when the whole interval is at or below it, not
    met when the whole interval is above it, and undecided when the interval
    holds it: the rounds cannot tell."""
    rounds = [x for x in rounds if x is not None and x == x]
    if not rounds:
        print(f"  {name:44s}    n/a   (no round with all its runs)")
        return None
    v = statistics.median(rounds)
    ci = median_interval(rounds)
    met = verdict = None
    if target is not None:
        met = None if ci is None else True if ci[1] <= target else \
            False if ci[0] > target else None
        verdict = VERDICT[met] + \
            (" (too few rounds for an interval)" if ci is None else "")
    print(f"  {name:44s} {v:6.2f}"
          + (f"   90% {ci[0]:.2f}-{ci[1]:.2f}" if ci else "")
          + (f"; target <= {target}: {verdict}" if target is not None else "")
          + f"   rounds {', '.join(f'{x:.2f}' for x in rounds)}"
          + (f"  ({note})" if note else ""))
    doc.setdefault("ratios", {})[name] = {"value": v, "interval90": ci, "rounds": rounds,
                                          "target": target, "met": met}
    return v


def loop_table(sc, doc, title):
    """The getppid loop's table (ns per call from the loop's thread CPU
    clock); returns a function giving a configuration's added cost over
    another's, round by round, and the added costs.  A bracketed part's
    runs each carry their own added cost (bracketed_run); the others' is
    taken against the untraced run of the same round."""
    bracketed = any(r and "added" in r for v in sc.values() for r in v)
    cpu = {n: [(r["phases"]["during"] if bracketed else float(r["out"][1])) if r else None
               for r in v] for n, v in sc.items()}
    if bracketed:
        add = {n: [r["added"] if r else None for r in v] for n, v in sc.items()}
    else:
        add = {n: [x - z if None not in (x, z) else None for x, z in zip(v, cpu["none"])]
               for n, v in cpu.items()}
    per_call = {n: statistics.median(x for x in v if x is not None) for n, v in cpu.items()
                if any(x is not None for x in v)}
    added = {n: statistics.median(x for x in add[n] if x is not None) for n in per_call}
    rounds_run = max(len(v) for v in cpu.values())
    print(f"\n{title}: getppid loop, {N} calls, raw_syscalls sys_enter -> sys_exit of its pid "
          f"(ns per call, medians of {rounds_run} rounds"
          + ("; added: against the same process before and after the tracer" if bracketed
             else "") + "):")
    # x floor: against the raw tracepoint floor, where the part has it
    fraw = added.get("floor (raw tracepoint)")
    print(f"  {'':24s} {'CPU':>8s} {'added':>8s} {'x floor' if fraw else '':>8s} "
          f"{'attach ms':>10s} {'RSS MB':>7s}")
    for n in per_call:
        a, rss = med(sc[n], "attach_ms"), med(sc[n], "rss_kb")
        xf = f"{added[n] / fraw if n != 'none' else 0:8.2f}" if fraw else f"{'':8s}"
        print(f"  {n:24s} {per_call[n]:8.1f} {added[n] if bracketed or n != 'none' else 0:8.1f} "
              f"{xf} {a if a is not None else 0:10.0f} {rss / 1024 if rss else 0:7.1f}")

    def rounds(a, b):
        """a's added cost over b's in each round where both ran"""
        if a not in add or b not in add:
            return []
        return [x / y if None not in (x, y) and y > 0 else None for x, y in zip(add[a], add[b])]

    if bracketed and "none" in add:
        # untraced in all three phases: what the method reads as added when
        # nothing is attached
        z = [x for x in add["none"] if x is not None]
        print(f"  (untraced, the method's own noise: {min(z):+.1f} to {max(z):+.1f} ns per call, "
              f"median {statistics.median(z):+.1f})")
    base = [x for x in cpu["none"] if x is not None]
    if not bracketed and len(base) > 1 and max(base) > 1.2 * min(base):
        # the untraced loop alone moved more than the tracing adds: the
        # ratios below are the machine's load, not the tools
        print(f"  WARNING: the untraced loop ranged {min(base):.0f}-{max(base):.0f} ns per call "
              f"over the rounds (load average {os.getloadavg()[0]:.1f}): the ratios below "
              "are not to be trusted; run again on a quieter machine")
        doc.setdefault("unsteady", {})[title] = {"none_min": min(base), "none_max": max(base)}
    doc[title] = {n: {"cpu_ns_per_call": per_call[n], "added_ns": added[n],
                      "attach_ms": med(sc[n], "attach_ms"),
                      "peak_rss_kb": med(sc[n], "rss_kb")} for n in per_call}
    return rounds, added


def syscalls_report(sc, doc):
    """The syscalls suite: kdist pair against the floors and the peers."""
    rounds, added = loop_table(sc, doc, "syscalls")
    print("ratios of added cost (median of the rounds' ratios):")
    for floor in ("floor (raw tracepoint)", "floor (raw, clock)", "floor (clock, thread)",
                  "floor (raw, statistics)", "floor (tracepoint)"):
        ratio(doc, f"kdist pair / {floor}", rounds("kdist pair", floor))
    for peer in ("syscount -L", "bpftrace hist"):
        ratio(doc, f"kdist pair / {peer}", rounds("kdist pair", peer))
    fst, fraw = added.get("floor (raw, statistics)"), added.get("floor (raw tracepoint)")
    if fst is not None and fraw is not None:
        print(f"  (the BPF run-time statistics alone add {fst - fraw:+.1f} ns per call "
              "to every BPF program of the machine)")


def targets_report(sc, doc):
    """The targets suite: the paths users run most against kdist pair."""
    rounds, _ = loop_table(sc, doc, "targets")
    print("ratios of added cost (median of the rounds' ratios):")
    ratio(doc, "kdist syscalls / kdist pair", rounds("kdist syscalls", "kdist pair"),
          target=TARGETS["kdist syscalls / kdist pair"])
    ratio(doc, "kdist pair -o json / kdist pair", rounds("kdist pair -o json", "kdist pair"),
          "cost timed in windows", TARGETS["kdist pair -o json / kdist pair"])
    ratio(doc, "kdist --slower-than / kdist pair", rounds("kdist --slower-than", "kdist pair"),
          "1s, no pair slower", TARGETS["kdist --slower-than / kdist pair"])
    ratio(doc, "kdist pair -o json -v / kdist pair", rounds("kdist pair -o json -v", "kdist pair"),
          "BPF statistics on the whole run")
    # the latencies JSON measures must be the text run's: getppid's p50
    p50 = {n: [r.get("p50") if r else None for r in sc.get(n, [])]
           for n in ("kdist pair", "kdist pair -o json", "kdist pair -o json -v")}
    for n in ("kdist pair -o json", "kdist pair -o json -v"):
        ratio(doc, f"p50 {n[11:]} / text", [j / t if j and t else None
                                             for j, t in zip(p50[n], p50["kdist pair"])],
              "getppid's latency as kdist measured it")
    cost_estimate(sc, doc)


def cost_estimate(sc, doc):
    """kdist's own cost as JSON reports it (its programs timing themselves
    in windows) against the kernel's statistics over the whole run (-v),
    per getppid call: how far the estimate lands from the real figure."""
    def per_call(n, key):
        v = [r["cost"][key] / N for r in sc.get(n, []) if r and r.get("cost", {}).get(key)]
        return statistics.median(v) if v else None
    est, real = per_call("kdist pair -o json", "run_ns"), per_call("kdist pair -o json -v", "run_ns")
    if est is None or real is None:
        print("  kdist's own cost: no estimate to compare (no cost in the JSON runs)")
        return
    share = med([r["cost"] if r else None for r in sc["kdist pair -o json"]], "sampled")
    print(f"  kdist's own cost, ns per call inside its programs: estimated {est:.1f} "
          f"(timed on {100 * share if share else 0:.0f}% of the time), whole run (-v) {real:.1f}: "
          f"the estimate is {100 * (est / real - 1):+.0f}%")
    doc["cost_estimate"] = {"estimated_ns_per_call": est, "whole_run_ns_per_call": real,
                            "sampled": share, "error": est / real - 1}


def offcpu_report(oc, doc):
    """The offcpu suite: the workload's CPU time per context switch."""
    rnd = {n: [r["cpu_s"] * 1e9 / max(r["switches"], 1) if r else None for r in v]
           for n, v in oc.items()}
    per_sw = {n: statistics.median(x for x in v if x is not None) for n, v in rnd.items()
              if any(x is not None for x in v)}
    sw = med(oc["none"], "switches")
    print(f"\npingpong, {SWITCHES} round trips (~{sw or 0:.0f} context switches; ns of the "
          "workload's CPU per switch):")
    for n in per_sw:
        a, rss = med(oc[n], "attach_ms"), med(oc[n], "rss_kb")
        print(f"  {n:24s} {per_sw[n]:8.1f} added {per_sw[n] - per_sw['none']:7.1f}"
              + (f"   attach {a:.0f} ms, peak RSS {rss / 1024:.1f} MB" if rss else ""))
    if "kdist --explain (unarmed)" in per_sw and "kdist pair (pid 1)" in per_sw:
        print(f"  --explain's programs on switches of threads never armed: "
              f"{per_sw['kdist --explain (unarmed)'] - per_sw['kdist pair (pid 1)']:+.1f} ns "
              "per switch (kdist --explain (unarmed) less kdist pair (pid 1))")
    if "offcputime" in rnd and "kdist offcpu" in rnd:
        ratio(doc, "kdist offcpu / offcputime",
              [(k - z) / (o - z) if None not in (k, o, z) and o > z else None
               for k, o, z in zip(rnd["kdist offcpu"], rnd["offcputime"], rnd["none"])],
              "added ns per context switch")
    doc["offcpu"] = {n: {"cpu_ns_per_switch": per_sw[n], "added_ns": per_sw[n] - per_sw["none"],
                         "attach_ms": med(oc[n], "attach_ms"),
                         "peak_rss_kb": med(oc[n], "rss_kb")} for n in per_sw}


def profile_report(pc, doc):
    """The profile suite: the tracer's CPU (its process, and kdist's BPF
    programs) over the workload's wall time."""
    print(f"\nhotspots, {PROFILE_ROUNDS * 4} ms of CPU work, sampled at {HZ} Hz "
          "(the tracer's share of one CPU):")
    doc["profile"] = {}
    for n in pc:
        v = [r for r in pc[n] if r]
        if n == "none" or not v:
            continue
        share = statistics.median((r["tracer_cpu_s"] + (r.get("run_ns") or 0) / 1e9)
                                  / r["wall_s"] for r in v)
        a, rss = med(v, "attach_ms"), med(v, "rss_kb")
        print(f"  {n:24s} {share * 100:6.2f}% of one CPU" +
              (f"   attach {a:.0f} ms" if a is not None else "   attach n/a (silent)") +
              f", peak RSS {(rss or 0) / 1024:.1f} MB")
        doc["profile"][n] = {"cpu_share": share, "attach_ms": a, "peak_rss_kb": rss}
    print("  (perf's in-kernel sampling is not in its share; kdist's BPF programs are in its)")


def run_suites(suites, doc):
    """Every configuration of every suite once per round, interleaved; a
    line per part when it starts, a mark per run ('.' done, 'x' gave up)."""
    runs = {s: {n: [] for n in cfgs} for s, cfgs, _, _ in suites}
    for s, cfgs, wl, nr in suites:
        print(f"part {s}: {len(cfgs)} configurations x {nr} rounds "
              f"({' '.join(os.path.basename(w) for w in wl)})", flush=True)
    failed = doc.setdefault("failed", {})
    for i in range(max((x[3] for x in suites), default=0)):
        for s, cfgs, wl, nr in suites:
            if i >= nr:
                continue
            print(f"  {s} round {i + 1}/{nr} ", end="", flush=True)
            t0 = time.monotonic()
            # each round in its own order (the same on every run of the
            # bench): no configuration always follows the same one, or
            # runs always early or late in a round while the load drifts
            order = list(cfgs.items())
            random.Random(i).shuffle(order)
            for n, c in order:
                if (s, n) in failed:
                    runs[s][n].append(None)
                    print("-", end="", flush=True)
                    continue
                try:
                    run = bracketed_run if s in BRACKETED else one_run
                    runs[s][n].append(run(n, c, wl))
                    print(".", end="", flush=True)
                except (GaveUp, OSError, ValueError, IndexError) as e:
                    # one configuration gave up: the others go on
                    runs[s][n].append(None)
                    failed[(s, n)] = str(e)
                    print(f"x\n    gave up: {e}\n    ", end="", flush=True)
            print(f" {time.monotonic() - t0:.0f} s", flush=True)
    return runs


def main():
    t_start = time.monotonic()
    loop = [os.path.join(WL, "getppid_loop"), str(N)]
    suites = [
        ("targets", TARGET_CFGS, loop, TARGET_ROUNDS),
        ("syscalls", SYSCALLS, loop, ROUNDS),
        ("offcpu", OFFCPU, [os.path.join(WL, "pingpong"), str(SWITCHES)], ROUNDS),
        ("profile", PROFILE, [os.path.join(WL, "hotspots"), str(PROFILE_ROUNDS)], ROUNDS),
    ]
    suites = [x for x in suites if x[0] in PARTS]
    # BENCH_CONFIGS="none,kdist pair,...": only these configurations
    only = [c for c in os.environ.get("BENCH_CONFIGS", "").split(",") if c]
    for _, cfgs, _, _ in suites:
        for n in [n for n in cfgs if only and n not in only and n != "none"]:
            del cfgs[n]
    missing = {}
    for _, cfgs, _, _ in suites:
        for n, c in list(cfgs.items()):
            if c and not have(c[2]):
                missing[n] = c[2]
                del cfgs[n]
    doc = {"rounds": ROUNDS, "target_rounds": TARGET_ROUNDS, "bracketed": sorted(BRACKETED),
           "calls": N, "machine": {"cpus": os.cpu_count(),
           "kernel": os.uname().release, "loadavg": os.getloadavg()}, "missing": missing}
    for n, why in missing.items():
        print(f"(no {n}: {why} is not installed)")
    runs = run_suites(suites, doc)
    print("\nMedians of interleaved rounds; cost = the workload's own CPU time.")
    for (s, n), why in doc["failed"].items():
        print(f"  (gave up on {n} in {s}: {why})")
    doc["failed"] = {f"{s}: {n}": why for (s, n), why in doc["failed"].items()}
    if runs.get("targets", {}).get("none") and any(runs["targets"]["none"]):
        targets_report(runs["targets"], doc)
    if runs.get("syscalls", {}).get("none") and any(runs["syscalls"]["none"]):
        syscalls_report(runs["syscalls"], doc)
    if len(runs.get("offcpu", {})) > 1 and any(runs["offcpu"]["none"]):
        offcpu_report(runs["offcpu"], doc)
    if len(runs.get("profile", {})) > 1:
        profile_report(runs["profile"], doc)

    # func's histogram memory, from the map value sizes of today's layout
    doc["func_memory"] = func_memory()
    sys.stdout.flush()
    groups_bench()
    if "recipes" in PARTS:
        recipes_bench(doc)
    if "groups" in PARTS:
        live_groups_bench(doc)
    # the VM part (kernel functions) loads nothing on this machine; the
    # lines of these scripts go to the JSON as they are
    if "vm" in PARTS:
        doc["vm"] = script_lines("bench/func-attach.sh")
        # the per-call cost by method on each VM kernel, 5.10's fallbacks too
        # (three VMs of at most 1200 s each)
        doc["kfunc_cost"] = script_lines("bench/kfunc-cost.sh", 3 * 1200 + 60)
    if "uprobe" in PARTS:
        doc["uprobe"] = script_lines("bench/uprobe-attach.sh")
    doc["machine"]["loadavg_end"] = os.getloadavg()
    doc["wall_s"] = time.monotonic() - t_start
    targets = {k: v for k, v in doc.get("ratios", {}).items() if v["target"] is not None}
    if targets:
        print("\ntargets (medians of interleaved rounds):")
        for k, v in targets.items():
            print(f"  {k:44s} {v['value']:6.2f} <= {v['target']}: "
                  f"{VERDICT[v['met']]}"
                  + (f" (90% of the median: {v['interval90'][0]:.2f}-{v['interval90'][1]:.2f})"
                     if v.get("interval90") else ""))
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"\nfigures written to {OUT}")
    w = doc["wall_s"]
    print(f"bench wall time {int(w // 60)} min {w % 60:.0f} s "
          f"(load average {doc['machine']['loadavg'][0]:.1f} at the start, "
          f"{doc['machine']['loadavg_end'][0]:.1f} at the end)")


def script_lines(script, timeout=None):
    """Run a bench script, printing its lines as they come; returns them.
    Bounded by timeout seconds (BENCH_PART_TIMEOUT by default)."""
    timeout = timeout or PART_TIMEOUT
    print(f"\npart {script}:", flush=True)
    lines, deadline = [], time.monotonic() + timeout
    with subprocess.Popen([os.path.join(TOP, script)], stdout=subprocess.PIPE,
                          start_new_session=True) as p:
        buf = b""
        while True:
            left = deadline - time.monotonic()
            r = select.select([p.stdout], [], [], max(left, 0))[0] if left > 0 else []
            if not r:
                os.killpg(p.pid, signal.SIGKILL)
                msg = f"gave up on {script}: no end within {timeout:.0f} s"
                print(msg, flush=True)
                lines.append(msg)
                break
            c = p.stdout.read1(65536)
            if not c:
                break
            buf += c
            *done, buf = buf.split(b"\n")
            for line in done:
                print(line.decode(errors="replace"), flush=True)
                lines.append(line.decode(errors="replace"))
    return lines


def btf_size(obj, struct):
    """sizeof(struct) in a built BPF object, from its BTF."""
    out = subprocess.run(["bpftool", "btf", "dump", "file", obj, "format", "raw"],
                         capture_output=True, text=True).stdout
    m = re.search(rf"STRUCT '{struct}' size=(\d+)", out)
    return int(m.group(1)) if m else None


def func_memory():
    """kdist func's in-kernel histogram memory for 1,000 functions on a
    64-CPU machine, from the value sizes of its per-CPU maps in the built
    object: func_vals, a func_val per function per CPU, and the bucket pool
    func_pages, by default 4 pages per function (64 buckets) and a header
    page, per CPU (func.c).  Before the pool: a full histogram (struct hist)
    and two counters per function per CPU."""
    cpus, fns = 64, 1000
    val = btf_size(os.path.join(B, "func.bpf.o"), "func_val")
    page = btf_size(os.path.join(B, "func.bpf.o"), "func_page")
    hist = btf_size(os.path.join(B, "pair.bpf.o"), "hist")
    if not (val and page and hist):
        print("\nfunc histogram memory: no value sizes (bpftool, build/*.bpf.o)")
        return None
    total = fns * cpus * val + (4 * fns + 1) * cpus * page
    old = (hist + 16) * cpus * fns
    print(f"\nfunc histogram memory, 1,000 functions x 64 CPUs, from the map value sizes "
          f"(func_val {val} B, page of 16 buckets {page} B, 4 pages per function by default): "
          f"{total / 1e6:.1f} MB (target < 64 MB: {'met' if total < 64e6 else 'NOT met'}; "
          f"a full histogram per function and CPU, {hist + 16} B: {old / 1e6:.1f} MB)")
    return {"func_val_bytes": val, "page_bytes": page, "bytes_1000_functions_64_cpus": total,
            "bytes_full_histograms": old}


def groups_bench():
    """Reading many groups: the measurement's hash, timed by the unit test's
    100,000-group case (target: well under a second)."""
    exe = os.path.join(TOP, "build/tests/test_measure")
    if not os.path.exists(exe):
        subprocess.call(["make", "-C", TOP, "--no-print-directory", "build/tests/test_measure"])
    try:
        out = subprocess.run([exe], env=dict(os.environ, KDIST_BENCH_GROUPS="1"),
                             capture_output=True, text=True, timeout=PART_TIMEOUT).stdout
    except subprocess.TimeoutExpired:
        print(f"100,000 groups: gave up on {exe} after {PART_TIMEOUT:.0f} s")
        return
    for line in out.splitlines():
        if line.startswith("groups-bench:"):
            add, diff = map(float, line.split()[1:])
            print(f"100,000 groups added and read {add:.3f} s, diffed {diff:.3f} s (target < 1 s)")
            return
    print("100,000 groups: no figure from build/tests/test_measure")


# The recipes whose groups are a small number, a pointer or a name, each
# beside the pair it expands to without its --by (kdist recipes): what the
# grouping adds per program run.  The workload runs all along both.
RECIPE_WORK = {
    # a UDP datagram to itself on loopback: NET_RX (and NET_TX) softirqs
    "udp": ["python3", "-c", "import socket\n"
            "r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "r.bind(('127.0.0.1', 0))\n"
            "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "while True:\n    s.sendto(b'x', r.getsockname()); r.recv(16)"],
    # direct writes of 4 KiB to a file on the disk: a request and its
    # completion interrupt each
    "disk": ["sh", "-c", ': > "$1"; while :; do "$0" "$1" 1000 4096 || exit; done',
             os.path.join(WL, "directio"), os.path.join(B, "bench-directio.tmp")],
    # each write runs refresh_vm_stats on every CPU from the system workqueue
    "wq": ["sh", "-c", "while :; do echo 1 > /proc/sys/vm/stat_refresh || exit; done"],
}
RECIPE_COSTS = [
    ("softirq", ["irq:softirq_entry", "irq:softirq_exit", "--key", "cpu"], "udp"),
    ("irq", ["irq:irq_handler_entry", "irq:irq_handler_exit", "--key", "cpu"], "disk"),
    ("wq", ["workqueue:workqueue_execute_start", "workqueue:workqueue_execute_end", "--key",
            "work"], "wq"),
    ("bio", ["block:block_rq_issue", "block:block_rq_complete", "--key", "rq"], "disk"),
]
RECIPE_SECONDS = float(os.environ.get("BENCH_RECIPE_SECONDS", "3"))
# BENCH_RECIPES=irq,bio: only these
RECIPE_COSTS = [r for r in RECIPE_COSTS
                if r[0] in (os.environ.get("BENCH_RECIPES") or r[0]).split(",")]


def program_ns(args, what):
    """kdist's own ns per program run over RECIPE_SECONDS (-o json -v: the
    BPF run-time statistics on all run) and its runs; None without runs."""
    cmd = [KDIST] + args + ["-o", "json", "-v", "-d", f"{RECIPE_SECONDS:g}"]
    try:
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             timeout=ATTACH_TIMEOUT + RECIPE_SECONDS + EXIT_TIMEOUT).stdout
    except subprocess.TimeoutExpired:
        raise GaveUp(f"{what}: {' '.join(cmd)} did not end within "
                     f"{ATTACH_TIMEOUT + RECIPE_SECONDS + EXIT_TIMEOUT:.0f} s")
    c = kdist_cost(out)
    return (c["ns_per_run"], c["runs"]) if c.get("runs") else (None, 0)


def recipes_bench(doc):
    """Each recipe against its pair, ns per program run, rounds interleaved."""
    print(f"\npart recipes: {len(RECIPE_COSTS)} recipes beside their pairs x {ROUNDS} rounds "
          f"of {RECIPE_SECONDS:g} s, ns per program run (BPF statistics)", flush=True)
    doc["recipes"] = {}
    for recipe, pair, work in RECIPE_COSTS:
        wl = subprocess.Popen(RECIPE_WORK[work], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
        LIVE.add(wl)
        r, p, runs = [], [], []
        print(f"  {recipe} ", end="", flush=True)
        try:
            for i in range(ROUNDS):
                for name in random.Random(i).sample(["recipe", "pair"], 2):
                    ns, n = program_ns([recipe] if name == "recipe" else ["pair"] + pair,
                                       recipe)
                    (r if name == "recipe" else p).append(ns)
                    runs.append(n)
                print(".", end="", flush=True)
        except GaveUp as e:
            print(f"gave up: {e}")
            continue
        finally:
            os.killpg(wl.pid, signal.SIGKILL)
            wl.wait()
            LIVE.discard(wl)
        rounds = [a / b for a, b in zip(r, p) if a and b]
        if not rounds:
            print(f" no {recipe} events in {RECIPE_SECONDS:g} s ({work} workload): no figure")
            continue
        iv = median_interval(rounds)
        r_ns, p_ns = (statistics.median([x for x in xs if x]) for xs in (r, p))
        print(f" {r_ns:.0f} ns per program run against {p_ns:.0f} for `kdist pair "
              f"{' '.join(pair)}`: {statistics.median(rounds):.2f}x"
              + (f" (90% of the median: {iv[0]:.2f}-{iv[1]:.2f})" if iv else "")
              + f", {statistics.median(runs) / RECIPE_SECONDS:.0f} runs/s", flush=True)
        doc["recipes"][recipe] = {"pair": " ".join(pair), "workload": work,
                                  "recipe_ns_per_run": r_ns, "pair_ns_per_run": p_ns,
                                  "ratio": statistics.median(rounds), "interval90": iv,
                                  "rounds": rounds}
    try:
        os.unlink(os.path.join(B, "bench-directio.tmp"))
    except OSError:
        pass


def live_groups_bench(doc):
    """100,000 groups live: kdist pair --by fd over a workload closing
    100,000 distinct (not open) fds per run, in intervals of one second.
    Per interval, the time from the interval's end (start_unix + duration_s
    of its JSON line) until its line reached us: taking the groups out of
    the kernel, summing them and printing them.  Also the kernel memory the
    maps took (cost.map_bytes) and any loss."""
    runs = int(os.environ.get("BENCH_GROUP_RUNS", "12"))
    cmd = [KDIST, "pair", "syscalls:sys_enter_close", "syscalls:sys_exit_close", "--by", "fd",
           "--max-groups", "131072", "-i", "1", "-o", "json", "-c",
           f"for i in $(seq {runs}); do {WL}/syserr 0 0 100000; done"]
    print(f"\npart groups: kdist pair --by fd over {runs} x 100,000 distinct closes, "
          "a mark per interval ", end="", flush=True)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    rows, buf, deadline = [], b"", time.monotonic() + PART_TIMEOUT
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([p.stdout], [], [], left)[0]:
            p.kill()
            print(f"\ngave up on the groups part: kdist pair --by fd did not end within "
                  f"{PART_TIMEOUT:.0f} s (BENCH_PART_TIMEOUT)")
            break
        c = p.stdout.read1(1 << 20)
        if not c:
            break
        buf += c
        *done, buf = buf.split(b"\n")
        for line in done:
            t = time.time()
            d = json.loads(line)
            if "interval" in d:
                print(".", end="", flush=True)
                rows.append((len(d["groups"]), t - d["start_unix"] - d["duration_s"], d["lost"],
                             d["cost"].get("map_bytes", 0)))
    p.wait()
    print(flush=True)
    big = [r for r in rows if r[0] >= 50000]
    if not big:
        print("\n100,000 groups live: no interval with 50,000 groups or more")
        return
    late = sorted(r[1] for r in big)
    print(f"\n100,000 groups live (pair --by fd, {runs} x 100,000 distinct closes, -i 1): "
          f"{len(big)} intervals of {min(r[0] for r in big)}-{max(r[0] for r in big)} groups "
          f"read and printed in {statistics.median(late):.3f} s median, {late[-1]:.3f} s max "
          f"(target < 1 s); lost {sum(r[2] for r in rows)}; "
          f"kernel map memory up to {max(r[3] for r in rows) / 2**20:.0f} MiB")
    doc["groups_live"] = {"intervals": len(big), "groups_max": max(r[0] for r in big),
                          "read_print_s_median": statistics.median(late),
                          "read_print_s_max": late[-1], "lost": sum(r[2] for r in rows),
                          "map_bytes_max": max(r[3] for r in rows)}


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, stop_live)
    try:
        main()
    except KeyboardInterrupt:
        stop_live()

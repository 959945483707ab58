#!/usr/bin/env python3
"""kdist's benchmark against its peers, in one run.

Three workloads, each traced by every tool that measures the same thing:

  syscalls  a getppid loop; raw_syscalls sys_enter -> sys_exit, filtered to
            the loop's pid: no tracing, the floor (empty programs, as
            tracepoints and raw tracepoints; raw tracepoint programs that
            only read the clock), kdist pair, kdist syscalls,
            libbpf-tools syscount -L, bpftrace hist(); added ns per call.
  offcpu    two threads waking each other through pipes: kdist offcpu
            against libbpf-tools offcputime; added ns per context switch.
  profile   busy CPU work: kdist profile against perf record -g at the same
            frequency; the tracer's share of one CPU.

The cost is the workload's own CPU time (the thread's CPU clock, or the
rusage of the workload), not wall time: on a shared, loaded machine the
wall time holds other tasks' time, the CPU time only what ran on behalf of
the workload, including the BPF programs that ran in its context.
Configurations are interleaved over several rounds and medians taken.
Every tool's start-to-attached time and peak RSS are measured in the same
runs.  The figures are printed as a table and written as JSON
(BENCH_JSON, default build/bench.json)."""
import json, os, re, signal, statistics, subprocess, sys, time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.join(TOP, "build")
KDIST = os.path.join(B, "kdist")
WL = os.path.join(B, "tests")
FLOOR = os.path.join(B, "floor")
N = int(os.environ.get("BENCH_CALLS", "2000000"))
SWITCHES = int(os.environ.get("BENCH_PINGPONG", "100000"))
PROFILE_ROUNDS = int(os.environ.get("BENCH_HOTSPOTS", "500"))	# 4 ms of CPU each
HZ = os.environ.get("BENCH_HZ", "999")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
OUT = os.environ.get("BENCH_JSON", os.path.join(B, "bench.json"))
# which parts run: the three suites, 100,000 groups live, the VM part
# (kernel functions) and the uprobe attach times; e.g. BENCH_PARTS=syscalls
# for the pair figures alone
PARTS = os.environ.get("BENCH_PARTS", "syscalls offcpu profile groups vm uprobe").split()

BPFTRACE = ("tracepoint:raw_syscalls:sys_enter /pid == {pid}/ {{ @s[tid] = nsecs; }} "
            "tracepoint:raw_syscalls:sys_exit /pid == {pid} && @s[tid]/ "
            "{{ @h = hist(nsecs - @s[tid]); delete(@s[tid]); }}")
# libbpf-tools buffer stdout when it is a pipe: line-buffer their "Tracing"
LINE = ["stdbuf", "-oL"]

# name: (command for the workload's pid, word printed once attached or a
# fixed wait in seconds, the executable that must exist)
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
    # JSON carries kdist's cost: the statistics are on
    "kdist pair -o json": (lambda p: [KDIST, "pair", "raw_syscalls:sys_enter",
                                      "raw_syscalls:sys_exit", "-p", str(p), "-o", "json"],
                           b"Tracing", KDIST),
    # every pair below the threshold: what --slower-than adds when nothing is slow
    "kdist --slower-than": (lambda p: [KDIST, "pair", "raw_syscalls:sys_enter",
                                       "raw_syscalls:sys_exit", "-p", str(p),
                                       "--slower-than", "1s"], b"Tracing", KDIST),
    "kdist syscalls": (lambda p: [KDIST, "syscalls", "-p", str(p)], b"Tracing",
                       KDIST),
    "syscount -L": (lambda p: LINE + ["syscount", "-L", "-p", str(p)], b"Tracing", "syscount"),
    "bpftrace hist": (lambda p: ["bpftrace", "-e", BPFTRACE.format(pid=p)], b"Attaching",
                      "bpftrace"),
}
OFFCPU = {
    "none": None,
    "kdist offcpu": (lambda p: [KDIST, "offcpu", "-p", str(p)], b"Tracing", KDIST),
    "offcputime": (lambda p: LINE + ["offcputime", "-p", str(p)], b"Tracing", "offcputime"),
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


def wait_ready(proc, word):
    """Read the tracer's output until it says it is attached."""
    buf = b""
    while word not in buf:
        c = proc.stdout.read1(4096)
        if not c:
            raise RuntimeError("tracer exited before attaching: " + buf.decode(errors="replace"))
        buf += c
    return buf


def rusage_of(pid):
    """Reap pid: (CPU seconds, peak RSS kB, context switches)."""
    _, _, ru = os.wait4(pid, 0)
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss, ru.ru_nvcsw + ru.ru_nivcsw


def kdist_cost(out):
    """ns inside kdist's BPF programs over the run, from its JSON."""
    lines = [l for l in out.decode(errors="replace").splitlines() if l.startswith("{")]
    if not lines:
        return None
    cost = json.loads(lines[-1]).get("cost", {})
    return cost.get("run_ns"), cost.get("ns_per_run"), cost.get("map_bytes")


def one_run(cfg, workload):
    """Run the workload (it waits for a byte on stdin) with the tracer cfg
    attached to it.  Returns a dict of what was measured."""
    rfd, wfd = os.pipe()
    # (getppid_loop prints its CPU ns per call too with KDIST_WL_CPU)
    wl = subprocess.Popen(["sh", "-c", 'read x; exec "$@"', "sh"] + workload, stdin=rfd,
                          stdout=subprocess.PIPE, env=dict(os.environ, KDIST_WL_CPU="1"))
    os.close(rfd)
    r = {}
    tracer = None
    try:
        if cfg:
            cmd, ready, _ = cfg
            t0 = time.monotonic()
            # bpftrace says "Attaching" on stdout, the others on stderr
            tracer = subprocess.Popen(cmd(wl.pid), stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT)
            if isinstance(ready, float):
                time.sleep(ready)
            else:
                wait_ready(tracer, ready)
                r["attach_ms"] = (time.monotonic() - t0) * 1000
            time.sleep(0.2)
        t0 = time.monotonic()
        os.write(wfd, b"\n")
        out = wl.stdout.read()
        r["cpu_s"], _, r["switches"] = rusage_of(wl.pid)
        wl.returncode = 0
        r["wall_s"] = time.monotonic() - t0
        r["out"] = out.decode().split()
    finally:
        os.close(wfd)
        if tracer:
            tracer.send_signal(signal.SIGINT)
            out = tracer.stdout.read()
            r["tracer_cpu_s"], r["rss_kb"], _ = rusage_of(tracer.pid)
            tracer.returncode = 0
            if cmd(0)[0] == KDIST:
                r["run_ns"], r["ns_per_run"], r["map_bytes"] = kdist_cost(out) or (None,) * 3
    return r


def med(runs, key):
    v = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(v) if v else None


def syscalls_report(sc, doc):
    """The syscalls suite: ns per call from the loop's thread CPU clock."""
    per_call = {n: statistics.median(float(r["out"][1]) for r in v) for n, v in sc.items()}
    added = {n: per_call[n] - per_call["none"] for n in sc}
    print(f"\ngetppid loop, {N} calls, raw_syscalls sys_enter -> sys_exit of its pid (ns per call):")
    print(f"  {'':24s} {'CPU':>8s} {'added':>8s} {'x floor':>8s} {'attach ms':>10s} {'RSS MB':>7s}")
    fraw = added.get("floor (raw tracepoint)")
    for n in sc:
        a, rss = med(sc[n], "attach_ms"), med(sc[n], "rss_kb")
        print(f"  {n:24s} {per_call[n]:8.1f} {added[n] if n != 'none' else 0:8.1f} "
              f"{added[n] / fraw if fraw and n != 'none' else 0:8.2f} "
              f"{a if a is not None else 0:10.0f} {rss / 1024 if rss else 0:7.1f}")
    kd = added["kdist pair"]
    # the same ratio within each round (its runs close together in time, so
    # a change of the machine's load between rounds cancels out), then the median
    cpu = {n: [float(r["out"][1]) for r in v] for n, v in sc.items()}
    per_round = [(k - z) / (f - z) for k, f, z in
                 zip(cpu["kdist pair"], cpu["floor (raw tracepoint)"], cpu["none"]) if f > z]
    ratio = statistics.median(per_round) if per_round else float("nan")
    print("ratios of added cost:")
    print(f"  kdist pair / floor (raw tracepoint)  {ratio:6.2f}   median of the rounds' ratios "
          f"({', '.join(f'{x:.2f}' for x in per_round)}; target <= 1.8: "
          f"{'met' if ratio <= 1.8 else 'NOT met'})")
    print(f"  kdist pair / floor (raw tracepoint)  {kd / fraw:6.2f}   of the medians")
    fclk = added.get("floor (raw, clock)")
    if fclk:
        print(f"  kdist pair / floor (raw, clock)      {kd / fclk:6.2f}   (the two clock reads alone are "
              f"{fclk / fraw:.2f} x the raw floor)")
        fthr = added.get("floor (clock, thread)")
        if fthr:
            print(f"  kdist pair / floor (clock, thread)   {kd / fthr:6.2f}   (clock reads, current task "
                  f"and -p alone: {fthr / fraw:.2f} x the raw floor)")
    fst = added.get("floor (raw, statistics)")
    if fst:
        print(f"  kdist pair / floor (raw, statistics) {kd / fst:6.2f}   (the statistics alone add "
              f"{fst - fraw:+.1f} ns per call)")
    print(f"  kdist pair / floor (tracepoint)      {kd / added['floor (tracepoint)']:6.2f}")
    for peer in ("kdist syscalls", "syscount -L", "bpftrace hist"):
        if peer in added:
            print(f"  kdist pair / {peer:24s} {kd / added[peer]:6.2f}")
    slow = added["kdist --slower-than"]
    print(f"  kdist --slower-than 1s / kdist pair  {slow / kd:6.2f}   "
          f"({slow - kd:+.1f} ns per pair below the threshold)")
    js = added["kdist pair -o json"]
    print(f"  kdist pair -o json / floor (raw, statistics) {js / fst if fst else float('nan'):6.2f}"
          f"   (both with the statistics on)")
    own = med(sc["kdist pair -o json"], "ns_per_run")
    if own is not None:
        # two runs (START and END) per call; the programs also run, and leave
        # at the pid filter, for every other syscall of the system
        print(f"  kdist's own account (BPF run-time statistics): {2 * own:.1f} ns per call in "
              f"its programs; the rest of the added cost is the hook's dispatch")
    doc["syscalls"] = {n: {"cpu_ns_per_call": per_call[n], "added_ns": added[n],
                           "attach_ms": med(sc[n], "attach_ms"),
                           "peak_rss_kb": med(sc[n], "rss_kb")} for n in sc}
    doc["syscalls"]["kdist pair"]["bpf_ns_per_run"] = own
    doc["syscalls"]["kdist pair"]["x_raw_floor_rounds"] = per_round
    doc["syscalls"]["kdist pair"]["x_raw_floor"] = ratio
    doc["syscalls"]["kdist pair"]["map_bytes"] = med(sc["kdist pair -o json"], "map_bytes")


def main():
    suites = [
        ("syscalls", SYSCALLS, [os.path.join(WL, "getppid_loop"), str(N)]),
        ("offcpu", OFFCPU, [os.path.join(WL, "pingpong"), str(SWITCHES)]),
        ("profile", PROFILE, [os.path.join(WL, "hotspots"), str(PROFILE_ROUNDS)]),
    ]
    suites = [x for x in suites if x[0] in PARTS]
    missing = {}
    for _, cfgs, _ in suites:
        for n, c in list(cfgs.items()):
            if c and not have(c[2]):
                missing[n] = c[2]
                del cfgs[n]
    runs = {s: {n: [] for n in cfgs} for s, cfgs, _ in suites}
    for _ in range(ROUNDS):
        for s, cfgs, wl in suites:
            for n, c in cfgs.items():
                runs[s][n].append(one_run(c, wl))
    doc = {"rounds": ROUNDS, "machine": {"cpus": os.cpu_count(), "kernel": os.uname().release},
           "missing": missing}
    print(f"Medians of {ROUNDS} interleaved rounds; cost = the workload's own CPU time.")
    for n, why in missing.items():
        print(f"  (no {n}: {why} is not installed)")

    # syscalls: ns per call from the loop's thread CPU clock
    sc = runs.get("syscalls", {})
    if sc:
        syscalls_report(sc, doc)

    # offcpu: the workload's CPU time per context switch
    oc = runs.get("offcpu", {})
    if len(oc) > 1:
        per_sw = {n: statistics.median(r["cpu_s"] * 1e9 / max(r["switches"], 1) for r in v)
                  for n, v in oc.items()}
        sw = med(oc["none"], "switches")
        print(f"\npingpong, {SWITCHES} round trips (~{sw:.0f} context switches; ns of the "
              "workload's CPU per switch):")
        for n in oc:
            a, rss = med(oc[n], "attach_ms"), med(oc[n], "rss_kb")
            print(f"  {n:24s} {per_sw[n]:8.1f} added {per_sw[n] - per_sw['none']:7.1f}"
                  + (f"   attach {a:.0f} ms, peak RSS {rss / 1024:.1f} MB" if rss else ""))
        if "offcputime" in oc:
            ko, po = per_sw["kdist offcpu"] - per_sw["none"], per_sw["offcputime"] - per_sw["none"]
            print(f"  kdist offcpu / offcputime added cost {ko / po if po > 0 else float('nan'):.2f}")
        doc["offcpu"] = {n: {"cpu_ns_per_switch": per_sw[n],
                             "added_ns": per_sw[n] - per_sw["none"],
                             "attach_ms": med(oc[n], "attach_ms"),
                             "peak_rss_kb": med(oc[n], "rss_kb")} for n in oc}

    # profile: the tracer's CPU (its process, and kdist's BPF programs) over
    # the workload's wall time
    pc = runs.get("profile", {})
    if len(pc) > 1:
        print(f"\nhotspots, {PROFILE_ROUNDS * 4} ms of CPU work, sampled at {HZ} Hz "
              "(the tracer's share of one CPU):")
        doc["profile"] = {}
        for n in pc:
            if n == "none":
                continue
            share = statistics.median((r["tracer_cpu_s"] + (r.get("run_ns") or 0) / 1e9)
                                      / r["wall_s"] for r in pc[n])
            a, rss = med(pc[n], "attach_ms"), med(pc[n], "rss_kb")
            print(f"  {n:24s} {share * 100:6.2f}% of one CPU" +
                  (f"   attach {a:.0f} ms" if a is not None else "   attach n/a (silent)") +
                  f", peak RSS {rss / 1024:.1f} MB")
            doc["profile"][n] = {"cpu_share": share, "attach_ms": a, "peak_rss_kb": rss}
        print("  (perf's in-kernel sampling is not in its share; kdist's BPF programs are in its)")

    # func's histogram memory, from the map value sizes of today's layout
    doc["func_memory"] = func_memory()
    sys.stdout.flush()
    groups_bench()
    if "groups" in PARTS:
        live_groups_bench(doc)
    # the VM part (kernel functions) loads nothing on this machine; the
    # lines of these scripts go to the JSON as they are
    if "vm" in PARTS:
        doc["vm"] = script_lines("bench/func-attach.sh")
    if "uprobe" in PARTS:
        doc["uprobe"] = script_lines("bench/uprobe-attach.sh")
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"\nfigures written to {OUT}")


def script_lines(script):
    """Run a bench script, printing its lines as they come; returns them."""
    sys.stdout.flush()
    lines = []
    with subprocess.Popen([os.path.join(TOP, script)], stdout=subprocess.PIPE, text=True) as p:
        for line in p.stdout:
            print(line, end="", flush=True)
            lines.append(line.rstrip("\n"))
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
    out = subprocess.run([exe], env=dict(os.environ, KDIST_BENCH_GROUPS="1"),
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("groups-bench:"):
            add, diff = map(float, line.split()[1:])
            print(f"100,000 groups added and read {add:.3f} s, diffed {diff:.3f} s (target < 1 s)")
            return
    print("100,000 groups: no figure from build/tests/test_measure")


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
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    rows = []
    for line in p.stdout:
        t = time.time()
        d = json.loads(line)
        if "interval" in d:
            rows.append((len(d["groups"]), t - d["start_unix"] - d["duration_s"], d["lost"],
                         d["cost"].get("map_bytes", 0)))
    p.wait()
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
    main()

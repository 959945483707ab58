#!/usr/bin/env python3
"""kdist's benchmark: added nanoseconds per traced syscall pair on a tight
getppid loop, as ratios measured in one run; start-to-attached time and peak
RSS.  Configurations are interleaved over several rounds and the median
taken, because these machines are shared and noisy."""
import os, resource, statistics, subprocess, sys, tempfile, time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KDIST = os.path.join(TOP, "build/kdist")
LOOP = os.path.join(TOP, "build/tests/getppid_loop")
FLOOR = os.path.join(TOP, "build/floor")
N = int(os.environ.get("BENCH_CALLS", "2000000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))

BPFTRACE = ("tracepoint:raw_syscalls:sys_enter /pid == {pid}/ {{ @s[tid] = nsecs; }} "
            "tracepoint:raw_syscalls:sys_exit /pid == {pid} && @s[tid]/ "
            "{{ @h = hist(nsecs - @s[tid]); delete(@s[tid]); }}")

CONFIGS = {
    "none": None,
    "floor (tracepoint)": lambda pid: [FLOOR, "tp"],
    "floor (raw tracepoint)": lambda pid: [FLOOR, "raw"],
    "kdist": lambda pid: [KDIST, "pair", "raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
                          "-p", str(pid), "-o", "json"],
    "bpftrace": lambda pid: ["bpftrace", "-e", BPFTRACE.format(pid=pid)],
}
READY = {"floor": b"attached", "kdist": b"Tracing", "bpftrace": b"Attaching"}


def wait_ready(proc, word):
    """Read the tracer's output until it says it is attached."""
    buf = b""
    out = proc.stdout if proc.stdout else proc.stderr
    while word not in buf:
        c = out.read1(4096)
        if not c:
            raise RuntimeError("tracer exited before attaching: " + buf.decode(errors="replace"))
        buf += c


# kdist's own account of its cost (BPF run-time statistics) per run: ns
# inside its programs per traced call.
SELF = []


def self_cost(out):
    """ns in kdist's programs per traced call, from its JSON measurement:
    two runs (START and END) at the mean time of a run.  The programs also
    run, and leave at the pid filter, for every other syscall of the
    system, so run_ns over the pairs would count those too."""
    import json
    doc = json.loads([l for l in out.decode().splitlines() if l.startswith("{")][-1])
    cost = doc.get("cost", {})
    if cost.get("ns_per_run") is None:
        return None
    return 2 * cost["ns_per_run"]


def one_run(name):
    """ns per getppid call with the tracer `name` attached to the loop."""
    rfd, wfd = os.pipe()
    loop = subprocess.Popen([LOOP, str(N), "wait"], stdin=rfd, stdout=subprocess.PIPE)
    os.close(rfd)
    tracer = None
    try:
        if CONFIGS[name]:
            # bpftrace says "Attaching" on stdout, the others on stderr
            tracer = subprocess.Popen(CONFIGS[name](loop.pid), stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT)
            wait_ready(tracer, READY[name.split()[0]])
            time.sleep(0.2)
        os.write(wfd, b"g")
        out, _ = loop.communicate()
        return float(out)
    finally:
        os.close(wfd)
        if tracer:
            tracer.send_signal(2)
            out, _ = tracer.communicate()
            if name == "kdist":
                SELF.append(self_cost(out))


def peak_rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int([l for l in f if l.startswith("VmHWM")][0].split()[1])


def startup():
    """Median ms from exec to 'Tracing', and the largest peak RSS (kB) seen
    while attached, of kdist measuring the getppid pair."""
    times, rss = [], 0
    for _ in range(5):
        t0 = time.monotonic()
        p = subprocess.Popen([KDIST, "pair", "raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
                              "-d", "0.5"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_ready(p, b"Tracing")
        times.append(time.monotonic() - t0)
        time.sleep(0.2)
        rss = max(rss, peak_rss_kb(p.pid))
        p.communicate()
    return statistics.median(times), rss


def bpftrace_startup():
    t0 = time.monotonic()
    p = subprocess.Popen(["bpftrace", "-e", BPFTRACE.format(pid=1)], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    wait_ready(p, b"Attaching")
    t = time.monotonic() - t0
    time.sleep(0.3)
    rss = peak_rss_kb(p.pid)
    p.send_signal(2)
    p.communicate()
    return t, int(rss)


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


def main():
    have_bpftrace = subprocess.call(["which", "bpftrace"], stdout=subprocess.DEVNULL) == 0
    names = [n for n in CONFIGS if have_bpftrace or n != "bpftrace"]
    samples = {n: [] for n in names}
    for r in range(ROUNDS):
        for n in names:
            samples[n].append(one_run(n))
    med = {n: statistics.median(v) for n, v in samples.items()}
    base = med["none"]
    print(f"getppid loop, {N} calls, median of {ROUNDS} interleaved rounds (ns per call):")
    for n in names:
        print(f"  {n:24s} {med[n]:8.1f}   added {med[n] - base:7.1f}")
    added = {n: med[n] - base for n in names}
    ftp, fraw, kd = added["floor (tracepoint)"], added["floor (raw tracepoint)"], added["kdist"]
    print("ratios of added cost:")
    print(f"  kdist / floor (tracepoint)      {kd / ftp:6.2f}   (target <= 2.0)")
    print(f"  kdist / floor (raw tracepoint)  {kd / fraw:6.2f}   (kdist attaches these as raw tracepoints)")
    if have_bpftrace:
        print(f"  kdist / bpftrace                {kd / added['bpftrace']:6.2f}   (target <= 0.35)")
    # The programs' own time is what BPF run-time statistics see; the added
    # cost also holds the dispatch around them (tracepoint to program, the
    # statistics' clock reads): the same order of magnitude, normally less
    # (a noisy round may measure less than the programs' own time).
    selfs = [x for x in SELF if x is not None]
    if selfs:
        own = statistics.median(selfs)
        ok = kd / 10 <= own <= kd * 2
        print(f"kdist self-reported {own:.1f} ns per call in its programs, measured added {kd:.1f} "
              f"(outside the programs {kd - own:.1f}): {'same order of magnitude' if ok else 'MISMATCH'}")
    else:
        print("kdist self-reported cost unknown: the kernel refused BPF run-time statistics")
    t, rss = startup()
    print(f"kdist start-to-attached {t * 1000:.0f} ms (target <= 100), peak RSS {rss / 1024:.1f} MB (target <= 20)")
    if have_bpftrace:
        bt, brss = bpftrace_startup()
        print(f"bpftrace start to its 'Attaching' line {bt * 1000:.0f} ms, peak RSS {brss / 1024:.1f} MB")
    groups_bench()
    if os.path.exists(os.path.join(TOP, "bench/func-attach.sh")):
        sys.stdout.flush()
        subprocess.call([os.path.join(TOP, "bench/func-attach.sh")])


if __name__ == "__main__":
    main()

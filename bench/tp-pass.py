#!/usr/bin/env python3
"""What letting a tracepoint's events through to perf costs (src/kernel/common.bpf.h):
added ns per getppid call of the floor's empty tracepoint programs returning
1 (perf sees the event) against 0 (perf does not), and of kdist pair on
syscalls:sys_enter/exit_getppid (tracepoint programs) built before and after
(KDIST_OLD), each with nobody else listening and with a system-wide
`perf stat -e` counting the same tracepoints beside.  Medians of
BENCH_ROUNDS interleaved rounds, the loop's own CPU time (bench.py)."""
import os, signal, statistics, subprocess, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench

OLD = os.environ.get("KDIST_OLD")
GET = ["syscalls:sys_enter_getppid", "syscalls:sys_exit_getppid"]
CFGS = {
    "none": None,
    "floor tracepoint, returns 0": (lambda p: [bench.FLOOR, "tpdrop"], b"attached", bench.FLOOR),
    "floor tracepoint, returns 1": (lambda p: [bench.FLOOR, "tp"], b"attached", bench.FLOOR),
    "kdist pair (tracepoint)": (lambda p: [bench.KDIST, "pair"] + GET + ["-p", str(p)],
                                b"Tracing", bench.KDIST),
}
if OLD:
    CFGS["kdist pair, before (returns 0)"] = (lambda p: [OLD, "pair"] + GET + ["-p", str(p)],
                                              b"Tracing", OLD)


def main():
    wl = [os.path.join(bench.WL, "getppid_loop"), str(bench.N)]
    runs = {(n, perf): [] for n in CFGS for perf in (False, True)}
    for _ in range(bench.ROUNDS):
        for perf in (False, True):
            p = None
            if perf:
                # the floor attaches raw_syscalls, kdist pair syscalls:*getppid
                p = subprocess.Popen(["perf", "stat", "-a", "-x,", "-e",
                                      "raw_syscalls:sys_enter,raw_syscalls:sys_exit," +
                                      ",".join(GET)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
                time.sleep(0.5)
            try:
                for n, c in CFGS.items():
                    runs[(n, perf)].append(bench.one_run(c, wl))
            finally:
                if p:
                    p.send_signal(signal.SIGINT)
                    p.wait()
    per = {k: statistics.median(float(r["out"][1]) for r in v) for k, v in runs.items()}
    print(f"getppid loop, {bench.N} calls, medians of {bench.ROUNDS} rounds "
          "(ns per call, added over no tracing):")
    print(f"  {'':34s} {'alone':>8s} {'perf stat -a beside':>20s}")
    for n in CFGS:
        a, b = per[(n, False)] - per[("none", False)], per[(n, True)] - per[("none", True)]
        print(f"  {n:34s} {a:8.1f} {b:20.1f}")


if __name__ == "__main__":
    main()

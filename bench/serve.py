#!/usr/bin/env python3
"""What kdist serve costs a host: bench/serve.py [LOADED_SECONDS [IDLE_SECONDS]].

kdist serve runs the runq, syscalls and bio recipes and is scraped once a
second, as Prometheus would, first on the idle machine, then under a load
that makes all three busy (two threads waking each other, a tight
getppid loop, O_DIRECT writes).  Per phase: kdist's own CPU time (user +
system, /proc/PID/stat) as a share of one CPU, its largest RSS, the time
its BPF programs ran (the kernel's BPF statistics, as kdist exports them)
as a share of all CPUs, and the scrape latency seen by the client.
Needs root; run it with the BPF lock held: flock /tmp/kdist-bpf.lock
bench/serve.py 600 60.
"""
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KDIST = os.path.join(TOP, "build", "kdist")
WL = os.path.join(TOP, "build", "tests")
PORT = int(os.environ.get("KDIST_BENCH_PORT", "19670"))
URL = "http://127.0.0.1:%d/metrics" % PORT
TICK = os.sysconf("SC_CLK_TCK")
NCPU = os.cpu_count()


def cpu_s(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TICK


def rss_kb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def scrape():
    t = time.monotonic()
    body = urllib.request.urlopen(URL, timeout=10).read().decode()
    return time.monotonic() - t, body


def total(body, name):
    return sum(float(m.group(1)) for m in re.finditer(r"^%s\{[^}]*\} (\S+)$" % name, body, re.M))


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def phase(kd, name, seconds):
    lat, rss = [], []
    _, b0 = scrape()
    c0, t0 = cpu_s(kd.pid), time.monotonic()
    end = t0 + seconds
    while time.monotonic() < end:
        tick = time.monotonic()
        dt, body = scrape()
        lat.append(dt)
        rss.append(rss_kb(kd.pid))
        time.sleep(max(0, 1 - (time.monotonic() - tick)))
    c1, t1 = cpu_s(kd.pid), time.monotonic()
    _, b1 = scrape()
    wall = t1 - t0
    bpf_s = total(b1, "kdist_bpf_run_seconds_total") - total(b0, "kdist_bpf_run_seconds_total")
    runs = total(b1, "kdist_bpf_runs_total") - total(b0, "kdist_bpf_runs_total")
    series = sum(1 for l in b1.splitlines() if l and not l.startswith("#"))
    print("%-7s %6.0f s  kdist CPU %6.3f%% of one CPU  RSS max %5.1f MB  "
          "BPF %6.3f%% of %d CPUs (%.0f runs/s, %.0f ns/run)  scrape p50 %.1f ms p99 %.1f ms  "
          "%d samples, %d kB" %
          (name, wall, 100 * (c1 - c0) / wall, max(rss) / 1024, 100 * bpf_s / wall / NCPU, NCPU,
           runs / wall, 1e9 * bpf_s / runs if runs else 0, 1e3 * pct(lat, 0.5),
           1e3 * pct(lat, 0.99), series, len(b1) // 1024), flush=True)


def main():
    loaded = float(sys.argv[1]) if len(sys.argv) > 1 else 600
    idle = float(sys.argv[2]) if len(sys.argv) > 2 else 60
    tmp = tempfile.mkdtemp(prefix="kdist-serve-bench.", dir="/var/tmp")
    err = open(os.path.join(tmp, "err"), "w+")
    kd = subprocess.Popen([KDIST, "serve", "--listen", "127.0.0.1:%d" % PORT, "--measure", "runq",
                           "--measure", "syscalls", "--measure", "bio"], stderr=err)
    loads = []
    try:
        for _ in range(200):
            err.seek(0)
            if "Serving" in err.read():
                break
            if kd.poll() is not None:
                sys.exit("kdist serve failed: " + open(err.name).read())
            time.sleep(0.1)
        phase(kd, "idle", idle)
        data = os.path.join(tmp, "data")
        loads = [
            subprocess.Popen([os.path.join(WL, "pingpong"), "1000000000"]),
            subprocess.Popen([os.path.join(WL, "getppid_loop"), "100000000000"],
                             stdout=subprocess.DEVNULL),
            subprocess.Popen(["sh", "-c", "while :; do dd if=/dev/zero of=%s bs=64k count=256 "
                              "oflag=direct status=none; done" % data]),
        ]
        phase(kd, "loaded", loaded)
    finally:
        for p in loads:
            p.kill()
            p.wait()
        kd.terminate()
        kd.wait()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# bpftool -j prog show | peer-misses.py PID: the recursion_misses of the
# BPF programs that process PID (bpftrace) holds, summed.  The programs are
# found by the process's descriptors (this bpftool does not list holders).
import glob
import json
import sys

held = set()
for path in glob.glob("/proc/%d/fdinfo/*" % int(sys.argv[1])):
    try:
        for line in open(path):
            if line.startswith("prog_id:"):
                held.add(int(line.split()[1]))
    except OSError:
        pass
print(sum(p.get("recursion_misses", 0) for p in json.load(sys.stdin) if p["id"] in held))

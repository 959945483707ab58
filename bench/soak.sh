#!/bin/bash
# make soak: kdist pair over every system call of a process-churning load,
# one JSON document a second, for SOAK_SECONDS (default 600), with a group
# table too small for the load (SOAK_MAX_GROUPS, default 64).  Checks:
#   - kdist's RSS, sampled every 10 s, grows by less than 1 MB after the
#     first minute (or third of a shorter run);
#   - the intervals add up: the per-second counts of a workload that makes
#     an exactly known number of system calls sum to that number;
#   - the overflowing group table is counted (group_table_full > 0);
#   - every interval was written, numbered 1..N.
# Reports kdist's CPU share (utime + stime over the run).  Needs root.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1
KDIST=${KDIST:-build/kdist}
SECS=${SOAK_SECONDS:-600}
MAX_GROUPS=${SOAK_MAX_GROUPS:-64}
SAMPLE=10
# the known workload: ROUNDS rounds of 100 ms, ending 5 s before the run
ROUNDS=$(((SECS > 10 ? SECS - 5 : SECS / 2 + 1) * 10))
PER_ROUND=2000
N=$((ROUNDS * PER_ROUND))
COMM=kdsoak_paced

n_pass=0 n_fail=0
check() {	# check NAME CONDITION-EXIT-STATUS DETAIL
	if [ "$2" = 0 ]; then n_pass=$((n_pass + 1)); echo "PASS $1: $3"
	else n_fail=$((n_fail + 1)); echo "FAIL $1: $3"; fi
}

if [ "$(id -u)" != 0 ]; then echo "soak needs root"; echo "0 passed, 1 failed"; exit 1; fi
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cg2" ] || { echo "soak needs a cgroup v2 mount"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d /tmp/kdist-soak.XXXXXX)
cg=$cg2/kdist-soak-$$
pids=()
cleanup() {
	touch "$tmp/stop"
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -d "$cg" ] && { echo 1 >"$cg/cgroup.kill" 2>/dev/null; sleep 0.2; rmdir "$cg"; }
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$cg" || { echo "failed to create cgroup $cg"; echo "0 passed, 1 failed"; exit 1; }

# The known workload, loaded and blocked in read(2) inside the cgroup before
# kdist attaches, so each of its calls from then on is known.
cp build/tests/paced "$tmp/$COMM"
mkfifo "$tmp/go" "$tmp/started"
bash -c 'echo $$ >"$1/cgroup.procs"; exec "$2" "$3" "$4" <"$5" >"$6"' _ \
	"$cg" "$tmp/$COMM" $N $ROUNDS "$tmp/go" "$tmp/started" &
paced=$!
pids+=($paced)
exec 7>"$tmp/go" 8<"$tmp/started"
# loaded and blocked in read(2) (its own pid and name, system call 0)
for _ in $(seq 200); do
	[ "$(cat /proc/$paced/comm)" = $COMM ] && [ "$(cut -d' ' -f1 /proc/$paced/syscall)" = 0 ] && break
	sleep 0.05
done

echo "kdist pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by comm,pid -i 1 --max-groups $MAX_GROUPS" \
	"--cgroup $cg, $SECS s; known workload: $N getppid in $ROUNDS rounds"
"$KDIST" pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by comm,pid -i 1 \
	--max-groups "$MAX_GROUPS" --cgroup "$cg" -o json >"$tmp/out.json" 2>"$tmp/err" &
kd=$!
pids+=($kd)
for _ in $(seq 300); do grep -q '^Tracing' "$tmp/err" && break; sleep 0.1; done
grep -q '^Tracing' "$tmp/err" || { cat "$tmp/err"; echo "0 passed, 1 failed"; exit 1; }
t0=$(date +%s%N)

# start the known workload; the churn only once it has its group
echo >&7
read -r -n 1 -u 8 _
(
	echo $BASHPID >"$cg/cgroup.procs"
	n=0
	while [ ! -e "$tmp/stop" ]; do /bin/true; n=$((n + 1)); done
	echo $n >"$tmp/churned"
) &
pids+=($!)

printf '%8s %10s\n' "t (s)" "RSS (kB)" | tee "$tmp/rss"
elapsed=0
while [ $elapsed -lt "$SECS" ]; do
	printf '%8d %10d\n' $elapsed "$(awk '/^VmRSS/ {print $2}' /proc/$kd/status)" | tee -a "$tmp/rss"
	sleep $SAMPLE
	elapsed=$((($(date +%s%N) - t0) / 1000000000))
done
# the known workload ends about 5 s before SECS; on a slow machine, later
wait $paced
paced_rc=$?
printf '%8d %10d\n' $elapsed "$(awk '/^VmRSS/ {print $2}' /proc/$kd/status)" | tee -a "$tmp/rss"
read -r -a st <<<"$(sed 's/.*) //' /proc/$kd/stat)"
t1=$(date +%s%N)
cpu_ticks=$((st[11] + st[12]))	# utime, stime: fields 14 and 15
touch "$tmp/stop"
for _ in $(seq 100); do [ -e "$tmp/churned" ] && break; sleep 0.1; done
kill -INT $kd
wait $kd
kd_rc=$?

echo
hz=$(getconf CLK_TCK)
share=$(python3 -c "print(f'{100 * $cpu_ticks / $hz / (($t1 - $t0) / 1e9):.1f}')")
echo "kdist CPU: $((cpu_ticks * 1000 / hz)) ms over $(((t1 - t0) / 1000000)) ms: $share% of one CPU"
echo "churn: $(cat "$tmp/churned" 2>/dev/null || echo '?') processes started"

check exit "$kd_rc" "kdist exit $kd_rc$( [ "$kd_rc" = 0 ] || echo ": $(tail -2 "$tmp/err")")"
check workload "$paced_rc" "known workload exit $paced_rc"

# RSS: baseline at the first sample at or after the first minute (a third
# of a shorter run), growth after it < 1 MB
read -r base_t base peak growth <<<"$(awk -v b=$((SECS < 180 ? SECS / 3 : 60)) '
	NR > 1 && $1 >= b && !seen { seen = 1; t = $1; base = $2; peak = $2 }
	NR > 1 && seen && $2 > peak { peak = $2 }
	END { print t + 0, base + 0, peak + 0, peak - base }' "$tmp/rss")"
[ "$growth" -lt 1024 ]; check rss $? "RSS ${base} kB at ${base_t} s, peak after ${peak} kB: +${growth} kB (bound 1024)"

python3 - "$tmp/out.json" "$COMM" $((N + ROUNDS + 1)) >"$tmp/py" <<'PY'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
comm, want = sys.argv[2], int(sys.argv[3])
got = sum(g["count"] for d in docs for g in d["groups"] if g["by"]["comm"] == comm)
full = sum(d["drops"].get("group_table_full", 0) for d in docs)
counted = sum(g["count"] for d in docs for g in d["groups"])
numbered = [d["interval"] for d in docs] == list(range(1, len(docs) + 1))
print(len(docs), got, want, full, counted, int(numbered))
PY
read -r ndocs got want full counted numbered <"$tmp/py"
[ "${got:-x}" = "$want" ]; check intervals_add_up $? "known workload: $got system calls over $ndocs intervals, exactly $want made"
[ "${full:-0}" -gt 0 ]; check overflow_counted $? "group_table_full $full (kept $counted system calls in $MAX_GROUPS groups)"
[ "${numbered:-0}" = 1 ] && [ "$ndocs" -ge "$SECS" ]; check intervals $? "$ndocs intervals numbered 1..$ndocs for a run of $(((t1 - t0) / 1000000000)) s"

echo "$n_pass passed, $n_fail failed"
[ $n_fail = 0 ]

# Containers: the cgroup trees that docker, containerd, CRI-O, podman, the
# kubelet and systemd make, built here under a cgroup v2 root of the
# test's own, each with a workload of known getppid calls moved in; a
# real podman run; live cgroup sets that grow during the run.
# shellcheck shell=bash

CT_ID1=4f1c2e3d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d
CT_ID2=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
CT_ID3=c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3
CT_ID4=d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4
CT_ID5=e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5
CT_ID6=f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6f6
CT_UID1=7f6c1c2e-3b4a-4c5d-9e8f-0a1b2c3d4e5f
CT_UID2=8a8a8a8a-1111-2222-3333-444444444444
CT_UID3=9b9b9b9b-5555-6666-7777-888888888888

# The cgroup v2 mount (a hybrid layout mounts it at /sys/fs/cgroup/unified).
ct_mount() {
	awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts
}

# ct_root: a cgroup v2 directory of this run's own, removed by ct_cleanup.
ct_root() {
	CT_MNT=$(ct_mount)
	[ -n "$CT_MNT" ] || return 1
	CT_REL=/kdtest-$$
	CT_ROOT=$CT_MNT$CT_REL
	mkdir -p "$CT_ROOT"
}

# ct_cleanup: every cgroup below the test's root, deepest first (a cgroup
# goes once its processes have).
ct_cleanup() {
	[ -n "${CT_ROOT:-}" ] && [ -d "$CT_ROOT" ] || return 0
	find "$CT_ROOT" -depth -type d -exec rmdir {} + 2>/dev/null
	rmdir "$CT_ROOT" 2>/dev/null
	if [ -n "${CT_PODS_MADE:-}" ]; then
		rm -rf "$CT_PODS_MADE"
		[ "$CT_PODS_MADE" = /var/log/pods ] || rmdir /var/log/pods 2>/dev/null
	fi
	CT_PODS_MADE=
}

# ct_run REL N: N getppid calls by a process that first moves itself into
# the cgroup REL (below the test root, made if missing), then execs.
ct_run() {
	ct_exec "$1" "$WL/getppid_loop" "$2"
}

# ct_exec REL CMD...: CMD run in the cgroup REL (made if missing).
ct_exec() {
	local rel=$1
	shift
	mkdir -p "$CT_ROOT/$rel"
	(echo $BASHPID >"$CT_ROOT/$rel/cgroup.procs" && exec "$@" >/dev/null)
}

# ct_pod_dir NS NAME UID: the kubelet's log directory of a pod.  Made in
# /var/log/pods itself (where kdist reads), removed by ct_cleanup.
ct_pod_dir() {
	if [ ! -d /var/log/pods ]; then
		mkdir -p /var/log/pods && CT_PODS_MADE=/var/log/pods
	fi
	mkdir "/var/log/pods/$1_$2_$3"
	[ "${CT_PODS_MADE:-}" = /var/log/pods ] || CT_PODS_MADE="/var/log/pods/$1_$2_$3"
}

# ct_groups FILE: "LABELS COUNT" per group of a JSON measurement, its key
# values joined by '|'.
ct_groups() {
	python3 -c '
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "replace"))
for g in d["groups"]:
    print("|".join(str(g["by"][k]) for k in d["by"]), g["count"])' "$1"
}

# ct_count FILE LABELS: the count of the group whose labels are LABELS, or 0.
ct_count() {
	ct_groups "$1" | awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }'
}

# ct_measure NAME RUN ARGS...: kdist pairs getppid calls with ARGS (JSON to
# $TMP/NAME.json, stderr to $TMP/NAME.err) while the function RUN runs,
# given kdist's pid; 1 after failing the test when kdist fails.
ct_measure() {
	local name=$1 run=$2 pid
	shift 2
	"$KDIST" pair syscalls:sys_enter_getppid syscalls:sys_exit_getppid "$@" -o json \
		>"$TMP/$name.json" 2>"$TMP/$name.err" &
	pid=$!
	if ! wait_tracing "$TMP/$name.err"; then
		fail "kdist did not start: $(cat "$TMP/$name.err")"
		kill $pid 2>/dev/null
		ct_cleanup
		return 1
	fi
	"$run" $pid
	kill -INT $pid
	wait $pid || { fail "kdist exited $?: $(cat "$TMP/$name.err")"; ct_cleanup; return 1; }
}

# ct_around OUT RUN KDIST-ARGS...: kdist with KDIST-ARGS (its output to
# OUT, stderr to OUT.err) while the function RUN runs, then Ctrl-C; 1
# after failing the test (and cleaning up) when kdist fails.
ct_around() {
	local out=$1 run=$2 pid
	shift 2
	"$KDIST" "$@" >"$out" 2>"$out.err" &
	pid=$!
	if ! wait_tracing "$out.err"; then
		fail "kdist $1 did not start: $(cat "$out.err")"
		kill $pid 2>/dev/null
		ct_cleanup
		return 1
	fi
	"$run"
	kill -INT $pid
	wait $pid || { fail "kdist $1 exited $?: $(tail -3 "$out.err")"; ct_cleanup; return 1; }
}

ct_trees() {
	# docker, systemd driver; a second cgroup of the same container below
	# its scope (its own init.scope): one container, one group
	ct_run "system.slice/docker-$CT_ID1.scope" 1001
	ct_run "system.slice/docker-$CT_ID1.scope/init.scope" 1009
	# docker, cgroupfs driver
	ct_run "docker/$CT_ID2" 1002
	# containerd (CRI), kubelet's systemd driver, a burstable pod with a
	# kubelet log directory: pod name and namespace
	ct_run "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${CT_UID1//-/_}.slice/cri-containerd-$CT_ID3.scope" 1003
	# CRI-O, besteffort pod without one: the UID names the pod
	ct_run "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${CT_UID2//-/_}.slice/crio-$CT_ID4.scope" 1004
	# kubelet's cgroupfs driver
	ct_run "kubepods/burstable/pod$CT_UID3/$CT_ID5" 1005
	# podman, cgroupfs manager
	ct_run "libpod_parent/libpod-$CT_ID6" 1006
	# a systemd service and a user session
	ct_run "system.slice/kdtest.service" 1007
	ct_run "user.slice/user-1000.slice/session-9.scope" 1008
}

test_container_labels_of_runtime_trees() {
	local out=$TMP/ct.json want got msg="" k
	ct_root || { skip "no cgroup v2 mounted"; return; }
	ct_pod_dir kdtest web-0 "$CT_UID1"
	ct_measure ct ct_trees --by container,pod,namespace,unit --cgroup "$CT_REL" -v || return
	ct_cleanup
	declare -A want=(
		["$CT_ID1|-|-|docker-$CT_ID1.scope"]=1001
		["$CT_ID1|-|-|init.scope"]=1009
		["$CT_ID2|-|-|-"]=1002
		["$CT_ID3|web-0|kdtest|cri-containerd-$CT_ID3.scope"]=1003
		["$CT_ID4|$CT_UID2|-|crio-$CT_ID4.scope"]=1004
		["$CT_ID5|$CT_UID3|-|-"]=1005
		["$CT_ID6|-|-|-"]=1006
		["-|-|-|kdtest.service"]=1007
		["-|-|-|session-9.scope"]=1008
	)
	for k in "${!want[@]}"; do
		got=$(ct_count "$out" "$k")
		exact "$got" "${want[$k]}" "$out" || msg+="$k: $got, expected ${want[$k]}; "
	done
	[ "$(ct_groups "$out" | wc -l)" = ${#want[@]} ] ||
		msg+="groups: $(ct_groups "$out" | tr '\n' ';') "
	grep -q 'cgroup names: .* lookups, .* misses' "$TMP/ct.err" || msg+="no cache line with -v; "
	# 9 groups named 4 ways, every cgroup seen by the watcher: no misses
	[ "$(json "$out" "[d['cgroup_names'][k] >= v for k, v in (('lookups', 36), ('misses', 0), ('cached', 13))] + [d['cgroup_names']['misses']]")" = "[True, True, True, 0]" ] ||
		msg+="cgroup_names: $(json "$out" "d.get('cgroup_names')"); "
	[ -z "$msg" ] || { fail "$msg"; return; }
	pass "9 cgroups of 7 layouts, each group's labels and exact count"
}

ct_one_container() {
	ct_run "system.slice/docker-$CT_ID1.scope" 1001
	ct_run "system.slice/docker-$CT_ID1.scope/init.scope" 1009
	ct_run "docker/$CT_ID2" 1002
}

test_container_one_group_per_container() {
	local out=$TMP/ct1.json got
	ct_root || { skip "no cgroup v2 mounted"; return; }
	ct_measure ct1 ct_one_container --by container --cgroup "$CT_REL" || return
	ct_cleanup
	got=$(ct_count "$out" "$CT_ID1")
	exact "$got" 2010 "$out" || { fail "container $CT_ID1: $got, expected 1001 + 1009 in one group"; return; }
	got=$(ct_count "$out" "$CT_ID2")
	exact "$got" 1002 "$out" || { fail "container $CT_ID2: $got, expected 1002"; return; }
	pass "two cgroups of one container are one group of 2010"
}

test_container_if_terms() {
	local out=$TMP/cti.json got msg=""
	ct_root || { skip "no cgroup v2 mounted"; return; }
	ct_pod_dir kdtest web-0 "$CT_UID1"
	# no --cgroup: the terms alone select the cgroups, anywhere
	ct_measure cti ct_trees --by container,pod \
		--if "namespace == 'kdtest' && pod == 'web-*' && container != '$CT_ID4'" || return
	ct_cleanup
	got=$(ct_count "$out" "$CT_ID3|web-0")
	exact "$got" 1003 "$out" || msg+="web-0: $got, expected 1003; "
	[ "$(ct_groups "$out" | wc -l)" = 1 ] || msg+="groups: $(ct_groups "$out" | tr '\n' ';')"
	[ -z "$msg" ] || { fail "$msg"; return; }
	pass "--if on namespace, pod (a glob) and container: the one pod's 1003 calls alone"
}

test_container_serve_labels() {
	local port=$((22000 + $$ % 20000)) err=$TMP/cts.err pid got
	ct_root || { skip "no cgroup v2 mounted"; return; }
	ct_pod_dir kdtest web-0 "$CT_UID1"
	"$KDIST" serve --listen 127.0.0.1:$port --measure "name=ct: pair syscalls:sys_enter_getppid \
syscalls:sys_exit_getppid --by container,pod,namespace --cgroup $CT_REL" 2>"$err" &
	pid=$!
	wait_word Serving "$err" $pid
	grep -q '^Serving' "$err" || { fail "serve did not start: $(cat "$err")"; kill $pid 2>/dev/null; ct_cleanup; return; }
	ct_run "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${CT_UID1//-/_}.slice/cri-containerd-$CT_ID3.scope" 1003
	curl -s --max-time 5 "http://127.0.0.1:$port/metrics" >"$TMP/cts.txt"
	kill -TERM $pid
	wait $pid
	ct_cleanup
	got=$(grep '_count{' "$TMP/cts.txt" | grep "container=\"$CT_ID3\"" |
		grep 'pod="web-0"' | grep 'namespace="kdtest"' | awk '{ print $2 }')
	[ "$got" = 1003 ] || { fail "serve: '$got' for the pod's series: $(grep _count "$TMP/cts.txt")"; return; }
	pass "serve: container, pod and namespace labels, count 1003"
}

ct_podman() {
	# runc (crun refuses the hybrid cgroup layout), cgroupfs, rlimits the
	# sandbox allows; --rm: the cgroup is gone before kdist reads
	podman --runtime runc run --rm --cidfile "$TMP/cid" --cgroup-manager=cgroupfs \
		--ulimit nofile=1024:1024 --ulimit nproc=1000:1000 --network none \
		localhost/kdist-getppid:test /getppid 20000 >/dev/null 2>"$TMP/podman.err"
	CT_PODMAN_RC=$?
}

test_container_podman_run() {
	local out=$TMP/ctp.json id got img=localhost/kdist-getppid:test
	command -v podman >/dev/null && command -v runc >/dev/null ||
		{ skip "no podman or runc (scripts/deps.sh installs them)"; return; }
	mkdir -p "$TMP/img" && cp "$WL/getppid_static" "$TMP/img/getppid" &&
		tar -C "$TMP/img" -cf "$TMP/img.tar" getppid &&
		podman import "$TMP/img.tar" $img >/dev/null 2>"$TMP/import.err" ||
		{ fail "podman import: $(cat "$TMP/import.err")"; return; }
	ct_measure ctp ct_podman --by container,comm || { podman rmi $img >/dev/null 2>&1; return; }
	local rc=$CT_PODMAN_RC
	podman rmi $img >/dev/null 2>&1
	[ $rc = 0 ] || { skip "podman run failed here ($rc): $(tail -1 "$TMP/podman.err")"; return; }
	id=$(cat "$TMP/cid")
	got=$(ct_count "$out" "$id|getppid")
	exact "$got" 20000 "$out" ||
		{ fail "container $id: $got getppid, expected 20000: $(ct_groups "$out" | grep -v '^-|')"; return; }
	pass "podman run: container $id, 20000 getppid"
}

# Live sets.  A cgroup made below a member joins the set in the kernel at
# mkdir: a workload moved in at once is counted from its first call.  A
# cgroup a glob matches anew is added by kdist's watcher, which says so
# with -v: the workload moves in after that line.
ct_live() {
	local k
	# below a member: no wait
	ct_run pods/p1 1101
	ct_run pods/p2/inner 1102
	# matched by the glob, made now: after the watcher's line
	for k in c1 c2; do
		mkdir "$CT_ROOT/live/$k"
		for _ in $(seq 100); do grep -q "cgroup set: + $CT_REL/live/$k " "$TMP/ctl.err" && break; sleep 0.05; done
	done
	ct_run live/c1 1103
	ct_run live/c2 1104
	ct_run live/c2/deeper 1105
	# neither
	ct_run live/x1 1106
	ct_run other 1107
}

test_cgroup_live_set() {
	local out=$TMP/ctl.json msg="" got id k
	ct_root || { skip "no cgroup v2 mounted"; return; }
	mkdir -p "$CT_ROOT/pods" "$CT_ROOT/live" "$CT_ROOT/other"
	ct_measure ctl ct_live --by cgroup --cgroup "$CT_REL/pods,$CT_REL/live/c*" -v || return
	declare -A want=([pods/p1]=1101 [pods/p2/inner]=1102 [live/c1]=1103 [live/c2]=1104
			 [live/c2/deeper]=1105)
	for k in "${!want[@]}"; do
		id=$(stat -c %i "$CT_ROOT/$k")
		got=$(ct_count "$out" "$id")
		exact "$got" "${want[$k]}" "$out" || msg+="$k: $got, expected ${want[$k]}; "
	done
	ct_cleanup
	[ "$(ct_groups "$out" | wc -l)" = ${#want[@]} ] ||
		msg+="groups: $(ct_groups "$out" | tr '\n' ';') (live/x1 and other are not in the set)"
	[ -z "$msg" ] || { fail "$msg"; return; }
	pass "5 cgroups made during the run, each counted exactly; 2 outside the set not at all"
}

test_cgroup_bad_input() {
	local out rc msg=""
	out=$("$KDIST" pair syscalls:sys_enter_getppid syscalls:sys_exit_getppid \
		--cgroup /kdtest-none-$$ -d 1 2>&1)
	rc=$?
	[ $rc = 2 ] && grep -q "bad --cgroup '/kdtest-none-$$': No such file" <<<"$out" ||
		msg+="missing path: rc $rc '$out'; "
	out=$("$KDIST" pair syscalls:sys_enter_getppid syscalls:sys_exit_getppid \
		--if "container < 'x'" -d 1 2>&1)
	rc=$?
	[ $rc = 2 ] && grep -q "bad --if" <<<"$out" || msg+="container <: rc $rc '$out'; "
	out=$("$KDIST" pair syscalls:sys_enter_getppid syscalls:sys_exit_getppid \
		--by container:hex -d 1 2>&1)
	rc=$?
	[ $rc = 2 ] && grep -q "bad --by 'container:hex'" <<<"$out" || msg+="container:hex: rc $rc '$out'; "
	[ -z "$msg" ] || { fail "$msg"; return; }
	pass "a missing --cgroup path, an order on a container, a formatter on container: exit 2"
}

# kdist stopped (SIGSTOP: its watcher cannot run) while cgroups are made
# below a member and workloads run in them: the kernel added them at mkdir,
# so every call is counted; one a glob matches anew waits for the watcher
# and is not (the window docs/pair.md states).
ct_stopped() {
	kill -STOP $1
	ct_run pods/p1 1201
	ct_run pods/p2/inner 1202
	ct_run live/c1 1203
	kill -CONT $1
}

test_cgroup_live_set_in_kernel() {
	local out=$TMP/ctk.json msg="" got
	ct_root || { skip "no cgroup v2 mounted"; return; }
	mkdir -p "$CT_ROOT/pods" "$CT_ROOT/live"
	ct_measure ctk ct_stopped --by cgroup --cgroup "$CT_REL/pods,$CT_REL/live/c*" || return
	got=$(ct_count "$out" "$(stat -c %i "$CT_ROOT/pods/p1")")
	exact "$got" 1201 "$out" || msg+="pods/p1: $got, expected 1201; "
	got=$(ct_count "$out" "$(stat -c %i "$CT_ROOT/pods/p2/inner")")
	exact "$got" 1202 "$out" || msg+="pods/p2/inner: $got, expected 1202; "
	got=$(ct_count "$out" "$(stat -c %i "$CT_ROOT/live/c1")")
	[ "$got" = 0 ] || msg+="live/c1: $got while kdist was stopped, expected 0; "
	ct_cleanup
	[ -z "$msg" ] || { fail "$msg"; return; }
	pass "kdist stopped: 1201 and 1202 calls below a member counted (added at mkdir), a new glob match not"
}

# serve with --cgroup, reloaded 5 times with a new measurement each time:
# the removed measurements' cgroup sets (a map each) go with them.
test_cgroup_set_serve_reload() {
	local port=$((24000 + $$ % 20000)) conf=$TMP/ctr.conf err=$TMP/ctr.err pid n i
	ct_root || { skip "no cgroup v2 mounted"; return; }
	echo "name=r0: pair syscalls:sys_enter_getppid syscalls:sys_exit_getppid --cgroup $CT_REL" >"$conf"
	"$KDIST" serve --listen 127.0.0.1:$port --config "$conf" -v 2>"$err" &
	pid=$!
	wait_word Serving "$err" $pid
	for i in 1 2 3 4 5; do
		echo "name=r$i: pair syscalls:sys_enter_getppid syscalls:sys_exit_getppid --cgroup $CT_REL" >"$conf"
		kill -HUP $pid
		# "Reloaded" is said once the removed measurement is gone
		for _ in $(seq 100); do [ "$(grep -c '^Reloaded' "$err")" = $i ] && break; sleep 0.1; done
	done
	n=$(bpftool map list -j | python3 -c '
import json, os, sys
ids = {m["id"] for m in json.load(sys.stdin) if m.get("name") == "cgroup_set"}
held = set()
for f in os.listdir("/proc/%s/fdinfo" % sys.argv[1]):
    for l in open("/proc/%s/fdinfo/%s" % (sys.argv[1], f)):
        if l.startswith("map_id:"):
            held.add(int(l.split()[1]))
print(len(ids & held))' $pid)
	kill -TERM $pid
	wait $pid
	ct_cleanup
	grep -q "measurement 'r5' attached" "$err" || { fail "reload: $(cat "$err")"; return; }
	[ "$n" = 1 ] || { fail "$n cgroup set maps held after 5 reloads, expected 1"; return; }
	pass "5 reloads: 1 cgroup set map held"
}

# func --by container,unit: calltree's middle() (2 calls per iteration) in
# two containers' cgroups, 3 and 2 iterations, and once outside --cgroup.
ct_calltrees() {
	ct_exec "system.slice/docker-$CT_ID1.scope" "$WL/calltree" 3
	ct_exec "kubepods/burstable/pod$CT_UID3/$CT_ID5" "$WL/calltree" 2
	"$WL/calltree" 1 >/dev/null
}

test_container_func_by_container() {
	local out=$TMP/ctf.json msg="" got
	ct_root || { skip "no cgroup v2 mounted"; return; }
	ct_around "$out" ct_calltrees func "u:$WL/calltree:middle" --by container,unit --cgroup "$CT_REL" \
		-o json || return
	ct_cleanup
	got=$(ct_count "$out" "calltree:middle|$CT_ID1|docker-$CT_ID1.scope")
	exact "$got" 6 "$out" || msg+="docker container: $got calls, expected 6; "
	got=$(ct_count "$out" "calltree:middle|$CT_ID5|-")
	exact "$got" 4 "$out" || msg+="pod container: $got calls, expected 4; "
	[ "$(ct_groups "$out" | wc -l)" = 2 ] || msg+="groups: $(ct_groups "$out" | tr '\n' ';'); "
	[ -z "$msg" ] || { fail "$msg"; return; }
	pass "func --by container,unit: middle() 6 calls in the docker container, 4 in the pod's, none else"
}

# trace --fields container,unit,cgroup over two containers' getppid calls,
# 3 and 2, and --if selecting the first: 3 lines, each naming it.
ct_getppids() {
	ct_run "system.slice/docker-$CT_ID1.scope" 3
	ct_run "docker/$CT_ID2" 2
}

test_container_trace_fields() {
	local out=$TMP/ctt.json msg rel="system.slice/docker-$CT_ID1.scope"
	ct_root || { skip "no cgroup v2 mounted"; return; }
	ct_around "$out" ct_getppids trace syscalls:sys_exit_getppid --fields ret,container,unit,cgroup \
		--if "container == '${CT_ID1:0:8}*'" -o json || return
	msg=$(python3 - "$out" "$CT_ID1" "$rel" "$(stat -c %i "$CT_ROOT/$rel")" 2>&1 <<-'PY'
	import json, sys
	docs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
	ev = [x for x in docs if x.get("event") == "syscalls:sys_exit_getppid"]
	want = {"container": sys.argv[2], "unit": sys.argv[3].split("/")[-1], "cgroup": int(sys.argv[4])}
	bad = [e for e in ev if any(e.get(k) != v for k, v in want.items())]
	print("ok" if len(ev) == 3 and not bad else
	      "%d events, expected 3; not naming the container: %s" % (len(ev), bad[:1]))
	PY
	)
	ct_cleanup
	[ "$msg" = ok ] || { fail "$msg: $(head -c 600 "$out")"; return; }
	pass "trace --fields container,unit,cgroup --if container: the 3 calls of the one container, each named"
}

# offcpu --by container,comm,kstack: 10 sleeps of 10 ms in each of two
# containers' cgroups; each container's time under nanosleep at least
# 100 ms and no longer than the workload's own timing of the sleeps.
ct_sleepers() {
	KDIST_WL_TIMES=$TMP/cta.times ct_exec "system.slice/docker-$CT_ID1.scope" "$WL/sleeper" 10 10
	KDIST_WL_TIMES=$TMP/ctb.times ct_exec "docker/$CT_ID2" "$WL/sleeper" 10 10
}

test_container_offcpu_by_container() {
	local out=$TMP/cto.folded msg="" id t got unseen max
	ct_root || { skip "no cgroup v2 mounted"; return; }
	ct_around "$out" ct_sleepers offcpu -v --by container,comm,kstack --cgroup "$CT_REL" -o folded ||
		return
	ct_cleanup
	# each block under nanosleep lies inside one call the workload timed
	# (one whose end the kernel did not report may add an interrupt's time,
	# as in tests/matrix.sh)
	unseen=$(sed -n 's/.*switch_in_unseen \([0-9]*\).*/\1/p' "$out.err" | tail -1)
	for id in $CT_ID1 $CT_ID2; do
		t=$TMP/ctb.times
		[ $id = $CT_ID1 ] && t=$TMP/cta.times
		max=$(( $(wl_times "$t" nanosleep 'sum(v)') + ${unseen:-0} * 100000 ))
		got=$(folded_sum "$out" "^$id;sleeper;.*nanosleep")
		[ "$got" -ge 100000000 ] && [ "$got" -le "$max" ] ||
			msg+="${id:0:8}: $got ns of sleeper under nanosleep, expected 1e8..$max; "
	done
	got=$(cut -d';' -f1 "$out" | sort -u | tr '\n' ' ')
	[ "$got" = "$(printf '%s\n' "$CT_ID1" "$CT_ID2" | sort | tr '\n' ' ')" ] || msg+="containers: $got; "
	[ -z "$msg" ] || { fail "$msg"; return; }
	pass "offcpu --by container: each container's 10 sleeps of 10 ms under its id, within its own timing"
}

# profile --by container,comm: 300 ms of CPU in one container's cgroup are
# sampled under its id; a sleeper in another adds no other label.
ct_busy() {
	ct_exec "system.slice/docker-$CT_ID1.scope" "$WL/wideloop" 300
	ct_exec "docker/$CT_ID2" "$WL/sleeper" 5 10
}

test_container_profile_by_container() {
	local out=$TMP/ctp.json got
	ct_root || { skip "no cgroup v2 mounted"; return; }
	ct_around "$out" ct_busy profile --by container,comm --cgroup "$CT_REL" -o json || return
	ct_cleanup
	got=$(json "$out" "(sum(g['count'] for g in d['groups'] if g['by'] == {'container': '$CT_ID1', 'comm': 'wideloop'}), sorted({g['by']['container'] for g in d['groups']} - {'$CT_ID1', '$CT_ID2'}))")
	[[ $got == "("*", [])" ]] && [ "$(cut -d, -f1 <<<"${got#(}")" -ge 10 ] ||
		{ fail "wideloop's samples and other containers: $got, expected >= 10 and []"; return; }
	pass "profile --by container: wideloop's samples under its container, no other label ($got)"
}

# wakeup --by container,comm,waker_comm: waker 30 10 in a container, its
# wakee 30 x 10 ms or more off CPU (the waker's sleeps never end early),
# within its life, under the container's id; nothing under another.
ct_waker() {
	KDIST_WL_TIMES=$TMP/ctw.times ct_exec "system.slice/docker-$CT_ID1.scope" "$WL/waker" 30 10
}

test_container_wakeup_by_container() {
	local out=$TMP/ctw.folded got life
	ct_root || { skip "no cgroup v2 mounted"; return; }
	ct_around "$out" ct_waker wakeup --by container,comm,waker_comm --cgroup "$CT_REL" -o folded || return
	ct_cleanup
	got=$(folded_sum "$out" "^$CT_ID1;wakee;waker$")
	life=$(wl_times "$TMP/ctw.times" wakee 'sum(v)')
	[ "$got" -ge 300000000 ] && [ "$got" -le "$life" ] ||
		{ fail "$got ns of the wakee woken by waker under $CT_ID1, expected 3e8..$life: $(head -3 "$out")"; return; }
	[ "$(folded_sum "$out" "^$CT_ID1;")" = "$(folded_sum "$out" .)" ] ||
		{ fail "paths outside the container: $(grep -v "^$CT_ID1;" "$out" | head -3)"; return; }
	pass "wakeup --by container: $got ns of wakee woken by waker under $CT_ID1 (3e8..$life)"
}

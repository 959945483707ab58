# kdist serve: measurements scraped by a real Prometheus, the HTTP server
# under abuse, reload, and nothing left attached after it stops.
# shellcheck shell=bash

source "$(dirname "${BASH_SOURCE[0]}")/serve_lib.sh"

# metric TEXT_FILE SAMPLE: the value of one sample line (name{labels}), or none
metric() {
	awk -v s="$2" '$1 == s { print $2; found = 1 } END { if (!found) print "none" }' "$1"
}

# prog_ids PID: the BPF programs the process holds, sorted
prog_ids() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ {print $2}' | sort -u | tr '\n' ' '
}

# wait_metrics REGEX [absent]: until a scrape has (or lacks) a line (10 s)
wait_metrics() {
	for _ in $(seq 100); do
		if curl -s "$SERVE_URL/metrics" | grep -q "$1"; then
			[ -z "${2:-}" ] && return 0
		else
			[ -n "${2:-}" ] && return 0
		fi
		sleep 0.1
	done
	return 1
}

# scrapes N: N sequential scrapes of /metrics, one connection each
scrapes() {
	python3 - "$SERVE_PORT" "$1" <<-'EOF'
	import http.client, sys
	for _ in range(int(sys.argv[2])):
	    c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
	    c.request("GET", "/metrics"); c.getresponse().read(); c.close()
	EOF
}

test_serve_bad_specs() {
	local spec out n
	for spec in 'nosuch' 'name=x: pair raw_syscalls:sys_enter' 'profile' 'name=lost: runq' \
		'runq -c true' 'name=a buckets=1,0.5: runq' 'runq --bogus' "runq 'open"; do
		out=$("$KDIST" serve --listen 127.0.0.1:$SERVE_PORT --measure 'name=ok: runq' \
			--measure "$spec" 2>&1)
		[ $? != 0 ] || { fail "'$spec' accepted"; return; }
		n=$(grep -c . <<<"$out")
		[ "$n" = 1 ] || { fail "'$spec': $n lines: $out"; return; }
		grep -q "^kdist: .*measurement '" <<<"$out" || { fail "'$spec' not named: $out"; return; }
	done
	printf 'runq\n# a comment\nname=runq: syscalls\n' >"$TMP/dup.conf"
	out=$("$KDIST" serve --config "$TMP/dup.conf" 2>&1)
	[ $? != 0 ] && grep -q "^kdist: $TMP/dup.conf:3: measurement 'runq': bad name: line 1 has it too" <<<"$out" ||
		{ fail "duplicate names: $out"; return; }
	out=$("$KDIST" serve 2>&1)
	[ $? != 0 ] && grep -q "no measurement" <<<"$out" || { fail "no measurement: $out"; return; }
	[ "$(bpf_leftovers)" = 0 ] || { fail "programs left after bad specs"; return; }
	pass "8 bad specs, a duplicate name, none: one line each naming it, nothing left"
}

# A mistake in --config: one line that begins with FILE:LINE (the line
# counted with comments and blank lines), exit 2, nothing loaded.
test_serve_config_error_file_line() {
	local conf=$TMP/bad.conf out want
	while IFS='|' read -r text want; do
		printf "$text" >"$conf"
		out=$("$KDIST" serve --listen 127.0.0.1:$SERVE_PORT --config "$conf" 2>&1)
		[ $? = 2 ] || { fail "'$text': exit $?: $out"; return; }
		[ "$(grep -c . <<<"$out")" = 1 ] && grep -q "^kdist: $conf:$want" <<<"$out" ||
			{ fail "'$text': expected 'kdist: $conf:$want', got: $out"; return; }
	done <<-'EOF'
	# comment\n\nrunq\nname=a: runq --bogus\n|4: measurement 'a': unknown option '--bogus'
	runq\n\nname=runq: syscalls\n|3: measurement 'runq': bad name: line 1 has it too
	runq\npair nosuch:ev raw_syscalls:sys_exit\n|2: measurement 'pair': unknown event 'nosuch:ev'
	runq\nsyscalls "x\n|2: bad measurement 'syscalls "x': unterminated "
	runq\nru\0nq\n|2: bad configuration: a NUL byte at column 3
	runq   # one\n  name=x:  \n|2: bad measurement 'name=x:': no command
	runq\nsyscalls -d 2|2: measurement 'syscalls': bad options: -c, --, -d, -i
	runq\nsyscalls --slower-than 1ms|2: measurement 'syscalls': bad options: --slower-than prints events
	EOF
	[ "$(bpf_leftovers)" = 0 ] || { fail "programs left after bad configs"; return; }
	pass "8 bad configurations, each one line at its file and line, exit 2"
}

test_serve_prometheus() {
	local comm=kdsl$$ n=40 ms=10 t0 t1 before after q med lo hi out
	command -v prometheus >/dev/null || { skip "no prometheus (scripts/deps.sh installs it)"; return; }
	cp "$WL/sleeper" "$TMP/$comm"
	serve_start --measure "name=sc: syscalls --comm $comm" --measure runq || { fail "start"; return; }
	mkdir -p "$TMP/prom"
	cat >"$TMP/prom.yml" <<-EOF
	global: { scrape_interval: 1s, evaluation_interval: 1s }
	scrape_configs:
	  - job_name: kdist
	    static_configs: [ { targets: ['127.0.0.1:$SERVE_PORT'] } ]
	EOF
	prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/prom" \
		--web.listen-address=127.0.0.1:$PROM_PORT --log.level=warn >"$TMP/prom.log" 2>&1 &
	local prom=$!
	t0=$(date +%s.%N)
	if ! wait_scrape "$t0"; then
		fail "Prometheus never scraped kdist: $(tail -3 "$TMP/prom.log")"
		kill $prom; wait $prom; serve_stop; return
	fi
	q='kdist_sc_seconds_count{syscall="nanosleep",error="ok"}'
	before=$(promq "$q")
	[ "$before" = none ] && before=0
	KDIST_WL_TIMES="$TMP/times" "$TMP/$comm" $n $ms
	t1=$(date +%s.%N)
	wait_scrape "$t1" || { fail "no scrape after the workload"; kill $prom; wait $prom; serve_stop; return; }
	after=$(promq "$q")
	# the median by Prometheus, and the bucket that holds the true one
	med=$(wl_times "$TMP/times" nanosleep 'v[len(v) // 2]')
	read -r lo hi < <(python3 -c "
k = int($med).bit_length()
print(((1 << (k - 1)) - 1) / 1e9, ((1 << k) - 1) / 1e9)")
	q=$(promq 'histogram_quantile(0.5, kdist_sc_seconds_bucket{syscall="nanosleep",error="ok"})')
	local runq lost
	runq=$(promq 'kdist_runq_seconds_count')
	lost=$(promq 'count(kdist_lost_events_total{measurement="sc"})')
	curl -s "$SERVE_URL/metrics" >"$TMP/expo.txt"
	out=$(promtool check metrics <"$TMP/expo.txt" 2>&1)
	local lint=$?
	kill $prom
	wait $prom
	serve_stop || { fail "stop"; return; }
	[ "$((after - before))" = $n ] || { fail "count went $before -> $after, expected +$n"; return; }
	python3 -c "import sys; sys.exit(not $lo <= float('$q') <= $hi)" ||
		{ fail "p50 $q s outside the bucket ($lo, $hi] of the workload's median $med ns"; return; }
	[ "$runq" != none ] && [ "${runq%.*}" -gt 0 ] || { fail "runq count: $runq"; return; }
	[ "$lost" -ge 7 ] || { fail "loss counters of sc: $lost"; return; }
	[ $lint = 0 ] || { fail "promtool check metrics: $out"; return; }
	pass "Prometheus: nanosleep count +$n, p50 $q s in ($lo, $hi], runq and $lost loss counters, promtool accepts"
}

test_serve_http() {
	local i codes ok=0 rss0 rss1
	# syscalls of one name: every process's would add label sets as other
	# jobs on the host make new (syscall, error) pairs, and RSS with them
	serve_start --measure runq --measure "name=sc: syscalls --comm kdsl$$" \
		--measure "name=fn: func 'u:$WL/calltree:leaf'" || { fail "start"; return; }
	for i in $(seq 50); do
		curl -s --max-time 20 -o "$TMP/c$i" -w '%{http_code}\n' "$SERVE_URL/metrics" >"$TMP/code$i" &
	done
	wait $(jobs -p | grep -v "^$SERVE_PID$")
	for i in $(seq 50); do
		[ "$(cat "$TMP/code$i")" = 200 ] && grep -q '^kdist_runq_seconds_count ' "$TMP/c$i" &&
			grep -q '^# TYPE kdist_fn_seconds histogram' "$TMP/c$i" &&
			ok=$((ok + 1))
	done
	[ $ok = 50 ] || { fail "$ok of 50 concurrent scrapes complete"; serve_stop; return; }
	# abuse, from one script: it prints one word per case
	codes=$(python3 - "$SERVE_PORT" <<-'EOF'
	import socket, sys, time
	port = int(sys.argv[1])
	def conn():
	    s = socket.create_connection(("127.0.0.1", port), timeout=15)
	    return s
	def status(req):
	    s = conn()
	    try:
	        s.sendall(req)
	        data = b""
	        while True:
	            b = s.recv(65536)
	            if not b:
	                break
	            data += b
	        return data.split(b" ")[1].decode() if data else "empty"
	    except OSError as e:
	        return type(e).__name__
	    finally:
	        s.close()
	# half a request, then silence: others are served meanwhile, and the
	# staller is let go
	stall = conn()
	stall.sendall(b"GET /metr")
	t = time.time()
	print("during-stall", status(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), round(time.time() - t, 1))
	stall.settimeout(15)
	t = time.time()
	try:
	    r = stall.recv(100)
	    print("staller", "closed" if not r else "answered", round(time.time() - t))
	except OSError as e:
	    print("staller", type(e).__name__, round(time.time() - t))
	print("long-line", status(b"GET /" + b"a" * (1 << 20) + b" HTTP/1.1\r\n\r\n"))
	print("long-header", status(b"GET /metrics HTTP/1.1\r\nX: " + b"b" * 8000 + b"\r\n\r\n"))
	print("unknown-path", status(b"GET /nope HTTP/1.1\r\n\r\n"))
	print("post", status(b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n"))
	print("garbage", status(b"hello\r\n\r\n"))
	print("index", status(b"GET / HTTP/1.0\r\n\r\n"))
	EOF
	)
	local want
	for want in "during-stall 200" "staller closed" "long-line 414" "long-header 431" \
		"unknown-path 404" "post 405" "garbage 400" "index 200"; do
		grep -q "^$want" <<<"$codes" || { fail "expected '$want', got: $(tr '\n' ';' <<<"$codes")"; serve_stop; return; }
	done
	# memory: flat over 2,000 scrapes after 200 to warm up
	scrapes 200
	rss0=$(awk '/^VmRSS/ {print $2}' /proc/$SERVE_PID/status)
	scrapes 2000
	rss1=$(awk '/^VmRSS/ {print $2}' /proc/$SERVE_PID/status)
	serve_stop || { fail "stop"; return; }
	[ $((rss1 - rss0)) -le 1024 ] || { fail "RSS grew $rss0 -> $rss1 kB over 2,000 scrapes"; return; }
	pass "50 concurrent scrapes, staller let go ($(grep staller <<<"$codes" | cut -d' ' -f3) s), 414/431/404/405/400, RSS $rss0 -> $rss1 kB over 2,000 scrapes"
}

test_serve_reload() {
	local s1 s2 s3 s4 conf=$TMP/serve.conf
	printf '# one measurement\nrunq   # run-queue latency\n' >"$conf"
	serve_start --config "$conf" || { fail "start"; return; }
	s1=$(prog_ids $SERVE_PID)
	printf 'runq\nname=pg: pair raw_syscalls:sys_enter raw_syscalls:sys_exit --comm kdsl\n' >"$conf"
	kill -HUP $SERVE_PID
	wait_metrics '^kdist_pg_seconds_count '
	s2=$(prog_ids $SERVE_PID)
	printf 'runq\n' >"$conf"
	kill -HUP $SERVE_PID
	wait_metrics '^kdist_pg_' absent
	s3=$(prog_ids $SERVE_PID)
	printf 'runq\nname=bad: pair nosuch:event raw_syscalls:sys_exit\n' >"$conf"
	kill -HUP $SERVE_PID
	for _ in $(seq 100); do
		grep -q 'failed to reload' "$TMP/serve.err" && break
		sleep 0.1
	done
	s4=$(prog_ids $SERVE_PID)
	curl -s "$SERVE_URL/metrics" >"$TMP/after.txt"
	serve_stop || { fail "stop"; return; }
	[ -n "$s1" ] || { fail "no programs held"; return; }
	for id in $s1; do
		grep -qw "$id" <<<"$s2" || { fail "runq's program $id did not survive adding pg"; return; }
	done
	[ "$(wc -w <<<"$s2")" -gt "$(wc -w <<<"$s1")" ] || { fail "pg attached nothing: $s1 / $s2"; return; }
	[ "$s3" = "$s1" ] || { fail "after removing pg: '$s3', expected runq's '$s1'"; return; }
	[ "$s4" = "$s1" ] && grep -q '^kdist_runq_seconds_count ' "$TMP/after.txt" ||
		{ fail "a bad reload changed what runs: '$s4' vs '$s1'"; return; }
	grep -q "^kdist: $conf:2: measurement 'bad': " "$TMP/serve.err" ||
		{ fail "bad reload not named by file and line: $(cat "$TMP/serve.err")"; return; }
	pass "SIGHUP: pg attached and detached beside runq's $(wc -w <<<"$s1") programs, a bad config changes nothing"
}

# names: NAME... as python bytes literals; sets each in turn as its own comm
# (prctl PR_SET_NAME) and makes 5 getppid calls under it
rename_self() {
	python3 - "$@" <<-'EOF'
	import ast, ctypes, os, sys
	libc = ctypes.CDLL(None)
	for lit in sys.argv[1:]:
	    libc.prctl(15, ctypes.c_char_p(ast.literal_eval(lit)), 0, 0, 0)
	    for _ in range(5):
	        os.getppid()
	EOF
}

test_serve_hostile_names() {
	local out lint
	command -v promtool >/dev/null || { skip "no promtool (scripts/deps.sh installs prometheus)"; return; }
	# getppid calls only (110): a busy host's other syscalls could fill the table
	serve_start --measure "name=hn: pair raw_syscalls:sys_enter raw_syscalls:sys_exit --if 'id == 110' --by comm" ||
		{ fail "start"; return; }
	rename_self "b'\\xffbad'" "b'\\x1b]0;t\\x07'" "b'nl\\nx'" "b'q\"q'" "b'b\\\\s'"
	wait_metrics '^kdist_hn_seconds_count{comm="b\\\\\\\\s"} 5'
	curl -s "$SERVE_URL/metrics" >"$TMP/names.txt"
	out=$(promtool check metrics <"$TMP/names.txt" 2>&1)
	lint=$?
	serve_stop || { fail "stop"; return; }
	[ $lint = 0 ] || { fail "promtool check metrics: $(head -c 300 <<<"$out")"; return; }
	local want
	for want in '\\xffbad' '\\x1b]0;t\\x07' 'nl\\x0ax' 'q\"q' 'b\\\\s'; do
		grep -qF "kdist_hn_seconds_count{comm=\"$want\"} 5" \
			"$TMP/names.txt" || { fail "no 5 getppid for comm=\"$want\""; return; }
	done
	pass "names \\xff, ESC, newline, quote, backslash: escaped, 5 getppid each, promtool accepts"
}

test_serve_many_measurements() {
	local i n=66 got
	for i in $(seq $n); do echo "name=m$i: count raw_syscalls:sys_enter --comm kdnone$i"; done >"$TMP/many.conf"
	serve_start --config "$TMP/many.conf" || { fail "start"; return; }
	curl -s "$SERVE_URL/metrics" >"$TMP/many.txt"
	serve_stop || { fail "stop"; return; }
	got=$(grep -c '^# TYPE kdist_m[0-9]*_events_total counter' "$TMP/many.txt")
	[ "$got" = $n ] || { fail "$got of $n measurements in /metrics"; return; }
	got=$(grep -c '^kdist_groups{measurement="m[0-9]*"}' "$TMP/many.txt")
	[ "$got" = $n ] || { fail "$got of $n measurements in kdist_groups"; return; }
	pass "$n measurements, all $n in /metrics"
}

# An unprivileged process renaming itself 500 times between scrapes and 3,000
# short processes (--by pid): label sets stay within --max-groups at every
# scrape, what does not fit is counted lost, RSS stays flat, and the label
# sets of exited processes and silent names retire.
test_serve_churn_bounded() {
	local max=64 out
	serve_start --max-groups $max --retire-after 3 \
		--measure 'name=rn: pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by comm' \
		--measure 'name=pd: pair raw_syscalls:sys_enter raw_syscalls:sys_exit --by pid --comm churnkid' ||
		{ fail "start"; return; }
	"$WL/churn" 3000 10 100 &
	local churn=$!
	out=$(python3 - "$SERVE_PORT" $SERVE_PID 60 <<-'EOF'
	import ctypes, os, re, sys, urllib.request
	port, pid, scrapes = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
	libc = ctypes.CDLL(None)
	def scrape():
	    return urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=30).read().decode()
	def rss():
	    return int(re.search(r"VmRSS:\s+(\d+)", open("/proc/%s/status" % pid).read()).group(1))
	most = {"rn": 0, "pd": 0}
	for s in range(scrapes):
	    for j in range(500):
	        libc.prctl(15, ctypes.c_char_p(b"r%d_%d" % (s, j)), 0, 0, 0)
	        os.getppid()
	    text = scrape()
	    for m in most:
	        most[m] = max(most[m], len(re.findall(r"^kdist_%s_seconds_count\{" % m, text, re.M)))
	    if s == 10:
	        rss0 = rss()
	rss1 = rss()
	lost = re.search(r'kdist_lost_events_total\{measurement="rn",reason="group_table_full"\} (\d+)', text)
	print("rn_most", most["rn"], "pd_most", most["pd"], "lost", lost.group(1) if lost else "none",
	      "rss0", rss0, "rss1", rss1, "bytes", len(text))
	EOF
	)
	kill $churn 2>/dev/null
	wait $churn 2>/dev/null
	# then quiet: one scrape takes the last events (the renamer's own, up
	# to its exit), and the next, 4 s later, finds every name silent for
	# more than --retire-after and every child gone
	sleep 1
	curl -s "$SERVE_URL/metrics" >/dev/null
	sleep 4
	curl -s "$SERVE_URL/metrics" >"$TMP/quiet.txt"
	serve_stop || { fail "stop"; return; }
	local rn pd lost rss0 rss1 left_rn left_pd
	read -r _ rn _ pd _ lost _ rss0 _ rss1 _ _ <<<"$out"
	left_rn=$(grep -c '^kdist_rn_seconds_count{comm="r[0-9]*_[0-9]*"}' "$TMP/quiet.txt")
	left_pd=$(grep -c '^kdist_pd_seconds_count{' "$TMP/quiet.txt")
	echo "# $out; after 5 quiet s: $left_rn renamer sets, $left_pd pid sets"
	[ -n "$rn" ] && [ "$rn" -le $max ] && [ "$pd" -le $max ] ||
		{ fail "label sets above --max-groups $max: $out"; return; }
	[ "$lost" != none ] && [ "$lost" -gt 0 ] || { fail "nothing counted lost: $out"; return; }
	[ $((rss1 - rss0)) -le 2048 ] || { fail "RSS grew $rss0 -> $rss1 kB over 50 scrapes: $out"; return; }
	[ "$left_rn" = 0 ] && [ "$left_pd" = 0 ] ||
		{ fail "not retired after 5 s: $left_rn renamer sets, $left_pd of exited pids"; return; }
	pass "30,000 names and 3,000 pids: at most $rn and $pd of $max label sets, $lost events lost, RSS $rss0 -> $rss1 kB, all retired"
}

# scrape_worst SECONDS: scrapes /metrics one after another for SECONDS while
# the caller's reload runs; prints the slowest one's seconds
scrape_worst() {
	python3 - "$SERVE_PORT" "$1" <<-'EOF'
	import sys, time, urllib.request
	port, secs, worst = int(sys.argv[1]), float(sys.argv[2]), 0.0
	end = time.time() + secs
	while time.time() < end:
	    t = time.time()
	    urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=30).read()
	    worst = max(worst, time.time() - t)
	print("%.3f" % worst)
	EOF
}

# hup_refused N: SIGHUP, then until serve has refused N reloads (10 s)
hup_refused() {
	kill -HUP $SERVE_PID
	for _ in $(seq 100); do
		[ "$(grep -c 'failed to reload' "$TMP/serve.err")" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# --config that never ends, blocks or is too large: refused with one line
# and exit 2 at start-up; on SIGHUP refused while serving goes on, and a
# concurrent scrape waits at most 2 s even for the largest file taken.
test_serve_config_bounds() {
	local conf=$TMP/bounds.conf out rc bad worst
	mkfifo "$TMP/fifo"
	head -c $((8 << 20)) /dev/zero | tr '\0' 'x' | sed 's/^/runq /' >"$TMP/big.conf"
	for bad in /dev/zero "$TMP/fifo" "$TMP/big.conf" "$TMP"; do
		out=$(timeout 10 "$KDIST" serve --listen 127.0.0.1:$SERVE_PORT --config "$bad" 2>&1)
		rc=$?
		[ $rc = 2 ] && [ "$(grep -c . <<<"$out")" = 1 ] ||
			{ fail "--config $bad: exit $rc: $(head -c 200 <<<"$out")"; return; }
	done
	printf 'runq\n' >"$conf"
	serve_start --config "$conf" || { fail "start"; return; }
	ln -sf /dev/zero "$conf"
	hup_refused 1 || { fail "/dev/zero: no refused reload: $(cat "$TMP/serve.err")"; serve_stop; return; }
	rm -f "$conf"
	ln -s "$TMP/fifo" "$conf"
	hup_refused 2 || { fail "FIFO: no refused reload: $(cat "$TMP/serve.err")"; serve_stop; return; }
	rm -f "$conf"
	cp "$TMP/big.conf" "$conf"
	hup_refused 3 &
	local hp=$!
	worst=$(scrape_worst 3)
	wait $hp || { fail "8 MB: no refused reload: $(cat "$TMP/serve.err")"; serve_stop; return; }
	wait_metrics '^kdist_runq_seconds_count ' || { fail "runq gone after the refused reloads"; serve_stop; return; }
	local big=$worst
	# the largest configuration read: 1 MiB of distinct names, refused at
	# its last line for a duplicate
	python3 -c "
import sys
n, i, out = 0, 0, []
while n < (1 << 20) - 40:
    out.append('name=m%d: runq\n' % i); n += len(out[-1]); i += 1
sys.stdout.write(''.join(out) + 'name=m0: runq\n')" >"$conf"
	hup_refused 4 &
	hp=$!
	worst=$(scrape_worst 3)
	wait $hp || { fail "1 MiB: no refused reload: $(cat "$TMP/serve.err")"; serve_stop; return; }
	wait_metrics '^kdist_runq_seconds_count ' || { fail "runq gone after the 1 MiB reload"; serve_stop; return; }
	serve_stop || { fail "stop"; return; }
	[ "$(grep -c 'failed to reload' "$TMP/serve.err")" = 4 ] ||
		{ fail "4 refused reloads expected: $(cat "$TMP/serve.err")"; return; }
	for bad in 'not a regular file' 'larger than 1 MiB' "measurement 'm0': bad name: line 1 has it too"; do
		grep -q "$bad" "$TMP/serve.err" || { fail "no '$bad' in: $(cat "$TMP/serve.err")"; return; }
	done
	awk -v a="$big" -v b="$worst" 'BEGIN { exit !(a < 2 && b < 2) }' ||
		{ fail "a scrape waited $big s (8 MB reload), $worst s (1 MiB reload)"; return; }
	pass "/dev/zero, FIFO, 8 MB, a directory: exit 2 at start, refused on SIGHUP; slowest scrape during reloads $big s (8 MB), $worst s (1 MiB)"
}

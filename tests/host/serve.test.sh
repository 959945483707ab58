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

# promq EXPR: an instant query's first value from Prometheus, or none
promq() {
	local v
	v=$(curl -s --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
		sed -n 's/.*"value":\[[^,]*,"\([^"]*\)"\].*/\1/p')
	echo "${v:-none}"
}

# wait_scrape T: until Prometheus has scraped kdist after unix time T (30 s)
wait_scrape() {
	local ts
	for _ in $(seq 300); do
		ts=$(promq 'timestamp(up{job="kdist"})' 2>/dev/null)
		[ "$ts" != none ] && awk -v a="$ts" -v b="$1" 'BEGIN { exit !(a > b) }' && return 0
		sleep 0.1
	done
	return 1
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
	[ $? != 0 ] && grep -q "two are named 'runq'" <<<"$out" || { fail "duplicate names: $out"; return; }
	out=$("$KDIST" serve 2>&1)
	[ $? != 0 ] && grep -q "no measurement" <<<"$out" || { fail "no measurement: $out"; return; }
	[ "$(bpf_leftovers)" = 0 ] || { fail "programs left after bad specs"; return; }
	pass "8 bad specs, a duplicate name, none: one line each naming it, nothing left"
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
	serve_start --measure runq --measure 'name=sc: syscalls' \
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
	grep -q "measurement 'bad'" "$TMP/serve.err" || { fail "bad reload not named: $(cat "$TMP/serve.err")"; return; }
	pass "SIGHUP: pg attached and detached beside runq's $(wc -w <<<"$s1") programs, a bad config changes nothing"
}

# kdist serve's native histograms, scraped over protobuf by a real
# Prometheus (Debian 13's 2.53, unpacked by scripts/trixie.sh), and its
# OTLP push, decoded by the OpenTelemetry project's own classes
# (python3-opentelemetry-proto).  Debian's Prometheus has no OTLP receiver:
# Debian builds it without one (#1080354).
# shellcheck shell=bash

source "$(dirname "${BASH_SOURCE[0]}")/serve_lib.sh"

NATIVE_ROOT=${KDIST_TRIXIE:-/var/cache/kdist-trixie}/root
NATIVE_PROM=$NATIVE_ROOT/usr/bin/prometheus
NATIVE_PY=$NATIVE_ROOT/usr/lib/python3/dist-packages

# native_receiver OUT [STATUS...]: the OTLP receiver on OTLP_PORT; sets
# RECV_PID, 0 once it listens
native_receiver() {
	PYTHONPATH=$NATIVE_PY /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/otlp_receiver.py" \
		"$OTLP_PORT" "$@" >"$TMP/recv.out" 2>"$TMP/recv.err" &
	RECV_PID=$!
	wait_word listening "$TMP/recv.out" $RECV_PID
}

# native_otlp_point FILE NAME ATTR=VALUE: a data point of the last request
# the receiver decoded, as JSON, or none
native_otlp_point() {
	python3 - "$@" <<-'PY'
	import json, sys
	try:
	    d = json.load(open(sys.argv[1]))
	except (OSError, ValueError):
	    print("none"); sys.exit()
	k, v = sys.argv[3].split("=", 1)
	for rm in d["resourceMetrics"]:
	    for sm in rm["scopeMetrics"]:
	        for m in sm["metrics"]:
	            if m["name"] != sys.argv[2]:
	                continue
	            for p in m.get("exponentialHistogram", m.get("sum", {})).get("dataPoints", []):
	                a = {x["key"]: x["value"]["stringValue"] for x in p.get("attributes", [])}
	                if a.get(k) == v:
	                    print(json.dumps(p)); sys.exit()
	print("none")
	PY
}

native_skip() {
	[ -x "$NATIVE_PROM" ] && [ -d "$NATIVE_PY/opentelemetry" ] && return 1
	skip "no Prometheus 2.53 or OTLP classes in $NATIVE_ROOT (scripts/trixie.sh unpacks them)"
}

# One run: 40 nanosleeps of 10 ms measured by kdist (one-shot, -o json),
# scraped by Prometheus as a native histogram and pushed over OTLP.
test_serve_native_prometheus() {
	local comm=kdnh$$ n=40 q sel pcount psum p99 kcount ksum k99 ocount osum o99 same t1 point
	native_skip && return
	cp "$WL/sleeper" "$TMP/$comm"
	native_receiver "$TMP/otlp.json" || { fail "receiver: $(cat "$TMP/recv.err")"; return; }
	serve_start --measure "name=sc: syscalls --comm $comm" --otlp-interval 1 \
		--otlp "http://127.0.0.1:$OTLP_PORT/v1/metrics" || { fail "start"; kill $RECV_PID; return; }
	mkdir -p "$TMP/promn"
	# a scrape of a loaded machine can take seconds: a 1 s timeout
	# would lose every one
	cat >"$TMP/promn.yml" <<-EOF
	global: { scrape_interval: 5s, scrape_timeout: 5s, evaluation_interval: 5s }
	scrape_configs:
	  - job_name: kdist
	    static_configs: [ { targets: ['127.0.0.1:$SERVE_PORT'] } ]
	EOF
	"$NATIVE_PROM" --config.file="$TMP/promn.yml" --storage.tsdb.path="$TMP/promn" \
		--enable-feature=native-histograms --web.listen-address=127.0.0.1:$PROM_PORT \
		--log.level=warn >"$TMP/promn.log" 2>&1 &
	local prom=$!
	if ! wait_scrape "$(date +%s.%N)"; then
		fail "Prometheus never scraped kdist: $(tail -3 "$TMP/promn.log")"
		kill $prom $RECV_PID; wait $prom $RECV_PID; serve_stop; return
	fi
	KDIST_WL_TIMES="$TMP/times" "$KDIST" syscalls --comm "$comm" -o json --output "$TMP/one.json" \
		-c "$TMP/$comm $n 10" 2>"$TMP/one.err" || { fail "kdist syscalls: $(cat "$TMP/one.err")"; }
	t1=$(date +%s.%N)
	sel="kdist_sc_seconds{syscall=\"nanosleep\",error=\"ok\",job=\"kdist\"}"
	# cumulative: once both have every event, both hold the final numbers
	for _ in $(seq 600); do
		point=$(native_otlp_point "$TMP/otlp.json" kdist_sc syscall=nanosleep)
		[ "$(promq "histogram_count($sel)")" = $n ] &&
			[ "$(json <(echo "$point") 'd["count"]' 2>/dev/null)" = $n ] && break
		sleep 0.2
	done
	wait_scrape "$t1"
	pcount=$(promq "histogram_count($sel)")
	psum=$(promq "histogram_sum($sel)")
	p99=$(promq "histogram_quantile(0.99, $sel)")
	curl -s "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$sel" >"$TMP/native.json"
	echo "$point" >"$TMP/point.json"
	kill $prom $RECV_PID
	wait $prom $RECV_PID
	serve_stop || { fail "stop"; return; }
	q='[g for g in d["groups"] if g["by"]["syscall"] == "nanosleep"][0]'
	read -r kcount ksum k99 <<<"$(json "$TMP/one.json" "'%d %.9f %.9f' % (($q)['count'], ($q)['sum'] / 1e9, ($q)['p99'] / 1e9)")"
	# the OTLP point: count, sum, and p99 as Prometheus takes it from a
	# native histogram (linear inside the bucket holding the rank); the
	# buckets must be the ones Prometheus stored from the scrape
	read -r ocount osum o99 same <<<"$(python3 - "$TMP/point.json" "$TMP/native.json" <<-'PY'
	import json, sys
	p = json.load(open(sys.argv[1]))
	scale, off = p["scale"], p["positive"].get("offset", 0)
	base = 2 ** (2 ** -scale)
	b = [(base ** (off + i), base ** (off + i + 1), int(c))
	     for i, c in enumerate(p["positive"]["bucketCounts"]) if int(c)]
	count, rank, cum, q = int(p["count"]), 0.99 * int(p["count"]), 0, 0
	for lo, hi, c in b:
	    if cum + c >= rank:
	        q = lo + (hi - lo) * (rank - cum) / c
	        break
	    cum += c
	n = json.load(open(sys.argv[2]))["data"]["result"][0]["histogram"][1]["buckets"]
	prom = [(float(x[1]), float(x[2]), int(x[3])) for x in n]
	same = len(prom) == len(b) and all(abs(x[0] / y[0] - 1) < 1e-9 and abs(x[1] / y[1] - 1) < 1e-9
	                                   and x[2] == y[2] for x, y in zip(prom, b))
	print(count, p["sum"], q, int(same))
	PY
	)"
	echo "kdist p99 $k99 s, Prometheus (native, scraped) $p99 s, OTLP $o99 s; sums $ksum $psum $osum"
	[ "$kcount" = $n ] || { fail "kdist counted $kcount nanosleeps of $n"; return; }
	[ "$pcount" = $n ] || { fail "Prometheus counted $pcount of $n"; return; }
	[ "$ocount" = $n ] || { fail "OTLP point counted $ocount of $n"; return; }
	# two kdist measurements of one tracepoint pair: each reads the clock
	# in its own program, microseconds apart
	within "$psum" "$ksum" 1 || { fail "Prometheus sum $psum s, kdist's $ksum s"; return; }
	within "$osum" "$ksum" 1 || { fail "OTLP sum $osum s, kdist's $ksum s"; return; }
	# both from the bucket of the nearest-rank value: kdist's inside it,
	# Prometheus' within 10.8% of any value in it (src/prom.h)
	within "$p99" "$k99" 12.5 || { fail "Prometheus p99 $p99 s, kdist's $k99 s: beyond 12.5%"; return; }
	within "$o99" "$k99" 12.5 || { fail "OTLP p99 $o99 s, kdist's $k99 s: beyond 12.5%"; return; }
	[ "$same" = 1 ] || { fail "the OTLP buckets differ from the native histogram Prometheus stored"; return; }
	pass "$n nanosleeps: count $n in kdist, Prometheus (native) and OTLP; p99 kdist $k99 s, Prometheus $p99 s, OTLP $o99 s; OTLP buckets = Prometheus' native buckets"
}

# The Accept header chooses, by q, as Prometheus sends it: protobuf when
# preferred and complete (proto= and encoding=delimited), OpenMetrics,
# else the text format.  The protobuf body is read back by
# the Prometheus decoder of the test above; here its framing: delimited
# MetricFamily messages whose first is kdist_sc_seconds.
test_serve_accept() {
	local got want accept ok=0 pb='application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited'
	serve_start --measure "name=sc: syscalls --comm kdac$$" || { fail "start"; return; }
	while IFS='|' read -r accept want; do
		got=$(curl -s -o "$TMP/acc.body" -w '%{content_type}' -H "Accept: $accept" "$SERVE_URL/metrics")
		case "$got" in "$want"*) ok=$((ok + 1)) ;; *) fail "Accept: $accept: got $got, expected $want"; serve_stop; return ;; esac
	done <<-EOF
	$pb;q=0.8,application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3|application/vnd.google.protobuf
	application/openmetrics-text;version=1.0.0;q=0.5,$pb;q=0.4|application/openmetrics-text
	application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily,text/plain|text/plain
	text/plain;q=0.9,$pb;q=0|text/plain
	*/*|text/plain
	$pb|application/vnd.google.protobuf
	EOF
	# the last body: protobuf; a varint length, then field 1 (name)
	python3 - "$TMP/acc.body" <<-'PY' || { fail "protobuf framing: $(od -c "$TMP/acc.body" | head -2)"; serve_stop; return; }
	import sys
	b = open(sys.argv[1], "rb").read()
	n, i, shift, names = 0, 0, 0, []
	while i < len(b):
	    n = shift = 0
	    while True:
	        n |= (b[i] & 0x7f) << shift; shift += 7; i += 1
	        if not b[i - 1] & 0x80: break
	    m = b[i:i + n]; i += n
	    assert m[0] == 0x0a, m[:4]
	    names.append(m[2:2 + m[1]].decode())
	assert i == len(b) and names[0] == "kdist_sc_seconds" and "kdist_lost_events_total" in names, names
	PY
	serve_stop || { fail "stop"; return; }
	pass "$ok Accept headers: protobuf, OpenMetrics and text chosen by q; delimited MetricFamily messages"
}

# --otlp: a receiver that fails is retried, one that refuses drops, none
# at all fills the bounded queue; all counted in /metrics.  A bad URL is
# one line and exit 2 before anything is loaded.
test_serve_otlp_retry() {
	local out rc sent failed dropped
	out=$("$KDIST" serve --measure runq --otlp https://example.org/v1/metrics 2>&1); rc=$?
	[ $rc = 2 ] && [ "$(grep -c . <<<"$out")" = 1 ] && grep -q "bad --otlp" <<<"$out" ||
		{ fail "https URL: exit $rc: $out"; return; }
	out=$("$KDIST" serve --measure runq --otlp-interval 1 2>&1); rc=$?
	[ $rc = 2 ] && grep -q "needs --otlp" <<<"$out" || { fail "--otlp-interval alone: exit $rc: $out"; return; }
	native_skip && return
	# two failures (503: retried), then a refusal (400: dropped), then 200s
	native_receiver "$TMP/retry.json" 503 503 400 || { fail "receiver: $(cat "$TMP/recv.err")"; return; }
	serve_start --measure "name=sc: syscalls --comm kdot$$" --otlp-interval 0.5 \
		--otlp "http://127.0.0.1:$OTLP_PORT/v1/metrics" || { fail "start"; kill $RECV_PID; return; }
	for _ in $(seq 600); do
		curl -s "$SERVE_URL/metrics" >"$TMP/retry.txt"
		sent=$(awk '$1 == "kdist_otlp_requests_total{result=\"sent\"}" { print $2 }' "$TMP/retry.txt")
		[ "${sent:-0}" -ge 2 ] && break
		sleep 0.2
	done
	failed=$(awk '$1 == "kdist_otlp_requests_total{result=\"failed\"}" { print $2 }' "$TMP/retry.txt")
	dropped=$(awk '$1 == "kdist_otlp_requests_total{result=\"dropped\"}" { print $2 }' "$TMP/retry.txt")
	kill $RECV_PID; wait $RECV_PID
	[ "${sent:-0}" -ge 2 ] && [ "$failed" -ge 3 ] && [ "$dropped" -ge 1 ] ||
		{ fail "503 503 400: sent $sent, failed $failed, dropped $dropped"; serve_stop; return; }
	[ "$(json "$TMP/retry.json" 'd["_requests"]')" -ge 4 ] || { fail "receiver: $(cat "$TMP/retry.json")"; serve_stop; return; }
	# no receiver: the queue holds OTLP_QUEUE (8) requests, older ones go
	local d0=$dropped d1
	for _ in $(seq 300); do
		d1=$(curl -s "$SERVE_URL/metrics" | awk '$1 == "kdist_otlp_requests_total{result=\"dropped\"}" { print $2 }')
		[ "${d1:-0}" -ge $((d0 + 3)) ] && break
		sleep 0.2
	done
	serve_stop || { fail "stop"; return; }
	[ "${d1:-0}" -ge $((d0 + 3)) ] || { fail "no receiver: dropped $d0 -> $d1"; return; }
	pass "503 503 400 then 200: $failed failed, $dropped dropped, $sent sent; no receiver: dropped $d0 -> $d1; bad URLs refused"
}

# exemplar_run PROMETHEUS FLAGS: kdist serve of nanosleeps by comm, scraped
# by that Prometheus with exemplar storage; 20 sleeps of 2 ms, then one of
# 60 ms in a process of its own.  The truth: that process' pid, and at
# least 60 ms (the kernel sleeps no less).  Prints the exemplar Prometheus
# stored for the 60 ms sleep's window, as "pid comm value", or why none:
# on the classic buckets' series (OpenMetrics) or the native histogram's.
exemplar_run() {
	local promb=$1 comm=kdex$$ slow t0 out
	shift
	cp "$WL/sleeper" "$TMP/$comm"
	serve_start --measure "name=ns: pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep --comm $comm --by comm" ||
		{ echo "start"; return 1; }
	mkdir -p "$TMP/promx"
	rm -rf "${TMP:?}/promx/"*
	cat >"$TMP/promx.yml" <<-EOY
	global: { scrape_interval: 1s, scrape_timeout: 1s }
	scrape_configs:
	  - job_name: kdist
	    static_configs: [ { targets: ['127.0.0.1:$SERVE_PORT'] } ]
	EOY
	"$promb" --config.file="$TMP/promx.yml" --storage.tsdb.path="$TMP/promx" "$@" \
		--web.listen-address=127.0.0.1:$PROM_PORT --log.level=warn >"$TMP/promx.log" 2>&1 &
	local prom=$!
	t0=$(date +%s.%N)
	if ! wait_scrape "$t0"; then
		echo "Prometheus never scraped kdist: $(tail -3 "$TMP/promx.log")"
		kill $prom; wait $prom; serve_stop; return 1
	fi
	"$TMP/$comm" 20 2
	"$TMP/$comm" 1 60 &
	slow=$!
	wait $slow
	out=none
	for _ in $(seq 100); do
		out=$(curl -s --max-time 5 "http://127.0.0.1:$PROM_PORT/api/v1/query_exemplars" \
			--data-urlencode "query={__name__=~\"kdist_ns_seconds(_bucket)?\",comm=\"$comm\"}" \
			--data-urlencode "start=$t0" --data-urlencode "end=$(date +%s.%N)" |
			python3 -c '
import json, sys
slow = sys.argv[1]
d = json.load(sys.stdin)
ex = [e for s in d.get("data", []) for e in s["exemplars"] if e["labels"].get("pid") == slow]
print(" ".join([ex[0]["labels"]["pid"], ex[0]["labels"]["comm"], ex[0]["value"]]) if ex else "none")' "$slow")
		[ "$out" != none ] && break
		sleep 0.2
	done
	kill $prom
	wait $prom
	serve_stop || { echo "stop"; return 1; }
	echo "$out"
	[ "$out" != none ] && awk -v v="${out##* }" 'BEGIN { exit !(v >= 0.06 && v < 1) }' &&
		[ "$(cut -d' ' -f1-2 <<<"$out")" = "$slow $comm" ]
}

# OpenMetrics (Debian 12's Prometheus asks for it) and protobuf (2.53 with
# native histograms asks for it): the 60 ms sleep is its series' exemplar,
# stored by Prometheus with the sleeping process' pid
test_serve_exemplars_stored() {
	local om pb
	command -v prometheus >/dev/null || { skip "no prometheus (scripts/deps.sh installs it)"; return; }
	om=$(exemplar_run prometheus --enable-feature=exemplar-storage) ||
		{ fail "OpenMetrics: $om"; return; }
	native_skip && { pass "OpenMetrics: pid comm value $om (protobuf not tried: no Prometheus 2.53)"; return; }
	pb=$(exemplar_run "$NATIVE_PROM" --enable-feature=exemplar-storage,native-histograms) ||
		{ fail "protobuf: $pb"; return; }
	pass "the 60 ms sleep's exemplar (pid comm seconds): OpenMetrics $om, protobuf $pb"
}

# kdist serve facing a hostile network: clients that hold connections
# open, the descriptor limit, Host: names, privileges, TLS and passwords.
# shellcheck shell=bash

source "$(dirname "${BASH_SOURCE[0]}")/serve_lib.sh"
# cpu_ticks PID: user + system clock ticks the process has used
cpu_ticks() {
	awk '{ print $14 + $15 }' /proc/"$1"/stat
}

# The attacks, one python3 script: `flood SRC N SCRAPES` keeps N half-sent
# requests open from address SRC (reopening each one the server closes)
# while making SCRAPES sequential scrapes, and prints "200s OK OF N";
# `hold SRC N` opens N half-sent requests from SRC and prints how many the
# server still holds 1 s later ("held H").  `idle N SECONDS` opens N
# connections that send nothing and keeps them SECONDS.
attack() {
	python3 - "$SERVE_PORT" "$@" <<-'EOF'
	import http.client, select, socket, sys, threading, time
	port, mode, src = int(sys.argv[1]), sys.argv[2], sys.argv[3]
	half = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	def half_open(src):
	    s = socket.socket()
	    s.settimeout(2)
	    s.bind((src, 0))
	    s.connect(("127.0.0.1", port))
	    s.sendall(half)
	    return s
	def closed(socks, wait=0):
	    p = select.poll()
	    for s in socks:
	        p.register(s, select.POLLIN)
	    return {fd for fd, _ in p.poll(wait)}
	if mode == "flood":
	    n, scrapes = int(sys.argv[4]), int(sys.argv[5])
	    stop = False
	    def flood():
	        socks = {}
	        while not stop:
	            for fd in closed(socks.values(), 10):
	                socks.pop(fd).close()
	            while len(socks) < n and not stop:
	                try:
	                    s = half_open(src)
	                    socks[s.fileno()] = s
	                except OSError:
	                    time.sleep(0.01)
	                    break
	                time.sleep(0.002)	# at most ~500 new connections a second
	        for s in socks.values():
	            s.close()
	    t = threading.Thread(target=flood)
	    t.start()
	    time.sleep(3)	# the server's slots are all taken by now
	    ok = 0
	    for _ in range(scrapes):
	        try:
	            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
	            c.request("GET", "/metrics")
	            r = c.getresponse()
	            r.read()
	            ok += r.status == 200
	            c.close()
	        except OSError:
	            pass
	        time.sleep(0.1)
	    stop = True
	    t.join()
	    print("200s", ok, "of", scrapes)
	elif mode == "hold":
	    n = int(sys.argv[4])
	    socks = [half_open(src) for _ in range(n)]
	    time.sleep(1)	# well within the header timeout (3 s)
	    print("held", n - len(closed(socks)))
	elif mode == "idle":
	    n, secs = int(sys.argv[4]), float(sys.argv[5])
	    socks = []
	    for _ in range(n):
	        s = socket.socket()
	        s.setblocking(False)
	        s.connect_ex(("127.0.0.1", port))
	        socks.append(s)
	    time.sleep(secs)
	EOF
}

test_serve_slowloris() {
	local out held rej
	serve_start --measure runq || { fail "start"; return; }
	out=$(attack flood 127.0.0.1 300 30)
	held=$(attack hold 127.0.0.2 150)
	rej=$(curl -s "$SERVE_URL/metrics" | awk '$1 == "kdist_http_rejected_total" { print $2 }')
	serve_stop || { fail "stop"; return; }
	[ "$out" = "200s 30 of 30" ] || { fail "under 300 half-open connections: $out"; return; }
	[ "$held" = "held 64" ] ||
		{ fail "one address held ${held#held } connections, expected the limit 64"; return; }
	[ "${rej:-0}" -gt 0 ] || { fail "no rejection counted: $rej"; return; }
	pass "30 of 30 scrapes answered 200 beside 300 half-open connections; one address holds 64 of 150; $rej rejected"
}

test_serve_emfile() {
	local t0 t1 used code
	# about 105 descriptors for runq's BPF objects (each pair object has
	# the maps of --explain, --match and small-number groups, one entry
	# each when unused) and the rest: room for ~25 connections, far fewer
	# than the 200 idle ones and the slots
	local SERVE_WRAP=(prlimit --nofile=130:130)
	serve_start --measure runq || { fail "start"; return; }
	attack idle x 200 6 &
	local ap=$!
	sleep 2
	t0=$(cpu_ticks $SERVE_PID)
	sleep 3
	t1=$(cpu_ticks $SERVE_PID)
	code=$(curl -s -o /dev/null --max-time 5 -w '%{http_code}' "$SERVE_URL/metrics")
	wait $ap
	used=$((t1 - t0))
	serve_stop || { fail "stop"; return; }
	# 3 s are 300 ticks; the loop spinning on accept() took all of them
	[ $used -le 30 ] || { fail "kdist used $used of 300 clock ticks while out of descriptors"; return; }
	[ "$code" = 200 ] || { fail "a scrape at the descriptor limit got $code"; return; }
	pass "out of descriptors under 200 idle connections: $used ticks of CPU in 3 s, a scrape answered 200"
}

test_serve_host() {
	local c1 c2 c3 c4 c5 c6
	serve_start --measure runq --allow-host metrics.example.org || { fail "start"; return; }
	c1=$(curl -s -o /dev/null -w '%{http_code}' "$SERVE_URL/metrics")
	c2=$(curl -s -o /dev/null -w '%{http_code}' "http://localhost:$SERVE_PORT/metrics")
	c3=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: rebound.example.com:$SERVE_PORT" "$SERVE_URL/metrics")
	c4=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: metrics.example.org:$SERVE_PORT" "$SERVE_URL/metrics")
	c5=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: [::1]:$SERVE_PORT" "$SERVE_URL/metrics")
	c6=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: 127.0.0.1.rebound.example.com" "$SERVE_URL/metrics")
	serve_stop || { fail "stop"; return; }
	[ "$c1 $c2 $c3 $c4 $c5 $c6" = "200 200 403 200 200 403" ] ||
		{ fail "IP, localhost, other name, allowed name, [::1], IP-like name: $c1 $c2 $c3 $c4 $c5 $c6"; return; }
	pass "Host: IP literals, localhost and --allow-host 200, other names 403"
}

# status_of PID: the privilege lines of /proc/PID/status, on one line
status_of() {
	grep -E '^(Uid|CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):' /proc/"$1"/status | tr -s '\t ' ' ' | tr '\n' ';'
}

test_serve_user() {
	local conf=$TMP/user.conf child st code out rc
	out=$("$KDIST" serve --listen 127.0.0.1:$SERVE_PORT --measure runq --user nosuchuser$$ 2>&1)
	rc=$?
	[ $rc = 2 ] && [ "$(grep -c . <<<"$out")" = 1 ] && grep -q "bad --user" <<<"$out" ||
		{ fail "unknown user: exit $rc: $out"; return; }
	no_leftovers || { fail "programs left after a bad --user"; return; }
	printf 'runq\n' >"$conf"
	serve_start --config "$conf" --user nobody || { fail "start"; return; }
	child=$(pgrep -P $SERVE_PID | head -1)
	st=$(status_of "$child")
	code=$(curl -s -o "$TMP/u1.txt" -w '%{http_code}' "$SERVE_URL/metrics")
	printf 'runq\nname=pg: pair raw_syscalls:sys_enter raw_syscalls:sys_exit\n' >"$conf"
	kill -HUP $SERVE_PID
	for _ in $(seq 100); do
		curl -s "$SERVE_URL/metrics" | grep -q '^kdist_pg_seconds_count ' && break
		sleep 0.1
	done
	curl -s "$SERVE_URL/metrics" >"$TMP/u2.txt"
	# the listening socket and no BPF object: the child holds no map
	local bpf_fds
	bpf_fds=$(ls -l /proc/"$child"/fd | grep -c 'anon_inode:bpf')
	serve_stop || { fail "stop"; return; }
	[ "$st" = "Uid: 65534 65534 65534 65534;CapPrm: 0000000000000000;CapEff: 0000000000000000;CapBnd: 0000000000000000;NoNewPrivs: 1;Seccomp: 2;" ] ||
		{ fail "serving process (pid $child): $st"; return; }
	[ "$bpf_fds" = 0 ] || { fail "the serving process holds $bpf_fds BPF descriptors"; return; }
	[ "$code" = 200 ] && grep -q '^kdist_runq_seconds_count ' "$TMP/u1.txt" ||
		{ fail "scrape through the unprivileged process: $code"; return; }
	grep -q '^kdist_pg_seconds_count ' "$TMP/u2.txt" || { fail "SIGHUP did not add pg"; return; }
	pass "serving process: uid 65534, no capabilities, no_new_privs, seccomp, no BPF fds; scrape 200; SIGHUP adds a measurement"
}

test_serve_unit_score() {
	local score
	command -v systemd-analyze >/dev/null || { skip "no systemd-analyze"; return; }
	score=$(systemd-analyze security --offline=true "$TOP/contrib/kdist.service" 2>&1 |
		sed -n 's/.*Overall exposure level for kdist.service: \([0-9.]*\).*/\1/p')
	[ -n "$score" ] || { fail "no score from systemd-analyze"; return; }
	awk -v s="$score" 'BEGIN { exit !(s <= 3.0) }' || { fail "exposure $score > 3.0"; return; }
	pass "systemd-analyze security: contrib/kdist.service exposure $score"
}

# The unit's capability bounding set is all kdist needs: serve a recipe,
# the syscalls recipe and a uprobe function with only those, as the unit's
# ExecStart does (--user), and scrape all three.
test_serve_unit_caps() {
	local caps set n
	caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$TOP/contrib/kdist.service")
	set=$(tr ' ' '\n' <<<"$caps" | sed 's/^CAP_//' | tr 'A-Z' 'a-z' | sed 's/^/+/' | paste -sd,)
	local SERVE_WRAP=(setpriv --bounding-set=-all,"$set")
	serve_start --measure runq --measure 'name=sc: syscalls' \
		--measure "name=fn: func u:$WL/calltree:leaf" --user nobody || { fail "start with $caps"; return; }
	"$WL/calltree" >/dev/null 2>&1
	curl -s "$SERVE_URL/metrics" >"$TMP/caps.txt"
	serve_stop || { fail "stop"; return; }
	n=$(grep -cE '^kdist_(runq|sc|fn)_seconds_count' "$TMP/caps.txt")
	grep -q '^kdist_runq_seconds_count ' "$TMP/caps.txt" && grep -q '^kdist_sc_seconds_count{' "$TMP/caps.txt" &&
		grep -q '^kdist_fn_seconds_count{' "$TMP/caps.txt" ||
		{ fail "with $caps: $n count lines"; return; }
	pass "runq, syscalls and a uprobe served with only $caps"
}

# code [CURL ARGS...]: the HTTP status of a scrape over TLS (000: none)
code() {
	curl -s -o /dev/null --max-time 10 -w '%{http_code}' --cacert "$TMP/tls/server.crt" "$@"
}

test_serve_web_config_bad() {
	local d=$TMP/badweb i=0 out rc bad
	tls_files "$d" || { skip "openssl failed"; return; }
	local cases=(
		'tls_server_config: [1, 2'
		'tls_server_config:\n  cert_file: server.crt\n'
		'tls_server_config:\n  cert_file: nosuch.crt\n  key_file: server.key\n'
		'tls_server_config:\n  cert_file: server.crt\n  key_file: server.crt\n'
		'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: Maybe\n'
		'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n'
		'basic_auth_users:\n  prom: plaintext\n'
		'basic_auth_users:\n  "a:b": $2b$10$qf1QLdmSBZSD8aSScC//U.6TEgalXNLvhmbqvKjIPLPEpXP54dE3u\n'
		'http_server_config:\n  http2: false\n'
		'- a list\n'
		# a cost above 12 (each wrong password would cost 2^cost rounds),
		# a cost of three digits, one that is not a number
		'basic_auth_users:\n  prom: $2b$13$qf1QLdmSBZSD8aSScC//U.6TEgalXNLvhmbqvKjIPLPEpXP54dE3u\n'
		'basic_auth_users:\n  prom: $2y$99$qf1QLdmSBZSD8aSScC//U.6TEgalXNLvhmbqvKjIPLPEpXP54dE3u\n'
		'basic_auth_users:\n  prom: $2y$1a$qf1QLdmSBZSD8aSScC//U.6TEgalXNLvhmbqvKjIPLPEpXP54dE3u\n'
		'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS13\n  max_version: TLS12\n'
		# a key that is a FIFO: OpenSSL would wait for a writer forever
		'tls_server_config:\n  cert_file: server.crt\n  key_file: key.fifo\n'
		# nested flow collections cost libyaml time quadratic in their
		# depth (65,536 took 13 s); a file above 64 KiB
		"tls_server_config: $(printf '[%.0s' $(seq 40))"
		"basic_auth_users:\n  # $(head -c 70000 /dev/zero | tr '\0' x)\n"
	)
	mkfifo "$d/key.fifo"
	for bad in "${cases[@]}"; do
		i=$((i + 1))
		printf -- "$bad" >"$d/bad$i.yml"
		out=$("$KDIST" serve --listen 127.0.0.1:$SERVE_PORT --measure runq --web-config "$d/bad$i.yml" 2>&1)
		rc=$?
		[ $rc = 2 ] && [ "$(grep -c . <<<"$out")" = 1 ] && grep -q "bad --web-config $d/bad$i.yml: " <<<"$out" ||
			{ fail "case $i ($bad): exit $rc: $out"; return; }
	done
	out=$("$KDIST" serve --listen 127.0.0.1:$SERVE_PORT --measure runq --web-config "$d/nosuch.yml" 2>&1)
	[ $? = 2 ] && [ "$(grep -c . <<<"$out")" = 1 ] || { fail "missing file: $out"; return; }
	# a FIFO as the file: once its writer closed having sent nothing, it
	# would read as empty, and so as no TLS and no users
	mkfifo "$d/web.fifo"
	out=$(timeout 20 "$KDIST" serve --listen 127.0.0.1:$SERVE_PORT --measure runq --web-config "$d/web.fifo" 2>&1)
	rc=$?
	[ $rc = 2 ] && [ "$out" = "kdist: bad --web-config $d/web.fifo: not a regular file" ] ||
		{ fail "FIFO as --web-config: exit $rc: $out"; return; }
	no_leftovers || { fail "programs left after bad web configs"; return; }
	pass "$i bad web configs, a missing one and a FIFO: exit 2, one line naming the file, nothing loaded"
}

# Clients that hold their connections open once answered (128 of them,
# every slot, from two addresses) cannot keep a scrape from a third out:
# such a connection is the first given up for a new one.
test_serve_answered_held() {
	local got
	serve_start --measure runq || { fail "start"; return; }
	got=$(python3 - "$SERVE_PORT" <<-'EOF'
	import socket, subprocess, sys, time
	port = int(sys.argv[1])
	held = []
	for src in ["127.0.0.2", "127.0.0.3"]:
	    for _ in range(64):
	        s = socket.socket()
	        s.settimeout(10)
	        s.bind((src, 0))
	        s.connect(("127.0.0.1", port))
	        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	        data = b""
	        while b"\r\n\r\n" not in data:
	            data += s.recv(65536)
	        held.append(s)	# answered, and held open
	codes = [subprocess.run(["curl", "-s", "-o", "/dev/null", "--max-time", "10", "-w", "%{http_code}",
	                         "--interface", "127.0.0.1", "http://127.0.0.1:%d/metrics" % port],
	                        capture_output=True, text=True).stdout for _ in range(5)]
	print(len(held), " ".join(codes))
	EOF
	)
	serve_stop || { fail "stop"; return; }
	[ "$got" = "128 200 200 200 200 200" ] || { fail "held connections, then 5 scrapes: $got (128 200 200 200 200 200)"; return; }
	pass "128 answered connections held open from two clients: 5 scrapes from a third all 200"
}

# Wrong passwords cost a bcrypt each on the serving loop: a client gets 5
# checked in 10 s, then 429 without a check; another client is checked as
# before, and the right password, once accepted, is known without a bcrypt
# from any client, the throttled one too.
test_serve_auth_throttled() {
	local codes=() c
	tls_files "$TMP/tls" || { skip "openssl failed"; return; }
	printf 'basic_auth_users:\n  prom: %s\n' "$TLS_HASH" >"$TMP/auth.yml"
	serve_start --measure runq --web-config "$TMP/auth.yml" || { fail "start"; return; }
	for _ in 1 2 3 4 5 6; do
		codes+=("$(curl -s -o /dev/null --max-time 10 -w '%{http_code}' --interface 127.0.0.1 -u prom:wrong "$SERVE_URL/metrics")")
	done
	codes+=("$(curl -s -o /dev/null --max-time 10 -w '%{http_code}' --interface 127.0.0.2 -u prom:secret "$SERVE_URL/metrics")")
	codes+=("$(curl -s -o /dev/null --max-time 10 -w '%{http_code}' --interface 127.0.0.1 -u prom:secret "$SERVE_URL/metrics")")
	codes+=("$(curl -s -D - -o /dev/null --max-time 10 --interface 127.0.0.1 -u prom:wrong "$SERVE_URL/metrics" | tr -d '\r' | grep -c '^Retry-After: 10$')")
	serve_stop || { fail "stop"; return; }
	c="${codes[*]}"
	[ "$c" = "401 401 401 401 401 429 200 200 1" ] ||
		{ fail "6 wrong from one client, right from another, right from the first, Retry-After: $c (401 x5 429 200 200 1)"; return; }
	pass "5 wrong passwords checked, the 6th 429 (Retry-After: 10) unchecked; the right one answered from another client and, known, from the throttled one"
}

# A client that sends a request and resets the connection (SO_LINGER 0)
# before the answer: the server's write to it must not raise SIGPIPE,
# which would end kdist serve (exit 141) before any authentication.
# Plain and wrongly authenticated ones alike; a good scrape is answered
# after them.
test_serve_tls_reset() {
	local url got c_ok
	tls_files "$TMP/tls" || { skip "openssl failed"; return; }
	url=https://127.0.0.1:$SERVE_PORT/metrics
	serve_start --measure runq --web-config "$TMP/tls/web.yml" || { fail "start"; return; }
	got=$(python3 - "$SERVE_PORT" <<-'EOF'
	import socket, ssl, struct, sys, time
	port = int(sys.argv[1])
	ctx = ssl.create_default_context()
	ctx.check_hostname = False
	ctx.verify_mode = ssl.CERT_NONE
	n = 0
	for auth in ["", "Authorization: Basic ====\r\n", "Authorization: Basic cHJvbTp3cm9uZw==\r\n"] * 3:
	    s = socket.create_connection(("127.0.0.1", port), timeout=10)
	    t = ctx.wrap_socket(s)
	    t.sendall(("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n" % auth).encode())
	    t.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
	    t.close()
	    n += 1
	    time.sleep(0.2)	# the server has answered into the reset by now
	print(n)
	EOF
	)
	# from another address: 6 wrong passwords from this one have made it
	# wait (serve_auth_throttled)
	c_ok=$(code --interface 127.0.0.2 -u prom:secret "$url")
	kill -0 $SERVE_PID 2>/dev/null || { wait $SERVE_PID; fail "kdist serve ended (exit $?) after $got reset connections: $(tail -2 "$TMP/serve.err")"; return; }
	serve_stop || { fail "stop"; return; }
	[ "$got $c_ok" = "9 200" ] || { fail "$got reset connections, then a scrape: $c_ok"; return; }
	pass "9 TLS clients reset their connection before the answer (no, bad and wrong credentials): still serving, a scrape answered 200"
}

test_serve_tls() {
	local url c_none c_wrong c_ok c_plain c_bad c_old c_new up
	tls_files "$TMP/tls" || { skip "openssl failed"; return; }
	url=https://127.0.0.1:$SERVE_PORT/metrics
	serve_start --measure runq --web-config "$TMP/tls/web.yml" --user nobody || { fail "start"; return; }
	c_none=$(code "$url")
	c_wrong=$(code -u prom:wrong "$url")
	c_ok=$(code -u prom:secret "$url")
	c_plain=$(curl -s -o /dev/null --max-time 10 -w '%{http_code}' "http://127.0.0.1:$SERVE_PORT/metrics")
	# Prometheus over TLS with basic auth
	if command -v prometheus >/dev/null; then
		local pp=$((SERVE_PORT + 1))
		mkdir -p "$TMP/promtls"
		cat >"$TMP/promtls.yml" <<-EOF
		global: { scrape_interval: 1s, evaluation_interval: 1s }
		scrape_configs:
		  - job_name: kdist
		    scheme: https
		    tls_config: { ca_file: $TMP/tls/server.crt }
		    basic_auth: { username: prom, password: secret }
		    static_configs: [ { targets: ['127.0.0.1:$SERVE_PORT'] } ]
		EOF
		prometheus --config.file="$TMP/promtls.yml" --storage.tsdb.path="$TMP/promtls" \
			--web.listen-address=127.0.0.1:$pp --log.level=warn >"$TMP/promtls.log" 2>&1 &
		local prom=$!
		for _ in $(seq 300); do
			up=$(curl -s --max-time 5 "http://127.0.0.1:$pp/api/v1/query" --data-urlencode 'query=up{job="kdist"} == 1 and on() kdist_runq_seconds_count > 0' |
				sed -n 's/.*"value":\[[^,]*,"\([^"]*\)"\].*/\1/p')
			[ "$up" = 1 ] && break
			sleep 0.1
		done
		kill $prom
		wait $prom
	else
		up=skipped
	fi
	# a bad file on SIGHUP changes nothing; a good one takes effect
	printf 'tls_server_config:\n  cert_file: server.crt\n' >"$TMP/tls/web.yml"
	kill -HUP $SERVE_PID
	for _ in $(seq 100); do grep -q 'bad --web-config' "$TMP/serve.err" && break; sleep 0.1; done
	c_bad=$(code -u prom:secret "$url")
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  other: %s\n' \
		"$TLS_HASH" >"$TMP/tls/web.yml"
	kill -HUP $SERVE_PID
	for _ in $(seq 100); do [ "$(code -u other:secret "$url")" = 200 ] && break; sleep 0.1; done
	c_old=$(code -u prom:secret "$url")
	c_new=$(code -u other:secret "$url")
	serve_stop || { fail "stop"; return; }
	[ "$c_none $c_wrong $c_ok $c_plain" = "401 401 200 000" ] ||
		{ fail "no credentials, wrong password, right one, plain HTTP: $c_none $c_wrong $c_ok $c_plain"; return; }
	[ "$up" = skipped ] || [ "$up" = 1 ] || { fail "Prometheus: up == 1 never held: $(tail -3 "$TMP/promtls.log")"; return; }
	[ "$(grep -c 'bad --web-config' "$TMP/serve.err")" = 1 ] && [ "$c_bad" = 200 ] ||
		{ fail "bad file on SIGHUP: scrape $c_bad, $(cat "$TMP/serve.err")"; return; }
	[ "$c_old $c_new" = "401 200" ] || { fail "after reload: old user $c_old, new user $c_new"; return; }
	pass "TLS: 401 without or with a wrong password, 200 with it, plain HTTP refused; Prometheus up ($up); SIGHUP: a bad file changes nothing, a new user takes over"
}

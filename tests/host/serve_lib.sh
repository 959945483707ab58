# Shared by the kdist serve tests: a port, starting and stopping.
# shellcheck shell=bash

# A port of our own per run: other test runs may serve beside us.  Below
# the ephemeral range (32768-), where the tests' own client ports fall.
SERVE_PORT=$((20000 + $$ % 12000))
PROM_PORT=$((SERVE_PORT + 1))
SERVE_URL=http://127.0.0.1:$SERVE_PORT
OTLP_PORT=$((SERVE_PORT + 2))

# serve_start ARGS...: kdist serve in the background on SERVE_PORT; sets
# SERVE_PID (kdist's own), 0 once it serves.  SERVE_WRAP=(CMD ARGS...)
# runs it under CMD (prlimit, setpriv), which must exec it.
serve_start() {
	"${SERVE_WRAP[@]}" "$KDIST" serve --listen 127.0.0.1:$SERVE_PORT "$@" 2>"$TMP/serve.err" &
	SERVE_PID=$!
	wait_word Serving "$TMP/serve.err" $SERVE_PID && return 0
	echo "kdist serve did not start: $(cat "$TMP/serve.err")"
	kill $SERVE_PID 2>/dev/null
	wait $SERVE_PID 2>/dev/null
	return 1
}

# serve_stop: SIGTERM; 0 when kdist exits 0 and nothing stays attached.
serve_stop() {
	local rc
	kill -TERM $SERVE_PID
	wait $SERVE_PID
	rc=$?
	[ $rc = 0 ] || { echo "kdist serve exited $rc: $(cat "$TMP/serve.err")"; return 1; }
	no_leftovers || { echo "$(bpf_leftovers) BPF programs left after SIGTERM"; return 1; }
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

# tls_files DIR: a self-signed certificate for 127.0.0.1 and a web config
# with it and the user prom, password "secret" (a bcrypt hash made once)
TLS_HASH='$2b$10$qf1QLdmSBZSD8aSScC//U.6TEgalXNLvhmbqvKjIPLPEpXP54dE3u'
tls_files() {
	mkdir -p "$1"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1/server.key" -out "$1/server.crt" \
		-days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null || return 1
	printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prom: %s\n' \
		"$TLS_HASH" >"$1/web.yml"
}

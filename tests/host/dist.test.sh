# The binary where users run it: kdist is static, so it starts and measures
# in a root that holds only Debian 11's C library (glibc 2.31, as on the
# hosts that run Linux 5.10), and in one that holds no C library at all.
# /proc, /sys and /dev are the host's, bound in; the root's /etc/passwd
# names the serving user; a static workload makes known system calls;
# curl scrapes `serve` over TLS from outside.
# shellcheck shell=bash

source "$(dirname "${BASH_SOURCE[0]}")/serve_lib.sh"

# dist_libc6_deb: the path of Debian 11's libc6 package, fetched once into
# the VM tier's cache (its apt configuration for Debian 11: arch.sh)
dist_libc6_deb() {
	(
		cd "$TOP" && . tests/vm/arch.sh && vm_arch 5.10 && vm_apt || exit 1
		dir=${KDIST_VM_CACHE:-/var/cache/kdist-vm}/dist-roots
		mkdir -p "$dir" || exit 1
		deb=$(ls "$dir"/libc6_2.31-*_amd64.deb 2>/dev/null | tail -1)
		if [ -z "$deb" ]; then
			apt-get "${vm_apt_opts[@]}" update -q >/dev/null 2>&1
			v=$(apt-cache "${vm_apt_opts[@]}" madison libc6 | awk '/bullseye/ { print $3; exit }')
			[ -n "$v" ] && (cd "$dir" && apt-get "${vm_apt_opts[@]}" download -q \
				-o APT::Sandbox::User=root "libc6=$v" >/dev/null 2>&1) || exit 1
			deb=$(ls "$dir"/libc6_2.31-*_amd64.deb | tail -1)
		fi
		echo "$deb"
	)
}

# dist_root DIR [DEB]: a root of DEB's files (none: empty) with kdist, the
# TLS files, /etc/passwd and the host's /proc, /sys and /dev bound in
dist_root() {
	local root=$1
	mkdir -p "$root"/{etc,proc,sys,dev,tmp,tls} || return 1
	[ -z "${2:-}" ] || dpkg-deb -x "$2" "$root" || return 1
	cp "$KDIST" "$root/kdist" && cp "$WL/getppid_static" "$root/" && cp "$TMP/tls/"{server.crt,server.key,web.yml} "$root/tls/" || return 1
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' \
		>"$root/etc/passwd"
	# as on Debian: names not in the files go to modules kdist must not load
	printf 'passwd: files systemd\ngroup: files systemd\nhosts: files dns\n' >"$root/etc/nsswitch.conf"
	mount --bind /proc "$root/proc" && mount --rbind /sys "$root/sys" && mount --bind /dev "$root/dev"
}

dist_unroot() {
	umount -R "$1/sys" "$1/proc" "$1/dev" 2>/dev/null
}

# dist_check ROOT WHAT USER UID: the five uses in ROOT, serving as USER
# (whose uid is UID), or a failure naming WHAT
dist_check() {
	local root=$1 what=$2 user=$3 uid=$4 ver n pairs scraped child
	ver=$(chroot "$root" /kdist --version 2>&1) && [[ $ver == kdist\ * ]] ||
		{ fail "$what: --version: $ver"; return 1; }
	chroot "$root" /kdist probe >"$TMP/dist.probe" 2>&1 && grep -qE '^ +tracefs +yes' "$TMP/dist.probe" ||
		{ fail "$what: probe: $(tail -3 "$TMP/dist.probe")"; return 1; }
	# a static workload in the root: exactly 1000 getppid calls
	chroot "$root" /kdist count syscalls:sys_enter_getppid -o json -- /getppid_static 1000 \
		>"$TMP/dist.count" 2>"$TMP/dist.err" || { fail "$what: count: $(tail -2 "$TMP/dist.err")"; return 1; }
	n=$(json "$TMP/dist.count" "sum(g['count'] for g in d['groups'])")
	chroot "$root" /kdist pair raw_syscalls:sys_enter raw_syscalls:sys_exit -o json -- /getppid_static 1000 \
		>"$TMP/dist.pair" 2>"$TMP/dist.err" || { fail "$what: pair: $(tail -2 "$TMP/dist.err")"; return 1; }
	pairs=$(json "$TMP/dist.pair" "sum(g['count'] for g in d['groups'])")
	exact "$n" 1000 "$TMP/dist.count" && [ "$pairs" -ge 1000 ] ||
		{ fail "$what: count $n getppid of 1000, pair $pairs system calls (1000 and more)"; return 1; }
	chroot "$root" /kdist serve --listen 127.0.0.1:$SERVE_PORT --measure runq \
		--web-config /tls/web.yml --user "$user" 2>"$TMP/serve.err" &
	SERVE_PID=$!
	wait_word Serving "$TMP/serve.err" $SERVE_PID || { fail "$what: serve: $(cat "$TMP/serve.err")"; return 1; }
	scraped=$(curl -s --max-time 10 --cacert "$TMP/tls/server.crt" -u prom:secret \
		"https://127.0.0.1:$SERVE_PORT/metrics" | grep -c '^kdist_runq_seconds_count')
	child=$(ps -o uid= --ppid $SERVE_PID | tr -d ' ' | head -1)
	serve_stop || { fail "$what: serve did not stop cleanly"; return 1; }
	[ "$scraped" -ge 1 ] && [ "$child" = "$uid" ] ||
		{ fail "$what: the TLS scrape had $scraped kdist_runq_seconds_count, the serving child uid $child ($uid)"; return 1; }
	DIST_SAID="--version, probe, count ($n getppid of 1000), pair ($pairs system calls), serve over TLS as $user (uid $uid, scraped)"
}

test_dist_static() {
	local info
	info=$(file -L "$KDIST")
	[[ $info == *"statically linked"* ]] && ! objdump -p "$KDIST" | grep -q NEEDED ||
		{ fail "not static: $info; $(objdump -p "$KDIST" | grep NEEDED | tr '\n' ' ')"; return; }
	pass "no NEEDED entry, no interpreter: $(cut -d, -f1,2 <<<"${info#*: }")"
}

test_dist_debian11_libc() {
	local deb root=$TMP/d11
	command -v curl >/dev/null || { skip "no curl"; return; }
	deb=$(dist_libc6_deb) || { skip "Debian 11's libc6 cannot be fetched"; return; }
	tls_files "$TMP/tls" || { skip "openssl failed"; return; }
	dist_root "$root" "$deb" || { dist_unroot "$root"; fail "cannot make the root"; return; }
	[ -f "$root/lib/x86_64-linux-gnu/libc-2.31.so" ] ||
		{ dist_unroot "$root"; fail "the root holds no glibc 2.31"; return; }
	dist_check "$root" "Debian 11's libc6" nobody 65534 || { dist_unroot "$root"; return; }
	dist_unroot "$root"
	pass "in a root of Debian 11's libc6 (glibc 2.31): $DIST_SAID"
}

test_dist_no_libc() {
	local root=$TMP/empty
	command -v curl >/dev/null || { skip "no curl"; return; }
	tls_files "$TMP/tls" || { skip "openssl failed"; return; }
	dist_root "$root" || { dist_unroot "$root"; fail "cannot make the root"; return; }
	# a uid /etc/passwd does not name, as LDAP or DynamicUser= give them
	dist_check "$root" "a root without a C library" 61234 61234 || { dist_unroot "$root"; return; }
	dist_unroot "$root"
	pass "in a root without a C library: $DIST_SAID"
}

# The kernel-debugging one-liners users know from bpftrace, each as one
# kdist command (docs/examples.md), run beside bpftrace on the same stream
# and against what the workload is known to do.
# shellcheck shell=bash

# ex_bt_need: skips the case (1) without bpftrace
ex_bt_need() {
	command -v bpftrace >/dev/null && return 0
	skip "bpftrace not installed"
	return 1
}

# Interrupts per CPU, IRQ number and handler name, the name read through
# the irqaction argument; bpftrace reads the record's copy of it.  Direct
# writes to the root disk make its interrupts.  kdist runs around
# bpftrace's run, so every key bpftrace saw kdist saw, as often or more.
test_example_irq_per_cpu_and_handler() {
	ex_bt_need || return
	local dir
	dir=$(mktemp -d /var/tmp/kdist-irq.XXXXXX)
	peer_trace "$TMP/irq.json" "$TMP/irq.bt" \
		'tracepoint:irq:irq_handler_entry { @n[cpu, args->irq, str(args->name)] = count(); }' \
		"dd if=/dev/zero of=$dir/f bs=64k count=64 oflag=direct,sync 2>/dev/null" \
		count irq:irq_handler_entry --by 'cpu,irq,action->name'
	rm -rf "$dir"
	local msg
	msg=$(python3 - "$TMP/irq.json" "$TMP/irq.bt" <<-'EOF'
	import json, re, sys
	d = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
	kd = {(str(g["by"]["cpu"]), str(g["by"]["irq"]), g["by"]["action->name"]): g["count"] for g in d["groups"]}
	bt = {m[:3]: int(m[3]) for m in re.findall(r"^@n\[(\d+), (\d+), (.*)\]: (\d+)$", open(sys.argv[2]).read(), re.M)}
	# kdist keeps 15 bytes of a text in a key, and counts the texts it cut
	cut = lambda k: k[:2] + (k[2][:15],)
	short = {k: (v, kd.get(cut(k))) for k, v in bt.items() if kd.get(cut(k), 0) < v}
	long = sum(v for k, v in bt.items() if len(k[2]) > 15)
	ok = bt and not short and d["drops"]["text_cut"] >= long
	print("ok %d keys, %d interrupts" % (len(bt), sum(bt.values())) if ok else
	      "bpftrace %s, kdist %s, short: %s, text_cut %d (bpftrace's names over 15 bytes: %d)"
	      % (bt, kd, short, d["drops"]["text_cut"], long))
	EOF
	)
	[ "${msg%% *}" = ok ] || { fail "$msg"; return; }
	pass "kdist has each of bpftrace's ${msg#ok } under the same cpu, irq and handler name, as often or more"
}

# kmalloc sizes of 2 to 4 KB in 256-byte buckets by comm and kernel stack:
# 50 System V messages of 3000 bytes are 50 kmallocs of 3048 bytes (the
# message's header with its text) under load_msg, for kdist and bpftrace.
test_example_kmalloc_sizes_by_comm_and_stack() {
	ex_bt_need || return
	local comm=kdxkm$$
	cp "$WL/kmsg" "$TMP/$comm"
	peer_trace "$TMP/km.json" "$TMP/km.bt" \
		"tracepoint:kmem:kmalloc /comm == \"$comm\" && args->bytes_req >= 2048 && args->bytes_req <= 4096/ { @[comm, kstack] = lhist(args->bytes_req, 2048, 4096, 256); }" \
		"$TMP/$comm 50 3000" \
		dist kmem:kmalloc bytes_req --comm "$comm" --if 'bytes_req >= 2048 && bytes_req <= 4096' \
		--linear 2048,4096,256 --by comm,kstack
	local kc bc ml
	kc=$(json "$TMP/km.json" "sum(g['count'] for g in d['groups'])")
	ml=$(json "$TMP/km.json" "sum(g['count'] for g in d['groups'] if 'load_msg' in str(g['by']['kstack']) and g['max'] == 3048 and g['min'] == 3048)")
	bc=$(sed -n 's/^\[2816, [^)]*) *\([0-9]*\).*/\1/p' "$TMP/km.bt" | awk '{ s += $1 } END { print s + 0 }')
	[ "$ml" = 50 ] && [ "$kc" -ge 50 ] && peer_agrees "$kc" "$bc" "$TMP/km.bt" ||
		{ fail "kdist $kc ($ml of 3048 bytes under load_msg, expected 50), bpftrace $bc in [2816, 3072) ($(cat "$TMP/km.bt.misses") runs skipped): $(head -c 800 "$TMP/km.bt")"; return; }
	pass "50 messages: kdist $kc kmallocs of 2-4 KB ($ml of 3048 bytes under load_msg), bpftrace $bc in [2816, 3072)"
}

# Failed openat with the file name and the error: 5 known misses, the
# same file names and errors from kdist and bpftrace.
test_example_failed_openat() {
	ex_bt_need || return
	local comm=kdxom$$
	cp "$WL/openmiss" "$TMP/$comm"
	peer_trace "$TMP/om.json" "$TMP/om.bt" \
		"tracepoint:syscalls:sys_enter_openat /comm == \"$comm\"/ { @f[tid] = args->filename; @on[tid] = 1; }
		 tracepoint:syscalls:sys_exit_openat /@on[tid] && args->ret < 0/ { printf(\"open %s %d\\n\", str(@f[tid]), args->ret); }
		 tracepoint:syscalls:sys_exit_openat { delete(@f[tid]); delete(@on[tid]); }" \
		"$TMP/$comm 5 $TMP/nonexistent" \
		trace syscalls:sys_exit_openat --comm "$comm" --if 'ret < 0' --fields filename,ret
	local kd bt
	kd=$(json "$TMP/om.json" "sorted('%s %d' % (x['filename'], x['ret']) for x in docs if x.get('error') == 'ENOENT')")
	bt=$(python3 -c 'import sys; print(sorted(l[5:].strip() for l in open(sys.argv[1]) if l.startswith("open ")))' "$TMP/om.bt")
	local want
	want=$(python3 -c 'import sys; print(sorted("%s/missing-%d -2" % (sys.argv[1], i) for i in range(5)))' "$TMP/nonexistent")
	[ "$kd" = "$want" ] && [ "$bt" = "$want" ] || { fail "kdist $kd, bpftrace $bt, expected $want"; return; }
	pass "5 failed openat: the same 5 file names with ENOENT from kdist and bpftrace"
}

# One TCP connection's data_segs_out, snd_una and snd_wnd through the
# socket argument of tcp_probe (cast to struct tcp_sock), at most once a
# second, selected by its port.  An echo server on loopback answers 40
# messages over 2 s; its socket's tcp_probe events are bpftrace's too (the
# record's snd_una and snd_wnd): each line kdist prints is one of them.
test_example_tcp_connection_once_a_second() {
	ex_bt_need || return
	local port=$((30000 + $$ % 20000))
	cat >"$TMP/echo.py" <<-EOF
	import socket, threading, time
	srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	srv.bind(("127.0.0.1", $port)); srv.listen(1)
	def serve():
	    c, _ = srv.accept()
	    while True:
	        b = c.recv(65536)
	        if not b:
	            break
	        c.sendall(b)
	    c.close()
	t = threading.Thread(target=serve); t.start()
	cl = socket.create_connection(("127.0.0.1", $port))
	for i in range(40):
	    cl.sendall(b"x" * 3000)
	    got = 0
	    while got < 3000:
	        got += len(cl.recv(65536))
	    time.sleep(0.05)
	cl.close(); t.join()
	EOF
	local f='(struct tcp_sock *)sk'
	peer_trace "$TMP/tcp.json" "$TMP/tcp.bt" \
		"tracepoint:tcp:tcp_probe /args->sport == $port/ { printf(\"probe %u %u\\n\", args->snd_una, args->snd_wnd); }" \
		"python3 $TMP/echo.py" \
		trace tcp:tcp_probe --fields "$f->data_segs_out,$f->snd_una,$f->snd_wnd" \
		--if "sk->__sk_common.skc_num == $port" --max-rate 1/s
	local msg
	msg=$(python3 - "$TMP/tcp.json" "$TMP/tcp.bt" "$f" "$(cat "$TMP/tcp.bt.misses")" <<-'EOF'
	import json, sys
	docs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
	f, d = sys.argv[3], docs[-1]
	ev = [x for x in docs if x.get("event") == "tcp:tcp_probe"]
	bt = [tuple(map(int, l.split()[1:])) for l in open(sys.argv[2]) if l.startswith("probe ")]
	kd = [(e["sk->snd_una"], e["sk->snd_wnd"]) for e in ev]
	segs = [e["sk->data_segs_out"] for e in ev]
	secs = int(d["duration_s"]) + 2
	bad = [k for k in kd if k not in bt]
	ok = (1 <= len(ev) <= secs and len(bt) >= 40 and not bad and segs == sorted(segs) and segs[-1] > 0
	      and len(bt) <= d["groups"][0]["count"] <= len(bt) + int(sys.argv[4] or 0)
	      and len(ev) + d["drops"]["rate_limited"] == d["groups"][0]["count"])
	print("ok %d lines of %d events, data_segs_out %s" % (len(ev), len(bt), segs) if ok else
	      "%d lines (at most %d), bpftrace %d events, not among them %s, data_segs_out %s, count %s, drops %s"
	      % (len(ev), secs, len(bt), bad, segs, d["groups"], d["drops"]))
	EOF
	)
	[ "${msg%% *}" = ok ] || { fail "$msg"; return; }
	pass "the echo server's socket: ${msg#ok }, each (snd_una, snd_wnd) one of bpftrace's"
}

# Block latency by disk name: 30 direct writes to a loop device of the
# test's own, kdist's bio (the disk's name through the request) beside
# bpftrace's issue-to-complete pairs of that device.
test_example_block_latency_by_disk() {
	ex_bt_need || return
	command -v losetup >/dev/null || { skip "no losetup"; return; }
	truncate -s 16M "$TMP/disk.img"
	local dev devt
	dev=$(losetup -f --show "$TMP/disk.img" 2>/dev/null) || { skip "losetup failed (no loop devices here)"; return; }
	devt=$(( $(stat -c '0x%t' "$dev") << 20 | $(stat -c '0x%T' "$dev") ))
	peer_trace "$TMP/bio.json" "$TMP/bio.bt" \
		"tracepoint:block:block_rq_issue /args->dev == $devt/ { @s[args->sector] = nsecs; }
		 tracepoint:block:block_rq_complete /args->dev == $devt && @s[args->sector]/ { @us = hist((nsecs - @s[args->sector]) / 1000); @n = count(); delete(@s[args->sector]); }" \
		"$WL/directio $dev 30 4096" bio
	losetup -d "$dev"
	local kc bc
	kc=$(json "$TMP/bio.json" "sum(g['count'] for g in d['groups'] if g['by']['disk'] == '${dev#/dev/}' and g['by']['op'] == 'write')")
	bc=$(bt_val "$TMP/bio.bt" n)
	[ "$kc" = 30 ] && [ "$bc" = 30 ] ||
		{ fail "${dev#/dev/}: kdist $kc writes, bpftrace $bc, expected 30: $(json "$TMP/bio.json" "[g['by'] for g in d['groups']]")"; return; }
	pass "${dev#/dev/}: 30 direct writes timed by kdist under its name and by bpftrace"
}

# jiffies each second (this bpftrace has no jiffies): every line lies
# between the kernel's own jiffies in /proc/timer_list read before kdist
# starts and after it ends, and each step is the kernel's HZ times the
# time between the lines, within a tick.
test_example_jiffies_each_second() {
	[ -r /proc/timer_list ] || { skip "no /proc/timer_list (CONFIG_TIMER_LIST)"; return; }
	local before after msg
	before=$(sed -n 's/^jiffies: //p' /proc/timer_list | head -1)
	"$KDIST" trace --every 1s --fields jiffies -d 3.5 -o json >"$TMP/jf.json" 2>"$TMP/err" ||
		{ fail "exit $?: $(cat "$TMP/err")"; return; }
	after=$(sed -n 's/^jiffies: //p' /proc/timer_list | head -1)
	msg=$(python3 - "$TMP/jf.json" "$before" "$after" <<-'EOF'
	import json, sys
	ev = [x for x in map(json.loads, filter(str.strip, open(sys.argv[1]))) if "jiffies" in x]
	kd = [x["jiffies"] for x in ev]
	lo, hi = int(sys.argv[2]), int(sys.argv[3])
	steps = [b - a for a, b in zip(kd, kd[1:])]
	secs = [b["time"] - a["time"] for a, b in zip(ev, ev[1:])]
	hz = min((100, 250, 300, 1000), key=lambda h: abs(h - sum(steps) / max(sum(secs), 1e-9)))
	# a timer run late makes a longer step: each step is HZ times the lines' own
	ok = (2 <= len(kd) <= 4 and all(lo <= j <= hi for j in kd) and
	      all(abs(x - t * hz) <= 1.5 for x, t in zip(steps, secs)))
	print("ok HZ %d: %s, /proc/timer_list %d before, %d after" % (hz, kd, lo, hi) if ok else
	      "lines %s, steps %s, /proc/timer_list %d..%d" % (kd, steps, lo, hi))
	EOF
	)
	[ "${msg%% *}" = ok ] || { fail "$msg"; return; }
	pass "${msg#ok }"
}

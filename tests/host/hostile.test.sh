# Names are data, never markup or control: a process that renames itself
# (tests/workloads/namer.c: invalid UTF-8, terminal escapes that set the
# title, write the clipboard or clear the screen, CR, LF, quotes, commas, a
# spreadsheet formula, markup, a pipe and a backslash) and opens files of
# those names, through every view.  Each name must come out as the project's
# one rule (text_escape in src/lib/util.h) gives it, read back to its bytes, in
# output that its format's own reader accepts.
# shellcheck shell=bash

# The names of namer.c and the rule, in Python, for the checks below.
HOSTILE_PY='
import json, re, sys
NAMES = [b"\xffbad", b"\x1b]52;c;aGk=\x07", b"\x1b]0;pwn\x07", b"\x1b[2J\x1b[H",
         b"a\rb\nc\"d,e", b"=HYPERLINK(1)", b"<script>x", b"a|b\\c", b"x y=1 \xc3\xa9"]
def esc(b):
    out, i = [], 0
    while i < len(b):
        c = b[i]
        if c < 0x80:
            out.append("\\\\" if c == 0x5c else chr(c) if 0x20 <= c < 0x7f else "\\x%02x" % c)
            i += 1
            continue
        for n in (2, 3, 4):
            try:
                ch = b[i:i + n].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(ch) == 1 and not 0x80 <= ord(ch) < 0xa0:
                out.append(ch)
                i += n
                break
        else:
            out.append("\\x%02x" % c)
            i += 1
    return "".join(out)
def unesc(s):
    return re.sub(rb"\\(\\|x([0-9a-fA-F]{2}))",
                  lambda m: bytes([int(m.group(2), 16)]) if m.group(2) else b"\\", s.encode())
def clean(path, allow="\n"):
    """the whole file: strict UTF-8, no control character but newlines
    (and the tabs of the page'"'"'s own script)"""
    t = open(path, "rb").read().decode("utf-8")
    bad = [c for c in t if (ord(c) < 0x20 and c not in allow) or 0x7f <= ord(c) < 0xa0]
    assert not bad, "control characters %r in %s" % (bad[:5], path)
    return t
'

hostile_run() {
	"$KDIST" "$@" -c "$WL/namer 7 $TMP/nodir" 2>"$TMP/err"
}

# hostile_check PYTHON ARGS...: HOSTILE_PY then PYTHON; prints ok or why not
hostile_check() {
	local code=$1
	shift
	python3 -c "$HOSTILE_PY
try:
$(sed 's/^/    /' <<<"$code")
    print('ok')
except Exception as e:
    print(type(e).__name__, str(e)[:400])" "$@"
}

test_hostile_names_text() {
	local msg
	# --all: every group in text, not the first screen of them
	hostile_run syscalls --by comm --all >"$TMP/h.txt" || { fail "exit $?: $(cat "$TMP/err")"; return; }
	msg=$(hostile_check '
t = clean(sys.argv[1])
for n in NAMES:
    line = "syscall = getppid, comm = %s, error = ok\n" % esc(n)
    assert line in t, "no line %r" % line
    assert unesc(esc(n)) == n' "$TMP/h.txt")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	pass "9 names, each its own group, escaped as text_escape gives them"
}

test_hostile_names_json_csv() {
	local msg
	hostile_run syscalls --by comm -o json >"$TMP/h.json" || { fail "json: exit $?: $(cat "$TMP/err")"; return; }
	hostile_run syscalls --by comm -o csv >"$TMP/h.csv" || { fail "csv: exit $?: $(cat "$TMP/err")"; return; }
	msg=$(hostile_check '
import csv
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
got = {unesc(g["by"]["comm"]): g["count"] for g in d["groups"] if g["by"]["syscall"] == "getppid"}
for n in NAMES:
    assert got.get(n) == 7, "%r: %r" % (n, got.get(n))
clean(sys.argv[2])
rows = [r for r in csv.DictReader(open(sys.argv[2], encoding="utf-8", newline="")) if r["syscall"] == "getppid"]
cells = {r["comm"]: int(r["count"]) for r in rows}
for n in NAMES:
    want = ("\x27" if n[:1] in b"=+-@" else "") + esc(n)
    assert cells.get(want) == 7, "csv %r: %r in %r" % (want, cells.get(want), list(cells))
assert not [c for c in cells if c[:1] in "=+-@"], cells' "$TMP/h.json" "$TMP/h.csv")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	pass "JSON: strict UTF-8, names read back to their bytes, 7 getppid each; CSV: the formula cell starts with a quote"
}

test_hostile_names_html_report_diff() {
	local msg rc
	hostile_run syscalls --by comm -o html >"$TMP/h.html"; rc=$?
	[ $rc = 0 ] && [ -s "$TMP/h.html" ] || { fail "-o html: exit $rc, $(wc -c <"$TMP/h.html") bytes: $(cat "$TMP/err")"; return; }
	hostile_run syscalls --by comm -o json >"$TMP/h.json" || { fail "json: exit $?"; return; }
	"$KDIST" report "$TMP/h.json" >"$TMP/r.html" 2>"$TMP/err" || { fail "report: exit $?: $(cat "$TMP/err")"; return; }
	"$KDIST" diff "$TMP/h.json" "$TMP/h.json" >"$TMP/d.txt" 2>"$TMP/err" || { fail "diff: exit $?: $(cat "$TMP/err")"; return; }
	"$KDIST" diff "$TMP/h.json" "$TMP/h.json" -o markdown >"$TMP/d.md" 2>/dev/null || { fail "diff -o markdown: exit $?"; return; }
	"$KDIST" diff "$TMP/h.json" "$TMP/h.json" -o csv >"$TMP/d.csv" 2>/dev/null || { fail "diff -o csv: exit $?"; return; }
	msg=$(hostile_check '
import csv
for page in sys.argv[1:3]:
    t = clean(page, "\n\t")
    data = re.search(r"<script type=\"application/json\" id=\"kdist-data\">(.*?)</script>", t, re.S).group(1)
    docs = json.loads(data)
    got = {unesc(g["by"]["comm"]) for g in docs[0]["groups"]}
    assert set(NAMES) <= got, (page, got)
    assert "<script>x" not in t.replace("<script>\n", "").replace("<script type=", ""), page
t = clean(sys.argv[3])
for n in NAMES:
    assert "getppid %s ok " % esc(n) in t, "diff text: %r" % esc(n)
md = clean(sys.argv[4]).splitlines()
rows = [l for l in md if l.startswith("|")]
cols = len(re.findall(r"(?<!\\)\|", rows[0]))
assert all(len(re.findall(r"(?<!\\)\|", l)) == cols for l in rows), "a row breaks the table"
assert len(rows) == 2 + len(set(l.split(" | ")[0] for l in rows[2:])), "rows"
assert "<script>" not in "".join(md) and "&lt;script&gt;x" in "".join(md)
clean(sys.argv[5])
cells = [r["group"] for r in csv.DictReader(open(sys.argv[5], encoding="utf-8", newline=""))]
assert not [c for c in cells if c[:1] in "=+-@"], cells
' "$TMP/h.html" "$TMP/r.html" "$TMP/d.txt" "$TMP/d.md" "$TMP/d.csv")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	pass "-o html and report: pages with every name; diff text, markdown (one cell each, no raw HTML) and csv"
}

test_hostile_names_svg_folded() {
	local msg
	hostile_run offcpu -o svg >"$TMP/h.svg" || { fail "svg: exit $?: $(cat "$TMP/err")"; return; }
	hostile_run offcpu -o folded >"$TMP/h.folded" || { fail "folded: exit $?: $(cat "$TMP/err")"; return; }
	xmllint --noout "$TMP/h.svg" 2>"$TMP/xml" || { fail "xmllint: $(head -3 "$TMP/xml")"; return; }
	"$KDIST" diff "$TMP/h.folded" "$TMP/h.folded" >"$TMP/df.txt" 2>"$TMP/err" || { fail "diff folded: $(cat "$TMP/err")"; return; }
	"$KDIST" diff "$TMP/h.folded" "$TMP/h.folded" -o svg >"$TMP/df.svg" 2>"$TMP/err" || { fail "diff folded svg: $(cat "$TMP/err")"; return; }
	xmllint --noout "$TMP/df.svg" 2>"$TMP/xml" || { fail "xmllint diff: $(head -3 "$TMP/xml")"; return; }
	msg=$(hostile_check '
import xml.etree.ElementTree as ET
titles = " ".join(e.text or "" for e in ET.parse(sys.argv[1]).iter("{http://www.w3.org/2000/svg}title"))
roots = {l.split(";")[0] for l in clean(sys.argv[2]).splitlines()}
t = clean(sys.argv[3])
want = {esc(n).replace(";", ":") for n in NAMES}	# the frame separator folds to ":"
# which name a blocked time is charged to is offcpu'"'"'s (a loaded machine
# moved one sleep to the next name now and then); that each is escaped is
# checked here: every root is an escaped name or a plain word
odd = [r for r in roots if r not in want and not re.fullmatch(r"[a-z0-9_.-]+", r)]
assert not odd, "folded roots %r" % odd
found = want & roots
assert len(found) >= 5, "folded: only %r" % found
for e in found:
    assert e in t, "diff folded: %r" % e
svg = {e for e in want if e in titles}
assert len(svg) >= 5, "svg: only %r" % svg' "$TMP/h.svg" "$TMP/h.folded" "$TMP/df.txt")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	pass "offcpu SVG valid XML; folded roots all escaped names or plain words, diffed back alike"
}

test_hostile_names_trace_and_slower_than() {
	local msg
	hostile_run trace syscalls:sys_exit_openat --if 'ret == -2' --fields ret,filename >"$TMP/t.txt" ||
		{ fail "trace: exit $?: $(cat "$TMP/err")"; return; }
	hostile_run trace syscalls:sys_exit_openat --if 'ret == -2' --fields ret,filename -o json >"$TMP/t.json" ||
		{ fail "trace json: exit $?: $(cat "$TMP/err")"; return; }
	hostile_run pair syscalls:sys_enter_nanosleep syscalls:sys_exit_nanosleep --by comm --slower-than 10ms >"$TMP/s.txt" ||
		{ fail "--slower-than: exit $?: $(cat "$TMP/err")"; return; }
	msg=$(hostile_check '
def word(s, quoted):
    s = s.replace("\"", "\\x22")
    return "\"%s\"" % s if quoted else s.replace(" ", "\\x20")
lines = clean(sys.argv[1]).splitlines()
for n in NAMES:
    tail = " ret=-2 error=\"ENOENT\" filename=%s" % word(esc(sys.argv[4].encode() + b"/" + n), True)
    hit = [l for l in lines if l.endswith(tail)]
    assert len(hit) == 1, "trace: %r in %r" % (tail, lines)
    assert hit[0].split()[1] == word(esc(n), False), hit[0]
    assert unesc(hit[0].split()[1].replace("\\x20", " ").replace("\\x22", "\"")) == n
docs = [json.loads(l) for l in open(sys.argv[2], "rb").read().decode("utf-8").splitlines()]
files = sorted(unesc(x["filename"]) for x in docs if "filename" in x)
assert files == sorted(sys.argv[4].encode() + b"/" + n for n in NAMES), files
assert sorted(unesc(x["comm"]) for x in docs if "filename" in x) == sorted(NAMES)
slow = [l.split()[1] for l in clean(sys.argv[3]).splitlines() if re.match(r"^\d\d:\d\d:\d\d\.\d+ ", l)]
assert sorted(slow) == sorted(word(esc(n), False) for n in NAMES), slow
' "$TMP/t.txt" "$TMP/t.json" "$TMP/s.txt" "$TMP/nodir")
	[ "$msg" = ok ] || { fail "$msg"; return; }
	pass "trace: comm one column, filename quoted, both read back; JSON strict; --slower-than lines escaped"
}

# A broken file's bytes quoted in an error message are escaped too: the
# message goes to the terminal (before: ESC [ 2 J cleared it).
test_hostile_bytes_in_error_messages() {
	local rc bad=0
	printf '{"a":\033[2Jx}' >"$TMP/esc.json"
	printf 'a;b 1\033[2J\n' >"$TMP/esc.folded"
	"$KDIST" report "$TMP/esc.json" >/dev/null 2>"$TMP/e1"; rc=$?
	[ $rc = 2 ] && grep -qF "invalid token near '\\x1b'" "$TMP/e1" && ! grep -q $'\033' "$TMP/e1" ||
		{ echo "  report: exit $rc, $(cat -v "$TMP/e1")"; bad=$((bad + 1)); }
	"$KDIST" diff "$TMP/esc.folded" "$TMP/esc.folded" >/dev/null 2>"$TMP/e2"; rc=$?
	[ $rc = 2 ] && grep -qF "bad value '1\\x1b[2J'" "$TMP/e2" && ! grep -q $'\033' "$TMP/e2" ||
		{ echo "  diff: exit $rc, $(cat -v "$TMP/e2")"; bad=$((bad + 1)); }
	[ $bad = 0 ] && pass "JSON and folded errors quote the bytes escaped" || fail "$bad wrong"
}

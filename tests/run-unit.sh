#!/bin/bash
# Run every unit test binary (no root needed); sum their closing lines.
# UNIT_DIR picks another build of them (the sanitizer build: build/asan/tests);
# UNIT_RUN runs each through an emulator (a cross build: qemu-aarch64-static).
cd "$(dirname "$0")/.." || exit 1
p=0 f=0 s=0
for t in "${UNIT_DIR:-build/tests}"/test_*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	echo "== $t"
	out=$(${UNIT_RUN:-} "$t" 2>&1); rc=$?
	echo "$out"
	line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
	if [ -z "$line" ]; then
		echo "FAIL $t: no closing line (exit $rc)"; f=$((f + 1)); continue
	fi
	read -r tp _ tf _ ts _ <<<"$(echo "$line" | tr -d ',')"
	p=$((p + tp)) f=$((f + tf)) s=$((s + ${ts:-0}))
	[ $rc -ne 0 ] && [ "$tf" -eq 0 ] && { echo "FAIL $t: exit $rc"; f=$((f + 1)); }
done
# the tree's layering (docs/architecture.md), with the source, not a binary
if [ -z "${UNIT_DIR:-}" ]; then
	echo "== scripts/layers.py"
	out=$(scripts/layers.py 2>&1); rc=$?
	echo "$out" | grep -v '^PASS'
	read -r tp _ tf _ <<<"$(echo "$out" | tail -1 | tr -d ',')"
	p=$((p + tp)) f=$((f + tf))
	[ $rc -ne 0 ] && [ "$tf" -eq 0 ] && f=$((f + 1))
fi
echo "unit: $p passed, $f failed, $s skipped"
[ $f -eq 0 ]

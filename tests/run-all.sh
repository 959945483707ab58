#!/bin/bash
# make check: unit, sanitizer (ASan/UBSan), host, doc and VM tiers; one closing
# line for all of them.
cd "$(dirname "$0")/.." || exit 1
p=0 f=0 s=0
for tier in tests/run-unit.sh tests/run-asan.sh tests/host/run.sh tests/doc/run.sh tests/vm/run.sh; do
	echo "=== $tier"
	"$tier" 2>&1 | tee build/last-tier.log
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' build/last-tier.log | tail -1)
	if [ -z "$line" ]; then
		echo "FAIL $tier: ended without a result line"; f=$((f + 1)); continue
	fi
	nums=$(echo "$line" | grep -oE '[0-9]+ (passed|failed|skipped)')
	p=$((p + $(echo "$nums" | awk '/passed/{print $1}')))
	f=$((f + $(echo "$nums" | awk '/failed/{print $1}')))
	s=$((s + $(echo "$nums" | awk '/skipped/{print $1}' | grep . || echo 0)))
done
echo
echo "$p passed, $f failed, $s skipped"
[ $f -eq 0 ]

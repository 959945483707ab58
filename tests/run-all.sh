#!/bin/bash
# make check: unit, sanitizer (ASan/UBSan), host, doc and VM tiers; one closing
# line for all of them.  The fast tiers come first, and a failure there stops
# the run (the VM tier would take most of an hour to say more).
# KDIST_TIERS="unit asan host doc" (make check-fast) runs some of them.
# Each tier's time and slowest cases are summed up at the end.
cd "$(dirname "$0")/.." || exit 1
declare -A runner=([unit]=tests/run-unit.sh [asan]=tests/run-asan.sh [host]=tests/host/run.sh
	[doc]=tests/doc/run.sh [vm]=tests/vm/run.sh)
p=0 f=0 s=0 summary=() t_all=$SECONDS
for tier in ${KDIST_TIERS:-unit asan host doc vm}; do
	[ -n "${runner[$tier]:-}" ] || { echo "unknown tier $tier (${!runner[*]})"; exit 2; }
	echo "=== ${runner[$tier]}"
	t0=$SECONDS
	"${runner[$tier]}" 2>&1 | tee build/last-tier.log
	t=$((SECONDS - t0))
	summary+=("$(printf '%-5s %5d s' "$tier" "$t")")
	# the VM flavors' own times, and the slowest cases of each runner
	while read -r line; do summary+=("      $line"); done < <(
		grep -E '^ *\((.*) s including boot\)$' build/last-tier.log | sed 's/^ *(\(.*\))$/\1/'
		grep -E '^ *slow: ' build/last-tier.log | sed 's/^ *slow: *//' | sort -rn | head -5 | sed 's/^/slow: /')
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' build/last-tier.log | tail -1)
	if [ -z "$line" ]; then
		echo "FAIL ${runner[$tier]}: ended without a result line"; f=$((f + 1))
	else
		nums=$(echo "$line" | grep -oE '[0-9]+ (passed|failed|skipped)')
		p=$((p + $(echo "$nums" | awk '/passed/{print $1}')))
		f=$((f + $(echo "$nums" | awk '/failed/{print $1}')))
		s=$((s + $(echo "$nums" | awk '/skipped/{print $1}' | grep . || echo 0)))
	fi
	if [ $f -gt 0 ] && [ "$tier" != vm ]; then
		echo "stopped after the $tier tier: $f failed"
		break
	fi
done
echo
echo "where the time went ($((SECONDS - t_all)) s in all):"
printf '  %s\n' "${summary[@]}"
echo "$p passed, $f failed, $s skipped"
[ $f -eq 0 ]

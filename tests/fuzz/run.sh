#!/bin/bash
# make fuzz: run each libFuzzer target (build/asan/fuzz/NAME) for
# FUZZ_SECONDS, seeded by tests/fuzz/corpus/NAME/.  New inputs go to
# build/fuzz/corpus/NAME/ (the committed corpus is only read; merge a
# worthwhile one by hand with -merge=1), crashes to build/fuzz/crashes/.
# Usage: tests/fuzz/run.sh NAME...
cd "$(dirname "$0")/../.." || exit 1
secs=${FUZZ_SECONDS:-60}
export ASAN_OPTIONS=abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
p=0 f=0
mkdir -p build/fuzz/crashes
for name in "$@"; do
	bin=build/asan/fuzz/$name
	new=build/fuzz/corpus/$name
	log=build/fuzz/$name.log
	mkdir -p "$new"
	# -close_fd_mask=2: the parsers' error messages would drown libFuzzer's
	# own lines; crash reports still reach the log
	"$bin" -max_total_time="$secs" -timeout=10 -close_fd_mask=2 -print_final_stats=1 \
		-artifact_prefix=build/fuzz/crashes/"$name"- "$new" tests/fuzz/corpus/"$name" \
		>"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	size=$(ls "$new" | wc -l)
	if [ $rc -eq 0 ]; then
		echo "PASS $name: ${runs:-?} runs in ${secs} s, $size inputs kept in $new"
		p=$((p + 1))
	else
		echo "FAIL $name: exit $rc after ${runs:-?} runs; see $log"
		grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -5
		f=$((f + 1))
	fi
done
echo "$p passed, $f failed, 0 skipped"
[ $f -eq 0 ]

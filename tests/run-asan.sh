#!/bin/bash
# The sanitizer tier of `make check`: the unit tests built with ASan and
# UBSan (build/asan/tests), then every committed fuzz corpus file run once
# through its target (build/asan/replay/NAME, tests/fuzz/corpus/NAME/).
# Any sanitizer report aborts the binary and counts as a failure.
cd "$(dirname "$0")/.." || exit 1
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
p=0 f=0 s=0

out=$(UNIT_DIR=build/asan/tests tests/run-unit.sh 2>&1)
echo "$out"
read -r tp _ tf _ ts _ <<<"$(echo "$out" | grep -E '^unit: [0-9]+ passed' | tail -1 |
	sed 's/^unit: //' | tr -d ',')"
if [ -z "$tp" ]; then
	echo "FAIL asan unit tests: no closing line"; f=$((f + 1))
else
	p=$((p + tp)) f=$((f + tf)) s=$((s + ts))
fi

log=$(mktemp)
trap 'rm -f "$log" "$log.out"' EXIT
for dir in tests/fuzz/corpus/*/; do
	name=$(basename "$dir")
	bin=build/asan/replay/$name
	files=("$dir"*)
	if [ ! -x "$bin" ]; then
		echo "FAIL replay $name: $bin not built"; f=$((f + 1)); continue
	fi
	# the parsers' own error messages go to the log, shown only on failure
	"$bin" "${files[@]}" >"$log.out" 2>"$log"; rc=$?
	ok=$(grep -c '^PASS ' "$log.out")
	p=$((p + ok))
	if [ $rc -ne 0 ] || [ "$ok" -ne ${#files[@]} ]; then
		bad=${files[$ok]:-?}
		echo "FAIL replay $name: $bad (exit $rc)"
		grep -E 'ERROR|runtime error|SUMMARY|assertion failed|failed to open|^    #[0-9]' "$log" | head -30
		f=$((f + 1))
	else
		echo "PASS replay $name: ${#files[@]} inputs"
	fi
	rm -f "$log.out"
done
echo "asan: $p passed, $f failed, $s skipped"
[ $f -eq 0 ]

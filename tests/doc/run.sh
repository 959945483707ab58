#!/bin/bash
# Doc tests: every shell example of README.md, docs/*.md and kdist(1), run
# as printed (tests/doc/run.py).  TEST_FILTER=substr runs a subset.
cd "$(dirname "$0")/../.." || exit 1
if [ "$(id -u)" != 0 ]; then
	echo "SKIP doc: the examples need root"
	echo; echo "0 passed, 0 failed, 1 skipped"; exit 0
fi
exec python3 tests/doc/run.py

#!/bin/sh
# make bench: see bench/bench.py.  Needs root.
exec python3 "$(dirname "$0")/bench.py" "$@"

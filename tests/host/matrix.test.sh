# The command matrix (tests/matrix.sh) on the host kernel; results also go
# to build/matrix/host.tsv for docs/testing.md (make matrix-doc).
# shellcheck shell=bash
mkdir -p "$TOP/build/matrix"
export KDIST_MATRIX_OUT=${KDIST_MATRIX_OUT:-$TOP/build/matrix/host.tsv}
printf '#kernel\t%s\thost\n' "$(uname -r)" >"$KDIST_MATRIX_OUT"
source "$TOP/tests/matrix.sh"

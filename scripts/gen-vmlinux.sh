#!/bin/sh
# scripts/gen-vmlinux.sh [ARCH [SOURCE]]
#
# Regenerate the committed vmlinux/ARCH/vmlinux.h (ARCH x86 or arm64) from
# a kernel's BTF.  BPF objects use CO-RE, so one header per architecture
# serves every kernel with BTF; regenerate only to use types that are new.
#
# SOURCE is raw BTF (/sys/kernel/btf/vmlinux of a running kernel, the
# default on a machine of that architecture), an ELF vmlinux, or a kernel
# image (vmlinuz, gzip-compressed or not).  A kernel image has no section
# table, but the kernel keeps its BTF in it byte for byte (that is what
# /sys/kernel/btf/vmlinux exposes): the BTF blob is found by its header
# (magic 0xeb9f, whose section sizes must add up) and cut out.  Without
# SOURCE on another architecture, the Debian 6.12 kernel image of the VM
# tier (tests/vm/vm-kernel.sh arm64-6.12) is used, so an x86 machine makes
# the arm64 header with no arm64 machine at hand.
set -e
cd "$(dirname "$0")/.."
host=$(uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')
arch=${1:-$host}
case $arch in
x86|arm64) ;;
*) echo "gen-vmlinux.sh: unknown ARCH '$arch' (x86 or arm64)" >&2; exit 2 ;;
esac
src=$2
if [ -z "$src" ]; then
	if [ "$arch" = "$host" ]; then
		src=/sys/kernel/btf/vmlinux
	else
		root=$(tests/vm/vm-kernel.sh "$arch-6.12")
		src=$(ls "$root"/boot/vmlinuz-*)
	fi
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$src" "$tmp/btf" <<'PY'
import gzip, struct, sys
data = open(sys.argv[1], "rb").read()
if data[:2] == b"\x1f\x8b":
    data = gzip.decompress(data)
if data[:4] == b"\x9f\xeb\x01\x00" or data[:4] == b"\x7fELF":
    open(sys.argv[2], "wb").write(data)   # raw BTF or ELF: bpftool reads both
    sys.exit(0)
best = b""
i = data.find(b"\x9f\xeb\x01\x00")
while i >= 0:
    if i + 24 <= len(data):
        hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from("<5I", data, i + 4)
        end = i + hdr_len + str_off + str_len
        if hdr_len == 24 and type_off == 0 and str_off == type_len and end <= len(data) \
           and end - i > len(best):
            best = data[i:end]
    i = data.find(b"\x9f\xeb\x01\x00", i + 1)
if not best:
    sys.exit("gen-vmlinux.sh: no BTF in " + sys.argv[1])
open(sys.argv[2], "wb").write(best)
PY
mkdir -p "vmlinux/$arch"
bpftool btf dump file "$tmp/btf" format c > "vmlinux/$arch/vmlinux.h.tmp"
mv "vmlinux/$arch/vmlinux.h.tmp" "vmlinux/$arch/vmlinux.h"
echo "vmlinux/$arch/vmlinux.h regenerated from $src"

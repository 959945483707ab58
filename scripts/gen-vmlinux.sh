#!/bin/sh
# Regenerate the committed vmlinux.h from the running kernel's BTF.  BPF
# objects use CO-RE, so one header serves every kernel with BTF; regenerate
# only to use types that are new.
set -e
cd "$(dirname "$0")/.."
bpftool btf dump file "${1:-/sys/kernel/btf/vmlinux}" format c > vmlinux/vmlinux.h.tmp
mv vmlinux/vmlinux.h.tmp vmlinux/vmlinux.h
echo "vmlinux/vmlinux.h regenerated from ${1:-/sys/kernel/btf/vmlinux}"

#!/bin/sh
# Make the ELF seed corpus (tests/fuzz/corpus/elf/): tiny programs, libraries
# and objects that cover what the loader reads: .symtab and .dynsym, a
# build-id note, a .gnu_debuglink with its CRC, ELF32 and relocatable files.
# The outputs are committed; this script documents how they were made.
set -e
out=${1:-tests/fuzz/corpus/elf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
cat > "$tmp/tiny.c" <<'C'
__attribute__((noinline)) int helper(int x) { return x * 3; }
static __attribute__((noinline)) int local_helper(int x) { return x + helper(x); }
int alias_helper(int) __attribute__((weak, alias("helper")));
void _start(void)
{
	int r = local_helper(1);

	__asm__ volatile("mov $60, %%eax; syscall" :: "D"(r));
}
C
# -n: no page alignment between segments, so the file stays a few KB
common="-Os -nostdlib -fno-asynchronous-unwind-tables -Wl,-n -Wl,--build-id
	-Wl,-z,max-page-size=16 -Wl,--no-warn-rwx-segments"
cc $common -static -o "$tmp/tiny" "$tmp/tiny.c"
cp "$tmp/tiny" "$out/tiny"
objcopy --only-keep-debug "$tmp/tiny" "$tmp/tiny.debug"
strip -o "$out/tiny.stripped" "$tmp/tiny"
objcopy --add-gnu-debuglink="$tmp/tiny.debug" "$out/tiny.stripped"
# without section headers (e_shoff, e_shnum, e_shstrndx zeroed): the
# build-id is found through PT_NOTE only
cp "$tmp/tiny" "$out/tiny.noshdr"
printf '\0\0\0\0\0\0\0\0' | dd of="$out/tiny.noshdr" bs=1 seek=40 conv=notrunc 2>/dev/null
printf '\0\0\0\0' | dd of="$out/tiny.noshdr" bs=1 seek=60 conv=notrunc 2>/dev/null
cc $common -shared -fPIC -o "$out/tiny.so" "$tmp/tiny.c"
cc -Os -c -o "$out/tiny.o" "$tmp/tiny.c"
clang -Os -target i386-linux-gnu -c -o "$out/tiny32.o" "$tmp/tiny.c"
ls -l "$out"

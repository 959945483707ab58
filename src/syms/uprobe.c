// SPDX-License-Identifier: GPL-2.0
/* Uprobes that leave the traced program alone (see uprobe.h and
 * docs/func.md, "User functions: what is not probed"). */
#include "syms/uprobe.h"
#include "syms/elfsyms.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The opcode byte of a VEX, EVEX or XOP encoded instruction at p, or -1
 * for any other instruction (legacy prefixes skipped). */
static int vex_opcode(const unsigned char *p, size_t len)
{
	size_t i = 0;

	while (i < len && strchr("\x66\x67\xf2\xf3\x2e\x3e\x26\x36\x64\x65\xf0", p[i]) && p[i])
		i++;
	if (i + 4 >= len)
		return -1;
	switch (p[i]) {
	case 0xc5:		/* two-byte VEX */
		return p[i + 2];
	case 0xc4:		/* three-byte VEX */
		return p[i + 3];
	case 0x62:		/* EVEX (BOUND does not exist in 64-bit mode) */
		return p[i + 4];
	case 0x8f:		/* XOP, where the map field says so (else POP r/m) */
		return (p[i + 1] & 0x1f) >= 8 ? p[i + 3] : -1;
	default:
		return -1;
	}
}

/* The x86 uprobe code picks how to step over the probed instruction by its
 * opcode byte, read as if it were a legacy one-byte opcode, also after a
 * VEX/EVEX/XOP prefix: 0x70-0x7f are then emulated as a conditional jump,
 * 0xe8 as a call, 0xe9/0xeb as a jump and 0x90 as a nop, and the real
 * instruction never runs (arch/x86/kernel/uprobes.c, branch_setup_xol_ops).
 * glibc's AVX-512 string functions start with "vpbroadcastb %esi,%ymm16"
 * (62 .. 7a: "jp"): a probe there makes memset() leave memory unset and
 * strchr() search for garbage. */
static bool emulated_as_branch(int op)
{
	return (op >= 0x70 && op <= 0x7f) || op == 0xe8 || op == 0xe9 || op == 0xeb ||
	       op == 0x90;
}

/* The x86 rule: NULL, or why a probe on the instruction at p would change
 * what the program does. */
const char *uprobe_insn_x86(const unsigned char *p, size_t len)
{
	int op = vex_opcode(p, len);

	if (op >= 0 && emulated_as_branch(op))
		return "its first instruction (VEX/EVEX encoded) would be emulated by the "
		       "kernel as a branch, not executed";
	return NULL;
}

static bool insn_is(uint32_t insn, uint32_t mask, uint32_t val)
{
	return (insn & mask) == val;
}

/* The arm64 rule.  The kernel runs the probed instruction alone in a slot
 * of its own page (single-stepped) or simulates it, and refuses a probe on
 * any other (uprobe_register fails with EINVAL: arm_probe_decode_insn() in
 * arch/arm64/kernel/probes/decode-insn.c, masks from asm/insn.h).  Refused
 * here first, with the reason, so one such function does not fail a whole
 * set.  Simulated, so accepted: b, bl, b.cond, cbz/cbnz, tbz/tbnz, br, blr,
 * ret, adr, adrp. */
const char *uprobe_insn_arm64(const unsigned char *p, size_t len, uint64_t offset)
{
	uint32_t insn, hint;

	if (offset % 4)
		return "not at an instruction boundary (arm64 instructions are 4 bytes)";
	if (len < 4)
		return "its first instruction cannot be read";
	insn = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	if (((insn >> 25) & 0xe) == 0xa) {	/* branches, exceptions, system */
		if (insn_is(insn, 0xfefff800, 0xd61f0800) ||	/* braa, brab, ... */
		    insn_is(insn, 0xfefff800, 0xd63f0800) ||	/* blraa, blrab, ... */
		    insn_is(insn, 0xfffffbff, 0xd65f0bff))	/* retaa, retab */
			return "its first instruction is a pointer-authenticated branch, "
			       "which the arm64 kernel neither steps nor simulates";
		if (insn_is(insn, 0xff000000, 0xd4000000))
			return "its first instruction raises an exception (svc, brk, ...), "
			       "which the arm64 kernel does not step";
		if (insn_is(insn, 0xfff8f01f, 0xd500401f) || insn_is(insn, 0xfff00000, 0xd5100000))
			return "its first instruction writes a system register (msr), "
			       "which the arm64 kernel does not step";
		if (insn_is(insn, 0xffffffff, 0xd69f03e0) || insn_is(insn, 0xfffffbff, 0xd69f0bff))
			return "its first instruction is an exception return (eret)";
		/* mrs of DAIF, the interrupt mask, which stepping changes */
		if (insn_is(insn, 0xfff00000, 0xd5300000) && ((insn >> 5) & 0xffff) == 0xda11)
			return "its first instruction reads DAIF (mrs), which the arm64 kernel "
			       "does not step";
		if (insn_is(insn, 0xfffff01f, 0xd503201f)) {
			/* the hints the kernel steps: nop, the pointer
			 * authentication ones that sign (pac*, xpaclri) and bti */
			hint = (insn >> 5) & 0x7f;
			if (hint != 0x00 && hint != 0x07 && hint != 0x08 && hint != 0x0a &&
			    (hint < 0x18 || hint > 0x1b) && hint != 0x20 && hint != 0x22 &&
			    hint != 0x24 && hint != 0x26)
				return "its first instruction is a hint the arm64 kernel does not "
				       "step (autiasp, wfe, ...)";
		}
		return NULL;
	}
	if (insn_is(insn, 0xbf000000, 0x18000000) || insn_is(insn, 0xff000000, 0x98000000) ||
	    insn_is(insn, 0xff000000, 0xd8000000))
		return "its first instruction loads a PC-relative literal (ldr, ldrsw, prfm), "
		       "which the arm64 kernel neither steps nor simulates";
	if (insn_is(insn, 0x3f800000, 0x08000000))
		return "its first instruction is an exclusive load or store (ldxr, stxr, ...), "
		       "which single-stepping would never let complete";
	if (insn_is(insn, 0x3b200c00, 0x19000400))
		return "its first instruction is a memory copy/set sequence (mops), which "
		       "the arm64 kernel does not step";
	return NULL;
}

/* Functions that read their own return address, which a return probe has
 * replaced with the kernel's trampoline.  setjmp and getcontext save it as
 * the place to resume: a later longjmp then jumps into the trampoline after
 * that call's return instance is gone, and the kernel returns to another
 * instance's caller (a loop: sh's stack overflow) or finds none (SIGILL,
 * "failed to handle uretprobe").  dlsym(RTLD_NEXT) and dlopen() use it to
 * find their caller's object. */
static const char *const return_address_readers[] = {
	"setjmp", "sigsetjmp", "getcontext", "swapcontext",
	"dlopen", "dlmopen", "dlsym", "dlvsym", "libc_dlopen_mode",
};

const char *uprobe_unsafe(int fd, const struct elf_sym *sym, uint64_t offset, bool retprobe)
{
	const char *base = sym->name + strspn(sym->name, "_");
	unsigned char insn[16];
	ssize_t n;

	if (!sym->size)
		return "no size: not entered by a call (a signal return trampoline, a label)";
	if (strstr(sym->name, ".cold"))
		return "the cold part of another function, entered by a jump";
	/* ld.so's lazy binding entry: the PLT jumps there with two words pushed */
	if (!strncmp(sym->name, "_dl_runtime_", 12))
		return "entered by a jump from the PLT, not by a call";
	/* where a makecontext() function returns to, its stack top uc_link */
	if (!strcmp(base, "start_context"))
		return "entered by the return of a makecontext() function, not by a call";
	if (!strncmp(base, "GI_", 3))	/* glibc's internal aliases */
		base += 3 + strspn(base + 3, "_");
	for (size_t i = 0; retprobe && i < ARRAY_SIZE(return_address_readers); i++)
		if (!strcmp(base, return_address_readers[i]))
			return "it reads its own return address, which a return probe replaces";
	n = pread(fd, insn, sizeof(insn), (off_t)offset);
	if (n <= 0)
		return "its first instruction cannot be read";
#if defined(__aarch64__)
	return uprobe_insn_arm64(insn, (size_t)n, offset);
#else
	return uprobe_insn_x86(insn, (size_t)n);
#endif
}

int uprobe_refuse_unsafe(const char *path, const char *name, bool retprobe, const char *spec)
{
	struct elf_syms *es = elf_syms_open(path);
	const struct elf_sym *sym = es ? elf_syms_find_name(es, name) : NULL;
	const char *why = NULL;
	uint64_t off = 0;
	int fd = sym ? open(path, O_RDONLY | O_CLOEXEC) : -1;

	if (fd >= 0 && (sym->offset || !elf_syms_vaddr_to_offset(es, sym->addr, &off)))
		why = uprobe_unsafe(fd, sym, sym->offset ? sym->offset : off, retprobe);
	if (fd >= 0)
		close(fd);
	elf_syms_free(es);
	if (!why)
		return 0;
	kd_err("refusing to probe %s: %s", spec, why);
	return -EINVAL;
}

int uprobe_refuse_self(const char *path, const char *spec)
{
	struct stat a, b;

	if (stat(path, &a) || stat("/proc/self/exe", &b) || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino)
		return 0;
	kd_err("refusing to trace %s: %s is kdist itself", spec, path);
	return -EINVAL;
}

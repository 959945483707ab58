// SPDX-License-Identifier: GPL-2.0
/* The uprobe instruction rules of both architectures, on encodings made
 * by the assembler (aarch64-linux-gnu-as, objdump -d). */
#include "check.h"
#include "syms/uprobe.h"

#include <string.h>

static const char *arm64(uint32_t insn, uint64_t off)
{
	unsigned char b[4] = { insn, insn >> 8, insn >> 16, insn >> 24 };

	return uprobe_insn_arm64(b, sizeof(b), off);
}

static void test_arm64(void)
{
	static const struct { uint32_t insn; const char *name, *why; } t[] = {
		/* stepped out of line or simulated: accepted */
		{ 0xa9bf7bfd, "stp x29, x30, [sp, #-16]!", NULL },
		{ 0xd503233f, "paciasp", NULL },
		{ 0xd503245f, "bti c", NULL },
		{ 0xd503201f, "nop", NULL },
		{ 0xd10083ff, "sub sp, sp, #32", NULL },
		{ 0x90000000, "adrp x0", NULL },
		{ 0x10000001, "adr x1", NULL },
		{ 0x14000000, "b", NULL },
		{ 0x94000000, "bl", NULL },
		{ 0xb4000000, "cbz x0", NULL },
		{ 0x54000001, "b.ne", NULL },
		{ 0xd65f03c0, "ret", NULL },
		{ 0xd63f0060, "blr x3", NULL },
		{ 0xd53bd040, "mrs x0, tpidr_el0", NULL },
		{ 0xc8dffc20, "ldar x0, [x1]", NULL },
		/* refused by the kernel */
		{ 0x58000000, "ldr x0, literal", "PC-relative literal" },
		{ 0x98000001, "ldrsw x1, literal", "PC-relative literal" },
		{ 0xd8000000, "prfm pldl1keep, literal", "PC-relative literal" },
		{ 0xc85f7c20, "ldxr x0, [x1]", "exclusive" },
		{ 0xc802fc20, "stlxr w2, x0, [x1]", "exclusive" },
		{ 0x885ffc20, "ldaxr w0, [x1]", "exclusive" },
		{ 0xd4000001, "svc #0", "exception" },
		{ 0xd4200020, "brk #1", "exception" },
		{ 0xd51bd040, "msr tpidr_el0, x0", "system register" },
		{ 0xd65f0bff, "retaa", "pointer-authenticated" },
		{ 0xd71f0822, "braa x1, x2", "pointer-authenticated" },
		{ 0xd63f087f, "blraaz x3", "pointer-authenticated" },
		{ 0xd50323bf, "autiasp", "hint" },
		{ 0xd503205f, "wfe", "hint" },
		{ 0xd503203f, "yield", "hint" },
		{ 0xd53b4220, "mrs x0, daif", "DAIF" },
		{ 0xd69f03e0, "eret", "exception return" },
		{ 0x19010440, "cpyfp", "mops" },
		{ 0x19c20420, "setp", "mops" },
	};
	const char *why;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char name[80];

		why = arm64(t[i].insn, 0x1000);
		snprintf(name, sizeof(name), "arm64 %s %s", t[i].name,
			 t[i].why ? "refused" : "accepted");
		check(name, t[i].why ? why && strstr(why, t[i].why) : !why,
		      "%s", why ? why : "accepted");
	}
	why = arm64(0xa9bf7bfd, 0x1002);
	check("arm64 offset off the 4-byte grid refused", why && strstr(why, "boundary"), "%s",
	      why ? why : "accepted");
	why = uprobe_insn_arm64((const unsigned char *)"\x1f\x20", 2, 0x1000);
	check("arm64 short read refused", why != NULL, "accepted");
}

static void test_x86(void)
{
	/* vpbroadcastb %esi,%ymm16: EVEX, opcode 0x7a ("jp" to the kernel) */
	static const unsigned char evex_jp[] = { 0x62, 0xe2, 0x7d, 0x28, 0x7a, 0xc6, 0, 0 };
	/* push %rbp; mov %rsp,%rbp */
	static const unsigned char plain[] = { 0x55, 0x48, 0x89, 0xe5, 0, 0, 0, 0 };
	/* vmovdqu (%rsi),%ymm0: VEX, opcode 0x6f */
	static const unsigned char vex[] = { 0xc5, 0xfe, 0x6f, 0x06, 0, 0, 0, 0 };
	const char *why = uprobe_insn_x86(evex_jp, sizeof(evex_jp));

	check("x86 EVEX with a branch opcode refused", why && strstr(why, "as a branch"), "%s",
	      why ? why : "accepted");
	check("x86 push accepted", !uprobe_insn_x86(plain, sizeof(plain)), "refused");
	check("x86 VEX vmovdqu accepted", !uprobe_insn_x86(vex, sizeof(vex)), "refused");
}

int main(void)
{
	test_arm64();
	test_x86();
	return check_done();
}

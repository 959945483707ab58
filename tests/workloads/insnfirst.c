// SPDX-License-Identifier: GPL-2.0
/* insnfirst N: calls N times each of a few functions whose first
 * instruction the arm64 kernel refuses to probe (an exclusive load, a
 * PC-relative literal load) and one it steps (plain), for the uprobe rule
 * (src/syms/uprobe.c).  On other architectures all three are plain. */
#include <stdlib.h>

#if defined(__aarch64__)
/* ldaxr/stlxr: an atomic increment; ldr (literal): load a constant */
__asm__(".text\n"
	".global excl_first\n.type excl_first, %function\n"
	"excl_first:\n"
	"1:	ldaxr x1, [x0]\n"
	"	add x1, x1, #1\n"
	"	stlxr w2, x1, [x0]\n"
	"	cbnz w2, 1b\n"
	"	ret\n"
	".size excl_first, .-excl_first\n"
	".global literal_first\n.type literal_first, %function\n"
	"literal_first:\n"
	"	ldr x0, 2f\n"
	"	ret\n"
	"	.p2align 3\n"
	"2:	.quad 42\n"
	".size literal_first, .-literal_first\n");
void excl_first(unsigned long *p);
unsigned long literal_first(void);
#else
__attribute__((noinline)) void excl_first(unsigned long *p)
{
	__atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST);
}

__attribute__((noinline)) unsigned long literal_first(void)
{
	return 42;
}
#endif

volatile unsigned long sink;

__attribute__((noinline)) void plain(void)
{
	sink++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	unsigned long v = 0;

	for (long i = 0; i < n; i++) {
		excl_first(&v);
		sink += literal_first();
		plain();
	}
	return v == (unsigned long)n ? 0 : 1;
}

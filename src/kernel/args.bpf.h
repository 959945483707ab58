/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A probe's arguments on the BPF side, the one place that knows how each
 * kind of program receives them: a raw tracepoint's, fentry's and fexit's
 * context is the arguments as u64s; a kprobe's or uprobe's is pt_regs,
 * read by the target's calling convention.
 */
#ifndef KDIST_ARGS_BPF_H
#define KDIST_ARGS_BPF_H

/* The verifier rejects a ctx access at a computed offset, even one known
 * from rodata, and clang folds a switch of loads back into one: each
 * argument is its own constant-offset load in asm. */
#define RAW_ARG(ctx, n) ({ __u64 _v; \
	asm volatile("%0 = *(u64 *)(%1 + " #n ")" : "=r"(_v) : "r"(ctx)); _v; })

/* Argument idx of a raw tracepoint or a function (fentry, fexit), where
 * paths start.  idx must be known from rodata: the loads of the others go
 * as dead code, so the program reads no further than the event has. */
static __always_inline __u64 raw_arg(void *ctx, unsigned int idx)
{
	switch (idx) {
	case 0: return RAW_ARG(ctx, 0);
	case 1: return RAW_ARG(ctx, 8);
	case 2: return RAW_ARG(ctx, 16);
	case 3: return RAW_ARG(ctx, 24);
	case 4: return RAW_ARG(ctx, 32);
	case 5: return RAW_ARG(ctx, 40);
	default: return RAW_ARG(ctx, 48);	/* fexit: a 6-argument function's return */
	}
}

/* A register of a kprobe's or uprobe's pt_regs.  The verifier allows only
 * loads at a constant offset from the context itself, and clang may hoist
 * the address of a field (ctx + 80) out of a switch of loads, which the
 * verifier then refuses ("dereference of modified ctx ptr"): one load in asm
 * per register. */
#define REG(ctx, field) ({ __u64 _v;						\
	asm volatile("%0 = *(u64 *)(%1 + %2)" : "=r"(_v)			\
		     : "r"(ctx), "i"(__builtin_offsetof(struct pt_regs, field))); _v; })

/* The calling convention, by the target the Makefile compiles for */
#if defined(__TARGET_ARCH_arm64)
/* arm64: the arguments in x0-x7, the return value in x0 */
#define REG_RET regs[0]
#define REG_A0 regs[0]
#define REG_A1 regs[1]
#define REG_A2 regs[2]
#define REG_A3 regs[3]
#define REG_A4 regs[4]
#define REG_A5 regs[5]
#elif defined(__TARGET_ARCH_x86)
/* x86-64: the arguments in di, si, dx, cx, r8, r9, the return value in ax */
#define REG_RET ax
#define REG_A0 di
#define REG_A1 si
#define REG_A2 dx
#define REG_A3 cx
#define REG_A4 r8
#define REG_A5 r9
#else
#error "no calling convention for this __TARGET_ARCH"
#endif

/* Argument idx (0-5) of a kprobe or uprobe at its entry. */
static __always_inline __u64 regs_arg(struct pt_regs *regs, unsigned int idx)
{
	switch (idx) {
	case 0: return REG(regs, REG_A0);
	case 1: return REG(regs, REG_A1);
	case 2: return REG(regs, REG_A2);
	case 3: return REG(regs, REG_A3);
	case 4: return REG(regs, REG_A4);
	default: return REG(regs, REG_A5);
	}
}

/* The return value at a kretprobe or uretprobe. */
static __always_inline __u64 regs_ret(struct pt_regs *regs)
{
	return REG(regs, REG_RET);
}

#endif

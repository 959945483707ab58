/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdist's own cost, timed by its programs in windows (docs/pair.md, "kdist's
 * own cost"): every program is written KD_PROG(...) or KD_PROG_CTX(...)
 * instead of BPF_PROG(...) or a plain definition, or runs its body as
 * KD_TIMED(...).  While the window is open (engine.c's sampler sets
 * kd_cost_window's entry), each run reads the clock before its body and
 * after it and adds the time and one run to kd_cost, per CPU.
 *
 * The kernel's BPF run-time statistics would give the same figures, but
 * they are one switch for the whole machine: every BPF program of it pays
 * them while they are on, and each switch patches the kernel's code, which
 * costs the CPUs that run BPF programs meanwhile milliseconds.  The window
 * here is a map entry: switching it costs nothing, and only kdist's
 * programs pay for it.  -v keeps the kernel's statistics for exact figures
 * instead, and text without -v times nothing: with kd_cost_timed false
 * (read-only data, fixed at load), the verifier drops the timing code.
 */
#ifndef KDIST_OWNCOST_BPF_H
#define KDIST_OWNCOST_BPF_H

#include <bpf/bpf_tracing.h>
#include "kernel/owncost.h"

/* set by engine_load() before loading when the cost is sampled */
const volatile bool kd_cost_timed = false;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kd_cost);
} kd_cost SEC(".maps");

/* 1 while the sampler's window is open */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} kd_cost_window SEC(".maps");

/* The clock when a window is open, else 0. */
static __always_inline __u64 kd_cost_enter(void)
{
	__u32 zero = 0, *open;

	if (!kd_cost_timed)
		return 0;
	open = bpf_map_lookup_elem(&kd_cost_window, &zero);
	return open && *open ? bpf_ktime_get_ns() : 0;
}

static __always_inline void kd_cost_leave(__u64 t0)
{
	__u32 zero = 0;
	struct kd_cost *c;

	if (!t0)
		return;
	c = bpf_map_lookup_elem(&kd_cost, &zero);
	if (c) {
		c->runs++;
		c->ns += bpf_ktime_get_ns() - t0;
	}
}

/* expr (an int), timed */
#define KD_TIMED(expr) ({						\
	__u64 kd_t0_ = kd_cost_enter();					\
	int kd_r_ = (expr);						\
	kd_cost_leave(kd_t0_);						\
	kd_r_;								\
})

/* BPF_PROG(name, args...), timed: the body is the inline ____name. */
#define KD_PROG(name, args...)						\
name(unsigned long long *ctx);						\
static __always_inline int ____##name(unsigned long long *ctx, ##args);	\
int name(unsigned long long *ctx)					\
{									\
	_Pragma("GCC diagnostic push")					\
	_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")		\
	return KD_TIMED(____##name(___bpf_ctx_cast(args)));		\
	_Pragma("GCC diagnostic pop")					\
}									\
static __always_inline int ____##name(unsigned long long *ctx, ##args)

/* A program taking ctx of type ctx_t as it is, timed. */
#define KD_PROG_CTX(ctx_t, name)					\
name(ctx_t ctx);							\
static __always_inline int ____##name(ctx_t ctx);			\
int name(ctx_t ctx) { return KD_TIMED(____##name(ctx)); }		\
static __always_inline int ____##name(ctx_t ctx)

#endif

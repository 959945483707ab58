// SPDX-License-Identifier: GPL-2.0
/*
 * The pair engine: time from a START event to the matching END event,
 * aggregated in the kernel into per-CPU log-linear histograms per group.
 * One set of programs serves every event kind and every recipe; user space
 * picks the entry flavour (tracepoint, raw tracepoint, pt_regs) per side by
 * autoload, and describes keys and groups in rodata.  Rodata is frozen before
 * verification, so every branch on cfg below is resolved by the verifier
 * and costs nothing at run time.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "hist.h"
#include "pair.h"
#include "common.bpf.h"
#include "filter.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile struct pair_cfg cfg = {};

/* In-flight STARTs matched by thread (the default key). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct start_val);
} task_start SEC(".maps");

/* In-flight STARTs matched by tid where task storage is not available to
 * this program type (before Linux 6.2 it was limited to BPF_PROG_TYPE_TRACING
 * and LSM), or matched by event fields. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, struct match_key);
	__type(value, struct start_val);
} match_start SEC(".maps");

/* One histogram when there is no grouping: no hashing on the hot path. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hist);
} hist_one SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, struct group_key);
	__type(value, struct hist);
} hist_groups SEC(".maps");

STACK_MAP(stacks, 1);	/* sized by user space when stacks are used */

static const struct hist zero_hist;

static __always_inline __u64 read_regs(struct pt_regs *regs, const volatile struct val_src *s)
{
	if (s->kind == VAL_RETVAL)
		return PT_REGS_RC(regs);
	switch (s->idx) {
	case 0: return PT_REGS_PARM1(regs);
	case 1: return PT_REGS_PARM2(regs);
	case 2: return PT_REGS_PARM3(regs);
	case 3: return PT_REGS_PARM4(regs);
	case 4: return PT_REGS_PARM5(regs);
	default: return regs->r9; /* x86-64: libbpf 1.1 lacks PARM6 */
	}
}

/* The verifier rejects a ctx access at a computed offset, even one known
 * from rodata, and clang folds a switch of loads back into one: each
 * argument is its own constant-offset load in asm. */
#define RAW_ARG(ctx, n) ({ __u64 _v; \
	asm volatile("%0 = *(u64 *)(%1 + " #n ")" : "=r"(_v) : "r"(ctx)); _v; })

static __always_inline __u64 raw_arg(void *ctx, unsigned int idx)
{
	switch (idx) {
	case 0: return RAW_ARG(ctx, 0);
	case 1: return RAW_ARG(ctx, 8);
	case 2: return RAW_ARG(ctx, 16);
	case 3: return RAW_ARG(ctx, 24);
	case 4: return RAW_ARG(ctx, 32);
	default: return RAW_ARG(ctx, 40);
	}
}

static __always_inline __u64 read_val(void *ctx, const volatile struct val_src *s, int src)
{
	__u64 v = 0, id;
	unsigned int shift;

	switch (s->kind) {
	case VAL_FIELD:
		bpf_probe_read_kernel(&v, s->size, ctx + s->off);
		shift = 64 - 8 * s->size;
		v <<= shift;
		return s->is_signed ? (__u64)((__s64)v >> shift) : v >> shift;
	case VAL_ARG:
	case VAL_RETVAL:
		if (src == SRC_RAW)
			return raw_arg(ctx, s->idx);
		if (src == SRC_REGS)
			return read_regs(ctx, s);
		return 0;
	case VAL_PID:
	case VAL_TID:
		id = bpf_get_current_pid_tgid();
		return s->kind == VAL_PID ? id >> 32 : (__u32)id;
	case VAL_CPU:
		return bpf_get_smp_processor_id();
	case VAL_CGROUP:
		return bpf_get_current_cgroup_id();
	case VAL_KSTACK:
	case VAL_USTACK: {
		long sid = bpf_get_stackid(ctx, &stacks,
					   s->kind == VAL_USTACK ? BPF_F_USER_STACK : 0);
		if (sid < 0) {
			drop(DROP_STACK);
			return ~0ULL;
		}
		return sid;
	}
	}
	return 0;
}

/* The task a START is about: NULL for current (see cfg.subject_arg). */
static __always_inline struct task_struct *subject(void *ctx, int src)
{
	if (!cfg.subject_arg || src != SRC_RAW)
		return NULL;
	return (void *)raw_arg(ctx, cfg.subject_arg - 1);
}

static __always_inline __u64 task_val(struct task_struct *t, unsigned char kind)
{
	if (kind == VAL_PID)
		return BPF_CORE_READ(t, tgid);
	if (kind == VAL_TID)
		return BPF_CORE_READ(t, pid);
	return BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
}

/* A value at START, where pid, tid and cgroup are the subject's. */
static __always_inline __u64 start_val(void *ctx, const volatile struct val_src *s, int src,
				       struct task_struct *t)
{
	if (t && (s->kind == VAL_PID || s->kind == VAL_TID || s->kind == VAL_CGROUP))
		return task_val(t, s->kind);
	return read_val(ctx, s, src);
}

static __always_inline void read_group(void *ctx, struct group_key *g, int src,
				       struct task_struct *t)
{
	for (int i = 0; i < PAIR_MAX_BY; i++) {
		const volatile struct val_src *s = &cfg.by[i];

		if (i >= cfg.nby)
			break;
		if (s->kind == VAL_COMM && t)
			BPF_CORE_READ_STR_INTO(&g->str, t, comm);
		else if (s->kind == VAL_COMM)
			bpf_get_current_comm(g->str, sizeof(g->str));
		else if (s->kind == VAL_STR_FIELD)
			bpf_probe_read_kernel_str(g->str, sizeof(g->str), ctx + s->off);
		else
			g->v[i] = start_val(ctx, s, src, t);
		if (s->kind == VAL_USTACK)
			g->tgid = bpf_get_current_pid_tgid() >> 32;
	}
}

static __always_inline void read_match(void *ctx, int side, struct match_key *k, int src,
				       struct task_struct *t)
{
	if (cfg.thread_key) {
		k->v[0] = t ? task_val(t, VAL_TID) : (__u32)bpf_get_current_pid_tgid();
		return;
	}
	for (int i = 0; i < PAIR_MAX_KEY; i++) {
		if (i >= cfg.side[side].nkey)
			break;
		k->v[i] = start_val(ctx, &cfg.side[side].key[i], src, t);
	}
}

static __always_inline bool cond_holds(void *ctx, int src, struct task_struct *t)
{
	for (int i = 0; i < PAIR_MAX_COND; i++) {
		__u64 v, want = cfg.cond_val[i];

		if (cfg.cond_op[i] == COND_NONE)
			break;
		v = start_val(ctx, &cfg.cond[i], src, t);
		if ((cfg.cond_op[i] == COND_EQ && v != want) ||
		    (cfg.cond_op[i] == COND_NE && v == want) ||
		    (cfg.cond_op[i] == COND_MASK_ZERO && (v & want)))
			return false;
	}
	return true;
}

static __always_inline bool filtered_out(struct task_struct *t)
{
	return task_filtered_out(&cfg.filter, t);
}

static __always_inline void record(struct group_key *g, __u64 delta);

static __always_inline int start_matched(void *ctx, int src, struct task_struct *t, __u64 ts);

static __always_inline int on_start(void *ctx, int src)
{
	struct task_struct *t = subject(ctx, src);
	struct start_val *sv;
	__u64 ts;

	if (filtered_out(t) || !cond_holds(ctx, src, t))
		return 0;
	if (cfg.single) {
		struct group_key g = {};

		read_group(ctx, &g, src, t);
		record(&g, cfg.value.kind ? start_val(ctx, &cfg.value, src, t) : 0);
		return 0;
	}
	ts = bpf_ktime_get_ns();
	/* the hot path: nothing to zero, one storage lookup */
	if (cfg.thread_key && cfg.task_storage) {
		sv = bpf_task_storage_get(&task_start, bpf_get_current_task_btf(), 0,
					  BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!sv) {
			drop(DROP_STORAGE);
			return 0;
		}
		if (sv->ts && cfg.restart)
			record(&sv->group, ts - sv->ts);
		else if (sv->ts)
			drop(DROP_START_REPLACED);
		sv->ts = ts;
		read_group(ctx, &sv->group, src, t);
		return 0;
	}
	return start_matched(ctx, src, t, ts);
}

static __always_inline int start_matched(void *ctx, int src, struct task_struct *t, __u64 ts)
{
	struct start_val *sv, nv = {};
	struct match_key k = {};

	read_match(ctx, 0, &k, src, t);
	nv.ts = ts;
	read_group(ctx, &nv.group, src, t);
	if (cfg.restart) {
		/* the pending START ends here, e.g. a write lock downgraded */
		sv = bpf_map_lookup_elem(&match_start, &k);
		if (sv) {
			struct group_key og = sv->group;
			__u64 delta = ts - sv->ts;

			sv->ts = ts;
			sv->group = nv.group;
			record(&og, delta);
			return 0;
		}
	}
	if (!bpf_map_update_elem(&match_start, &k, &nv, BPF_NOEXIST))
		return 0;
	/* an entry exists (a START nobody ended) or the table is full */
	if (bpf_map_update_elem(&match_start, &k, &nv, BPF_EXIST))
		drop(DROP_MATCH_FULL);
	else
		drop(DROP_START_REPLACED);
	return 0;
}

static __always_inline void record(struct group_key *g, __u64 delta)
{
	struct hist *h;
	__u32 zero = 0;

	if (!cfg.nby && !cfg.end_by_on) {
		h = bpf_map_lookup_elem(&hist_one, &zero);
	} else {
		h = lookup_or_init(&hist_groups, g, &zero_hist);
	}
	if (!h) {
		drop(DROP_GROUP_FULL);
		return;
	}
	hist_add(h, delta);
}

/* The END-side grouping component, after the START ones. */
static __always_inline void end_group(void *ctx, struct group_key *g, int src)
{
	__u64 v;

	if (!cfg.end_by_on)
		return;
	v = read_val(ctx, &cfg.end_by, src);
	if (cfg.end_by_neg && (__s64)v >= 0)
		v = 0;
	g->v[cfg.nby & (PAIR_MAX_BY - 1)] = v;
}

static __always_inline int on_end(void *ctx, int src)
{
	struct match_key k = {};
	struct start_val *sv;
	struct group_key g = {};
	__u64 ts = bpf_ktime_get_ns(), delta;

	if (cfg.thread_key && cfg.task_storage) {
		sv = bpf_task_storage_get(&task_start, bpf_get_current_task_btf(), 0, 0);
		if (!sv || !sv->ts) {
			if (!cfg.orphan_ok && !filtered_out(NULL))
				drop(DROP_END_NO_START);
			return 0;
		}
		delta = ts - sv->ts;
		sv->ts = 0;
		if (cfg.nby)
			g = sv->group;
		end_group(ctx, &g, src);
		record(&g, delta);
		return 0;
	}
	read_match(ctx, 1, &k, src, NULL);
	sv = bpf_map_lookup_elem(&match_start, &k);
	if (!sv) {
		/* by thread, an END of an untraced thread is no loss */
		if (!cfg.orphan_ok && (!cfg.thread_key || !filtered_out(NULL)))
			drop(DROP_END_NO_START);
		return 0;
	}
	delta = ts - sv->ts;
	if (cfg.nby)
		g = sv->group;
	bpf_map_delete_elem(&match_start, &k);
	end_group(ctx, &g, src);
	record(&g, delta);
	return 0;
}

SEC("tracepoint")
int tp_start(void *ctx) { return on_start(ctx, SRC_TP); }
SEC("tracepoint")
int tp_end(void *ctx) { return on_end(ctx, SRC_TP); }
SEC("raw_tp")
int raw_start(void *ctx) { return on_start(ctx, SRC_RAW); }
SEC("raw_tp")
int raw_end(void *ctx) { return on_end(ctx, SRC_RAW); }
SEC("kprobe")
int regs_start(struct pt_regs *ctx) { return on_start(ctx, SRC_REGS); }
SEC("kprobe")
int regs_end(struct pt_regs *ctx) { return on_end(ctx, SRC_REGS); }

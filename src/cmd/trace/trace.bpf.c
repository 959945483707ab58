// SPDX-License-Identifier: GPL-2.0
/*
 * kdist trace: single events of one tracepoint, with the fields of the
 * record and the strings it points to, through a ring buffer.  For a
 * sys_exit_* event the thread's sys_enter_* record comes along (the file
 * name of a failed openat).  Filters, --if and --max-rate in BPF; the
 * config is rodata, so what a run does not use costs nothing.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "model/hist.h"
#include "cmd/trace/trace.h"
#include "kernel/common.bpf.h"
#include "kernel/filter.bpf.h"
#include "kernel/cond.bpf.h"
#include "cmd/pair/record.bpf.h"
#include "kernel/args.bpf.h"
#include "kernel/kpath.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile struct trace_cfg cfg = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);	/* sized by user space */
} events SEC(".maps");

/* sys_enter_* records by tid until the thread's sys_exit_* */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, struct tr_enter);
} enter_recs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tr_enter);
} enter_scratch SEC(".maps");

/* events that passed filters and --if, printed or not */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hist);
} matched SEC(".maps");

struct tr_rate {
	__u64 sec;
	__u64 n;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tr_rate);
} rate SEC(".maps");

/* Where path i starts: its argument (raw tracepoints only), else its
 * variable (0: kpath_addr knows the address). */
static __always_inline __u64 path_base(void *ctx, int i)
{
	const volatile struct kpath *p = &cfg.path[i & (TRACE_PATH_MAX - 1)];

	return p->base == KPATH_ARG ? raw_arg(ctx, p->arg) : 0;
}

static __always_inline void path_count(int err, bool cut)
{
	kpath_count(err, cut, TDROP_PATH_NULL, TDROP_PATH_FAULT, TDROP_STR_CUT);
}

static __always_inline __u64 field_val(void *ctx, const volatile struct val_src *s)
{
	__u64 id = bpf_get_current_pid_tgid();

	switch (s->kind) {
	case VAL_FIELD:
		return record_field(ctx, s);
	case VAL_ARG:
		return raw_arg(ctx, s->idx);
	case VAL_PATH:
	case VAL_GLOBAL:
		path_count(kpath_num(&cfg.path[s->off & (TRACE_PATH_MAX - 1)],
				     path_base(ctx, s->off), &id), false);
		return id;
	case VAL_JIFFIES:
		return bpf_jiffies64();
	case VAL_PID:
		return id >> 32;
	case VAL_TID:
		return (__u32)id;
	case VAL_CPU:
		return bpf_get_smp_processor_id();
	}
	return 0;
}

static __always_inline bool cond_holds(void *ctx)
{
	for (int i = 0; i < COND_MAX; i++) {
		const volatile struct val_src *s = &cfg.cond_src[i];
		char str[COND_STR_LEN] = {};
		__u32 loc;

		if (cfg.cond.op[i] == COND_NONE)
			break;
		if (!cfg.cond.is_str[i]) {
			if (!cond_num(&cfg.cond, i, field_val(ctx, s)))
				return false;
			continue;
		}
		if (s->kind == VAL_COMM) {
			bpf_get_current_comm(str, sizeof(str));
		} else if (s->kind == VAL_PATH_STR || s->kind == VAL_GLOBAL_STR) {
			bool cut = false;

			path_count(kpath_str(&cfg.path[s->off & (TRACE_PATH_MAX - 1)],
					     path_base(ctx, s->off), str, sizeof(str), &cut), false);
		} else if (cfg.cond_dloc[i]) {
			bpf_probe_read_kernel(&loc, sizeof(loc), ctx + s->off);
			bpf_probe_read_kernel_str(str, sizeof(str), ctx + (loc & 0xffff));
		} else {
			bpf_probe_read_kernel_str(str, sizeof(str), ctx + s->off);
		}
		if (!cond_str(&cfg.cond, i, str))
			return false;
	}
	return true;
}

/* The record's strings into str[]. */
static __always_inline void read_strs(void *ctx, const volatile struct tr_side *side,
				      char (*str)[TRACE_STR_LEN])
{
	for (int i = 0; i < TRACE_STR_MAX; i++) {
		const volatile struct tr_str *s = &side->str[i];
		__u64 p = 0;

		if (i >= side->nstr)
			break;
		bpf_probe_read_kernel(&p, sizeof(p), ctx + s->off);
		/* a text longer than TRACE_STR_LEN - 1 is printed cut, and counted */
		if (s->kind == TSTR_DATA_LOC) {
			bpf_probe_read_kernel_str(str[i], TRACE_STR_LEN, ctx + (p & 0xffff));
			if (((p >> 16) & 0xffff) > TRACE_STR_LEN)
				drop(TDROP_STR_CUT);
		} else if (bpf_probe_read_user_str(str[i], TRACE_STR_LEN, (void *)p) ==
			   TRACE_STR_LEN) {
			char next = 0;

			bpf_probe_read_user(&next, 1, (void *)p + TRACE_STR_LEN - 1);
			if (next)
				drop(TDROP_STR_CUT);
		}
	}
}

/* --max-rate: at most max_rate events per second of the clock, all CPUs. */
static __always_inline bool over_rate(void)
{
	__u64 sec = bpf_ktime_get_ns() / 1000000000ULL;
	__u32 zero = 0;
	struct tr_rate *r = bpf_map_lookup_elem(&rate, &zero);

	if (!r)
		return false;
	if (r->sec != sec) {
		/* racy across CPUs at the turn of a second: a few more pass */
		r->sec = sec;
		r->n = 0;
	}
	/* an add whose old value is not used: BPF_XADD, which every kernel
	 * has (the fetching form, BPF_ATOMIC_FETCH, is Linux 5.12's) */
	__sync_fetch_and_add(&r->n, 1);
	return r->n > cfg.max_rate;
}

/* The arguments, paths and kernel variables of --fields, at this event. */
static __always_inline void read_paths(void *ctx, struct tr_event *e)
{
	if (cfg.jiffies)
		e->jiffies = bpf_jiffies64();
	for (int i = 0; i < TRACE_PATH_MAX; i++) {
		bool cut = false;
		int err = KPATH_OK;

		if (i >= cfg.npath)
			break;
		e->text[i][0] = 0;
		if (cfg.whole[i])
			e->num[i] = raw_arg(ctx, cfg.path[i].arg);
		else if (cfg.path[i].final == KPATH_NUM)
			err = kpath_num(&cfg.path[i], path_base(ctx, i), &e->num[i]);
		else
			err = kpath_str(&cfg.path[i], path_base(ctx, i), e->text[i], TRACE_PATH_STR,
					&cut);
		e->path_err[i] = err;
		path_count(err, cut);
	}
}

static __always_inline void emit(void *ctx, struct tr_enter *ent)
{
	struct tr_event *e;
	__u32 zero = 0;
	struct hist *h = bpf_map_lookup_elem(&matched, &zero);

	if (h)
		hist_add(h, 0);
	if (cfg.max_rate && over_rate()) {
		drop(TDROP_RATE);
		return;
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		drop(TDROP_OUTPUT);
		return;
	}
	e->ts = bpf_ktime_get_ns();
	e->id = bpf_get_current_pid_tgid();
	e->cpu = bpf_get_smp_processor_id();
	e->cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_probe_read_kernel(e->ev.rec, cfg.ev.size < TRACE_REC_MAX ? cfg.ev.size : TRACE_REC_MAX,
			      ctx);
	read_strs(ctx, &cfg.ev, e->ev.str);
	read_paths(ctx, e);
	e->has_enter = 0;
	if (cfg.enter && ent) {
		bpf_probe_read_kernel(&e->ent, sizeof(e->ent), ent);
		e->has_enter = 1;
	}
	kd_ringbuf_submit_batched(&events, e);
}

SEC("tracepoint")
int KD_PROG_CTX(void *, trace_event)
{
	struct tr_enter *ent = NULL;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (task_filtered_out(&cfg.filter, NULL))
		return TP_PASS;
	if (cfg.enter)
		ent = bpf_map_lookup_elem(&enter_recs, &tid);
	if (cond_holds(ctx))
		emit(ctx, ent);
	if (ent)
		bpf_map_delete_elem(&enter_recs, &tid);
	return TP_PASS;
}

/* Arguments and paths through them: the raw tracepoint, whose context is
 * the TP_PROTO arguments (no record is built). */
SEC("raw_tp")
int KD_PROG_CTX(void *, trace_raw)
{
	if (task_filtered_out(&cfg.filter, NULL))
		return 0;
	if (cond_holds(ctx))
		emit(ctx, NULL);
	return 0;
}

/* --every: the variables on a timer, in whatever context CPU 0 is in. */
SEC("perf_event")
int KD_PROG_CTX(void *, trace_tick)
{
	emit(ctx, NULL);
	return 0;
}

SEC("tracepoint")
int KD_PROG_CTX(void *, trace_enter)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	struct tr_enter *v;

	if (task_filtered_out(&cfg.filter, NULL))
		return TP_PASS;
	v = bpf_map_lookup_elem(&enter_scratch, &zero);
	if (!v)
		return TP_PASS;
	bpf_probe_read_kernel(v->rec, cfg.ent.size < TRACE_ENTER_MAX ? cfg.ent.size : TRACE_ENTER_MAX,
			      ctx);
	read_strs(ctx, &cfg.ent, v->str);
	if (bpf_map_update_elem(&enter_recs, &tid, v, BPF_ANY))
		drop(TDROP_ENTER_FULL);
	return TP_PASS;
}

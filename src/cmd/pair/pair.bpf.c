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
#include "model/hist.h"
#include "cmd/pair/pair.h"
#include "kernel/common.bpf.h"
#include "kernel/stackid.bpf.h"
#include "kernel/filter.bpf.h"
#include "kernel/cond.bpf.h"
#include "cmd/pair/record.bpf.h"
#include "kernel/procnote.bpf.h"
#include "kernel/args.bpf.h"
#include "kernel/kpath.bpf.h"
#include "kernel/dense.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile struct pair_cfg cfg = {};

/* In-flight STARTs matched by thread (the default key). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct start_val);
} task_start SEC(".maps");

/* START times by thread id, where a START keeps nothing but its time and
 * at most one --by number (no string or stack read at START, no
 * --slower-than stack of the START, no restarts): the verifier inlines
 * an array lookup, where a task storage lookup is a helper call (about
 * 25 ns per event on the benchmark's machine, docs/pair.md).  User space
 * sizes it (cfg.tid_slots, at most pid_max); a thread whose tid is beyond
 * it goes to task storage.  A slot is tagged with its thread's start time:
 * a thread that died between START and END leaves nothing the next owner
 * of its tid could pair with.  Only a tid's owner writes its slot. */
struct tid_slot {
	__u64 ts;
	__u64 born;
	__u64 v;	/* a single --by number read at START (syscalls: the id) */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tid_slot);
} tid_start SEC(".maps");

/* In-flight STARTs matched by tid where task storage is not available to
 * this program type (before Linux 6.2 it was limited to BPF_PROG_TYPE_TRACING
 * and LSM), or matched by event fields. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, struct match_key);
	__type(value, struct start_val);
} match_start SEC(".maps");

/* served: each group's slowest pair per window (sized by user space) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, struct group_key);
	__type(value, struct pair_exemplar);
} exemplars SEC(".maps");

/* One histogram when there is no grouping: no hashing on the hot path. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hist);
} hist_one SEC(".maps");

/* Two group tables: programs write to the one in group_table, and user
 * space, at every read, puts the other one there (the update waits for the
 * programs running meanwhile), then takes the groups out of this one.  The
 * kernel holds an interval's groups, never the whole run's. */
struct group_hists {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, struct group_key);
	__type(value, struct hist);
} hist_groups SEC(".maps"), hist_groups_b SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct group_hists);
} group_table SEC(".maps") = {
	.values = { &hist_groups },
};

#define EX_KEY struct ex_key
#define EX_GROUP struct group_key
#define EX_MATCH struct match_key
#define EX_DROP_STORAGE DROP_STORAGE
#define EX_DROP_FULL DROP_EXPLAIN_FULL
#include "cmd/pair/explain.h"
#include "kernel/explain.bpf.h"

/* --slower-than: one event per slow pair, sized by user space when used */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} slow_events SEC(".maps");

static const struct hist zero_hist;

static __always_inline __u64 read_regs(struct pt_regs *regs, const volatile struct val_src *s)
{
	return s->kind == VAL_RETVAL ? regs_ret(regs) : regs_arg(regs, s->idx);
}

/* Argument s->idx (or the return value) of a raw tracepoint or function. */
static __always_inline __u64 arg_val(void *ctx, const volatile struct val_src *s, int src)
{
	/* at fexit, user space set the return value's idx past the arguments */
	if (src == SRC_RAW || src == SRC_FENTRY || src == SRC_FEXIT)
		return raw_arg(ctx, s->idx);
	if (src == SRC_REGS)
		return read_regs(ctx, s);
	return 0;
}

/* A path's or text's failure, counted (kpath.bpf.h) */
static __always_inline void path_count(int err, bool cut)
{
	kpath_count(err, cut, DROP_PATH_NULL, DROP_PATH_FAULT, DROP_STR_CUT);
}

static __always_inline __u64 read_val(void *ctx, const volatile struct val_src *s, int src)
{
	__u64 id;

	switch (s->kind) {
	case VAL_FIELD:
		return record_field(ctx, s);
	case VAL_ARG:
	case VAL_RETVAL:
		return arg_val(ctx, s, src);
	case VAL_PATH:
	case VAL_GLOBAL:	/* its path starts at the variable, not an argument */
		path_count(kpath_num(&cfg.path[s->off & (KPATH_MAX - 1)],
				     s->kind == VAL_PATH ? arg_val(ctx, s, src) : 0, &id), false);
		return id;
	case VAL_JIFFIES:
		return bpf_jiffies64();
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
		long sid = stack_get(ctx, s->kind == VAL_USTACK ? BPF_F_USER_STACK : 0);
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

/* A text value into buf (PAIR_STR_LEN bytes): comm (of t, or current), a
 * char[] or __data_loc field, a path's text.  True when the text was cut
 * (the caller says whether that loses anything); a failed read is counted. */
static __noinline bool read_text(void *ctx, const volatile struct val_src *s, int src,
				      struct task_struct *t, char *buf)
{
	bool cut = false;
	int err = 0;

	if (s->kind == VAL_COMM && t)
		bpf_core_read_str(buf, PAIR_STR_LEN, &t->comm);
	else if (s->kind == VAL_COMM)
		bpf_get_current_comm(buf, PAIR_STR_LEN);
	else if (s->kind == VAL_STR_FIELD)
		bpf_probe_read_kernel_str(buf, PAIR_STR_LEN, ctx + s->off);
	else if (s->kind == VAL_DLOC_FIELD)
		err = dloc_str(ctx, s->off, buf, PAIR_STR_LEN, &cut);
	else
		err = kpath_str(&cfg.path[s->off & (KPATH_MAX - 1)],
				s->kind == VAL_PATH_STR ? arg_val(ctx, s, src) : 0, buf,
				PAIR_STR_LEN, &cut);
	path_count(err, false);
	return cut;
}

static __always_inline bool is_text(unsigned char kind)
{
	return kind == VAL_COMM || kind == VAL_STR_FIELD || kind == VAL_DLOC_FIELD ||
	       kind == VAL_PATH_STR || kind == VAL_GLOBAL_STR;
}

static __always_inline void read_group(void *ctx, struct group_key *g, int src,
				       struct task_struct *t)
{
	for (int i = 0; i < PAIR_MAX_BY; i++) {
		const volatile struct val_src *s = &cfg.by[i];

		if (i >= cfg.nby)
			break;
		if (is_text(s->kind) && read_text(ctx, s, src, t, g->str))
			drop(DROP_STR_CUT);	/* grouped by the cut text */
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
		const volatile struct val_src *s = &cfg.side[side].key[i];

		if (i >= cfg.side[side].nkey)
			break;
		if (is_text(s->kind)) {
			char str[PAIR_STR_LEN] = {};

			if (read_text(ctx, s, src, t, str))
				drop(DROP_STR_CUT);	/* matched by the cut text */
			k->v[i] = str_hash(str);
		} else {
			k->v[i] = start_val(ctx, s, src, t);
		}
	}
}

/* The --if terms of one side hold (0 START, 1 END). */
static __always_inline bool cond_holds(void *ctx, int src, struct task_struct *t, int side)
{
	for (int i = 0; i < COND_MAX; i++) {
		const volatile struct val_src *s = &cfg.cond_src[i];

		if (cfg.cond.op[i] == COND_NONE)
			break;
		if (cfg.cond.side[i] != side)
			continue;
		if (!cfg.cond.is_str[i]) {
			if (!cond_num(&cfg.cond, i, side ? read_val(ctx, s, src) :
					 start_val(ctx, s, src, t)))
				return false;
			continue;
		}
		char str[COND_STR_LEN] = {};

		_Static_assert(COND_STR_LEN == PAIR_STR_LEN, "one text length");
		/* a text longer than any compared with equals none of them */
		if (read_text(ctx, s, src, t, str) ? cfg.cond.op[i] == COND_EQ :
		    !cond_str(&cfg.cond, i, str))
			return false;
	}
	return true;
}

/* --slower-than: the task of a START (t, or current) and its stacks. */
static __always_inline void slow_who(void *ctx, struct slow_start *w, struct task_struct *t,
				     bool with_stacks)
{
	if (t) {
		w->id = task_val(t, VAL_PID) << 32 | task_val(t, VAL_TID);
		bpf_core_read_str(w->comm, sizeof(w->comm), &t->comm);
	} else {
		w->id = bpf_get_current_pid_tgid();
		bpf_get_current_comm(w->comm, sizeof(w->comm));
	}
	w->kstack = w->ustack = STACK_NONE;
	if (with_stacks) {
		w->stack_tgid = bpf_get_current_pid_tgid() >> 32;
		w->kstack = stack_get(ctx, 0);
		w->ustack = stack_get(ctx, BPF_F_USER_STACK);
		proc_tell();
	}
}

static __always_inline void slow_emit(void *ctx, const struct slow_start *w,
				      const struct match_key *k, const struct group_key *g,
				      __u64 ts, __u64 delta)
{
	struct slow_event *e;

	if (!cfg.slow_ns || delta <= cfg.slow_ns)
		return;
	e = bpf_ringbuf_reserve(&slow_events, sizeof(*e), 0);
	if (!e) {
		drop(DROP_OUTPUT);
		return;
	}
	e->ts = ts;
	e->delta = delta;
	e->start = *w;
	if (cfg.slow_stack == SLOW_STACK_END) {
		e->start.stack_tgid = bpf_get_current_pid_tgid() >> 32;
		e->start.kstack = stack_get(ctx, 0);
		e->start.ustack = stack_get(ctx, BPF_F_USER_STACK);
		proc_tell();
	}
	e->cpu = bpf_get_smp_processor_id();
	e->key = *k;
	e->group = *g;
	if (cfg.explain)
		ex_slow(&e->ex);
	kd_ringbuf_submit_batched(&slow_events, e);
}

static __always_inline bool filtered_out(struct task_struct *t)
{
	return task_filtered_out(&cfg.filter, t);
}

static __always_inline void record(struct group_key *g, __u64 delta);

static __always_inline int start_matched(void *ctx, int src, struct task_struct *t, __u64 ts,
					 __u64 sw);

/* The hot path: pairing by thread with the start in task storage (never
 * with a subject or in single-event mode, see pair.c).  The current task
 * is fetched once, for the filter and the storage.  The clock is read after
 * the storage lookup on both sides: the time measured holds one lookup (the
 * END's), as it would with the clock read first on both sides, and an END
 * of an untraced thread reads no clock at all. */
/* The tid_start slot of thread cur; NULL when not used or beyond it. */
static __always_inline struct tid_slot *tid_slot(struct task_struct *cur)
{
	__u32 tid = cur->pid;

	if (!cfg.tid_slots || tid >= cfg.tid_slots)
		return NULL;
	return bpf_map_lookup_elem(&tid_start, &tid);
}

static __always_inline int start_thread(void *ctx, int src)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct tid_slot *slot;
	struct start_val *sv;
	__u64 ts, sw;

	if (task_filtered_out_cur(&cfg.filter, NULL, cur) || !cond_holds(ctx, src, NULL, 0))
		return 0;
	slot = tid_slot(cur);
	if (slot) {
		__u64 born = cur->start_time;

		if (slot->ts && slot->born == born)
			drop(DROP_START_REPLACED);
		slot->born = born;
		if (cfg.nby)
			slot->v = read_val(ctx, &cfg.by[0], src);
		sw = cfg.explain ? ex_switches(cur) : 0;
		slot->ts = ts = bpf_ktime_get_ns();
		if (cfg.explain)
			ex_arm(cur, ts, sw);
		return 0;
	}
	sv = bpf_task_storage_get(&task_start, cur, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!sv) {
		drop(DROP_STORAGE);
		return 0;
	}
	sw = cfg.explain ? ex_switches(cur) : 0;
	ts = bpf_ktime_get_ns();
	if (sv->ts && cfg.restart) {
		/* the pending START ends here: a pair like any other */
		struct match_key k = {};	/* by thread: no key fields */
		struct ex_cpu *x = cfg.explain ? ex_stop(cur, ts, ts - sv->ts) : NULL;

		slow_emit(ctx, &sv->slow, &k, &sv->group, ts, ts - sv->ts);
		record(&sv->group, ts - sv->ts);
		if (cfg.explain)
			ex_record(x, &sv->group, ts - sv->ts);
	} else if (sv->ts) {
		drop(DROP_START_REPLACED);
	}
	sv->ts = ts;
	if (cfg.explain)
		ex_arm(cur, ts, sw);
	read_group(ctx, &sv->group, src, NULL);
	if (cfg.slow_ns)
		slow_who(ctx, &sv->slow, NULL, cfg.slow_stack == SLOW_STACK_START);
	return 0;
}

static __always_inline int mq_start(void *ctx, int src);
static __always_inline int mq_end(void *ctx, int src);

static __always_inline int on_start(void *ctx, int src)
{
	struct task_struct *t = subject(ctx, src);
	__u64 ts, sw;

	if (cfg.match)
		return mq_start(ctx, src);
	if (cfg.thread_key && cfg.task_storage)
		return start_thread(ctx, src);
	if (filtered_out(t) || !cond_holds(ctx, src, t, 0))
		return 0;
	if (cfg.single) {
		struct group_key g = {};

		read_group(ctx, &g, src, t);
		record(&g, cfg.value.kind ? start_val(ctx, &cfg.value, src, t) : 0);
		return 0;
	}
	sw = cfg.explain ? ex_switches(bpf_get_current_task_btf()) : 0;
	ts = bpf_ktime_get_ns();
	return start_matched(ctx, src, t, ts, sw);
}

/* sw: --explain, the START thread's ex_switches() before ts */
static __always_inline int start_matched(void *ctx, int src, struct task_struct *t, __u64 ts,
					 __u64 sw)
{
	struct start_val *sv, nv = {};
	struct match_key k = {};
	struct ex_cpu *x;

	read_match(ctx, 0, &k, src, t);
	nv.ts = ts;
	read_group(ctx, &nv.group, src, t);
	if (cfg.slow_ns)
		slow_who(ctx, &nv.slow, t, cfg.slow_stack == SLOW_STACK_START);
	if (cfg.restart) {
		/* the pending START ends here, e.g. a write lock downgraded:
		 * a pair like any other, printed when slow; the new START's
		 * task and stacks replace the old ones with its time */
		sv = bpf_map_lookup_elem(&match_start, &k);
		if (sv) {
			struct group_key og = sv->group;
			struct slow_start ow;
			__u64 delta = ts - sv->ts;

			if (cfg.slow_ns) {
				ow = sv->slow;
				sv->slow = nv.slow;
			}
			sv->ts = ts;
			sv->group = nv.group;
			x = cfg.explain ? ex_close(bpf_get_current_task_btf(), ts, delta, &k, 0) : NULL;
			if (cfg.slow_ns)
				slow_emit(ctx, &ow, &k, &og, ts, delta);
			record(&og, delta);
			if (cfg.explain) {
				ex_record(x, &og, delta);
				ex_open(bpf_get_current_task_btf(), ts, sw, &k, 0);
			}
			return 0;
		}
	}
	if (bpf_map_update_elem(&match_start, &k, &nv, BPF_NOEXIST)) {
		/* an entry exists (a START nobody ended) or the table is full */
		if (bpf_map_update_elem(&match_start, &k, &nv, BPF_EXIST)) {
			drop(DROP_MATCH_FULL);
			return 0;
		}
		drop(DROP_START_REPLACED);
	}
	if (cfg.explain)
		ex_open(bpf_get_current_task_btf(), ts, sw, &k, 0);
	return 0;
}

/* The key of the one group of a measurement without --by. */
static const struct group_key no_group;

/* The pair is its group's exemplar if it is the slowest of this window
 * so far (the END's task and time). */
static __noinline void exemplar_note(const struct group_key *g, __u64 delta)
{
	static const struct pair_exemplar none;
	__u64 now = bpf_ktime_get_ns(), epoch = now / cfg.exemplar_ns;
	struct pair_exemplar *x = lookup_or_init(&exemplars, g, &none);

	if (!x || (x->epoch == epoch && delta <= x->value))
		return;
	x->epoch = epoch;
	x->value = delta;
	x->id = bpf_get_current_pid_tgid();
	x->ts = now;
	bpf_get_current_comm(x->comm, sizeof(x->comm));
}

static __always_inline void record(struct group_key *g, __u64 delta)
{
	struct hist *h;
	__u32 zero = 0;
	bool full = true;

	if (cfg.exemplar_ns)
		exemplar_note(g ? g : &no_group, delta);
	if (!cfg.nby && !cfg.end_by_on) {
		h = bpf_map_lookup_elem(&hist_one, &zero);
	} else {
		/* one small number (the END's component, an errno, is 0):
		 * a slot of an array, else the hash */
		h = cfg.dense && !(cfg.end_by_on && g->v[1]) ? dense_hist(g->v[0]) : NULL;
		if (!h) {
			void *groups = bpf_map_lookup_elem(&group_table, &zero);

			h = groups ? group_value(groups, g, &zero_hist, &full) : NULL;
		}
	}
	if (h)
		hist_add(h, delta);
	else if (full)
		drop(DROP_GROUP_FULL);
	else
		spill_event(g, sizeof(*g), delta, 0, 0);
}

/* The END-side grouping component's value (0 without one). */
static __always_inline __u64 end_group_val(void *ctx, int src)
{
	__u64 v;

	if (!cfg.end_by_on)
		return 0;
	v = read_val(ctx, &cfg.end_by, src);
	if (cfg.end_by_neg && (__s64)v >= 0)
		v = 0;
	return v;
}

/* The END-side grouping component, after the START ones. */
static __always_inline void end_group(void *ctx, struct group_key *g, int src)
{
	if (cfg.end_by_on)
		g->v[cfg.nby & (PAIR_MAX_BY - 1)] = end_group_val(ctx, src);
}

#include "cmd/pair/match.bpf.h"

/* An END by thread whose START is gone or was never seen. */
static __always_inline int end_no_start(struct task_struct *cur)
{
	if (!cfg.orphan_ok && !task_filtered_out_cur(&cfg.filter, NULL, cur))
		drop(DROP_END_NO_START);
	return 0;
}

static __always_inline int end_thread(void *ctx, int src)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct tid_slot *slot = tid_slot(cur);
	struct start_val *sv = NULL;	/* NULL: the START is in slot */
	struct ex_cpu *x = NULL;	/* --explain: the split */
	__u64 ts, delta, *start;

	if (slot) {
		/* the START kept nothing but its time (see tid_start) */
		if (slot->born != cur->start_time)
			return end_no_start(cur);
		start = &slot->ts;
	} else {
		sv = bpf_task_storage_get(&task_start, cur, 0, 0);
		if (!sv)
			return end_no_start(cur);
		start = &sv->ts;
	}
	if (!*start)
		return end_no_start(cur);
	ts = bpf_ktime_get_ns();
	delta = ts - *start;
	*start = 0;
	if (cfg.explain)
		x = ex_stop(cur, ts, delta);
	if (cfg.end_cond && !cond_holds(ctx, src, NULL, 1))
		return 0;
	/* one small number kept in the slot, no END component (a syscall
	 * that did not fail) and nothing else wanted of the pair: its slot of
	 * the dense arrays, without building a group key (kdist syscalls'
	 * hot path, docs/pair.md) */
	if (slot && cfg.nby == 1 && cfg.dense && !cfg.slow_ns && !cfg.exemplar_ns &&
	    !cfg.explain && !end_group_val(ctx, src)) {
		struct hist *h = dense_hist(slot->v);

		if (h) {
			hist_add(h, delta);
			return 0;
		}
	}
	/* a START in a slot kept no task: a slow pair's is the END's, the
	 * same thread, taken only when the pair is slow */
	if (cfg.nby || cfg.end_by_on || (cfg.slow_ns && (sv || delta > cfg.slow_ns))) {
		struct group_key g = {};
		struct match_key k = {};	/* by thread: no key fields */

		if (cfg.nby && sv)
			g = sv->group;
		else if (cfg.nby)
			g.v[0] = slot->v;
		end_group(ctx, &g, src);
		if (sv) {
			slow_emit(ctx, &sv->slow, &k, &g, ts, delta);
		} else if (cfg.slow_ns && delta > cfg.slow_ns) {
			struct slow_start w;

			slow_who(ctx, &w, NULL, false);
			slow_emit(ctx, &w, &k, &g, ts, delta);
		}
		record(&g, delta);
		if (cfg.explain)
			ex_record(x, &g, delta);
	} else {
		record(NULL, delta);	/* no key to build */
		if (cfg.explain)
			ex_record(x, NULL, delta);
	}
	return 0;
}

/* An END matched in match_start: by key fields, or by thread where
 * task storage is not available to this program type. */
static __always_inline int end_matched(void *ctx, int src)
{
	struct match_key k = {};
	struct start_val *sv;
	struct group_key g = {};
	struct slow_start w;	/* read only with --slower-than */
	struct ex_cpu *x;
	__u64 ts, delta;

	ts = bpf_ktime_get_ns();
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
	if (cfg.slow_ns)
		w = sv->slow;
	bpf_map_delete_elem(&match_start, &k);
	x = cfg.explain ? ex_close(bpf_get_current_task_btf(), ts, delta, &k, 0) : NULL;
	if (cfg.end_cond && !cond_holds(ctx, src, NULL, 1))
		return 0;
	end_group(ctx, &g, src);
	slow_emit(ctx, &w, &k, &g, ts, delta);
	record(&g, delta);
	if (cfg.explain)
		ex_record(x, &g, delta);
	return 0;
}

/* (the ways of matching in functions of their own: the compiler then
 * zeroes a key on the stack only on the way that builds one) */
static __always_inline int on_end(void *ctx, int src)
{
	if (cfg.match)
		return mq_end(ctx, src);
	if (cfg.thread_key && cfg.task_storage)
		return end_thread(ctx, src);
	return end_matched(ctx, src);
}

SEC("tracepoint")
int tp_start(void *ctx) { KD_TIMED(on_start(ctx, SRC_TP)); return TP_PASS; }
SEC("tracepoint")
int tp_end(void *ctx) { KD_TIMED(on_end(ctx, SRC_TP)); return TP_PASS; }
SEC("raw_tp")
int raw_start(void *ctx) { return KD_TIMED(on_start(ctx, SRC_RAW)); }
SEC("raw_tp")
int raw_end(void *ctx) { return KD_TIMED(on_end(ctx, SRC_RAW)); }
SEC("kprobe")
int regs_start(struct pt_regs *ctx) { return KD_TIMED(on_start(ctx, SRC_REGS)); }
SEC("kprobe")
int regs_end(struct pt_regs *ctx) { return KD_TIMED(on_end(ctx, SRC_REGS)); }
/* attached to their function by user space (bpf_program__set_attach_target) */
SEC("fentry")
int fentry_start(void *ctx) { return KD_TIMED(on_start(ctx, SRC_FENTRY)); }
SEC("fexit")
int fexit_start(void *ctx) { return KD_TIMED(on_start(ctx, SRC_FEXIT)); }
SEC("fentry")
int fentry_end(void *ctx) { return KD_TIMED(on_end(ctx, SRC_FENTRY)); }
SEC("fexit")
int fexit_end(void *ctx) { return KD_TIMED(on_end(ctx, SRC_FEXIT)); }

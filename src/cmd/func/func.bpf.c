// SPDX-License-Identifier: GPL-2.0
/*
 * kdist func: calls, inclusive and exclusive time of a set of functions.
 *
 * Every function's entry and return run the same two programs; the attach
 * cookie says which function fired (one cookie per function with kprobe.multi
 * and uprobe.multi, one per link with single kprobes, uprobes and fentry).
 * An fentry program is bound to one function when it is loaded: func.c
 * loads func_fentry and func_fexit once, as templates, then loads a copy of
 * their instructions per function.  A
 * per-thread shadow stack keeps one frame per active traced call, so nested
 * and recursive calls never overwrite an outer call's start, and a callee's
 * inclusive time is charged to its caller's frame to give the caller's self
 * time.  With --explain each frame's call is an interval of its thread
 * (kernel/explain.bpf.h): the entry takes a snapshot of the thread's
 * running sums at the frame's depth, the return splits the call.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "cmd/func/func.h"
#include "kernel/common.bpf.h"
#include "kernel/stackid.bpf.h"
#include "kernel/filter.bpf.h"
#include "kernel/procnote.bpf.h"
#include "kernel/args.bpf.h"
#include "kernel/kpath.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile struct func_cfg cfg = {};

/* Task storage is the cheapest per-thread slot, but kprobe-type programs
 * may use it only since Linux 6.2 (commit 0593dd34e535); before that the
 * stack lives in a tid-keyed hash. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct func_stack);
} task_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct func_stack);
} tid_stacks SEC(".maps");

/* Without --by: one slot per function, indexed by its id. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);	/* the number of functions, set by user space */
	__type(key, __u32);
	__type(value, struct func_val);
} func_vals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 8192);
	__type(key, struct func_key);
	__type(value, struct func_val);
} group_vals SEC(".maps");

/* --slower-than, sized by user space when used */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} slow_calls SEC(".maps");
/* The bucket pages of every function, per CPU: see func.h. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);	/* cfg.pages + 1, set by user space */
	__type(key, __u32);
	__type(value, struct func_page);
} func_pages SEC(".maps");

static const struct func_stack zero_stack;
static const struct func_val zero_val;

#define EX_KEY struct func_ex_key
#define EX_GROUP struct func_key
#define EX_MATCH struct func_ex_place
#define EX_DROP_STORAGE FDROP_EX_STORAGE
#define EX_DROP_FULL FDROP_EX_FULL
#include "kernel/explain.bpf.h"

static __always_inline bool filtered_out(void)
{
	return task_filtered_out(&cfg.filter, NULL);
}

static __always_inline struct func_stack *get_stack(bool create)
{
	struct func_stack *s;
	__u32 tid;

	if (cfg.task_storage)
		return bpf_task_storage_get(&task_stacks, bpf_get_current_task_btf(), 0,
					    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	tid = (__u32)bpf_get_current_pid_tgid();
	if (!create)
		return bpf_map_lookup_elem(&tid_stacks, &tid);
	return lookup_or_init(&tid_stacks, &tid, &zero_stack);
}

/* Count x in its bucket, in the page of v that holds it, taken from this
 * CPU's pool on first use.  False when the pool is used up. */
static __always_inline bool count_bucket(struct func_val *v, __u64 x)
{
	__u64 i = hist_index(x);
	struct func_page *pg, *pool;
	__u32 p, zero = 0;

	if (i >= HIST_BUCKETS) /* cannot happen; bounds proof for the verifier */
		i = HIST_BUCKETS - 1;
	p = v->page[i >> FUNC_PAGE_BITS];
	if (p) {
		pg = bpf_map_lookup_elem(&func_pages, &p);
		if (!pg)
			return false;
	} else {
		pool = bpf_map_lookup_elem(&func_pages, &zero);
		if (!pool || pool->slots[0] >= cfg.pages)
			return false;
		p = pool->slots[0] + 1;
		pg = bpf_map_lookup_elem(&func_pages, &p);
		if (!pg)
			return false;
		pool->slots[0] = p;
		/* a page may hold counts from before the measurement's reset */
		for (int j = 0; j < FUNC_PAGE_SLOTS; j++)
			pg->slots[j] = 0;
		v->page[i >> FUNC_PAGE_BITS] = p;
	}
	pg->slots[i & (FUNC_PAGE_SLOTS - 1)]++;
	return true;
}

static __always_inline void path_count(int err, bool cut)
{
	kpath_count(err, cut, FDROP_PATH_NULL, FDROP_PATH_FAULT, FDROP_TEXT_CUT);
}

/* --by PATH at a call's entry, for its frame: the number, or for a text
 * the argument it is read through at the return (by then a number may
 * have changed: a request's length is 0 once it completed). */
static __always_inline __u64 path_at_entry(void *ctx, bool fentry)
{
	__u64 arg = fentry ? raw_arg(ctx, cfg.path.arg) : regs_arg(ctx, cfg.path.arg), v = 0;

	if (cfg.path_whole || cfg.path_text)
		return arg;
	path_count(kpath_num(&cfg.path, arg, &v), false);
	return v;
}

/* --by PATH of a call into its key, from its frame's by. */
static __always_inline void key_path(struct func_key *k, __u64 by)
{
	bool cut = false;
	int err;

	if (!cfg.path_text) {
		k->num = by;
		return;
	}
	err = kpath_str(&cfg.path, by, k->text, sizeof(k->text), &cut);
	path_count(err, cut);
}

/* x: --explain, the call's split (ex_close()) */
static __always_inline void record(__u32 id, __u64 incl, __u64 self, bool nested, __u64 arg,
				   struct ex_cpu *x)
{
	struct func_val *v;

	if (cfg.explain && !cfg.grouped) {
		struct func_key k = { .id = id };

		ex_record(x, &k, incl);
	}
	if (cfg.grouped) {
		struct func_key k = { .id = id };
		__u64 pt = bpf_get_current_pid_tgid();
		bool full;

		if (cfg.by_pid)
			k.pid = pt >> 32;
		if (cfg.by_tid)
			k.tid = (__u32)pt;
		if (cfg.by_comm)
			bpf_get_current_comm(k.comm, sizeof(k.comm));
		if (cfg.by_cgroup)
			k.cgroup = bpf_get_current_cgroup_id();
		if (cfg.by_path)
			key_path(&k, arg);
		if (cfg.explain)
			ex_record(x, &k, incl);
		v = group_value(&group_vals, &k, &zero_val, &full);
		if (!v) {
			if (full)
				drop(FDROP_GROUP_FULL);
			else
				spill_event(&k, sizeof(k), incl, self, nested);
			return;
		}
	} else {
		v = bpf_map_lookup_elem(&func_vals, &id);
		if (!v) {
			drop(FDROP_GROUP_FULL);
			return;
		}
	}
	if (!count_bucket(v, incl)) {
		drop(FDROP_BUCKETS_FULL);
		return;
	}
	hist_stats_add(&v->st, incl);
	v->self += self;
	if (!nested)
		v->total += incl;
}

static __always_inline void slow_call(void *ctx, __u32 id, __u64 incl, __u64 ts,
				      const struct ex_cpu *x)
{
	struct func_slow *e = bpf_ringbuf_reserve(&slow_calls, sizeof(*e), 0);

	if (!e) {
		drop(FDROP_OUTPUT);
		return;
	}
	e->ts = ts;
	e->delta = incl;
	e->id = bpf_get_current_pid_tgid();
	e->func = id;
	e->cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (cfg.explain && x)
		e->ex = x->last;
	/* at the return: the caller's chain, which a user stack taken at the
	 * entry misses (the frame pointer is not pushed yet there) */
	e->kstack = e->ustack = STACK_NONE;
	if (cfg.slow_stack) {
		e->kstack = stack_get(ctx, 0);
		e->ustack = stack_get(ctx, BPF_F_USER_STACK);
		proc_tell();
	}
	kd_ringbuf_submit_batched(&slow_calls, e);
}

/* Which function fired: the number written into this copy of the program
 * (kernel/copy.h), else the attach cookie, where the kernel has them. */
static __always_inline __u32 func_id(void *ctx)
{
	__u32 id = copy_id();

	if (cfg.cookies && id == PROG_COPY_MARK)
		return bpf_get_attach_cookie(ctx);
	return id;
}

/* --explain: the return at ts of the call in frame at (entered at
 * entry_ts) of a stack d deep: the frames above it, whose returns were
 * missed, close no interval; its own split. */
static __always_inline struct ex_cpu *explain_return(__u64 ts, int at, int d, __u64 entry_ts)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct ex_cpu *c = bpf_map_lookup_elem(&ex_percpu, &(__u32){ 0 });

	for (int i = 1; i < FUNC_MAX_DEPTH && c; i++) {
		if (at + i >= d)
			break;
		ex_place(c, cur, NULL, at + i);
		ex_abandon(&c->skey);
	}
	return ex_close(cur, ts, ts - entry_ts, NULL, at);
}

/* fentry: ctx is the function's arguments, else pt_regs */
static __always_inline int on_entry(void *ctx, bool fentry)
{
	__u32 id = func_id(ctx);
	struct func_stack *s;
	struct func_frame *f;
	__u32 d, nested = 0;
	__u64 sw = 0;

	if (filtered_out())
		return 0;
	if (cfg.explain)
		sw = ex_switches(bpf_get_current_task_btf());
	s = get_stack(true);
	if (!s) {
		drop(FDROP_STACK_FULL);
		return 0;
	}
	d = s->depth;
	if (d >= FUNC_MAX_DEPTH) {
		s->overflow++;
		drop(FDROP_DEPTH);
		return 0;
	}
	/* an activation of the same function below: this one's inclusive time
	 * is already inside that one's, do not add it to the total again */
	for (int i = 0; i < FUNC_MAX_DEPTH; i++) {
		if (i >= d)
			break;
		if (s->f[i].id == id) {
			nested = 1;
			break;
		}
	}
	f = &s->f[d];
	f->id = id;
	f->nested = nested;
	f->child = 0;
	if (cfg.by_path)
		f->by = path_at_entry(ctx, fentry);
	s->depth = d + 1;
	f->ts = bpf_ktime_get_ns();	/* last, so our own cost is not timed */
	if (cfg.explain)
		ex_open(bpf_get_current_task_btf(), f->ts, sw, NULL, d);
	return 0;
}

static __always_inline int on_return(void *ctx)
{
	__u64 ts = bpf_ktime_get_ns(), incl, self, arg;
	__u32 id = func_id(ctx);
	struct ex_cpu *x = NULL;
	struct func_stack *s;
	struct func_frame *f;
	int d, at = -1;
	bool nested;

	s = get_stack(false);
	if (!s || (!s->depth && !s->overflow)) {
		if (!filtered_out())
			drop(FDROP_RET_NO_ENTRY);
		return 0;
	}
	if (s->overflow) {
		/* returns come in reverse order: the calls past the depth limit
		 * return before any frame on the stack does */
		s->overflow--;
		return 0;
	}
	d = s->depth;
	/* The topmost frame of this function.  Frames above it are calls whose
	 * return was missed (a kretprobe out of instances, a longjmp): drop them. */
	for (int i = 0; i < FUNC_MAX_DEPTH; i++) {
		int j = d - 1 - i;

		if (j < 0)
			break;
		if (s->f[j & (FUNC_MAX_DEPTH - 1)].id == id) {
			at = j;
			break;
		}
	}
	if (at < 0) {
		drop(FDROP_RET_NO_ENTRY);
		return 0;
	}
	if (d - 1 - at)
		drop_n(FDROP_RET_MISSED, d - 1 - at);
	if (cfg.explain)
		x = explain_return(ts, at, d, s->f[at & (FUNC_MAX_DEPTH - 1)].ts);
	f = &s->f[at & (FUNC_MAX_DEPTH - 1)];
	incl = ts - f->ts;
	self = f->child < incl ? incl - f->child : 0;
	nested = f->nested;
	arg = f->by;
	if (at > 0)
		s->f[(at - 1) & (FUNC_MAX_DEPTH - 1)].child += incl;
	s->depth = at;
	if (!at && !cfg.task_storage) {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();

		/* threads come and go: keep the table to threads inside calls */
		bpf_map_delete_elem(&tid_stacks, &tid);
	}
	if (cfg.slow_ns && incl > cfg.slow_ns)
		slow_call(ctx, id, incl, ts, x);
	record(id, incl, self, nested, arg, x);
	return 0;
}

/* kprobes, kretprobes, uprobes and uretprobes */
SEC("kprobe")
int func_entry(struct pt_regs *ctx) { return KD_TIMED(on_entry(ctx, false)); }
SEC("kprobe")
int func_exit(struct pt_regs *ctx) { return KD_TIMED(on_return(ctx)); }
/* the same, loaded for kprobe.multi links */
SEC("kprobe.multi")
int func_entry_multi(struct pt_regs *ctx) { return KD_TIMED(on_entry(ctx, false)); }
SEC("kprobe.multi")
int func_exit_multi(struct pt_regs *ctx) { return KD_TIMED(on_return(ctx)); }
/* the same, loaded for uprobe.multi links (Linux 6.6): libbpf 1.1 knows no
 * such section, func.c sets the expected attach type before loading */
SEC("kprobe")
int func_entry_umulti(struct pt_regs *ctx) { return KD_TIMED(on_entry(ctx, false)); }
SEC("kprobe")
int func_exit_umulti(struct pt_regs *ctx) { return KD_TIMED(on_return(ctx)); }
/* fentry/fexit templates: loaded against one function (func.c sets it),
 * copied for each traced function.  They read nothing of ctx but the
 * cookie and --by PATH's argument, which every function of the set has
 * at the same place (func_by_path), so one copy fits each. */
SEC("fentry")
int func_fentry(void *ctx) { return KD_TIMED(on_entry(ctx, true)); }
SEC("fexit")
int func_fexit(void *ctx) { return KD_TIMED(on_return(ctx)); }

// SPDX-License-Identifier: GPL-2.0
/*
 * kdist pair: loading the pair engine's programs as configured, and
 * attaching them.
 */
#include "cmd/pair/pair_int.h"
#include "kernel/dense.h"
#include "kernel/engine.h"
#include "kernel/events.h"
#include "kernel/explain_bpf.h"
#include "kernel/feature.h"
#include "pair.skel.h"
#include "pair_noatomics.skel.h"
#include "kernel/kfunc.h"
#include "kernel/stacks.h"
#include "syms/syms.h"
#include "syms/uprobe.h"
#include "lib/util.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

const char *pair_src_attach_name(const struct pair *p, int side)
{
	switch (p->src[side]) {
	case SRC_TP: return "tracepoint";
	case SRC_RAW: return "raw_tracepoint";
	case SRC_FENTRY: return "fentry";
	case SRC_FEXIT: return "fexit";
	default: return ev_kind_name(p->ev[side].kind);
	}
}

static struct bpf_program *side_prog(struct pair *p, int side)
{
	struct bpf_program *progs[][2] = {
		[SRC_TP] = { p->skel->progs.tp_start, p->skel->progs.tp_end },
		[SRC_RAW] = { p->skel->progs.raw_start, p->skel->progs.raw_end },
		[SRC_REGS] = { p->skel->progs.regs_start, p->skel->progs.regs_end },
		[SRC_FENTRY] = { p->skel->progs.fentry_start, p->skel->progs.fentry_end },
		[SRC_FEXIT] = { p->skel->progs.fexit_start, p->skel->progs.fexit_end },
	};
	return progs[p->src[side]][side];
}

/* Stacks symbolized at read; user stacks need their process's maps while it
 * lives: those of --stack are told by the programs, those of --by ustack
 * found in the group table. */
static int watch_stacks(struct pair *p)
{
	size_t tgid = offsetof(struct group_key, tgid);
	int err;

	p->syms = stack_syms_new(p->skel->obj);
	if (!p->syms)
		return -ENOMEM;
	if (p->cfg.slow_stack) {
		err = stack_syms_follow(p->syms, bpf_map__fd(p->skel->maps.proc_notes));
		if (err)
			return err;
	}
	for (unsigned int i = 0; i < p->cfg.nby; i++)
		if (p->cfg.by[i].kind == VAL_USTACK)
			return stack_syms_watch(p->syms, bpf_map__fd(p->skel->maps.hist_groups),
						sizeof(struct group_key), &tgid, 1);
	return 0;
}

/* Slots of the array of START times by tid (tid_start in pair.bpf.c): one
 * per possible tid, 16 bytes each, at most TID_SLOTS_MAX (4 MiB); tids
 * above go to task storage. */
#define TID_SLOTS_MAX (1u << 18)

/* The bytes of a group_key the group tables key on: the numbers v[0..nby)
 * when every component is a number, else the whole key. */
static size_t group_key_size(const struct pair_cfg *c)
{
	unsigned int n;

	for (unsigned int i = 0; i < c->nby; i++)
		if (pair_is_text(c->by[i].kind) || c->by[i].kind == VAL_USTACK)
			return sizeof(struct group_key);
	/* an END component (numbers only) comes after the START ones */
	n = c->nby + c->end_by_on;
	return n ? n * sizeof(((struct group_key *)0)->v[0]) : sizeof(struct group_key);
}

/* A tid_start slot holds the START's grouping: none, or one number. */
static bool slot_holds_by(const struct pair_cfg *c)
{
	enum val_kind k = c->by[0].kind;

	return !c->nby || (c->nby == 1 && !pair_is_text(k) &&
			   k != VAL_KSTACK && k != VAL_USTACK);
}

/* The one START component is a number known to be small (a syscall, an
 * IRQ, a softirq vector, a CPU): its groups go to arrays (dense.h). */
static bool dense_fits(const struct pair *p)
{
	const struct val_src *v = &p->cfg.by[0];
	enum m_fmt f = p->by[0].fmt;
	const char *why;

	if (p->cfg.nby != 1 || (v->kind != VAL_ARG && v->kind != VAL_FIELD &&
				v->kind != VAL_RETVAL && v->kind != VAL_CPU))
		return false;
	if (v->kind != VAL_CPU && f != FMT_SYSCALL && f != FMT_IRQ && f != FMT_SOFTIRQ)
		return false;
	if (!feature_has(FEAT_ATOMICS, &why)) {
		kd_info("groups in a hash, not arrays: %s", why);
		return false;
	}
	return true;
}

static unsigned int tid_slots(void)
{
	char *text;
	long n = 0;

	if (read_file("/proc/sys/kernel/pid_max", &text, NULL) == 0) {
		n = strtol(text, NULL, 10);
		free(text);
	}
	return n <= 0 ? 0 : n > TID_SLOTS_MAX ? TID_SLOTS_MAX : (unsigned int)n;
}

/* Whether any value follows a path or reads a variable-length text. */
static bool reads_typed(struct pair_cfg *c)
{
	for (int side = 0; side < 2; side++) {
		struct val_src *v[SIDE_VALS_MAX];
		int n = pair_side_vals(c, side, v);

		for (int i = 0; i < n; i++)
			if (v[i]->kind == VAL_PATH || v[i]->kind == VAL_PATH_STR ||
			    v[i]->kind == VAL_GLOBAL || v[i]->kind == VAL_GLOBAL_STR ||
			    v[i]->kind == VAL_DLOC_FIELD)
				return true;
	}
	return false;
}

/* pair's skeleton, on the object built without BPF atomics where the
 * kernel lacks them (Linux before 5.12 refuses a program holding one even
 * on a path that never runs: kernel/common.bpf.h).  The two objects have
 * the same programs and maps by name, so only the bytes differ. */
static struct pair_bpf *pair_open(void)
{
	const struct bpf_object_open_opts *opts = engine_open_opts();
	struct pair_bpf *obj;
	int err;

	if (feature_has(FEAT_ATOMICS, NULL))
		return pair_bpf__open_opts(opts);
	kd_info("this kernel lacks BPF atomics: the object built without them");
	obj = calloc(1, sizeof(*obj));
	if (!obj) {
		errno = ENOMEM;
		return NULL;
	}
	err = pair_bpf__create_skeleton(obj);
	if (!err) {
		obj->skeleton->data = (void *)pair_noatomics_bpf__elf_bytes(&obj->skeleton->data_sz);
		err = bpf_object__open_skeleton(obj->skeleton, opts);
	}
	if (err) {
		pair_bpf__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

int pair_load(struct pair *p, struct options *o)
{
	struct bpf_program *prog;
	bool need_stacks = false;
	int err;

	p->skel = pair_open();
	err = engine_opened(p->skel);
	if (err)
		return err;
	/* task storage is the cheapest per-thread slot, where the program
	 * type may use it (kprobe-type programs only since Linux 6.2) */
	if (p->cfg.thread_key && !p->cfg.single && !p->cfg.subject_arg) {
		enum bpf_prog_type t0 = bpf_program__type(side_prog(p, 0));
		enum bpf_prog_type t1 = bpf_program__type(side_prog(p, 1));

		p->cfg.task_storage = prog_type_task_storage(t0) && prog_type_task_storage(t1);
		/* --slower-than takes the task's identity at the END, the same
		 * thread, when it needs no stack of the START */
		if (p->cfg.task_storage && slot_holds_by(&p->cfg) && !p->cfg.restart &&
		    p->cfg.slow_stack != SLOW_STACK_START)
			p->cfg.tid_slots = tid_slots();
		if (p->cfg.tid_slots) {
			bpf_map__set_max_entries(p->skel->maps.tid_start, p->cfg.tid_slots);
			kd_info("in-flight starts kept in an array of %u threads, task storage above",
				p->cfg.tid_slots);
		} else {
			kd_info("in-flight starts kept in %s", p->cfg.task_storage ? "task storage" :
				"a tid-keyed hash");
		}
	}
	/* by thread, its state is in task storage; by tid (--key, --match),
	 * its programs still take the current task's BTF pointer, as new */
	if (p->cfg.explain && !(p->cfg.explain_tid ? feature_has(FEAT_TASK_STORAGE_MAP, NULL) :
				p->cfg.task_storage)) {
		kd_err("failed to explain %s: this kernel has no task storage for its programs",
		       p->ev[0].text);
		return -EOPNOTSUPP;
	}
	for (unsigned int i = 0; i < p->cfg.nby; i++)
		if (p->cfg.by[i].kind == VAL_KSTACK || p->cfg.by[i].kind == VAL_USTACK)
			need_stacks = true;
	if (need_stacks || p->cfg.slow_stack || p->cfg.explain == EXPLAIN_FULL)
		stack_maps_size(p->skel->obj, STACK_ENTRIES);
	if (p->cfg.slow_stack) {
		bpf_map__set_max_entries(p->skel->maps.procs_told, PROCS_TOLD);
		bpf_map__set_max_entries(p->skel->maps.proc_notes, PROC_NOTES_BYTES);
	}
	if (p->cfg.slow_ns)
		bpf_map__set_max_entries(p->skel->maps.slow_events, SLOW_RING_BYTES);
	if (o->max_groups) {
		bpf_map__set_max_entries(p->skel->maps.hist_groups, o->max_groups);
		bpf_map__set_max_entries(p->skel->maps.hist_groups_b, o->max_groups);
	}
	p->drain = p->nby && !need_stacks;
	p->cfg.dense = dense_fits(p);
	err = dense_size(&p->dense, p->skel->maps.dense_slot, p->skel->maps.dense_a,
			 p->skel->maps.dense_b, p->skel->maps.dense_table, p->cfg.dense, p->drain);
	if (err)
		return err;
	if (p->cfg.dense)
		kd_info("groups of the first %u numbers below %u in arrays, the others in a hash",
			DENSE_SLOTS, DENSE_VALUES);
	/* numbers alone: the group tables hash only the components used
	 * (e.g. 16 of 56 bytes for syscalls), not the whole group_key */
	p->key_size = group_key_size(&p->cfg);
	bpf_map__set_key_size(p->skel->maps.hist_groups, p->key_size);
	bpf_map__set_key_size(p->skel->maps.hist_groups_b, p->key_size);
	bpf_map__set_key_size(bpf_map__inner_map(p->skel->maps.group_table), p->key_size);
	if (p->cfg.exemplar_ns) {
		bpf_map__set_key_size(p->skel->maps.exemplars, p->key_size);
		bpf_map__set_max_entries(p->skel->maps.exemplars,
					 o->max_groups ? o->max_groups : DEFAULT_MAX_GROUPS);
	}
	p->skel->rodata->cfg = p->cfg;
	p->skel->rodata->ex_self_tgid = getpid();
	bpf_object__for_each_program(prog, p->skel->obj)
		bpf_program__set_autoload(prog, prog == side_prog(p, 0) ||
					  (!p->cfg.single && prog == side_prog(p, 1)) ||
					  explain_prog(prog, p->cfg.explain));
	for (int side = 0; side < (p->cfg.single ? 1 : 2); side++) {
		if (p->src[side] != SRC_FENTRY && p->src[side] != SRC_FEXIT)
			continue;
		err = bpf_program__set_attach_target(side_prog(p, side), 0, p->ev[side].name);
		if (err) {
			kd_err("failed to attach %s %s: %s", pair_roles[side], p->ev[side].text,
			       strerror(-err));
			return err;
		}
	}
	/* the path and text counters only where paths or texts are read,
	 * --explain's and --match's only with those options */
	for (int d = 0; d < NR_DROPS; d++) {
		bool typed = d >= DROP_PATH_NULL && d <= DROP_STR_CUT;

		p->drops_shown[d] = (typed && !reads_typed(&p->cfg)) ||
				    (d == DROP_EXPLAIN_FULL && !p->cfg.explain) ||
				    (d == DROP_QUEUE_FULL && !p->cfg.match) ? NULL : pair_drop_names[d];
	}
	err = engine_load(&p->eng, p->skel->skeleton, p->drops_shown, NR_DROPS);
	if (err)
		return err;
	if (p->cfg.slow_ns) {
		err = events_add(bpf_map__fd(p->skel->maps.slow_events), pair_print_slow, p);
		if (err)
			return err;
	}
	if (p->cfg.dense) {
		err = dense_open(&p->dense, &p->eng, p->skel->maps.dense_slot,
				 p->skel->maps.dense_a, p->skel->maps.dense_b,
				 p->skel->maps.dense_table);
		if (err)
			return err;
	}
	/* the user-stack watch reads the processes of one table's keys */
	if (need_stacks || p->cfg.slow_stack || p->cfg.explain == EXPLAIN_FULL)
		return watch_stacks(p);
	return 0;
}

static int attach_side(struct pair *p, int side, struct options *o)
{
	struct event_spec *e = &p->ev[side];
	struct bpf_program *prog = side_prog(p, side);
	struct bpf_link *l = NULL;
	char path[512];
	int err;

	switch (e->kind) {
	case EV_TRACEPOINT:
		if (p->src[side] == SRC_RAW)
			l = bpf_program__attach_raw_tracepoint(prog, e->name);
		else
			l = bpf_program__attach_tracepoint(prog, e->category, e->name);
		break;
	case EV_KPROBE:
	case EV_KRETPROBE:
		if (p->src[side] == SRC_REGS)
			l = kfunc_attach_one(prog, e->name, e->kind == EV_KRETPROBE, 0);
		else
			l = bpf_program__attach_trace(prog);
		break;
	case EV_UPROBE:
	case EV_URETPROBE: {
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = e->kind == EV_URETPROBE,
			    .func_name = e->name);

		err = resolve_binary_path(e->path, path, sizeof(path));
		if (err) {
			kd_err("failed to find '%s' of %s: %s", e->path, e->text, strerror(-err));
			return err;
		}
		err = uprobe_refuse_self(path, e->text);
		if (!err)
			err = uprobe_refuse_unsafe(path, e->name, e->kind == EV_URETPROBE, e->text);
		if (err)
			return err;
		l = bpf_program__attach_uprobe_opts(prog, o->pid ? o->pid : -1, path, 0, &uo);
		break;
	}
	}
	if (!l) {
		err = -errno;
		if (e->kind == EV_KPROBE || e->kind == EV_KRETPROBE)
			kfunc_attach_error(e->text, err);
		else
			kd_err("failed to attach %s %s: %s", pair_roles[side], e->text, strerror(-err));
		return err;
	}
	return engine_link(&p->eng, l);
}

int pair_attach(struct session *s)
{
	struct pair *p = s->priv;
	int err;

	for (int side = 0; side < (p->cfg.single ? 1 : 2); side++) {
		err = attach_side(p, side, s->opt);
		if (err)
			return err;
		kd_info("%s %s attached as %s", pair_roles[side], p->ev[side].text,
			pair_src_attach_name(p, side));
	}
	return p->cfg.explain ? explain_attach(&p->eng, p->skel->obj, p->cfg.explain, &p->header) : 0;
}

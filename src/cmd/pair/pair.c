// SPDX-License-Identifier: GPL-2.0
/*
 * kdist pair START END: the time from START to the matching END.
 * Also the engine of every recipe (recipes.c): a recipe is a pair_spec.
 */
#include "cmd/pair/pair.h"
#include "kernel/cond.h"
#include "kernel/container.h"
#include "kernel/engine.h"
#include "kernel/events.h"
#include "view/evline.h"
#include "kernel/feature.h"
#include "pair.skel.h"
#include "cmd/pair/pair_cmd.h"
#include "kernel/kfunc.h"
#include "kernel/spec.h"
#include "kernel/stacks.h"
#include "syms/syms.h"
#include "kernel/tracefs.h"
#include "syms/uprobe.h"
#include "lib/util.h"
#include "view/format.h"
#include "cmd/command.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

struct by_name {
	char name[64];		/* as given, e.g. "function:ksym" */
	enum m_fmt fmt;
};

struct pair {
	struct pair_bpf *skel;
	struct event_spec ev[2];
	struct tp_format fmt[2];
	enum src_kind src[2];
	struct engine eng;
	struct pair_cfg cfg;
	int nby;
	struct by_name by[PAIR_MAX_BY];
	struct stack_syms *syms;	/* --by kstack, ustack; --stack */
	struct key_spec keys;		/* --key, for --slower-than's lines */
	const char *measure;		/* a recipe's sub-measurement, for them too */
	enum m_fmt key_fmt[PAIR_MAX_KEY];
	struct measurement header;
	/* groups taken out of the kernel so far (drain) */
	struct measurement acc;
	bool drain;	/* take the groups out at every read, see pair.bpf.c */
	/* served (serve): acc holds at most acc_max groups, what does not
	 * fit is acc_lost; a group retires when its process is gone or after
	 * retire_ns without events */
	int acc_max;
	uint64_t retire_ns, acc_lost, read_ns;
	int table;	/* the group table programs write to: 0 hist_groups, 1 _b */
	size_t key_size;	/* the group tables' (group_key_size) */
};

static const char *const roles[2] = { "START", "END" };
static const char *const drop_names[NR_DROPS] = {
	[DROP_END_NO_START] = "end_without_start",
	[DROP_START_REPLACED] = "start_replaced",
	[DROP_MATCH_FULL] = "match_table_full",
	[DROP_GROUP_FULL] = "group_table_full",
	[DROP_STACK] = "stack_failed",
	[DROP_STORAGE] = "storage_failed",
	[DROP_OUTPUT] = "output_dropped",
};

static const struct {
	const char *name;
	enum val_kind kind;
} builtins[] = {
	{ "pid", VAL_PID }, { "tid", VAL_TID }, { "cpu", VAL_CPU }, { "cgroup", VAL_CGROUP },
	{ "comm", VAL_COMM }, { "kstack", VAL_KSTACK }, { "ustack", VAL_USTACK },
};

/* A name on one side: the event's own fields first, then arguments, then
 * the built-ins describing the current task. */
static int resolve_val(struct pair *p, int side, const char *name, struct val_src *v)
{
	const struct event_spec *e = &p->ev[side];
	unsigned int n;
	char extra;

	memset(v, 0, sizeof(*v));
	/* the subject's pid, tid, comm and cgroup, not the record's fields */
	for (size_t i = 0; side == 0 && p->cfg.subject_arg && i < ARRAY_SIZE(builtins); i++) {
		if (!strcmp(builtins[i].name, name)) {
			v->kind = builtins[i].kind;
			return 0;
		}
	}
	if (e->kind == EV_TRACEPOINT) {
		const struct tp_field *f = tp_format_field(&p->fmt[side], name);

		if (f) {
			if (f->is_data_loc) {
				kd_err("bad field '%s' of %s: variable-length fields cannot be keys",
				       name, e->text);
				return -EINVAL;
			}
			if (f->is_array) {
				if (f->size > PAIR_STR_LEN && strcmp(f->type, "char")) {
					kd_err("bad field '%s' of %s: arrays other than char[] cannot be keys",
					       name, e->text);
					return -EINVAL;
				}
				v->kind = VAL_STR_FIELD;
			} else if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) {
				v->kind = VAL_FIELD;
			} else {
				kd_err("bad field '%s' of %s: %u-byte fields cannot be keys", name,
				       e->text, f->size);
				return -EINVAL;
			}
			v->off = f->offset;
			v->size = f->size;
			v->is_signed = f->is_signed;
			return 0;
		}
	}
	if (sscanf(name, "arg%u%c", &n, &extra) == 1 && n < 6) {
		v->kind = VAL_ARG;
		v->idx = n;
		v->size = 8;
		return 0;
	}
	if (!strcmp(name, "retval")) {
		if (!ev_is_return(e->kind)) {
			kd_err("bad field 'retval': %s is not a return event (kr: or ur:)", e->text);
			return -EINVAL;
		}
		v->kind = VAL_RETVAL;
		v->size = 8;
		v->is_signed = 1;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++) {
		if (!strcmp(builtins[i].name, name)) {
			v->kind = builtins[i].kind;
			return 0;
		}
	}
	kd_err("unknown field '%s' of %s %s (see kdist list %s:%s)", name, roles[side], e->text,
	       e->category[0] ? e->category : "CATEGORY", e->category[0] ? e->name : "NAME");
	return -ENOENT;
}

/* Every value a side's program reads: its keys, conditions and grouping
 * components (START: --by and the value; END: the END grouping).  Returns
 * how many, into v. */
#define SIDE_VALS_MAX (PAIR_MAX_KEY + PAIR_MAX_BY + COND_MAX + 1)

static int side_vals(struct pair_cfg *c, int side, struct val_src **v)
{
	int n = 0;

	for (unsigned int i = 0; i < c->side[side].nkey; i++)
		v[n++] = &c->side[side].key[i];
	for (unsigned int i = 0; side == 0 && i < c->nby; i++)
		v[n++] = &c->by[i];
	for (int i = 0; i < COND_MAX && c->cond.op[i]; i++)
		if (c->cond.side[i] == side)
			v[n++] = &c->cond_src[i];
	if (side == 0)
		v[n++] = &c->value;
	if (side == 1 && c->end_by_on)
		v[n++] = &c->end_by;
	return n;
}

static bool side_reads(struct pair *p, int side, enum val_kind a, enum val_kind b)
{
	struct val_src *v[SIDE_VALS_MAX];
	int n = side_vals(&p->cfg, side, v);

	for (int i = 0; i < n; i++)
		if (v[i]->kind == a || v[i]->kind == b)
			return true;
	return false;
}

/* The return value's index at fexit: after the arguments. */
static void retval_at(struct pair *p, int side, unsigned int nargs)
{
	struct val_src *v[SIDE_VALS_MAX];
	int n = side_vals(&p->cfg, side, v);

	for (int i = 0; i < n; i++)
		if (v[i]->kind == VAL_RETVAL)
			v[i]->idx = nargs;
}

/* k:/kr: by fentry/fexit where the kernel attaches them to this function
 * (one trampoline call instead of a breakpoint or an ftrace callback with
 * saved registers; the entry arguments are still there at fexit), else by
 * kprobes; fentry:/fexit: and kprobe:/kretprobe: insist. */
static int choose_kfunc_source(struct pair *p, int side)
{
	const struct event_spec *e = &p->ev[side];
	bool ret = e->kind == EV_KRETPROBE;
	unsigned int nargs = 0;
	const char *why = "";

	if (e->method != METHOD_KPROBE && fentry_works(e->name, ret, &nargs, &why)) {
		p->src[side] = ret ? SRC_FEXIT : SRC_FENTRY;
		retval_at(p, side, nargs);
		return 0;
	}
	if (e->method == METHOD_FENTRY) {
		kd_err("failed to attach %s %s: no %s for %s: %s", roles[side], e->text,
		       ret ? "fexit" : "fentry", e->name, why);
		return -EOPNOTSUPP;
	}
	if (e->method == METHOD_BEST)
		kd_info("%s %s: by %s, not %s: %s", roles[side], e->text, ret ? "kretprobe" : "kprobe",
			ret ? "fexit" : "fentry", why);
	p->src[side] = SRC_REGS;
	return 0;
}

static int choose_source(struct pair *p, int side)
{
	const struct event_spec *e = &p->ev[side];
	bool fields = side_reads(p, side, VAL_FIELD, VAL_STR_FIELD);
	bool args = side_reads(p, side, VAL_ARG, VAL_ARG);

	if (e->kind == EV_KPROBE || e->kind == EV_KRETPROBE)
		return choose_kfunc_source(p, side);
	if (e->kind != EV_TRACEPOINT) {
		p->src[side] = SRC_REGS;
		return 0;
	}
	if (fields && args) {
		kd_err("bad key: %s mixes tracepoint fields and raw arguments", e->text);
		return -EINVAL;
	}
	/* a raw tracepoint skips building the trace record, the largest part
	 * of a tracepoint program's cost; events that are not tracepoints
	 * (syscalls:*, dynamic events) have none */
	if (!fields && raw_tp_exists(e->name)) {
		p->src[side] = SRC_RAW;
		return 0;
	}
	if (args) {
		kd_err("bad field: %s has no raw tracepoint arguments", e->text);
		return -EINVAL;
	}
	p->src[side] = SRC_TP;
	return 0;
}

/* A uprobe's binary is an ELF file with the symbol, checked before
 * anything is loaded. */
static int check_uprobe(const struct event_spec *e)
{
	struct elf_syms *es;
	char path[512];
	bool found;
	int err = resolve_binary_path(e->path, path, sizeof(path));

	if (err) {
		kd_err("bad event '%s': %s: %s", e->text, e->path, strerror(-err));
		return err;
	}
	es = elf_syms_open(path);
	if (!es) {
		err = -errno;
		kd_err("bad event '%s': %s: %s", e->text, path,
		       err == -ENOEXEC ? "not an ELF file" : strerror(-err));
		return err;
	}
	found = elf_syms_find_name(es, e->name);
	if (!found)
		kd_err("bad event '%s': no function '%s' in %s%s", e->text, e->name, path,
		       elf_syms_count(es) ? "" : " (it has no symbols: stripped?)");
	elf_syms_free(es);
	return found ? 0 : -ENOENT;
}

static int check_event(struct pair *p, int side)
{
	struct event_spec *e = &p->ev[side];
	int err;

	if (e->kind == EV_UPROBE || e->kind == EV_URETPROBE)
		return check_uprobe(e);
	if (e->kind != EV_TRACEPOINT)
		return 0;
	err = tp_format_load(e->category, e->name, &p->fmt[side]);
	if (err == -ENOENT) {
		kd_err("unknown event '%s': no such tracepoint in tracefs (see kdist list)", e->text);
		return err;
	}
	if (err) {
		kd_err("failed to read the format of %s: %s", e->text, strerror(-err));
		return err;
	}
	return 0;
}

/* Whether side has a field or argument called name (built-ins are the
 * START's). */
static bool side_has(const struct pair *p, int side, const char *name)
{
	const struct event_spec *e = &p->ev[side];
	unsigned int n;
	char extra;

	if (e->kind == EV_TRACEPOINT)
		return tp_format_field(&p->fmt[side], name) ||
		       (sscanf(name, "arg%u%c", &n, &extra) == 1 && n < 6);
	return !strcmp(name, "retval") ? ev_is_return(e->kind) :
	       sscanf(name, "arg%u%c", &n, &extra) == 1 && n < 6;
}

/* --if: each term on the START's field, else on the END's. */
static int configure_cond(struct pair *p, const char *text, bool single)
{
	struct pair_cfg *c = &p->cfg;
	struct cond_list cl = { 0 };
	int err = cond_parse(text, &cl);

	for (int i = 0; !err && i < cl.n; i++) {
		const struct cond_term *t = &cl.t[i];
		struct val_src *v = &c->cond_src[i];
		int side = !single && !side_has(p, 0, t->field) && side_has(p, 1, t->field);

		err = resolve_val(p, side, t->field, v);
		if (err)
			break;
		if (v->kind == VAL_KSTACK || v->kind == VAL_USTACK) {
			kd_err("bad --if '%s': stacks are not compared", t->text);
			return -EINVAL;
		}
		err = cond_compile(t, v->kind == VAL_COMM || v->kind == VAL_STR_FIELD,
				   v->is_signed, &c->cond, i);
		c->cond.side[i] = side;
		c->end_cond |= side;
		/* the END of a START the condition left out is no loss */
		c->orphan_ok |= !side;
	}
	return err;
}

/* How a value without a formatter prints: dev_t as a disk, signed as
 * signed, raw arguments in hex. */
static enum m_fmt default_fmt(const struct pair *p, int side, const char *name,
			      const struct val_src *v)
{
	const struct tp_field *f = v->kind == VAL_FIELD ? tp_format_field(&p->fmt[side], name) : NULL;

	if (f && !strcmp(f->type, "dev_t"))
		return FMT_DISK;
	if (v->is_signed)
		return FMT_SIGNED;
	if (v->kind == VAL_ARG || v->kind == VAL_RETVAL)
		return FMT_HEX;
	return FMT_AUTO;
}

/* Grouping component i: "FIELD" or "FIELD:FORMATTER", read on one side.
 * Without a formatter, the field's type chooses how it prints: dev_t as a
 * disk, signed as signed, raw arguments in hex. */
static int resolve_by(struct pair *p, int side, int i, const char *given)
{
	struct by_name *b = &p->by[i];
	struct val_src *v = side ? &p->cfg.end_by : &p->cfg.by[i];
	char name[64];
	char *suffix;
	int err;

	int field;

	snprintf(b->name, sizeof(b->name), "%s", given);
	snprintf(name, sizeof(name), "%s", given);
	suffix = strchr(name, ':');
	if (suffix)
		*suffix++ = '\0';
	/* container, pod, namespace, unit: the task's cgroup, named (unless
	 * the event has a field of that name) */
	field = suffix || (p->ev[side].kind == EV_TRACEPOINT &&
			   tp_format_field(&p->fmt[side], name)) ? -1 : cg_field_of(name);
	err = resolve_val(p, side, field < 0 ? name : "cgroup", v);
	if (err)
		return err;
	if (field >= 0) {
		b->fmt = FMT_CONTAINER + field;
		return fmt_prepare(b->fmt);
	}
	if (suffix) {
		err = fmt_parse(suffix, &b->fmt, "--by");
		if (!err && (v->kind == VAL_KSTACK || v->kind == VAL_USTACK)) {
			kd_err("bad --by '%s': stacks take no formatter", given);
			err = -EINVAL;
		}
		return err ? err : fmt_prepare(b->fmt);
	}
	b->fmt = default_fmt(p, side, name, v);
	return 0;
}

/* What recipes add to a pair: single events, conditions, an END-side
 * grouping component, restarts, the task a START is about. */
static int configure_extras(struct pair *p, const struct pair_spec *ps)
{
	struct pair_cfg *c = &p->cfg;
	int err;

	c->single = ps->single;
	c->restart = ps->restart;
	c->orphan_ok = ps->orphan_ok;
	if (ps->single && ps->value) {
		err = resolve_val(p, 0, ps->value, &c->value);
		if (err)
			return err;
		if (c->value.kind == VAL_STR_FIELD || c->value.kind == VAL_COMM ||
		    c->value.kind == VAL_KSTACK || c->value.kind == VAL_USTACK) {
			kd_err("bad value '%s': not a number", ps->value);
			return -EINVAL;
		}
	}
	if (ps->cond) {
		err = configure_cond(p, ps->cond, ps->single);
		if (err)
			return err;
	}
	if (ps->end_by) {
		if (ps->single || p->nby >= PAIR_MAX_BY) {
			kd_err("bad --by: at most %d keys", PAIR_MAX_BY - 1);
			return -EINVAL;
		}
		err = resolve_by(p, 1, p->nby, ps->end_by);
		if (err)
			return err;
		if (ps->end_name)
			snprintf(p->by[p->nby].name, sizeof(p->by[0].name), "%s", ps->end_name);
		if (c->end_by.kind == VAL_STR_FIELD || c->end_by.kind == VAL_COMM ||
		    c->end_by.kind == VAL_KSTACK || c->end_by.kind == VAL_USTACK) {
			kd_err("bad END grouping '%s': not a number", ps->end_by);
			return -EINVAL;
		}
		c->end_by_on = 1;
		c->end_by_neg = ps->end_by_neg;
		/* keyed like the START components; BPF reads by[] < nby only */
		c->by[p->nby] = c->end_by;
		p->nby++;
	}
	return 0;
}

static int configure(struct pair *p, const struct pair_spec *ps, struct options *o)
{
	struct pair_cfg *c = &p->cfg;
	char names[PAIR_MAX_BY][64];
	struct key_spec k;
	int n, err;

	/* single events have no latency: a recipe's counts stay as they are */
	if (!ps->single) {
		c->slow_ns = o->slower_ns;
		c->slow_stack = o->stack;
	}

	c->subject_arg = ps->subject_arg;
	p->measure = ps->measure;
	if (ps->key) {
		err = key_spec_parse(ps->key, &k);
		if (err)
			return err;
		for (int i = 0; i < k.n; i++) {
			err = resolve_val(p, 0, k.start[i], &c->side[0].key[i]);
			if (!err)
				err = resolve_val(p, 1, k.end[i], &c->side[1].key[i]);
			if (err)
				return err;
			p->key_fmt[i] = default_fmt(p, 0, k.start[i], &c->side[0].key[i]);
			if (c->side[0].key[i].kind == VAL_STR_FIELD ||
			    c->side[0].key[i].kind == VAL_COMM ||
			    c->side[1].key[i].kind == VAL_STR_FIELD ||
			    c->side[1].key[i].kind == VAL_COMM) {
				kd_err("bad --key: strings cannot match events; use a number field");
				return -EINVAL;
			}
		}
		c->side[0].nkey = c->side[1].nkey = k.n;
		p->keys = k;
	} else {
		c->thread_key = 1;
	}
	n = ps->by ? name_list_parse(ps->by, names, PAIR_MAX_BY, "--by") : 0;
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		struct val_src *v = &c->by[i];

		err = resolve_by(p, 0, i, names[i]);
		if (err)
			return err;
		if (ps->names[i])
			snprintf(p->by[i].name, sizeof(p->by[i].name), "%s", ps->names[i]);
		for (int j = 0; j < i; j++) {
			bool si = v->kind == VAL_COMM || v->kind == VAL_STR_FIELD;
			bool sj = c->by[j].kind == VAL_COMM || c->by[j].kind == VAL_STR_FIELD;

			if (si && sj) {
				kd_err("bad --by: at most one text key (comm or a char[] field)");
				return -EINVAL;
			}
		}
	}
	c->nby = p->nby = n;
	err = configure_extras(p, ps);
	if (err)
		return err;
	for (int side = 0; side < (ps->single ? 1 : 2); side++) {
		err = choose_source(p, side);
		if (err)
			return err;
	}
	task_filter_set(&c->filter, o);
	return 0;
}

static const char *src_attach_name(const struct pair *p, int side)
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

	p->syms = stack_syms_new(bpf_map__fd(p->skel->maps.stacks));
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

static struct m_value key_value(struct pair *p, int i, const struct group_key *g,
				 bool known);

/* A value of the START's task that the head of a slow line carries:
 * pid, tid and comm are read from the same task (the START's subject) at
 * the same time.  The CPU is not: the head's is the END's. */
static bool in_head(const struct val_src *v)
{
	return v->kind == VAL_PID || v->kind == VAL_TID || v->kind == VAL_COMM;
}

/* One line (or JSON line) per pair slower than --slower-than. */
static int print_slow(void *ctx, void *data, size_t size)
{
	struct pair *p = ctx;
	const struct slow_event *e = data;
	const struct slow_start *w = &e->start;
	FILE *f = events_file();
	char buf[256], comm[PAIR_STR_LEN + 1];

	if (size < sizeof(*e))
		return 0;
	snprintf(comm, sizeof(comm), "%.*s", PAIR_STR_LEN, w->comm);
	events_begin(f, "slow", "start_");
	events_head(f, e->ts, comm, w->id >> 32, (uint32_t)w->id, e->cpu, e->delta);
	if (p->measure)
		events_field(f, "measure", p->measure, true);
	for (int i = 0; !p->cfg.thread_key && i < p->keys.n; i++) {
		struct m_value v = mv_num(e->key.v[i]);

		if (in_head(&p->cfg.side[0].key[i]) ||
		    (p->cfg.side[0].key[i].kind == VAL_CPU && p->cfg.side[1].key[i].kind == VAL_CPU))
			continue;	/* the head's own (matched by cpu: the END's) */
		events_field(f, p->keys.start[i], fmt_value(&v, p->key_fmt[i], buf, sizeof(buf)), true);
	}
	for (int i = 0; i < p->nby; i++) {
		struct m_value v = key_value(p, i, &e->group, false);

		if (i < (int)p->cfg.nby && in_head(&p->cfg.by[i]))
			continue;	/* read at START, as the head's */

		events_field(f, p->by[i].name, v.type == MV_STACK ? v.stack->label :
			     fmt_value(&v, p->by[i].fmt, buf, sizeof(buf)), true);
	}
	if (p->cfg.slow_stack) {
		events_stack(f, "kstack", stack_syms_stack(p->syms, w->kstack, false, 0));
		events_stack(f, "ustack", stack_syms_stack(p->syms, w->ustack, true, w->stack_tgid));
	}
	events_end(f);
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
		if (c->by[i].kind == VAL_STR_FIELD || c->by[i].kind == VAL_COMM ||
		    c->by[i].kind == VAL_USTACK)
			return sizeof(struct group_key);
	/* an END component (numbers only) comes after the START ones */
	n = c->nby + c->end_by_on;
	return n ? n * sizeof(((struct group_key *)0)->v[0]) : sizeof(struct group_key);
}

/* A tid_start slot holds the START's grouping: none, or one number. */
static bool slot_holds_by(const struct pair_cfg *c)
{
	enum val_kind k = c->by[0].kind;

	return !c->nby || (c->nby == 1 && k != VAL_STR_FIELD && k != VAL_COMM &&
			   k != VAL_KSTACK && k != VAL_USTACK);
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

static int load(struct pair *p, struct options *o)
{
	struct bpf_program *prog;
	bool need_stacks = false;
	int err;

	p->skel = pair_bpf__open();
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
	for (unsigned int i = 0; i < p->cfg.nby; i++)
		if (p->cfg.by[i].kind == VAL_KSTACK || p->cfg.by[i].kind == VAL_USTACK)
			need_stacks = true;
	if (need_stacks || p->cfg.slow_stack)
		bpf_map__set_max_entries(p->skel->maps.stacks, 16384);
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
	/* numbers alone: the group tables hash only the components used
	 * (e.g. 16 of 56 bytes for syscalls), not the whole group_key */
	p->key_size = group_key_size(&p->cfg);
	bpf_map__set_key_size(p->skel->maps.hist_groups, p->key_size);
	bpf_map__set_key_size(p->skel->maps.hist_groups_b, p->key_size);
	bpf_map__set_key_size(bpf_map__inner_map(p->skel->maps.group_table), p->key_size);
	p->skel->rodata->cfg = p->cfg;
	bpf_object__for_each_program(prog, p->skel->obj)
		bpf_program__set_autoload(prog, prog == side_prog(p, 0) ||
					  (!p->cfg.single && prog == side_prog(p, 1)));
	for (int side = 0; side < (p->cfg.single ? 1 : 2); side++) {
		if (p->src[side] != SRC_FENTRY && p->src[side] != SRC_FEXIT)
			continue;
		err = bpf_program__set_attach_target(side_prog(p, side), 0, p->ev[side].name);
		if (err) {
			kd_err("failed to attach %s %s: %s", roles[side], p->ev[side].text,
			       strerror(-err));
			return err;
		}
	}
	err = engine_load(&p->eng, p->skel->skeleton, drop_names, NR_DROPS);
	if (err)
		return err;
	if (p->cfg.slow_ns) {
		err = events_add(bpf_map__fd(p->skel->maps.slow_events), print_slow, p);
		if (err)
			return err;
	}
	/* the user-stack watch reads the processes of one table's keys */
	p->drain = p->nby && !need_stacks;
	if (need_stacks || p->cfg.slow_stack)
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
			kd_err("failed to attach %s %s: %s", roles[side], e->text, strerror(-err));
		return err;
	}
	return engine_link(&p->eng, l);
}

static void fill_header(struct pair *p, const struct pair_spec *ps, const char *command)
{
	struct measurement *m = &p->header;

	m->command = command;
	m->kind = M_LATENCY;
	snprintf(m->key, sizeof(m->key), "%s", ps->key ? ps->key : "tid");
	snprintf(m->title, sizeof(m->title), "%s%s%s -> %s, matched by %s", ps->title ? ps->title : "",
		 ps->title ? ": " : "", p->ev[0].text, p->ev[1].text, m->key);
	m->nevents = ps->single ? 1 : 2;
	m->counts = ps->single && !ps->value;
	if (ps->single) {
		m->kind = M_VALUE;
		m->value_unit = ps->value ? (ps->value_unit ? ps->value_unit : "") : "events";
		m->key[0] = '\0';
		snprintf(m->title, sizeof(m->title), "%s%s%s %s", ps->title ? ps->title : "",
			 ps->title ? ": " : "", p->ev[0].text, ps->value ? ps->value : "count");
	}
	for (int side = 0; side < m->nevents; side++) {
		snprintf(m->events[side].role, sizeof(m->events[side].role), "%s",
			 side ? "end" : "start");
		snprintf(m->events[side].spec, sizeof(m->events[side].spec), "%s", p->ev[side].text);
		snprintf(m->events[side].attach, sizeof(m->events[side].attach), "%s",
			 src_attach_name(p, side));
	}
	m->nby = p->nby;
	for (int i = 0; i < p->nby; i++) {
		snprintf(m->by[i], sizeof(m->by[i]), "%s", p->by[i].name);
		m->by_fmt[i] = p->by[i].fmt;
	}
}

int pair_prepare_spec(struct session *s, const struct pair_spec *ps)
{
	struct pair *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return -ENOMEM;
	s->priv = p;
	if (!tracefs_root())
		return -ENODEV;
	for (int side = 0; side < (ps->single ? 1 : 2); side++) {
		err = event_spec_parse(side ? ps->end : ps->start, &p->ev[side]);
		if (!err)
			err = check_event(p, side);
		if (err)
			return err;
	}
	err = configure(p, ps, s->opt);
	if (err)
		return err;
	fill_header(p, ps, s->cmd->name);
	measurement_copy_header(&p->acc, &p->header);
	if (s->opt->served) {
		p->acc_max = s->opt->max_groups;
		p->retire_ns = s->opt->retire_after * 1e9;
	}
	return load(p, s->opt);
}

static int pair_prepare(struct session *s)
{
	struct options *o = s->opt;
	struct pair_spec ps = { 0 };

	if (o->nargs != 2) {
		kd_err("bad arguments: expected START END, e.g. kdist pair "
		       "raw_syscalls:sys_enter raw_syscalls:sys_exit");
		return -EINVAL;
	}
	ps.start = o->args[0];
	ps.end = o->args[1];
	ps.key = o->key;
	ps.by = o->by;
	ps.cond = o->cond;
	return pair_prepare_spec(s, &ps);
}

int pair_attach(struct session *s)
{
	struct pair *p = s->priv;
	int err;

	for (int side = 0; side < (p->cfg.single ? 1 : 2); side++) {
		err = attach_side(p, side, s->opt);
		if (err)
			return err;
		kd_info("%s %s attached as %s", roles[side], p->ev[side].text,
			src_attach_name(p, side));
	}
	return 0;
}

/* Grouping component i of a BPF group key as the measurement keys it.
 * known: a text only if it was interned before (else its text is NULL), so
 * that names a full table cannot take are not kept for ever either. */
static struct m_value key_value(struct pair *p, int i, const struct group_key *g, bool known)
{
	const struct val_src *v = &p->cfg.by[i];
	unsigned long long x = g->v[i];
	const char *t;

	switch (v->kind) {
	case VAL_COMM:
	case VAL_STR_FIELD:
		t = known ? m_intern_find(g->str, PAIR_STR_LEN) : m_intern(g->str, PAIR_STR_LEN);
		return t ? fmt_normalize(mv_text(t), p->by[i].fmt) : mv_text(NULL);
	case VAL_KSTACK:
	case VAL_USTACK:
		if (x == ~0ULL)
			return mv_stack(m_stack_marker("[lost stack]"));
		return mv_stack(stack_syms_stack(p->syms, x, v->kind == VAL_USTACK, g->tgid));
	default:
		return fmt_normalize(mv_num(x), p->by[i].fmt);
	}
}

/* Add h to the group of BPF group key k. */
static int add_group(struct pair *p, struct measurement *m, const struct group_key *k,
		     const struct hist *h)
{
	bool full = m == &p->acc && p->acc_max && m->ngroups >= p->acc_max;
	struct m_value key[M_MAX_BY];
	struct m_group *g;

	for (int i = 0; i < p->nby; i++) {
		key[i] = key_value(p, i, k, full);
		if (key[i].type != MV_NUM && !key[i].text) {
			if (!full)
				return -ENOMEM;
			p->acc_lost += h->count;	/* a new name: no group has it */
			return 0;
		}
	}
	if (full && !measurement_find(m, key)) {
		p->acc_lost += h->count;
		return 0;
	}
	/* raw keys that the formatters or symbols make equal are one group */
	g = measurement_group(m, key);
	if (!g)
		return -ENOMEM;
	g->seen_ns = p->read_ns;
	return m_hist_add(&g->h, h);
}

/* The groups of table fd added to m; with take, deleted from the table. */
static int read_groups(struct pair *p, int fd, struct measurement *m, bool take)
{
	struct group_key k, next, *cur = NULL, *keys = NULL;
	size_t n = 0, cap = 0;
	int err = 0;

	/* the kernel fills key_size bytes of it */
	memset(&next, 0, sizeof(next));
	while (!err && !bpf_map_get_next_key(fd, cur, &next)) {
		struct hist h;

		k = next;
		cur = &k;
		if (take && n == cap) {
			struct group_key *nk = realloc(keys, (cap = cap ? 2 * cap : 256) * sizeof(*nk));

			if (!nk) {
				err = -ENOMEM;
				break;
			}
			keys = nk;
		}
		if (take)
			keys[n++] = k;
		if (engine_sum_hist(&p->eng, fd, &k, sizeof(h), &h))
			continue;	/* no program writes a table being read */
		err = add_group(p, m, &k, &h);
	}
	for (size_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &keys[i]);
	free(keys);
	return err;
}

/* Whether a served group retires: nothing came at this read, and its
 * process is gone or nothing came for retire_ns. */
static bool group_retires(const struct m_group *g, void *ctx)
{
	struct pair *p = ctx;

	if (g->seen_ns == p->read_ns)
		return false;
	if (p->read_ns - g->seen_ns >= p->retire_ns)
		return true;
	for (int i = 0; i < p->nby; i++) {
		pid_t pid = g->key[i].num;

		/* pid 0 is the idle task's, kill(0) a process group's */
		if ((p->cfg.by[i].kind == VAL_PID || p->cfg.by[i].kind == VAL_TID) && pid > 0 &&
		    kill(pid, 0) && errno == ESRCH)
			return true;
	}
	return false;
}

/* Put the other group table in the programs' place (the update returns
 * once every program that might still write to the old one has ended:
 * nothing is written between reading a group and deleting it), then take
 * the old one's groups into p->acc. */
static int drain_groups(struct pair *p)
{
	struct bpf_map *t[2] = { p->skel->maps.hist_groups, p->skel->maps.hist_groups_b };
	int next = bpf_map__fd(t[!p->table]), outer = bpf_map__fd(p->skel->maps.group_table);
	__u32 zero = 0;

	if (bpf_map_update_elem(outer, &zero, &next, BPF_ANY)) {
		int err = -errno;

		kd_err("failed to switch group tables: %s", strerror(-err));
		return err;
	}
	p->table = !p->table;
	return read_groups(p, bpf_map__fd(t[!p->table]), &p->acc, true);
}

int pair_read(struct session *s, struct measurement *m)
{
	struct pair *p = s->priv;
	const struct engine_spilled *sp = NULL;
	struct group_key k;
	struct m_group *g;
	__u32 zero = 0;
	int err;

	measurement_copy_header(m, &p->header);
	err = engine_read(&p->eng, m);
	if (err)
		return err;
	if (!p->nby) {
		struct hist h;

		err = engine_sum_hist(&p->eng, bpf_map__fd(p->skel->maps.hist_one), &zero,
				      sizeof(h), &h);
		if (err)
			return err;
		if (!h.count)
			return 0;
		g = measurement_group(m, NULL);
		if (!g)
			return -ENOMEM;
		return m_hist_set(&g->h, &h);
	}
	if (p->drain) {
		p->read_ns = now_ns();
		err = drain_groups(p);
		/* served: the spilled events join the run's totals, which are
		 * bounded and retire, instead of being kept by the engine */
		while (!err && p->acc_max && (sp = engine_spilled_next(&p->eng, sp, &k, sizeof(k))))
			err = add_group(p, &p->acc, &k, sp->h);
		if (!err && p->acc_max)
			engine_spilled_clear(&p->eng);
		if (!err && p->acc_max)
			measurement_retire(&p->acc, group_retires, p);
		if (!err)
			err = measurement_merge(m, &p->acc);
		if (p->acc_max)
			measurement_add_drop(m, drop_names[DROP_GROUP_FULL], p->acc_lost);
	} else {
		err = read_groups(p, bpf_map__fd(p->skel->maps.hist_groups), m, false);
	}
	/* the events the kernel handed over since the start (engine_read took
	 * the last ones): whole-run figures, like p->acc */
	while (!err && (sp = engine_spilled_next(&p->eng, sp, &k, sizeof(k))))
		err = add_group(p, m, &k, sp->h);
	for (int i = 0; i < p->nby; i++)
		if (p->by[i].fmt >= FMT_CONTAINER && p->by[i].fmt <= FMT_UNIT)
			cgroup_stats(&m->cgroup_names);
	return err;
}

void pair_cleanup(struct session *s)
{
	struct pair *p = s->priv;

	engine_close(&p->eng);
	pair_bpf__destroy(p->skel);
	stack_syms_free(p->syms);
	measurement_clear(&p->header);
	measurement_clear(&p->acc);
	free(p);
	s->priv = NULL;
}

const struct command cmd_pair = {
	.name = "pair",
	.args = "START END",
	.summary = "latency from START to END, matched by --key (default: same thread)",
	.opts = OPTS_MEASURE | OPT(KEY) | OPT(IF) | OPT(SLOWER_THAN) | OPT(STACK),
	.caps = CMD_SERVE,
	.prepare = pair_prepare,
	.attach = pair_attach,
	.read = pair_read,
	.cleanup = pair_cleanup,
};

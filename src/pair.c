// SPDX-License-Identifier: GPL-2.0
/*
 * kdist pair START END: the time from START to the matching END.
 * Also the engine of every recipe (recipes.c): a recipe is a pair_spec.
 */
#include "pair.h"
#include "engine.h"
#include "feature.h"
#include "pair.skel.h"
#include "pair_cmd.h"
#include "kdist.h"
#include "kfunc.h"
#include "spec.h"
#include "stacks.h"
#include "syms.h"
#include "tracefs.h"
#include "util.h"

#include <errno.h>
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
	struct stack_syms *syms;	/* --by kstack, ustack */
	struct measurement header;
};

static const char *const roles[2] = { "START", "END" };
static const char *const drop_names[NR_DROPS] = {
	[DROP_END_NO_START] = "end_without_start",
	[DROP_START_REPLACED] = "start_replaced",
	[DROP_MATCH_FULL] = "match_table_full",
	[DROP_GROUP_FULL] = "group_table_full",
	[DROP_STACK] = "stack_failed",
	[DROP_STORAGE] = "storage_failed",
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

static bool side_reads(const struct pair *p, int side, enum val_kind a, enum val_kind b)
{
	const struct pair_side *s = &p->cfg.side[side];

	for (unsigned int i = 0; i < s->nkey; i++)
		if (s->key[i].kind == a || s->key[i].kind == b)
			return true;
	for (unsigned int i = 0; side == 0 && i < p->cfg.nby; i++)
		if (p->cfg.by[i].kind == a || p->cfg.by[i].kind == b)
			return true;
	for (int i = 0; side == 0 && i < PAIR_MAX_COND && p->cfg.cond_op[i]; i++)
		if (p->cfg.cond[i].kind == a || p->cfg.cond[i].kind == b)
			return true;
	if (side == 0 && (p->cfg.value.kind == a || p->cfg.value.kind == b))
		return true;
	if (side == 1 && p->cfg.end_by_on && (p->cfg.end_by.kind == a || p->cfg.end_by.kind == b))
		return true;
	return false;
}

static int choose_source(struct pair *p, int side)
{
	const struct event_spec *e = &p->ev[side];
	bool fields = side_reads(p, side, VAL_FIELD, VAL_STR_FIELD);
	bool args = side_reads(p, side, VAL_ARG, VAL_ARG);

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

static int check_event(struct pair *p, int side)
{
	struct event_spec *e = &p->ev[side];
	int err;

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

/* One condition "F==N", "F!=N" or "F&MASK==0" into slot i. */
static int parse_cond(struct pair *p, int i, const char *s)
{
	static const struct { const char *op; enum cond_op c; } ops[] = {
		{ "&", COND_MASK_ZERO }, { "!=", COND_NE }, { "==", COND_EQ },
	};
	struct pair_cfg *c = &p->cfg;
	struct val_src *v = &c->cond[i];
	char name[64];
	const char *at = NULL;
	size_t o;
	int err;

	for (o = 0; o < ARRAY_SIZE(ops); o++) {
		at = strstr(s, ops[o].op);
		if (at)
			break;
	}
	if (!at || at - s >= (long)sizeof(name))
		goto bad;
	c->cond_op[i] = ops[o].c;
	snprintf(name, sizeof(name), "%.*s", (int)(at - s), s);
	err = resolve_val(p, 0, name, v);
	if (err)
		return err;
	if (v->kind == VAL_STR_FIELD || v->kind == VAL_COMM || v->kind == VAL_KSTACK ||
	    v->kind == VAL_USTACK)
		goto bad;
	at += strlen(ops[o].op);
	errno = 0;
	c->cond_val[i] = strtoll(at, (char **)&at, 0);
	if (errno || (c->cond_op[i] == COND_MASK_ZERO && strcmp(at, "==0")) ||
	    (c->cond_op[i] != COND_MASK_ZERO && *at))
		goto bad;
	return 0;
bad:
	kd_err("bad condition '%s': expected FIELD==N, FIELD!=N or FIELD&MASK==0", s);
	return -EINVAL;
}

/* Grouping component i: "FIELD" or "FIELD:FORMATTER", read on one side.
 * Without a formatter, the field's type chooses how it prints: dev_t as a
 * disk, signed as signed, raw arguments in hex. */
static int resolve_by(struct pair *p, int side, int i, const char *given)
{
	struct by_name *b = &p->by[i];
	struct val_src *v = side ? &p->cfg.end_by : &p->cfg.by[i];
	const struct tp_field *f;
	char name[64];
	char *suffix;
	int err;

	snprintf(b->name, sizeof(b->name), "%s", given);
	snprintf(name, sizeof(name), "%s", given);
	suffix = strchr(name, ':');
	if (suffix)
		*suffix++ = '\0';
	err = resolve_val(p, side, name, v);
	if (err)
		return err;
	if (suffix) {
		err = fmt_parse(suffix, &b->fmt, "--by");
		if (!err && (v->kind == VAL_KSTACK || v->kind == VAL_USTACK)) {
			kd_err("bad --by '%s': stacks take no formatter", given);
			err = -EINVAL;
		}
		return err ? err : fmt_prepare(b->fmt);
	}
	f = v->kind == VAL_FIELD ? tp_format_field(&p->fmt[side], name) : NULL;
	if (f && !strcmp(f->type, "dev_t"))
		b->fmt = FMT_DISK;
	else if (v->is_signed)
		b->fmt = FMT_SIGNED;
	else if (v->kind == VAL_ARG || v->kind == VAL_RETVAL)
		b->fmt = FMT_HEX;
	else
		b->fmt = FMT_AUTO;
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
		char conds[PAIR_MAX_COND][64];
		int n = name_list_parse(ps->cond, conds, PAIR_MAX_COND, "condition");

		for (int i = 0; i < n; i++) {
			err = parse_cond(p, i, conds[i]);
			if (err)
				return err;
		}
		if (n < 0)
			return n;
	}
	if (ps->end_by) {
		if (ps->single || p->nby >= PAIR_MAX_BY) {
			kd_err("bad --by: at most %d keys", PAIR_MAX_BY - 1);
			return -EINVAL;
		}
		err = resolve_by(p, 1, p->nby, ps->end_by);
		if (err)
			return err;
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

	c->subject_arg = ps->subject_arg;
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
			if (c->side[0].key[i].kind == VAL_STR_FIELD ||
			    c->side[0].key[i].kind == VAL_COMM ||
			    c->side[1].key[i].kind == VAL_STR_FIELD ||
			    c->side[1].key[i].kind == VAL_COMM) {
				kd_err("bad --key: strings cannot match events; use a number field");
				return -EINVAL;
			}
		}
		c->side[0].nkey = c->side[1].nkey = k.n;
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
	default: return ev_kind_name(p->ev[side].kind);
	}
}

static struct bpf_program *side_prog(struct pair *p, int side)
{
	struct bpf_program *progs[3][2] = {
		[SRC_TP] = { p->skel->progs.tp_start, p->skel->progs.tp_end },
		[SRC_RAW] = { p->skel->progs.raw_start, p->skel->progs.raw_end },
		[SRC_REGS] = { p->skel->progs.regs_start, p->skel->progs.regs_end },
	};
	return progs[p->src[side]][side];
}

/* Stacks symbolized at read; user stacks need their process's maps while it lives. */
static int watch_stacks(struct pair *p)
{
	size_t tgid = offsetof(struct group_key, tgid);

	p->syms = stack_syms_new(bpf_map__fd(p->skel->maps.stacks));
	if (!p->syms)
		return -ENOMEM;
	for (unsigned int i = 0; i < p->cfg.nby; i++)
		if (p->cfg.by[i].kind == VAL_USTACK)
			return stack_syms_watch(p->syms, bpf_map__fd(p->skel->maps.hist_groups),
						sizeof(struct group_key), &tgid, 1);
	return 0;
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

		p->cfg.task_storage =
			libbpf_probe_bpf_helper(t0, BPF_FUNC_task_storage_get, NULL) > 0 &&
			libbpf_probe_bpf_helper(t1, BPF_FUNC_task_storage_get, NULL) > 0;
		kd_info("in-flight starts kept in %s", p->cfg.task_storage ? "task storage" :
			"a tid-keyed hash");
	}
	for (unsigned int i = 0; i < p->cfg.nby; i++)
		if (p->cfg.by[i].kind == VAL_KSTACK || p->cfg.by[i].kind == VAL_USTACK)
			need_stacks = true;
	if (need_stacks)
		bpf_map__set_max_entries(p->skel->maps.stacks, 16384);
	if (o->max_groups)
		bpf_map__set_max_entries(p->skel->maps.hist_groups, o->max_groups);
	p->skel->rodata->cfg = p->cfg;
	bpf_object__for_each_program(prog, p->skel->obj)
		bpf_program__set_autoload(prog, prog == side_prog(p, 0) ||
					  (!p->cfg.single && prog == side_prog(p, 1)));
	err = engine_load(&p->eng, p->skel->skeleton, drop_names, NR_DROPS);
	if (err)
		return err;
	if (need_stacks)
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
		l = kfunc_attach_one(prog, e->name, e->kind == EV_KRETPROBE, 0);
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

/* Grouping component i of a BPF group key as the measurement keys it. */
static struct m_value key_value(struct pair *p, int i, const struct group_key *g)
{
	const struct val_src *v = &p->cfg.by[i];
	unsigned long long x = g->v[i];

	switch (v->kind) {
	case VAL_COMM:
	case VAL_STR_FIELD:
		return fmt_normalize(mv_text(m_intern(g->str, PAIR_STR_LEN)), p->by[i].fmt);
	case VAL_KSTACK:
	case VAL_USTACK:
		if (x == ~0ULL)
			return mv_stack(m_stack_marker("[lost stack]"));
		return mv_stack(stack_syms_stack(p->syms, x, v->kind == VAL_USTACK, g->tgid));
	default:
		return fmt_normalize(mv_num(x), p->by[i].fmt);
	}
}

int pair_read(struct session *s, struct measurement *m)
{
	struct pair *p = s->priv;
	struct group_key k, next, *cur = NULL;
	struct m_group *g;
	__u32 zero = 0;
	int fd, err;

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
	fd = bpf_map__fd(p->skel->maps.hist_groups);
	while (!bpf_map_get_next_key(fd, cur, &next)) {
		struct m_value key[M_MAX_BY];
		struct hist h;

		k = next;
		cur = &k;
		if (engine_sum_hist(&p->eng, fd, &k, sizeof(h), &h))
			continue;	/* deleted meanwhile: cannot happen, groups stay */
		for (int i = 0; i < p->nby; i++) {
			key[i] = key_value(p, i, &k);
			if (key[i].type != MV_NUM && !key[i].text)
				return -ENOMEM;
		}
		/* raw keys that the formatters or symbols make equal are one group */
		g = measurement_group(m, key);
		if (!g)
			return -ENOMEM;
		err = m_hist_add(&g->h, &h);
		if (err)
			return err;
	}
	return 0;
}

void pair_cleanup(struct session *s)
{
	struct pair *p = s->priv;

	engine_close(&p->eng);
	pair_bpf__destroy(p->skel);
	stack_syms_free(p->syms);
	measurement_clear(&p->header);
	free(p);
	s->priv = NULL;
}

const struct command cmd_pair = {
	.name = "pair",
	.args = "START END",
	.summary = "latency from START to END, matched by --key (default: same thread)",
	.opts = OPTS_MEASURE | OPT(KEY),
	.prepare = pair_prepare,
	.attach = pair_attach,
	.read = pair_read,
	.cleanup = pair_cleanup,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * kdist pair: the START/END specs, --key, --by, --if and a recipe's extras
 * made into the BPF configuration (struct pair_cfg).
 */
#include "cmd/pair/pair_int.h"
#include "kernel/btfpath.h"
#include "kernel/cond.h"
#include "kernel/container.h"
#include "kernel/feature.h"
#include "kernel/keys.h"
#include "kernel/spec.h"
#include "kernel/tracefs.h"
#include "syms/syms.h"
#include "syms/uprobe.h"
#include "lib/util.h"
#include "view/format.h"
#include "cmd/pair/match.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A value read as a text (into the group's string, or hashed as a key). */
bool pair_is_text(enum val_kind k)
{
	return k == VAL_COMM || k == VAL_STR_FIELD || k == VAL_DLOC_FIELD || k == VAL_PATH_STR ||
	       k == VAL_GLOBAL_STR;
}

/* The BTF type of name on side, if it was named through BTF. */
static const struct kpath_type *typed_of(const struct pair *p, int side, const char *name)
{
	for (int i = 0; i < p->ntyped; i++)
		if (p->typed[i].side == side && !strcmp(p->typed[i].name, name))
			return &p->typed[i].t;
	return NULL;
}

/* A resolved path kp of type kt into *v (kinds: its number, its text) and
 * the pair's paths; whole: the path is an argument itself, nothing read.
 * 0, or -EINVAL past KPATH_MAX paths. */
static int add_path(struct pair *p, int side, const char *name, const struct kpath *kp,
		    const struct kpath_type *kt, bool whole, enum val_kind num,
		    enum val_kind text, struct val_src *v)
{
	const struct event_spec *e = &p->ev[side];

	if (p->ntyped == KPATH_MAX || (!whole && p->npath == KPATH_MAX)) {
		kd_err("bad field '%s' of %s: at most %d paths", name, e->text, KPATH_MAX);
		return -EINVAL;
	}
	v->idx = kp->arg;
	v->size = whole ? 8 : kp->size;
	v->is_signed = kp->is_signed;
	if (whole) {
		v->kind = VAL_ARG;
	} else {
		v->kind = kt->show == KSHOW_STR ? text : num;
		v->off = p->npath;
		p->cfg.path[p->npath++] = *kp;
	}
	snprintf(p->typed[p->ntyped].name, sizeof(p->typed[0].name), "%s", name);
	p->typed[p->ntyped].side = side;
	p->typed[p->ntyped++].t = *kt;
	return 0;
}

/* name on side through the kernel's types (btfpath.h): 0 into *v, 1 when
 * it names nothing there, -errno after saying why. */
static int resolve_typed(struct pair *p, int side, const char *name, struct val_src *v)
{
	const struct event_spec *e = &p->ev[side];
	struct kpath kp;
	struct kpath_type kt;
	bool whole;
	int err;

	if (e->kind != EV_TRACEPOINT && e->kind != EV_KPROBE && e->kind != EV_KRETPROBE)
		return 1;
	err = btfpath_resolve(e->kind == EV_TRACEPOINT ? BTF_ARGS_TP : BTF_ARGS_FUNC, e->name,
			      e->text, name, &kp, &kt, &whole);
	return err ? err : add_path(p, side, name, &kp, &kt, whole, VAL_PATH, VAL_PATH_STR, v);
}

static const struct {
	const char *name;
	enum val_kind kind;
} builtins[] = {
	{ "pid", VAL_PID }, { "tid", VAL_TID }, { "cpu", VAL_CPU }, { "cgroup", VAL_CGROUP },
	{ "comm", VAL_COMM }, { "kstack", VAL_KSTACK }, { "ustack", VAL_USTACK },
	{ "jiffies", VAL_JIFFIES },
};

/* name on side as a kernel variable (btfpath_global): 0 into *v, 1 when it
 * is none, -errno after saying why. */
static int resolve_global(struct pair *p, int side, const char *name, struct val_src *v)
{
	struct kpath kp;
	struct kpath_type kt;
	int err = btfpath_global(p->ev[side].text, name, &kp, &kt);

	return err ? err : add_path(p, side, name, &kp, &kt, false, VAL_GLOBAL, VAL_GLOBAL_STR, v);
}

/* Whether name on side starts with a kernel variable rather than an
 * argument: a CPU, or a first name (after a cast) that no argument has. */
static bool names_global(struct pair *p, int side, const char *name)
{
	const struct event_spec *e = &p->ev[side];
	bool args = e->kind == EV_TRACEPOINT || e->kind == EV_KPROBE || e->kind == EV_KRETPROBE;

	if (strchr(name, '@'))
		return true;
	return !args || !btfpath_is_arg(e->kind == EV_TRACEPOINT ? BTF_ARGS_TP : BTF_ARGS_FUNC,
					e->name, name);
}

/* A name on one side: the event's own fields first, then arguments, then
 * the built-ins describing the current task, then kernel variables. */
static int resolve_val(struct pair *p, int side, const char *name, struct val_src *v)
{
	const struct event_spec *e = &p->ev[side];
	unsigned int n;
	int typed;
	char extra;

	memset(v, 0, sizeof(*v));
	/* the subject's pid, tid, comm and cgroup, not the record's fields */
	for (size_t i = 0; side == 0 && p->cfg.subject_arg && i < ARRAY_SIZE(builtins); i++) {
		if (!strcmp(builtins[i].name, name)) {
			v->kind = builtins[i].kind;
			return 0;
		}
	}
	/* where paths read the arguments, a name both an argument and a
	 * record field is the argument: one side reads one or the other */
	if (p->prefer_args && (typed = resolve_typed(p, side, name, v)) <= 0)
		return typed;
	if (e->kind == EV_TRACEPOINT) {
		const struct tp_field *f = tp_format_field(&p->fmt[side], name);

		if (f) {
			if (f->is_data_loc) {
				if (!strstr(f->type, "char")) {
					kd_err("bad field '%s' of %s: variable-length fields other than texts cannot be read",
					       name, e->text);
					return -EINVAL;
				}
				v->kind = VAL_DLOC_FIELD;
			} else if (f->is_array) {
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
	if (name[0] == '(' || strchr(name, '@') ||
	    (btfpath_is_path(name) && names_global(p, side, name))) {
		typed = resolve_global(p, side, name, v);
		if (typed <= 0)
			return typed;
	}
	if (btfpath_is_path(name))
		return resolve_typed(p, side, name, v);
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
	typed = resolve_typed(p, side, name, v);
	if (typed <= 0)
		return typed;
	typed = resolve_global(p, side, name, v);
	if (typed <= 0)
		return typed;
	kd_err("unknown field '%s' of %s %s (see kdist list %s:%s)", name, pair_roles[side], e->text,
	       e->category[0] ? e->category : "CATEGORY", e->category[0] ? e->name : "NAME");
	return -ENOENT;
}

int pair_side_vals(struct pair_cfg *c, int side, struct val_src **v)
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
	int n = pair_side_vals(&p->cfg, side, v);

	for (int i = 0; i < n; i++)
		if (v[i]->kind == a || v[i]->kind == b)
			return true;
	return false;
}

/* The return value's index at fexit: after the arguments. */
static void retval_at(struct pair *p, int side, unsigned int nargs)
{
	struct val_src *v[SIDE_VALS_MAX];
	int n = pair_side_vals(&p->cfg, side, v);

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
		kd_err("failed to attach %s %s: no %s for %s: %s", pair_roles[side], e->text,
		       ret ? "fexit" : "fentry", e->name, why);
		return -EOPNOTSUPP;
	}
	if (e->method == METHOD_BEST)
		kd_info("%s %s: by %s, not %s: %s", pair_roles[side], e->text, ret ? "kretprobe" : "kprobe",
			ret ? "fexit" : "fentry", why);
	p->src[side] = SRC_REGS;
	return 0;
}

static int choose_source(struct pair *p, int side)
{
	const struct event_spec *e = &p->ev[side];
	bool fields = side_reads(p, side, VAL_FIELD, VAL_STR_FIELD) ||
		      side_reads(p, side, VAL_DLOC_FIELD, VAL_DLOC_FIELD);
	bool args = side_reads(p, side, VAL_ARG, VAL_PATH) ||
		    side_reads(p, side, VAL_PATH_STR, VAL_PATH_STR);

	if (e->kind == EV_KPROBE || e->kind == EV_KRETPROBE)
		return choose_kfunc_source(p, side);
	if (e->kind != EV_TRACEPOINT) {
		p->src[side] = SRC_REGS;
		return 0;
	}
	if (fields && args) {
		kd_err("bad fields: %s mixes record fields (read on the tracepoint) and arguments "
		       "or paths (read on the raw tracepoint)", e->text);
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

int pair_check_event(struct pair *p, int side)
{
	struct event_spec *e = &p->ev[side];
	int err;

	if (e->kind == EV_UPROBE || e->kind == EV_URETPROBE)
		return check_uprobe(e);
	if (e->kind != EV_TRACEPOINT)
		return 0;
	err = tp_format_load(e->category, e->name, &p->fmt[side]);
	if (err == -ENOENT) {
		tracefs_unknown_event(e->text);
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
		err = cond_compile(t, pair_is_text(v->kind),
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
	const struct kpath_type *kt = typed_of(p, side, name);

	if (kt)	/* by the kernel's type: pointers in hex, numbers as they are */
		return btfpath_fmt(kt);
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
		return key_prepare(b->fmt);
	}
	if (suffix) {
		err = fmt_parse(suffix, &b->fmt, "--by");
		if (!err && (v->kind == VAL_KSTACK || v->kind == VAL_USTACK)) {
			kd_err("bad --by '%s': stacks take no formatter", given);
			err = -EINVAL;
		}
		return err ? err : key_prepare(b->fmt);
	}
	b->fmt = default_fmt(p, side, name, v);
	if (typed_of(p, side, name) && typed_of(p, side, name)->show == KSHOW_ENUM)
		b->enum_id = typed_of(p, side, name)->enum_id;
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
		if (pair_is_text(c->value.kind) ||
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
		if (pair_is_text(c->end_by.kind) ||
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

int pair_configure(struct pair *p, const struct pair_spec *ps, struct options *o)
{
	struct pair_cfg *c = &p->cfg;
	char names[PAIR_MAX_BY][64];
	struct key_spec k;
	const char *why;
	int n, err;

	/* single events have no latency: a recipe's counts stay as they are */
	if (!ps->single) {
		c->slow_ns = o->slower_ns;
		c->slow_stack = o->stack;
	}
	if (o->explain && (ps->single || ps->subject_arg)) {
		kd_err("bad option: --explain splits the time of the thread an interval starts on; "
		       "this measurement has %s", ps->single ? "no intervals" :
		       "STARTs about another task");
		return -EINVAL;
	}
	c->explain = o->explain;
	/* served latencies carry exemplars: a series' slowest pair */
	if (o->served && !ps->single)
		c->exemplar_ns = EXEMPLAR_WINDOW_NS;
	c->match = ps->single ? MATCH_REPLACE : o->match;
	if (c->match == MATCH_LIFO && (ps->key || ps->subject_arg)) {
		kd_err("bad --match lifo: a stack of one thread's nested STARTs; "
		       "for STARTs in flight per %s use --match fifo", ps->key ? ps->key : "task");
		return -EINVAL;
	}
	if (c->match == MATCH_FIFO && !feature_has(FEAT_ATOMICS, &why)) {
		kd_err("bad --match fifo: ENDs of one key on two CPUs take their STARTs by "
		       "compare-and-swap: %s", why);
		return -EINVAL;
	}
	/* intervals that end on another thread or overlap on one: the
	 * START thread's state by tid, each interval's snapshot of it */
	c->explain_tid = o->explain && (ps->key || c->match);
	if (o->explain == EXPLAIN_END && !ps->key) {
		kd_err("bad option: --explain end follows an interval to the thread it ends on; "
		       "it needs --key FIELD (matched by thread, it ends where it started)");
		return -EINVAL;
	}
	if (c->explain_tid && o->explain == EXPLAIN_FULL) {
		kd_err("bad option: --explain full names the longest block of one interval per "
		       "thread; not with %s", ps->key ? "--key" : "--match");
		return -EINVAL;
	}

	c->subject_arg = ps->subject_arg;
	p->measure = ps->measure;
	p->prefer_args = (ps->key && strstr(ps->key, "->")) || (ps->by && strstr(ps->by, "->")) ||
			 (ps->cond && strstr(ps->cond, "->")) || (ps->value && strstr(ps->value, "->"));
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
			/* texts match by their hash (kpath.bpf.h), on both sides */
			if (pair_is_text(c->side[0].key[i].kind) != pair_is_text(c->side[1].key[i].kind)) {
				kd_err("bad --key '%s=%s': a text matches only a text", k.start[i],
				       k.end[i]);
				return -EINVAL;
			}
			if (pair_is_text(c->side[0].key[i].kind))
				p->key_fmt[i] = FMT_HEX;
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
			if (pair_is_text(v->kind) && pair_is_text(c->by[j].kind)) {
				kd_err("bad --by: at most one text key (comm, a text field or path)");
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

// SPDX-License-Identifier: GPL-2.0
/*
 * kdist trace EVENT: each event of a tracepoint as it happens, one line
 * with the fields chosen (--fields, default all of the record's), kept by
 * --if and --max-rate in BPF.  Strings print as text: char[] and
 * __data_loc fields from the record, and file names that a syscall's
 * argument points to, read from user memory at sys_enter_* (for a
 * sys_exit_* event the enter's fields come along, so a failed openat shows
 * its file name beside the error).
 */
#include "cmd/trace/trace.h"
#include "kernel/btfpath.h"
#include "kernel/cond.h"
#include "kernel/container.h"
#include "kernel/keys.h"
#include "kernel/engine.h"
#include "kernel/events.h"
#include "kernel/feature.h"
#include "view/evline.h"
#include "kernel/spec.h"
#include "trace.skel.h"
#include "kernel/tracefs.h"
#include "kernel/cpuclock.h"
#include "lib/util.h"
#include "view/format.h"
#include "cmd/command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#define TRACE_MAX_FIELDS 32

enum shown { SHOW_NUM, SHOW_CHARS, SHOW_STR, SHOW_CGROUP, SHOW_JIFFIES, SHOW_PATH };

struct tfield {
	const struct tp_field *f;	/* NULL: not the record's */
	const char *name;
	int side;		/* 0: the event, 1: its sys_enter_* */
	enum shown how;
	int slot;		/* SHOW_STR: its string; SHOW_PATH: its path */
	enum m_fmt fmt;		/* SHOW_NUM, SHOW_CGROUP */
	struct kpath_type kt;	/* SHOW_PATH */
	char expr[64];		/* SHOW_PATH: as given */
};

struct trace {
	struct trace_bpf *skel;
	struct engine eng;
	struct trace_cfg cfg;
	struct event_spec ev;
	bool tick;		/* --every: no event, a timer */
	bool typed;		/* arguments: on the raw tracepoint */
	bool args_first;	/* a name both record and arguments have is an argument */
	bool record;		/* the record's fields: on the tracepoint */
	struct tp_format fmt[2];
	char enter_name[128];
	bool syscall_exit;
	int nf;
	struct tfield f[TRACE_MAX_FIELDS];
	struct measurement header;
	const char *drops[NR_TDROPS];	/* the counters this run uses */
};

static const char *const drop_names[NR_TDROPS] = {
	[TDROP_OUTPUT] = "output_dropped",
	[TDROP_RATE] = "rate_limited",
	[TDROP_ENTER_FULL] = "enter_table_full",
	[TDROP_STR_CUT] = "text_cut",
	[TDROP_PATH_NULL] = "path_null",
	[TDROP_PATH_FAULT] = "path_fault",
};

/* Syscall records hold an int argument in 8 bytes (zero-extended): its
 * value and sign are in the low 4. */
static bool is_int(const struct tp_field *f)
{
	return !strcmp(f->type, "int") || !strcmp(f->type, "long");
}

static unsigned int field_size(const struct tp_field *f)
{
	return !strcmp(f->type, "int") && f->size == 8 ? 4 : f->size;
}

static bool hidden(const struct tp_field *f)
{
	return !strncmp(f->name, "common_", 7) || !strcmp(f->name, "__syscall_nr");
}

/* A syscall argument that names a file: read from user memory as text
 * (a const char *buf of write(2) is data, not text). */
static bool user_string(const struct trace *t, const struct tp_field *f)
{
	return !strcmp(t->ev.category, "syscalls") && strstr(f->type, "char *") &&
	       (strstr(f->name, "name") || strstr(f->name, "path"));
}

/* Field f of side into the printed list; strings take one of the side's
 * TRACE_STR_MAX slots (explicit: an error when none is left). */
static int add_field(struct trace *t, int side, const struct tp_field *f, bool explicit)
{
	struct tr_side *s = side ? &t->cfg.ent : &t->cfg.ev;
	struct tfield *tf = &t->f[t->nf];
	bool dloc = f->is_data_loc, user = user_string(t, f);

	if (t->nf == TRACE_MAX_FIELDS)
		return 0;
	*tf = (struct tfield){ .f = f, .name = f->name, .side = side };
	t->record = true;
	if (dloc || user) {
		if (s->nstr == TRACE_STR_MAX) {
			if (!explicit)
				return 0;
			kd_err("bad --fields: at most %d strings of %s", TRACE_STR_MAX,
			       side ? t->enter_name : t->ev.text);
			return -EINVAL;
		}
		tf->how = SHOW_STR;
		tf->slot = s->nstr;
		s->str[s->nstr++] = (struct tr_str){ dloc ? TSTR_DATA_LOC : TSTR_USER, f->offset };
	} else if (f->is_array) {
		tf->how = SHOW_CHARS;
	} else {
		tf->how = SHOW_NUM;
		if (!strcmp(f->type, "dev_t"))
			tf->fmt = FMT_DISK;
		else if (strchr(f->type, '*') || f->size > 8)
			tf->fmt = FMT_HEX;
		else if (f->is_signed || is_int(f))
			tf->fmt = FMT_SIGNED;
		else
			tf->fmt = FMT_AUTO;
	}
	t->nf++;
	return 0;
}

/* cgroup (its id), container, pod, namespace, unit: the thread's cgroup,
 * named as --by names it (unless the record has a field of that name). */
static int add_cgroup_field(struct trace *t, const char *name)
{
	int cg = cg_field_of(name);
	struct tfield *tf = &t->f[t->nf];

	if (t->nf == TRACE_MAX_FIELDS)
		return 0;
	*tf = (struct tfield){ .name = cg < 0 ? "cgroup" : cg_field_name(cg), .how = SHOW_CGROUP,
			       .fmt = cg < 0 ? FMT_AUTO : FMT_CONTAINER + cg };
	t->nf++;
	return key_prepare(tf->fmt);
}

/* name as what the record does not hold: jiffies (*slot -1), an argument
 * of the event or a path through it (read on the raw tracepoint: t->typed),
 * or a kernel variable and a path through it, into a path slot.  0 with
 * *kt its type, 1 when name is none of these, -errno after saying why. */
static int add_path(struct trace *t, const char *what, const char *name, struct kpath_type *kt,
		    int *slot)
{
	struct kpath kp;
	bool whole = false, typed = !t->tick && btfpath_is_arg(BTF_ARGS_TP, t->ev.name, name);
	int err;

	*slot = -1;
	if (!strcmp(name, "jiffies"))
		return 0;
	if (typed)
		err = btfpath_resolve(BTF_ARGS_TP, t->ev.name, t->ev.text, name, &kp, kt, &whole);
	else
		err = btfpath_global(t->ev.text, name, &kp, kt);
	if (err)
		return err;
	if (t->cfg.npath == TRACE_PATH_MAX) {
		kd_err("bad %s '%s': at most %d arguments, paths and kernel variables", what, name,
		       TRACE_PATH_MAX);
		return -EINVAL;
	}
	t->typed |= typed;
	*slot = t->cfg.npath;
	t->cfg.whole[*slot] = whole;
	t->cfg.path[t->cfg.npath++] = kp;
	return 0;
}

/* A --fields name that add_path() knows: 0, 1 or -errno as it returns. */
static int add_variable(struct trace *t, const char *name)
{
	struct tfield *tf = &t->f[t->nf];
	int err;

	if (t->nf == TRACE_MAX_FIELDS)
		return 0;
	*tf = (struct tfield){ .name = tf->expr };
	snprintf(tf->expr, sizeof(tf->expr), "%s", name);
	err = add_path(t, "--fields", name, &tf->kt, &tf->slot);
	/* named without a cast of an argument: sk->snd_una, not
	 * (struct tcp_sock *)sk->snd_una (a variable's cast stays: it may be
	 * all that tells (unsigned long)jiffies from jiffies) */
	if (!err && tf->slot >= 0 && t->cfg.path[tf->slot].base == KPATH_ARG && name[0] == '(')
		tf->name = strchr(tf->expr, ')') + 1;
	if (err)
		return err;
	tf->how = tf->slot < 0 ? SHOW_JIFFIES : SHOW_PATH;
	t->cfg.jiffies |= tf->slot < 0;
	t->nf++;
	return 0;
}

static int choose_fields(struct trace *t, const char *list)
{
	char names[TRACE_MAX_FIELDS][64];
	int n, err;

	if (!list) {
		for (int side = 0; side < 1 + t->cfg.enter; side++)
			for (int i = 0; i < t->fmt[side].nfields; i++)
				if (!hidden(&t->fmt[side].fields[i]) &&
				    (err = add_field(t, side, &t->fmt[side].fields[i], false)))
					return err;
		return 0;
	}
	n = name_list_parse(list, names, TRACE_MAX_FIELDS, "--fields");
	if (n < 0)
		return n;
	/* a name the record lacks but the arguments have: all are read on the
	 * raw tracepoint, where a name both have (prev_state) is the argument */
	for (int i = 0; i < n; i++)
		t->args_first |= !t->tick && !tp_format_field(&t->fmt[0], names[i]) &&
				 btfpath_is_arg(BTF_ARGS_TP, t->ev.name, names[i]);
	for (int i = 0; i < n; i++) {
		const struct tp_field *f = tp_format_field(&t->fmt[0], names[i]);
		int side = 0;

		if (t->args_first && btfpath_is_arg(BTF_ARGS_TP, t->ev.name, names[i]))
			f = NULL;

		if (!f && t->cfg.enter) {
			f = tp_format_field(&t->fmt[1], names[i]);
			side = 1;
		}
		if (!f && (!strcmp(names[i], "cgroup") || cg_field_of(names[i]) >= 0)) {
			err = add_cgroup_field(t, names[i]);
			if (err)
				return err;
			continue;
		}
		if (!f && (err = add_variable(t, names[i])) <= 0) {
			if (err)
				return err;
			continue;
		}
		if (t->tick) {
			kd_err("bad --fields: '%s' is no kernel variable (--every reads jiffies, "
			       "NAME, (TYPE)NAME or NAME@CPU, then .m, ->m or [i])", names[i]);
			return -ENOENT;
		}
		if (!f || hidden(f)) {
			kd_err("bad --fields: %s has no field '%s'%s%s (see kdist list %s)",
			       t->ev.text, names[i], t->cfg.enter ? " nor has " : "",
			       t->cfg.enter ? t->enter_name : "", t->ev.text);
			return -ENOENT;
		}
		err = add_field(t, side, f, true);
		if (err)
			return err;
	}
	/* the enter's record is read only when one of its fields is shown */
	for (int i = 0; i < t->nf; i++)
		if (t->f[i].side)
			return 0;
	t->cfg.enter = 0;
	return 0;
}

/* An --if term on an argument, a path or a kernel variable (add_path()):
 * 0 into *v, 1 when its field is none of these, -errno after saying why. */
static int cond_path(struct trace *t, const struct cond_term *ct, struct val_src *v)
{
	struct kpath_type kt;
	const struct kpath *p;
	int slot, err = add_path(t, "--if", ct->field, &kt, &slot);
	bool str = kt.show == KSHOW_STR;

	if (err)
		return err;
	if (slot < 0) {
		v->kind = VAL_JIFFIES;
		return 0;
	}
	p = &t->cfg.path[slot];
	if (t->cfg.whole[slot])
		v->kind = VAL_ARG;
	else if (p->base == KPATH_ARG)
		v->kind = str ? VAL_PATH_STR : VAL_PATH;
	else
		v->kind = str ? VAL_GLOBAL_STR : VAL_GLOBAL;
	v->off = slot;
	v->idx = p->arg;
	v->is_signed = kt.show == KSHOW_SIGNED;
	return 0;
}

static int configure_cond(struct trace *t, const char *text)
{
	static const struct { const char *name; enum val_kind kind; } builtins[] = {
		{ "pid", VAL_PID }, { "tid", VAL_TID }, { "cpu", VAL_CPU }, { "comm", VAL_COMM },
	};
	struct cond_list cl = { 0 };
	int err = cond_parse(text, &cl);

	for (int i = 0; !err && i < cl.n; i++) {
		const struct cond_term *ct = &cl.t[i];
		const struct tp_field *f = tp_format_field(&t->fmt[0], ct->field);
		struct val_src *v = &t->cfg.cond_src[i];
		bool is_str;

		if (t->args_first && btfpath_is_arg(BTF_ARGS_TP, t->ev.name, ct->field))
			f = NULL;

		memset(v, 0, sizeof(*v));
		for (size_t b = 0; !f && b < ARRAY_SIZE(builtins); b++)
			if (!strcmp(builtins[b].name, ct->field))
				v->kind = builtins[b].kind;
		if (f && !hidden(f)) {
			t->record = true;
			v->kind = f->is_array || f->is_data_loc ? VAL_STR_FIELD : VAL_FIELD;
			v->off = f->offset;
			v->size = field_size(f);
			v->is_signed = f->is_signed || is_int(f);
			t->cfg.cond_dloc[i] = f->is_data_loc;
			if (v->kind == VAL_FIELD && v->size != 1 && v->size != 2 && v->size != 4 &&
			    v->size != 8) {
				kd_err("bad --if '%s': %u-byte fields are not compared", ct->text,
				       f->size);
				return -EINVAL;
			}
		} else if (!v->kind && (err = cond_path(t, ct, v))) {
			if (err < 0)
				return err;
			kd_err("bad --if '%s': %s has no field '%s' (see kdist list %s)", ct->text,
			       t->ev.text, ct->field, t->ev.text);
			return -ENOENT;
		}
		is_str = v->kind == VAL_STR_FIELD || v->kind == VAL_COMM ||
			 v->kind == VAL_PATH_STR || v->kind == VAL_GLOBAL_STR;
		err = cond_compile(ct, is_str, v->is_signed, &t->cfg.cond, i);
	}
	return err;
}

/* The record bytes up to the end of its last fixed field. */
static unsigned int record_size(const struct tp_format *f, unsigned int max)
{
	unsigned int n = 0;

	for (int i = 0; i < f->nfields; i++)
		if (f->fields[i].offset + f->fields[i].size > n)
			n = f->fields[i].offset + f->fields[i].size;
	return n < max ? n : max;
}

static uint64_t rec_num(const unsigned char *rec, size_t max, const struct tp_field *f)
{
	uint64_t v = 0;
	unsigned int size = field_size(f), shift = 64 - 8 * size;

	if (f->offset + size > max || !size || size > 8)
		return 0;
	memcpy(&v, rec + f->offset, size);	/* x86-64: little-endian */
	v <<= shift;
	return f->is_signed || is_int(f) ? (uint64_t)((int64_t)v >> shift) : v >> shift;
}

/* A kernel variable as its type prints; nothing when its read failed
 * (counted as path_null or path_fault). */
static void print_variable(FILE *f, const struct tr_event *e, const struct tfield *tf)
{
	char buf[64], esc[4 * TRACE_PATH_STR + 1];
	const char *s = NULL;
	struct m_value v = mv_num(e->num[tf->slot]);

	if (e->path_err[tf->slot]) {
		events_field(f, tf->name, NULL, false);
		return;
	}
	switch (tf->kt.show) {
	case KSHOW_STR:
		s = e->text[tf->slot];
		text_escape(esc, sizeof(esc), s, strnlen(s, TRACE_PATH_STR));
		events_field(f, tf->name, esc, true);
		return;
	case KSHOW_ENUM:
		s = btfpath_enum_name(tf->kt.enum_id, (long long)v.num);
		break;
	default:
		break;
	}
	if (!s)
		s = fmt_value(&v, btfpath_fmt(&tf->kt), buf, sizeof(buf));
	events_field(f, tf->name, s, tf->kt.show == KSHOW_HEX || tf->kt.show == KSHOW_ENUM);
}

static void print_field(struct trace *t, FILE *f, const struct tr_event *e,
			const struct tfield *tf)
{
	const unsigned char *rec = tf->side ? e->ent.rec : e->ev.rec;
	size_t max = tf->side ? TRACE_ENTER_MAX : TRACE_REC_MAX;
	char buf[TRACE_STR_LEN + 1], esc[4 * TRACE_STR_LEN + 1];
	const char *s;
	struct m_value v;

	switch (tf->how) {
	case SHOW_JIFFIES:
		v = mv_num(e->jiffies);
		events_field(f, tf->name, fmt_value(&v, FMT_AUTO, buf, sizeof(buf)), false);
		return;
	case SHOW_PATH:
		print_variable(f, e, tf);
		return;
	case SHOW_CGROUP:
		v = key_normalize(mv_num(e->cgroup), tf->fmt);
		if (v.type == MV_TEXT)
			text_escape(esc, sizeof(esc), v.text, strlen(v.text));
		events_field(f, tf->name, v.type == MV_TEXT ? esc :
			     fmt_value(&v, FMT_AUTO, buf, sizeof(buf)), v.type == MV_TEXT);
		return;
	/* file names and char arrays are what a process chose: escaped */
	case SHOW_STR:
		s = tf->side ? e->ent.str[tf->slot] : e->ev.str[tf->slot];
		text_escape(esc, sizeof(esc), s, strnlen(s, TRACE_STR_LEN));
		events_field(f, tf->name, esc, true);
		return;
	case SHOW_CHARS:
		s = (const char *)rec + tf->f->offset;
		text_escape(esc, sizeof(esc), s, tf->f->offset + tf->f->size <= max ?
			    strnlen(s, tf->f->size) : 0);
		events_field(f, tf->name, esc, true);
		return;
	case SHOW_NUM:
		v = mv_num(rec_num(rec, max, tf->f));
		events_field(f, tf->name, fmt_value(&v, tf->fmt, buf, sizeof(buf)),
			     tf->fmt == FMT_DISK || tf->fmt == FMT_HEX);
		/* a syscall's failure by its name */
		if (t->syscall_exit && !tf->side && !strcmp(tf->f->name, "ret"))
			events_field(f, "error", (int64_t)v.num < 0 ?
				     fmt_value(&v, FMT_ERRNO, buf, sizeof(buf)) : NULL, true);
	}
}

static int print_event(void *ctx, void *data, size_t size)
{
	struct trace *t = ctx;
	const struct tr_event *e = data;
	FILE *f = events_file();
	char comm[sizeof(e->comm) + 1];

	if (size < sizeof(*e))
		return 0;
	snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(e->comm), e->comm);
	events_begin(f, t->ev.text, "field_");
	events_head(f, e->ts, comm, e->id >> 32, (uint32_t)e->id, e->cpu, 0);
	for (int i = 0; i < t->nf; i++)
		if (!t->f[i].side || e->has_enter)
			print_field(t, f, e, &t->f[i]);
	events_end(f);
	return 0;
}

static int load(struct trace *t, struct options *o)
{
	int err;

	t->skel = trace_bpf__open_opts(engine_open_opts());
	err = engine_opened(t->skel);
	if (err)
		return err;
	task_filter_set(&t->cfg.filter, o);
	t->cfg.max_rate = o->max_rate;
	/* a raw tracepoint builds no record: there is none to copy */
	t->cfg.ev.size = t->typed ? 0 : record_size(&t->fmt[0], TRACE_REC_MAX);
	t->cfg.ent.size = record_size(&t->fmt[1], TRACE_ENTER_MAX);
	t->skel->rodata->cfg = t->cfg;
	bpf_map__set_max_entries(t->skel->maps.events, TRACE_RING_BYTES);
	bpf_program__set_autoload(t->skel->progs.trace_enter, t->cfg.enter);
	bpf_program__set_autoload(t->skel->progs.trace_event, !t->tick && !t->typed);
	bpf_program__set_autoload(t->skel->progs.trace_raw, t->typed);
	bpf_program__set_autoload(t->skel->progs.trace_tick, t->tick);
	bpf_map__set_autocreate(t->skel->maps.spill, false);	/* no groups here */
	/* the counters of what this run can lose */
	memcpy(t->drops, drop_names, sizeof(t->drops));
	if (!t->cfg.enter)
		t->drops[TDROP_ENTER_FULL] = NULL;
	if (!t->cfg.npath)
		t->drops[TDROP_PATH_NULL] = t->drops[TDROP_PATH_FAULT] = NULL;
	if (!t->cfg.npath && !t->cfg.ev.nstr && !t->cfg.ent.nstr)
		t->drops[TDROP_STR_CUT] = NULL;
	err = engine_load(&t->eng, t->skel->skeleton, t->drops, NR_TDROPS);
	if (err)
		return err;
	return events_add(bpf_map__fd(t->skel->maps.events), print_event, t);
}

/* --every DURATION --fields VARIABLES: a line every DURATION, read on
 * CPU 0's clock. */
static int prepare_tick(struct trace *t, struct options *o)
{
	struct measurement *m = &t->header;
	char every[32];
	int err;

	if (o->pid || o->tid || o->comm[0] || o->cgroup || o->cond || o->cgset) {
		kd_err("bad --every: the timer reads kernel variables for no task: -p, --tid, "
		       "--comm, --cgroup and --if do not apply");
		return -EINVAL;
	}
	if (!o->fields) {
		kd_err("bad --every: give the kernel variables to read, e.g. --fields "
		       "'jiffies,(struct task_struct)init_task.comm'");
		return -EINVAL;
	}
	t->tick = true;
	fmt_time(every, sizeof(every), o->every_ns);
	snprintf(t->ev.text, sizeof(t->ev.text), "every %s", every);
	err = choose_fields(t, o->fields);
	if (err)
		return err;
	m->command = "trace";
	m->kind = M_VALUE;
	m->counts = true;
	m->value_unit = "events";
	m->nevents = 1;
	snprintf(m->title, sizeof(m->title), "kernel variables every %s", every);
	snprintf(m->events[0].role, sizeof(m->events[0].role), "timer");
	snprintf(m->events[0].spec, sizeof(m->events[0].spec), "%s", t->ev.text);
	snprintf(m->events[0].attach, sizeof(m->events[0].attach), "perf_event");
	return load(t, o);
}

static int trace_prepare(struct session *s)
{
	struct options *o = s->opt;
	struct trace *t = calloc(1, sizeof(*t));
	struct measurement *m;
	int err;

	if (!t)
		return -ENOMEM;
	s->priv = t;
	if (o->nargs == 0 && o->every_ns)
		return prepare_tick(t, o);
	if (o->nargs != 1) {
		kd_err("bad arguments: expected EVENT, e.g. kdist trace syscalls:sys_exit_openat "
		       "--if 'ret < 0', or --every DURATION --fields VARIABLES");
		return -EINVAL;
	}
	if (o->every_ns) {
		kd_err("bad --every: it reads --fields on a timer, without an EVENT (an event's "
		       "lines read kernel variables in --fields at each event)");
		return -EINVAL;
	}
	err = event_spec_parse(o->args[0], &t->ev);
	if (err)
		return err;
	if (t->ev.kind != EV_TRACEPOINT) {
		kd_err("bad event '%s': kdist trace takes tracepoints (CATEGORY:NAME)", t->ev.text);
		return -EINVAL;
	}
	if (!tracefs_root())
		return -ENODEV;
	err = tp_format_load(t->ev.category, t->ev.name, &t->fmt[0]);
	if (err) {
		if (err == -ENOENT)
			tracefs_unknown_event(t->ev.text);
		else
			kd_err("failed to read the format of %s", t->ev.text);
		return err;
	}
	t->syscall_exit = !strcmp(t->ev.category, "syscalls") &&
			  !strncmp(t->ev.name, "sys_exit_", 9);
	if (t->syscall_exit) {
		snprintf(t->enter_name, sizeof(t->enter_name), "sys_enter_%s", t->ev.name + 9);
		t->cfg.enter = !tp_format_load("syscalls", t->enter_name, &t->fmt[1]);
	}
	err = choose_fields(t, o->fields);
	if (!err && o->cond)
		err = configure_cond(t, o->cond);
	if (err)
		return err;
	if (t->typed && t->record) {
		kd_err("bad --fields: %s's record fields (read on the tracepoint) and its arguments "
		       "or paths through them (read on the raw tracepoint) do not mix: give "
		       "--fields of one kind, --if terms of the same", t->ev.text);
		return -EINVAL;
	}
	if (t->typed && !raw_tp_exists(t->ev.name)) {
		kd_err("bad --fields: %s has no raw tracepoint arguments", t->ev.text);
		return -EINVAL;
	}
	m = &t->header;
	m->command = s->cmd->name;
	m->kind = M_VALUE;
	m->counts = true;
	m->value_unit = "events";
	m->nevents = 1;
	snprintf(m->title, sizeof(m->title), "events of %s%s%s", t->ev.text, o->cond ? " if " : "",
		 o->cond ? o->cond : "");
	snprintf(m->events[0].role, sizeof(m->events[0].role), "event");
	snprintf(m->events[0].spec, sizeof(m->events[0].spec), "%s", t->ev.text);
	snprintf(m->events[0].attach, sizeof(m->events[0].attach), "%s",
		 t->typed ? "raw_tracepoint" : "tracepoint");
	return load(t, o);
}

static int trace_attach(struct session *s)
{
	struct trace *t = s->priv;
	struct bpf_link *l;
	int err = -ENODEV;

	/* the first CPU online */
	for (int cpu = 0; t->tick && err == -ENODEV && cpu < t->eng.ncpu; cpu++)
		err = cpu_clock_attach(&t->eng, t->skel->progs.trace_tick, cpu,
				       s->opt->every_ns);
	if (t->tick)
		return err;
	if (t->typed)
		l = bpf_program__attach_raw_tracepoint(t->skel->progs.trace_raw, t->ev.name);
	else
		l = bpf_program__attach_tracepoint(t->skel->progs.trace_event, t->ev.category,
						   t->ev.name);
	err = engine_link(&t->eng, l);
	if (!err && t->cfg.enter) {
		l = bpf_program__attach_tracepoint(t->skel->progs.trace_enter, "syscalls",
						   t->enter_name);
		err = engine_link(&t->eng, l);
	}
	if (err)
		kd_err("failed to attach %s: %s", t->ev.text, strerror(-err));
	return err;
}

static int trace_read(struct session *s, struct measurement *m)
{
	struct trace *t = s->priv;
	struct m_group *g;
	struct hist h;
	__u32 zero = 0;
	int err;

	measurement_copy_header(m, &t->header);
	/* the count first, then the drops: an event counted here is printed or
	 * counted as dropped by the time the drops are read (in the other
	 * order, a flood's events between the two reads were neither) */
	err = engine_sum_hist(&t->eng, bpf_map__fd(t->skel->maps.matched), &zero, sizeof(h), &h);
	if (!err)
		err = engine_read(&t->eng, m);
	if (err || !h.count)
		return err;
	g = measurement_group(m, NULL);
	return g ? m_hist_set(&g->h, &h) : -ENOMEM;
}

static void trace_cleanup(struct session *s)
{
	struct trace *t = s->priv;

	engine_close(&t->eng);
	trace_bpf__destroy(t->skel);
	measurement_clear(&t->header);
	free(t);
	s->priv = NULL;
}

const struct command cmd_trace = {
	.name = "trace",
	.caps = CMD_EVENT_LINES,
	.args = "EVENT | --every DURATION",
	.summary = "print each event of a tracepoint with its fields (--fields, --if, --max-rate)",
	.opts = OPT(BTF) | OPT(PID) | OPT(TID) | OPT(COMM) | OPT(CGROUP) | OPT(CMD) | OPT(DURATION) |
		OPT(FORMAT) | OPT(OUTPUT) | OPT(IF) | OPT(FIELDS) | OPT(MAX_RATE) | OPT(EVERY),
	.prepare = trace_prepare,
	.attach = trace_attach,
	.read = trace_read,
	.cleanup = trace_cleanup,
};

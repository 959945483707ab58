// SPDX-License-Identifier: GPL-2.0
/*
 * kdist pair START END: the time from START to the matching END.
 * Also the engine of every recipe (recipes.c): a recipe is a pair_spec.
 */
#include "cmd/pair/pair_int.h"
#include "kernel/dense.h"
#include "kernel/engine.h"
#include "pair.skel.h"
#include "kernel/stacks.h"
#include "kernel/tracefs.h"
#include "lib/util.h"
#include "cmd/command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

const char *const pair_roles[2] = { "START", "END" };
const char *const pair_drop_names[NR_DROPS] = {
	[DROP_END_NO_START] = "end_without_start",
	[DROP_START_REPLACED] = "start_replaced",
	[DROP_MATCH_FULL] = "match_table_full",
	[DROP_GROUP_FULL] = "group_table_full",
	[DROP_STACK] = "stack_failed",
	[DROP_STORAGE] = "storage_failed",
	[DROP_OUTPUT] = "output_dropped",
	[DROP_PATH_NULL] = "path_null",
	[DROP_PATH_FAULT] = "path_fault",
	[DROP_STR_CUT] = "text_cut",
	[DROP_EXPLAIN_FULL] = "explain_table_full",
	[DROP_QUEUE_FULL] = "match_queue_full",
};

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
			 pair_src_attach_name(p, side));
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
			err = pair_check_event(p, side);
		if (err)
			return err;
	}
	err = pair_configure(p, ps, s->opt);
	if (err)
		return err;
	fill_header(p, ps, s->cmd->name);
	measurement_copy_header(&p->acc, &p->header);
	if (s->opt->served) {
		p->acc_max = s->opt->max_groups;
		p->retire_ns = s->opt->retire_after * 1e9;
	}
	return pair_load(p, s->opt);
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

void pair_cleanup(struct session *s)
{
	struct pair *p = s->priv;

	engine_close(&p->eng);
	dense_close(&p->dense);
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
	.opts = OPTS_MEASURE | OPT(KEY) | OPT(IF) | OPT(SLOWER_THAN) | OPT(STACK) | OPT(EXPLAIN) |
		OPT(MATCH),
	.caps = CMD_SERVE,
	.prepare = pair_prepare,
	.attach = pair_attach,
	.read = pair_read,
	.hint = pair_key_hint,
	.cleanup = pair_cleanup,
};

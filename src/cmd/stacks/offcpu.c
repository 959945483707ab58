// SPDX-License-Identifier: GPL-2.0
/*
 * kdist offcpu: time threads spend off CPU, by the stack they blocked in.
 * kdist wakeup: the same time, by who woke them (the waker's stacks).
 */
#include "cmd/stacks/stackcmd.h"
#include "kernel/feature.h"
#include "offcpu.skel.h"
#include "lib/util.h"
#include "cmd/command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

struct offcpu {
	struct stack_cmd sc;
	struct offcpu_bpf *skel;
	bool btf;		/* tp_btf, else raw_tp */
};

static int parse_states(const char *s, unsigned int *mask)
{
	static const struct { char c; unsigned int bit; } letters[] = {
		{ 'R', ST_R }, { 'S', ST_S }, { 'D', ST_D }, { 'I', ST_I }, { 'T', ST_OTHER },
	};

	*mask = 0;
	if (!s || !strcmp(s, "any")) {
		*mask = ST_ANY;
		return 0;
	}
	for (; *s; s++) {
		size_t i = 0;

		if (*s == ',')
			continue;
		while (i < ARRAY_SIZE(letters) && letters[i].c != *s)
			i++;
		if (i == ARRAY_SIZE(letters)) {
			kd_err("bad --state '%c': expected letters of R (preempted), S (sleeping), "
			       "D (uninterruptible), I (idle wait), T (other) or 'any'", *s);
			return -EINVAL;
		}
		*mask |= letters[i].bit;
	}
	if (!*mask) {
		kd_err("bad --state: no state given (e.g. S,D or any)");
		return -EINVAL;
	}
	return 0;
}

static void fill_header(struct measurement *m, const struct options *o, const char *command,
			bool waker, bool btf)
{
	const char *tp = btf ? "tp_btf" : "raw_tracepoint";
	char extra[96] = "";

	m->command = command;
	m->kind = M_LATENCY;
	m->stacks = M_STACKS_OFFCPU;
	if (o->state && strcmp(o->state, "any"))
		snprintf(extra, sizeof(extra), ", state %s", o->state);
	if (o->min_us)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), ", >= %g us",
			 o->min_us);
	if (o->max_us)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), ", <= %g us",
			 o->max_us);
	snprintf(m->title, sizeof(m->title), "off-CPU time by %s%s",
		 waker ? "waker" : "blocking stack", extra);
	snprintf(m->key, sizeof(m->key), "tid");
	m->nevents = waker ? 2 : 1;
	snprintf(m->events[0].role, sizeof(m->events[0].role), "switch");
	snprintf(m->events[0].spec, sizeof(m->events[0].spec), "sched:sched_switch");
	snprintf(m->events[0].attach, sizeof(m->events[0].attach), "%s", tp);
	if (waker) {
		snprintf(m->events[1].role, sizeof(m->events[1].role), "wakeup");
		snprintf(m->events[1].spec, sizeof(m->events[1].spec), "sched:sched_waking");
		snprintf(m->events[1].attach, sizeof(m->events[1].attach), "%s", tp);
	}
}

static int prepare(struct session *s, bool waker)
{
	struct options *o = s->opt;
	struct offcpu *p = calloc(1, sizeof(*p));
	unsigned int allowed = SF_BIT(SF_COMM) | SF_BIT(SF_PID) | SF_BIT(SF_TID) |
			       SF_BIT(SF_KSTACK) | SF_BIT(SF_USTACK) | SF_BIT(SF_CGROUP);
	struct stack_cfg *c;
	unsigned int states;
	struct bpf_program *prog;
	int err;

	if (!p)
		return -ENOMEM;
	s->priv = p;
	if (o->nargs) {
		kd_err("bad arguments: %s takes none (a workload goes after --)", s->cmd->name);
		return -EINVAL;
	}
	if (o->max_us && o->max_us < o->min_us) {
		kd_err("bad --max-us %g: below --min-us %g", o->max_us, o->min_us);
		return -EINVAL;
	}
	/* bad input is refused before any feature probe loads a program */
	err = parse_states(o->state, &states);
	if (err)
		return err;
	err = stack_cmd_init(&p->sc, o,
			     waker ? "comm,waker_comm,waker_ustack,waker_kstack" : "comm,ustack,kstack",
			     allowed | (waker ? SF_WAKER_MASK : 0), sizeof(struct hist));
	if (err)
		return err;
	p->btf = feature_has(FEAT_TP_BTF, NULL);
	fill_header(&p->sc.header, o, s->cmd->name, waker, p->btf);
	p->skel = offcpu_bpf__open_opts(engine_open_opts());
	err = engine_opened(p->skel);
	if (err)
		return err;
	c = &p->skel->rodata->cfg;
	stack_cmd_cfg(&p->sc, o, c);
	c->state_mask = states;
	c->min_ns = o->min_us * 1000;
	c->max_ns = o->max_us * 1000;
	/* task storage wants the BTF task pointers only tp_btf provides,
	 * and a kernel that lets tracing programs use it (Linux 5.11) */
	c->task_storage = p->btf && feature_has(FEAT_TASK_STORAGE_FENTRY, NULL);
	if (!c->task_storage)
		bpf_map__set_max_entries(p->skel->maps.tid_slot, 65536);
	kd_info("per-thread slots in %s", c->task_storage ? "task storage" : "a tid-keyed hash");
	if (o->max_groups)
		bpf_map__set_max_entries(p->skel->maps.hist_groups, o->max_groups);
	bpf_object__for_each_program(prog, p->skel->obj) {
		bool is_btf = prog == p->skel->progs.btf_switch || prog == p->skel->progs.btf_waking;
		bool is_waking = prog == p->skel->progs.btf_waking ||
				 prog == p->skel->progs.raw_waking;

		bpf_program__set_autoload(prog, is_btf == p->btf && (waker || !is_waking));
	}
	return stack_cmd_start(&p->sc, p->skel->skeleton, p->skel->maps.hist_groups);
}

static int offcpu_prepare(struct session *s)
{
	return prepare(s, false);
}

static int wakeup_prepare(struct session *s)
{
	return prepare(s, true);
}

static int offcpu_attach(struct session *s)
{
	struct offcpu *p = s->priv;
	struct bpf_program *progs[2] = {
		p->btf ? p->skel->progs.btf_switch : p->skel->progs.raw_switch,
		p->btf ? p->skel->progs.btf_waking : p->skel->progs.raw_waking,
	};
	static const char *const tps[2] = { "sched_switch", "sched_waking" };
	int err;

	for (int i = 0; i < 2; i++) {
		if (!bpf_program__autoload(progs[i]))
			continue;
		/* the section names the tracepoint for tp_btf; raw_tp is named here */
		err = engine_link(&p->sc.eng, p->btf ? bpf_program__attach(progs[i]) :
				  bpf_program__attach_raw_tracepoint(progs[i], tps[i]));
		if (err) {
			kd_err("failed to attach sched:%s: %s", tps[i], strerror(-err));
			return err;
		}
		kd_info("sched:%s attached as %s", tps[i], p->btf ? "tp_btf" : "raw_tracepoint");
	}
	return 0;
}

static int offcpu_read(struct session *s, struct measurement *m)
{
	struct offcpu *p = s->priv;

	return stack_cmd_read(&p->sc, m);
}

static void offcpu_stop(struct session *s)
{
	struct offcpu *p = s->priv;

	stack_cmd_stop(&p->sc);
}

static void offcpu_cleanup(struct session *s)
{
	struct offcpu *p = s->priv;

	stack_cmd_cleanup(&p->sc);
	offcpu_bpf__destroy(p->skel);
	free(p);
	s->priv = NULL;
}

const struct command cmd_offcpu = {
	.name = "offcpu",
	.caps = CMD_STACK_GROUPS,
	.by_help = STACK_BY_HELP,
	.args = "",
	.summary = "off-CPU time by blocking stack (--state, --min-us, --max-us)",
	.opts = OPTS_MEASURE | OPT(STATE) | OPT(MIN_US) | OPT(MAX_US),
	.prepare = offcpu_prepare,
	.attach = offcpu_attach,
	.read = offcpu_read,
	.stop = offcpu_stop,
	.cleanup = offcpu_cleanup,
};

const struct command cmd_wakeup = {
	.name = "wakeup",
	.caps = CMD_STACK_GROUPS,
	.by_help = WAKEUP_BY_HELP,
	.args = "",
	.summary = "off-CPU time by waker: the waker's stacks (--by waker_*)",
	.opts = OPTS_MEASURE | OPT(STATE) | OPT(MIN_US) | OPT(MAX_US),
	.prepare = wakeup_prepare,
	.attach = offcpu_attach,
	.read = offcpu_read,
	.stop = offcpu_stop,
	.cleanup = offcpu_cleanup,
};

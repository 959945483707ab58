// SPDX-License-Identifier: GPL-2.0
/*
 * kdist profile: sampled on-CPU stacks, kernel and user, of a process, a
 * workload or the whole system.  A software cpu-clock event per CPU (there
 * may be no hardware counters, as in most VMs) runs the sampling program.
 */
#include "cmd/stacks/stackcmd.h"
#include "profile.skel.h"
#include "kernel/cpuclock.h"
#include "lib/util.h"
#include "cmd/command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define DEFAULT_HZ 99

struct profile {
	struct stack_cmd sc;
	struct profile_bpf *skel;
};

static int profile_prepare(struct session *s)
{
	struct options *o = s->opt;
	struct profile *p = calloc(1, sizeof(*p));
	struct measurement *m;
	int hz = o->freq ? o->freq : DEFAULT_HZ, err;

	if (!p)
		return -ENOMEM;
	s->priv = p;
	if (o->nargs) {
		kd_err("bad arguments: profile takes none (a workload goes after --)");
		return -EINVAL;
	}
	err = stack_cmd_init(&p->sc, o, "comm,ustack,kstack",
			     SF_BIT(SF_COMM) | SF_BIT(SF_PID) | SF_BIT(SF_TID) |
			     SF_BIT(SF_KSTACK) | SF_BIT(SF_USTACK) | SF_BIT(SF_CGROUP),
			     sizeof(__u64));
	if (err)
		return err;
	m = &p->sc.header;
	m->command = s->cmd->name;
	m->kind = M_VALUE;
	m->value_unit = "samples";
	m->stacks = M_STACKS_ONCPU;
	snprintf(m->title, sizeof(m->title), "on-CPU stacks sampled at %d Hz", hz);
	snprintf(m->key, sizeof(m->key), "sample");
	m->nevents = 1;
	snprintf(m->events[0].role, sizeof(m->events[0].role), "sample");
	snprintf(m->events[0].spec, sizeof(m->events[0].spec), "cpu-clock:%dHz", hz);
	snprintf(m->events[0].attach, sizeof(m->events[0].attach), "perf_event");

	p->skel = profile_bpf__open_opts(engine_open_opts());
	err = engine_opened(p->skel);
	if (err)
		return err;
	stack_cmd_cfg(&p->sc, o, &p->skel->rodata->cfg);
	if (o->max_groups)
		bpf_map__set_max_entries(p->skel->maps.samples, o->max_groups);
	o->freq = hz;
	return stack_cmd_start(&p->sc, p->skel->skeleton, p->skel->maps.samples);
}

static int profile_attach(struct session *s)
{
	struct profile *p = s->priv;
	int attached = 0, err = 0;

	for (int cpu = 0; cpu < p->sc.eng.ncpu; cpu++) {
		/* a fixed period in ns: every sample weighs the same time */
		err = cpu_clock_attach(&p->sc.eng, p->skel->progs.on_sample, cpu,
				       1000000000ULL / s->opt->freq);
		if (err == -ENODEV)	/* possible but offline CPU */
			continue;
		if (err)
			return err;
		attached++;
	}
	kd_info("sampling %d CPUs at %d Hz (cpu-clock, perf_event)", attached, s->opt->freq);
	return 0;
}

static int profile_read(struct session *s, struct measurement *m)
{
	struct profile *p = s->priv;

	return stack_cmd_read(&p->sc, m);
}

static void profile_stop(struct session *s)
{
	struct profile *p = s->priv;

	stack_cmd_stop(&p->sc);
}

static void profile_cleanup(struct session *s)
{
	struct profile *p = s->priv;

	stack_cmd_cleanup(&p->sc);
	profile_bpf__destroy(p->skel);
	free(p);
	s->priv = NULL;
}

const struct command cmd_profile = {
	.name = "profile",
	.caps = CMD_STACK_GROUPS,
	.by_help = STACK_BY_HELP,
	.args = "",
	.summary = "sampled on-CPU stacks, kernel and user (-F HZ, default 99)",
	.opts = OPTS_MEASURE | OPT(FREQUENCY),
	.prepare = profile_prepare,
	.attach = profile_attach,
	.read = profile_read,
	.stop = profile_stop,
	.cleanup = profile_cleanup,
};

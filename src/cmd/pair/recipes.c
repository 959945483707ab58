// SPDX-License-Identifier: GPL-2.0
/* Named measurements built on the pair engine: a recipe is a pair spec plus
 * presentation, never a BPF program of its own.
 *
 * A recipe holds one or more sub-measurements ("wait" and "hold" of
 * mmap_lock, or the three ways a task enters a run queue), each a pair
 * session of its own.  Their reads merge into one measurement by their key
 * values, and when the subs measure different things the first grouping
 * component, "measure", says which. */
#include "model/explain.h"
#include "cmd/pair/pair.h"
#include "cmd/pair/pair_cmd.h"
#include "kernel/spec.h"
#include "kernel/tracefs.h"
#include "lib/util.h"
#include "cmd/commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R_MAX_SUB 4

struct sub {
	const char *measure;	/* subs with the same measure merge */
	struct pair_spec ps;	/* ps.by: the recipe's own components, before --by */
};

/* A recipe is a row: pair specs (grouping components with their
 * formatters), the names its own components are shown by, presentation. */
struct recipe {
	const char *title;
	enum m_kind kind;
	const char *value_unit;
	const char *names;	/* own components' names: START ones, then END's */
	const char *default_by;	/* --by when none is given */
	int nsub;
	struct sub sub[R_MAX_SUB];
};

struct rsession {
	struct recipe r;	/* a copy: dist and count build theirs */
	int nsub;
	struct session sub[R_MAX_SUB];
	char by[R_MAX_SUB][256];
	bool measure_col;
	int nown[R_MAX_SUB];	/* own START components of each sub */
	char names[PAIR_MAX_BY][64];
	int nnames;
	struct measurement header;
};

/* ---- the recipes ---- */

/* raw_syscalls: raw arguments (args[1] is the id at enter, the return value
 * at exit) keep both programs on the cheap raw tracepoint attach. */
static const struct recipe r_syscalls = {
	.title = "syscall latency by syscall and error",
	.kind = M_LATENCY,
	.names = "syscall,error",
	.nsub = 1,
	.sub = { {
		.ps = { .start = "raw_syscalls:sys_enter", .end = "raw_syscalls:sys_exit",
			.by = "arg1:syscall", .end_by = "arg1:errno", .end_by_neg = true },
	} },
};

static const struct recipe r_wq = {
	.title = "work execution time by work function",
	.kind = M_LATENCY,
	.names = "function",
	.nsub = 1,
	.sub = { {
		.ps = { .start = "workqueue:workqueue_execute_start",
			.end = "workqueue:workqueue_execute_end", .key = "work",
			.by = "function:ksym" },
	} },
};

/* Both sides read the tracepoints' arguments through the kernel's types
 * (btfpath.h): raw tracepoints, which no other program on the CPU makes
 * the kernel skip (a perf tracepoint program shares one guard with every
 * kprobe and tracepoint program, and an interrupt's queueing or
 * completion arriving while one runs would be lost).  The record's work
 * and function are the same pointer and work->func. */
static const struct recipe r_wq_queue = {
	.title = "work queueing delay (queued to started) by work function",
	.kind = M_LATENCY,
	.names = "function",
	.nsub = 1,
	.sub = { {
		.ps = { .start = "workqueue:workqueue_queue_work",
			.end = "workqueue:workqueue_execute_start", .key = "work",
			.by = "work->func:ksym", .orphan_ok = true },
	} },
};

/* Matched by the request, as biolatency does; the record's dev is
 * rq->q->disk's (rq->rq_disk's before Linux 5.16), and its rwbs spells
 * rq->cmd_flags' operation.  Raw
 * tracepoints, for the reason wq-queue's comment gives: completions come
 * in interrupts. */
#define BIO_BY "rq->q->disk->disk_name|rq->rq_disk->disk_name,rq->cmd_flags:reqop"

static const struct recipe r_bio = {
	.title = "block I/O latency (issue to complete) by disk and operation",
	.kind = M_LATENCY,
	.names = "disk,op",
	.nsub = 1,
	.sub = { {
		.ps = { .start = "block:block_rq_issue", .end = "block:block_rq_complete",
			.key = "rq", .by = BIO_BY },
	} },
};

static const struct recipe r_bio_size = {
	.title = "block I/O request size by disk and operation",
	.kind = M_VALUE,
	.names = "disk,op",
	.value_unit = "bytes",
	.nsub = 1,
	.sub = { {
		.ps = { .start = "block:block_rq_issue", .single = true, .value = "rq->__data_len",
			.by = BIO_BY },
	} },
};

/* A task enters a run queue when woken, when new, or when it leaves the
 * CPU still runnable (preempted or yielding: prev_state has no state bit
 * of TASK_REPORT); it leaves it at its next switch-in.  The idle task
 * (pid 0) is never queued.  Switch-ins of tasks that entered before
 * tracing began are no loss. */
static const struct recipe r_runq = {
	.title = "run-queue latency (runnable to running)",
	.kind = M_LATENCY,
	.nsub = 3,
	.sub = {
		{ .measure = "runq",
		  .ps = { .start = "sched:sched_wakeup", .end = "sched:sched_switch",
			  .key = "tid=next_pid", .subject_arg = 1, .orphan_ok = true } },
		{ .measure = "runq",
		  .ps = { .start = "sched:sched_wakeup_new", .end = "sched:sched_switch",
			  .key = "tid=next_pid", .subject_arg = 1, .orphan_ok = true } },
		{ .measure = "runq",
		  .ps = { .start = "sched:sched_switch", .end = "sched:sched_switch",
			  .key = "prev_pid=next_pid", .cond = "prev_state & 255 == 0 && prev_pid != 0",
			  .orphan_ok = true } },
	},
};

/* On-CPU time: a thread's switch-in (it is sched_switch's next, raw
 * argument 2) to its switch-out (prev_pid), as bcc's cpudist.  The idle
 * tasks, pid 0 on every CPU, are left out; threads already running when
 * tracing began end without a start, which is no loss. */
static const struct recipe r_oncpu = {
	.title = "on-CPU time (switch-in to switch-out)",
	.kind = M_LATENCY,
	.nsub = 1,
	.sub = { {
		.ps = { .start = "sched:sched_switch", .end = "sched:sched_switch",
			.key = "tid=prev_pid", .subject_arg = 3, .cond = "tid != 0",
			.orphan_ok = true },
	} },
};

/* Off-CPU periods: a thread's switch-out to its next switch-in, whatever
 * its state (sleeping, blocked or preempted), as cpudist -O. */
static const struct recipe r_offcpu_dist = {
	.title = "off-CPU time (switch-out to switch-in)",
	.kind = M_LATENCY,
	.nsub = 1,
	.sub = { {
		.ps = { .start = "sched:sched_switch", .end = "sched:sched_switch",
			.key = "prev_pid=next_pid", .cond = "prev_pid != 0", .orphan_ok = true },
	} },
};

/* Hard IRQ handlers do not nest, nor do softirqs on one CPU: the CPU is the
 * key.  Filters (-p, --comm, -c) select the interrupted task.  The IRQ and
 * the vector are raw tracepoint arguments (irq_handler_entry(int irq, ...),
 * softirq_entry(unsigned int vec_nr)), never record fields: a tracepoint
 * program shares the per-CPU guard bpf_prog_active with every kprobe and
 * tracepoint program of the machine (trace_call_bpf()), so an interrupt
 * arriving while any of them runs would skip it; a raw tracepoint program
 * is skipped only while it runs itself on that CPU. */
static const struct recipe r_irq = {
	.title = "hard IRQ handler time by IRQ",
	.kind = M_LATENCY,
	.names = "irq",
	.nsub = 1,
	.sub = { {
		.ps = { .start = "irq:irq_handler_entry", .end = "irq:irq_handler_exit",
			.key = "cpu", .by = "arg0:irq" },
	} },
};

static const struct recipe r_softirq = {
	.title = "softirq handler time by vector",
	.kind = M_LATENCY,
	.names = "softirq",
	.nsub = 1,
	.sub = { {
		.ps = { .start = "irq:softirq_entry", .end = "irq:softirq_exit", .key = "cpu",
			.by = "arg0:softirq" },
	} },
};

/* mmap_lock, as include/linux/mmap_lock.h traces it:
 * - blocking locks fire start_locking, then acquire_returned (success=0
 *   only when a killable lock was interrupted);
 * - trylocks fire acquire_returned alone, success=0 when they failed;
 * - mmap_write_downgrade() fires acquire_returned(write=0) while the write
 *   lock is held; release is then a read release.
 * Wait: start_locking -> acquire_returned of the thread (trylocks have no
 * wait).  Hold: a successful acquire_returned -> released of the same mm
 * and thread; a downgrade ends the write hold and starts a read hold
 * (restart).  Failed acquisitions are counted, not timed. */
static const struct recipe r_mmap_lock = {
	.title = "mmap_lock wait and hold time",
	.kind = M_LATENCY,
	.names = "lock",
	.default_by = "comm",
	.nsub = 3,
	.sub = {
		{ .measure = "wait",
		  .ps = { .start = "mmap_lock:mmap_lock_start_locking",
			  .end = "mmap_lock:mmap_lock_acquire_returned", .by = "write:rw",
			  .orphan_ok = true } },
		{ .measure = "hold",
		  .ps = { .start = "mmap_lock:mmap_lock_acquire_returned",
			  .end = "mmap_lock:mmap_lock_released", .key = "mm,tid",
			  .by = "write:rw", .cond = "success == 1", .restart = true,
			  .orphan_ok = true } },
		{ .measure = "failed",
		  .ps = { .start = "mmap_lock:mmap_lock_acquire_returned", .single = true,
			  .by = "write:rw", .cond = "success == 0" } },
	},
};

static int recipe_prepare(struct session *s);
static int recipe_attach(struct session *s);
static int recipe_read(struct session *s, struct measurement *m);
static void recipe_cleanup(struct session *s);

/* ropts: the options a recipe takes beyond every measuring command's */
#define RECIPE_OPTS(cname, rname, rargs, rsummary, r, ropts)                               \
	static const struct command cname = {                                              \
		.name = rname, .args = rargs, .summary = rsummary, .prepare = recipe_prepare, \
		.attach = recipe_attach, .read = recipe_read, .cleanup = recipe_cleanup,    \
		.data = r, .opts = OPTS_MEASURE | (ropts), .caps = CMD_SERVE,               \
	}
/* a latency recipe: --slower-than prints its outliers */
#define RECIPE(cname, rname, rargs, rsummary, r) \
	RECIPE_OPTS(cname, rname, rargs, rsummary, r, OPT(SLOWER_THAN) | OPT(STACK) | OPT(EXPLAIN) | \
		    OPT(MATCH))

RECIPE(cmd_syscalls, "syscalls", "", "syscall latency by syscall and errno", &r_syscalls);
RECIPE(cmd_wq, "wq", "", "workqueue work execution time by work function", &r_wq);
RECIPE(cmd_wq_queue, "wq-queue", "", "workqueue queueing delay by work function", &r_wq_queue);
RECIPE(cmd_bio, "bio", "", "block I/O latency by disk and read/write", &r_bio);
RECIPE_OPTS(cmd_bio_size, "bio-size", "", "block I/O request sizes by disk and read/write",
	    &r_bio_size, OPT(LINEAR));
RECIPE(cmd_runq, "runq", "", "run-queue latency: runnable to running", &r_runq);
RECIPE(cmd_oncpu, "oncpu", "", "on-CPU time per switch-in to switch-out (cpudist)", &r_oncpu);
RECIPE(cmd_offcpu_dist, "offcpu-dist", "", "off-CPU periods per switch-out to switch-in (cpudist -O)",
       &r_offcpu_dist);
RECIPE(cmd_irq, "irq", "", "hard IRQ handler time and counts by IRQ", &r_irq);
RECIPE(cmd_softirq, "softirq", "", "softirq handler time and counts by vector", &r_softirq);
RECIPE(cmd_mmap_lock, "mmap-lock", "", "mmap_lock wait and hold time, failed trylocks",
       &r_mmap_lock);
RECIPE_OPTS(cmd_dist, "dist", "EVENT FIELD",
	    "distribution of an event's FIELD (--linear MIN,MAX,STEP)", NULL, OPT(LINEAR) | OPT(IF));
RECIPE_OPTS(cmd_count, "count", "EVENT", "event counts per --by key", NULL, OPT(IF));

static int recipes_list(struct options *o);

static const struct command cmd_recipes = {
	.name = "recipes",
	.args = "",
	.summary = "list the recipes and the pair specs they expand to",
	.run = recipes_list,
};

const struct command *const recipe_commands[] = {
	&cmd_syscalls, &cmd_wq, &cmd_wq_queue, &cmd_bio, &cmd_bio_size, &cmd_runq, &cmd_oncpu,
	&cmd_offcpu_dist, &cmd_irq,
	&cmd_softirq, &cmd_mmap_lock, &cmd_dist, &cmd_count, &cmd_recipes, NULL,
};

/* ---- the session ---- */

/* dist EVENT FIELD and count EVENT: one single-event sub from the arguments. */
static int generic_recipe(struct session *s, struct recipe *r)
{
	struct options *o = s->opt;
	bool dist = !strcmp(s->cmd->name, "dist");

	if (o->nargs != (dist ? 2 : 1)) {
		kd_err("bad arguments: expected %s, e.g. kdist %s", s->cmd->args,
		       dist ? "dist kmem:kmalloc bytes_alloc" : "count irq:irq_handler_entry --by cpu,irq");
		return -EINVAL;
	}
	memset(r, 0, sizeof(*r));
	r->title = dist ? "value distribution" : "event count";
	r->kind = M_VALUE;
	r->value_unit = dist ? o->args[1] : "events";
	r->nsub = 1;
	r->sub[0].ps.start = o->args[0];
	r->sub[0].ps.single = true;
	r->sub[0].ps.value = dist ? o->args[1] : NULL;
	r->sub[0].ps.value_unit = r->value_unit;
	r->sub[0].ps.cond = o->cond;
	return 0;
}

/* Name every tracepoint of the recipe this kernel lacks, at once. */
static int check_tracepoints(const struct recipe *r, const char *name)
{
	char missing[512] = "";
	struct tp_format *f = malloc(sizeof(*f));
	int n = 0;

	if (!f)
		return -ENOMEM;
	for (int i = 0; i < r->nsub; i++) {
		const char *ev[2] = { r->sub[i].ps.start, r->sub[i].ps.single ? NULL : r->sub[i].ps.end };

		for (int j = 0; j < 2 && ev[j]; j++) {
			char cat[64];
			const char *colon = strchr(ev[j], ':');

			if (!colon || strstr(missing, ev[j]))
				continue;
			snprintf(cat, sizeof(cat), "%.*s", (int)(colon - ev[j]), ev[j]);
			if (tp_format_load(cat, colon + 1, f) != -ENOENT)
				continue;
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%s%s",
				 n++ ? ", " : "", ev[j]);
		}
	}
	free(f);
	if (!n)
		return 0;
	/* dist and count trace the user's event: a mistake, as in pair */
	if (!strcmp(name, "dist") || !strcmp(name, "count")) {
		tracefs_unknown_event(missing);
		return -ENOENT;
	}
	kd_err("failed to prepare %s: this kernel lacks the tracepoint%s %s", name,
	       n > 1 ? "s" : "", missing);
	return -ENOENT;
}

static int recipe_prepare(struct session *s)
{
	struct rsession *rs = calloc(1, sizeof(*rs));
	struct options *o = s->opt;
	const char *user_by;
	int err;

	if (!rs)
		return -ENOMEM;
	s->priv = rs;
	if (s->cmd->data) {
		rs->r = *(const struct recipe *)s->cmd->data;
		if (o->nargs) {
			kd_err("bad arguments: %s takes none (see kdist recipes)", s->cmd->name);
			return -EINVAL;
		}
	} else {
		err = generic_recipe(s, &rs->r);
		if (err)
			return err;
	}
	if (o->linear && !(rs->r.kind == M_VALUE && rs->r.sub[0].ps.value)) {
		kd_err("option --linear is for value distributions (dist, bio-size)");
		return -EINVAL;
	}
	if (!tracefs_root())
		return -ENODEV;
	err = check_tracepoints(&rs->r, s->cmd->name);
	if (err)
		return err;
	user_by = o->by ? o->by : rs->r.default_by;
	rs->nnames = rs->r.names ? name_list_parse(rs->r.names, rs->names, PAIR_MAX_BY, "names") : 0;
	if (rs->nnames < 0)
		return rs->nnames;
	for (int i = 0; i < rs->r.nsub; i++) {
		struct sub *sb = &rs->r.sub[i];
		char own[PAIR_MAX_BY][64];

		rs->nown[i] = sb->ps.by ? name_list_parse(sb->ps.by, own, PAIR_MAX_BY, "--by") : 0;
		if (rs->nown[i] < 0)
			return rs->nown[i];

		if (sb->measure && strcmp(sb->measure, rs->r.sub[0].measure))
			rs->measure_col = true;
		snprintf(rs->by[i], sizeof(rs->by[i]), "%s%s%s", sb->ps.by ? sb->ps.by : "",
			 sb->ps.by && user_by ? "," : "", user_by ? user_by : "");
		sb->ps.by = rs->by[i][0] ? rs->by[i] : NULL;
		if (!sb->ps.title)
			sb->ps.title = rs->r.title;
		/* the recipe's own components by the recipe's names, --by's as given */
		for (int j = 0; j < rs->nown[i] && j < rs->nnames; j++)
			sb->ps.names[j] = rs->names[j];
		if (sb->ps.end_by && rs->nnames > rs->nown[i])
			sb->ps.end_name = rs->names[rs->nown[i]];
	}
	for (int i = 0; i < rs->r.nsub; i++) {
		rs->sub[i] = (struct session){ .cmd = s->cmd, .opt = o };
		if (rs->measure_col)
			rs->r.sub[i].ps.measure = rs->r.sub[i].measure;
		err = pair_prepare_spec(&rs->sub[i], &rs->r.sub[i].ps);
		rs->nsub = i + 1;
		if (err)
			return err;
	}
	return 0;
}

static int recipe_attach(struct session *s)
{
	struct rsession *rs = s->priv;

	for (int i = 0; i < rs->nsub; i++) {
		int err = pair_attach(&rs->sub[i]);

		if (err)
			return err;
	}
	return 0;
}

static void fill_header(struct rsession *rs, struct measurement *m, const struct measurement *mi,
			int sub)
{
	int n = 0;

	if (sub == 0) {
		m->command = mi->command;
		m->kind = rs->r.kind;
		m->value_unit = rs->r.value_unit;
		m->counts = mi->counts;
		m->explain = mi->explain;
		m->explain_irq = mi->explain_irq;
		m->explain_end = mi->explain_end;
		snprintf(m->key, sizeof(m->key), "%s", mi->key);
		if (rs->nsub > 1)
			snprintf(m->title, sizeof(m->title), "%s", rs->r.title);
		else
			snprintf(m->title, sizeof(m->title), "%s", mi->title);
		if (rs->measure_col) {
			m->by_fmt[n] = FMT_AUTO;
			snprintf(m->by[n++], sizeof(m->by[0]), "measure");
		}
		for (int j = 0; j < mi->nby && n < M_MAX_BY; j++) {
			m->by_fmt[n] = mi->by_fmt[j];
			snprintf(m->by[n++], sizeof(m->by[0]), "%s", mi->by[j]);
		}
		m->nby = n;
	}
	for (int e = 0; e < mi->nevents; e++) {
		bool seen = false;

		for (int k = 0; k < m->nevents; k++)
			seen |= !strcmp(m->events[k].spec, mi->events[e].spec) &&
				!strcmp(m->events[k].role, mi->events[e].role);
		if (!seen && m->nevents < M_MAX_EVENTS)
			m->events[m->nevents++] = mi->events[e];
	}
}

/* Groups of every sub merge by their key values, behind the measure. */
static int merge_sub(struct rsession *rs, struct measurement *m, const struct measurement *mi,
		     const struct sub *sb)
{
	const char *measure = rs->measure_col ? m_intern(sb->measure, strlen(sb->measure)) : NULL;

	if (rs->measure_col && !measure)
		return -ENOMEM;
	for (int d = 0; d < mi->ndrops; d++)
		measurement_add_drop(m, mi->drops[d].name, mi->drops[d].value);
	m_cost_add(&m->cost, &mi->cost);
	for (int i = 0; i < mi->ngroups; i++) {
		const struct m_group *g = &mi->groups[i];
		struct m_value key[M_MAX_BY];
		struct m_group *mg;
		struct hist h;
		int n = 0;

		if (measure)
			key[n++] = mv_text(measure);
		for (int j = 0; j < mi->nby && n < M_MAX_BY; j++)
			key[n++] = g->key[j];
		mg = measurement_group(m, key);
		if (!mg)
			return -ENOMEM;
		m_hist_get(&g->h, &h);
		if (m_hist_add(&mg->h, &h) || m_explain_add(&mg->ex, g->ex, 1))
			return -ENOMEM;
	}
	return 0;
}

static int recipe_read(struct session *s, struct measurement *m)
{
	struct rsession *rs = s->priv;
	int err = 0;

	measurement_copy_header(m, &rs->header);
	for (int i = 0; i < rs->nsub && !err; i++) {
		struct measurement mi = { 0 };

		err = pair_read(&rs->sub[i], &mi);
		if (!err) {
			fill_header(rs, m, &mi, i);
			err = merge_sub(rs, m, &mi, &rs->r.sub[i]);
		}
		measurement_clear(&mi);
	}
	return err;
}

static void recipe_cleanup(struct session *s)
{
	struct rsession *rs = s->priv;

	for (int i = 0; i < rs->nsub; i++)
		if (rs->sub[i].priv)
			pair_cleanup(&rs->sub[i]);
	free(rs);
	s->priv = NULL;
}

/* ---- kdist recipes ---- */

static void print_sub(const struct sub *sb)
{
	const struct pair_spec *ps = &sb->ps;

	printf("    %-7s ", sb->measure ? sb->measure : "");
	if (ps->single)
		printf("%s%s%s", ps->start, ps->value ? " value " : " count", ps->value ? ps->value : "");
	else
		printf("%s -> %s  key %s", ps->start, ps->end, ps->key ? ps->key : "tid");
	if (ps->by)
		printf("  by %s", ps->by);
	if (ps->end_by)
		printf("  by END %s%s", ps->end_by, ps->end_by_neg ? " (if < 0)" : "");
	if (ps->cond)
		printf("  if %s", ps->cond);
	if (ps->subject_arg)
		printf("  task arg%d", ps->subject_arg - 1);
	if (ps->restart)
		printf("  restart");
	putchar('\n');
}

static int recipes_list(struct options *o)
{
	for (int i = 0; recipe_commands[i]; i++) {
		const struct command *c = recipe_commands[i];
		const struct recipe *r = c->data;

		if (c->run)
			continue;
		printf("%-10s %s\n", c->name, c->summary);
		if (!r) {
			printf("    %s%s single event, %s\n", c->name, c->args[0] ? " " : "", c->args);
			continue;
		}
		for (int j = 0; j < r->nsub; j++)
			print_sub(&r->sub[j]);
		if (r->default_by)
			printf("    --by default: %s\n", r->default_by);
	}
	return 0;
}

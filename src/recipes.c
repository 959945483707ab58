// SPDX-License-Identifier: GPL-2.0
/* Named measurements built on the pair engine: a recipe is a pair spec plus
 * presentation, never a BPF program of its own.
 *
 * A recipe holds one or more sub-measurements ("wait" and "hold" of
 * mmap_lock, or the three ways a task enters a run queue), each a pair
 * session of its own.  Their reads merge into one measurement: groups are
 * matched by their readable labels, and when the subs measure different
 * things the first grouping component, "measure", says which. */
#include "kdist.h"
#include "pair.h"
#include "pair_cmd.h"
#include "spec.h"
#include "tracefs.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R_MAX_SUB 4

/* How a grouping component is shown: its name and readable value. */
struct relabel {
	const char *name;
	char *(*fn)(const char *raw);
};

struct sub {
	const char *measure;	/* subs with the same measure merge */
	struct pair_spec ps;	/* ps.by: the recipe's own components, before --by */
	const struct relabel *rl[PAIR_MAX_BY];	/* per own component */
	const struct relabel *end_rl;		/* for ps.end_by */
};

struct recipe {
	const char *title;
	enum m_kind kind;
	const char *value_unit;
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
	struct measurement header;
};

/* ---- readable labels ---- */

static unsigned long long raw_num(const char *raw)
{
	return strtoull(raw ? raw : "0", NULL, 0);
}

static char *label_syscall(const char *raw)
{
	static const char *const names[] = {
#include "syscall_names.h"
	};
	unsigned long long nr = raw_num(raw);
	char buf[32];

	if (nr < ARRAY_SIZE(names) && names[nr])
		return strdup(names[nr]);
	snprintf(buf, sizeof(buf), "syscall_%llu", nr);
	return strdup(buf);
}

static char *label_errno(const char *raw)
{
	long long v = (long long)raw_num(raw);
	const char *name;
	char buf[32];

	if (raw && raw[0] == '-')
		v = strtoll(raw, NULL, 0);
	if (v >= 0)
		return strdup("ok");
	name = -v < 4096 ? strerrorname_np(-v) : NULL;
	if (name)
		return strdup(name);
	snprintf(buf, sizeof(buf), "%lld", v);
	return strdup(buf);
}

/* Kernel dev_t (12-bit major, 20-bit minor) to the disk's name. */
static char *label_disk(const char *raw)
{
	unsigned long long dev = raw_num(raw);
	char path[64], *text = NULL, *name, buf[32];

	snprintf(path, sizeof(path), "/sys/dev/block/%llu:%llu/uevent", dev >> 20, dev & 0xfffff);
	if (!read_file(path, &text, NULL)) {
		name = strstr(text, "DEVNAME=");
		if (name) {
			name += 8;
			name[strcspn(name, "\n")] = '\0';
			name = strdup(name);
			free(text);
			return name;
		}
		free(text);
	}
	snprintf(buf, sizeof(buf), "%llu:%llu", dev >> 20, dev & 0xfffff);
	return strdup(buf);
}

/* rwbs ("WS", "FWFS", "RA", "D"...): the operation, flags aside. */
static char *label_op(const char *raw)
{
	const char *s = raw ? raw : "";

	if (s[0] == 'F' && s[1])
		s++;	/* preflush, then the operation */
	switch (s[0]) {
	case 'R': return strdup("read");
	case 'W': return strdup("write");
	case 'D': return strdup("discard");
	case 'E': return strdup("secure-erase");
	case 'F': return strdup("flush");
	default: return strdup("other");
	}
}

static char *label_rw(const char *raw)
{
	return strdup(raw_num(raw) ? "write" : "read");
}

static char *label_softirq(const char *raw)
{
	static const char *const names[] = {
		"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
		"HRTIMER", "RCU",
	};
	unsigned long long v = raw_num(raw);

	return v < ARRAY_SIZE(names) ? strdup(names[v]) : strdup(raw ? raw : "?");
}

/* "N:action" from /proc/interrupts (the last column names the handler). */
static char *label_irq(const char *raw)
{
	char *text = NULL, *line, *save = NULL, buf[96];
	long irq = strtol(raw ? raw : "-1", NULL, 0);

	snprintf(buf, sizeof(buf), "%ld", irq);
	if (read_file("/proc/interrupts", &text, NULL))
		return strdup(buf);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end, *last;

		if (strtol(line, &end, 10) != irq || *end != ':')
			continue;
		str_trim(end + 1);
		last = strrchr(end + 1, ' ');
		snprintf(buf, sizeof(buf), "%ld:%s", irq, last ? last + 1 : end + 1);
		break;
	}
	free(text);
	return strdup(buf);
}

static const struct relabel rl_syscall = { "syscall", label_syscall };
static const struct relabel rl_errno = { "error", label_errno };
static const struct relabel rl_disk = { "disk", label_disk };
static const struct relabel rl_op = { "op", label_op };
static const struct relabel rl_rw = { "lock", label_rw };
static const struct relabel rl_softirq = { "softirq", label_softirq };
static const struct relabel rl_irq = { "irq", label_irq };
static const struct relabel rl_function = { "function", NULL };

/* ---- the recipes ---- */

/* raw_syscalls: raw arguments (args[1] is the id at enter, the return value
 * at exit) keep both programs on the cheap raw tracepoint attach. */
static const struct recipe r_syscalls = {
	.title = "syscall latency by syscall and error",
	.kind = M_LATENCY,
	.nsub = 1,
	.sub = { {
		.ps = { .start = "raw_syscalls:sys_enter", .end = "raw_syscalls:sys_exit",
			.by = "arg1", .end_by = "arg1", .end_by_neg = true },
		.rl = { &rl_syscall }, .end_rl = &rl_errno,
	} },
};

static const struct recipe r_wq = {
	.title = "work execution time by work function",
	.kind = M_LATENCY,
	.nsub = 1,
	.sub = { {
		.ps = { .start = "workqueue:workqueue_execute_start",
			.end = "workqueue:workqueue_execute_end", .key = "work",
			.by = "function:ksym" },
		.rl = { &rl_function },
	} },
};

static const struct recipe r_wq_queue = {
	.title = "work queueing delay (queued to started) by work function",
	.kind = M_LATENCY,
	.nsub = 1,
	.sub = { {
		.ps = { .start = "workqueue:workqueue_queue_work",
			.end = "workqueue:workqueue_execute_start", .key = "work",
			.by = "function:ksym", .orphan_ok = true },
		.rl = { &rl_function },
	} },
};

static const struct recipe r_bio = {
	.title = "block I/O latency (issue to complete) by disk and operation",
	.kind = M_LATENCY,
	.nsub = 1,
	.sub = { {
		.ps = { .start = "block:block_rq_issue", .end = "block:block_rq_complete",
			.key = "dev,sector", .by = "dev,rwbs" },
		.rl = { &rl_disk, &rl_op },
	} },
};

static const struct recipe r_bio_size = {
	.title = "block I/O request size by disk and operation",
	.kind = M_VALUE,
	.value_unit = "bytes",
	.nsub = 1,
	.sub = { {
		.ps = { .start = "block:block_rq_issue", .single = true, .value = "bytes",
			.by = "dev,rwbs" },
		.rl = { &rl_disk, &rl_op },
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
			  .key = "prev_pid=next_pid", .cond = "prev_state&255==0,prev_pid!=0",
			  .orphan_ok = true } },
	},
};

/* Hard IRQ handlers do not nest, nor do softirqs on one CPU: the CPU is the
 * key.  Filters (-p, --comm, -c) select the interrupted task. */
static const struct recipe r_irq = {
	.title = "hard IRQ handler time by IRQ",
	.kind = M_LATENCY,
	.nsub = 1,
	.sub = { {
		.ps = { .start = "irq:irq_handler_entry", .end = "irq:irq_handler_exit",
			.key = "cpu", .by = "irq" },
		.rl = { &rl_irq },
	} },
};

static const struct recipe r_softirq = {
	.title = "softirq handler time by vector",
	.kind = M_LATENCY,
	.nsub = 1,
	.sub = { {
		.ps = { .start = "irq:softirq_entry", .end = "irq:softirq_exit", .key = "cpu",
			.by = "vec" },
		.rl = { &rl_softirq },
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
	.default_by = "comm",
	.nsub = 3,
	.sub = {
		{ .measure = "wait",
		  .ps = { .start = "mmap_lock:mmap_lock_start_locking",
			  .end = "mmap_lock:mmap_lock_acquire_returned", .by = "write",
			  .orphan_ok = true },
		  .rl = { &rl_rw } },
		{ .measure = "hold",
		  .ps = { .start = "mmap_lock:mmap_lock_acquire_returned",
			  .end = "mmap_lock:mmap_lock_released", .key = "mm,tid",
			  .by = "write", .cond = "success==1", .restart = true,
			  .orphan_ok = true },
		  .rl = { &rl_rw } },
		{ .measure = "failed",
		  .ps = { .start = "mmap_lock:mmap_lock_acquire_returned", .single = true,
			  .by = "write", .cond = "success==0" },
		  .rl = { &rl_rw } },
	},
};

static int recipe_prepare(struct session *s);
static int recipe_attach(struct session *s);
static int recipe_read(struct session *s, struct measurement *m);
static void recipe_cleanup(struct session *s);

#define RECIPE(cname, rname, rargs, rsummary, r)                                           \
	static const struct command cname = {                                              \
		.name = rname, .args = rargs, .summary = rsummary, .prepare = recipe_prepare, \
		.attach = recipe_attach, .read = recipe_read, .cleanup = recipe_cleanup,    \
		.data = r,                                                                  \
	}

RECIPE(cmd_syscalls, "syscalls", "", "syscall latency by syscall and errno", &r_syscalls);
RECIPE(cmd_wq, "wq", "", "workqueue work execution time by work function", &r_wq);
RECIPE(cmd_wq_queue, "wq-queue", "", "workqueue queueing delay by work function", &r_wq_queue);
RECIPE(cmd_bio, "bio", "", "block I/O latency by disk and read/write", &r_bio);
RECIPE(cmd_bio_size, "bio-size", "", "block I/O request sizes by disk and read/write",
       &r_bio_size);
RECIPE(cmd_runq, "runq", "", "run-queue latency: runnable to running", &r_runq);
RECIPE(cmd_irq, "irq", "", "hard IRQ handler time and counts by IRQ", &r_irq);
RECIPE(cmd_softirq, "softirq", "", "softirq handler time and counts by vector", &r_softirq);
RECIPE(cmd_mmap_lock, "mmap-lock", "", "mmap_lock wait and hold time, failed trylocks",
       &r_mmap_lock);
RECIPE(cmd_dist, "dist", "EVENT FIELD", "distribution of an event's FIELD (--linear MIN,MAX,STEP)",
       NULL);
RECIPE(cmd_count, "count", "EVENT", "event counts per --by key", NULL);

static int recipes_list(struct options *o);

static const struct command cmd_recipes = {
	.name = "recipes",
	.args = "",
	.summary = "list the recipes and the pair specs they expand to",
	.run = recipes_list,
};

const struct command *const recipe_commands[] = {
	&cmd_syscalls, &cmd_wq, &cmd_wq_queue, &cmd_bio, &cmd_bio_size, &cmd_runq, &cmd_irq,
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
	for (int i = 0; i < rs->r.nsub; i++) {
		struct sub *sb = &rs->r.sub[i];

		if (sb->measure && strcmp(sb->measure, rs->r.sub[0].measure))
			rs->measure_col = true;
		snprintf(rs->by[i], sizeof(rs->by[i]), "%s%s%s", sb->ps.by ? sb->ps.by : "",
			 sb->ps.by && user_by ? "," : "", user_by ? user_by : "");
		sb->ps.by = rs->by[i][0] ? rs->by[i] : NULL;
		if (!sb->ps.title)
			sb->ps.title = rs->r.title;
	}
	for (int i = 0; i < rs->r.nsub; i++) {
		rs->sub[i] = (struct session){ .cmd = s->cmd, .opt = o };
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

static const struct relabel *component_relabel(const struct sub *sb, int j, int nby)
{
	int own = 0;

	if (sb->ps.end_by && j == nby - 1)
		return sb->end_rl;
	while (own < PAIR_MAX_BY && sb->rl[own])
		own++;
	return j < own ? sb->rl[j] : NULL;
}

/* Groups are matched by their labels: raw keys differ between subs. */
static void label_key(unsigned char key[M_KEY_BYTES], char **lab, int n)
{
	unsigned long long h = 1469598103934665603ULL;
	size_t at = 0;

	memset(key, 0, M_KEY_BYTES);
	for (int i = 0; i < n; i++) {
		for (const char *c = lab[i] ? lab[i] : ""; ; c++) {
			h = (h ^ (unsigned char)*c) * 1099511628211ULL;
			if (at < M_KEY_BYTES - sizeof(h))
				key[at++] = *c;
			if (!*c)
				break;
		}
	}
	memcpy(key + M_KEY_BYTES - sizeof(h), &h, sizeof(h));
}

static void fill_header(struct rsession *rs, struct measurement *m, const struct measurement *mi,
			const struct sub *sb, bool first)
{
	int n = 0;

	if (first) {
		m->command = mi->command;
		m->kind = rs->r.kind;
		m->value_unit = rs->r.value_unit;
		snprintf(m->key, sizeof(m->key), "%s", mi->key);
		if (rs->nsub > 1)
			snprintf(m->title, sizeof(m->title), "%s", rs->r.title);
		else
			snprintf(m->title, sizeof(m->title), "%s", mi->title);
		if (rs->measure_col)
			snprintf(m->by[n++], sizeof(m->by[0]), "measure");
		for (int j = 0; j < mi->nby && n < M_MAX_BY; j++) {
			const struct relabel *rl = component_relabel(sb, j, mi->nby);

			snprintf(m->by[n++], sizeof(m->by[0]), "%s", rl ? rl->name : mi->by[j]);
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

static int merge_sub(struct rsession *rs, struct measurement *m, const struct measurement *mi,
		     const struct sub *sb)
{
	unsigned char key[M_KEY_BYTES];

	for (int d = 0; d < mi->ndrops; d++)
		measurement_add_drop(m, mi->drops[d].name, mi->drops[d].value);
	m_cost_add(&m->cost, &mi->cost);
	for (int i = 0; i < mi->ngroups; i++) {
		const struct m_group *g = &mi->groups[i];
		char *lab[M_MAX_BY] = { 0 };
		struct m_group *mg;
		int n = 0;

		if (rs->measure_col)
			lab[n++] = strdup(sb->measure);
		for (int j = 0; j < mi->nby && n < M_MAX_BY; j++) {
			const struct relabel *rl = component_relabel(sb, j, mi->nby);

			lab[n++] = rl && rl->fn ? rl->fn(g->label[j]) :
						  strdup(g->label[j] ? g->label[j] : "");
		}
		label_key(key, lab, n);
		mg = measurement_group(m, key, sizeof(key));
		if (!mg) {
			for (int j = 0; j < n; j++)
				free(lab[j]);
			return -ENOMEM;
		}
		for (int j = 0; j < n; j++) {
			if (mg->label[j])
				free(lab[j]);
			else
				mg->label[j] = lab[j];
		}
		hist_merge(&mg->h, &g->h);
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
			fill_header(rs, m, &mi, &rs->r.sub[i], i == 0);
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

// SPDX-License-Identifier: GPL-2.0
/*
 * kdist pair: the groups, slow events and --explain's splits read into the
 * measurement.
 */
#include "cmd/pair/pair_int.h"
#include "kernel/btfpath.h"
#include "kernel/container.h"
#include "kernel/dense.h"
#include "kernel/engine.h"
#include "kernel/explain_bpf.h"
#include "kernel/keys.h"
#include "view/evline.h"
#include "pair.skel.h"
#include "kernel/stacks.h"
#include "lib/util.h"
#include "view/format.h"
#include "view/explain_view.h"
#include "cmd/pair/explain.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* A value of the START's task that the head of a slow line carries:
 * pid, tid and comm are read from the same task (the START's subject) at
 * the same time.  The CPU is not: the head's is the END's. */
static bool in_head(const struct val_src *v)
{
	return v->kind == VAL_PID || v->kind == VAL_TID || v->kind == VAL_COMM;
}

/* --explain full: the interval's longest block, its stack and its waker. */
static void explain_block_fields(FILE *f, const struct ex_block *b, struct stack_syms *syms)
{
	static const char *const states[EX_NPARTS] = { [EX_S] = "S", [EX_D] = "D",
						       [EX_OTHER] = "other" };
	char val[64], title[96];

	snprintf(val, sizeof(val), "%llu", b->ns);
	events_field(f, "block_ns", val, false);
	if (!b->ns)
		return;		/* no block ended inside the interval */
	events_field(f, "block_state", b->state < EX_NPARTS && states[b->state] ?
		     states[b->state] : "?", true);
	snprintf(val, sizeof(val), "%u", b->waker_tid);
	events_field(f, "waker_tid", b->waker_tid ? val : NULL, false);
	snprintf(val, sizeof(val), "%.16s", b->waker_comm);
	events_field(f, "waker_comm", b->waker_tid ? val : NULL, true);
	snprintf(title, sizeof(title), "longest block, %.3f ms, in:", b->ns / 1e6);
	events_stack_titled(f, "block_kstack", title, stack_syms_stack(syms, b->kstack, false, 0));
	if (!b->waker_tid)
		return;
	snprintf(title, sizeof(title), "woken by %.16s (tid %u) from:", b->waker_comm, b->waker_tid);
	events_stack_titled(f, "waker_kstack", title,
			    stack_syms_stack(syms, b->waker_kstack, false, 0));
}

/* One line (or JSON line) per pair slower than --slower-than. */
int pair_print_slow(void *ctx, void *data, size_t size)
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
		struct m_value v = pair_key_value(p, i, &e->group, false);

		if (i < (int)p->cfg.nby && in_head(&p->cfg.by[i]))
			continue;	/* read at START, as the head's */

		events_field(f, p->by[i].name, v.type == MV_STACK ? v.stack->label :
			     fmt_value(&v, p->by[i].fmt, buf, sizeof(buf)), true);
	}
	if (p->cfg.slow_stack) {
		events_stack(f, "kstack", stack_syms_stack(p->syms, w->kstack, false, 0));
		events_stack(f, "ustack", stack_syms_stack(p->syms, w->ustack, true, w->stack_tgid));
	}
	if (p->cfg.explain)
		explain_event_fields(f, &e->ex, &p->header);
	if (p->cfg.explain == EXPLAIN_FULL)
		explain_block_fields(f, &e->ex.block, p->syms);
	events_end(f);
	return 0;
}

/* The group of m a BPF group key is, if m has it. */
static int group_find(struct pair *p, struct measurement *m, const struct group_key *k,
		      struct m_group **g)
{
	struct m_value key[M_MAX_BY];

	*g = NULL;
	for (int i = 0; i < p->nby; i++) {
		key[i] = pair_key_value(p, i, k, true);
		if (key[i].type != MV_NUM && !key[i].text)
			return 0;
	}
	*g = (struct m_group *)measurement_find(m, key);
	return 0;
}

/* The same for a key of explain_groups, for explain_read(). */
static int explain_group_of(void *ctx, struct measurement *m, const void *key,
			    struct m_group **g)
{
	return group_find(ctx, m, &((const struct ex_key *)key)->group, g);
}

/* --explain's sums into m's groups */
static int read_explain(struct pair *p, struct measurement *m)
{
	return explain_read(&p->eng, bpf_map__fd(p->skel->maps.explain_groups),
			    sizeof(struct ex_key), offsetof(struct ex_key, row), m,
			    explain_group_of, p);
}

/* served: each group's exemplar, the slowest pair of the current or the
 * last window over the CPUs.  Entries of older windows are deleted: the
 * table holds the groups of late. */
static int exemplars_read(struct pair *p, struct measurement *m)
{
	int fd = bpf_map__fd(p->skel->maps.exemplars), n = 0, cap = 0, err = 0;
	size_t stride = engine_percpu_stride(sizeof(struct pair_exemplar));
	struct timespec mono, real;
	struct group_key k = { 0 }, next = { 0 }, *stale = NULL;
	uint64_t epoch;
	double offset;
	void *prev = NULL;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	offset = (real.tv_sec - mono.tv_sec) + (real.tv_nsec - mono.tv_nsec) / 1e9;
	epoch = (mono.tv_sec * 1000000000ULL + mono.tv_nsec) / p->cfg.exemplar_ns;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		const struct pair_exemplar *best = NULL;
		const char *v;
		struct m_group *g;

		k = next;
		prev = &k;
		v = engine_percpu(&p->eng, fd, &k);
		for (int c = 0; v && c < p->eng.ncpu; c++) {
			const struct pair_exemplar *x = (const void *)(v + c * stride);

			if (x->value && x->epoch + 1 >= epoch && (!best || x->value > best->value))
				best = x;
		}
		if (!best) {
			if (n == cap) {
				struct group_key *s = realloc(stale, (cap = cap ? 2 * cap : 64) * sizeof(*s));

				if (!s) {
					err = -ENOMEM;
					break;
				}
				stale = s;
			}
			stale[n++] = k;
			continue;
		}
		group_find(p, m, &k, &g);
		if (!g)
			continue;
		g->exemplar = (struct m_exemplar){ .value = best->value, .pid = best->id >> 32,
						   .tid = (uint32_t)best->id,
						   .unix_s = best->ts / 1e9 + offset };
		memcpy(g->exemplar.comm, best->comm, sizeof(g->exemplar.comm));
		g->exemplar.comm[sizeof(g->exemplar.comm) - 1] = '\0';
	}
	for (int i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &stale[i]);
	free(stale);
	return err;
}

/* Grouping component i of a BPF group key as the measurement keys it.
 * known: a text only if it was interned before (else its text is NULL), so
 * that names a full table cannot take are not kept for ever either. */
struct m_value pair_key_value(struct pair *p, int i, const struct group_key *g, bool known)
{
	const struct val_src *v = &p->cfg.by[i];
	unsigned long long x = g->v[i];
	const char *t;

	switch (v->kind) {
	case VAL_COMM:
	case VAL_STR_FIELD:
	case VAL_DLOC_FIELD:
	case VAL_PATH_STR:
	case VAL_GLOBAL_STR:
		t = known ? m_intern_find(g->str, PAIR_STR_LEN) : m_intern(g->str, PAIR_STR_LEN);
		return t ? key_normalize(mv_text(t), p->by[i].fmt) : mv_text(NULL);
	case VAL_KSTACK:
	case VAL_USTACK:
		if (x == ~0ULL)
			return mv_stack(m_stack_marker("[lost stack]"));
		return mv_stack(stack_syms_stack(p->syms, x, v->kind == VAL_USTACK, g->tgid));
	default:
		if (p->by[i].enum_id && p->by[i].fmt == FMT_AUTO) {
			/* an enum by its value's name (a value it lacks, as a number) */
			t = btfpath_enum_name(p->by[i].enum_id, v->is_signed ? (long long)x :
					      (long long)(x & (~0ULL >> (64 - 8 * v->size))));
			if (t)
				return mv_text(m_intern(t, strlen(t)));
		}
		return key_normalize(mv_num(x), p->by[i].fmt);
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
		key[i] = pair_key_value(p, i, k, full);
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

struct dense_into {
	struct pair *p;
	struct measurement *m;
};

/* A small-number group (dense.h): its key is the number alone, the END's
 * component 0. */
static int add_dense(void *ctx, uint64_t number, const struct hist *h)
{
	struct dense_into *d = ctx;
	struct group_key k = { .v = { number } };

	return add_group(d->p, d->m, &k, h);
}

static int read_dense(struct pair *p, struct measurement *m, bool take)
{
	struct dense_into d = { p, m };

	return p->cfg.dense ? dense_read(&p->dense, &p->eng, take, add_dense, &d) : 0;
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
	return read_groups(p, bpf_map__fd(t[!p->table]), &p->acc, true) ?:
	       read_dense(p, &p->acc, true);
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
		err = m_hist_set(&g->h, &h);
		if (!err && p->cfg.explain)
			err = read_explain(p, m);
		if (!err && p->cfg.exemplar_ns)
			err = exemplars_read(p, m);
		return err;
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
			measurement_add_drop(m, pair_drop_names[DROP_GROUP_FULL], p->acc_lost);
	} else {
		err = read_groups(p, bpf_map__fd(p->skel->maps.hist_groups), m, false) ?:
		      read_dense(p, m, false);
	}
	/* the events the kernel handed over since the start (engine_read took
	 * the last ones): whole-run figures, like p->acc */
	while (!err && (sp = engine_spilled_next(&p->eng, sp, &k, sizeof(k))))
		err = add_group(p, m, &k, sp->h);
	for (int i = 0; i < p->nby; i++)
		if (p->by[i].fmt >= FMT_CONTAINER && p->by[i].fmt <= FMT_UNIT)
			cgroup_stats(&m->cgroup_names);
	if (!err && p->cfg.explain)
		err = read_explain(p, m);
	if (!err && p->cfg.exemplar_ns)
		err = exemplars_read(p, m);
	return err;
}

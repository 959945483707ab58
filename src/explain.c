// SPDX-License-Identifier: GPL-2.0
/*
 * --explain in user space: the kernel's sums per group and row
 * (explain.bpf.h) into the measurement's groups, and their views: per group
 * the split of all intervals, of the slowest 10% and of the slowest 1%.
 * The tails are whole rows (powers of two): the rows from the one that
 * holds the 90th (99th) percentile up, so they hold at least that share.
 */
#include "explain.h"
#include "engine.h"
#include "events.h"
#include "measure.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

const char *const ex_part_names[EX_NPARTS] = {
	[EX_ONCPU] = "oncpu", [EX_IRQ] = "irq", [EX_RUNNABLE] = "runnable",
	[EX_S] = "blocked_s", [EX_D] = "blocked_d", [EX_OTHER] = "blocked_other",
	[EX_UNATTR] = "unattributed",
};

static const char *const part_labels[EX_NPARTS] = {
	[EX_ONCPU] = "on-CPU", [EX_IRQ] = "irq", [EX_RUNNABLE] = "runnable",
	[EX_S] = "blocked S", [EX_D] = "blocked D", [EX_OTHER] = "blocked other",
	[EX_UNATTR] = "unattributed",
};

static void val_add(struct ex_val *to, const struct ex_val *v, int sign)
{
	to->count += sign * v->count;
	to->sum += sign * v->sum;
	for (int i = 0; i < EX_NPARTS; i++)
		to->part[i] += sign * v->part[i];
	to->switches += sign * v->switches;
	to->preempts += sign * v->preempts;
}

int m_explain_add(struct m_explain **to, const struct m_explain *from, int sign)
{
	if (!from)
		return 0;
	if (!*to && !(*to = calloc(1, sizeof(**to))))
		return -ENOMEM;
	for (int r = 0; r < EX_ROWS; r++)
		val_add(&(*to)->row[r], &from->row[r], sign);
	return 0;
}

void m_explain_sum(const struct m_explain *x, int first, struct ex_val *out)
{
	memset(out, 0, sizeof(*out));
	for (int r = first; r < EX_ROWS; r++)
		val_add(out, &x->row[r], 1);
}

int m_explain_tail_row(const struct m_explain *x, double share)
{
	struct ex_val all;
	double want, n = 0;
	int r;

	m_explain_sum(x, 0, &all);
	want = share * all.count;
	for (r = EX_ROWS - 1; r > 0; r--) {
		n += x->row[r].count;
		if (n >= want)
			break;
	}
	return r;
}

static uint64_t row_low(int r)
{
	return r ? 1ULL << (r - 1) : 0;
}

int explain_read(struct engine *e, int fd, struct measurement *m,
		 int (*group_of)(void *ctx, struct measurement *m, const struct group_key *k,
				 struct m_group **g),
		 void *ctx)
{
	struct ex_key k, next, *cur = NULL;
	size_t stride = engine_percpu_stride(sizeof(struct ex_val));
	int err = 0;

	memset(&next, 0, sizeof(next));
	while (!err && !bpf_map_get_next_key(fd, cur, &next)) {
		const char *v;
		struct m_group *g;

		k = next;
		cur = &k;
		if (k.row >= EX_ROWS || group_of(ctx, m, &k.group, &g) || !g)
			continue;	/* a group the histograms have not shown yet */
		v = engine_percpu(e, fd, &k);
		if (!v)
			continue;
		if (!g->ex && !(g->ex = calloc(1, sizeof(*g->ex))))
			return -ENOMEM;
		for (int c = 0; c < e->ncpu; c++)
			val_add(&g->ex->row[k.row], (const struct ex_val *)(v + c * stride), 1);
	}
	return err;
}

/* ---- views ---------------------------------------------------------- */

struct tier {
	const char *name;	/* JSON */
	double share;		/* 0: all */
	int row;
	struct ex_val v;
};

static void tiers(const struct m_explain *x, struct tier t[3])
{
	static const struct { const char *name; double share; } defs[3] = {
		{ "all", 0 }, { "slowest_10pct", 0.1 }, { "slowest_1pct", 0.01 },
	};

	for (int i = 0; i < 3; i++) {
		t[i].name = defs[i].name;
		t[i].share = defs[i].share;
		t[i].row = defs[i].share ? m_explain_tail_row(x, defs[i].share) : 0;
		m_explain_sum(x, t[i].row, &t[i].v);
	}
}

void explain_write_text(FILE *f, const struct measurement *m, const struct m_group *g)
{
	struct tier t[3];
	char buf[64], cell[64];

	if (!m->explain || !g->ex)
		return;
	tiers(g->ex, t);
	fprintf(f, "  %-16s", "split, mean");
	for (int i = 0; i < 3; i++) {
		if (!t[i].share) {
			snprintf(cell, sizeof(cell), "all %llu", t[i].v.count);
		} else {
			fmt_time(buf, sizeof(buf), row_low(t[i].row));
			snprintf(cell, sizeof(cell), "slowest %g%%: %llu >=%s", t[i].share * 100,
				 t[i].v.count, buf);
		}
		fprintf(f, "  %-27s", cell);
	}
	fputc('\n', f);
	for (int p = 0; p < EX_NPARTS; p++) {
		fprintf(f, "  %-16s", part_labels[p]);
		for (int i = 0; i < 3; i++) {
			double n = t[i].v.count ? t[i].v.count : 1;

			if (p == EX_IRQ && !m->explain_irq) {
				snprintf(cell, sizeof(cell), "n/a");
			} else {
				fmt_time(buf, sizeof(buf), t[i].v.part[p] / n);
				snprintf(cell, sizeof(cell), "%10s %5.1f%%", buf,
					 t[i].v.sum ? 100.0 * t[i].v.part[p] / t[i].v.sum : 0.0);
			}
			fprintf(f, "  %-27s", cell);
		}
		fputc('\n', f);
	}
	fprintf(f, "  %-16s", "switches/preempt");
	for (int i = 0; i < 3; i++) {
		double n = t[i].v.count ? t[i].v.count : 1;

		snprintf(cell, sizeof(cell), "%10.2f / %.2f", t[i].v.switches / n,
			 t[i].v.preempts / n);
		fprintf(f, "  %-27s", cell);
	}
	fputc('\n', f);
	if (!m->explain_irq)
		fprintf(f, "  (irq n/a: the irq tracepoints could not be attached; on-CPU holds it)\n");
}

static void json_val(FILE *f, const struct measurement *m, const struct ex_val *v)
{
	fprintf(f, "\"count\":%llu,\"sum\":%llu,\"parts\":{", v->count, v->sum);
	for (int p = 0; p < EX_NPARTS; p++) {
		fprintf(f, "%s\"%s\":", p ? "," : "", ex_part_names[p]);
		if (p == EX_IRQ && !m->explain_irq)
			fputs("null", f);
		else
			fprintf(f, "%llu", v->part[p]);
	}
	fprintf(f, "},\"switches\":%llu,\"preemptions\":%llu", v->switches, v->preempts);
}

void explain_write_json(FILE *f, const struct measurement *m, const struct m_group *g)
{
	struct tier t[3];
	bool first = true;

	if (!m->explain || !g->ex)
		return;
	tiers(g->ex, t);
	fprintf(f, ",\"explain\":{\"irq\":%s", m->explain_irq ? "true" : "false");
	for (int i = 0; i < 3; i++) {
		fprintf(f, ",\"%s\":{\"low\":%llu,", t[i].name, (unsigned long long)row_low(t[i].row));
		json_val(f, m, &t[i].v);
		fputc('}', f);
	}
	fputs(",\"rows\":[", f);
	for (int r = 0; r < EX_ROWS; r++) {
		if (!g->ex->row[r].count)
			continue;
		fprintf(f, "%s{\"low\":%llu,\"high\":%llu,", first ? "" : ",",
			(unsigned long long)row_low(r),
			(unsigned long long)(r ? (r == 64 ? ~0ULL : (1ULL << r) - 1) : 0));
		json_val(f, m, &g->ex->row[r]);
		fputc('}', f);
		first = false;
	}
	fputs("]}", f);
}

void explain_event_fields(FILE *f, const struct ex_one *x, bool irq)
{
	char name[32], val[32];

	for (int p = 0; p < EX_NPARTS; p++) {
		snprintf(name, sizeof(name), "%s_ns", ex_part_names[p]);
		snprintf(val, sizeof(val), "%llu", x->part[p]);
		events_field(f, name, p == EX_IRQ && !irq ? "null" : val, false);
	}
	snprintf(val, sizeof(val), "%u", x->switches);
	events_field(f, "switches", val, false);
	snprintf(val, sizeof(val), "%u", x->preempts);
	events_field(f, "preemptions", val, false);
}

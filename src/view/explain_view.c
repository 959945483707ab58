// SPDX-License-Identifier: GPL-2.0
/*
 * The views of --explain: per group the split of all intervals, of the
 * slowest 10% and of the slowest 1%.  The tails are whole rows (powers of
 * two): the rows from the one that holds the 90th (99th) percentile up, so
 * they hold at least that share.  And one interval's split on its
 * --slower-than line.
 */
#include "view/explain_view.h"
#include "model/explain.h"
#include "model/measure.h"
#include "view/format.h"
#include "view/evline.h"

#include <string.h>

static const char *const part_labels[EX_NPARTS] = {
	[EX_ONCPU] = "on-CPU", [EX_IRQ] = "irq", [EX_RUNNABLE] = "runnable",
	[EX_S] = "blocked S", [EX_D] = "blocked D", [EX_OTHER] = "blocked other",
	[EX_UNATTR] = "unattributed",
};

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
			fmt_time(buf, sizeof(buf), m_explain_row_low(t[i].row));
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
	if (m->explain_end) {
		fprintf(f, "  %-16s", "END followed");
		for (int i = 0; i < 3; i++) {
			snprintf(cell, sizeof(cell), "%10llu of %llu", t[i].v.followed, t[i].v.count);
			fprintf(f, "  %-27s", cell);
		}
		fputc('\n', f);
	}
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
	if (m->explain_end)
		fprintf(f, ",\"followed\":%llu", v->followed);
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
		fprintf(f, ",\"%s\":{\"low\":%llu,", t[i].name, (unsigned long long)m_explain_row_low(t[i].row));
		json_val(f, m, &t[i].v);
		fputc('}', f);
	}
	fputs(",\"rows\":[", f);
	for (int r = 0; r < EX_ROWS; r++) {
		if (!g->ex->row[r].count)
			continue;
		fprintf(f, "%s{\"low\":%llu,\"high\":%llu,", first ? "" : ",",
			(unsigned long long)m_explain_row_low(r),
			(unsigned long long)(r ? (r == 64 ? ~0ULL : (1ULL << r) - 1) : 0));
		json_val(f, m, &g->ex->row[r]);
		fputc('}', f);
		first = false;
	}
	fputs("]}", f);
}

void explain_event_fields(FILE *f, const struct ex_one *x, const struct measurement *m)
{
	const struct ex_handoff *h = &x->handoff;
	bool irq = m->explain_irq;
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
	if (!m->explain_end)
		return;
	/* the END's thread, where the split follows it, and who woke it */
	snprintf(val, sizeof(val), "%llu", h->ns);
	events_field(f, "handoff_ns", h->end_tid ? val : NULL, false);
	snprintf(val, sizeof(val), "%u", h->end_tid);
	events_field(f, "end_tid", h->end_tid ? val : NULL, false);
	snprintf(val, sizeof(val), "%.16s", h->end_comm);
	events_field(f, "end_comm", h->end_tid ? val : NULL, true);
	snprintf(val, sizeof(val), "%u", h->waker_tid);
	events_field(f, "end_waker_tid", h->end_tid ? val : NULL, false);
	snprintf(val, sizeof(val), "%.16s", h->waker_comm);
	events_field(f, "end_waker_comm", h->end_tid ? val : NULL, true);
}

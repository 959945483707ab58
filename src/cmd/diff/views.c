// SPDX-License-Identifier: GPL-2.0
/* kdist diff's views of a comparison: text, JSON, the page, CSV, markdown
 * (diff.h). */
#include "cmd/diff/diff.h"
#include "view/html.h"
#include "view/markdown.h"
#include "view/format.h"
#include "view/view.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- views ---- */

static const char *verdict_name(int v)
{
	return v > 0 ? "slower" : v < 0 ? "faster" : "no significant change";
}

static const char *verdict_word(int v)
{
	return v > 0 ? "slower" : v < 0 ? "faster" : "none";
}

/* A value as text: times in their own unit, others with the measurement's. */
static void fmt_val(char *buf, size_t n, const struct diff *d, int s, double v)
{
	if (s == S_COUNT) {
		snprintf(buf, n, d->rates ? "%.4g/s" : "%.0f", v);
		return;
	}
	if (!strcmp(d->m[0].unit, "bytes")) {
		fmt_bytes(buf, n, v);
		return;
	}
	if (strcmp(d->m[0].unit, "ns")) {
		snprintf(buf, n, "%.4g %s", v, d->m[0].unit);
		return;
	}
	fmt_time(buf, n, v);
}

static void fmt_pct(char *buf, size_t n, double a, double b)
{
	double p = diff_pct(a, b);

	if (isinf(p))
		snprintf(buf, n, "new");
	else
		snprintf(buf, n, "%+.1f%%", p);
}

/* "1.1ms→1.4ms +27.0%" */
static void fmt_cell(char *buf, size_t n, const struct diff *d, const struct drow *r, int s,
		     const char *arrow)
{
	char a[32], b[32], p[32];

	fmt_val(a, sizeof(a), d, s, r->v[0][s]);
	fmt_val(b, sizeof(b), d, s, r->v[1][s]);
	fmt_pct(p, sizeof(p), r->v[0][s], r->v[1][s]);
	snprintf(buf, n, "%s%s%s %s", a, arrow, b, p);
}

/* "lost 2 (match_table_full 2), unmatched 1 (end_without_start 1)": the
 * counters that mean loss, then those of events without a partner by
 * nature where there are any (docs/json.md), the non-zero ones named.  A
 * count short of what happened is no change of the code measured. */
static void side_losses(FILE *f, const struct dmeas *m, void (*put)(FILE *, const char *))
{
	for (int u = 0; u < 2; u++) {
		uint64_t sum = u ? measurement_unmatched(&m->m) : measurement_lost(&m->m);
		int n = 0;

		if (u && !sum)
			break;
		fprintf(f, "%s %llu", u ? ", unmatched" : "lost", (unsigned long long)sum);
		for (int i = 0; i < m->m.ndrops; i++) {
			const struct m_drop *dr = &m->m.drops[i];
			char num[24];

			if (!dr->value || m_drop_unmatched(dr->name) != u)
				continue;
			fputs(n++ ? ", " : " (", f);
			put(f, dr->name);
			snprintf(num, sizeof(num), " %llu", (unsigned long long)dr->value);
			fputs(num, f);
		}
		if (n)
			fputc(')', f);
	}
}

static void put_plain(FILE *f, const char *s)
{
	fputs(s, f);
}

/* "--fail-on p50>+10%: FAILED by 1 group (nanosleep ok: p50 1.115ms ->
 * 1.409ms +26.4%)" or "...: passed"; in markdown a list, verdicts bold. */
static void write_rules(FILE *f, const struct diff *d, bool md)
{
	const char *mark = md ? "**" : "";

	for (int n = 0; n < d->nrules; n++) {
		const struct rule *u = &d->rules[n];
		char c[96];

		fprintf(f, "%s%s%s--fail-on %s: %s%s", n ? "" : "\n", md ? "- " : "", mark, u->text,
			u->failed ? "FAILED" : "passed", mark);
		if (u->failed) {
			const char *label = u->first->a->label[0] ? u->first->a->label : "(all)";

			fmt_cell(c, sizeof(c), d, u->first, u->stat, md ? " → " : " -> ");
			fprintf(f, " by %d group%s (", u->nbroke, u->nbroke > 1 ? "s" : "");
			if (md)
				md_text(f, label);
			else
				fputs(label, f);
			fprintf(f, ": %s %s%s)", stat_titles[u->stat], c,
				u->nbroke > 1 ? ", the largest" : "");
		}
		fputc('\n', f);
	}
}

static void write_head(FILE *f, const struct diff *d)
{
	for (int k = 0; k < 2; k++) {
		const struct dmeas *m = &d->m[k];

		fprintf(f, "%-4s %s: %s, %d group%s, %.3f s", k ? "NEW" : "BASE", m->path,
			m->command, m->n, m->n == 1 ? "" : "s", m->duration);
		if (m->intervals > 1)
			fprintf(f, " (%d intervals summed)", m->intervals);
		fputs(", ", f);
		side_losses(f, m, put_plain);
		fputc('\n', f);
	}
	fprintf(f, "Mann-Whitney U on the histograms, alpha %g, min change %g%%\n",
		d->alpha, d->min_change);
}

void diff_write_text(FILE *f, const struct diff *d)
{
	bool colour = isatty(fileno(f)) && !getenv("NO_COLOR") &&
		      !(getenv("TERM") && !strcmp(getenv("TERM"), "dumb"));
	int w = 5, cw[NR_STATS] = { 0 };
	char c[96];

	write_head(f, d);
	for (int i = 0; i < d->nrows; i++) {
		int l = strlen(d->rows[i].a->label);

		w = l > w ? l : w;
		/* each column as wide as its widest cell: the arrow is 3
		 * bytes and 1 column */
		for (int s = 0; s < NR_STATS; s++) {
			fmt_cell(c, sizeof(c), d, &d->rows[i], s, "→");
			if ((int)strlen(c) - 2 > cw[s])
				cw[s] = strlen(c) - 2;
		}
	}
	w = w > 40 ? 40 : w;
	fprintf(f, "\n%-*s  %-21s %-8s %-9s", w, "GROUP", "VERDICT", "P", "Z");
	for (int s = 0; s < NR_STATS; s++) {
		if ((int)strlen(stat_titles[s]) > cw[s])
			cw[s] = strlen(stat_titles[s]);
		if (diff_shown(d, s))
			fprintf(f, "  %-*s", cw[s], stat_titles[s]);
	}
	fputc('\n', f);
	for (int i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];
		const char *on = !colour || !r->verdict ? "" : r->verdict > 0 ? "\033[31m" :
			"\033[32m";

		fprintf(f, "%-*.*s  %s%-21s%s ", w, w, r->a->label[0] ? r->a->label : "(all)", on,
			verdict_name(r->verdict), on[0] ? "\033[0m" : "");
		if (r->tested)
			fprintf(f, "%-8.2g %-+9.2f", r->t.p, r->t.z);
		else
			fprintf(f, "%-8s %-9s", "-", "-");
		for (int s = 0; s < NR_STATS; s++) {
			if (!diff_shown(d, s))
				continue;
			fmt_cell(c, sizeof(c), d, r, s, "→");
			fprintf(f, "  %s%-*s%s", r->sig[s] && on[0] ? on : "", cw[s] + 2, c,
				r->sig[s] && on[0] ? "\033[0m" : "");
		}
		fputc('\n', f);
	}
	for (int k = 0; k < 2; k++) {
		if (!d->nonly[k])
			continue;
		fprintf(f, "\n%s (only in %s):\n", k ? "new" : "gone", k ? "NEW" : "BASE");
		for (int i = 0; i < d->nonly[k]; i++) {
			const struct dgroup *g = d->only[k][i];
			char m[32];

			fmt_val(m, sizeof(m), d, S_P50, diff_g_stat(g, S_P50));
			fprintf(f, "  %-*s  count %llu, p50 %s\n", w, g->label[0] ? g->label : "(all)",
				(unsigned long long)g->h.count, m);
		}
	}
	write_rules(f, d, false);
}

static void json_side(json_t *o, const char *name, const struct dmeas *m)
{
	json_t *side = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:f, s:i, s:i, s:I}",
		"file", m->path, "command", m->command, "kind", m->kind, "unit", m->unit,
		"kernel", m->kernel, "key", m->key, "by", m->by, "duration_s", m->duration,
		"intervals", m->intervals, "groups", m->n, "lost", (json_int_t)m->lost);
	json_object_set_new(side, "unmatched", json_integer((json_int_t)measurement_unmatched(&m->m)));
	json_t *drops = json_object();

	for (int i = 0; i < m->m.ndrops; i++)
		json_object_set_new(drops, m->m.drops[i].name,
				    json_integer((json_int_t)m->m.drops[i].value));
	json_object_set_new(side, "drops", drops);
	json_object_set_new(o, name, side);
}

/* A u64 as JSON: jansson's integers are signed, so a kernel address is a
 * real (a negative errno is its own signed integer). */
static json_t *json_u64(uint64_t x, bool is_signed)
{
	return is_signed || x <= INT64_MAX ? json_integer((json_int_t)x) : json_real((double)x);
}

static json_t *json_frames(const struct m_stack *s)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < s->nframes; i++) {
		const struct m_frame *f = &s->frames[i];
		json_t *o = json_pack("{s:s}", "name", f->name);

		if (f->module)
			json_object_set_new(o, "module", json_string(f->module));
		json_object_set_new(o, "addr", json_u64(f->addr, false));
		json_object_set_new(o, "offset", json_u64(f->offset, false));
		json_array_append_new(a, o);
	}
	return a;
}

/* A group's labels, and its values where labels name them (docs/json.md). */
static json_t *json_group_id(const struct dmeas *m, const struct dgroup *g)
{
	json_t *o = json_object(), *by = json_object(), *values = json_object();

	for (int i = 0; i < m->m.nby; i++) {
		const struct m_value *v = &g->mg->key[i];
		char buf[128];

		json_object_set_new(by, m->m.by[i], json_string(fmt_value(v, m->m.by_fmt[i], buf,
									 sizeof(buf))));
		if (v->type == MV_NAMED)
			json_object_set_new(values, m->m.by[i],
					    json_u64(v->named->num, m->m.by_fmt[i] == FMT_ERRNO));
		else if (v->type == MV_STACK)
			json_object_set_new(values, m->m.by[i], json_frames(v->stack));
	}
	json_object_set_new(o, "by", by);
	if (json_object_size(values))
		json_object_set_new(o, "values", values);
	else
		json_decref(values);
	return o;
}

int diff_write_json(FILE *f, const struct diff *d)
{
	json_t *root = json_object(), *rows = json_array(), *rules = json_array();
	int err;

	json_object_set_new(root, "schema", json_string("kdist.diff/1"));
	json_side(root, "base", &d->m[0]);
	json_side(root, "new", &d->m[1]);
	json_object_set_new(root, "test", json_string("mann-whitney-u"));
	json_object_set_new(root, "alpha", json_real(d->alpha));
	json_object_set_new(root, "min_change_pct", json_real(d->min_change));
	json_object_set_new(root, "count_per_second", json_boolean(d->rates));
	for (int i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];
		json_t *o = json_group_id(&d->m[0], r->a);

		json_object_set_new(o, "verdict", json_string(verdict_word(r->verdict)));
		if (r->tested)
			json_object_set_new(o, "test", json_pack("{s:f, s:f, s:f, s:f}", "u", r->t.u,
				"z", r->t.z, "p", r->t.p, "auc", r->t.auc));
		else
			json_object_set_new(o, "test", json_null());
		for (int s = 0; s < NR_STATS; s++) {
			double a = r->v[0][s], b = r->v[1][s], p = diff_pct(a, b);

			if (!diff_shown(d, s))
				continue;
			json_object_set_new(o, stat_names[s], json_pack("{s:f, s:f, s:f, s:o, s:b}",
				"base", a, "new", b, "change", b - a,
				"change_pct", isinf(p) ? json_null() : json_real(p),
				"significant", r->sig[s]));
		}
		json_object_set_new(o, "count_test", json_pack("{s:f, s:f}", "z", r->count_z,
			"p", r->count_p));
		json_array_append_new(rows, o);
	}
	json_object_set_new(root, "groups", rows);
	for (int k = 0; k < 2; k++) {
		json_t *only = json_array();

		for (int i = 0; i < d->nonly[k]; i++) {
			const struct dgroup *g = d->only[k][i];
			json_t *o = json_group_id(&d->m[k], g);

			json_object_set_new(o, "count", json_integer(g->h.count));
			json_object_set_new(o, "p50", json_real(diff_g_stat(g, S_P50)));
			json_array_append_new(only, o);
		}
		json_object_set_new(root, k ? "new_groups" : "gone_groups", only);
	}
	for (int n = 0; n < d->nrules; n++)
		json_array_append_new(rules, json_pack("{s:s, s:b}", "rule", d->rules[n].text,
						       "failed", d->rules[n].failed));
	json_object_set_new(root, "fail_on", rules);
	json_object_set_new(root, "failed", json_boolean(d->failed));
	err = json_dumpf(root, f, JSON_COMPACT | JSON_REAL_PRECISION(10) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(root);
	return err ? -EIO : 0;
}

/* The page of the comparison: its JSON, drawn by html.c's page. */
int diff_write_html(FILE *f, const struct diff *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *j = open_memstream(&buf, &len);
	int err;

	if (!j)
		return -ENOMEM;
	err = diff_write_json(j, d);
	if (fclose(j) && !err)
		err = -ENOMEM;
	if (!err)
		err = html_write(f, "the comparison", buf, len);
	free(buf);
	return err;
}

void diff_write_csv(FILE *f, const struct diff *d)
{
	fputs("group,verdict,p,z", f);
	for (int s = 0; s < NR_STATS; s++) {
		if (diff_shown(d, s))
			fprintf(f, ",%s_base,%s_new,%s_change_pct,%s_significant", stat_names[s],
				stat_names[s], stat_names[s], stat_names[s]);
	}
	fputc('\n', f);
	for (int i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];

		csv_field(f, r->a->label);
		fprintf(f, ",%s,", verdict_word(r->verdict));
		if (r->tested)
			fprintf(f, "%.6g,%.4f", r->t.p, r->t.z);
		else
			fputc(',', f);
		for (int s = 0; s < NR_STATS; s++) {
			double p = diff_pct(r->v[0][s], r->v[1][s]);

			if (!diff_shown(d, s))
				continue;
			fprintf(f, ",%.10g,%.10g,", r->v[0][s], r->v[1][s]);
			if (!isinf(p))
				fprintf(f, "%.2f", p);
			fprintf(f, ",%d", r->sig[s]);
		}
		fputc('\n', f);
	}
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < d->nonly[k]; i++) {
			const struct dgroup *g = d->only[k][i];

			csv_field(f, g->label);
			fprintf(f, ",%s,,", k ? "new" : "gone");
			for (int s = 0; s < NR_STATS; s++) {
				double v = s == S_COUNT ? g->h.count : s == S_TOTAL ? g->total :
					   s == S_SELF ? g->self : diff_g_stat(g, s);

				if (!diff_shown(d, s))
					continue;
				fprintf(f, k ? ",,%.10g,,0" : ",%.10g,,,0", v);
			}
			fputc('\n', f);
		}
	}
	/* rows are groups: losses on stderr, as the measurement's CSV says them */
	for (int k = 0; k < 2; k++) {
		if (!d->m[k].lost)
			continue;
		fprintf(stderr, "kdist: %s ", k ? "NEW" : "BASE");
		side_losses(stderr, &d->m[k], put_plain);
		fputc('\n', stderr);
	}
}

void diff_write_markdown(FILE *f, const struct diff *d)
{
	fputs("| group | verdict | p |", f);
	for (int s = 0; s < NR_STATS; s++) {
		if (diff_shown(d, s))
			fprintf(f, " %s |", stat_titles[s]);
	}
	fputs("\n|---|---|---|", f);
	for (int s = 0; s < NR_STATS; s++) {
		if (diff_shown(d, s))
			fputs("---|", f);
	}
	fputc('\n', f);
	for (int i = 0; i < d->nrows; i++) {
		const struct drow *r = &d->rows[i];

		fputs("| ", f);
		md_text(f, r->a->label[0] ? r->a->label : "(all)");
		fprintf(f, " | %s%s%s |", r->verdict ? "**" : "", verdict_name(r->verdict),
			r->verdict ? "**" : "");
		if (r->tested)
			fprintf(f, " %.2g |", r->t.p);
		else
			fputs(" - |", f);
		for (int s = 0; s < NR_STATS; s++) {
			char c[96];

			if (!diff_shown(d, s))
				continue;
			fmt_cell(c, sizeof(c), d, r, s, " → ");
			fprintf(f, " %s%s%s |", r->sig[s] ? "**" : "", c, r->sig[s] ? "**" : "");
		}
		fputc('\n', f);
	}
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < d->nonly[k]; i++) {
			const struct dgroup *g = d->only[k][i];

			fputs("| ", f);
			md_text(f, g->label[0] ? g->label : "(all)");
			fprintf(f, " | %s | | count %llu |", k ? "new" : "gone",
				(unsigned long long)g->h.count);
			for (int s = 1; s < NR_STATS; s++) {
				if (diff_shown(d, s))
					fputs(" |", f);
			}
			fputc('\n', f);
		}
	}
	fprintf(f, "\nMann-Whitney U on the histograms, alpha %g, min change %g%%; BASE %s, NEW %s.\n",
		d->alpha, d->min_change, d->m[0].path, d->m[1].path);
	for (int k = 0; k < 2; k++) {
		fprintf(f, "%s%s ", k ? "; " : "Loss counters: ", k ? "NEW" : "BASE");
		side_losses(f, &d->m[k], md_text);
	}
	fputs(".\n", f);
	write_rules(f, d, true);
}


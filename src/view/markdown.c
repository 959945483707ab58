// SPDX-License-Identifier: GPL-2.0
/* The markdown view: see markdown.h. */
#include "view/markdown.h"
#include "view/format.h"

#include <string.h>

void md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else {
			if (strchr("|\\`*_[]", *s))
				fputc('\\', f);
			fputc(*s, f);
		}
	}
}

static void cell(FILE *f, const struct measurement *m, double v)
{
	char buf[32];

	if (m->kind == M_VALUE && m->value_unit && !strcmp(m->value_unit, "bytes"))
		fmt_bytes(buf, sizeof(buf), v);
	else if (m->kind == M_VALUE)
		snprintf(buf, sizeof(buf), "%.6g", v);
	else
		fmt_time(buf, sizeof(buf), v);
	fprintf(f, " %s |", buf);
}

static void losses(FILE *f, const struct measurement *m)
{
	for (int u = 0; u < 2; u++) {
		int n = 0;

		fprintf(f, "%s %llu", u ? "; unmatched" : "\nLost", (unsigned long long)(u ?
			measurement_unmatched(m) : measurement_lost(m)));
		for (int i = 0; i < m->ndrops; i++) {
			if (m_drop_unmatched(m->drops[i].name) != u || !m->drops[i].value)
				continue;
			fputs(n++ ? ", " : " (", f);
			md_text(f, m->drops[i].name);
			fprintf(f, " %llu", (unsigned long long)m->drops[i].value);
		}
		fputs(n ? ")" : "", f);
	}
	fputs(".\n", f);
}

void markdown_write(FILE *f, const struct measurement *m, const struct m_group **v, int n)
{
	static const char *const q[] = { "p50", "p90", "p99", "p99.9" };
	static const double qv[] = { 0.5, 0.9, 0.99, 0.999 };

	fputs("**", f);
	md_text(f, m->title);
	if (m->interval)
		fprintf(f, "**, interval %d, %.3f s\n\n|", m->interval, m->duration_s);
	else
		fprintf(f, "**, %.3f s\n\n|", m->duration_s);
	for (int i = 0; i < m->nby; i++) {
		fputc(' ', f);
		md_text(f, m->by[i]);
		fputs(" |", f);
	}
	fputs(" count |", f);
	if (!m->counts) {
		fputs(" mean | min |", f);
		for (size_t i = 0; i < 4; i++)
			fprintf(f, " %s |", q[i]);
		fputs(" max |", f);
	}
	fputs("\n|", f);
	for (int i = 0; i < m->nby + (m->counts ? 1 : 8); i++)
		fputs("---|", f);
	fputc('\n', f);
	for (int g = 0; g < n; g++) {
		struct hist h;

		m_hist_get(&v[g]->h, &h);
		fputc('|', f);
		for (int i = 0; i < m->nby; i++) {
			char buf[128];

			fputc(' ', f);
			md_text(f, fmt_value(&v[g]->key[i], m->by_fmt[i], buf, sizeof(buf)));
			fputs(" |", f);
		}
		fprintf(f, " %llu |", (unsigned long long)h.count);
		if (!m->counts) {
			cell(f, m, hist_mean(&h));
			cell(f, m, h.min);
			for (size_t i = 0; i < 4; i++)
				cell(f, m, hist_quantile(&h, qv[i]));
			cell(f, m, h.max);
		}
		fputc('\n', f);
	}
	if (n < m->ngroups)
		fprintf(f, "\n%d more groups not shown.\n", m->ngroups - n);
	losses(f, m);
}

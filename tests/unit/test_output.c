// SPDX-License-Identifier: GPL-2.0
/* Every view of a measurement against golden files; JSON also through a
 * JSON parser.  KDIST_UPDATE_GOLDEN=1 rewrites the golden files. */
#include "check.h"
#include "model/measure.h"
#include "lib/util.h"
#include "view/view.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN "tests/unit/golden"

static struct m_value text(const char *s)
{
	return mv_text(m_intern(s, strlen(s)));
}

static void add_group(struct measurement *m, const char *comm, uint64_t base, int n)
{
	struct m_group *g = measurement_group(m, (struct m_value[]){ text(comm) });
	struct hist h = { 0 };

	for (int i = 0; i < n; i++)
		hist_add(&h, base + (uint64_t)i * base / n);
	m_hist_set(&g->h, &h);
	g->self_ns = g->h.sum / 2;
	g->total_ns = g->h.sum;
}

static void add_value(struct m_hist *mh, uint64_t v)
{
	struct hist h = { 0 };

	hist_add(&h, v);
	m_hist_add(mh, &h);
}

static void sample(struct measurement *m, enum m_kind kind)
{
	memset(m, 0, sizeof(*m));
	m->command = kind == M_FUNC ? "func" : "pair";
	m->kind = kind;
	snprintf(m->title, sizeof(m->title), "a:start -> a:end, matched by tid");
	m->nevents = 2;
	strcpy(m->events[0].role, "start");
	strcpy(m->events[0].spec, "a:start");
	strcpy(m->events[0].attach, "raw_tracepoint");
	strcpy(m->events[1].role, "end");
	strcpy(m->events[1].spec, "a:end");
	strcpy(m->events[1].attach, "tracepoint");
	strcpy(m->key, "tid");
	m->nby = 1;
	strcpy(m->by[0], kind == M_FUNC ? "function" : "comm");
	add_group(m, "bash", 1000, 100);		/* 1-2 us */
	add_group(m, "sleeper \"q\",x", 10000000, 50);	/* 10-20 ms */
	measurement_add_drop(m, "end_without_start", 3);
	measurement_add_drop(m, "map_full", 0);
	m->duration_s = 2.5;
	m->start_unix = 1700000000.25;
}

/* The kernel release is the only thing that differs between machines. */
static void normalize(char *s)
{
	char *k = strstr(s, "\"kernel\":\"");

	if (k) {
		char *e = strchr(k + 10, '"');

		memmove(k + 10, e, strlen(e) + 1);
	}
}

static void golden(const char *name, enum out_format fmt, enum m_kind kind)
{
	struct measurement m;
	struct view_opts v = { .format = fmt };
	char path[256], *got = NULL, *want = NULL;
	size_t len;
	FILE *f = open_memstream(&got, &len);

	sample(&m, kind);
	measurement_write(f, &m, &v);
	measurement_write_end(f, &v);
	fclose(f);
	normalize(got);
	snprintf(path, sizeof(path), "%s/%s", GOLDEN, name);
	if (getenv("KDIST_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		fputs(got, f);
		fclose(f);
	}
	if (read_file(path, &want, NULL))
		check(name, 0, "cannot read %s", path);
	else
		check(name, !strcmp(got, want), "differs from %s:\n%s", path, got);
	if (fmt == OUT_JSON) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));"
			 "assert d[\"schema\"]==\"kdist.measurement/1\" and len(d[\"groups\"])==2;"
			 "assert sum(b[2] for b in d[\"groups\"][0][\"buckets\"])==d[\"groups\"][0][\"count\"]' %s",
			 path);
		check("json parses", system(cmd) == 0, NULL);
	}
	free(got);
	free(want);
	measurement_clear(&m);
}

static void test_diff(void)
{
	struct measurement a, b, d;

	sample(&a, M_LATENCY);
	sample(&b, M_LATENCY);
	/* b has more in "bash" and a drop more */
	add_value(&measurement_group(&b, (struct m_value[]){ text("bash") })->h, 1234);
	measurement_add_drop(&b, "end_without_start", 2);
	measurement_diff(&d, &b, &a);
	check("diff keeps changed groups only", d.ngroups == 1 && d.groups[0].h.count == 1 &&
	      d.groups[0].key[0].text == text("bash").text, NULL);
	/* an interval's extremes are known to bucket precision */
	check("diff min/max", d.groups[0].h.min == hist_bucket_low(hist_index(1234)) &&
	      d.groups[0].h.max == hist_bucket_high(hist_index(1234)), "%llu",
	      (unsigned long long)d.groups[0].h.min);
	check("diff of drops", d.ndrops == 2 && d.drops[0].value == 2 && d.drops[1].value == 0,
	      NULL);
	measurement_clear(&a);
	measurement_clear(&b);
	measurement_clear(&d);
}

static char *write_to_string(const struct measurement *m, enum out_format fmt)
{
	struct view_opts vo = { .format = fmt };
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	measurement_write(f, m, &vo);
	measurement_write_end(f, &vo);
	fclose(f);
	return s;
}

/* kdist's own cost: the text line only with -v; JSON always, null (never
 * 0) where the kernel refused the statistics; intervals are differences. */
static void test_cost(void)
{
	struct measurement a, b, d;
	char *t, *j;

	sample(&a, M_LATENCY);
	a.duration_s = 14;
	a.cost = (struct m_cost){ .programs = 2, .runs = 1500000, .run_ns = 126000000, .sampled = 0.05,
				 .map_bytes = 3 << 20 };
	t = write_to_string(&a, OUT_TEXT);
	check("cost line only with -v", t && !strstr(t, "cost:"), "%s", t);
	free(t);
	kd_verbose_level = 1;
	t = write_to_string(&a, OUT_TEXT);
	check("cost line", t && strstr(t, "\ncost: 1.5M program runs, 84 ns each, "
				       "0.9% of one CPU over 14 s; maps 3.0 MB\n"), "%s", t);
	free(t);
	a.duration_s = 0.122;
	t = write_to_string(&a, OUT_TEXT);
	check("cost share over 10% in plain digits", t && strstr(t, ", 84 ns each, 103% of one CPU "
				       "over 0.122 s;"), "%s", t);
	free(t);
	a.duration_s = 14;
	j = write_to_string(&a, OUT_JSON);
	check("cost in JSON", j && strstr(j, "\"cost\":{\"programs\":2,\"map_bytes\":3145728,\"runs\":1500000,"
				       "\"run_ns\":126000000,\"ns_per_run\":84,"
				       "\"cpu_share\":0.009,\"sampled\":0.050}"), "%s", j);
	free(j);
	a.cost.err = EINVAL;
	t = write_to_string(&a, OUT_TEXT);
	check("unknown cost said", t && strstr(t, "\ncost: unknown: the kernel refused BPF run-time "
				       "statistics (Invalid argument)\n"), "%s", t);
	free(t);
	j = write_to_string(&a, OUT_JSON);
	check("unknown cost is null", j && strstr(j, "\"runs\":null,\"run_ns\":null") &&
	      strstr(j, "\"unknown\":\"Invalid argument\""), "%s", j);
	free(j);
	kd_verbose_level = 0;
	sample(&b, M_LATENCY);
	a.cost.err = 0;
	b.cost = a.cost;
	b.cost.runs += 10;
	b.cost.run_ns += 1000;
	measurement_diff(&d, &b, &a);
	check("cost of an interval", d.cost.programs == 2 && d.cost.runs == 10 &&
	      d.cost.run_ns == 1000, "%llu runs", (unsigned long long)d.cost.runs);
	measurement_clear(&a);
	measurement_clear(&b);
	measurement_clear(&d);
}

/* Names enter the measurement escaped (m_intern), and CSV cells that a
 * spreadsheet would run as a formula start with a quote. */
static void test_names(void)
{
	static const struct { const char *in, *csv; } cells[] = {
		{ "=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\"" },
		{ "+1+1", "\"'+1+1\"" }, { "-x", "\"'-x\"" }, { "@SUM(A1)", "\"'@SUM(A1)\"" },
		{ "\tx", "\"'\tx\"" }, { "-5", "-5" }, { "+2.5", "+2.5" }, { "a=b", "a=b" },
		{ "a,b", "\"a,b\"" }, { "-", "-" },
	};
	const char *t = m_intern("\x1b]0;t\x07\xff\\", 8);
	char buf[128];

	check("interned name escaped", t && !strcmp(t, "\\x1b]0;t\\x07\\xff\\\\"), "%s", t);
	check("escaped name interned once", t == m_intern("\x1b]0;t\x07\xff\\", 8), NULL);
	check("safe name as it is", !strcmp(m_intern("sh", 2), "sh"), NULL);
	for (size_t i = 0; i < ARRAY_SIZE(cells); i++) {
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		csv_field(f, cells[i].in);
		fclose(f);
		check("csv cell", !strcmp(buf, cells[i].csv), "'%s' gave '%s', expected '%s'",
		      cells[i].in, buf, cells[i].csv);
	}
}

static char *write_view(const struct measurement *m, struct view_opts *vo)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	measurement_write(f, m, vo);
	fclose(f);
	return s;
}

/* One measurement in a view of its own: what the view kept is freed. */
static char *write_once(const struct measurement *m, struct view_opts vo)
{
	char *s = write_view(m, &vo);

	measurement_write_end(stdout, &vo);
	return s;
}

static int count_lines(const char *s, const char *prefix)
{
	int n = 0;

	for (const char *l = s; l && *l; l = strchr(l, '\n') + 1) {
		n += !strncmp(l, prefix, strlen(prefix));
		if (!strchr(l, '\n'))
			break;
	}
	return n;
}

/* 25 groups, group k (1..25) with k events of k us: sorted by total time,
 * the first ten are k = 25..16, holding 205 of the 325 events and 4285 of
 * the 5525 us (sum of k squared); the 15 others 36.9% and 22.4%. */
static void many_groups(struct measurement *m, int ngroups)
{
	sample(m, M_LATENCY);
	measurement_clear(m);
	for (int k = 1; k <= ngroups; k++) {
		char name[16];
		struct m_group *g;

		snprintf(name, sizeof(name), "g%02d", k);
		g = measurement_group(m, (struct m_value[]){ text(name) });
		for (int i = 0; i < k; i++)
			add_value(&g->h, k * 1000ULL);
	}
}

/* Counts without keys: one line "count N", nothing before it (a label
 * buffer that was never written once printed stack bytes here). */
static void test_counts_without_keys(void)
{
	struct measurement m;
	char *s;

	sample(&m, M_VALUE);
	measurement_clear(&m);
	m.counts = true;
	m.nby = 0;
	for (int i = 0; i < 7; i++)
		add_value(&measurement_group(&m, NULL)->h, 1);
	s = write_once(&m, (struct view_opts){ .format = OUT_TEXT });
	check("counts: 'count 7' alone on its line", s && strstr(s, "\ncount 7\n"), "%s",
	      s ? s : "(nothing)");
	free(s);
	measurement_clear(&m);
}

static void test_top(void)
{
	static const char more[] = "(15 more groups, 36.9% of the events and 22.4% of the time: "
				   "--top N shows N, --all every group, --hist their histograms)\n";
	struct measurement m, few;
	struct view_opts table = { .format = OUT_TEXT }, all = { .format = OUT_TEXT, .all = true },
			 top = { .format = OUT_TEXT, .top = 3 }, json = { .format = OUT_JSON },
			 hist = { .format = OUT_TEXT, .hist = true };
	char *s;

	many_groups(&m, 25);
	s = write_view(&m, &table);
	check("text: a table of ten rows", s && strstr(s, "COMM ") && count_lines(s, "g") == 10 &&
	      !strstr(s, "distribution"), "%s", s ? s : "(nothing)");
	check("text: the heaviest first", s && strstr(s, "\ng25 "), "%s", s ? s : "(nothing)");
	check("text: what the rest holds", s && strstr(s, more), "%s", s ? s : "(nothing)");
	free(s);
	/* with -i the table stays when an interval has few groups */
	many_groups(&few, 3);
	s = write_view(&few, &table);
	check("text: a table for the rest of the run", s && count_lines(s, "g") == 3 &&
	      !strstr(s, "distribution") && !strstr(s, "more group"), "%s", s ? s : "(nothing)");
	free(s);
	s = write_once(&few, (struct view_opts){ .format = OUT_TEXT });
	check("text: histograms for few groups", s && count_lines(s, "comm = g") == 3, "%s", s ? s : "(nothing)");
	free(s);
	measurement_clear(&few);
	s = write_view(&m, &all);
	check("--all: every histogram", s && count_lines(s, "comm = g") == 25 &&
	      !strstr(s, "more group"), "%s", s ? s : "(nothing)");
	free(s);
	s = write_view(&m, &top);
	check("--top 3: three histograms", s && count_lines(s, "comm = g") == 3 &&
	      strstr(s, "(22 more groups, 77.8% of the events and 68.7% of the time: --top N shows N, --all every group)\n"),
	      "%s", s ? s : "(nothing)");
	free(s);
	s = write_view(&m, &hist);
	check("--hist: ten histograms", s && count_lines(s, "comm = g") == 10 && strstr(s, "(15 more"),
	      "%s", s ? s : "(nothing)");
	free(s);
	s = write_view(&m, &json);
	check("json: every group", s && strstr(s, "\"groups_total\":25") && strstr(s, "\"g01\""),
	      "%s", s ? s : "(nothing)");
	free(s);
	measurement_clear(&m);
	/* views of one run each, as -i makes: what they kept, freed */
	measurement_write_end(stdout, &table);
	measurement_write_end(stdout, &all);
	measurement_write_end(stdout, &top);
	measurement_write_end(stdout, &hist);
	measurement_write_end(stdout, &json);
}

int main(void)
{
	golden("measure.txt", OUT_TEXT, M_LATENCY);
	golden("measure.json", OUT_JSON, M_LATENCY);
	golden("measure.csv", OUT_CSV, M_LATENCY);
	golden("func.txt", OUT_TEXT, M_FUNC);
	golden("func.csv", OUT_CSV, M_FUNC);
	golden("measure.folded", OUT_FOLDED, M_LATENCY);
	test_diff();
	test_cost();
	test_names();
	test_top();
	test_counts_without_keys();
	return check_done();
}

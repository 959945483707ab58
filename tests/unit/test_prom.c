// SPDX-License-Identifier: GPL-2.0
/* The Prometheus view: cumulative buckets exact at the log2 bounds and by
 * midpoint elsewhere, seconds written exactly, labels escaped and named
 * validly, loss counters, OpenMetrics names, --buckets parsing. */
#include "check.h"
#include "lib/pb.h"
#include "model/measure.h"
#include "view/prom.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *render(const struct measurement *m, const struct prom_buckets *b, bool om)
{
	struct prom_source s = { .name = "t", .m = m, .b = b, .max_groups = 8 };
	char *buf = NULL;
	size_t len = 0;
	struct prom_out o = { .fmt = om ? PROM_OPENMETRICS : PROM_TEXT,
			      .f = open_memstream(&buf, &len) };

	prom_write(&o, &s, 1);
	prom_end(&o);
	fclose(o.f);
	return buf;
}

static void test_latency(void)
{
	struct measurement m = { .kind = M_LATENCY, .nby = 2, .title = "a\\b" };
	struct prom_buckets log2 = { .log2 = true }, mine;
	struct m_value key[2] = { mv_text(m_intern("x\"y\n", 4)), mv_num(7) };
	struct hist h = { 0 };
	char *out;

	strcpy(m.by[0], "comm");
	strcpy(m.by[1], "le:hex");
	m.by_fmt[1] = FMT_HEX;
	/* 1000 ns x3, 1023 ns (the top of a log2 row), 1024 ns, 5 ms */
	hist_add(&h, 1000), hist_add(&h, 1000), hist_add(&h, 1000);
	hist_add(&h, 1023), hist_add(&h, 1024), hist_add(&h, 5000000);
	m_hist_set(&measurement_group(&m, key)->h, &h);
	measurement_add_drop(&m, "end_without_start", 3);
	out = render(&m, &log2, false);
	check("log2 bound 2^10-1 ns holds 1023 ns, not 1024",
	      strstr(out, "kdist_t_seconds_bucket{comm=\"x\\\"y\\\\x0a\",k_le=\"0x7\",le=\"0.000001023\"} 4\n") &&
	      strstr(out, ",le=\"0.000002047\"} 5\n"), "%s", out);
	check("+Inf, sum and count",
	      strstr(out, "le=\"+Inf\"} 6\n") &&
	      strstr(out, "kdist_t_seconds_sum{comm=\"x\\\"y\\\\x0a\",k_le=\"0x7\"} 0.005005047\n") &&
	      strstr(out, "kdist_t_seconds_count{comm=\"x\\\"y\\\\x0a\",k_le=\"0x7\"} 6\n"), "%s", out);
	check("help escaped, loss counter, groups",
	      strstr(out, "# HELP kdist_t_seconds a\\\\b\n") &&
	      strstr(out, "# TYPE kdist_lost_events_total counter\n") &&
	      strstr(out, "kdist_lost_events_total{measurement=\"t\",reason=\"end_without_start\"} 3\n") &&
	      strstr(out, "kdist_groups{measurement=\"t\"} 1\n"), "%s", out);
	free(out);
	out = render(&m, &log2, true);
	check("OpenMetrics: counter family without _total, unit",
	      strstr(out, "# TYPE kdist_lost_events counter\n") &&
	      strstr(out, "# UNIT kdist_t_seconds seconds\n"), "%s", out);
	free(out);
	/* the exemplar: on the first bucket that holds 5 ms, in OpenMetrics
	 * alone, its comm escaped as any label value */
	m.groups[0].exemplar = (struct m_exemplar){ .value = 5000000, .unix_s = 1700000000.25,
						    .pid = 42, .tid = 43, .comm = "a\"b" };
	out = render(&m, &log2, true);
	check("OpenMetrics: the exemplar on the bucket that holds it",
	      strstr(out, ",le=\"0.008388607\"} 6 # {comm=\"a\\\"b\",pid=\"42\",tid=\"43\"} "
			  "0.005 1700000000.250\n") &&
	      !strstr(out, ",le=\"0.004194303\"} 5 #"), "%s", out);
	free(out);
	out = render(&m, &log2, false);
	check("text format 0.0.4: no exemplar", !strstr(out, " # {"), "%s", out);
	free(out);
	/* 0.000001: inside the fine bucket [960, 1023] of 1000 ns; its
	 * midpoint 991.5 ns is below, so the three 1000s and 1023 count */
	check("--buckets parsed", !prom_buckets_parse("0.000001,0.004", &mine, "--buckets") &&
	      mine.n == 2, NULL);
	out = render(&m, &mine, false);
	check("a bound inside a fine bucket counts it by its midpoint",
	      strstr(out, ",le=\"0.000001\"} 4\n") && strstr(out, ",le=\"0.004\"} 5\n"), "%s", out);
	free(out);
	check("--buckets refuses descending, zero, words",
	      prom_buckets_parse("1,0.5", &mine, "t") && prom_buckets_parse("0", &mine, "t") &&
	      prom_buckets_parse("x", &mine, "t") && prom_buckets_parse("", &mine, "t"), NULL);
	measurement_clear(&m);
}

static void test_value_and_empty(void)
{
	struct measurement m = { .kind = M_VALUE, .value_unit = "bytes" };
	struct prom_buckets log2 = { .log2 = true };
	char *out = render(&m, &log2, false);

	check("a measurement without groups: zero series, so rate() has a start",
	      strstr(out, "kdist_t_bytes_bucket{le=\"0\"} 0\n") &&
	      strstr(out, "kdist_t_bytes_bucket{le=\"1099511627775\"} 0\n") &&
	      strstr(out, "kdist_t_bytes_count 0\n"), "%s", out);
	free(out);
}

/* Whether s is valid UTF-8 with no control character but line ends. */
static bool utf8_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
			(*p & 0xf8) == 0xf0 ? 4 : 0;

		if (!n || (*p < 0x20 && *p != '\n') || *p == 0x7f)
			return false;
		for (int i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return false;
		p += n;
	}
	return true;
}

/* The names a process may give itself come out as text Prometheus takes,
 * and read back (exposition unescape, then text_unescape) to their bytes. */
static void test_hostile_names(void)
{
	static const char *const names[] = {
		"\xff" "bad", "\x1b]0;owned\x07", "two\nlines", "q\"q", "back\\slash", "h\xc3\xa9llo",
		"\xc0\xaf", "\x9b" "31m",
	};
	static const char *const want[] = {
		"\\\\xffbad", "\\\\x1b]0;owned\\\\x07", "two\\\\x0alines", "q\\\"q", "back\\\\\\\\slash",
		"h\xc3\xa9llo", "\\\\xc0\\\\xaf", "\\\\x9b31m",
	};
	struct measurement m = { .kind = M_VALUE, .counts = true, .nby = 1 };
	struct prom_buckets log2 = { .log2 = true };
	struct hist h = { 0 };
	char *out, line[256];
	int ok = 0;

	strcpy(m.by[0], "comm");
	hist_add(&h, 1);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct m_value k = mv_text(m_intern(names[i], strlen(names[i])));

		m_hist_set(&measurement_group(&m, &k)->h, &h);
	}
	out = render(&m, &log2, false);
	check("every label value is UTF-8 text", utf8_text(out), "%s", out);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *at, val[128];
		size_t n = 0;

		snprintf(line, sizeof(line), "kdist_t_events_total{comm=\"%s\"} 1\n", want[i]);
		at = strstr(out, line);
		if (!check("label value escaped", at != NULL, "%s not in %s", line, out))
			continue;
		/* back: the exposition's \\ and \", then text_unescape */
		for (at += strlen("kdist_t_events_total{comm=\""); *at != '"' || at[-1] == '\\'; at++)
			if (*at != '\\' || (at[1] != '\\' && at[1] != '"') || (at++, 1))
				val[n++] = *at;
		val[n] = '\0';
		ok += text_unescape(val) == (long)strlen(names[i]) && !strcmp(val, names[i]);
	}
	check("every name reads back to its bytes", ok == (int)ARRAY_SIZE(names), "%d of %zu", ok,
	      ARRAY_SIZE(names));
	free(out);
	measurement_clear(&m);
}

/* The wire format, byte for byte: the examples of the protobuf encoding
 * guide (field 1 = 150 is 08 96 01), zigzag, and a nested message whose
 * length needs two bytes. */
static void test_pb(void)
{
	struct pb p = { 0 };
	char big[200];
	bool ok;

	pb_varint(&p, 1, 150);
	pb_sint(&p, 2, -1);
	pb_sint(&p, 2, 1);
	pb_string(&p, 3, "hi");
	pb_double(&p, 4, 1.0);
	ok = p.len == 20 && !memcmp(p.buf, "\x08\x96\x01\x10\x01\x10\x02\x1a\x02hi"
				    "\x21\x00\x00\x00\x00\x00\x00\xf0\x3f", 20);
	check("varint, zigzag, string, double", ok, "%zu bytes", p.len);
	pb_free(&p);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	pb_begin(&p, PB_DELIMITED);
	pb_begin(&p, 4);
	pb_string(&p, 1, big);	/* 0a c7 01 + 199 bytes = 202 */
	pb_end(&p);
	pb_varint(&p, 5, 1);
	pb_end(&p);
	/* 206 = ce 01: 22 ca 01 (202) + 28 01 = 3 + 202 + 2 = 207 = cf 01 */
	ok = p.len == 2 + 207 && !memcmp(p.buf, "\xcf\x01\x22\xca\x01\x0a\xc7\x01xx", 10) &&
	     !memcmp(p.buf + p.len - 3, "x\x28\x01", 3);
	check("nested messages, lengths over 127 moved up", ok && !p.oom, "%zu bytes", p.len);
	pb_free(&p);
}

/* Each of kdist's buckets goes to the native bucket of its midpoint: for
 * every bucket from 1 ns to 2^40 ns, a value anywhere in it lies within
 * the 11% (prom.h) of both ends of the native bucket it is counted in. */
static void test_native(void)
{
	double worst = 0;
	unsigned int at = 0, n = 0;

	for (unsigned int i = 1; i < HIST_BUCKETS && hist_bucket_low(i) < (1ULL << 40); i++) {
		struct hist h = { 0 };
		int32_t idx[2];
		uint64_t count[2], zero;
		/* the values it holds: integers lo..hi */
		double lo = hist_bucket_low(i), hi = hist_bucket_high(i), a, b, e;

		h.slots[i] = 3;
		if (prom_native(&h, true, &zero, idx, count, 2) != 1 || count[0] != 3 || zero)
			break;
		a = exp2((idx[0] - 1) / 16.0) * 1e9;
		b = exp2(idx[0] / 16.0) * 1e9;
		e = fmax(b / lo, hi / a);
		if (e > worst)
			worst = e, at = i;
		n++;
	}
	check("native buckets: every kdist bucket within 11% of its native bucket",
	      n > 300 && worst <= 1.11, "%u buckets, worst %.4f at bucket %u", n, worst, at);
	{
		struct hist h = { 0 };
		int32_t idx[4];
		uint64_t count[4], zero;
		int k;

		hist_add(&h, 0), hist_add(&h, 0);
		hist_add(&h, 1000), hist_add(&h, 1001), hist_add(&h, 5000000);
		k = prom_native(&h, true, &zero, idx, count, 4);
		/* 1000 ns is in [960, 1023], of midpoint 991.5 ns = 2^-19.944 s:
		 * bucket ceil(-19.944 * 16) = -319 */
		check("native: zeros apart, neighbours merged, ascending",
		      k == 2 && zero == 2 && idx[0] == -319 && count[0] == 2 && count[1] == 1 &&
		      idx[1] == (int32_t)ceil(log2(0.005) * 16), "%d buckets, first %d", k, idx[0]);
	}
}

/* An info family: _info in text (a gauge), info in OpenMetrics. */
static void test_info(void)
{
	struct prom_label l = { "version", "1" };
	char *buf = NULL;
	size_t len = 0;
	struct prom_out o = { .fmt = PROM_TEXT, .f = open_memstream(&buf, &len) };

	prom_family(&o, "k_build", "info", "h", NULL);
	prom_sample(&o, &l, 1, 1);
	prom_end(&o);
	fclose(o.f);
	check("info in text: a gauge named _info, its sample too",
	      strstr(buf, "# TYPE k_build_info gauge\nk_build_info{version=\"1\"} 1\n") != NULL,
	      "%s", buf);
	free(buf);
}

int main(void)
{
	test_info();
	test_pb();
	test_native();
	test_latency();
	test_hostile_names();
	test_value_and_empty();
	return check_done();
}

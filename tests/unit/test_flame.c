// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of src/view/flame.c.  Build and run from the repository root:
 *
 *   gcc -std=gnu11 -Wall -O2 -Isrc tests/unit/test_flame.c src/view/flame.c src/lib/util.c -lm -o build/test_flame
 *   build/test_flame
 *
 * The golden file is looked up next to this source (tests/unit/golden/).
 * The SVG well-formedness check runs xmllint (Debian: libxml2-utils) and is
 * skipped when that is not installed.
 */
#include "view/flame.h"

#include <errno.h>
#include "check.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/test_flame.XXXXXX";

/* Add one stack given as "a;b;c" (no frame may contain ';'). */
static int add(struct flame *fl, const char *path, uint64_t value)
{
	const char *frames[64];
	char buf[512], *p;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	frames[n++] = buf;
	for (p = buf; *p; p++) {
		if (*p == ';') {
			*p = '\0';
			frames[n++] = p + 1;
		}
	}
	return flame_add(fl, frames, n, value);
}

/* The small tree of golden/flame_small.folded. */
static struct flame *small_tree(void)
{
	struct flame *fl = flame_new();

	if (!fl)
		return NULL;
	if (add(fl, "main;run;work", 30) || add(fl, "main;run;work", 10) ||
	    add(fl, "main;run", 5) || add(fl, "main;init", 15) ||
	    add(fl, "main;run;io_[k];schedule_[k]", 8) || add(fl, "idle", 2)) {
		flame_free(fl);
		return NULL;
	}
	return fl;
}

static char *folded(const struct flame *fl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (flame_write_folded(fl, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

static char *svg(const struct flame *fl, const struct flame_svg_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (flame_write_svg(fl, f, o)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r"), *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	if (!m) {
		fclose(f);
		return NULL;
	}
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	return buf;
}

static int count(const char *s, const char *needle)
{
	int n = 0;

	while (s && (s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/* <rect>s inside <g id="frames">: one per drawn frame. */
static int frame_rects(const char *svgtext)
{
	const char *g = strstr(svgtext, "<g id=\"frames\">");
	const char *end = g ? strstr(g, "</g>\n</g>") : NULL;
	int n = 0;

	if (!g)
		return -1;
	for (g = strstr(g, "<rect"); g && (!end || g < end);
	     g = strstr(g + 1, "<rect"))
		n++;
	return n;
}

/* A numeric attribute of the <rect> following the frame titled "name (". */
static double rect_attr(const char *svgtext, const char *name, const char *attr)
{
	char key[256];
	const char *p;

	snprintf(key, sizeof(key), "<title>%s (", name);
	p = strstr(svgtext, key);
	if (!p || !(p = strstr(p, "<rect ")))
		return -1;
	snprintf(key, sizeof(key), " %s=\"", attr);
	p = strstr(p, key);
	return p ? strtod(p + strlen(key), NULL) : -1;
}

static int have_xmllint(void)
{
	return system("command -v xmllint >/dev/null 2>&1") == 0;
}

/* 1 well-formed, 0 not, -1 could not check. */
static int xml_ok(const char *text, const char *fname)
{
	char path[256], cmd[512];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, fname);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	if (fclose(f))
		return -1;
	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s'", path);
	rc = system(cmd);
	return rc == 0;
}

static void test_merge(void)
{
	struct flame *fl = flame_new();
	const char *ab[] = { "a", "b" };
	char *out;
	int ok;

	ok = fl && !flame_add(fl, ab, 2, 3) && !flame_add(fl, ab, 2, 4) &&
	     !flame_add(fl, ab, 1, 5);
	check("merge_identical_paths", ok && flame_node_count(fl) == 2 &&
	      flame_total(fl) == 12, "nodes %zu total %llu",
	      flame_node_count(fl), (unsigned long long)flame_total(fl));
	out = folded(fl);
	check("merge_folded", out && !strcmp(out, "a 5\na;b 7\n"),
	      "got '%s'", out ? out : "(null)");
	free(out);

	check("add_rejects_empty", flame_add(fl, ab, 0, 1) == -EINVAL, NULL);
	check("add_zero_is_noop", !flame_add(fl, ab, 2, 0) &&
	      flame_total(fl) == 12, NULL);
	check("add_overflow", flame_add(fl, ab, 2, UINT64_MAX) == -EOVERFLOW &&
	      flame_total(fl) == 12, NULL);
	flame_free(fl);
}

static void test_golden(void)
{
	char path[512], *want, *got;
	struct flame *fl = small_tree();
	const char *src = __FILE__, *slash = strrchr(src, '/');

	snprintf(path, sizeof(path), "%.*sgolden/flame_small.folded",
		 slash ? (int)(slash - src + 1) : 0, src);
	want = slurp(path);
	got = fl ? folded(fl) : NULL;
	if (!want)
		check("folded_golden", 0, "cannot read %s", path);
	else
		check("folded_golden", got && !strcmp(got, want),
		      "got:\n%s", got ? got : "(null)");
	check("small_total", fl && flame_total(fl) == 70, NULL);
	free(want);
	free(got);
	flame_free(fl);
}

static void test_sanitize(void)
{
	struct flame *fl = flame_new();
	const char *a[] = { "x;y\nz", "p q" };
	const char *b[] = { "x:y z", "p q" };
	char *out;

	/* ';' folds to ':'; a newline is a name's byte, kept escaped */
	check("sanitize_merges", fl && !flame_add(fl, a, 2, 1) &&
	      !flame_add(fl, b, 2, 2) && flame_node_count(fl) == 4, NULL);
	out = folded(fl);
	check("sanitize_folded", out && !strcmp(out, "x:y z;p q 2\nx:y\\x0az;p q 1\n"),
	      "got '%s'", out ? out : "(null)");
	free(out);
	flame_free(fl);
}

/* Empty frames keep their place: ";a" is two levels deep, not "a". */
static void test_empty_frames(void)
{
	struct flame *fl = flame_new();
	char *out;

	check("empty_frames_add", fl && !add(fl, ";a", 5) && !add(fl, "a", 1) &&
	      !add(fl, ";", 2) && flame_node_count(fl) == 4, NULL);
	out = folded(fl);
	check("empty_frames_folded", out && !strcmp(out, "; 2\n;a 5\na 1\n"),
	      "got '%s'", out ? out : "(null)");
	free(out);
	flame_free(fl);
}

static void test_roundtrip(void)
{
	struct flame *fl = small_tree(), *back = flame_new();
	char *one = NULL, *two = NULL;
	FILE *f;
	int ok;

	ok = fl && back && !add(fl, "with space;tail  ", 11) &&
	     !add(fl, "a;;b", 4);
	one = ok ? folded(fl) : NULL;
	f = one ? fmemopen(one, strlen(one), "r") : NULL;
	ok = f && !flame_parse_folded(back, f);
	if (f)
		fclose(f);
	two = ok ? folded(back) : NULL;
	check("folded_roundtrip", one && two && !strcmp(one, two),
	      "first:\n%ssecond:\n%s", one ? one : "", two ? two : "");
	check("roundtrip_totals", ok && flame_total(fl) == flame_total(back) &&
	      flame_node_count(fl) == flame_node_count(back), NULL);
	free(one);
	free(two);
	flame_free(fl);
	flame_free(back);

	/* CRLF and blank lines parse; malformed lines do not. */
	static const struct {
		const char *text;
		int err;
	} cases[] = {
		{ "a;b 3\r\n\n  \na 2\n", 0 },
		{ "a;b\n", -EINVAL },
		{ "a;b x\n", -EINVAL },
		{ "a;b 1.5\n", -EINVAL },
		{ " 3\n", -EINVAL },
		{ "a 99999999999999999999\n", -ERANGE },
	};
	char name[64];

	fprintf(stderr, "(the parse errors below are expected)\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct flame *p = flame_new();
		char *t = strdup(cases[i].text);
		FILE *m = fmemopen(t, strlen(t), "r");
		int err = m ? flame_parse_folded(p, m) : -ENOMEM;

		if (m)
			fclose(m);
		snprintf(name, sizeof(name), "parse_case_%zu", i);
		check(name, err == cases[i].err && (err || flame_total(p) == 5),
		      "err %d", err);
		free(t);
		flame_free(p);
	}
}

static void test_svg_escape(void)
{
	struct flame *fl = flame_new();
	const char *weird[] = { "a<b>&\"c'", "bad\xff\x01utf8 \xc3\xa9t\xc3\xa9" };
	struct flame_svg_opts o = {
		.title = "T & <title>", .subtitle = "kdist -x 'a' \"b\"",
		.unit = "us",
	};
	char *s;
	int ok;

	ok = fl && !flame_add(fl, weird, 2, 5) && !add(fl, "plain", 5);
	s = ok ? svg(fl, &o) : NULL;
	check("svg_written", s != NULL, NULL);
	check("svg_escaped_name", s && strstr(s, "<title>a&lt;b&gt;&amp;&quot;c&apos; (5 us, 50.00%)</title>"),
	      NULL);
	check("svg_escaped_title", s && strstr(s, "T &amp; &lt;title&gt;") &&
	      strstr(s, "kdist -x &apos;a&apos; &quot;b&quot;"), NULL);
	if (!s || !have_xmllint()) {
		skip("svg_xmllint_escape", s ? "xmllint not installed" : "no svg");
	} else {
		int r = xml_ok(s, "escape.svg");

		check("svg_xmllint_escape", r == 1, "xmllint rc %d", r);
	}
	free(s);
	flame_free(fl);

	/* An empty graph is still a valid document. */
	fl = flame_new();
	s = fl ? svg(fl, NULL) : NULL;
	if (!s || !have_xmllint())
		skip("svg_xmllint_empty", s ? "xmllint not installed" : "no svg");
	else
		check("svg_xmllint_empty", xml_ok(s, "empty.svg") == 1, NULL);
	check("svg_empty_no_frames", s && frame_rects(s) == 0, NULL);
	free(s);
	flame_free(fl);
}

static void test_svg_layout(void)
{
	struct flame *fl = small_tree();
	struct flame_svg_opts o = { .unit = "us" };
	double w, x, y_all, y_main;
	char *s;
	int n;

	s = fl ? svg(fl, &o) : NULL;
	n = s ? frame_rects(s) : -1;
	/* 7 frames plus the "all" base. */
	check("svg_rect_per_frame", n == (int)flame_node_count(fl) + 1 &&
	      count(s, "<g class=\"f\"") == n, "%d rects", n);
	check("svg_has_script", s && count(s, "<script") == 1 &&
	      strstr(s, "Reset Zoom") && strstr(s, "Search") &&
	      strstr(s, "Matched: "), NULL);
	check("svg_tooltip", s && strstr(s, "<title>work (40 us, 57.14%)</title>"),
	      NULL);

	/* 1200 px wide, 10 px margins: 40 of 70 is 674.29 px. */
	w = s ? rect_attr(s, "work", "width") : -1;
	check("svg_width_proportional", w > 0 && w - 674.2857 < 0.5 &&
	      674.2857 - w < 0.5, "work width %.3f", w);
	w = s ? rect_attr(s, "all", "width") : -1;
	x = s ? rect_attr(s, "all", "x") : -1;
	check("svg_all_full_width", w > 1179.5 && w < 1180.5 && x == 10,
	      "all x %.2f width %.2f", x, w);
	y_all = s ? rect_attr(s, "all", "y") : -1;
	y_main = s ? rect_attr(s, "main", "y") : -1;
	check("svg_root_at_bottom", y_all > y_main && y_main > 0, NULL);
	if (s && have_xmllint())
		check("svg_xmllint_small", xml_ok(s, "small.svg") == 1, NULL);
	else
		skip("svg_xmllint_small", "xmllint not installed");
	free(s);

	o.icicle = true;
	s = fl ? svg(fl, &o) : NULL;
	y_all = s ? rect_attr(s, "all", "y") : -1;
	y_main = s ? rect_attr(s, "main", "y") : -1;
	check("svg_icicle_root_at_top", s && y_all < y_main && y_all > 0 &&
	      strstr(s, ">Icicle Graph<"), NULL);
	free(s);

	/* The same input renders byte for byte the same. */
	{
		char *a = svg(fl, NULL), *b = svg(fl, NULL);

		check("svg_deterministic", a && b && !strcmp(a, b), NULL);
		free(a);
		free(b);
	}
	flame_free(fl);
}

static void test_svg_min_width(void)
{
	struct flame *fl = flame_new();
	char *s;
	int n;

	/* 1 of 1000001 is ~0.001 px: left out with its child. */
	if (!fl || add(fl, "big;x", 1000000) || add(fl, "tiny;deeper", 1)) {
		check("svg_min_width", 0, "setup");
		flame_free(fl);
		return;
	}
	s = svg(fl, NULL);
	n = s ? frame_rects(s) : -1;
	check("svg_min_width_omits", n == 3 && !strstr(s, "tiny") &&
	      !strstr(s, "deeper"), "%d rects", n);
	check("svg_min_width_total_kept", s &&
	      strstr(s, "<title>all (1000001 samples, 100.00%)</title>") &&
	      strstr(s, "total: 1000001,"), NULL);
	free(s);

	/* Long names are cut to fit with "..". */
	flame_free(fl);
	fl = flame_new();
	if (fl && !add(fl, "a_rather_long_function_name_that_cannot_fit", 20) &&
	    !add(fl, "z", 80)) {
		/* 236 px: (236 - 6) / (12 * 0.59) = 32 characters. */
		s = svg(fl, NULL);
		check("svg_label_truncated", s &&
		      strstr(s, ">a_rather_long_function_name_th..</text>") &&
		      strstr(s, "<title>a_rather_long_function_name_that_cannot_fit ("),
		      NULL);
		free(s);
	} else {
		check("svg_label_truncated", 0, "setup");
	}
	flame_free(fl);
}

static void test_top(void)
{
	static const char want[] =
		"#1  40 us  57.14%\n"
		"    work\n    run\n    main\n"
		"\n#2  15 us  21.43%\n"
		"    init\n    main\n"
		"\n#3  8 us  11.43%\n"
		"    schedule_[k]\n    io_[k]\n    run\n    main\n";
	struct flame *fl = small_tree();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err = (fl && f) ? flame_write_top(fl, f, 3, "us") : -1;

	if (f)
		fclose(f);
	check("top_n_order", !err && buf && !strcmp(buf, want), "got:\n%s",
	      buf ? buf : "(null)");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	err = (fl && f) ? flame_write_top(fl, f, 0, NULL) : -1;
	if (f)
		fclose(f);
	check("top_all", !err && count(buf, "#") == 5 &&
	      strstr(buf, "#5  2  2.86%\n    idle\n"), "got:\n%s",
	      buf ? buf : "(null)");
	free(buf);
	flame_free(fl);
}

int main(void)
{
	char cmd[64];

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	test_merge();
	test_golden();
	test_sanitize();
	test_empty_frames();
	test_roundtrip();
	test_svg_escape();
	test_svg_layout();
	test_svg_min_width();
	test_top();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", tmpdir);
	return check_done();
}

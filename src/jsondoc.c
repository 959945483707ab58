// SPDX-License-Identifier: GPL-2.0
/* JSON documents read back: see jsondoc.h. */
#include "jsondoc.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int json_docs_parse(const char *name, const char *text, size_t len, size_t flags,
		    json_doc_fn fn, void *ctx)
{
	size_t at = 0;
	int err = 0, seen = 0;

	while (!err) {
		json_error_t je;
		json_t *doc;

		while (at < len && strchr(" \t\r\n", text[at]))
			at++;
		if (at >= len)
			break;
		doc = json_loadb(text + at, len - at, JSON_DISABLE_EOF_CHECK | flags, &je);
		if (!doc) {
			int line = je.line;

			for (size_t i = 0; i < at; i++)
				line += text[i] == '\n';
			kd_err("bad measurement %s: line %d: %s", name, line, je.text);
			return -EINVAL;
		}
		seen++;
		err = fn(ctx, doc, text + at, je.position);
		at += je.position;
		json_decref(doc);
	}
	if (!err && !seen) {
		kd_err("bad measurement %s: empty", name);
		err = -EINVAL;
	}
	return err;
}

int doc_read(const char *path, char **text, size_t *len)
{
	int err = read_input(path, DOC_INPUT_MAX, text, len);

	if (err)
		kd_err("failed to read %s: %s", path, read_input_strerror(err, DOC_INPUT_MAX));
	return err;
}

char *doc_text(const char *s)
{
	size_t len = strlen(s), need;
	char *raw, *out;
	long n;

	if (text_is_safe(s, len))
		return strdup(s);
	raw = strdup(s);
	if (!raw)
		return NULL;
	n = text_unescape(raw);
	if (n < 0) {
		/* not an escaped form: its own bytes (unescaping stopped half-way) */
		memcpy(raw, s, len + 1);
		n = len;
	}
	need = text_escape(NULL, 0, raw, n) + 1;
	out = malloc(need);
	if (out)
		text_escape(out, need, raw, n);
	free(raw);
	return out;
}

/* ---- what a document must hold before anything is concluded from it ---- */

#define SCHEMA_MEASUREMENT "kdist.measurement/1"
#define SCHEMA_DIFF "kdist.diff/1"

/* The first inconsistency, said once: "bad measurement NAME: WHERE: WHAT". */
static int bad(const char *name, long group, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(const char *name, long group, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (group > 0)
		kd_err("bad measurement %s: group %ld: %s", name, group, what);
	else
		kd_err("bad measurement %s: %s", name, what);
	return -EINVAL;
}

/* A number read either way jansson gives it (JSON_DECODE_INT_AS_REAL). */
static bool num_of(json_t *v, double *x)
{
	if (!json_is_number(v))
		return false;
	*x = json_number_value(v);
	return isfinite(*x);
}

/* A non-negative integer (counts, bounds, sums of integer values). */
static bool count_of(json_t *v, double *x)
{
	return num_of(v, x) && *x >= 0 && *x == floor(*x);
}

static bool strings_of(json_t *o)
{
	const char *k;
	json_t *v;

	if (!json_is_object(o))
		return false;
	json_object_foreach(o, k, v)
		if (!json_is_string(v))
			return false;
	return true;
}

static int check_buckets(const char *name, long gi, json_t *g, double count)
{
	json_t *buckets = json_object_get(g, "buckets"), *b;
	double sum = 0, prev = -1, lo, hi, n;
	size_t i;

	if (!json_is_array(buckets))
		return bad(name, gi, "no buckets array");
	json_array_foreach(buckets, i, b) {
		if (!json_is_array(b) || json_array_size(b) != 3 ||
		    !count_of(json_array_get(b, 0), &lo) || !count_of(json_array_get(b, 1), &hi) ||
		    !count_of(json_array_get(b, 2), &n))
			return bad(name, gi, "bucket %zu is not [low, high, count] of non-negative integers",
				   i + 1);
		/* beyond 2^53, doubles of adjacent bounds may be equal */
		if (hi < lo || lo < prev || (lo == prev && lo < 0x1p53))
			return bad(name, gi, "bucket %zu [%.0f, %.0f] is not above the one before",
				   i + 1, lo, hi);
		prev = hi;
		sum += n;
	}
	if (sum != count)
		return bad(name, gi, "count %.0f is not the sum of its buckets (%.0f)", count, sum);
	return 0;
}

static int check_group(const char *name, json_t *doc, long gi, json_t *g)
{
	static const char *const stats[] = { "mean", "stddev", "p50", "p90", "p99", "p999" };
	json_t *labels = json_object_get(g, "by"), *v, *by = json_object_get(doc, "by");
	double count, x, min, max;
	size_t i;

	if (!json_is_object(g))
		return bad(name, gi, "not an object");
	if (!strings_of(labels))
		return bad(name, gi, "\"by\" is not an object of labels");
	json_array_foreach(by, i, v)
		if (!json_object_get(labels, json_string_value(v)))
			return bad(name, gi, "no label for '%s'", json_string_value(v));
	if ((v = json_object_get(g, "values")) && !json_is_object(v))
		return bad(name, gi, "\"values\" is not an object");
	if (!count_of(json_object_get(g, "count"), &count))
		return bad(name, gi, "count is not a non-negative integer");
	if (!num_of(json_object_get(g, "sum"), &x) || x < 0)
		return bad(name, gi, "sum is not a non-negative number");
	if (count && (!num_of(json_object_get(g, "min"), &min) ||
		      !num_of(json_object_get(g, "max"), &max) || min < 0 || min > max))
		return bad(name, gi, "min and max are not 0 <= min <= max");
	for (i = 0; i < ARRAY_SIZE(stats); i++) {
		v = json_object_get(g, stats[i]);
		if (v && !json_is_null(v) && !num_of(v, &x))
			return bad(name, gi, "%s is not a number", stats[i]);
	}
	for (i = 0; i < 2; i++) {
		v = json_object_get(g, i ? "self" : "total");
		if (v && (!num_of(v, &x) || x < 0))
			return bad(name, gi, "%s is not a non-negative number", i ? "self" : "total");
	}
	return check_buckets(name, gi, g, count);
}

static int check_measurement(const char *name, json_t *doc)
{
	static const char *const texts[] = { "command", "kind", "unit" };
	json_t *by = json_object_get(doc, "by"), *groups = json_object_get(doc, "groups"), *v;
	double x;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(texts); i++)
		if (!json_is_string(json_object_get(doc, texts[i])))
			return bad(name, 0, "\"%s\" is not a string", texts[i]);
	if (!num_of(json_object_get(doc, "duration_s"), &x) || x < 0)
		return bad(name, 0, "duration_s is not a non-negative number");
	if ((v = json_object_get(doc, "interval")) && !count_of(v, &x))
		return bad(name, 0, "interval is not a non-negative integer");
	if (!json_is_array(by))
		return bad(name, 0, "\"by\" is not an array");
	json_array_foreach(by, i, v)
		if (!json_is_string(v))
			return bad(name, 0, "\"by\" name %zu is not a string", i + 1);
	if (!json_is_array(groups))
		return bad(name, 0, "\"groups\" is not an array");
	json_array_foreach(groups, i, v) {
		int err = check_group(name, doc, (long)i + 1, v);

		if (err)
			return err;
	}
	return 0;
}

/* What report's page reads of a comparison. */
static int check_diff(const char *name, json_t *doc)
{
	static const char *const stats[] = { "count", "total", "self", "mean", "p50", "p90",
					     "p99", "p999" };
	static const char *const sides[] = { "base", "new" };
	json_t *groups = json_object_get(doc, "groups"), *g, *first, *v;
	double x;
	size_t i, s;

	for (s = 0; s < 2; s++) {
		v = json_object_get(doc, sides[s]);
		if (!json_is_object(v) || !num_of(json_object_get(v, "duration_s"), &x) ||
		    !count_of(json_object_get(v, "groups"), &x) ||
		    !json_is_string(json_object_get(v, "command")))
			return bad(name, 0, "\"%s\" is not a measurement's summary", sides[s]);
	}
	if (!num_of(json_object_get(doc, "alpha"), &x) ||
	    !num_of(json_object_get(doc, "min_change_pct"), &x))
		return bad(name, 0, "no alpha or min_change_pct");
	if (!json_is_array(groups))
		return bad(name, 0, "\"groups\" is not an array");
	first = json_array_get(groups, 0);
	json_array_foreach(groups, i, g) {
		long gi = (long)i + 1;

		if (!json_is_object(g) || !strings_of(json_object_get(g, "by")) ||
		    !json_is_string(json_object_get(g, "verdict")))
			return bad(name, gi, "no \"by\" labels or verdict");
		v = json_object_get(g, "test");
		if (!json_is_null(v) && (!json_is_object(v) ||
		    !num_of(json_object_get(v, "p"), &x) || !num_of(json_object_get(v, "z"), &x)))
			return bad(name, gi, "test is neither null nor {p, z}");
		/* every group compares the statistics the first one does */
		for (s = 0; s < ARRAY_SIZE(stats); s++) {
			json_t *c = json_object_get(g, stats[s]), *pct;

			if (!json_object_get(first, stats[s]) != !c)
				return bad(name, gi, "%s: not the statistics of group 1", stats[s]);
			if (!c)
				continue;
			pct = json_object_get(c, "change_pct");
			if (!num_of(json_object_get(c, "base"), &x) ||
			    !num_of(json_object_get(c, "new"), &x) ||
			    !(json_is_null(pct) || num_of(pct, &x)))
				return bad(name, gi, "%s is not {base, new, change_pct}", stats[s]);
		}
	}
	for (s = 0; s < 2; s++) {
		v = json_object_get(doc, s ? "new_groups" : "gone_groups");
		if (v && !json_is_array(v))
			return bad(name, 0, "%s is not an array", s ? "new_groups" : "gone_groups");
		json_array_foreach(v, i, g) {
			if (!json_is_object(g) || !strings_of(json_object_get(g, "by")) ||
			    !count_of(json_object_get(g, "count"), &x) ||
			    !num_of(json_object_get(g, "p50"), &x))
				return bad(name, 0, "%s %zu is not {by, count, p50}",
					   s ? "new_groups" : "gone_groups", i + 1);
		}
	}
	return 0;
}

int doc_check(const char *name, json_t *doc, bool diff_too, bool *is_diff)
{
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	bool diff = schema && !strcmp(schema, SCHEMA_DIFF);

	if (is_diff)
		*is_diff = diff;
	if (!json_is_object(doc) || !schema || (strcmp(schema, SCHEMA_MEASUREMENT) && !diff) ||
	    (diff && !diff_too)) {
		kd_err("bad measurement %s: not a %s%s document (kdist ... -o json%s)", name,
		       SCHEMA_MEASUREMENT, diff_too ? " or " SCHEMA_DIFF : "",
		       diff_too ? ", or kdist diff -o json" : "");
		return -EINVAL;
	}
	return diff ? check_diff(name, doc) : check_measurement(name, doc);
}

// SPDX-License-Identifier: GPL-2.0
/* JSON documents read back: see jsondoc.h. */
#include "lib/jsondoc.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t skip_space(const char *text, size_t len, size_t at)
{
	while (at < len && strchr(" \t\r\n", text[at]))
		at++;
	return at;
}

/* The end of the array or object at text[at] (a bracket), or 0 when it does
 * not end: its members are parsed later, one at a time. */
static size_t skip_nested(const char *text, size_t len, size_t at)
{
	int depth = 0;

	for (; at < len; at++) {
		char c = text[at];

		if (c == '"') {
			for (at++; at < len && text[at] != '"'; at++)
				at += text[at] == '\\';
			continue;
		}
		depth += (c == '[' || c == '{') - (c == ']' || c == '}');
		if (!depth)
			return at + 1;
	}
	return 0;
}

struct reader {
	const char *name, *text;
	size_t len, flags;
};

static int syntax(const struct reader *r, size_t at, const char *what)
{
	char msg[256];
	int line = 1;

	for (size_t i = 0; i < at && i < r->len; i++)
		line += r->text[i] == '\n';
	/* jansson quotes the bytes it stopped at: the file's, not controls */
	text_escape(msg, sizeof(msg), what, strlen(what));
	kd_err("bad measurement %s: line %d: %s", r->name, line, msg);
	return -EINVAL;
}

/* One value at *at, parsed by jansson; *at moves past it. */
static json_t *value_at(const struct reader *r, size_t *at)
{
	json_error_t je;
	json_t *v = json_loadb(r->text + *at, r->len - *at,
			       JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY | r->flags, &je);

	if (!v) {
		syntax(r, *at + (je.position > 0 ? je.position - 1 : 0), je.text);
		return NULL;
	}
	*at += je.position;
	return v;
}

/* The document's members but its groups into doc ("groups" an empty array
 * in their place), the groups array's start in *groups (0: none). */
static int read_head(const struct reader *r, size_t *at, json_t *doc, size_t *groups)
{
	size_t p = skip_space(r->text, r->len, *at + 1);

	*groups = 0;
	if (p < r->len && r->text[p] == '}') {
		*at = p + 1;
		return 0;
	}
	for (;;) {
		json_t *key, *v;
		size_t end;

		p = skip_space(r->text, r->len, p);
		if (p >= r->len || r->text[p] != '"')
			return syntax(r, p, "expected a member name");
		key = value_at(r, &p);
		if (!key)
			return -EINVAL;
		p = skip_space(r->text, r->len, p);
		if (p >= r->len || r->text[p] != ':') {
			json_decref(key);
			return syntax(r, p, "expected ':'");
		}
		p = skip_space(r->text, r->len, p + 1);
		if (!strcmp(json_string_value(key), "groups") && p < r->len && r->text[p] == '[') {
			end = skip_nested(r->text, r->len, p);
			if (!end || *groups) {
				json_decref(key);
				return syntax(r, p, end ? "groups twice" : "groups do not end");
			}
			*groups = p;
			p = end;
			v = json_array();
		} else if (!(v = value_at(r, &p))) {
			json_decref(key);
			return -EINVAL;
		}
		json_object_set_new(doc, json_string_value(key), v);
		json_decref(key);
		p = skip_space(r->text, r->len, p);
		if (p < r->len && r->text[p] == ',') {
			p++;
			continue;
		}
		if (p < r->len && r->text[p] == '}') {
			*at = p + 1;
			return 0;
		}
		return syntax(r, p, "expected ',' or '}'");
	}
}

/* Each group of the array at text[at], one parsed at a time. */
static int read_groups(const struct reader *r, size_t at, json_t *doc, json_group_fn gfn,
		       void *ctx)
{
	size_t p = skip_space(r->text, r->len, at + 1), i = 0;

	if (p < r->len && r->text[p] == ']')
		return 0;
	for (;; i++) {
		json_t *g;
		int err;

		p = skip_space(r->text, r->len, p);
		if (!(g = value_at(r, &p)))
			return -EINVAL;
		err = gfn(ctx, doc, g, i);
		json_decref(g);
		if (err)
			return err;
		p = skip_space(r->text, r->len, p);
		if (p < r->len && r->text[p] == ',') {
			p++;
			continue;
		}
		if (p < r->len && r->text[p] == ']')
			return 0;
		return syntax(r, p, "expected ',' or ']'");
	}
}

int json_docs_parse(const char *name, const char *text, size_t len, size_t flags,
		    json_doc_fn fn, json_group_fn gfn, void *ctx)
{
	struct reader r = { name, text, len, flags };
	/* a byte order mark, as some editors save UTF-8, is no content */
	size_t at = len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3) ? 3 : 0;
	int err = 0, seen = 0;

	while (!err) {
		size_t start, groups;
		json_t *doc;

		at = skip_space(text, len, at);
		if (at >= len)
			break;
		start = at;
		if (text[at] != '{')
			return syntax(&r, at, "expected a JSON object");
		doc = json_object();
		if (!doc)
			return -ENOMEM;
		err = read_head(&r, &at, doc, &groups);
		seen++;
		if (!err)
			err = fn(ctx, doc, text + start, at - start);
		/* fn > 0: skip this document's groups */
		if (err > 0)
			err = 0;
		else if (!err && groups)
			err = read_groups(&r, groups, doc, gfn, ctx);
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

int jsondoc_bad(const char *name, long group, const char *fmt, ...)
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

/* A non-negative integer a u64 holds (counts, bounds, sums of values). */
static bool count_of(json_t *v, double *x)
{
	return num_of(v, x) && *x >= 0 && *x == floor(*x) && *x < 0x1p64;
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
		return jsondoc_bad(name, gi, "no buckets array");
	json_array_foreach(buckets, i, b) {
		if (!json_is_array(b) || json_array_size(b) != 3 ||
		    !count_of(json_array_get(b, 0), &lo) || !count_of(json_array_get(b, 1), &hi) ||
		    !count_of(json_array_get(b, 2), &n))
			return jsondoc_bad(name, gi, "bucket %zu is not [low, high, count] of non-negative integers",
				   i + 1);
		/* beyond 2^53, doubles of adjacent bounds may be equal */
		if (hi < lo || lo < prev || (lo == prev && lo < 0x1p53))
			return jsondoc_bad(name, gi, "bucket %zu [%.0f, %.0f] is not above the one before",
				   i + 1, lo, hi);
		prev = hi;
		sum += n;
	}
	if (sum != count)
		return jsondoc_bad(name, gi, "count %.0f is not the sum of its buckets (%.0f)", count, sum);
	return 0;
}

static int check_group(const char *name, json_t *doc, long gi, json_t *g)
{
	static const char *const stats[] = { "mean", "stddev", "p50", "p90", "p99", "p999" };
	json_t *labels = json_object_get(g, "by"), *v, *by = json_object_get(doc, "by");
	double count, x, min, max;
	size_t i;

	if (!json_is_object(g))
		return jsondoc_bad(name, gi, "not an object");
	if (!strings_of(labels))
		return jsondoc_bad(name, gi, "\"by\" is not an object of labels");
	json_array_foreach(by, i, v)
		if (!json_object_get(labels, json_string_value(v)))
			return jsondoc_bad(name, gi, "no label for '%s'", json_string_value(v));
	if ((v = json_object_get(g, "values")) && !json_is_object(v))
		return jsondoc_bad(name, gi, "\"values\" is not an object");
	if (!count_of(json_object_get(g, "count"), &count))
		return jsondoc_bad(name, gi, "count is not a non-negative integer");
	if (!num_of(json_object_get(g, "sum"), &x) || x < 0 || x >= 0x1p64)
		return jsondoc_bad(name, gi, "sum is not a non-negative number below 2^64");
	if (count && (!num_of(json_object_get(g, "min"), &min) ||
		      !num_of(json_object_get(g, "max"), &max) || min < 0 || min > max))
		return jsondoc_bad(name, gi, "min and max are not 0 <= min <= max");
	for (i = 0; i < ARRAY_SIZE(stats); i++) {
		v = json_object_get(g, stats[i]);
		if (v && !json_is_null(v) && !num_of(v, &x))
			return jsondoc_bad(name, gi, "%s is not a number", stats[i]);
	}
	for (i = 0; i < 2; i++) {
		v = json_object_get(g, i ? "self" : "total");
		if (v && (!num_of(v, &x) || x < 0))
			return jsondoc_bad(name, gi, "%s is not a non-negative number", i ? "self" : "total");
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
			return jsondoc_bad(name, 0, "\"%s\" is not a string", texts[i]);
	if (!num_of(json_object_get(doc, "duration_s"), &x) || x < 0)
		return jsondoc_bad(name, 0, "duration_s is not a non-negative number");
	if ((v = json_object_get(doc, "interval")) && !count_of(v, &x))
		return jsondoc_bad(name, 0, "interval is not a non-negative integer");
	if (!json_is_array(by))
		return jsondoc_bad(name, 0, "\"by\" is not an array");
	json_array_foreach(by, i, v)
		if (!json_is_string(v))
			return jsondoc_bad(name, 0, "\"by\" name %zu is not a string", i + 1);
	if (!json_is_array(groups))
		return jsondoc_bad(name, 0, "\"groups\" is not an array");
	return 0;
}

/* A group of a comparison: the statistics report's page reads, every one
 * in each group (total and self for func alone). */
static int check_diff_group(const char *name, json_t *doc, long gi, json_t *g)
{
	static const char *const stats[] = { "count", "total", "self", "mean", "p50", "p90",
					     "p99", "p999" };
	bool func = !strcmp(json_string_value(json_object_get(json_object_get(doc, "base"),
								"kind")) ?: "", "func");
	json_t *v;
	double x;

	if (!json_is_object(g) || !strings_of(json_object_get(g, "by")) ||
	    !json_is_string(json_object_get(g, "verdict")))
		return jsondoc_bad(name, gi, "no \"by\" labels or verdict");
	v = json_object_get(g, "test");
	if (!json_is_null(v) && (!json_is_object(v) ||
	    !num_of(json_object_get(v, "p"), &x) || !num_of(json_object_get(v, "z"), &x)))
		return jsondoc_bad(name, gi, "test is neither null nor {p, z}");
	for (size_t s = 0; s < ARRAY_SIZE(stats); s++) {
		json_t *c = json_object_get(g, stats[s]), *pct;
		bool want = func || (s != 1 && s != 2);

		if (want != !!c)
			return jsondoc_bad(name, gi, "%s: %s", stats[s], want ? "missing" : "only for func");
		if (!c)
			continue;
		pct = json_object_get(c, "change_pct");
		if (!num_of(json_object_get(c, "base"), &x) || !num_of(json_object_get(c, "new"), &x) ||
		    !(json_is_null(pct) || num_of(pct, &x)))
			return jsondoc_bad(name, gi, "%s is not {base, new, change_pct}", stats[s]);
	}
	return 0;
}

/* What report's page reads of a comparison. */
static int check_diff(const char *name, json_t *doc)
{
	static const char *const sides[] = { "base", "new" };
	json_t *groups = json_object_get(doc, "groups"), *g, *v;
	double x;
	size_t i, s;

	for (s = 0; s < 2; s++) {
		v = json_object_get(doc, sides[s]);
		if (!json_is_object(v) || !num_of(json_object_get(v, "duration_s"), &x) ||
		    !count_of(json_object_get(v, "groups"), &x) ||
		    !json_is_string(json_object_get(v, "command")))
			return jsondoc_bad(name, 0, "\"%s\" is not a measurement's summary", sides[s]);
	}
	if (!num_of(json_object_get(doc, "alpha"), &x) ||
	    !num_of(json_object_get(doc, "min_change_pct"), &x))
		return jsondoc_bad(name, 0, "no alpha or min_change_pct");
	if (!json_is_array(groups))
		return jsondoc_bad(name, 0, "\"groups\" is not an array");
	for (s = 0; s < 2; s++) {
		v = json_object_get(doc, s ? "new_groups" : "gone_groups");
		if (v && !json_is_array(v))
			return jsondoc_bad(name, 0, "%s is not an array", s ? "new_groups" : "gone_groups");
		json_array_foreach(v, i, g) {
			if (!json_is_object(g) || !strings_of(json_object_get(g, "by")) ||
			    !count_of(json_object_get(g, "count"), &x) ||
			    !num_of(json_object_get(g, "p50"), &x))
				return jsondoc_bad(name, 0, "%s %zu is not {by, count, p50}",
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

int doc_check_group(const char *name, json_t *doc, json_t *g, size_t index)
{
	const char *schema = json_string_value(json_object_get(doc, "schema"));

	if (schema && !strcmp(schema, SCHEMA_DIFF))
		return check_diff_group(name, doc, (long)index + 1, g);
	return check_group(name, doc, (long)index + 1, g);
}

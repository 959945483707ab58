// SPDX-License-Identifier: GPL-2.0
/* Saved measurements read back into the model: see reader.h. */
#include "model/reader.h"
#include "lib/jsondoc.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rd {
	const char *name;
	const struct m_read *r;
	struct measurement m;
	bool pending;		/* m holds a document fn has not had */
	char *cmdline;
	int docs;
};


/* jansson's integers are signed 64-bit: a frame's kernel address above
 * 2^63 would fail the whole document.  Such an integer is rewritten as the
 * signed integer of the same 64 bits, padded with spaces (JSON ignores
 * them, and every offset stays where it was for error messages); the
 * reader takes its bits back as a u64. */
static void u64_as_signed(char *t, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char buf[24];
		size_t j, n;
		unsigned long long v;
		int w;

		if (t[i] == '"') {
			for (i++; i < len && t[i] != '"'; i++)
				i += t[i] == '\\';
			continue;
		}
		/* the start of an unsigned integer, not of a fraction or exponent */
		if (!isdigit((unsigned char)t[i]) ||
		    (i && (isalnum((unsigned char)t[i - 1]) || strchr(".-+", t[i - 1]))))
			continue;
		for (j = i; j < len && isdigit((unsigned char)t[j]); j++)
			;
		n = j - i;
		if (n >= 19 && n <= 20 && !(j < len && strchr(".eE", t[j]))) {
			memcpy(buf, t + i, n);
			buf[n] = '\0';
			errno = 0;
			v = strtoull(buf, NULL, 10);
			w = snprintf(buf, sizeof(buf), "%lld", (long long)v);
			if (!errno && v > (unsigned long long)INT64_MAX && (size_t)w <= n) {
				memcpy(t + i, buf, w);
				memset(t + i + w, ' ', n - w);
			}
		}
		i = j - 1;
	}
}

/* A member's text as the model keeps it: the file holds it in the escaped
 * form (doc_text makes sure), m_intern takes the bytes and escapes them
 * again.  "" when it is not a string.  NULL only when out of memory. */
static const char *itext(json_t *v)
{
	char *t = doc_text(json_string_value(v) ? json_string_value(v) : "");
	long n = t ? text_unescape(t) : -1;
	const char *s = n >= 0 ? m_intern(t, n) : NULL;

	free(t);
	return s;
}

/* A JSON number as the u64 kdist wrote: integers bit for bit (see
 * u64_as_signed), others rounded. */
static uint64_t u64_of(json_t *v)
{
	double x = json_number_value(v);

	if (json_is_integer(v))
		return (uint64_t)json_integer_value(v);
	return x >= 0x1p64 ? UINT64_MAX : x > 0 ? (uint64_t)x : 0;
}

/* Copy a text member into a fixed field, refusing what would not fit. */
static int field(const struct rd *d, char *dst, size_t size, json_t *v, const char *what)
{
	char *t = doc_text(json_string_value(v) ? json_string_value(v) : "");

	if (!t)
		return -ENOMEM;
	if (strlen(t) >= size) {
		free(t);
		return jsondoc_bad(d->name, 0, "%s is longer than %zu bytes", what, size - 1);
	}
	strcpy(dst, t);
	free(t);
	return 0;
}

static int read_events(struct rd *d, json_t *events)
{
	struct measurement *m = &d->m;
	json_t *e;
	size_t i;
	int err = 0;

	if (events && !json_is_array(events))
		return jsondoc_bad(d->name, 0, "\"events\" is not an array");
	if (json_array_size(events) > M_MAX_EVENTS)
		return jsondoc_bad(d->name, 0, "more than %d events", M_MAX_EVENTS);
	json_array_foreach(events, i, e) {
		struct m_event *me = &m->events[i];

		err = err ?: field(d, me->role, sizeof(me->role), json_object_get(e, "role"), "role") ?:
		      field(d, me->spec, sizeof(me->spec), json_object_get(e, "spec"), "spec") ?:
		      field(d, me->attach, sizeof(me->attach), json_object_get(e, "attach"), "attach");
	}
	m->nevents = (int)json_array_size(events);
	return err;
}

static int read_by(struct rd *d, json_t *by, json_t *formats)
{
	struct measurement *m = &d->m;
	json_t *v;
	size_t i;
	int err = 0;

	if (json_array_size(by) > M_MAX_BY)
		return jsondoc_bad(d->name, 0, "more than %d \"by\" keys", M_MAX_BY);
	m->nby = (int)json_array_size(by);
	json_array_foreach(by, i, v) {
		const char *f = json_string_value(json_array_get(formats, i));

		err = err ?: field(d, m->by[i], sizeof(m->by[i]), v, "a \"by\" key");
		m->by_fmt[i] = FMT_AUTO;
		for (int k = 0; f && k < NR_FMTS; k++)
			if (!strcmp(f, fmt_name(k)))
				m->by_fmt[i] = k;
	}
	return err;
}

static int read_drops(struct rd *d, json_t *drops)
{
	const char *name;
	json_t *v;

	if (drops && !json_is_object(drops))
		return jsondoc_bad(d->name, 0, "\"drops\" is not an object");
	json_object_foreach(drops, name, v) {
		const char *n = m_intern(name, strlen(name));

		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return jsondoc_bad(d->name, 0, "drop counter '%s' is not a non-negative integer", n ? n : "?");
		if (!n)
			return -ENOMEM;
		if (d->m.ndrops == M_MAX_DROPS)
			return jsondoc_bad(d->name, 0, "more than %d drop counters", M_MAX_DROPS);
		measurement_add_drop(&d->m, n, json_integer_value(v));
	}
	return 0;
}

/* The errno whose text the writer put in "unknown". */
static int errno_named(const char *text)
{
	for (int e = 1; e < 256; e++)
		if (!strcmp(strerror(e), text))
			return e;
	return EPERM;
}

static void read_cost(struct rd *d, json_t *c, json_t *names)
{
	struct m_cost *mc = &d->m.cost;

	if (json_is_object(c)) {
		const char *unknown = json_string_value(json_object_get(c, "unknown"));

		mc->programs = (int)json_integer_value(json_object_get(c, "programs"));
		mc->map_bytes = u64_of(json_object_get(c, "map_bytes"));
		mc->runs = u64_of(json_object_get(c, "runs"));
		mc->run_ns = u64_of(json_object_get(c, "run_ns"));
		mc->sampled = json_number_value(json_object_get(c, "sampled"));
		mc->err = unknown ? errno_named(unknown) : 0;
		/* a measurement of programs has one at least: the object says so */
		if (mc->programs <= 0)
			mc->programs = 1;
	}
	if (json_is_object(names)) {
		struct m_names *n = &d->m.cgroup_names;

		n->on = true;
		n->lookups = u64_of(json_object_get(names, "lookups"));
		n->misses = u64_of(json_object_get(names, "misses"));
		n->unknown = u64_of(json_object_get(names, "unknown"));
		n->cached = u64_of(json_object_get(names, "cached"));
		n->evicted = u64_of(json_object_get(names, "evicted"));
	}
}

static int read_kind(struct rd *d, json_t *doc)
{
	static const char *const kinds[] = { [M_LATENCY] = "latency", [M_VALUE] = "value",
					     [M_FUNC] = "func" };
	const char *kind = json_string_value(json_object_get(doc, "kind"));
	const char *stacks = json_string_value(json_object_get(doc, "stacks"));
	json_t *counts = json_object_get(doc, "counts");
	struct measurement *m = &d->m;
	size_t k;

	for (k = 0; k < ARRAY_SIZE(kinds) && strcmp(kind, kinds[k]); k++)
		;
	if (k == ARRAY_SIZE(kinds))
		return jsondoc_bad(d->name, 0, "kind '%s' is not latency, value or func", kind);
	m->kind = k;
	/* documents written before "stacks" and "counts": the commands that
	 * make stack measurements, and the unit of counted events */
	if (!stacks && !strcmp(m->command, "profile"))
		stacks = "oncpu";
	else if (!stacks && (!strcmp(m->command, "offcpu") || !strcmp(m->command, "wakeup")))
		stacks = "offcpu";
	m->stacks = !stacks ? M_STACKS_NO : !strcmp(stacks, "oncpu") ? M_STACKS_ONCPU :
		    M_STACKS_OFFCPU;
	m->counts = counts ? json_is_true(counts) :
		    m->kind == M_VALUE && !strcmp(m->value_unit, "events");
	return 0;
}

static int read_header(struct rd *d, json_t *doc)
{
	struct measurement *m = &d->m;
	json_t *fn = json_object_get(doc, "functions");
	const char *cmdline = json_string_value(json_object_get(doc, "cmdline"));
	int err;

	measurement_clear(m);
	*m = (struct measurement){ 0 };
	m->command = itext(json_object_get(doc, "command"));
	m->value_unit = itext(json_object_get(doc, "unit"));
	m->kernel = json_is_string(json_object_get(doc, "kernel")) ?
		    itext(json_object_get(doc, "kernel")) : NULL;
	if (!m->command || !m->value_unit)
		return -ENOMEM;
	err = read_kind(d, doc) ?:
	      field(d, m->title, sizeof(m->title), json_object_get(doc, "title"), "title") ?:
	      field(d, m->key, sizeof(m->key), json_object_get(doc, "key"), "key") ?:
	      read_events(d, json_object_get(doc, "events")) ?:
	      read_by(d, json_object_get(doc, "by"), json_object_get(doc, "formats")) ?:
	      read_drops(d, json_object_get(doc, "drops"));
	if (err)
		return err;
	m->start_unix = json_number_value(json_object_get(doc, "start_unix"));
	m->duration_s = json_number_value(json_object_get(doc, "duration_s"));
	m->interval = (int)json_integer_value(json_object_get(doc, "interval"));
	if (json_is_object(fn)) {
		m->funcs_attached = (int)json_integer_value(json_object_get(fn, "attached"));
		m->funcs_skipped = (int)json_integer_value(json_object_get(fn, "skipped"));
		m->attach_ms = json_number_value(json_object_get(fn, "attach_ms"));
	}
	read_cost(d, json_object_get(doc, "cost"), json_object_get(doc, "cgroup_names"));
	free(d->cmdline);
	d->cmdline = cmdline ? doc_text(cmdline) : NULL;
	return cmdline && !d->cmdline ? -ENOMEM : 0;
}

/* The document before this one, to fn. */
static int hand_over(struct rd *d)
{
	int err;

	if (!d->pending)
		return 0;
	d->pending = false;
	d->docs++;
	err = d->r->fn(d->r->ctx, &d->m, d->cmdline);
	measurement_clear(&d->m);
	return err;
}

static int on_doc(void *ctx, json_t *doc, const char *text, size_t len)
{
	struct rd *d = ctx;
	int err = hand_over(d) ?: doc_check(d->name, doc, false, NULL);

	(void)text;
	(void)len;
	if (err)
		return err;
	if (d->r->interval && json_integer_value(json_object_get(doc, "interval")) != d->r->interval)
		return 1;	/* nor its groups */
	err = read_header(d, doc);
	d->pending = !err;
	return err;
}

/* A stack key: its frames, root first. */
static int read_stack(struct rd *d, long gi, const char *by, json_t *frames, struct m_value *out)
{
	size_t n = json_array_size(frames), i;
	struct m_frame *f = calloc(n + 1, sizeof(*f));
	const struct m_stack *s = NULL;
	json_t *fr;
	int err = 0;

	if (!f)
		return -ENOMEM;
	json_array_foreach(frames, i, fr) {
		json_t *mod = json_object_get(fr, "module");

		if (!json_is_string(json_object_get(fr, "name")) ||
		    !json_is_integer(json_object_get(fr, "addr"))) {
			err = jsondoc_bad(d->name, gi, "frame %zu of '%s' is not {name, addr}", i + 1, by);
			break;
		}
		f[i].name = itext(json_object_get(fr, "name"));
		f[i].module = json_is_string(mod) ? itext(mod) : NULL;
		f[i].addr = u64_of(json_object_get(fr, "addr"));
		f[i].offset = u64_of(json_object_get(fr, "offset"));
		if (!f[i].name || (json_is_string(mod) && !f[i].module)) {
			err = -ENOMEM;
			break;
		}
	}
	if (!err) {
		s = m_stack_intern(f, n, !strcmp(by, "ustack"), false);
		err = s ? 0 : -ENOMEM;
	}
	free(f);
	*out = mv_stack(s);
	return err;
}

/* A key value without a "values" entry: a plain number where its label is
 * one in decimal (below the kernel's addresses, which print in hex), else
 * the label as a text: views print either the same. */
static struct m_value plain_value(const char *label, enum m_fmt f)
{
	char *end, buf[32];
	struct m_value v;

	if (f != FMT_AUTO && f != FMT_SIGNED)
		return mv_text(label);
	errno = 0;
	v = mv_num(f == FMT_SIGNED ? (uint64_t)strtoll(label, &end, 10) : strtoull(label, &end, 10));
	snprintf(buf, sizeof(buf), f == FMT_SIGNED ? "%lld" : "%llu", (unsigned long long)v.num);
	if (errno || end == label || *end || strcmp(buf, label) || (f == FMT_AUTO && v.num >> 48))
		return mv_text(label);
	return v;
}

static int read_key(struct rd *d, long gi, json_t *g, struct m_value *key)
{
	json_t *labels = json_object_get(g, "by"), *values = json_object_get(g, "values");

	for (int i = 0; i < d->m.nby; i++) {
		const char *by = d->m.by[i];
		json_t *v = json_object_get(values, by);
		const char *label = itext(json_object_get(labels, by));
		int err;

		if (!label)
			return -ENOMEM;
		if (json_is_array(v)) {
			err = read_stack(d, gi, by, v, &key[i]);
			if (err)
				return err;
		} else if (json_is_integer(v)) {
			const struct m_named *n = m_named_intern(u64_of(v), label);

			if (!n)
				return -ENOMEM;
			key[i] = mv_named(n);
		} else if (v) {
			return jsondoc_bad(d->name, gi, "the value of '%s' is neither an integer nor frames", by);
		} else {
			key[i] = plain_value(label, d->m.by_fmt[i]);
		}
	}
	return 0;
}

/* The sum of squares that gives back the stddev the document states (it
 * carries the mean and stddev, not the 128-bit sum of squares). */
static void set_sumsq(struct hist *h, double stddev)
{
	long double n = h->count, mean, sq, hi;

	if (!h->count)
		return;
	mean = (long double)h->sum / n;
	sq = n * ((long double)stddev * stddev + mean * mean);
	if (!(sq < 0x1p127L))	/* a stddev no u64 values have (a file edited) */
		sq = 0x1p127L;
	sq = roundl(sq);	/* a sum of squares of integers */
	hi = floorl(sq / 0x1p64L);
	h->sumsq_hi = (uint64_t)hi;
	h->sumsq_lo = (uint64_t)(sq - hi * 0x1p64L);
}

static int read_hist(struct rd *d, long gi, json_t *g, struct hist *h)
{
	json_t *b;
	size_t i;

	*h = (struct hist){ 0 };
	json_array_foreach(json_object_get(g, "buckets"), i, b) {
		uint64_t lo = u64_of(json_array_get(b, 0)), hi = u64_of(json_array_get(b, 1));
		unsigned int at = hist_index(lo);

		if (hist_bucket_low(at) != lo || hist_bucket_high(at) != hi)
			return jsondoc_bad(d->name, gi, "bucket %zu [%llu, %llu] is not one of kdist's buckets",
				   i + 1, (unsigned long long)lo, (unsigned long long)hi);
		h->slots[at] += u64_of(json_array_get(b, 2));
	}
	h->count = u64_of(json_object_get(g, "count"));
	h->sum = u64_of(json_object_get(g, "sum"));
	if (h->count) {
		h->min = u64_of(json_object_get(g, "min"));
		h->max = u64_of(json_object_get(g, "max"));
	}
	set_sumsq(h, json_number_value(json_object_get(g, "stddev")));
	return 0;
}

static int on_group(void *ctx, json_t *doc, json_t *g, size_t index)
{
	struct rd *d = ctx;
	long gi = (long)index + 1;
	struct m_value key[M_MAX_BY] = { 0 };
	struct m_group *mg;
	struct hist *h = malloc(sizeof(*h));
	int err = h ? 0 : -ENOMEM;

	err = err ?: doc_check_group(d->name, doc, g, index) ?: read_key(d, gi, g, key) ?:
	      read_hist(d, gi, g, h);
	if (!err && !(mg = measurement_group(&d->m, key)))
		err = -ENOMEM;
	if (!err) {
		/* a group twice in one document (edited by hand) is one group */
		err = m_hist_add(&mg->h, h);
		mg->self_ns += u64_of(json_object_get(g, "self"));
		mg->total_ns += u64_of(json_object_get(g, "total"));
	}
	free(h);
	return err;
}

int measurement_read(const char *name, char *text, size_t len, const struct m_read *r)
{
	struct rd d = { .name = name, .r = r };
	int err;

	u64_as_signed(text, len);
	err = json_docs_parse(name, text, len, 0, on_doc, on_group, &d) ?: hand_over(&d);
	measurement_clear(&d.m);
	free(d.cmdline);
	return err ? err : d.docs;
}

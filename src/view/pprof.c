// SPDX-License-Identifier: GPL-2.0
/* -o pprof: a measurement with stack keys as pprof's profile.proto
 * (github.com/google/pprof, proto/profile.proto), gzipped, as `go tool
 * pprof`, Pyroscope, Parca and Grafana read it (pprof.h). */
#include "view/pprof.h"
#include "view/format.h"
#include "lib/pb.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* profile.proto's field numbers */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
	MAPPING_ID = 1, MAPPING_FILENAME = 5, MAPPING_HAS_FUNCTIONS = 7,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};

/* A table of distinct items by a 64-bit key, ids from 1 in order of
 * first sight: strings (the string table, ids from 0), frames, modules. */
struct ids {
	uint64_t *keys;
	uint32_t *vals;		/* id, 0: empty slot */
	size_t cap, n;
};

static uint32_t ids_get(struct ids *t, uint64_t key, bool *added)
{
	size_t i;

	*added = false;
	if ((t->n + 1) * 2 > t->cap) {
		struct ids g = { .cap = t->cap ? 2 * t->cap : 1024 };

		g.keys = calloc(g.cap, sizeof(*g.keys));
		g.vals = calloc(g.cap, sizeof(*g.vals));
		if (!g.keys || !g.vals) {
			free(g.keys);
			free(g.vals);
			return 0;
		}
		for (size_t j = 0; j < t->cap; j++) {
			if (!t->vals[j])
				continue;
			for (i = hash_mix(t->keys[j]) & (g.cap - 1); g.vals[i]; i = (i + 1) & (g.cap - 1))
				;
			g.keys[i] = t->keys[j];
			g.vals[i] = t->vals[j];
		}
		g.n = t->n;
		free(t->keys);
		free(t->vals);
		*t = g;
	}
	for (i = hash_mix(key) & (t->cap - 1); t->vals[i]; i = (i + 1) & (t->cap - 1))
		if (t->keys[i] == key)
			return t->vals[i];
	t->keys[i] = key;
	t->vals[i] = (uint32_t)++t->n;
	*added = true;
	return t->vals[i];
}

static void ids_free(struct ids *t)
{
	free(t->keys);
	free(t->vals);
}

/* The Profile message in three parts, each of whole top-level fields, so
 * that a string or a location first seen inside a sample is written
 * outside it: samples and the rest, then mappings, locations and
 * functions, then the string table (the order of fields is free). */
struct pprof {
	struct pb out, defs, strs;
	struct ids strings, frames, modules;
	bool oom;
};

/* s's index in the string table, writing it there when new (index 0 is
 * "", written first).  Strings are told apart by a 64-bit hash of their
 * text: two different names with one hash would share a name. */
static int64_t str(struct pprof *p, const char *s)
{
	bool added;
	uint32_t id;

	if (!s || !*s)
		return 0;
	id = ids_get(&p->strings, hash_bytes(s, strlen(s)), &added);
	if (!id)
		p->oom = true;
	else if (added)
		pb_string(&p->strs, PROFILE_STRING_TABLE, s);
	return id;
}

static void value_type(struct pprof *p, int field, const char *type, const char *unit)
{
	pb_begin(&p->out, field);
	pb_varint(&p->out, VALUE_TYPE_TYPE, str(p, type));
	pb_varint(&p->out, VALUE_TYPE_UNIT, str(p, unit));
	pb_end(&p->out);
}

/* The mapping of a frame: its module (a binary, a kernel module), or the
 * kernel; written when new. */
static uint32_t mapping(struct pprof *p, const char *module, bool user)
{
	const char *file = module ? module : user ? "[unknown]" : "[kernel.kallsyms]";
	bool added;
	uint32_t id = ids_get(&p->modules, hash_bytes(file, strlen(file)), &added);

	if (added) {
		pb_begin(&p->defs, PROFILE_MAPPING);
		pb_varint(&p->defs, MAPPING_ID, id);
		pb_varint(&p->defs, MAPPING_FILENAME, str(p, file));
		pb_varint(&p->defs, MAPPING_HAS_FUNCTIONS, 1);
		pb_end(&p->defs);
	}
	return id;
}

/* The location of frame f (one function, one line: frames are named
 * already), by its name and module; written when new, with its function
 * (the same id). */
static uint32_t location(struct pprof *p, const struct m_frame *f, bool user)
{
	char key[512];
	int n = snprintf(key, sizeof(key), "%s\n%s\n%d", f->name, f->module ? f->module : "", user);
	bool added;
	uint32_t id = ids_get(&p->frames, hash_bytes(key, n < (int)sizeof(key) ? (size_t)n : sizeof(key) - 1),
			      &added);
	uint32_t map;

	if (!added)
		return id;
	map = mapping(p, f->module, user);
	pb_begin(&p->defs, PROFILE_FUNCTION);
	pb_varint(&p->defs, FUNCTION_ID, id);
	pb_varint(&p->defs, FUNCTION_NAME, str(p, f->name));
	pb_varint(&p->defs, FUNCTION_SYSTEM_NAME, str(p, f->name));
	pb_varint(&p->defs, FUNCTION_FILENAME, str(p, f->module));
	pb_end(&p->defs);
	pb_begin(&p->defs, PROFILE_LOCATION);
	pb_varint(&p->defs, LOCATION_ID, id);
	pb_varint(&p->defs, LOCATION_MAPPING_ID, map);
	pb_varint(&p->defs, LOCATION_ADDRESS, f->addr);
	pb_begin(&p->defs, LOCATION_LINE);
	pb_varint(&p->defs, LINE_FUNCTION_ID, id);
	pb_end(&p->defs);
	pb_end(&p->defs);
	return id;
}

/* The sampling period of a profile: its cpu-clock event's rate. */
static uint64_t period_ns(const struct measurement *m)
{
	unsigned int hz = 0;

	for (int i = 0; i < m->nevents; i++)
		if (sscanf(m->events[i].spec, "cpu-clock:%uHz", &hz) == 1 && hz)
			return 1000000000ull / hz;
	return 0;
}

/* One sample per group: its stacks' frames leaf first (the last stack
 * key's leaf first, as the folded view puts them root first), its other
 * keys as labels, its values. */
static void sample(struct pprof *p, const struct measurement *m, const struct m_group *g,
		   uint64_t period)
{
	uint32_t locs[1024];
	int n = 0;

	for (int i = m->nby - 1; i >= 0; i--) {
		const struct m_stack *s = g->key[i].type == MV_STACK ? g->key[i].stack : NULL;

		for (int j = s ? (int)s->nframes - 1 : -1; j >= 0 && n < (int)ARRAY_SIZE(locs); j--)
			locs[n++] = location(p, &s->frames[j], s->user);
	}
	pb_begin(&p->out, PROFILE_SAMPLE);
	pb_begin(&p->out, SAMPLE_LOCATION_ID);
	for (int i = 0; i < n; i++)
		pb_raw_varint(&p->out, locs[i]);
	pb_end(&p->out);
	pb_begin(&p->out, SAMPLE_VALUE);
	if (period) {
		/* samples, and CPU time: a sample stands for a period */
		pb_raw_varint(&p->out, g->h.sum);
		pb_raw_varint(&p->out, g->h.sum * period);
	} else {
		pb_raw_varint(&p->out, g->h.sum);
		pb_raw_varint(&p->out, g->h.count);
	}
	pb_end(&p->out);
	for (int i = 0; i < m->nby; i++) {
		char buf[128];

		if (g->key[i].type == MV_STACK)
			continue;
		pb_begin(&p->out, SAMPLE_LABEL);
		pb_varint(&p->out, LABEL_KEY, str(p, m->by[i]));
		if (g->key[i].type == MV_NUM && !fmt_names_value(&g->key[i], m->by_fmt[i]))
			pb_varint(&p->out, LABEL_NUM, g->key[i].num);
		else
			pb_varint(&p->out, LABEL_STR,
				  str(p, fmt_value(&g->key[i], m->by_fmt[i], buf, sizeof(buf))));
		pb_end(&p->out);
	}
	pb_end(&p->out);
}

/* data (len bytes) gzipped into f: 0 or -errno */
static int gzip_write(FILE *f, const void *data, size_t len)
{
	unsigned char chunk[65536];
	z_stream z = { 0 };
	int zr;

	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (unsigned char *)data;
	z.avail_in = len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = deflate(&z, Z_FINISH);
		if (fwrite(chunk, 1, sizeof(chunk) - z.avail_out, f) != sizeof(chunk) - z.avail_out) {
			deflateEnd(&z);
			return errno ? -errno : -EIO;
		}
	} while (zr == Z_OK);
	deflateEnd(&z);
	return zr == Z_STREAM_END ? 0 : -EIO;
}

int pprof_write(FILE *f, const struct measurement *m)
{
	struct pprof p = { 0 };
	uint64_t period = m->kind == M_VALUE && m->stacks == M_STACKS_ONCPU ? period_ns(m) : 0;
	const char *first;
	bool stacks = false;
	int err;

	for (int g = 0; g < m->ngroups && !stacks; g++)
		for (int i = 0; i < m->nby; i++)
			stacks |= m->groups[g].key[i].type == MV_STACK;
	if (!stacks) {
		kd_err("bad output format 'pprof': the measurement has no stack key (--by kstack or ustack)");
		return -EINVAL;
	}
	pb_bytes(&p.strs, PROFILE_STRING_TABLE, "", 0);	/* index 0 */
	/* the first value is the one shown unless asked (the default) */
	if (period) {
		first = "cpu";
		value_type(&p, PROFILE_SAMPLE_TYPE, "samples", "count");
		value_type(&p, PROFILE_SAMPLE_TYPE, first, "nanoseconds");
		value_type(&p, PROFILE_PERIOD_TYPE, first, "nanoseconds");
		pb_varint(&p.out, PROFILE_PERIOD, period);
	} else if (m->kind == M_VALUE) {
		first = m->key[0] ? m->key : "value";
		value_type(&p, PROFILE_SAMPLE_TYPE, first, m->value_unit ? m->value_unit : "count");
		value_type(&p, PROFILE_SAMPLE_TYPE, "events", "count");
	} else {
		first = m->stacks == M_STACKS_OFFCPU ? "offcpu" : m->command ? m->command : "time";
		value_type(&p, PROFILE_SAMPLE_TYPE, first, "nanoseconds");
		value_type(&p, PROFILE_SAMPLE_TYPE, "events", "count");
	}
	for (int i = 0; i < m->ngroups; i++)
		sample(&p, m, &m->groups[i], period);
	pb_varint(&p.out, PROFILE_TIME_NANOS, (uint64_t)(m->start_unix * 1e9));
	pb_varint(&p.out, PROFILE_DURATION_NANOS, (uint64_t)(m->duration_s * 1e9));
	pb_varint(&p.out, PROFILE_COMMENT, str(&p, m->title));
	pb_varint(&p.out, PROFILE_DEFAULT_SAMPLE_TYPE, str(&p, first));
	if (!p.oom && !p.out.oom && !p.defs.oom && !p.strs.oom) {
		struct pb *parts[] = { &p.defs, &p.strs };

		for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
			pb_bytes_raw(&p.out, parts[i]->buf, parts[i]->len);
	}
	if (p.oom || p.out.oom || p.defs.oom || p.strs.oom)
		err = -ENOMEM;
	else
		err = gzip_write(f, p.out.buf, p.out.len);
	if (!err && measurement_lost(m))
		kd_err("lost %llu events (run with -o text or json for the breakdown)",
		       (unsigned long long)measurement_lost(m));
	pb_free(&p.out);
	pb_free(&p.defs);
	pb_free(&p.strs);
	ids_free(&p.strings);
	ids_free(&p.frames);
	ids_free(&p.modules);
	return err ? err : fflush(f) || ferror(f) ? (errno ? -errno : -EIO) : 0;
}

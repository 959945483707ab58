// SPDX-License-Identifier: GPL-2.0
/* model/reader.c: measurements built here, written by the JSON view, read
 * back and written again give the same bytes (JSON and text), with their
 * typed key values, stats, exact buckets, drop counters and cost; JSON
 * Lines give one measurement per interval; inconsistent documents are
 * refused. */
#include "check.h"
#include "model/reader.h"
#include "view/view.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KADDR 0xffffffff81a01234ULL

static void add_values(struct m_group *g, uint64_t first, uint64_t step, int n)
{
	struct hist h = { 0 };

	for (int i = 0; i < n; i++)
		hist_add(&h, first + i * step);
	m_hist_add(&g->h, &h);
}

static const char *in(const char *s)
{
	return m_intern(s, strlen(s));
}

/* pair by comm, syscall:syscall and ret:errno, with losses and a cost */
static void build_pair(struct measurement *m, int interval)
{
	*m = (struct measurement){ .command = "pair", .kind = M_LATENCY, .nby = 3,
				   .duration_s = 1.5, .interval = interval, .start_unix = 1.8e9 };
	snprintf(m->title, sizeof(m->title), "raw_syscalls:sys_enter -> raw_syscalls:sys_exit");
	snprintf(m->key, sizeof(m->key), "tid");
	m->nevents = 2;
	snprintf(m->events[0].role, 16, "start");
	snprintf(m->events[0].spec, 512, "raw_syscalls:sys_enter");
	snprintf(m->events[0].attach, 48, "raw_tracepoint");
	snprintf(m->events[1].role, 16, "end");
	snprintf(m->events[1].spec, 512, "raw_syscalls:sys_exit");
	snprintf(m->events[1].attach, 48, "raw_tracepoint");
	snprintf(m->by[0], 64, "comm");
	snprintf(m->by[1], 64, "syscall");
	snprintf(m->by[2], 64, "ret");
	m->by_fmt[1] = FMT_SYSCALL;
	m->by_fmt[2] = FMT_ERRNO;
	for (int i = 0; i < 3; i++) {
		struct m_value key[M_MAX_BY] = { mv_text(in(i ? "worker" : "main\\x1b")),
						 mv_num(i == 2 ? 35 : 39),
						 mv_num(i == 1 ? (uint64_t)-2 : 0) };

		add_values(measurement_group(m, key), 1000 * (i + 1) * interval, 777 * (i + 1),
			   200 + 50 * i);
	}
	measurement_add_drop(m, "end_without_start", 1);
	measurement_add_drop(m, "match_table_full", 2);
	m->cost = (struct m_cost){ .programs = 2, .runs = 12345, .run_ns = 987654, .sampled = 0.05,
				   .map_bytes = 65536 };
}

/* profile by kernel stack, frames with modules and kernel addresses */
static void build_stacks(struct measurement *m)
{
	struct m_frame f[3] = {
		{ in("entry_SYSCALL_64"), NULL, KADDR, 0x34 },
		{ in("ext4_read"), in("ext4"), KADDR + 0x100000, 0x10 },
		{ in("0xffffffffc0001000"), NULL, 0xffffffffc0001000ULL, 0 },
	};
	struct m_value key[M_MAX_BY] = { mv_stack(m_stack_intern(f, 3, false, false)) };

	*m = (struct measurement){ .command = "profile", .kind = M_VALUE, .value_unit = "samples",
				   .stacks = M_STACKS_ONCPU, .nby = 1, .duration_s = 2 };
	snprintf(m->title, sizeof(m->title), "on-CPU stacks");
	snprintf(m->by[0], 64, "kstack");
	add_values(measurement_group(m, key), 1, 0, 40);
	key[0] = mv_stack(m_stack_intern(f, 2, false, false));
	add_values(measurement_group(m, key), 1, 0, 7);
	measurement_add_drop(m, "stack_failed", 0);
}

/* func by function and pid (a plain number) */
static void build_func(struct measurement *m)
{
	*m = (struct measurement){ .command = "func", .kind = M_FUNC, .nby = 2, .duration_s = 3,
				   .funcs_attached = 2, .attach_ms = 1.25 };
	snprintf(m->title, sizeof(m->title), "u:calltree:*");
	snprintf(m->by[0], 64, "function");
	snprintf(m->by[1], 64, "pid");
	for (int i = 0; i < 2; i++) {
		struct m_value key[M_MAX_BY] = { mv_text(in(i ? "calltree:leaf" : "calltree:outer")),
						 mv_num(4242) };
		struct m_group *g = measurement_group(m, key);

		add_values(g, 5000000 * (i + 1), 1, 3);
		g->total_ns = g->h.sum;
		g->self_ns = g->h.sum / (i + 2);
	}
}

static char *write_str(const struct measurement *m, enum out_format format)
{
	struct view_opts v = { .format = format };
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	measurement_write(f, m, &v);
	measurement_write_end(f, &v);
	fclose(f);
	return s;
}

struct got {
	int n;
	char *json[4], *text[4];
	struct m_value key[4][M_MAX_BY];	/* of the first group */
	uint64_t count[4];
};

static int keep(void *ctx, struct measurement *m, const char *cmdline)
{
	struct got *g = ctx;

	if (g->n == 4)
		return -E2BIG;
	g->json[g->n] = write_str(m, OUT_JSON);
	g->text[g->n] = write_str(m, OUT_TEXT);
	if (m->ngroups) {
		memcpy(g->key[g->n], m->groups[0].key, sizeof(g->key[0]));
		g->count[g->n] = m->groups[0].h.count;
	}
	g->n++;
	return 0;
}

static int read_str(const char *text, struct got *g, int interval)
{
	char *copy = strdup(text);
	int n;

	*g = (struct got){ 0 };
	n = measurement_read("test", copy, strlen(copy),
			     &(struct m_read){ .interval = interval, .fn = keep, .ctx = g });
	free(copy);
	return n;
}

static void free_got(struct got *g)
{
	for (int i = 0; i < g->n; i++) {
		free(g->json[i]);
		free(g->text[i]);
	}
}

/* write -> read -> write: the same JSON and the same text */
static void round_trip(const char *name, struct measurement *m)
{
	char *json = write_str(m, OUT_JSON), *text = write_str(m, OUT_TEXT);
	struct got g;
	int n = read_str(json, &g, 0);

	check(name, n == 1 && !strcmp(g.json[0], json) && !strcmp(g.text[0], text),
	      "%d documents\nwrote %s\nread  %s\ntext\n%s\nread\n%s", n, json,
	      n == 1 ? g.json[0] : "", text, n == 1 ? g.text[0] : "");
	free_got(&g);
	free(json);
	free(text);
	measurement_clear(m);
}

static void test_typed_keys(void)
{
	struct measurement m;
	char *json;
	struct got g;
	const struct m_value *k;

	build_pair(&m, 0);
	json = write_str(&m, OUT_JSON);
	read_str(json, &g, 0);
	/* groups are written largest total first: the third built */
	k = g.key[0];
	check("pair: comm a text, syscall and errno named numbers",
	      g.n == 1 && k[0].type == MV_TEXT && !strcmp(k[0].text, "worker") &&
	      k[1].type == MV_NAMED && k[1].named->num == 35 && k[2].type == MV_NAMED &&
	      k[2].named->num == 0 && !strcmp(k[2].named->name, "ok") && g.count[0] == 300,
	      "%s", json);
	free_got(&g);
	free(json);
	measurement_clear(&m);

	build_stacks(&m);
	json = write_str(&m, OUT_JSON);
	read_str(json, &g, 0);
	k = g.key[0];
	check("profile: a stack of frames, kernel addresses and modules exact",
	      g.n == 1 && k[0].type == MV_STACK && k[0].stack->nframes == 3 &&
	      k[0].stack->frames[0].addr == KADDR && k[0].stack->frames[0].offset == 0x34 &&
	      k[0].stack->frames[1].module && !strcmp(k[0].stack->frames[1].module, "ext4") &&
	      k[0].stack->frames[2].addr == 0xffffffffc0001000ULL, "%s", json);
	free_got(&g);
	free(json);
	measurement_clear(&m);

	build_func(&m);
	json = write_str(&m, OUT_JSON);
	read_str(json, &g, 0);
	k = g.key[0];
	check("func: pid a plain number", g.n == 1 && k[1].type == MV_NUM && k[1].num == 4242,
	      "%s", json);
	free_got(&g);
	free(json);
	measurement_clear(&m);
}

static void test_lines(void)
{
	struct measurement m;
	char *a, *b, *lines;
	struct got g;
	int n;

	build_pair(&m, 1);
	a = write_str(&m, OUT_JSON);
	measurement_clear(&m);
	build_pair(&m, 2);
	b = write_str(&m, OUT_JSON);
	measurement_clear(&m);
	lines = malloc(strlen(a) + strlen(b) + 1);
	strcpy(stpcpy(lines, a), b);
	n = read_str(lines, &g, 0);
	check("JSON Lines: one measurement per interval, each as written",
	      n == 2 && !strcmp(g.json[0], a) && !strcmp(g.json[1], b), "%d", n);
	free_got(&g);
	n = read_str(lines, &g, 2);
	check("JSON Lines: --interval 2 alone", n == 1 && !strcmp(g.json[0], b), "%d", n);
	free_got(&g);
	n = read_str(lines, &g, 3);
	check("JSON Lines: no interval 3", n == 0, "%d", n);
	free_got(&g);
	free(lines);
	free(a);
	free(b);
}

/* one edit of a good document, refused with -EINVAL */
static void refused(const char *name, const char *from, const char *to)
{
	struct measurement m;
	char *json, *at, *bad;
	struct got g;
	int n;

	build_pair(&m, 0);
	json = write_str(&m, OUT_JSON);
	measurement_clear(&m);
	at = strstr(json, from);
	if (!at) {
		check(name, 0, "'%s' not in %s", from, json);
		free(json);
		return;
	}
	bad = malloc(strlen(json) + strlen(to) + 1);
	memcpy(bad, json, at - json);
	strcpy(stpcpy(bad + (at - json), to), at + strlen(from));
	n = read_str(bad, &g, 0);
	check(name, n == -EINVAL && g.n == 0, "read %d", n);
	free_got(&g);
	free(bad);
	free(json);
}

int main(void)
{
	struct measurement m;

	build_pair(&m, 0);
	round_trip("pair: JSON and text the same after a round trip", &m);
	build_pair(&m, 3);
	round_trip("pair interval 3: the same after a round trip", &m);
	build_stacks(&m);
	round_trip("profile stacks: the same after a round trip", &m);
	build_func(&m);
	round_trip("func: the same after a round trip", &m);
	test_typed_keys();
	test_lines();
	refused("a bucket that is not kdist's refused", "[0,0,1]", "[0,1,1]");
	refused("an unknown kind refused", "\"kind\":\"latency\"", "\"kind\":\"speed\"");
	refused("a count that is not its buckets' sum refused", "\"count\":300", "\"count\":301");
	return check_done();
}

// SPDX-License-Identifier: GPL-2.0
#include "model/measure.h"
#include "lib/util.h"
#include "model/explain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const fmt_names[NR_FMTS] = {
	[FMT_AUTO] = "dec", [FMT_SIGNED] = "signed", [FMT_HEX] = "hex", [FMT_KSYM] = "ksym",
	[FMT_SYSCALL] = "syscall", [FMT_ERRNO] = "errno", [FMT_DISK] = "disk", [FMT_RW] = "rw",
	[FMT_IRQ] = "irq", [FMT_SOFTIRQ] = "softirq", [FMT_CONTAINER] = "container",
	[FMT_POD] = "pod", [FMT_NAMESPACE] = "namespace", [FMT_UNIT] = "unit",
	[FMT_REQOP] = "reqop", [FMT_BE16] = "be16", [FMT_BE32] = "be32",
};

const char *fmt_name(enum m_fmt f)
{
	return f < NR_FMTS ? fmt_names[f] : "?";
}

/* ---- interned strings and stacks ---------------------------------------- */

#define HASH_SEED 1469598103934665603ULL

/* A set of pointers, open addressing; the caller compares entries. */
struct pool {
	void **slot;
	size_t size, n;
};

typedef bool (*pool_eq)(const void *entry, const void *probe);

static void **pool_find(struct pool *p, uint64_t h, pool_eq eq, const void *probe)
{
	size_t i = h & (p->size - 1);

	while (p->slot[i] && !eq(p->slot[i], probe))
		i = (i + 1) & (p->size - 1);
	return &p->slot[i];
}

/* Make room for one more entry; entries rehash with hash(). */
static int pool_reserve(struct pool *p, uint64_t (*hash)(const void *))
{
	struct pool np;

	if (p->size && (p->n + 1) * 2 <= p->size)
		return 0;
	np.size = p->size ? p->size * 2 : 256;
	np.n = p->n;
	np.slot = calloc(np.size, sizeof(*np.slot));
	if (!np.slot)
		return -ENOMEM;
	for (size_t i = 0; i < p->size; i++) {
		size_t j;

		if (!p->slot[i])
			continue;
		j = hash(p->slot[i]) & (np.size - 1);
		while (np.slot[j])
			j = (j + 1) & (np.size - 1);
		np.slot[j] = p->slot[i];
	}
	free(p->slot);
	*p = np;
	return 0;
}

static struct pool strings, stacks;

struct str_probe {
	const char *s;
	size_t len;
};

static uint64_t str_hash(const void *e)
{
	return hash_bytes(e, strlen(e));
}

static bool str_eq(const void *e, const void *probe)
{
	const struct str_probe *q = probe;

	return !strncmp(e, q->s, q->len) && !((const char *)e)[q->len];
}

/* Texts enter the measurement here, and only here: what traced processes
 * chose (comm, file names, symbols, cgroup paths) is kept in its
 * text_escape() form, so every view prints valid UTF-8 free of control
 * characters and none needs an escape rule of its own for them. */
const char *m_intern(const char *s, size_t len)
{
	struct str_probe q = { s, strnlen(s, len) };
	char *copy, *esc = NULL;
	void **at;

	if (!text_is_safe(s, q.len)) {
		size_t n = text_escape(NULL, 0, s, q.len) + 1;

		esc = malloc(n);
		if (!esc)
			return NULL;
		text_escape(esc, n, s, q.len);
		q = (struct str_probe){ esc, n - 1 };
	}
	copy = NULL;
	if (pool_reserve(&strings, str_hash))
		goto out;
	at = pool_find(&strings, hash_bytes(q.s, q.len), str_eq, &q);
	if (*at) {
		copy = *at;
		goto out;
	}
	copy = esc ? esc : strndup(s, q.len);
	esc = NULL;
	if (copy) {
		*at = copy;
		strings.n++;
	}
out:
	free(esc);
	return copy;
}

const char *m_intern_find(const char *s, size_t len)
{
	struct str_probe q = { s, strnlen(s, len) };

	if (!strings.size)
		return NULL;
	return *pool_find(&strings, hash_bytes(s, q.len), str_eq, &q);
}

struct stack_probe {
	const struct m_frame *frames;
	unsigned int n;
	bool user;
};

/* By what the user sees: the frames' names (interned, so by pointer). */
static uint64_t frames_hash(const struct m_frame *f, unsigned int n, bool user)
{
	uint64_t h = hash_mix(HASH_SEED ^ n ^ ((uint64_t)user << 40));

	for (unsigned int i = 0; i < n; i++)
		h = hash_mix(h ^ (uint64_t)(uintptr_t)f[i].name);
	return h;
}

static uint64_t stack_hash(const void *e)
{
	const struct m_stack *s = e;

	return frames_hash(s->frames, s->nframes, s->user);
}

static bool stack_eq(const void *e, const void *probe)
{
	const struct m_stack *s = e;
	const struct stack_probe *q = probe;

	if (s->nframes != q->n || s->user != q->user)
		return false;
	for (unsigned int i = 0; i < q->n; i++)
		if (s->frames[i].name != q->frames[i].name)
			return false;
	return true;
}

static char *join_frames(const struct m_frame *f, unsigned int n)
{
	size_t len = 1;
	char *s, *at;

	for (unsigned int i = 0; i < n; i++)
		len += strlen(f[i].name) + 1;
	s = at = malloc(len);
	if (!s)
		return NULL;
	*s = '\0';
	for (unsigned int i = 0; i < n; i++)
		at = stpcpy(stpcpy(at, i ? ";" : ""), f[i].name);
	return s;
}

const struct m_stack *m_stack_intern(const struct m_frame *frames, unsigned int n, bool user,
				     bool truncated)
{
	struct stack_probe q = { frames, n, user };
	struct m_stack *s;
	char *label;
	void **at;

	if (pool_reserve(&stacks, stack_hash))
		return NULL;
	at = pool_find(&stacks, frames_hash(frames, n, user), stack_eq, &q);
	if (*at) {
		s = *at;
		s->truncated |= truncated;
		return s;
	}
	s = malloc(sizeof(*s) + n * sizeof(*frames));
	label = join_frames(frames, n);
	if (!s || !label) {
		free(s);
		free(label);
		return NULL;
	}
	s->label = label;
	s->user = user;
	s->truncated = truncated;
	s->nframes = n;
	if (n)
		memcpy(s->frames, frames, n * sizeof(*frames));
	*at = s;
	stacks.n++;
	return s;
}

static struct pool nameds;

static uint64_t named_hash2(uint64_t num, const char *name)
{
	return hash_mix(hash_mix(HASH_SEED ^ num) ^ (uint64_t)(uintptr_t)name);
}

static uint64_t named_hash(const void *e)
{
	const struct m_named *n = e;

	return named_hash2(n->num, n->name);
}

static bool named_eq(const void *e, const void *probe)
{
	const struct m_named *a = e, *b = probe;

	return a->num == b->num && a->name == b->name;
}

const struct m_named *m_named_intern(uint64_t num, const char *name)
{
	struct m_named q = { num, name }, *n;
	void **at;

	if (!name || pool_reserve(&nameds, named_hash))
		return NULL;
	at = pool_find(&nameds, named_hash2(num, name), named_eq, &q);
	if (*at)
		return *at;
	n = malloc(sizeof(*n));
	if (!n)
		return NULL;
	*n = q;
	*at = n;
	nameds.n++;
	return n;
}

const struct m_stack *m_stack_marker(const char *text)
{
	struct m_frame f = { .name = m_intern(text, strlen(text)) };

	return f.name ? m_stack_intern(&f, 1, false, false) : NULL;
}

/* ---- compact histograms -------------------------------------------------- */

int m_hist_set(struct m_hist *mh, const struct hist *h)
{
	int lo = 0, hi = HIST_BUCKETS - 1;
	hist_u64 *slots = NULL;

	while (lo < HIST_BUCKETS && !h->slots[lo])
		lo++;
	while (hi > lo && !h->slots[hi])
		hi--;
	if (lo < HIST_BUCKETS) {
		slots = malloc((hi - lo + 1) * sizeof(*slots));
		if (!slots)
			return -ENOMEM;
		memcpy(slots, &h->slots[lo], (hi - lo + 1) * sizeof(*slots));
	}
	free(mh->slots);
	*mh = (struct m_hist){ h->count, h->sum, h->sumsq_lo, h->sumsq_hi, h->min, h->max };
	mh->lo = slots ? lo : 0;
	mh->n = slots ? hi - lo + 1 : 0;
	mh->slots = slots;
	return 0;
}

void m_hist_get(const struct m_hist *mh, struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->count = mh->count;
	h->sum = mh->sum;
	h->sumsq_lo = mh->sumsq_lo;
	h->sumsq_hi = mh->sumsq_hi;
	h->min = mh->min;
	h->max = mh->max;
	if (mh->n)
		memcpy(&h->slots[mh->lo], mh->slots, mh->n * sizeof(*mh->slots));
}

int m_hist_add(struct m_hist *mh, const struct hist *h)
{
	struct hist sum;

	if (!h->count)
		return 0;
	m_hist_get(mh, &sum);
	hist_merge(&sum, h);
	return m_hist_set(mh, &sum);
}

/* ---- groups, indexed by their key values -------------------------------- */

static uint64_t key_hash(const struct m_value *k, int n)
{
	uint64_t h = HASH_SEED;

	for (int i = 0; i < n; i++)
		h = hash_mix(h ^ k[i].type ^
			     (k[i].type == MV_NUM ? k[i].num : (uint64_t)(uintptr_t)k[i].text));
	return h;
}

static bool key_eq(const struct m_value *a, const struct m_value *b, int n)
{
	for (int i = 0; i < n; i++) {
		if (a[i].type != b[i].type)
			return false;
		if (a[i].type == MV_NUM ? a[i].num != b[i].num : a[i].text != b[i].text)
			return false;
	}
	return true;
}

/* The index slot of this key: its group's, or the empty one to fill. */
static int *index_slot(const struct measurement *m, const struct m_value *key)
{
	unsigned int mask = m->index_size - 1, i = key_hash(key, m->nby) & mask;

	while (m->index[i] >= 0 && !key_eq(m->groups[m->index[i]].key, key, m->nby))
		i = (i + 1) & mask;
	return &m->index[i];
}

static int index_grow(struct measurement *m)
{
	unsigned int size = m->index_size ? m->index_size * 2 : 64;
	int *old = m->index;

	m->index = malloc(size * sizeof(*m->index));
	if (!m->index) {
		m->index = old;
		return -ENOMEM;
	}
	memset(m->index, 0xff, size * sizeof(*m->index));
	m->index_size = size;
	for (int g = 0; g < m->ngroups; g++)
		*index_slot(m, m->groups[g].key) = g;
	free(old);
	return 0;
}

const struct m_group *measurement_find(const struct measurement *m, const struct m_value *key)
{
	int g;

	if (!m->index_size)
		return NULL;
	g = *index_slot(m, key);
	return g >= 0 ? &m->groups[g] : NULL;
}

struct m_group *measurement_group(struct measurement *m, const struct m_value *key)
{
	struct m_group *g;
	int *slot;

	if ((unsigned int)(m->ngroups + 1) * 2 > m->index_size && index_grow(m))
		return NULL;
	slot = index_slot(m, key);
	if (*slot >= 0)
		return &m->groups[*slot];
	if (m->ngroups == m->cap) {
		int cap = m->cap ? m->cap * 2 : 16;
		struct m_group *ng = realloc(m->groups, cap * sizeof(*ng));

		if (!ng)
			return NULL;
		m->groups = ng;
		m->cap = cap;
	}
	g = &m->groups[m->ngroups];
	memset(g, 0, sizeof(*g));
	if (m->nby)
		memcpy(g->key, key, m->nby * sizeof(*key));
	*slot = m->ngroups++;
	return g;
}

int measurement_retire(struct measurement *m, bool (*gone)(const struct m_group *, void *),
		       void *ctx)
{
	int kept = 0, removed;

	for (int i = 0; i < m->ngroups; i++) {
		if (gone(&m->groups[i], ctx)) {
			free(m->groups[i].h.slots);
			free(m->groups[i].ex);
		} else
			m->groups[kept++] = m->groups[i];
	}
	removed = m->ngroups - kept;
	m->ngroups = kept;
	if (removed && m->index_size) {
		memset(m->index, 0xff, m->index_size * sizeof(*m->index));
		for (int g = 0; g < m->ngroups; g++)
			*index_slot(m, m->groups[g].key) = g;
	}
	return removed;
}

void measurement_add_drop(struct measurement *m, const char *name, uint64_t value)
{
	for (int i = 0; i < m->ndrops; i++) {
		if (!strcmp(m->drops[i].name, name)) {
			m->drops[i].value += value;
			return;
		}
	}
	if (m->ndrops < M_MAX_DROPS)
		m->drops[m->ndrops++] = (struct m_drop){ name, value };
}

/* Counters of events without a partner by nature, not losses: an END
 * whose START came before tracing began, a START while one was pending (a
 * wakeup of a task that was still running), a return whose call came
 * before tracing began (docs/json.md). */
bool m_drop_unmatched(const char *name)
{
	static const char *const names[] = {
		"end_without_start", "start_replaced", "return_without_entry",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static uint64_t drops_sum(const struct measurement *m, bool unmatched)
{
	uint64_t n = 0;

	for (int i = 0; i < m->ndrops; i++)
		if (m_drop_unmatched(m->drops[i].name) == unmatched)
			n += m->drops[i].value;
	return n;
}

uint64_t measurement_lost(const struct measurement *m)
{
	return drops_sum(m, false);
}

uint64_t measurement_unmatched(const struct measurement *m)
{
	return drops_sum(m, true);
}

void m_cost_add(struct m_cost *to, const struct m_cost *c)
{
	to->programs += c->programs;
	to->err = to->err ? to->err : c->err;
	to->runs += c->runs;
	to->run_ns += c->run_ns;
	/* the engines of one run share one sampler */
	to->sampled = to->sampled ? to->sampled : c->sampled;
	to->map_bytes += c->map_bytes;
}

int measurement_merge(struct measurement *to, const struct measurement *from)
{
	struct hist h;

	for (int i = 0; i < from->ngroups; i++) {
		const struct m_group *f = &from->groups[i];
		struct m_group *g = measurement_group(to, f->key);

		if (!g)
			return -ENOMEM;
		m_hist_get(&f->h, &h);
		if (m_hist_add(&g->h, &h))
			return -ENOMEM;
		g->self_ns += f->self_ns;
		g->total_ns += f->total_ns;
		if (m_explain_add(&g->ex, f->ex, 1))
			return -ENOMEM;
	}
	return 0;
}

void measurement_copy_header(struct measurement *dst, const struct measurement *src)
{
	*dst = *src;
	dst->ngroups = dst->cap = dst->ndrops = 0;
	dst->groups = NULL;
	dst->index = NULL;
	dst->index_size = 0;
}

void measurement_clear(struct measurement *m)
{
	for (int i = 0; i < m->ngroups; i++) {
		free(m->groups[i].h.slots);
		free(m->groups[i].ex);
	}
	free(m->groups);
	free(m->index);
	m->groups = NULL;
	m->index = NULL;
	m->ngroups = m->cap = m->ndrops = 0;
	m->index_size = 0;
}

int measurement_diff(struct measurement *out, const struct measurement *cur,
		     const struct measurement *prev)
{
	struct hist c_h, p_h, d_h;

	measurement_copy_header(out, cur);
	if (prev) {
		out->cost.runs -= prev->cost.runs;
		out->cost.run_ns -= prev->cost.run_ns;
	}
	for (int i = 0; i < cur->ngroups; i++) {
		const struct m_group *c = &cur->groups[i], *p = NULL;
		struct m_group *g;
		int err;

		if (prev)
			p = measurement_find(prev, c->key);
		if (p && p->h.count == c->h.count)
			continue;	/* nothing new in this interval */
		g = measurement_group(out, c->key);
		if (!g)
			return -ENOMEM;
		m_hist_get(&c->h, &c_h);
		if (p)
			m_hist_get(&p->h, &p_h);
		else
			memset(&p_h, 0, sizeof(p_h));
		hist_sub(&d_h, &c_h, &p_h);
		err = m_hist_set(&g->h, &d_h);
		if (err)
			return err;
		g->self_ns = c->self_ns - (p ? p->self_ns : 0);
		g->total_ns = c->total_ns - (p ? p->total_ns : 0);
		if (m_explain_add(&g->ex, c->ex, 1) || (p && m_explain_add(&g->ex, p->ex, -1)))
			return -ENOMEM;
	}
	for (int i = 0; i < cur->ndrops; i++) {
		uint64_t before = 0;

		for (int j = 0; prev && j < prev->ndrops; j++) {
			if (!strcmp(prev->drops[j].name, cur->drops[i].name))
				before = prev->drops[j].value;
		}
		measurement_add_drop(out, cur->drops[i].name, cur->drops[i].value - before);
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
#include "measure.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct m_group *measurement_group(struct measurement *m, const void *key, size_t len)
{
	struct m_group *g;

	if (len > M_KEY_BYTES)
		len = M_KEY_BYTES;
	for (int i = 0; i < m->ngroups; i++) {
		if (!memcmp(m->groups[i].key, key, len))
			return &m->groups[i];
	}
	if (m->ngroups == m->cap) {
		int cap = m->cap ? m->cap * 2 : 16;
		struct m_group *ng = realloc(m->groups, cap * sizeof(*ng));

		if (!ng)
			return NULL;
		m->groups = ng;
		m->cap = cap;
	}
	g = &m->groups[m->ngroups++];
	memset(g, 0, sizeof(*g));
	memcpy(g->key, key, len);
	return g;
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

uint64_t measurement_lost(const struct measurement *m)
{
	uint64_t n = 0;

	for (int i = 0; i < m->ndrops; i++)
		n += m->drops[i].value;
	return n;
}

void m_cost_add(struct m_cost *to, const struct m_cost *c)
{
	to->programs += c->programs;
	to->err = to->err ? to->err : c->err;
	to->runs += c->runs;
	to->run_ns += c->run_ns;
}

void measurement_copy_header(struct measurement *dst, const struct measurement *src)
{
	*dst = *src;
	dst->ngroups = dst->cap = dst->ndrops = 0;
	dst->groups = NULL;
}

void measurement_clear(struct measurement *m)
{
	for (int i = 0; i < m->ngroups; i++) {
		for (int j = 0; j < M_MAX_BY; j++)
			free(m->groups[i].label[j]);
	}
	free(m->groups);
	m->groups = NULL;
	m->ngroups = m->cap = m->ndrops = 0;
}

int measurement_diff(struct measurement *out, const struct measurement *cur,
		     const struct measurement *prev)
{
	static const struct hist empty;

	measurement_copy_header(out, cur);
	if (prev) {
		out->cost.runs -= prev->cost.runs;
		out->cost.run_ns -= prev->cost.run_ns;
	}
	for (int i = 0; i < cur->ngroups; i++) {
		const struct m_group *c = &cur->groups[i], *p = NULL;
		struct m_group *g;

		for (int j = 0; prev && j < prev->ngroups; j++) {
			if (!memcmp(prev->groups[j].key, c->key, M_KEY_BYTES)) {
				p = &prev->groups[j];
				break;
			}
		}
		if (p && p->h.count == c->h.count)
			continue;	/* nothing new in this interval */
		g = measurement_group(out, c->key, M_KEY_BYTES);
		if (!g)
			return -ENOMEM;
		hist_sub(&g->h, &c->h, p ? &p->h : &empty);
		g->self_ns = c->self_ns - (p ? p->self_ns : 0);
		g->total_ns = c->total_ns - (p ? p->total_ns : 0);
		for (int j = 0; j < M_MAX_BY; j++)
			g->label[j] = c->label[j] ? strdup(c->label[j]) : NULL;
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

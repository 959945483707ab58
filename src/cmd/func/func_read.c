// SPDX-License-Identifier: GPL-2.0
/* kdist func: the BPF maps and bucket pages read into the measurement. */
#include "cmd/func/func_int.h"
#include "func.skel.h"
#include "kernel/btfpath.h"
#include "kernel/explain_bpf.h"
#include "kernel/keys.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* Every CPU's bucket pages, read once per reading: the pool's pages in use,
 * one value per CPU each (fp->pages, fp->npages). */
static int read_pages(struct func *fp)
{
	size_t stride = engine_percpu_stride(sizeof(struct func_page));
	int fd = bpf_map__fd(fp->skel->maps.func_pages);
	__u32 used = 0;
	char *buf;

	buf = realloc(fp->pages, stride * fp->eng.ncpu);
	if (!buf)
		return -ENOMEM;
	fp->pages = buf;
	if (bpf_map_lookup_elem(fd, &(__u32){ 0 }, buf))
		return -errno;
	for (int c = 0; c < fp->eng.ncpu; c++) {
		const struct func_page *pool = (const void *)(buf + c * stride);

		if (pool->slots[0] > used)
			used = pool->slots[0] > fp->cfg.pages ? fp->cfg.pages : pool->slots[0];
	}
	buf = realloc(fp->pages, stride * fp->eng.ncpu * (used + 1));
	if (!buf)
		return -ENOMEM;
	fp->pages = buf;
	fp->npages = used + 1;
	for (__u32 p = 1; p <= used; p++)
		if (bpf_map_lookup_elem(fd, &p, buf + p * stride * fp->eng.ncpu))
			return -errno;
	return 0;
}

/* The histogram of one function (and group), summed over the CPUs. */
static int read_val(struct func *fp, int fd, const void *key, struct hist *h,
		    unsigned long long *total, unsigned long long *self)
{
	size_t stride = engine_percpu_stride(sizeof(struct func_page));
	const struct func_val *v = engine_percpu(&fp->eng, fd, key);
	struct hist one;

	if (!v)
		return -errno;
	_Static_assert(sizeof(*v) % 8 == 0, "per-CPU values are 8-byte aligned");
	memset(h, 0, sizeof(*h));
	*total = *self = 0;
	for (int c = 0; c < fp->eng.ncpu; c++) {
		memset(&one, 0, sizeof(one));
		one.st = v[c].st;
		for (int j = 0; j < FUNC_PAGES; j++) {
			const struct func_page *pg;
			unsigned int p = v[c].page[j];

			if (!p || p >= fp->npages)
				continue;
			pg = (const void *)(fp->pages + (p * fp->eng.ncpu + c) * stride);
			memcpy(&one.slots[j * FUNC_PAGE_SLOTS], pg->slots, sizeof(pg->slots));
		}
		hist_merge(h, &one);
		*total += v[c].total;
		*self += v[c].self;
	}
	return 0;
}

/* The values read by read_val. */
struct func_sum {
	struct hist h;
	unsigned long long total, self;
};

/* --by PATH's value in key k: a text, an enum's name, or a number. */
static struct m_value path_value(const struct func *fp, const struct func_key *k)
{
	const char *name;

	if (fp->cfg.path_text)
		return mv_text(m_intern(k->text, strnlen(k->text, sizeof(k->text))));
	name = fp->by_path_enum ? btfpath_enum_name(fp->by_path_enum, (long long)k->num) : NULL;
	return name ? mv_text(name) : mv_num(k->num);
}

/* The values of key k, in the order given to --by.  0 or -ENOMEM. */
static int key_values(const struct func *fp, const struct func_key *k, struct m_value *key)
{
	key[0] = mv_text(m_intern(fp->fns[k->id].label, strlen(fp->fns[k->id].label)));
	/* in the order given to --by */
	for (int j = 1; j < fp->header.nby; j++) {
		const char *by = fp->header.by[j];

		if (!strcmp(by, "comm"))
			key[j] = mv_text(m_intern(k->comm, FUNC_STR_LEN));
		else if (!strcmp(by, "pid") || !strcmp(by, "tid"))
			key[j] = mv_num(!strcmp(by, "pid") ? k->pid : k->tid);
		else if (!strcmp(by, fp->by_path))
			key[j] = path_value(fp, k);
		else	/* the cgroup, or its container, pod... */
			key[j] = key_normalize(mv_num(k->cgroup), fp->header.by_fmt[j]);
		if (key[j].type == MV_TEXT && !key[j].text)
			return -ENOMEM;
	}
	return key[0].text ? 0 : -ENOMEM;
}

static int add_group(struct func *fp, struct measurement *m, const struct func_key *k,
		     const struct func_sum *v)
{
	struct m_value key[M_MAX_BY];
	struct m_group *g;
	int err = key_values(fp, k, key);

	if (err)
		return err;
	g = measurement_group(m, key);
	if (!g)
		return -ENOMEM;
	if (m_hist_add(&g->h, &v->h))
		return -ENOMEM;
	g->self_ns += v->self;
	g->total_ns += v->total;
	return 0;
}

/* --explain: the group of m a key of explain_groups is, for explain_read() */
static int explain_group_of(void *ctx, struct measurement *m, const void *key,
			    struct m_group **g)
{
	const struct func_key *k = &((const struct func_ex_key *)key)->group;
	struct func *fp = ctx;
	struct m_value v[M_MAX_BY];

	*g = NULL;
	if (k->id >= fp->n || key_values(fp, k, v))
		return 0;
	*g = (struct m_group *)measurement_find(m, v);
	return 0;
}

int func_read(struct session *s, struct measurement *m)
{
	struct func *fp = s->priv;
	struct func_key k, next, *cur = NULL;
	struct func_sum *v = malloc(sizeof(*v));
	int fd, err;

	if (!v)
		return -ENOMEM;
	measurement_copy_header(m, &fp->header);
	err = engine_read(&fp->eng, m);
	if (!err)
		err = read_pages(fp);
	if (err)
		goto out;
	if (!fp->cfg.grouped) {
		fd = bpf_map__fd(fp->skel->maps.func_vals);
		for (__u32 i = 0; i < fp->n && !err; i++) {
			if (!fp->fns[i].attached)
				continue;
			memset(&k, 0, sizeof(k));
			k.id = i;
			err = read_val(fp, fd, &i, &v->h, &v->total, &v->self);
			if (!err && v->h.count)
				err = add_group(fp, m, &k, v);
		}
		goto out;
	}
	fd = bpf_map__fd(fp->skel->maps.group_vals);
	while (!err && !bpf_map_get_next_key(fd, cur, &next)) {
		k = next;
		cur = &k;
		if (k.id >= fp->n || read_val(fp, fd, &k, &v->h, &v->total, &v->self))
			continue;
		err = add_group(fp, m, &k, v);
	}
	for (const struct engine_spilled *sp = NULL;
	     !err && (sp = engine_spilled_next(&fp->eng, sp, &k, sizeof(k)));) {
		if (k.id >= fp->n)
			continue;
		v->h = *sp->h;
		v->self = sp->self;
		v->total = sp->total;
		err = add_group(fp, m, &k, v);
	}
out:
	if (!err && fp->cfg.explain)
		err = explain_read(&fp->eng, bpf_map__fd(fp->skel->maps.explain_groups),
				   sizeof(struct func_ex_key), offsetof(struct func_ex_key, row), m,
				   explain_group_of, fp);
	free(v);
	return err;
}

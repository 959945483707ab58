// SPDX-License-Identifier: GPL-2.0
/* Kernel symbols: the text symbols of /proc/kallsyms in one sorted array,
 * names pointing into the file contents. */
#include "syms/ksyms.h"
#include "syms/symtab.h"
#include "lib/util.h"

#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Symbols beyond the last one of vmlinux or of a module are only trusted
 * this far; past it the address is more likely in a gap. */
#define KSYM_TAIL_MAX (64 * 1024)

struct ksym_ent {
	struct ksym sym;	/* first: ksyms_find() returns &ent->sym */
	uint32_t idx;		/* line number, for a stable order */
	uint8_t rank;		/* T=0, W=1, t=2, w=3 */
	uint8_t underscores;
};

struct ksyms {
	struct ksym_ent *ents;
	size_t nr;
	char *buf;		/* file contents; names point into it */
};

static int ksym_rank(char type)
{
	switch (type) {
	case 'T': return 0;
	case 'W': return 1;
	case 't': return 2;
	case 'w': return 3;
	default: return -1;
	}
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym_ent *x = a, *y = b;

	if (x->sym.addr != y->sym.addr)
		return x->sym.addr < y->sym.addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->underscores != y->underscores)
		return x->underscores - y->underscores;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Parse the buffer in place.  Returns 0, -ENOMEM or -EPERM (all
 * addresses zero: hidden by kptr_restrict). */
static int ksyms_parse(struct ksyms *ks)
{
	size_t cap = 0;
	uint32_t idx = 0;
	bool nonzero = false, any = false;
	char *p = ks->buf;

	while (*p) {
		char *line = p, *nl = strchrnul(p, '\n');
		char *name, *end, *mod = NULL;
		struct ksym_ent *n;
		uint64_t addr;
		size_t us;
		int rank;

		p = *nl ? nl + 1 : nl;
		*nl = '\0';
		idx++;

		/* "ffffffff81000000 T _text" or "... t foo\t[mod]" */
		if (!isxdigit((unsigned char)*line))
			continue;
		addr = strtoull(line, &line, 16);
		if (line[0] != ' ' || !line[1] || line[2] != ' ')
			continue;
		any = true;
		if (addr)
			nonzero = true;
		rank = ksym_rank(line[1]);
		if (rank < 0)
			continue;
		name = line + 3;
		end = name + strcspn(name, " \t");
		if (end == name)
			continue;
		if (*end) {
			char *q = end + 1, *close;

			*end = '\0';
			q += strspn(q, " \t");
			if (*q == '[' && (close = strchr(q, ']'))) {
				*close = '\0';
				mod = q + 1;
			}
		}
		/* fewer leading underscores: a more "public" alias */
		us = strspn(name, "_");
		n = symtab_reserve(ks->ents, &cap, ks->nr + 1, sizeof(*n));
		if (!n)
			return -ENOMEM;
		ks->ents = n;
		ks->ents[ks->nr++] = (struct ksym_ent){
			.sym = { .addr = addr, .name = name, .module = mod },
			.idx = idx,
			.rank = (uint8_t)rank,
			.underscores = (uint8_t)(us > 255 ? 255 : us),
		};
	}
	if (any && !nonzero)
		return -EPERM;
	if (ks->nr)
		qsort(ks->ents, ks->nr, sizeof(*ks->ents), ksym_cmp);
	return 0;
}

struct ksyms *ksyms_load_file(const char *path)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	int err;

	if (!ks) {
		errno = ENOMEM;
		return NULL;
	}
	err = read_file(path, &ks->buf, NULL);
	if (err) {
		kd_err("failed to read kernel symbols from %s: %s", path,
		       strerror(-err));
		goto fail;
	}
	err = ksyms_parse(ks);
	if (err == -EPERM) {
		kd_err("failed to read kernel symbols from %s: addresses are hidden (kptr_restrict); run as root",
		       path);
		goto fail;
	}
	if (err) {
		kd_err("failed to parse kernel symbols from %s: %s", path,
		       strerror(-err));
		goto fail;
	}
	kd_info("loaded %zu kernel text symbols from %s", ks->nr, path);
	return ks;
fail:
	ksyms_free(ks);
	errno = -err;
	return NULL;
}

struct ksyms *ksyms_load(void)
{
	return ksyms_load_file("/proc/kallsyms");
}

static struct ksyms *kernel_ks;
static int kernel_err;

static void kernel_load(void)
{
	kernel_ks = ksyms_load();
	if (!kernel_ks)
		kernel_err = errno ? errno : EIO;
}

const struct ksyms *ksyms_kernel(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, kernel_load);
	if (!kernel_ks)
		errno = kernel_err;
	return kernel_ks;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->ents);
	free(ks->buf);
	free(ks);
}

size_t ksyms_count(const struct ksyms *ks)
{
	return ks ? ks->nr : 0;
}

const struct ksym *ksyms_at(const struct ksyms *ks, size_t i)
{
	return ks && i < ks->nr ? &ks->ents[i].sym : NULL;
}

static bool same_module(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr)
{
	const struct ksym_ent *e;
	size_t lo, i;

	if (!ks || !ks->nr)
		return NULL;
	lo = symtab_upper(ks->ents, ks->nr, sizeof(*ks->ents),
			  offsetof(struct ksym_ent, sym.addr), addr);
	if (!lo)
		return NULL;
	i = lo - 1;
	/* the preferred alias sorts first among equal addresses */
	while (i > 0 && ks->ents[i - 1].sym.addr == ks->ents[i].sym.addr)
		i--;
	e = &ks->ents[i];
	if (addr - e->sym.addr >= KSYM_TAIL_MAX &&
	    (lo == ks->nr || !same_module(e->sym.module, ks->ents[lo].sym.module)))
		return NULL;
	return &e->sym;
}

const char *ksyms_name_of(const struct ksyms *ks, uint64_t addr)
{
	const struct ksym *s = ksyms_find(ks, addr);

	return s ? s->name : NULL;
}

const struct ksym *ksyms_find_name(const struct ksyms *ks, const char *name)
{
	size_t i;

	if (!ks)
		return NULL;
	for (i = 0; i < ks->nr; i++)
		if (!strcmp(ks->ents[i].sym.name, name))
			return &ks->ents[i].sym;
	return NULL;
}

int ksyms_data_addrs(const char *path, const char *const *names, uint64_t *addrs, bool *got,
		     int n)
{
	char line[512], type, sym[256];
	unsigned long long a;
	bool any = false, shown = false;
	int left = n, err = 0;
	uint64_t found = 0;	/* a bit per name */
	FILE *f = fopen(path, "re");

	for (int i = 0; i < n; i++) {
		addrs[i] = 0;
		if (got)
			got[i] = false;
	}
	if (!f)
		return -errno;

	/* until all are found and some address is seen not to be hidden (0
	 * is a true address too: x86-64's per-CPU section starts there) */
	while (!(!left && shown) && fgets(line, sizeof(line), f)) {
		int pos = 0;

		if (sscanf(line, "%llx %c %255s%n", &a, &type, sym, &pos) != 3)
			continue;
		shown |= a != 0;
		/* local variables are listed only with CONFIG_KALLSYMS_ALL */
		if (type == 'd' || type == 'b')
			any = true;
		/* vmlinux's own: a module's symbol is followed by [module] */
		if (!left || strchr("tTwW", type) || strchr(line + pos, '['))
			continue;
		for (int i = 0; i < n && i < 64; i++)
			if (!(found & (1ULL << i)) && !strcmp(sym, names[i])) {
				addrs[i] = a;
				found |= 1ULL << i;
				if (got)
					got[i] = true;
				left--;
			}
	}
	fclose(f);
	if (!found)
		err = any ? -ENOENT : -ENODATA;
	else if (!shown)
		err = -EPERM;
	else if (left)
		err = -ENOENT;
	return err;
}

int ksyms_data_addr(const char *path, const char *name, uint64_t *addr)
{
	return ksyms_data_addrs(path, &name, addr, NULL, 1);
}

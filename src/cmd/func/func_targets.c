// SPDX-License-Identifier: GPL-2.0
/* kdist func: the functions of the patterns, kernel (globs over kallsyms)
 * and user (u:PATH:GLOB). */
#include "cmd/func/func_int.h"
#include "kernel/feature.h"
#include "kernel/tracefs.h"
#include "syms/syms.h"
#include "syms/uprobe.h"
#include "lib/util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool excluded(const struct patterns *pt, const char *name)
{
	for (int i = 0; i < pt->nexcl; i++)
		if (glob_match(pt->excl[i], name))
			return true;
	return false;
}

static int fn_add(struct func *fp, const char *label, const char *name, const char *module,
		  const char *path, uint64_t offset)
{
	struct fn *f;

	if (fp->n == fp->cap) {
		size_t cap = fp->cap ? fp->cap * 2 : 64;
		struct fn *v = realloc(fp->fns, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		fp->fns = v;
		fp->cap = cap;
	}
	f = &fp->fns[fp->n];
	memset(f, 0, sizeof(*f));
	f->label = strdup(label);
	f->name = strdup(name);
	f->path = path;
	f->offset = offset;
	f->module = module ? strdup(module) : NULL;
	if (!f->label || !f->name || (module && !f->module)) {
		free(f->label);
		free(f->name);
		free(f->module);
		return -ENOMEM;
	}
	fp->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ksyms by name, vmlinux's first of a name (kprobes and fentry by name
 * attach to the first in kallsyms order) */
static int cmp_ksym_name(const void *a, const void *b)
{
	const struct ksym *x = *(const struct ksym *const *)a, *y = *(const struct ksym *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return (x->module != NULL) - (y->module != NULL);
}

static int cmp_ksym_key(const void *key, const void *elem)
{
	return strcmp(((const struct ksym *)key)->name, (*(const struct ksym *const *)elem)->name);
}

static bool in_sorted(char **v, size_t n, const char *name)
{
	return n && bsearch(&name, v, n, sizeof(*v), cmp_str);
}

/* Function names of a file with one per line, the name first (tracefs
 * available_filter_functions: "name [module]"; kprobes blacklist:
 * "0xstart-0xend name"), sorted.  *buf owns the strings. */
static int read_names(const char *path, int field, char ***out, size_t *n, char **buf)
{
	size_t len, cap = 0;
	char *line, *save = NULL;
	int err;

	*out = NULL;
	*n = 0;
	err = read_file(path, buf, &len);
	if (err)
		return err;
	for (line = strtok_r(*buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tok = strtok(line, " \t");

		for (int i = 0; tok && i < field; i++)
			tok = strtok(NULL, " \t");
		if (!tok)
			continue;
		if (*n == cap) {
			char **v = realloc(*out, (cap = cap ? cap * 2 : 4096) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			*out = v;
		}
		(*out)[(*n)++] = tok;
	}
	qsort(*out, *n, sizeof(**out), cmp_str);
	return 0;
}

/* Kernel functions: kallsyms text symbols matching a pattern, traceable
 * when ftrace lists them (available_filter_functions: not notrace, not
 * inlined away) and kprobes do not refuse them (the kprobes blacklist). */
int func_add_kernel(struct func *fp, const struct patterns *pt)
{
	char path[512], *fbuf = NULL, *bbuf = NULL, **avail = NULL, **deny = NULL;
	const struct ksym **names = NULL;
	const char **exact = NULL;
	size_t navail, ndeny = 0, nnames = 0, matched = 0, nexact = 0;
	int *globs = NULL, nglobs = 0;
	int *per_glob = calloc(pt->nkernel, sizeof(int));
	const struct ksyms *ks;
	const struct ksym *k;
	int err = -ENOMEM;

	if (!per_glob)
		goto out;
	if (!feature_has(FEAT_KPROBE, NULL) && !feature_has(FEAT_FENTRY, NULL)) {
		const char *why;

		feature_has(FEAT_FENTRY, &why);
		kd_err("failed to trace '%s': this kernel has no kprobes (CONFIG_KPROBES) and no "
		       "fentry (%s), so no kernel functions; user functions (u:PATH:GLOB) work",
		       pt->kernel[0], why);
		err = -EOPNOTSUPP;
		goto out;
	}
	if (!tracefs_root()) {
		err = -ENODEV;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/available_filter_functions", tracefs_root());
	err = read_names(path, 0, &avail, &navail, &fbuf);
	if (err) {
		kd_err("failed to read %s: %s", path, strerror(-err));
		goto out;
	}
	if (read_names("/sys/kernel/debug/kprobes/blacklist", 1, &deny, &ndeny, &bbuf))
		kd_info("no kprobes blacklist (debugfs not mounted): relying on attach errors");
	ks = ksyms_kernel();
	if (!ks) {
		err = -errno;
		goto out;
	}
	names = malloc(ksyms_count(ks) * sizeof(*names));
	if (!names) {
		err = -ENOMEM;
		goto out;
	}
	/* Plain names by binary search, globs by matching: a list of 1000
	 * names would otherwise cost 1000 matches per kernel symbol. */
	exact = malloc(pt->nkernel * sizeof(*exact));
	globs = malloc(pt->nkernel * sizeof(*globs));
	if (!exact || !globs) {
		err = -ENOMEM;
		goto out;
	}
	for (int g = 0; g < pt->nkernel; g++) {
		if (strpbrk(pt->kernel[g], "*?[\\"))
			globs[nglobs++] = g;
		else
			exact[nexact++] = pt->kernel[g];
	}
	qsort(exact, nexact, sizeof(*exact), cmp_str);
	for (size_t i = 0; (k = ksyms_at(ks, i)); i++) {
		bool hit = in_sorted((char **)exact, nexact, k->name);

		/* padding and CFI stubs before functions are not functions */
		if (!strncmp(k->name, "__pfx_", 6) || !strncmp(k->name, "__cfi_", 6))
			continue;
		for (int j = 0; j < nglobs; j++) {
			if (glob_match(pt->kernel[globs[j]], k->name)) {
				per_glob[globs[j]]++;
				hit = true;
			}
		}
		if (hit && !excluded(pt, k->name))
			names[nnames++] = k;
	}
	qsort(names, nnames, sizeof(*names), cmp_ksym_name);
	for (int g = 0; g < pt->nkernel; g++) {
		if (!per_glob[g] && !bsearch(&(struct ksym){ .name = pt->kernel[g] }, names, nnames,
					     sizeof(*names), cmp_ksym_key) &&
		    !excluded(pt, pt->kernel[g])) {
			kd_err("failed to find kernel functions matching '%s': no such symbol "
			       "in /proc/kallsyms (a module's functions are there only while "
			       "it is loaded: lsmod, modprobe)", pt->kernel[g]);
			err = -ENOENT;
			goto out;
		}
	}
	/* one function per name: that is what kprobes attach to by name */
	for (size_t i = 0; i < nnames; i++) {
		const char *name = names[i]->name;

		if (i && !strcmp(name, names[i - 1]->name))
			continue;
		matched++;
		/* the kprobes blacklist holds for fentry too: the same set
		 * whatever the method, and what is unsafe to probe stays so */
		if (!in_sorted(avail, navail, name) || in_sorted(deny, ndeny, name)) {
			fp->skipped++;
			continue;
		}
		err = fn_add(fp, name, name, names[i]->module, NULL, 0);
		if (err)
			goto out;
		fp->nkernel++;
	}
	kd_info("%zu kernel functions match, %zu traceable", matched, fp->nkernel);
	err = 0;
out:
	free(per_glob);
	free(exact);
	free(globs);
	free(names);
	free(avail);
	free(fbuf);
	free(deny);
	free(bbuf);
	return err;
}

struct user_ctx {
	struct func *fp;
	const struct patterns *pt;
	const char *path, *base;
	struct elf_syms *es;
	int fd;			/* the binary, for first instructions */
	uint64_t entry;
	size_t first, found;
	int err;
};

static int user_sym(const struct elf_sym *sym, void *arg)
{
	struct user_ctx *c = arg;
	uint64_t off = sym->offset;
	const char *why;
	char label[320];

	if (excluded(c->pt, sym->name))
		return 0;
	c->found++;
	/* A uretprobe replaces the return address on entry; the entry point
	 * has none (its stack starts with argc), and an IFUNC symbol is the
	 * resolver, not the function. */
	if (sym->addr == c->entry || sym->type == STT_GNU_IFUNC ||
	    (!off && elf_syms_vaddr_to_offset(c->es, sym->addr, &off))) {
		kd_info("skipping %s in %s: %s", sym->name, c->path,
			sym->addr == c->entry ? "the entry point never returns" :
			sym->type == STT_GNU_IFUNC ? "an IFUNC resolver" : "no file offset");
		c->fp->skipped++;
		return 0;
	}
	why = uprobe_unsafe(c->fd, sym, off, true);
	if (why) {
		kd_info("skipping %s in %s: %s", sym->name, c->path, why);
		c->fp->skipped++;
		return 0;
	}
	/* the same function through another pattern */
	for (size_t i = c->first; i < c->fp->n; i++)
		if (c->fp->fns[i].path == c->path && c->fp->fns[i].offset == off)
			return 0;
	snprintf(label, sizeof(label), "%s:%s", c->base, sym->name);
	c->fp->nuser++;
	return fn_add(c->fp, label, sym->name, NULL, c->path, off);
}

static uint64_t elf_entry(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t e = 0;

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && eh.e_ident[EI_CLASS] == ELFCLASS64)
		e = eh.e_entry;
	close(fd);
	return e;
}

/* u:PATH:GLOB, PATH a file or a name such as libc */
int func_add_user(struct func *fp, const struct patterns *pt, const char *spec)
{
	struct user_ctx c = { .fp = fp, .pt = pt };
	const char *glob = strrchr(spec + 2, ':');
	char want[256], path[512], **paths;
	int err, i;

	if (!glob || glob == spec + 2 || !glob[1] || glob - spec - 2 >= (long)sizeof(want)) {
		kd_err("bad pattern '%s': expected u:PATH:GLOB", spec);
		return -EINVAL;
	}
	snprintf(want, sizeof(want), "%.*s", (int)(glob - spec - 2), spec + 2);
	glob++;
	err = resolve_binary_path(want, path, sizeof(path));
	if (err) {
		kd_err("failed to find '%s' of %s: %s", want, spec, strerror(-err));
		return err;
	}
	err = uprobe_refuse_self(path, spec);
	if (err)
		return err;
	for (i = 0; i < fp->npaths && strcmp(fp->paths[i], path); i++)
		;
	if (i == fp->npaths) {
		paths = realloc(fp->paths, (fp->npaths + 1) * sizeof(*paths));
		if (!paths)
			return -ENOMEM;
		fp->paths = paths;
		paths[fp->npaths] = strdup(path);
		if (!paths[fp->npaths])
			return -ENOMEM;
		fp->npaths++;
	}
	c.path = fp->paths[i];
	c.base = strrchr(c.path, '/') ? strrchr(c.path, '/') + 1 : c.path;
	c.es = elf_syms_load(c.path);
	if (!c.es)
		return -errno;
	c.entry = elf_entry(c.path);
	c.fd = open(c.path, O_RDONLY | O_CLOEXEC);
	err = c.fd < 0 ? -errno : elf_syms_match(c.es, glob, user_sym, &c);
	if (c.fd < 0)
		kd_err("failed to open %s: %s", c.path, strerror(-err));
	else
		close(c.fd);
	elf_syms_free(c.es);
	if (err < 0)
		return err;
	if (!c.found) {
		kd_err("failed to find functions of %s matching '%s'", c.path, glob);
		return -ENOENT;
	}
	return 0;
}

int func_parse_patterns(struct options *o, struct patterns *pt)
{
	pt->kernel = calloc(o->nargs, sizeof(char *));
	pt->user = calloc(o->nargs, sizeof(char *));
	pt->excl = calloc(o->nargs, sizeof(char *));
	if (!pt->kernel || !pt->user || !pt->excl)
		return -ENOMEM;
	for (int i = 0; i < o->nargs; i++) {
		const char *a = o->args[i];

		if (a[0] == '!' && a[1])
			pt->excl[pt->nexcl++] = a + 1;
		else if (!strncmp(a, "u:", 2))
			pt->user[pt->nuser++] = a;
		else if (!strncmp(a, "k:", 2) && a[2])
			pt->kernel[pt->nkernel++] = a + 2;
		else if (a[0] && a[0] != '!' && !strchr(a, ':'))
			pt->kernel[pt->nkernel++] = a;
		else {
			kd_err("bad pattern '%s': expected GLOB, k:GLOB, u:PATH:GLOB or !GLOB", a);
			return -EINVAL;
		}
	}
	if (!pt->nkernel && !pt->nuser) {
		kd_err("bad arguments: expected PATTERN..., e.g. kdist func 'vfs_*' or "
		       "kdist func 'u:libc:malloc'");
		return -EINVAL;
	}
	return 0;
}

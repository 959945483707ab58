/* SPDX-License-Identifier: GPL-2.0 */
/* What the files of kdist func share: the functions traced and the
 * command's state (func.c), shared by finding the functions
 * (func_targets.c), choosing the method and loading (func_load.c),
 * attaching (func_attach.c), reading (func_read.c) and detaching
 * (func_detach.c). */
#ifndef KDIST_FUNC_INT_H
#define KDIST_FUNC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "cmd/func/func.h"
#include "cmd/command.h"
#include "kernel/engine.h"

struct func_bpf;
struct progress;
struct stack_syms;

struct fn {
	char *label;		/* kernel: name; user: "binary:name" */
	char *name;
	char *module;		/* kernel functions of a module: its name */
	const char *path;	/* user functions: the resolved binary */
	uint64_t offset;	/* user functions: file offset */
	bool attached;
};

struct func {
	struct func_bpf *skel;
	char *pages;		/* read_pages(): npages pages, ncpu values each */
	__u32 npages;
	struct fn *fns;
	size_t n, cap;
	char **paths;		/* resolved user binaries, owned */
	int npaths;
	struct func_cfg cfg;
	bool fentry;		/* kernel functions by fentry/fexit copies */
	bool kprobes;		/* kprobe programs loaded for kernel functions */
	bool multi;		/* ... as kprobe.multi */
	size_t nfentry, nkprobe;	/* kernel functions attached each way */
	uint64_t fentry_load_ns;	/* loading fentry copies, for -v */
	bool umulti;		/* user functions through uprobe.multi */
	int *ufds;		/* uprobe.multi link descriptors */
	size_t nufds;
	size_t nuprobes;	/* uprobes attached, entry and return */
	size_t nkernel, nuser;
	size_t skipped;		/* matched but not traceable or not attached */
	struct engine eng;	/* its links: every link, kernel or user */
	struct progress *progress;	/* while attaching: the functions tried */
	struct stack_syms *syms;	/* --stack */
	const char *drops_shown[NR_FDROPS];	/* the counters it can have: names, else NULL */
	char by_path[64];	/* --by PATH, as given */
	int by_path_enum;	/* its enum's BTF id, when it is one */
	struct measurement header;
};

struct patterns {
	const char **kernel, **user, **excl;
	int nkernel, nuser, nexcl;
};

int func_parse_patterns(struct options *o, struct patterns *pt);
int func_add_kernel(struct func *fp, const struct patterns *pt);
int func_add_user(struct func *fp, const struct patterns *pt, const char *spec);
int func_load(struct func *fp, struct options *o);
int func_attach(struct session *s);
int func_read(struct session *s, struct measurement *m);
void func_detach(struct func *fp);

#endif

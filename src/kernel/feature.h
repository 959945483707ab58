/* SPDX-License-Identifier: GPL-2.0 */
/* What this kernel can do, probed by trying, never by version. */
#ifndef KDIST_FEATURE_H
#define KDIST_FEATURE_H

#include <stdbool.h>

enum feature {
	FEAT_TRACEFS,
	FEAT_BTF,
	FEAT_TRACEPOINT,
	FEAT_RAW_TP,
	FEAT_TP_BTF,
	FEAT_KPROBE,
	FEAT_KPROBE_MULTI,
	FEAT_FENTRY,
	FEAT_ATTACH_COOKIE,
	FEAT_UPROBE,
	FEAT_PERF_SAMPLING,
	FEAT_STACK_MAP,
	FEAT_TASK_STORAGE_MAP,
	FEAT_TASK_STORAGE_TP,
	FEAT_TASK_STORAGE_KPROBE,
	FEAT_TASK_STORAGE_FENTRY,
	FEAT_RINGBUF,
	FEAT_ATOMICS,
	FEAT_PERF_NOPREALLOC,
	NR_FEATURES,
};

/* Probed once, cached.  *why gets a short reason when false. */
bool feature_has(enum feature f, const char **why);
const char *feature_name(enum feature f);

/* Whether programs of this type may call bpf_task_storage_get: libbpf
 * cannot tell for fentry (tracing) programs, kdist tries one. */
bool prog_type_task_storage(int prog_type);

/* Whether a raw tracepoint of this name can be attached (tried with an
 * empty program, so without parsing BTF). */
bool raw_tp_exists(const char *name);

/* Where kernel function name is described in the kernel's BTF: vmlinux's,
 * else a loaded module's (/sys/kernel/btf/MODULE, CONFIG_DEBUG_INFO_BTF_MODULES).
 * module, when known (kallsyms' [MODULE]), narrows the search to it. */
struct kfunc_btf {
	int id;			/* the FUNC's type id in that BTF */
	int obj_fd;		/* 0: vmlinux; else the module's BTF object (kept open) */
	unsigned int nargs;
	const char *module;	/* NULL: vmlinux */
};
/* 0, or -ENOENT with *why. */
int kfunc_btf_find(const char *name, const char *module, struct kfunc_btf *kb, const char **why);

/* Whether an fentry (fexit when ret) program attaches to kernel function
 * name (of vmlinux or of a module), tried with an empty program; *nargs
 * gets its argument count.  False with *why when not (no BTF for it, a
 * function the kernel refuses...). */
bool fentry_works(const char *name, bool ret, unsigned int *nargs, const char **why);

#endif

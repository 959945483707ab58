/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel symbols from /proc/kallsyms (conventions in syms.h). */
#ifndef KDIST_KSYMS_H
#define KDIST_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* NULL for vmlinux, else e.g. "ext4", "bpf" */
};

struct ksyms;

/* Text symbols (types t, T, w, W) of /proc/kallsyms, sorted by address.
 * Fails with EPERM when the kernel hides addresses (kptr_restrict). Errors
 * are reported with kd_err(). */
struct ksyms *ksyms_load(void);
/* Same, from a file in kallsyms format. */
struct ksyms *ksyms_load_file(const char *path);
/* /proc/kallsyms as ksyms_load() reads it, once for the process and kept
 * (never freed): every user shares one copy.  NULL with errno set, the
 * same each time, if it could not be read (reported once). */
const struct ksyms *ksyms_kernel(void);
void ksyms_free(struct ksyms *ks);
size_t ksyms_count(const struct ksyms *ks);
/* The i-th symbol in address order, or NULL past the end. */
const struct ksym *ksyms_at(const struct ksyms *ks, size_t i);
/* Symbol containing addr: the closest symbol at or below addr.  For aliases
 * at one address a global name is preferred over a local one.  NULL if addr
 * is below the first symbol or too far past the end of the last symbol of a
 * module or of vmlinux. */
const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr);
/* Name of the symbol containing addr, or NULL. */
const char *ksyms_name_of(const struct ksyms *ks, uint64_t addr);
/* First symbol with this exact name (linear scan), or NULL. */
const struct ksym *ksyms_find_name(const struct ksyms *ks, const char *name);
/* The address of the kernel's data symbol (a variable: types d, b, r...,
 * of vmlinux, not of a module) called name, from the kallsyms file at path
 * (/proc/kallsyms): 0; -ENOENT when it has no such symbol, -ENODATA when
 * it lists no data symbols at all (CONFIG_KALLSYMS_ALL is off), -EPERM
 * when addresses are hidden (kptr_restrict). */
int ksyms_data_addr(const char *path, const char *name, uint64_t *addr);
/* The same for the n names (at most 64) at once, in one pass over the
 * file: 0 when all are found; -ENOENT when some are not (got[i], unless
 * got is NULL, says which were), -ENODATA, -EPERM as above. */
int ksyms_data_addrs(const char *path, const char *const *names, uint64_t *addrs, bool *got,
		     int n);

#endif

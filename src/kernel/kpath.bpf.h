/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Following a kpath (kpath.h) and reading variable-length strings, on the
 * BPF side.  Every failure is returned as enum kpath_err for the caller
 * to count; a text longer than the buffer is cut and said so (*cut).
 * Only programs whose rodata names a path or such a string reach these.
 */
#ifndef KDIST_KPATH_BPF_H
#define KDIST_KPATH_BPF_H

#include "kernel/common.bpf.h"
#include "kernel/kpath.h"

/* A read's failure (enum kpath_err) and a cut text, counted in the
 * command's own drop counters. */
static __always_inline void kpath_count(int err, bool cut, __u32 null_drop, __u32 fault_drop,
					__u32 cut_drop)
{
	if (err)
		drop(err == KPATH_NULL ? null_drop : fault_drop);
	if (cut)
		drop(cut_drop);
}

/* The address of p's final read, starting from base (the argument). */
static __always_inline int kpath_addr(const volatile struct kpath *p, __u64 base, __u64 *addr)
{
	__u64 a = base;

	if (p->base == KPATH_GLOBAL) {
		a = p->addr;
	} else if (p->base == KPATH_PERCPU) {
		__u64 cpu = p->cpu < 0 ? bpf_get_smp_processor_id() : (__u32)p->cpu, off;

		if (bpf_probe_read_kernel(&off, sizeof(off), (void *)(p->pcpu + 8 * cpu)))
			return KPATH_FAULT;
		a = p->addr + off;
	}

	for (int i = 0; i < KPATH_MAX_DEREF; i++) {
		if (i >= p->nderef)
			break;
		if (!a)
			return KPATH_NULL;
		if (bpf_probe_read_kernel(&a, sizeof(a), (void *)(a + p->off[i])))
			return KPATH_FAULT;
	}
	if (!a)
		return KPATH_NULL;
	*addr = a + p->off[p->nderef < KPATH_MAX_DEREF ? p->nderef : KPATH_MAX_DEREF];
	return KPATH_OK;
}

/* p's number at base into *v (0 when it fails). */
static __always_inline int kpath_num(const volatile struct kpath *p, __u64 base, __u64 *v)
{
	unsigned int shift;
	__u64 a;
	int err = kpath_addr(p, base, &a);

	*v = 0;
	if (err)
		return err;
	if (bpf_probe_read_kernel(v, p->size & 15, (void *)a))
		return KPATH_FAULT;
	shift = 64 - 8 * p->size;
	*v <<= shift;
	*v = p->is_signed ? (__u64)((__s64)*v >> shift) : *v >> shift;
	return KPATH_OK;
}

/* The text at kernel address a into buf (size bytes, NUL-terminated);
 * *cut when it went on past buf (the byte after the last one kept is not
 * a NUL).  max: the most the text can hold (an array's length), 0 if
 * unknown. */
static __always_inline int kstr_at(const void *a, char *buf, unsigned int size,
				   unsigned int max, bool *cut)
{
	char next = 0;
	long n = bpf_probe_read_kernel_str(buf, size, a);

	if (n < 0)
		return KPATH_FAULT;
	if (n == size && (!max || max > size - 1)) {
		bpf_probe_read_kernel(&next, 1, a + size - 1);
		*cut = next != 0;
	}
	return KPATH_OK;
}

/* p's text at base into buf. */
static __always_inline int kpath_str(const volatile struct kpath *p, __u64 base, char *buf,
				     unsigned int size, bool *cut)
{
	__u64 a;
	int err = kpath_addr(p, base, &a);

	if (err)
		return err;
	if (p->final == KPATH_STR_PTR) {
		if (bpf_probe_read_kernel(&a, sizeof(a), (void *)a))
			return KPATH_FAULT;
		if (!a)
			return KPATH_NULL;
		return kstr_at((void *)a, buf, size, 0, cut);
	}
	return kstr_at((void *)a, buf, size, p->len, cut);
}

/* A __data_loc text field of a trace record at off: its place and length
 * (with the NUL) are in the u32 there. */
static __always_inline int dloc_str(void *rec, unsigned int off, char *buf, unsigned int size,
				    bool *cut)
{
	__u32 loc = 0;

	if (bpf_probe_read_kernel(&loc, sizeof(loc), rec + off))
		return KPATH_FAULT;
	if (bpf_probe_read_kernel_str(buf, size, rec + (loc & 0xffff)) < 0)
		return KPATH_FAULT;
	*cut = (loc >> 16) > size;
	return KPATH_OK;
}

/* A text as a number that --key can match on (FNV-1a, 64 bits) over the
 * n bytes of the array s, up to its NUL: two texts that differ collide
 * with odds of about 2^-64. */
static __always_inline __u64 kstr_hash(const char *s, unsigned int n)
{
	__u64 h = 0xcbf29ce484222325ULL;

	for (unsigned int i = 0; i < n; i++) {
		if (!s[i])
			break;
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	}
	return h;
}
#define str_hash(s) kstr_hash(s, sizeof(s))

#endif

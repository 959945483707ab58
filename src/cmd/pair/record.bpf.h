/* SPDX-License-Identifier: GPL-2.0 */
/* A number field of a tracepoint record (pair, trace): s->size bytes at
 * s->off, sign-extended when the field is signed. */
#ifndef KDIST_RECORD_BPF_H
#define KDIST_RECORD_BPF_H

#include "cmd/pair/pair.h"

static __always_inline __u64 record_field(void *ctx, const volatile struct val_src *s)
{
	__u64 v = 0;
	unsigned int shift;

	bpf_probe_read_kernel(&v, s->size, ctx + s->off);
	shift = 64 - 8 * s->size;
	v <<= shift;
	return s->is_signed ? (__u64)((__s64)v >> shift) : v >> shift;
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Groups that are one small number, in per-CPU arrays (see dense.h).  A
 * number gets its slot the first time it comes: the slot counter is
 * taken with an atomic add and the number's entry set by compare-and-swap,
 * so two CPUs seeing a new number at once agree on one slot (the loser's
 * is left unused).  A number that finds the slots taken is marked
 * DENSE_NONE and goes to the group hash from then on; dense_used grows
 * at most once per number, so slots are never handed out twice.
 * The two tables swap like the group tables (pair.bpf.c).
 */
#ifndef KDIST_DENSE_BPF_H
#define KDIST_DENSE_BPF_H

#include "kernel/dense.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* DENSE_VALUES when used */
	__type(key, __u32);
	__type(value, __u64);	/* 64-bit: atomics of BPF v2 and v3 alike */
} dense_slot SEC(".maps");

struct dense_hists {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);		/* 1 + DENSE_SLOTS when used */
	__type(key, __u32);
	__type(value, struct hist);
} dense_a SEC(".maps"), dense_b SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct dense_hists);
} dense_table SEC(".maps") = {
	.values = { &dense_a },
};

__u64 dense_used;	/* slots handed out, including lost races */

/* The histogram of number v on this CPU; NULL: v goes to the hash. */
static __always_inline struct hist *dense_hist(__u64 v)
{
	__u32 k = v, zero = 0, s;
	__u64 old, *slot;
	void *t;

	if (v >= DENSE_VALUES)
		return NULL;
	slot = bpf_map_lookup_elem(&dense_slot, &k);
	if (!slot)
		return NULL;
	s = *slot;
	if (!s) {
		old = kd_fetch_add(&dense_used, 1) + 1;
		s = old > DENSE_SLOTS ? DENSE_NONE : old;
		old = kd_cmpxchg(slot, 0, s);
		if (old)
			s = old;
	}
	if (s == DENSE_NONE)
		return NULL;
	t = bpf_map_lookup_elem(&dense_table, &zero);
	return t ? bpf_map_lookup_elem(t, &s) : NULL;
}

#endif

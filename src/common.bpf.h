/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every kdist BPF object shares (pair, func, profile, offcpu): the loss
 * counters and drop(), the lookup-or-init of a map value, and the stack map
 * of STACK_DEPTH frames.  The user side of each piece is engine.c: it reads
 * the map named `drops` by the names the command gives its entries.
 * Each including object gets its own copy of the maps.
 */
#ifndef KDIST_COMMON_BPF_H
#define KDIST_COMMON_BPF_H

#include "stacks.h"	/* STACK_DEPTH, shared with the user side */

/* Entries of `drops`: at least any command's number of loss reasons
 * (NR_DROPS, NR_FDROPS, NR_SDROPS); user space reads the ones it names. */
#define KD_MAX_DROPS 8

/* Every way an event is lost is counted, per CPU, never silently. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KD_MAX_DROPS);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

static __always_inline void drop_n(__u32 what, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&drops, &what);

	if (c)
		*c += n;
}

static __always_inline void drop(__u32 what)
{
	drop_n(what, 1);
}

/* The value of key, created from init if missing; NULL when the map is
 * full.  A concurrent creator may win the insert: the lookup after it
 * returns whichever value is there. */
static __always_inline void *lookup_or_init(void *map, const void *key, const void *init)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

/* A stack trace map of STACK_DEPTH frames per entry, max_entries resized
 * by user space where stacks are used. */
#define STACK_MAP(name, entries)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_STACK_TRACE);			\
		__uint(max_entries, entries);				\
		__uint(key_size, sizeof(__u32));			\
		__uint(value_size, STACK_DEPTH * sizeof(__u64));	\
	} name SEC(".maps")

#endif

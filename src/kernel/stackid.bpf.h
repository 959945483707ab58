/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack ids that a hash collision does not lose.  A stack trace map keeps
 * one stack per bucket, the bucket chosen by a hash of the frames, and
 * bpf_get_stackid() fails with -EEXIST for every stack whose bucket holds
 * another: without BPF_F_REUSE_STACKID the first stack keeps it for the
 * whole run, with it the ids counted before point to the wrong frames.
 * With a few thousand stacks in 16384 buckets many collide (a 5 s profile
 * of a busy machine lost 8% of its samples so; once a -c workload's hottest
 * stack, all of it).
 *
 * So a stack the map refuses is taken again with bpf_get_stack() and kept
 * in a hash map of its own under a 30-bit hash of its frames, with
 * STACK_HASHED set in its id (kernel/stacks.h); user space reads it from
 * there.  Two different stacks with the same 30 bits there are a collision
 * again (counted as before), a chance of about n^2 / 2^31 for the n stacks
 * that needed it.  The common path costs what bpf_get_stackid() costs.
 *
 * Each including object gets its own copy of the maps, one entry each
 * until user space sizes them (stack_maps_size(), stacks.c).
 */
#ifndef KDIST_STACKID_BPF_H
#define KDIST_STACKID_BPF_H

#include "kernel/common.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* preallocated: perf_event programs may use no other hash map */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[STACK_DEPTH]);
} stacks_by_hash SEC(".maps");

/* The frames being hashed: too big for the BPF stack.  busy: a program
 * that interrupted another of this object on this CPU midway leaves the
 * buffer alone (its stack is a collision). */
struct stack_scratch {
	__u64 busy;
	__u64 ips[STACK_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_scratch);
} stack_scratch SEC(".maps");

static __noinline long stack_by_hash(void *ctx, __u64 flags)
{
	struct stack_scratch *s = bpf_map_lookup_elem(&stack_scratch, &(__u32){ 0 });
	__u64 h = 0xcbf29ce484222325ULL, *old;
	long n, id = -EEXIST;
	__u32 key;

	if (!s || s->busy)
		return -EEXIST;
	s->busy = 1;
	n = bpf_get_stack(ctx, s->ips, sizeof(s->ips), flags);	/* zero-filled */
	if (n <= 0)
		goto out;
	for (int i = 0; i < STACK_DEPTH && i < n / 8; i++)
		h = (h ^ s->ips[i]) * 0x100000001b3ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	key = STACK_HASHED | (h & (STACK_HASHED - 1));
	old = bpf_map_lookup_elem(&stacks_by_hash, &key);
	if (!old) {
		long err = bpf_map_update_elem(&stacks_by_hash, &key, s->ips, BPF_NOEXIST);

		if (!err) {
			id = key;
			goto out;
		}
		old = err == -EEXIST ? bpf_map_lookup_elem(&stacks_by_hash, &key) : NULL;
		if (!old) {
			id = -ENOMEM;
			goto out;
		}
	}
	for (int i = 0; i < STACK_DEPTH; i++)
		if (old[i] != s->ips[i])
			goto out;
	id = key;
out:
	s->busy = 0;
	return id;
}

/* The id of the current stack (flags: bpf_get_stackid()'s): >= 0, or the
 * negative errno of a loss: -EEXIST a collision, -ENOMEM a full map,
 * -EFAULT no stack (the user stack of a kernel thread). */
static __always_inline long stack_get(void *ctx, __u64 flags)
{
	long id = bpf_get_stackid(ctx, &stacks, flags);

	return id == -EEXIST ? stack_by_hash(ctx, flags) : id;
}

#endif

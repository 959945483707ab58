/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every kdist BPF object shares (pair, func, profile, offcpu): the loss
 * counters and drop(), the lookup-or-init of a map value, the hand-over of
 * events whose group could not be created (spill.h), the timing of its own
 * cost (owncost.bpf.h); the stack maps are stackid.bpf.h's.  The user side
 * of each piece is engine.c: it reads the map named `drops` by the names
 * the command gives its entries.
 * Each including object gets its own copy of the maps.
 */
#ifndef KDIST_COMMON_BPF_H
#define KDIST_COMMON_BPF_H

#include "kernel/stacks.h"	/* STACK_DEPTH, shared with the user side */
#include "kernel/spill.h"
#include "kernel/copy.h"
#include "kernel/owncost.bpf.h"

/* errno values the helpers return (vmlinux.h has no macros) */
#ifndef E2BIG
#define E2BIG 7
#endif
#ifndef ENOMEM
#define ENOMEM 12
#endif
#ifndef EEXIST
#define EEXIST 17
#endif


/* What a program on a perf tracepoint (SEC("tracepoint")) returns decides
 * whether the event goes on to perf: perf_trace_run_bpf_submit()
 * (kernel/events/core.c) hands the record to the tracepoint's perf events
 * only when trace_call_bpf() (kernel/trace/bpf_trace.c: "0 - return from
 * kprobe (event is filtered out)", "1 - store kprobe event into ring
 * buffer") returns non-zero.  Returning 0 would hide the event from every
 * perf stat, perf record and perf trace of the machine on that tracepoint.
 * Raw and BTF tracepoint programs' return values are ignored; the kprobe and
 * uprobe events kdist attaches are its own, no one else's. */
#define TP_PASS 1

/* Atomic fetch-add and compare-and-swap (BPF atomics, Linux 5.12).  A
 * kernel before them refuses a program that holds one anywhere, even on a
 * path that never runs, so objects are also built without them
 * (KDIST_NO_ATOMICS, pair_noatomics.bpf.o): there these are plain reads
 * and writes, and what needs them (groups in arrays, --match fifo) is
 * refused or not chosen before loading.  An add whose result is unused
 * needs neither: __sync_fetch_and_add compiles to the old XADD. */
#ifndef KDIST_NO_ATOMICS
#define kd_fetch_add(p, v) __sync_fetch_and_add(p, v)
#define kd_cmpxchg(p, o, n) __sync_val_compare_and_swap(p, o, n)
#else
#define kd_fetch_add(p, v) ({ __typeof__(*(p)) kd_old_ = *(p); *(p) = kd_old_ + (v); kd_old_; })
#define kd_cmpxchg(p, o, n) ({ __typeof__(*(p)) kd_old_ = *(p); \
			       if (kd_old_ == (o)) *(p) = (n); kd_old_; })
#endif

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

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, SPILL_RING_BYTES);
} spill SEC(".maps");

/* The group value of key in a group table, created from init if missing.
 * NULL when it cannot be had: *full says whether the table holds its
 * --max-groups (the event is lost, a bound the user set) or the kernel had
 * no memory for it right now (the event goes to spill_event()). */
static __always_inline void *group_value(void *map, const void *key, const void *init,
					 bool *full)
{
	void *v = bpf_map_lookup_elem(map, key);
	long err;

	if (v)
		return v;
	err = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	v = bpf_map_lookup_elem(map, key);
	*full = !v && err == -E2BIG;
	return v;
}

/* Submit rec, reserved in ring, without waking the reader: a line per
 * event would wake kdist as often, and on the traced thread's CPU it would
 * preempt the thread it traces.  The reader wakes by itself instead, every
 * EVENTS_PERIOD_MS (events.h), and is woken here only once a quarter of
 * the ring waits, so that a burst cannot fill the ring in between. */
#define kd_ringbuf_submit_batched(ring, rec)					\
	bpf_ringbuf_submit(rec, bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) >=	\
				(bpf_ringbuf_query(ring, BPF_RB_RING_SIZE) >> 2) ?	\
				BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP)

/* Hand an event of group key (key_size: a constant) to user space (spill.h). */
static __always_inline void spill_event(const void *key, __u32 key_size, __u64 value,
					__u64 self, __u32 nested)
{
	struct spill_head *r = bpf_ringbuf_reserve(&spill, sizeof(*r) + key_size, 0);

	if (!r) {
		drop(KD_DROP_SPILL);
		return;
	}
	r->value = value;
	r->self = self;
	r->nested = nested;
	r->key_size = key_size;
	__builtin_memcpy(r + 1, key, key_size);
	bpf_ringbuf_submit(r, 0);
}

/* This copy's number (kernel/copy.h): PROG_COPY_MARK where the program was
 * not copied.  One load in asm, so that the mark stays an immediate. */
static __always_inline __u32 copy_id(void)
{
	__u64 id;

	asm volatile("%0 = %1" : "=r"(id) : "i"(PROG_COPY_MARK));
	return id;
}

#endif

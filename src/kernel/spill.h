/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events whose group the kernel could not create at that moment, handed to
 * user space instead of being lost (BPF side: common.bpf.h, user side:
 * engine.c).
 *
 * The per-CPU values of kdist's group tables (BPF_F_NO_PREALLOC) are
 * allocated on the hot path, from what the kernel keeps ready: atomic
 * per-CPU memory, refilled by a work item.  A burst of new groups, such as a
 * workload's first syscalls, can find none of it (-ENOMEM) while the table
 * is far from full.  Such an event goes through the ring buffer `spill` as a
 * record of this header followed by the group's key; user space adds it to
 * what it reads from the table.  Only a full ring loses it, counted as
 * group_memory_failed.
 */
#ifndef KDIST_SPILL_H
#define KDIST_SPILL_H

#define SPILL_RING_BYTES (256 * 1024)

/* Entries of the `drops` map (common.bpf.h): any command's loss reasons
 * (NR_DROPS, NR_FDROPS, NR_SDROPS, named by the command) and, in the last
 * one, the events spill_event() could not hand over, which engine.c reads
 * for every command. */
#define KD_MAX_DROPS 12
#define KD_DROP_SPILL (KD_MAX_DROPS - 1)

struct spill_head {
	unsigned long long value;	/* a latency, a sample (1), a call's time */
	unsigned long long self;	/* func: the call's self time */
	unsigned int nested;		/* func: called inside itself */
	unsigned int key_size;		/* bytes of key after this header */
};

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* --match: how STARTs in flight per key pair with ENDs (match.bpf.h). */
#ifndef KDIST_MATCH_H
#define KDIST_MATCH_H

enum match_mode {
	MATCH_REPLACE,	/* one per key: a new START replaces it (start_replaced) */
	MATCH_FIFO,	/* a queue per key: the oldest START pairs first */
	MATCH_LIFO,	/* a stack per thread: the innermost START pairs first */
};

/* STARTs in flight per key (a power of two): a queue is 16 + 88 * MQ_DEPTH
 * bytes, allocated for a key at its first START. */
#define MQ_DEPTH 16

#endif

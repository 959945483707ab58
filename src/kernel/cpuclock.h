/* SPDX-License-Identifier: GPL-2.0 */
/* A program on a CPU's clock: profile's samples, trace --every's timer. */
#ifndef KDIST_CPUCLOCK_H
#define KDIST_CPUCLOCK_H

#include "kernel/engine.h"

struct bpf_program;

/* Run prog every period_ns of CPU cpu's clock (a cpu-clock perf event,
 * whose timer fires in idle too), its link kept by e: 0, -ENODEV for a CPU
 * that is offline (not said), or -errno after one line naming the CPU. */
int cpu_clock_attach(struct engine *e, struct bpf_program *prog, int cpu,
		     unsigned long long period_ns);

#endif

// SPDX-License-Identifier: GPL-2.0
/* A program on a CPU's clock: see cpuclock.h. */
#include "kernel/cpuclock.h"
#include "lib/util.h"

#include <errno.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/libbpf.h>

int cpu_clock_attach(struct engine *e, struct bpf_program *prog, int cpu,
		     unsigned long long period_ns)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = period_ns,
	};
	int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC), err;

	if (fd < 0) {
		err = -errno;
		if (err != -ENODEV)
			kd_err("failed to open the cpu-clock event on CPU %d: %s", cpu,
			       strerror(-err));
		return err;
	}
	err = engine_link(e, bpf_program__attach_perf_event(prog, fd));
	if (err) {
		close(fd);
		kd_err("failed to attach %s to CPU %d's clock: %s", bpf_program__name(prog), cpu,
		       strerror(-err));
	}
	return err;
}

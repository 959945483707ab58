// SPDX-License-Identifier: GPL-2.0
/* floor tp|tpdrop|raw|clock|thread|storage [PID] [stats]: attach two empty
 * programs to raw_syscalls sys_enter and sys_exit (classic or raw
 * tracepoints; "clock": raw tracepoints that read the clock once each;
 * "thread" and "storage": steps towards kdist pair, for process PID, see
 * floor.bpf.c), say "attached", wait for a signal.  With "stats", BPF
 * run-time statistics are on meanwhile, as they are while kdist runs:
 * their cost alone. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "floor.skel.h"

static void nop(int sig) { (void)sig; }

int main(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "tp";
	bool stats = false;
	struct floor_bpf *skel = floor_bpf__open();
	struct bpf_program *p;

	if (!skel)
		return 1;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "stats"))
			stats = true;
		else
			skel->rodata->tgid = atoi(argv[i]);
	}
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, !strncmp(bpf_program__name(p), kind, strlen(kind)) &&
					  bpf_program__name(p)[strlen(kind)] == '_');
	if (floor_bpf__load(skel) || floor_bpf__attach(skel)) {
		fprintf(stderr, "floor: failed to load or attach\n");
		return 1;
	}
	if (stats && bpf_enable_stats(BPF_STATS_RUN_TIME) < 0) {
		fprintf(stderr, "floor: failed to enable BPF run-time statistics\n");
		return 1;
	}
	signal(SIGINT, nop);
	signal(SIGTERM, nop);
	fprintf(stderr, "attached\n");
	pause();
	floor_bpf__destroy(skel);
	return 0;
}

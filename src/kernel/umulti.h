/* SPDX-License-Identifier: GPL-2.0 */
/* User-function sets attached as one uprobe.multi link (umulti.c). */
#ifndef KDIST_UMULTI_H
#define KDIST_UMULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_program;

/* Whether this kernel has uprobe.multi links (Linux 6.6). */
bool uprobe_multi_supported(const char **why);
/* Prepare prog, before loading, for uprobe_multi_attach(). */
void uprobe_multi_prepare(struct bpf_program *prog);
/* One uprobe.multi link on n offsets of path, each with its cookie;
 * returns the link descriptor or -errno. */
int uprobe_multi_attach(const struct bpf_program *prog, const char *path,
			const uint64_t *offsets, const uint64_t *cookies, size_t n,
			bool retprobe, int pid);

#endif

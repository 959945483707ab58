// SPDX-License-Identifier: GPL-2.0
/* User-function sets attached as one uprobe.multi link (Linux 6.6), by the
 * link_create system call: the libbpf kdist links may predate it. */
#include "kernel/umulti.h"

#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* Linux 6.6 UAPI, newer than the headers libbpf 1.1 is built with */
#define KD_BPF_TRACE_UPROBE_MULTI 48
#define KD_BPF_F_UPROBE_MULTI_RETURN 1U

/* The link_create part of union bpf_attr for uprobe.multi (Linux 6.6) */
struct uprobe_multi_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, umflags, pid;
	uint32_t pad[8];
};

static int link_create(int prog_fd, const char *path, const uint64_t *offsets,
		       const uint64_t *cookies, size_t n, bool retprobe, int pid)
{
	struct uprobe_multi_attr a = {
		.prog_fd = prog_fd,
		.attach_type = KD_BPF_TRACE_UPROBE_MULTI,
		.path = (uintptr_t)path,
		.offsets = (uintptr_t)offsets,
		.cookies = (uintptr_t)cookies,
		.cnt = (uint32_t)n,
		.umflags = retprobe ? KD_BPF_F_UPROBE_MULTI_RETURN : 0,
		.pid = pid > 0 ? (uint32_t)pid : 0,
	};
	int fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));

	return fd < 0 ? -errno : fd;
}

bool uprobe_multi_supported(const char **why)
{
	static const struct bpf_insn ret0[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },
		{ .code = 0x95 },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = KD_BPF_TRACE_UPROBE_MULTI);
	static int state;	/* 0 unknown, 1 yes, -1 no */
	static const char *reason = "";
	uint64_t off = 0, cookie = 0;
	int fd, lfd;

	if (!state) {
		fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", ret0, 2, &o);
		if (fd < 0) {
			reason = "program load refused";
			state = -1;
		} else {
			/* offset 0 is the ELF header, in no executable mapping:
			 * the link exists but no breakpoint is ever written */
			lfd = link_create(fd, "/proc/self/exe", &off, &cookie, 1, false, 0);
			state = lfd >= 0 ? 1 : -1;
			if (lfd >= 0)
				close(lfd);
			else
				reason = "link refused (Linux 6.6)";
			close(fd);
		}
	}
	if (why)
		*why = reason;
	return state > 0;
}

void uprobe_multi_prepare(struct bpf_program *prog)
{
	bpf_program__set_expected_attach_type(prog, KD_BPF_TRACE_UPROBE_MULTI);
}

int uprobe_multi_attach(const struct bpf_program *prog, const char *path,
			const uint64_t *offsets, const uint64_t *cookies, size_t n,
			bool retprobe, int pid)
{
	return link_create(bpf_program__fd(prog), path, offsets, cookies, n, retprobe, pid);
}

/* SPDX-License-Identifier: GPL-2.0 */
/* Attaching programs to kernel functions, one or thousands, by the best
 * method the kernel offers: one kprobe.multi link for a whole set, else one
 * kprobe (or kretprobe) per function.  Used by func and by pair's k:/kr:. */
#ifndef KDIST_KFUNC_H
#define KDIST_KFUNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_program;
struct bpf_link;
struct engine_links;

struct engine;
struct kfunc_req {
	struct bpf_program *entry;	/* on function entry, or NULL */
	struct bpf_program *ret;	/* on function return, or NULL */
	bool multi;			/* both loaded as kprobe.multi programs */
	const char **names;
	const uint64_t *cookies;	/* bpf_get_attach_cookie() per function */
	size_t n;
	struct progress *progress;	/* counts the functions tried, or NULL */
	/* no attach cookies (Linux 5.15): each function gets copies of entry
	 * and ret with its cookie in place of PROG_COPY_MARK (kfunc_prog_copy),
	 * on perf-event kprobes whose descriptors eng keeps */
	struct engine *copies;
};

/* Attach r->entry and r->ret to every function of r->names.  A function is
 * attached with both programs or with none: ok[i] tells which.  A function
 * that cannot be attached is skipped (why with -v), never an error.
 * Returns the number attached, or -EINTR when SIGINT, SIGTERM or SIGHUP is
 * pending (main blocks them and reads them later): the caller cleans up. */
int kfunc_attach(const struct kfunc_req *r, bool *ok, struct engine_links *links);

/* One kprobe or kretprobe with a cookie: the link, or NULL with errno set. */
struct bpf_link *kfunc_attach_one(struct bpf_program *prog, const char *name, bool retprobe,
				  uint64_t cookie);
/* A copy of loaded program tpl with id in place of every `r = PROG_COPY_MARK`
 * (kernel/copy.h), loaded against BTF id btf_id of obj_fd for fentry/fexit (else
 * 0, 0): its descriptor, or -errno. */
int kfunc_prog_copy(struct bpf_program *tpl, uint32_t id, int btf_id, int obj_fd);
/* Program prog_fd on a new kprobe of function name, or uprobe of path at
 * offset (for process pid, or all when not above 0), on entry or return, through a
 * perf event of the kprobe or uprobe PMU (the way of kernels without BPF
 * links for them): the event's descriptor, or -errno. */
int kfunc_perf_probe(int prog_fd, bool uprobe, bool ret, const char *name, uint64_t offset,
		     int pid);
/* Copies of entry and ret (either may be NULL) with id, on kernel function
 * name (path NULL) or on the function of path at offset (for process pid,
 * all when -1): true when both are attached, their descriptors then kept by
 * e; else false with why when -v. */
bool kfunc_attach_copies(struct engine *e, struct bpf_program *entry, struct bpf_program *ret,
			 uint32_t id, const char *name, const char *path, uint64_t offset, int pid);
/* Print why attaching `what` (an event spec) failed: the kernel's lack of
 * kprobes is said as such. */
void kfunc_attach_error(const char *what, int err);

/* A link (and a program, or a perf event) per function and side: many
 * more descriptors than the usual 1024 for large sets.  Raises the soft
 * limit to the hard one. */
void kfunc_raise_fd_limit(void);

/* True when a signal asking kdist to stop is pending. */
bool stop_requested(void);

#endif

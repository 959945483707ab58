/* SPDX-License-Identifier: GPL-2.0 */
/* Programs loaded once per traced function (kfunc_prog_copy): each copy
 * gets its function's number in place of this mark, the immediate of the
 * `r = PROG_COPY_MARK` that copy_id() (common.bpf.h) compiles to.  fentry
 * copies always (one copy per function is loaded anyway), kprobe and
 * uprobe copies where the kernel has no attach cookies (Linux 5.15). */
#ifndef KDIST_COPY_H
#define KDIST_COPY_H

#define PROG_COPY_MARK 0x6b640001

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* What a uprobe may be put on without changing what the traced program
 * does (uprobe.multi links: kernel/umulti.h). */
#ifndef KDIST_UPROBE_H
#define KDIST_UPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_sym;

/* NULL if the function can carry an entry probe and (with retprobe) a
 * return probe, else why not.  fd: the binary, offset: the function's file
 * offset. */
const char *uprobe_unsafe(int fd, const struct elf_sym *sym, uint64_t offset, bool retprobe);
/* The instruction rules of uprobe_unsafe, one per architecture (both
 * built everywhere, for the unit tests; uprobe_unsafe uses the target's):
 * NULL, or why a probe on the first instruction at p (file offset offset)
 * would change the program or be refused by the kernel. */
const char *uprobe_insn_x86(const unsigned char *p, size_t len);
const char *uprobe_insn_arm64(const unsigned char *p, size_t len, uint64_t offset);
/* The same for the symbol name of the binary at path: 0, or one line on
 * stderr and -EINVAL.  A name not found is left to the attach. */
int uprobe_refuse_unsafe(const char *path, const char *name, bool retprobe, const char *spec);

/* 0 unless path is kdist's own binary: then one line on stderr, -EINVAL. */
int uprobe_refuse_self(const char *path, const char *spec);

#endif

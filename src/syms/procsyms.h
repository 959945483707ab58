/* SPDX-License-Identifier: GPL-2.0 */
/* Per-process symbolization of user addresses (conventions in syms.h). */
#ifndef KDIST_PROCSYMS_H
#define KDIST_PROCSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proc_syms;

/* Read /proc/PID/maps and /tmp/perf-PID.map (JIT symbols, if present).
 * ELF symbols of mapped files are loaded lazily on first lookup, through
 * /proc/PID/root (or /proc/PID/map_files for deleted files).  The object is
 * a snapshot: mappings created later are unknown to it. */
struct proc_syms *proc_syms_load(pid_t pid);
void proc_syms_free(struct proc_syms *ps);
/* How many of its mappings were executable when its maps were read. */
int proc_syms_exec_maps(const struct proc_syms *ps);
/* Write the name of the function containing the runtime address addr to
 * buf (no offset).  Always fills buf when len > 0: when no symbol is known
 * it writes "[basename of the mapped file]" or "[unknown]".
 * Returns 0 if a symbol was found, -ENOENT if a fallback was written. */
int proc_syms_resolve(struct proc_syms *ps, uint64_t addr, char *buf,
		      size_t len);

#endif

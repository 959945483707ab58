/* SPDX-License-Identifier: GPL-2.0 */
/* Binary and library paths for uprobes (conventions in syms.h). */
#ifndef KDIST_BINPATH_H
#define KDIST_BINPATH_H

#include <stddef.h>

/* Resolve a user-given binary or library name for uprobes:
 *   - a name with '/' is used as is (it must exist);
 *   - else an executable found on $PATH;
 *   - else a library: "libc.so.6" as is, or "libc"/"c" as libc.so*, found
 *     in the standard library directories and /etc/ld.so.conf.d/ entries.
 *     Only ELF files count, so linker scripts are skipped, and a versioned
 *     soname (libc.so.6) is preferred over libc.so.
 * Returns 0, -ENOENT if nothing was found, -ENOEXEC for an ELF object of
 * another machine or class, -ENAMETOOLONG if out is too
 * small.  Prints nothing. */
int resolve_binary_path(const char *name, char *out, size_t outlen);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* Symbolization, one module per job:
 *   ksyms.h     kernel symbols from /proc/kallsyms;
 *   elfsyms.h   function symbols of ELF files (with separate debug files);
 *   binpath.h   binary and library path resolution for uprobes;
 *   procsyms.h  per-process address-to-name resolution.
 *
 * Loaders that return a pointer return NULL on failure with errno set to a
 * positive error code; all other functions return 0 or a negative errno
 * unless documented otherwise.  Nothing here is thread-safe. */
#ifndef KDIST_SYMS_H
#define KDIST_SYMS_H

#include "syms/binpath.h"
#include "syms/elfsyms.h"
#include "syms/ksyms.h"
#include "syms/procsyms.h"

#endif

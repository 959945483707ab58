/* SPDX-License-Identifier: GPL-2.0 */
/* Symbolization: kernel symbols from /proc/kallsyms, function symbols of ELF
 * files (with separate debug files), library path resolution for uprobes,
 * and per-process address-to-name resolution.
 *
 * Loaders that return a pointer return NULL on failure with errno set to a
 * positive error code; all other functions return 0 or a negative errno
 * unless documented otherwise.  Nothing here is thread-safe. */
#ifndef KDIST_SYMS_H
#define KDIST_SYMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- kernel ------------------------------------------------------------ */

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* NULL for vmlinux, else e.g. "ext4", "bpf" */
};

struct ksyms;

/* Text symbols (types t, T, w, W) of /proc/kallsyms, sorted by address.
 * Fails with EPERM when the kernel hides addresses (kptr_restrict). Errors
 * are reported with kd_err(). */
struct ksyms *ksyms_load(void);
/* Same, from a file in kallsyms format. */
struct ksyms *ksyms_load_file(const char *path);
void ksyms_free(struct ksyms *ks);
size_t ksyms_count(const struct ksyms *ks);
/* The i-th symbol in address order, or NULL past the end. */
const struct ksym *ksyms_at(const struct ksyms *ks, size_t i);
/* Symbol containing addr: the closest symbol at or below addr.  For aliases
 * at one address a global name is preferred over a local one.  NULL if addr
 * is below the first symbol or too far past the end of the last symbol of a
 * module or of vmlinux. */
const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr);
/* Name of the symbol containing addr, or NULL. */
const char *ksyms_name_of(const struct ksyms *ks, uint64_t addr);
/* First symbol with this exact name (linear scan), or NULL. */
const struct ksym *ksyms_find_name(const struct ksyms *ks, const char *name);

/* ---- ELF files --------------------------------------------------------- */

struct elf_sym {
	const char *name;	/* without "@VERSION" suffix */
	uint64_t addr;		/* st_value: virtual address in the file */
	uint64_t size;
	uint64_t offset;	/* file offset for uprobes, 0 if unknown */
	uint8_t bind;		/* STB_GLOBAL, STB_WEAK, STB_LOCAL */
	uint8_t type;		/* STT_FUNC or STT_GNU_IFUNC */
};

struct elf_syms;

/* Function symbols (STT_FUNC, STT_GNU_IFUNC) of .symtab and .dynsym.  If
 * the file has no .symtab, the .symtab of its separate debug file is added
 * too, found via the build-id (/usr/lib/debug/.build-id/xx/yyyy.debug) or
 * .gnu_debuglink (next to the file, in .debug/, or under /usr/lib/debug).
 * A file without any function symbol gives an empty set, not an error.
 * Errors are reported with kd_err(). */
struct elf_syms *elf_syms_load(const char *path);
void elf_syms_free(struct elf_syms *es);
size_t elf_syms_count(const struct elf_syms *es);
/* Path the symbols were loaded from (as given to elf_syms_load). */
const char *elf_syms_path(const struct elf_syms *es);
/* Symbol containing the virtual address vaddr, or NULL.  Aliases resolve to
 * one name: global before weak before local, then fewer leading
 * underscores, then the shorter name. */
const struct elf_sym *elf_syms_find(const struct elf_syms *es, uint64_t vaddr);
/* Symbol with this exact name (the preferred one if several), or NULL. */
const struct elf_sym *elf_syms_find_name(const struct elf_syms *es,
					 const char *name);

/* Return 0 to continue, a negative errno to stop elf_syms_match(). */
typedef int (*elf_sym_fn)(const struct elf_sym *sym, void *ctx);

/* Call fn for each address that has a symbol matching the shell glob, once
 * per address (with the preferred matching alias), in address order.
 * Returns the number of calls made, or the negative value fn returned. */
int elf_syms_match(const struct elf_syms *es, const char *glob, elf_sym_fn fn,
		   void *ctx);

/* Convert between virtual addresses and file offsets with the PT_LOAD
 * program headers.  -ENOENT if no file-backed segment covers the value. */
int elf_syms_vaddr_to_offset(const struct elf_syms *es, uint64_t vaddr,
			     uint64_t *offset);
int elf_syms_offset_to_vaddr(const struct elf_syms *es, uint64_t offset,
			     uint64_t *vaddr);

/* ---- paths ------------------------------------------------------------- */

/* Resolve a user-given binary or library name for uprobes:
 *   - a name with '/' is used as is (it must exist);
 *   - else an executable found on $PATH;
 *   - else a library: "libc.so.6" as is, or "libc"/"c" as libc.so*, found
 *     in the standard library directories and /etc/ld.so.conf.d/ entries.
 *     Only ELF files count, so linker scripts are skipped, and a versioned
 *     soname (libc.so.6) is preferred over libc.so.
 * Returns 0, -ENOENT if nothing was found, -ENAMETOOLONG if out is too
 * small.  Prints nothing. */
int resolve_binary_path(const char *name, char *out, size_t outlen);

/* ---- processes --------------------------------------------------------- */

struct proc_syms;

/* Read /proc/PID/maps and /tmp/perf-PID.map (JIT symbols, if present).
 * ELF symbols of mapped files are loaded lazily on first lookup, through
 * /proc/PID/root (or /proc/PID/map_files for deleted files).  The object is
 * a snapshot: mappings created later are unknown to it. */
struct proc_syms *proc_syms_load(pid_t pid);
void proc_syms_free(struct proc_syms *ps);
/* Write the name of the function containing the runtime address addr to
 * buf (no offset).  Always fills buf when len > 0: when no symbol is known
 * it writes "[basename of the mapped file]" or "[unknown]".
 * Returns 0 if a symbol was found, -ENOENT if a fallback was written. */
int proc_syms_resolve(struct proc_syms *ps, uint64_t addr, char *buf,
		      size_t len);

#endif

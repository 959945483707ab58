/* SPDX-License-Identifier: GPL-2.0 */
/* Function symbols of ELF files, with their separate debug files
 * (conventions in syms.h). */
#ifndef KDIST_ELFSYMS_H
#define KDIST_ELFSYMS_H

#include <stddef.h>
#include <stdint.h>

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
/* Same, but prints nothing: for callers that try several files.  errno is
 * ENOEXEC for a file that is not ELF. */
struct elf_syms *elf_syms_open(const char *path);
/* Same, from an ELF image in memory (e.g. a vdso), without debug files;
 * name is what elf_syms_path() returns.  img must be writable: libelf may
 * convert it in place. */
struct elf_syms *elf_syms_open_image(const char *name, void *img, size_t len);
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

/* Class (ELFCLASS32, ELFCLASS64) and machine (EM_*) of the ELF file at
 * path; -ENOEXEC if it is not one.  Prints nothing. */
int elf_file_arch(const char *path, unsigned int *class, unsigned int *machine);

#endif

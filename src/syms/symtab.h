/* SPDX-License-Identifier: GPL-2.0 */
/* What the address tables of the symbol modules (kernel symbols, ELF
 * symbols, process maps and JIT symbols) have in common: arrays that grow
 * while a file is read, then sorted by address and searched for the entry
 * at or below an address.  Not part of the syms.h interface. */
#ifndef KDIST_SYMTAB_H
#define KDIST_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

/* The array arr, of capacity *cap elements of size bytes, reallocated (by
 * doubling) to hold at least need elements.  Returns the array, or NULL
 * when out of memory, with arr and *cap left as they were. */
void *symtab_reserve(void *arr, size_t *cap, size_t need, size_t size);

/* In the array base of nr entries of size bytes, sorted by the uint64_t
 * key at byte offset key_off of each entry: the number of entries whose
 * key is at or below addr.  The last entry at or below addr, if any, is
 * the one before that index. */
size_t symtab_upper(const void *base, size_t nr, size_t size, size_t key_off,
		    uint64_t addr);

#endif

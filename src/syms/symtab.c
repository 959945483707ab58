// SPDX-License-Identifier: GPL-2.0
#include "syms/symtab.h"

#include <stdlib.h>
#include <string.h>

void *symtab_reserve(void *arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 64;

	if (need <= *cap)
		return arr;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return NULL;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / size)
		return NULL;
	arr = realloc(arr, ncap * size);
	if (arr)
		*cap = ncap;
	return arr;
}

size_t symtab_upper(const void *base, size_t nr, size_t size, size_t key_off,
		    uint64_t addr)
{
	const char *p = base;
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t key;

		memcpy(&key, p + mid * size + key_off, sizeof(key));
		if (key <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

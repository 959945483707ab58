// SPDX-License-Identifier: GPL-2.0
/* manypaths D K: leaf() reached by 2^D different call paths, K times each.
 * A path is D steps, each through via_a() or via_b() by one bit of the
 * path's number, so its user stack is its own: 2^D stacks, each seen K
 * times (at leaf()'s entry too, where a frame-pointer unwind misses only
 * the direct caller, walk(), the same for all).  Enough stacks for some to
 * share a bucket of a stack map of 16384. */
#include <stdlib.h>

volatile unsigned long sink;

void walk(int depth, unsigned long bits);

__attribute__((noinline)) void leaf(void)
{
	sink++;
}

__attribute__((noinline)) void via_a(int depth, unsigned long bits)
{
	walk(depth - 1, bits >> 1);
	sink++;
}

__attribute__((noinline)) void via_b(int depth, unsigned long bits)
{
	walk(depth - 1, bits >> 1);
	sink += 2;
}

__attribute__((noinline)) void walk(int depth, unsigned long bits)
{
	if (!depth)
		leaf();
	else if (bits & 1)
		via_a(depth, bits);
	else
		via_b(depth, bits);
	sink++;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 12;
	long k = argc > 2 ? atol(argv[2]) : 1;

	for (long i = 0; i < k; i++)
		for (unsigned long path = 0; path < 1ul << depth; path++)
			walk(depth, path);
	return 0;
}

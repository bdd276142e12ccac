// SPDX-License-Identifier: GPL-2.0
/* perf-ctr: the one binary search (search.h). */
#include <string.h>

#include "search.h"

size_t pc_count_upto(const void *v, size_t n, size_t size, size_t off,
		     uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, (const char *)v + mid * size + off, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

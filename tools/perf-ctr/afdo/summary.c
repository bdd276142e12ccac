// SPDX-License-Identifier: GPL-2.0
/* perf-ctr aggregate: the profile summary of a profile's counts (summary.h). */
#include <stdlib.h>

#include "perf-ctr.h"
#include "summary.h"

const uint32_t afdo_cutoffs[AFDO_NCUTOFFS] = {
	10000, 100000, 200000, 300000, 400000, 500000, 600000, 700000,
	800000, 900000, 950000, 990000, 999000, 999900, 999990, 999999,
};

static int cmp_desc(const void *a, const void *b)
{
	return pc_cmp_u64(*(const uint64_t *)b, *(const uint64_t *)a);
}

void afdo_summary_sort(uint64_t *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), cmp_desc);
}

struct afdo_cutoff afdo_summary_at(const uint64_t *v, size_t n, uint64_t total,
				   uint32_t cutoff)
{
	uint64_t want = (uint64_t)((__uint128_t)total * cutoff / 1000000);
	struct afdo_cutoff c = { .cutoff = cutoff };
	uint64_t sum = 0;
	size_t i = 0;

	while (i < n && sum < want) {
		c.min_count = v[i];
		/* all of the counts equal to this one */
		while (i < n && v[i] == c.min_count) {
			sum += v[i++];
			c.num_counts++;
		}
	}
	return c;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr: the one binary search (search.c), over arrays of structures
 * sorted by a uint64_t member: symbols by start, CU ranges and function
 * segments by address, event ids, covered spans, branch sites.
 */
#ifndef PERF_CTR_SEARCH_H
#define PERF_CTR_SEARCH_H

#include <stddef.h>
#include <stdint.h>

/*
 * How many of the N elements of SIZE bytes at V have the uint64_t at
 * byte OFF of them (their key; the array is sorted by it) at most KEY.
 */
size_t pc_count_upto(const void *v, size_t n, size_t size, size_t off,
		     uint64_t key);

/* How many have a key below KEY. */
static inline size_t pc_count_below(const void *v, size_t n, size_t size,
				    size_t off, uint64_t key)
{
	return key ? pc_count_upto(v, n, size, off, key - 1) : 0;
}

#endif

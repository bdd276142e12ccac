// SPDX-License-Identifier: GPL-2.0
/* perf-ctr: the hash index of every table but aggregate's counts (hash.h). */
#include <stdlib.h>
#include <string.h>

#include "perf-ctr.h"
#include "hash.h"

/* A slot holds the top half of the hash, which places it. */
static inline size_t first_slot(uint64_t tag, size_t mask)
{
	return (size_t)tag & mask;
}

size_t pc_index_find(const struct pc_index *x, uint64_t h, pc_index_eq eq,
		     const void *ctx, const void *key)
{
	uint64_t tag = h >> 32;
	size_t i;

	if (!x->mask)
		return PC_INDEX_NONE;
	for (i = first_slot(tag, x->mask); x->slot[i]; i = (i + 1) & x->mask)
		if (x->slot[i] >> 32 == tag &&
		    eq(ctx, (uint32_t)x->slot[i] - 1, key))
			return (uint32_t)x->slot[i] - 1;
	return PC_INDEX_NONE;
}

static void put(uint64_t *slot, size_t mask, uint64_t v)
{
	size_t i;

	for (i = first_slot(v >> 32, mask); slot[i]; i = (i + 1) & mask)
		;
	slot[i] = v;
}

int pc_index_add(struct pc_index *x, uint64_t h, size_t pos)
{
	if (pos >= UINT32_MAX)
		return -1;
	if ((x->nr + 1) * 2 > x->mask + 1 || !x->mask) {
		size_t n = x->mask ? (x->mask + 1) * 2 : 8, i;
		uint64_t *s = calloc(n, sizeof(*s));

		if (!s)
			return -1;
		for (i = 0; x->mask && i <= x->mask; i++)
			if (x->slot[i])
				put(s, n - 1, x->slot[i]);
		free(x->slot);
		x->slot = s;
		x->mask = n - 1;
	}
	put(x->slot, x->mask, (h & ~0xffffffffULL) | (pos + 1));
	x->nr++;
	return 0;
}

void pc_index_free(struct pc_index *x)
{
	free(x->slot);
	x->slot = NULL;
	x->mask = x->nr = 0;
}

size_t pc_index_get(struct pc_index *x, void **arr, size_t *nr, size_t *cap,
		    size_t size, uint64_t h, pc_index_eq eq, const void *key,
		    bool *added)
{
	size_t i = pc_index_find(x, h, eq, *arr, key);
	void *v;

	*added = false;
	if (i != PC_INDEX_NONE)
		return i;
	v = pc_grow(*arr, cap, *nr, size, 4);
	if (!v)
		return PC_INDEX_NONE;
	*arr = v;
	if (pc_index_add(x, h, *nr))
		return PC_INDEX_NONE;
	memset((char *)v + *nr * size, 0, size);
	*added = true;
	return (*nr)++;
}

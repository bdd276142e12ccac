/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr: one hash function and one hash index for every table of the
 * tool (hash.c). The hash of a key of up to three 64-bit words multiplies
 * each by its own odd constant and adds them up (the three multiplies run
 * side by side); a name is folded into one word first. Its top half is
 * what the tables use. The index maps a hash to the position of an
 * element in the caller's own array, so that each table keeps its
 * elements as it likes (in insertion order, with whatever fields they
 * have) and only the probing is shared. aggregate's counts
 * (afdo/counts.c), the one hot table, probe inline with the same hash.
 */
#ifndef PERF_CTR_HASH_H
#define PERF_CTR_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PC_HASH_MUL	0x9e3779b97f4a7c15ULL

/* The hash of the key (A, B, C); the top half is the well mixed one. */
static inline uint64_t pc_hash(uint64_t a, uint64_t b, uint64_t c)
{
	return a * PC_HASH_MUL ^ b * 0xc2b2ae3d27d4eb4fULL ^
	       c * 0x165667b19e3779f9ULL;
}

/* A NUL-terminated string as one word of a key. */
static inline uint64_t pc_hash_str(const char *s)
{
	uint64_t h = 0;

	while (*s)
		h = (h ^ (unsigned char)*s++) * PC_HASH_MUL;
	return h ^ (h >> 32);
}

/*
 * An index of the elements of an array by their hash: open addressing,
 * each slot the hash's top 32 bits and the element's position + 1 (0 is
 * an empty slot). It grows at half load.
 */
struct pc_index {
	uint64_t *slot;
	size_t mask;		/* slots - 1, a power of two; 0 before the first insert */
	size_t nr;
};

#define PC_INDEX_NONE	((size_t)-1)

/* Is element POS of the caller's array KEY? */
typedef bool (*pc_index_eq)(const void *ctx, size_t pos, const void *key);

/*
 * The position of the element that EQ says is KEY among those with hash
 * H, or PC_INDEX_NONE.
 */
size_t pc_index_find(const struct pc_index *x, uint64_t h, pc_index_eq eq,
		     const void *ctx, const void *key);
/* Index element POS under hash H (it is not indexed yet). 0, or -1: no memory. */
int pc_index_add(struct pc_index *x, uint64_t h, size_t pos);
void pc_index_free(struct pc_index *x);

/*
 * The position of KEY (hash H; EQ, given the array, says which element
 * it is) in the array *ARR of *NR elements of SIZE bytes (room for
 * *CAP) that X indexes; when it is not there, a zeroed element is
 * appended for it and *ADDED set. PC_INDEX_NONE when out of memory.
 */
size_t pc_index_get(struct pc_index *x, void **arr, size_t *nr, size_t *cap,
		    size_t size, uint64_t h, pc_index_eq eq, const void *key,
		    bool *added);

#endif

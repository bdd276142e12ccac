/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr aggregate: the tree of function instances the symbolized
 * formats are written from (tree.c), shared by their writers.
 *
 *   range counts -> count of every instruction (a sweep over the text)
 *   instruction  -> inline stack (libdw) -> body count of a line offset
 *                   in the innermost instance (max over its instructions)
 *   call branch  -> call target count at the call's location, and the
 *                   head count of the callee entered at its first byte
 */
#ifndef PERF_CTR_AFDO_TREE_H
#define PERF_CTR_AFDO_TREE_H

#include "afdo.h"

struct tgt {
	const char *name;
	uint64_t n;
	struct tgt *next;
};

struct body {
	uint32_t off, discr;
	uint64_t n;
	bool indirect;
	bool seen;			/* an instruction of it was swept (count 0 too) */
	struct tgt *tgts;
};

struct inst;
struct kid {
	uint32_t off, discr;
	struct inst *in;
};

struct inst {
	const char *name;
	int decl_line;
	uint64_t head, total;
	uint64_t insn_sum;		/* count x size of its own instructions */
	struct body *body;
	size_t nbody, cbody;
	struct kid *kids;
	size_t nkids, ckids;
	struct inst *hnext;		/* top-level hash chain */
};

#define TOP_HASH 4096

struct tree {
	struct inst *top[TOP_HASH];
	size_t ntop;
	bool nodiscr;			/* GCC 12: no discriminators */
	bool llvm_discr;		/* LLVM: base discriminators */
	uint64_t skipped_lines;		/* before the function's line, or 0 */
};

/* A walk over every instruction the ranges cover, with its count. */
struct sweep {
	void (*insn)(struct sweep *w, uint64_t addr, uint64_t n, unsigned int len);
	struct pc_dwarf *s;
	/* the covered spans [lo, hi), in address order, if wanted */
	bool keep_spans;
	struct { uint64_t lo, hi; } *spans;
	size_t nspans, cspans;
};

/* FNV-1a of a name, for the hash tables of names. */
static inline unsigned int afdo_str_hash(const char *s)
{
	unsigned int h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Grow an array to hold NEED elements of SZ bytes (exits when out of memory). */
void *afdo_xgrow(void *p, size_t *cap, size_t need, size_t sz);
/* Call W->insn for every instruction of B the ranges of G cover. */
int afdo_sweep_ranges(struct sweep *w, const struct afdo_agg *g,
		      struct pc_dso *b);
/* BD's call targets by count, in a new array (*OUT); their number. */
size_t afdo_sorted_tgts(struct body *bd, struct tgt ***out);

/* The writers of the tree's top-level instances, sorted by total. */
void afdo_llvm_text_write(FILE *f, struct inst **top, size_t ntop);
int afdo_gcov_write(FILE *f, struct inst **top, size_t ntop);

#endif

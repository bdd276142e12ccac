/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr aggregate: the calling contexts of hybrid samples, each a
 * call chain and a branch stack (context.c), as llvm-profgen 19 unwinds
 * them for a context-sensitive profile (llvm-cs.c).
 *
 * A sample's call chain is its stack at the youngest record's target.
 * Walking the records from the youngest back, a call pops the frame it
 * made, a return pushes the frame it left, and the fall-through code
 * between two records (a range), like the older record's branch, counts
 * in the context of the frames around it: the call instructions of its
 * callers, outermost first. Which instructions are calls, returns and
 * jumps is what llvm-profgen 19 takes them for (context.c says which).
 */
#ifndef PERF_CTR_AFDO_CONTEXT_H
#define PERF_CTR_AFDO_CONTEXT_H

#include "afdo.h"

struct afdo_ctx {
	uint64_t *sites;		/* call instructions, outermost first */
	size_t nsites;
	struct afdo_map ranges;		/* (first, last instruction) */
	struct afdo_map branches;	/* (from, to) */
};

struct afdo_unwind;

struct afdo_ctxs {
	struct afdo_ctx *v;		/* in the order they were met */
	size_t n, cap;
	struct pc_index ix;
	uint64_t samples;		/* with a call chain and records */
	uint64_t unwound;		/* of them, those that gave contexts */
	bool native;			/* RISC-V's calls and returns */
	struct afdo_unwind *u;		/* the unwinder's state (context.c) */
};

/*
 * Start CS for the samples of BIN: NATIVE, with RISC-V's calls and
 * returns, else llvm-profgen 19's. 0, or -1 when out of memory.
 */
int afdo_ctxs_init(struct afdo_ctxs *cs, struct pc_dso *bin, bool native);
/*
 * Unwind one sample into CS: the NF frames F of its call chain, leaf
 * first, and its NR records R as (from, to) pairs, youngest first,
 * both relocated to BIN's link-time addresses (AFDO_ELSEWHERE: not
 * BIN's code); W its weight. It is kept no longer. 0, or -1 when out
 * of memory.
 */
int afdo_ctxs_sample(struct afdo_ctxs *cs, const uint64_t *f, size_t nf,
		     const uint64_t *r, size_t nr, uint64_t w);
void afdo_ctxs_free(struct afdo_ctxs *cs);

/*
 * llvm-profgen's recursion compression: every run of a repeated
 * sequence of N elements of SIZE bytes at V becomes one, for each
 * length from 1 up. Returns the new N.
 */
size_t afdo_ctx_compress(void *v, size_t n, size_t size);

#endif

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

struct afdo_ctxs {
	struct afdo_ctx *v;		/* in the order they were met */
	size_t n, cap;
	struct pc_index ix;
	uint64_t unwound;		/* samples that gave contexts */
};

/*
 * Unwind every hybrid sample of H (afdo.h) over BIN into CS (zeroed
 * before). 0, or -1 when out of memory (then afdo_ctxs_free() it).
 */
int afdo_ctxs_build(struct afdo_ctxs *cs, const struct afdo_stacks *h,
		    struct pc_dso *bin);
void afdo_ctxs_free(struct afdo_ctxs *cs);

/*
 * llvm-profgen's recursion compression: every run of a repeated
 * sequence of N elements of SIZE bytes at V becomes one, for each
 * length from 1 up. Returns the new N.
 */
size_t afdo_ctx_compress(void *v, size_t n, size_t size);

#endif

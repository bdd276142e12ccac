/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr aggregate: the count of every instruction the ranges cover
 * (sweep.c), for the symbolized formats.
 */
#ifndef PERF_CTR_AFDO_SWEEP_H
#define PERF_CTR_AFDO_SWEEP_H

#include "afdo.h"

/* A covered span of instructions [lo, hi), all with the same count. */
struct afdo_span {
	uint64_t lo, hi;
};

/*
 * Call INSN(CTX, addr, count, length) for every instruction of BIN the
 * ranges of C cover, in address order; with SPANS, the covered spans
 * (disjoint, in address order) go to a new array *SPANS of *NSPANS.
 * 0, or -1 when out of memory or INSN returned non-zero.
 */
int afdo_sweep(const struct afdo_counts *c, const struct pc_dso *bin,
	       int (*insn)(void *ctx, uint64_t addr, uint64_t n, unsigned int len),
	       void *ctx, struct afdo_span **spans, size_t *nspans);

/* Is ADDR in one of the N SPANS (sorted, disjoint)? Else 0 or where it ends. */
uint64_t afdo_span_end(const struct afdo_span *spans, size_t n, uint64_t addr);

#endif

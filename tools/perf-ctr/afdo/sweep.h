/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr aggregate: the count of every instruction the ranges cover,
 * and of the rest of the functions they are in (sweep.c), for the
 * symbolized formats.
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

/*
 * afdo_sweep() of every instruction the ranges cover, then INSN(CTX, addr,
 * 0, length) of every other instruction of each function a range starts
 * in: a compiler takes an explicit 0 for code that did not run, and an
 * absent line for code it knows nothing of, so llvm-profgen and
 * create_gcov fill the functions they saw so. With DW (BIN's DWARF, or
 * NULL), the pieces of those functions too (their f.cold, f.part.0, which
 * DWARF names alike). With FUNCS, the functions
 * filled (sorted by start) go to a new array *FUNCS of *NFUNCS. 0, or -1
 * when out of memory or INSN returned non-zero.
 */
struct pc_dwarf;
int afdo_sweep_filled(const struct afdo_counts *c, struct pc_dso *bin,
		      struct pc_dwarf *dw,
		      int (*insn)(void *ctx, uint64_t addr, uint64_t n, unsigned int len),
		      void *ctx, const struct pc_sym ***funcs, size_t *nfuncs);

#endif

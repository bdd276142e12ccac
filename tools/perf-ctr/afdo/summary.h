/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr aggregate: the profile summary LLVM's ProfileSummaryBuilder
 * and create_gcov compute over a profile's body counts: for each cutoff
 * (parts per million of the counts' sum), the least count among the
 * largest counts that reach it, and how many counts that takes. GCC 16
 * reads it from a gcov profile (its hot threshold), llvm-profgen's
 * pre-inliner takes hot and cold from it.
 */
#ifndef PERF_CTR_AFDO_SUMMARY_H
#define PERF_CTR_AFDO_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

/* LLVM's default cutoffs, which GCC 16's reader expects all 16 of. */
#define AFDO_NCUTOFFS 16
extern const uint32_t afdo_cutoffs[AFDO_NCUTOFFS];

struct afdo_cutoff {
	uint32_t cutoff;
	uint64_t min_count, num_counts;
};

/*
 * The entry for CUTOFF of the N counts V, sorted largest first, which sum
 * to TOTAL. Equal counts are taken together, as LLVM's histogram does.
 */
struct afdo_cutoff afdo_summary_at(const uint64_t *v, size_t n, uint64_t total,
				   uint32_t cutoff);

/* Sort the N counts V largest first (qsort). */
void afdo_summary_sort(uint64_t *v, size_t n);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.data constants the reader and the writer share
 * (tools/perf/Documentation/perf.data-file-format.txt).
 */
#ifndef PERF_CTR_FORMAT_H
#define PERF_CTR_FORMAT_H

#include <linux/perf_event.h>

#define PC_MAGIC		0x32454c4946524550ULL	/* "PERFILE2" */
#define PC_MAGIC_SWAPPED	0x50455246494c4532ULL
#define FEAT_BUILD_ID		2

/* perf record's end of a pass over its ring buffers (a user record type). */
#define PC_RECORD_FINISHED_ROUND	68

/* Older UAPI headers on the build host lack these. */
#ifndef PERF_SAMPLE_BRANCH_HW_INDEX
#define PERF_SAMPLE_BRANCH_HW_INDEX	(1U << 17)
#endif
#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS	(1U << 19)
#endif
#ifndef PERF_RECORD_MISC_MMAP_DATA
#define PERF_RECORD_MISC_MMAP_DATA	(1 << 13)
#endif

#endif

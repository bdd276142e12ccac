/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr: shared types of the perf.data reader and its users.
 *
 * The reader walks a perf.data file and hands each record it understands to
 * a callback. It never trusts a length or count from the file: anything that
 * would run past the end of a record or of the file is reported with the
 * file offset at which it was found.
 */
#ifndef PERF_CTR_H
#define PERF_CTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* One PERF_RECORD_SAMPLE, with the fields perf-ctr uses. */
struct pc_sample {
	uint64_t offset;		/* of the record in the file */
	uint64_t ip, time, id, period, addr;
	uint32_t pid, tid, cpu;
	uint16_t misc;			/* header.misc: PERF_RECORD_MISC_CPUMODE_MASK */
	bool has_hw_idx;
	uint64_t hw_idx;
	uint64_t nr;			/* branch records, youngest first */
	const struct perf_branch_entry *br;	/* points into the reader's buffer */
	uint64_t callchain_nr;
	const uint64_t *callchain;
};

/* PERF_RECORD_MMAP and PERF_RECORD_MMAP2 (build_id_size 0 if none). */
struct pc_mmap {
	uint64_t offset;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint16_t misc;
	uint8_t build_id_size;
	uint8_t build_id[20];
	const char *filename;
};

struct pc_comm {
	uint64_t offset;
	uint32_t pid, tid;
	const char *comm;
};

/* A callback returns 0 to go on, anything else to stop the walk with it. */
struct pc_handlers {
	int (*sample)(void *ctx, const struct pc_sample *s);
	int (*mmap)(void *ctx, const struct pc_mmap *m);
	int (*comm)(void *ctx, const struct pc_comm *c);
};

/* What went wrong, and where: printed as "FILE: offset 0x...: message". */
struct pc_error {
	uint64_t offset;
	char msg[256];
};

/*
 * Walk FILE ("-" for stdin). Returns 0 on success, -1 with ERR filled in
 * on malformed input, or the non-zero value a callback returned.
 */
int pc_read_file(const char *file, const struct pc_handlers *h, void *ctx,
		 struct pc_error *err);

/*
 * Names of branch types, the same on every host: PERF_BR_* and the
 * RISC-V CTR types that perf numbers as PERF_BR_NEW_ARCH_1..3.
 */
const char *pc_branch_type_name(const struct perf_branch_entry *e);

/* Subcommands: argv[0] is the subcommand's name. Return the exit status. */
int cmd_aggregate(int argc, char **argv);

#endif

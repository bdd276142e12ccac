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
#include <stdlib.h>
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
	/* Added after the first version; appended so existing users still fit. */
	const struct perf_event_attr *attr;	/* of the event that sampled */
	const uint64_t *br_counters;	/* nr of them, PERF_SAMPLE_BRANCH_COUNTERS */
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
	/* Added with the machine model (machine.h). */
	uint64_t time;			/* from the sample id; 0 if none */
	uint32_t prot;			/* MMAP2's; PROT_EXEC for MMAP */
};

struct pc_comm {
	uint64_t offset;
	uint32_t pid, tid;
	const char *comm;
	uint64_t time;
	bool exec;			/* PERF_RECORD_MISC_COMM_EXEC */
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT. */
struct pc_task {
	uint64_t offset, time;
	uint32_t pid, ppid, tid, ptid;
	bool exit;
};

/*
 * What the kernel dropped: PERF_RECORD_LOST (NR records lost to a full
 * ring buffer), PERF_RECORD_LOST_SAMPLES (NR samples), PERF_RECORD_THROTTLE
 * and PERF_RECORD_UNTHROTTLE (NR 0) of the event with sample id ID.
 */
struct pc_lost {
	uint64_t offset, time, id, nr;
	uint32_t type;
};

/* A callback returns 0 to go on, anything else to stop the walk with it. */
struct pc_handlers {
	int (*sample)(void *ctx, const struct pc_sample *s);
	int (*mmap)(void *ctx, const struct pc_mmap *m);
	int (*comm)(void *ctx, const struct pc_comm *c);
	/* Optional, once per event before any record: its attr and ids. */
	int (*attr)(void *ctx, const struct perf_event_attr *attr,
		    const uint64_t *ids, size_t nr_ids);
	/* Optional: each entry of the HEADER_BUILD_ID feature, after the data. */
	int (*build_id)(void *ctx, const struct pc_mmap *b);
	/* Optional, added with the machine model. */
	int (*task)(void *ctx, const struct pc_task *t);
	int (*lost)(void *ctx, const struct pc_lost *l);
	/* Optional: once at the end of a walk that found no error. */
	int (*end)(void *ctx);
	/*
	 * Optional: an ordered walk, samples in perf's order. A sample goes
	 * to .sample only after flush(ctx, t) with t at least its time (or
	 * without PERF_SAMPLE_TIME, at the end): the side-band records up to
	 * t are all in by then (FINISHED_ROUND, as perf processes them).
	 * Samples still go out in file order. A recording without rounds
	 * whose samples would wait for more than the walk holds back ends
	 * the walk with PC_READ_UNORDERED before any sample went out.
	 */
	int (*flush)(void *ctx, uint64_t upto);
	/*
	 * Optional, for pc_machine_read(): the walk starts over (a recording
	 * read in two passes after all); no sample went out yet, but the
	 * other handlers may have been called.
	 */
	void (*restart)(void *ctx);
};

#define PC_READ_UNORDERED	(-2)

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
 * RISC-V CTR types that perf numbers as PERF_BR_NEW_ARCH_1..5.
 */
const char *pc_branch_type_name(const struct perf_branch_entry *e);
/*
 * The type named by the LEN bytes at NAME, as pc_branch_type_name()
 * spells it, into E's type and new_type: false when no type has it.
 */
bool pc_branch_type_parse(const char *name, size_t len,
			  struct perf_branch_entry *e);

/* ---- Additions (additive only; the lines above are a shared contract) ---- */

/* pc_read_file() on a buffer already in memory (8-byte aligned). */
int pc_read_buffer(const void *buf, size_t len, const struct pc_handlers *h,
		   void *ctx, struct pc_error *err);

/*
 * pc_read_file() N times over one mapping of FILE (a pipe is read once):
 * pass I calls H[I] with CTX[I]. Stops at the first non-zero return.
 */
int pc_read_file_passes(const char *file, unsigned int n,
			const struct pc_handlers *const *h, void *const *ctx,
			struct pc_error *err);

/* Fill ERR: printf-style message about file offset OFF. Returns -1. */
int pc_err(struct pc_error *err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The RISC-V types of patches/0006 (new_type with PERF_BR_EXTEND_ABI). */
#define PC_BR_RISCV_CO_SWAP		3	/* PERF_BR_NEW_ARCH_1 */
#define PC_BR_RISCV_IND_LINK_JUMP	4	/* PERF_BR_NEW_ARCH_2 */
#define PC_BR_RISCV_DIR_LINK_JUMP	5	/* PERF_BR_NEW_ARCH_3 */
/* CTR TYPE 4: a conditional branch not taken (target: the next instruction). */
#define PC_BR_RISCV_NOT_TAKEN		6	/* PERF_BR_NEW_ARCH_4 */
/* CTR TYPE 1 that is neither an ecall nor a data/instruction fault. */
#define PC_BR_RISCV_EXCEPTION		7	/* PERF_BR_NEW_ARCH_5 */

/*
 * A record that is no transfer of control: a not-taken conditional branch
 * (the driver's PERF_BR_RISCV_NOT_TAKEN). It gives no branch edge, and
 * the straight-line code around it runs on: ranges go across it. Older
 * kernels gave these PERF_BR_COND, indistinguishable from taken ones.
 */
static inline bool pc_br_not_taken(const struct perf_branch_entry *e)
{
	return e->type == PERF_BR_EXTEND_ABI &&
	       e->new_type == PC_BR_RISCV_NOT_TAKEN;
}

/*
 * Does the record say the transfer was a trap (an exception or an
 * interrupt, CTR TYPE 1 or 2)? 1 when it does, 0 when its type names
 * another transfer, -1 when it has no type (recorded without save_type):
 * the source instruction then tells. A trap's source is the instruction
 * that trapped or was interrupted; it did not retire.
 */
static inline int pc_br_trap(const struct perf_branch_entry *e)
{
	switch (e->type) {
	case PERF_BR_UNKNOWN:
		return -1;
	case PERF_BR_SYSCALL:
	case PERF_BR_IRQ:
	case PERF_BR_SERROR:
		return 1;
	case PERF_BR_EXTEND_ABI:
		return e->new_type == PERF_BR_NEW_FAULT_ALGN ||
		       e->new_type == PERF_BR_NEW_FAULT_DATA ||
		       e->new_type == PERF_BR_NEW_FAULT_INST ||
		       e->new_type == PC_BR_RISCV_EXCEPTION;
	default:
		return 0;
	}
}

/* Names of the 16 ctrdata.TYPE values, "" for reserved ones. */
const char *pc_ctr_type_name(unsigned int ctr_type);
/* The perf type/new_type the riscv_ctr driver gives a CTR type. */
void pc_ctr_type_to_perf(unsigned int ctr_type, unsigned int *type,
			 unsigned int *new_type);
/* Decoded cycle count of a ctrdata value (0 when CCV is clear). */
uint64_t pc_ctr_cycles(uint64_t ctrdata);

/*
 * perf.data writer. Add every attr first, then records; pc_writer_close()
 * writes the header, the attrs and the features and returns 0 or -1.
 * The file appears (is renamed from a temporary one beside it) only when
 * pc_writer_close() succeeds.
 */
struct pc_writer;
struct pc_writer *pc_writer_open(const char *file, struct pc_error *err);
int pc_writer_add_attr(struct pc_writer *w, const struct perf_event_attr *attr,
		       const uint64_t *ids, size_t nr_ids);
/* Encodes S per the sample_type of the attr whose id is S->id (first attr if none). */
int pc_writer_sample(struct pc_writer *w, const struct pc_sample *s);
/* MMAP2 (with a build id when M->build_id_size, else maj/min/ino 0). */
int pc_writer_mmap2(struct pc_writer *w, const struct pc_mmap *m);
int pc_writer_comm(struct pc_writer *w, const struct pc_comm *c);
/* FINISHED_ROUND: the end of a pass of perf record over its buffers. */
int pc_writer_round(struct pc_writer *w);
/* A complete record (perf_event_header first), copied as it is. */
int pc_writer_raw(struct pc_writer *w, const void *rec, size_t size);
/* Remember a build id for the HEADER_BUILD_ID feature. */
int pc_writer_build_id(struct pc_writer *w, const struct pc_mmap *m);
int pc_writer_close(struct pc_writer *w);
/* Instead of pc_writer_close(): free W and leave no file behind. */
void pc_writer_discard(struct pc_writer *w);
uint64_t pc_writer_nr_samples(const struct pc_writer *w);

/*
 * Output files: pc_output_open() gives stdout for "-", PATH itself when
 * it is not a regular file (a device or FIFO: *TMP NULL), else a
 * temporary file beside PATH or beside the file PATH links to (*TMP, for
 * pc_output_close()). pc_output_close() renames that over the file when
 * KEEP and everything was written, else removes it; -1 with errno on a
 * write error.
 */
#include <stdio.h>
FILE *pc_output_open(const char *path, char **tmp);
int pc_output_close(FILE *f, char *tmp, bool keep);

/* Print ERR as "FILE: offset 0x...: what" on stderr. */
void pc_print_error(const char *file, const struct pc_error *err);

/*
 * ARR (*CAP elements of SIZE, NR in use) with room for one more: ARR
 * itself, or a copy twice as large (FIRST elements the first time);
 * NULL, with ARR and *CAP as they were, when memory ran out.
 */
static inline void *pc_grow(void *arr, size_t *cap, size_t nr, size_t size,
			    size_t first)
{
	size_t c = *cap ? *cap * 2 : first;
	void *n;

	if (nr < *cap)
		return arr;
	n = realloc(arr, c * size);
	if (n)
		*cap = c;
	return n;
}

/*
 * Room for N words at *V (*CAP of them now), grown as pc_grow() grows an
 * array. 0, or -1 with *V and *CAP as they were when memory ran out.
 */
static inline int pc_reserve_u64(uint64_t **v, size_t *cap, size_t n)
{
	while (*cap < n) {
		uint64_t *p = pc_grow(*v, cap, *cap, sizeof(*p), 64);

		if (!p)
			return -1;
		*v = p;
	}
	return 0;
}

/* For qsort() comparators: -1, 0 or 1 as A is below, at or above B. */
static inline int pc_cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Global options every subcommand honours. */
extern int pc_verbose;
extern const char *pc_symfs;


#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr aggregate: branch records of one binary to AutoFDO profiles,
 * in three stages, each using only the ones before it:
 *
 *   counts.c     records, relocated by the command, to counts of
 *                fall-through ranges, branches and sample addresses
 *   sweep.c      range counts to a count of every instruction
 *   tree.c       instructions and calls to the tree of inlined function
 *                instances (DWARF) of the symbolized formats
 *   llvm-probe.c pseudo probes (util/probe.h) and counts to the tree of
 *                a probe-based profile
 *   raw.c, llvm-text.c, llvm-probe.c, gcov.c, lines.c: one writer per format
 *   format.c     the table of formats: name, default output, writer
 *
 * The binary is a DSO of util/ (dso.h), as every file is. Nothing here
 * prints or keeps global state: what a command may want to say comes
 * back in the structures.
 */
#ifndef PERF_CTR_AFDO_H
#define PERF_CTR_AFDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dso.h"
#include "hash.h"

/*
 * ---- counts keyed by addresses and flags: one open-addressing table for
 * ranges (begin, end), branches (from, to), sample addresses (ip) and
 * steps (below): its size follows the distinct keys, never the records.
 */

struct afdo_cnt {
	uint64_t a, b, c;		/* the key's addresses (0 where unused) */
	uint64_t tag;			/* its flags << 56 | times added; 0: empty */
	uint64_t n;			/* the sum of what was added */
};

#define AFDO_TAG_SHIFT		56
#define AFDO_CNT_HITS(e)	((e)->tag & ((1ULL << AFDO_TAG_SHIFT) - 1))
#define AFDO_CNT_FLAGS(e)	((e)->tag >> AFDO_TAG_SHIFT)

struct afdo_map {
	struct afdo_cnt *t;
	size_t mask;			/* capacity - 1 (a power of two) */
	size_t used;
};

int afdo_map_init(struct afdo_map *m, size_t cap);
void afdo_map_free(struct afdo_map *m);
int afdo_map_grow(struct afdo_map *m);

static inline size_t afdo_map_slot(size_t mask, uint64_t a, uint64_t b,
				   uint64_t c, uint64_t flags)
{
	return (size_t)(pc_hash(a, b + flags, c) >> 32) & mask;
}

/*
 * A new key at the empty slot I its probe ended at: out of line, so
 * that the probe, inline in the loop over a sample's records, keeps its
 * values in registers. 0, or -1 when out of memory.
 */
int afdo_map_insert(struct afdo_map *m, size_t i, uint64_t a, uint64_t b,
		    uint64_t c, uint64_t flags, uint64_t n);

/* Add N to the key (A, B, C, FLAGS). 0, or -1 when out of memory. */
static inline int afdo_map_add(struct afdo_map *m, uint64_t a, uint64_t b,
			       uint64_t c, uint64_t flags, uint64_t n)
{
	size_t i = afdo_map_slot(m->mask, a, b, c, flags);

	for (;; i = (i + 1) & m->mask) {
		struct afdo_cnt *e = &m->t[i];

		if (!e->tag)
			return afdo_map_insert(m, i, a, b, c, flags, n);
		if (e->a == a && e->b == b && e->c == c &&
		    AFDO_CNT_FLAGS(e) == flags) {
			e->tag++;
			e->n += n;
			return 0;
		}
	}
}

/* The entries sorted by (a, b, c); *NR gets their number. free() the result. */
struct afdo_cnt *afdo_map_sorted(const struct afdo_map *m, size_t *nr);

/* ---- the counts of one binary ---- */

struct afdo_stats {
	uint64_t samples, records;
	uint64_t samples_other;		/* ip outside the binary */
	uint64_t mispredicts;		/* of branches with an end in it */
	uint64_t ranges, ranges_bad_order, ranges_outside, ranges_misaligned;
	uint64_t ranges_cross_func;	/* unique ones (and origins, for BOLT), dropped */
	uint64_t ranges_cross_jump;	/* unique ones through a jump, dropped */
	uint64_t ranges_empty;		/* ending before their first instruction */
	uint64_t branches, branches_outside;
	uint64_t traps;			/* records of traps: no branch edge */
	uint64_t entries, entries_outside; /* into a function's first byte */
	uint64_t branches_not_taken;	/* records of no transfer, skipped */
	uint64_t empty_stacks;
	uint64_t weighted;		/* samples weighed by their window */
};

/*
 * A record in the context of the next younger one is a step: its ends,
 * and the source of the younger record (where its fall-through range
 * ends), each with whether it is the binary's. Counting steps, one
 * lookup a record, gives both its branch and its range; the tables of
 * branches and ranges are made from them once, at the end, and so are
 * the checks of each.
 */
#define AFDO_STEP_FROM		1ULL	/* from (a) is the binary's */
#define AFDO_STEP_TO		2ULL	/* to (b) is */
#define AFDO_STEP_NEXT		4ULL	/* next (c) is */
#define AFDO_STEP_HAS_NEXT	8ULL	/* there is a younger record */
/* What the record's type says of it (neither: decode its source) */
#define AFDO_STEP_TRAP		16ULL	/* a trap: its source did not retire */
#define AFDO_STEP_XFER		32ULL	/* a transfer by its source */
/* ...and of the younger record's */
#define AFDO_STEP_NEXT_TRAP	64ULL
#define AFDO_STEP_NEXT_XFER	128ULL
/*
 * An end outside the binary is keyed 0 when it is 0 in the record (the
 * end in a privilege not recorded), AFDO_ELSEWHERE when it lies in
 * another file: a jump into a function from another file enters it, a
 * trap return to its first byte does not.
 */
#define AFDO_ELSEWHERE		1ULL

struct afdo_counts {
	struct afdo_map steps;		/* (from, to, next) */
	struct afdo_map ranges;		/* (begin, end): end = last instruction */
	struct afdo_map branches;	/* (from, to) */
	struct afdo_map addrs;		/* (ip, 0) */
	struct afdo_map entries;	/* (function start, 0): times entered */
	/*
	 * With ORIGINS (set before the first sample, for BOLT): TRACES are
	 * the ranges keyed (begin, end, 1 when the branch into BEGIN came
	 * from outside BEGIN's function), OUTER the branches with one end
	 * outside the binary (keyed 0 there), MISP (from, to) the
	 * mispredicted branches of both.
	 */
	bool origins;
	struct afdo_map traces;
	struct afdo_map outer;
	struct afdo_map misp;
	struct afdo_stats st;
};

/*
 * One branch record, youngest first, as the command made it ready to be
 * counted: its ends relocated to the binary's link-time addresses, and
 * the step flags of the record itself (the command knows them before
 * the table does, and counting is the per-record work). An end the
 * binary does not map (another file, no mapping) has no AFDO_STEP_FROM
 * or AFDO_STEP_TO and is keyed as a step keys it: FROM 0 when it is 0
 * in the record, else AFDO_ELSEWHERE; TO 0.
 */
struct afdo_rec {
	uint64_t from, to;
	uint8_t flags;			/* AFDO_STEP_FROM, _TO, _TRAP, _XFER */
	bool not_taken;			/* pc_br_not_taken(): no transfer */
	bool misp;			/* the branch was mispredicted */
};

/* The step type flags of pc_br_trap()'s answer T: none, TRAP or XFER. */
static inline uint8_t afdo_step_type(int t)
{
	return t < 0 ? 0 : t ? AFDO_STEP_TRAP : AFDO_STEP_XFER;
}

int afdo_counts_init(struct afdo_counts *c);
void afdo_counts_free(struct afdo_counts *c);
/*
 * Count one sample of BIN: its address IP (when IP_MAPPED) and its NR
 * records R, each record weighing W. 0, or -1 when out of memory.
 */
int afdo_counts_sample(struct afdo_counts *c, struct pc_dso *bin,
		       bool ip_mapped, uint64_t ip, const struct afdo_rec *r,
		       size_t nr, uint64_t w);
/*
 * After the last sample: the ranges and branches of the records, checked
 * (the stats count what was dropped), and the ranges whose ends lie in
 * two functions dropped. 0, or -1 when out of memory.
 */
int afdo_counts_finish(struct afdo_counts *c, struct pc_dso *bin);
/* Bytes the tables take. */
size_t afdo_counts_bytes(const struct afdo_counts *c);
/* Is there anything to write? */
bool afdo_counts_empty(const struct afdo_counts *c);

/* ---- the formats ---- */

struct afdo_ctxs;

/* What a writer gets, and what it says back. */
struct afdo_input {
	const struct afdo_counts *counts;
	/* a format's with stacks: the samples' calling contexts (context.h) */
	const struct afdo_ctxs *ctxs;
	struct pc_dso *bin;
	int gcc_version;		/* 0: the GCC named in BIN's DWARF */
	bool cs_no_preinline;		/* llvm-cs: every context as it ran */
};

struct afdo_notes {
	bool gcc;			/* a GCC profile... */
	int gcc_version;		/* ...for this GCC (0: unknown) */
	bool discriminators;		/* ...with discriminators */
	uint64_t skipped_lines;		/* line 0, or 2^16 lines from the function's */
	bool probes;			/* of pseudo probes: no source line in it */
	char err[512];			/* why the writer failed */
};

struct afdo_format {
	const char *name;
	const char *help;
	const char *default_output;	/* "-": standard output */
	/* 0, or -1 with NOTES->err filled in (empty: a write error) */
	int (*write)(FILE *f, const struct afdo_input *in,
		     struct afdo_notes *notes);
	bool origins;			/* needs afdo_counts.origins */
	bool stacks;			/* needs afdo_input.ctxs: call chains */
};

extern const struct afdo_format afdo_formats[];

/* The format called NAME, or NULL. */
const struct afdo_format *afdo_format_find(const char *name);

#endif

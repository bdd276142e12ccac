/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr aggregate: the AutoFDO pipeline's internal interfaces.
 *
 *   map.c        hash tables of counts keyed by (a, b)
 *   raw.c        the unsymbolized formats (autofdo-text, llvm-unsym)
 *   tree.c       the tree of function instances of the symbolized ones
 *   llvm-text.c, gcov.c, lines.c: one file per symbolized format
 *   ../builtin-aggregate.c: the command: options, relocation, counting
 * The profiled binary is a DSO of util/ (dso.h), as every file is.
 */
#ifndef PERF_CTR_AFDO_H
#define PERF_CTR_AFDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dso.h"
#include "dwarf-info.h"

/* ---- counts keyed by a pair of addresses (b = 0 for single addresses) ---- */

struct afdo_cnt {
	uint64_t a, b, n;		/* n == 0: empty slot */
};

struct afdo_map {
	struct afdo_cnt *t;
	size_t mask;			/* capacity - 1 (a power of two) */
	size_t used;
};

int afdo_map_init(struct afdo_map *m, size_t cap);
void afdo_map_free(struct afdo_map *m);
int afdo_map_grow(struct afdo_map *m);

static inline size_t afdo_hash(uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ (b * 0xc2b2ae3d27d4eb4fULL)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h ^ (h >> 31));
}

/* Add N to (A, B). Returns 0, or -1 when out of memory. */
static inline int afdo_map_add(struct afdo_map *m, uint64_t a, uint64_t b,
			       uint64_t n)
{
	size_t i = afdo_hash(a, b) & m->mask;

	for (;;) {
		struct afdo_cnt *c = &m->t[i];

		if (c->n == 0)
			break;
		if (c->a == a && c->b == b) {
			c->n += n;
			return 0;
		}
		i = (i + 1) & m->mask;
	}
	if ((m->used + 1) * 4 > (m->mask + 1) * 3) {
		if (afdo_map_grow(m))
			return -1;
		return afdo_map_add(m, a, b, n);
	}
	m->t[i].a = a;
	m->t[i].b = b;
	m->t[i].n = n;
	m->used++;
	return 0;
}

uint64_t afdo_map_get(const struct afdo_map *m, uint64_t a, uint64_t b);
/* The entries sorted by (a, b); *NR gets their number. free() the result. */
struct afdo_cnt *afdo_map_sorted(const struct afdo_map *m, size_t *nr);

/* ---- the aggregate and its outputs ---- */

extern int afdo_verbose;
/* The GCC the gcov format is for (0: the one named in the binary's DWARF). */
extern int afdo_gcc_version;

struct afdo_stats {
	uint64_t samples, records;
	uint64_t samples_other;		/* ip outside the binary */
	uint64_t ranges, ranges_bad_order, ranges_outside, ranges_misaligned;
	uint64_t ranges_cross_func;	/* unique ones, dropped before output */
	uint64_t branches, branches_outside;
	uint64_t branches_not_taken;	/* records of no transfer, skipped */
	uint64_t empty_stacks;
	uint64_t unmapped_mode;		/* samples taken as link-time addresses */
	uint64_t weighted;		/* samples weighed by their window */
};

struct afdo_agg {
	struct afdo_map ranges;		/* (begin, end): end = last instruction */
	struct afdo_map branches;	/* (from, to) */
	struct afdo_map addrs;		/* (ip, 0) */
	struct afdo_stats st;
};

enum afdo_format {
	AFDO_FMT_AUTOFDO_TEXT,
	AFDO_FMT_LLVM_UNSYM,
	AFDO_FMT_LLVM_TEXT,
	AFDO_FMT_GCOV,
	AFDO_FMT_LINES,
};

int afdo_write_autofdo_text(FILE *f, const struct afdo_agg *g,
			    struct pc_dso *b);
int afdo_write_llvm_unsym(FILE *f, const struct afdo_agg *g,
			  struct pc_dso *b);
/* "file:line count" lines: each line's most executed instruction. */
int afdo_write_lines(FILE *f, const struct afdo_agg *g, struct pc_dso *b,
		     char *err, size_t errlen);
int afdo_write_symbolized(FILE *f, enum afdo_format fmt,
			  const struct afdo_agg *g, struct pc_dso *b,
			  char *err, size_t errlen);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr aggregate: the profiles of calling contexts llvm-cs.c makes,
 * and llvm-profgen 19's pre-inliner over them (preinline.c).
 */
#ifndef PERF_CTR_AFDO_PREINLINE_H
#define PERF_CTR_AFDO_PREINLINE_H

#include "afdo.h"

#define AFDO_CS_WAS_INLINED	1	/* the leaf was inlined there in the binary */
#define AFDO_CS_INLINE		2	/* the compiler should inline it there */

struct afdo_cs_frame {
	const char *name;		/* the probe desc's: one pointer a name */
	uint32_t off;			/* call site (0 for the leaf) */
};

/* One context's profile; its counts are in IN. */
struct afdo_cs_prof {
	struct afdo_cs_frame *fr;
	size_t nfr;
	char *str;			/* the context as the text writes it */
	struct afdo_inst *in;
	uint32_t attr;			/* AFDO_CS_* */
};

/* What the sizes of functions in their contexts are taken from. */
struct afdo_cs_binary {
	struct pc_dso *bin;
	struct pc_dwarf *dw;		/* inline stacks; NULL: every size 0 */
	const struct pc_probes *pp;
	const bool *kept;		/* by probe node: its function's decoded */
	const bool *touched;		/* by symbol: the profiled functions */
};

/* Free the N profiles V, their frames and strings (not their counts). */
void afdo_cs_profs_free(struct afdo_cs_prof *v, size_t n);

/* "main:3 @ foo:2 @ bar", as llvm-profgen writes a context. */
char *afdo_cs_string(const struct afdo_cs_frame *fr, size_t n);

struct afdo_tree;
/*
 * Pre-inline the N profiles V, whose counts live in T: *OUT gets the *NOUT
 * profiles that remain, each a new context (frames and string to free)
 * over one of V's instances, merged into. 0, or -1 when out of memory.
 */
int afdo_cs_preinline(struct afdo_tree *t, const struct afdo_cs_prof *v,
		      size_t n, const struct afdo_cs_binary *b,
		      struct afdo_cs_prof **out, size_t *nout);

#endif

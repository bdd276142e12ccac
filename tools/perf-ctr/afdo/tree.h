/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr aggregate: the tree of function instances (tree.c) the
 * symbolized writers (llvm-text.c, gcov.c) write out.
 *
 *   range counts -> count of every instruction (sweep.c)
 *   instruction  -> inline stack (DWARF) -> body count of a line offset
 *                   in the innermost instance (max over its instructions)
 *   call branch  -> call target count at the call's location, and the
 *                   head count of the callee entered at its first byte
 *
 * Once built, everything in it is sorted as the writers write it.
 */
#ifndef PERF_CTR_AFDO_TREE_H
#define PERF_CTR_AFDO_TREE_H

#include "afdo.h"

struct afdo_tgt {
	const char *name;
	uint64_t n;
	size_t seq;			/* in the order the calls were found */
};

struct afdo_body {
	uint32_t off, discr;
	uint64_t n;
	bool indirect;
	bool seen;			/* an instruction of it was swept (count 0 too) */
	struct afdo_tgt *tgts;		/* by count, most frequent first */
	size_t ntgts, ctgts;
};

struct afdo_inst;
struct afdo_kid {
	uint32_t off, discr;
	struct afdo_inst *in;
};

struct afdo_inst {
	const char *name;
	int decl_line;
	uint64_t head, total;
	uint64_t insn_sum;		/* count x size of its own instructions */
	struct afdo_body *body;		/* by (off, discr) */
	size_t nbody, cbody;
	struct pc_index body_ix;
	struct afdo_kid *kids;		/* by (off, discr, name) */
	size_t nkids, ckids;
	struct pc_index kid_ix;
};

enum afdo_tree_kind {
	AFDO_TREE_LLVM,		/* llvm-profgen's numbers, base discriminators */
	AFDO_TREE_GCC,		/* GCC's, discriminators from GCC 13 on */
};

struct afdo_tree {
	enum afdo_tree_kind kind;
	bool nodiscr;			/* GCC 12: no discriminators */
	bool fs_discr;			/* LLVM FS-AFDO: discriminators as they are */
	int gcc_version;		/* GCC: the one the profile is for */
	struct afdo_inst **top;		/* with counts, by total, then name */
	size_t ntop;
	struct afdo_inst **all;		/* every top-level instance */
	size_t nall, call;
	struct pc_index all_ix;
	uint64_t skipped_lines;		/* line 0, or 2^16 lines from the function's */
	size_t ntgts;			/* call targets found so far */
};

/*
 * Build the tree of IN's counts for KIND (a GCC one for IN->gcc_version,
 * else the GCC in the DWARF). 0, or -1 with ERR filled in.
 */
int afdo_tree_build(struct afdo_tree *t, enum afdo_tree_kind kind,
		    const struct afdo_input *in, char *err, size_t errlen);
void afdo_tree_free(struct afdo_tree *t);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr aggregate: the tree of function instances (tree.c) the
 * symbolized writers (llvm-text.c, gcov.c, llvm-probe.c) write out.
 *
 *   range counts -> count of every instruction (sweep.c)
 *   instruction  -> inline stack (DWARF) -> body count of a line offset
 *                   in the innermost instance (max over its instructions)
 *   call branch  -> call target count at the call's location, and the
 *                   head count of the callee entered at its first byte
 *
 * or, of a binary with pseudo probes (llvm-probe.c):
 *
 *   instruction  -> the probes at its address -> body count of a probe
 *                   in the instance of its inline context (the sum)
 *   call branch  -> call target count at the call probe at its source
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
	const char *file;		/* where it is defined (DWARF), or NULL */
	int decl_line;
	uint64_t head, total;
	uint64_t insn_sum;		/* count x size of its own instructions; */
					/* probes: the sum of its own probes' counts */
	uint64_t hash;			/* probes: the CFG checksum of its function */
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
	AFDO_TREE_PROBE,	/* llvm-profgen's of pseudo probes (llvm-probe.c) */
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

/*
 * What a builder of another kind of tree (llvm-probe.c) adds its counts
 * with, each creating what is not there yet (zeroed), NULL when out of
 * memory. It starts from a zeroed tree of its kind and ends with
 * afdo_tree_finish().
 */
/* The top-level instance of the function NAME. */
struct afdo_inst *afdo_tree_top(struct afdo_tree *t, const char *name,
				int decl_line);
/* The instance of NAME inlined into P at location (OFF, DISCR). */
struct afdo_inst *afdo_inst_kid(struct afdo_inst *p, uint32_t off,
				uint32_t discr, const char *name, int decl_line);
/* The body count of IN at location (OFF, DISCR). */
struct afdo_body *afdo_inst_body(struct afdo_inst *in, uint32_t off,
				 uint32_t discr);
/* The body count of IN at (OFF, DISCR) if it has one, else NULL. */
const struct afdo_body *afdo_inst_body_find(const struct afdo_inst *in,
					    uint32_t off, uint32_t discr);
/* The call target NAME at BD (NAME must live as long as T). */
struct afdo_tgt *afdo_body_tgt(struct afdo_tree *t, struct afdo_body *bd,
			       const char *name);
/*
 * After the last count: the totals (LLVM's: its own plus its inlinees'),
 * everything sorted, and the top-level instances to write. 0, or -1 when
 * out of memory (then afdo_tree_free() it).
 */
int afdo_tree_finish(struct afdo_tree *t);

/* Names made for call targets (callee.c), freed together. */
struct afdo_names {
	char **v;
	size_t n, cap;
};

/*
 * The name llvm-profgen gives the function whose first byte is TO as a
 * call target (of BIN, named by DW when it is not NULL); NULL when TO
 * is none (*OOM: out of memory). A name made here lives in NM.
 */
const char *afdo_callee_name(struct pc_dso *bin, struct pc_dwarf *dw,
			     uint64_t to, struct afdo_names *nm, bool *oom);
void afdo_names_free(struct afdo_names *nm);

/* Mark in TOUCHED (by symbol) the function of BIN at ADDR, if any. */
void afdo_touch(struct pc_dso *bin, uint64_t addr, bool *touched);
struct pc_probes;
/*
 * Which inline nodes of PP llvm-profgen decodes: KEPT[node] is whether
 * its tree's function, by the GUID of its name, is one of BIN's symbols
 * marked in TOUCHED. 0, or -1 when out of memory.
 */
int afdo_probe_keep(const struct pc_probes *pp, const struct pc_dso *bin,
		    const bool *touched, bool *kept);

/* Write T as LLVM's sample profile text (llvm-text.c). */
void afdo_llvm_text_tree(FILE *f, const struct afdo_tree *t);

#endif

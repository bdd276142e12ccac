// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: the LLVM sample profile text (clang
 * -fprofile-sample-use), of line locations here, of pseudo probes for
 * llvm-probe.c.
 */
#include <stdlib.h>
#include <string.h>

#include "tree.h"
#include "writers.h"

static void llvm_loc(FILE *f, int depth, uint32_t off, uint32_t discr)
{
	fprintf(f, "%*s%u", depth, "", off);
	if (discr)
		fprintf(f, ".%u", discr);
	fputs(": ", f);
}

static void llvm_inst(FILE *f, const struct afdo_tree *t,
		      const struct afdo_inst *in, int depth)
{
	size_t i, j;

	for (i = 0; i < in->nbody; i++) {
		const struct afdo_body *bd = &in->body[i];

		/* 0: an instruction ran 0 times, not a line nothing is known of */
		if (!bd->n && !bd->seen)
			continue;
		llvm_loc(f, depth, bd->off, bd->discr);
		fprintf(f, "%llu", (unsigned long long)bd->n);
		for (j = 0; j < bd->ntgts; j++)
			fprintf(f, " %s:%llu", bd->tgts[j].name,
				(unsigned long long)bd->tgts[j].n);
		fputc('\n', f);
	}
	for (i = 0; i < in->nkids; i++) {
		const struct afdo_inst *k = in->kids[i].in;

		llvm_loc(f, depth, in->kids[i].off, in->kids[i].discr);
		fprintf(f, "%s:%llu\n", k->name, (unsigned long long)k->total);
		llvm_inst(f, t, k, depth + 1);
	}
	/* what clang checks the profile of a probed function against */
	if (t->kind == AFDO_TREE_PROBE)
		fprintf(f, "%*s!CFGChecksum: %llu\n", depth, "",
			(unsigned long long)in->hash);
}

void afdo_llvm_text_tree(FILE *f, const struct afdo_tree *t)
{
	size_t i;

	for (i = 0; i < t->ntop; i++) {
		fprintf(f, "%s:%llu:%llu\n", t->top[i]->name,
			(unsigned long long)t->top[i]->total,
			(unsigned long long)t->top[i]->head);
		llvm_inst(f, t, t->top[i], 1);
	}
}

int afdo_write_llvm_text(FILE *f, const struct afdo_input *in,
			 struct afdo_notes *notes)
{
	struct afdo_tree t;

	if (afdo_tree_build(&t, AFDO_TREE_LLVM, in, notes->err, sizeof(notes->err)))
		return -1;
	afdo_llvm_text_tree(f, &t);
	notes->skipped_lines = t.skipped_lines;
	afdo_tree_free(&t);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/* perf-ctr aggregate: the LLVM sample profile text (clang -fprofile-sample-use). */
#include <stdlib.h>
#include <string.h>
#include "tree.h"


static void llvm_loc(FILE *f, int depth, uint32_t off, uint32_t discr)
{
	fprintf(f, "%*s%u", depth, "", off);
	if (discr)
		fprintf(f, ".%u", discr);
	fputs(": ", f);
}

static void llvm_inst(FILE *f, struct inst *in, int depth)
{
	size_t i, j;

	for (i = 0; i < in->nbody; i++) {
		struct body *bd = &in->body[i];
		struct tgt **tv;
		size_t nt;

		/* 0: an instruction ran 0 times, not a line nothing is known of */
		if (!bd->n && !bd->seen)
			continue;
		llvm_loc(f, depth, bd->off, bd->discr);
		fprintf(f, "%llu", (unsigned long long)bd->n);
		nt = afdo_sorted_tgts(bd, &tv);
		for (j = 0; j < nt; j++)
			fprintf(f, " %s:%llu", tv[j]->name, (unsigned long long)tv[j]->n);
		free(tv);
		fputc('\n', f);
	}
	for (i = 0; i < in->nkids; i++) {
		struct inst *k = in->kids[i].in;

		llvm_loc(f, depth, in->kids[i].off, in->kids[i].discr);
		fprintf(f, "%s:%llu\n", k->name, (unsigned long long)k->total);
		llvm_inst(f, k, depth + 1);
	}
}

void afdo_llvm_text_write(FILE *f, struct inst **top, size_t ntop)
{
	size_t i;

	for (i = 0; i < ntop; i++) {
		fprintf(f, "%s:%llu:%llu\n", top[i]->name,
			(unsigned long long)top[i]->total,
			(unsigned long long)top[i]->head);
		llvm_inst(f, top[i], 1);
	}
}

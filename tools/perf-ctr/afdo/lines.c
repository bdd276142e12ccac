// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: the profile as source-line counts (-f lines), to
 * compare with the exact counts of gcov.
 */
#include <stdlib.h>
#include <string.h>

#include "dwarf-info.h"
#include "writers.h"
#include "sweep.h"

struct line_cnt {
	const char *file;	/* owned by libdw, one pointer per CU and file */
	int line;
	uint64_t n;
};

struct lines {
	struct pc_dwarf *s;
	struct line_cnt *v;
	size_t n, cap;
};

static int line_insn(void *ctx, uint64_t addr, uint64_t n, unsigned int len)
{
	struct lines *ls = ctx;
	const char *files[16];
	int lines[16], i, k;

	(void)len;
	/* every line that starts at the instruction ran as often as it */
	k = pc_dwarf_lines(ls->s, addr, files, lines, 16);
	for (i = 0; i < k; i++) {
		struct line_cnt *v = pc_grow(ls->v, &ls->cap, ls->n, sizeof(*ls->v), 1024);

		if (!v)
			return -1;
		ls->v = v;
		v[ls->n].file = files[i];
		v[ls->n].line = lines[i];
		v[ls->n++].n = n;
	}
	return 0;
}

static int cmp_line(const void *x, const void *y)
{
	const struct line_cnt *p = x, *q = y;
	int c = strcmp(p->file, q->file);

	if (c)
		return c;
	return p->line - q->line;
}

int afdo_write_lines(FILE *f, const struct afdo_input *in,
		     struct afdo_notes *notes)
{
	struct lines ls = { 0 };
	size_t i, j;

	ls.s = pc_dso_dwarf(in->bin, notes->err, sizeof(notes->err));
	if (!ls.s)
		return -1;
	if (afdo_sweep(in->counts, in->bin, line_insn, &ls, NULL, NULL)) {
		snprintf(notes->err, sizeof(notes->err), "out of memory");
		free(ls.v);
		return -1;
	}
	/* a line counts as much as its most executed instruction */
	qsort(ls.v, ls.n, sizeof(*ls.v), cmp_line);
	for (i = 0; i < ls.n; i = j) {
		uint64_t max = 0;

		for (j = i; j < ls.n && !cmp_line(&ls.v[i], &ls.v[j]); j++)
			if (ls.v[j].n > max)
				max = ls.v[j].n;
		fprintf(f, "%s:%d %llu\n", ls.v[i].file, ls.v[i].line,
			(unsigned long long)max);
	}
	free(ls.v);
	return 0;
}

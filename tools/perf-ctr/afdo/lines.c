// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: the profile as source-line counts (-f lines), to
 * compare with the exact counts of gcov.
 */
#include <stdlib.h>
#include <string.h>
#include "tree.h"


struct line_cnt {
	const char *file;	/* owned by libdw, one pointer per CU and file */
	int line;
	uint64_t n;
};

struct lines_sweep {
	struct sweep w;
	struct line_cnt *v;
	size_t n, cap;
};

static void line_insn(struct sweep *w, uint64_t addr, uint64_t n, unsigned int len)
{
	struct lines_sweep *ls = (struct lines_sweep *)w;
	const char *files[16];
	int lines[16], i, k;

	(void)len;
	/* every line that starts at the instruction ran as often as it */
	k = pc_dwarf_lines(w->s, addr, files, lines, 16);
	for (i = 0; i < k; i++) {
		ls->v = afdo_xgrow(ls->v, &ls->cap, ls->n + 1, sizeof(*ls->v));
		ls->v[ls->n].file = files[i];
		ls->v[ls->n].line = lines[i];
		ls->v[ls->n++].n = n;
	}
}

static int cmp_line(const void *x, const void *y)
{
	const struct line_cnt *p = x, *q = y;
	int c = strcmp(p->file, q->file);

	if (c)
		return c;
	return p->line - q->line;
}

int afdo_write_lines(FILE *f, const struct afdo_agg *g, struct pc_dso *b,
		     char *err, size_t errlen)
{
	struct lines_sweep ls = { 0 };
	size_t i, j;
	int rc = 0;

	ls.w.insn = line_insn;
	ls.w.s = pc_dso_dwarf(b, err, errlen);
	if (!ls.w.s)
		return -1;
	if (afdo_sweep_ranges(&ls.w, g, b)) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
		goto out;
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
out:
	free(ls.v);
	return rc;
}


// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: the unsymbolized formats, straight from the counts:
 * the AutoFDO text of create_gcov --profiler=text, and llvm-profgen's
 * unsymbolized profile.
 */
#include <stdlib.h>
#include <string.h>

#include "afdo.h"
#include "writers.h"

static int write_pairs(FILE *f, const struct afdo_map *m, const char *sep,
		       uint64_t base, const char *indent)
{
	size_t n, i;
	struct afdo_cnt *v = afdo_map_sorted(m, &n);

	if (!v)
		return -1;
	fprintf(f, "%s%zu\n", indent, n);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%llx%s%llx:%llu\n", indent,
			(unsigned long long)(v[i].a - base), sep,
			(unsigned long long)(v[i].b - base),
			(unsigned long long)v[i].n);
	free(v);
	return 0;
}

/*
 * create_gcov reads three sections: "N" then N "begin-end:count" lines,
 * "N" then "addr:count", "N" then "from->to:count". Hex addresses are
 * relative to the p_vaddr of the binary's first PT_LOAD.
 */
int afdo_write_autofdo_text(FILE *f, const struct afdo_input *in,
			    struct afdo_notes *notes)
{
	const struct afdo_counts *g = in->counts;
	const struct pc_dso *b = in->bin;
	size_t n, i;
	struct afdo_cnt *v;

	snprintf(notes->err, sizeof(notes->err), "out of memory");
	if (write_pairs(f, &g->ranges, "-", b->first_load, ""))
		return -1;
	v = afdo_map_sorted(&g->addrs, &n);
	if (!v)
		return -1;
	fprintf(f, "%zu\n", n);
	for (i = 0; i < n; i++)
		fprintf(f, "%llx:%llu\n",
			(unsigned long long)(v[i].a - b->first_load),
			(unsigned long long)v[i].n);
	free(v);
	if (write_pairs(f, &g->branches, "->", b->first_load, ""))
		return -1;
	notes->err[0] = 0;
	return 0;
}

/*
 * llvm-profgen --unsymbolized-profile: range section then branch
 * section, hex offsets from the first executable segment (4K aligned),
 * no context line for a profile without call stacks.
 */
int afdo_write_llvm_unsym(FILE *f, const struct afdo_input *in,
			  struct afdo_notes *notes)
{
	uint64_t base = in->bin->first_exec_page;

	snprintf(notes->err, sizeof(notes->err), "out of memory");
	if (write_pairs(f, &in->counts->ranges, "-", base, "") ||
	    write_pairs(f, &in->counts->branches, "->", base, ""))
		return -1;
	notes->err[0] = 0;
	return 0;
}

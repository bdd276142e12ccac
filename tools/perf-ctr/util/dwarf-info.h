/* SPDX-License-Identifier: GPL-2.0 */
/* perf-ctr: source lines and inlined frames (dwarf.c, libdw). */
#ifndef PERF_CTR_DWARF_INFO_H
#define PERF_CTR_DWARF_INFO_H

#include "symbols.h"

#define PC_MAX_INLINE 8

struct pc_srcinfo {
	char file[256];
	int line;
	/* frames[0] is the innermost (inlined) function, the last its host. */
	char frames[PC_MAX_INLINE][128];
	int nr_frames;
};

/* Source of link-time address VADDR in D; false if there is no DWARF for it. */
bool pc_dw_lookup(struct pc_dso *d, uint64_t vaddr, struct pc_srcinfo *si);

#endif

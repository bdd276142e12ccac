// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr: source lines and inlined frames from DWARF (libdw), for
 * report. Each DSO gets one offline Dwfl, reported at load address 0 so
 * that link-time addresses (what symbols.c hands out) work directly.
 * DWARF 5 is whatever libdw reads; nothing here depends on the version.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"
#include "dwarf-info.h"

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

#define DW_NONE ((void *)-1)	/* tried, and there is no DWARF */

static void dw_cleanup(struct pc_dso *d)
{
	if (d->dw && d->dw != DW_NONE)
		dwfl_end(d->dw);
	d->dw = NULL;
}

static Dwfl *dso_dwfl(struct pc_dso *d)
{
	char path[4096];
	Dwfl *dwfl;

	if (d->dw)
		return d->dw == DW_NONE ? NULL : d->dw;
	d->dw = DW_NONE;
	d->cleanup = dw_cleanup;
	if (d->name[0] != '/')
		return NULL;
	snprintf(path, sizeof(path), "%s%s", pc_symfs, d->name);
	dwfl = dwfl_begin(&offline_callbacks);
	if (!dwfl)
		return NULL;
	/* Base 0: the module's addresses are the ELF's link-time ones. */
	if (!dwfl_report_elf(dwfl, d->name, path, -1, 0, false)) {
		dwfl_end(dwfl);
		return NULL;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	d->dw = dwfl;
	return dwfl;
}

/* The name of a subprogram or inlined instance, through abstract origins. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a)) {
		n = dwarf_formstring(&a);
		if (n)
			return n;
	}
	if (dwarf_attr_integrate(die, DW_AT_name, &a))
		return dwarf_formstring(&a);
	return NULL;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

bool pc_dw_lookup(struct pc_dso *d, uint64_t vaddr, struct pc_srcinfo *si)
{
	Dwfl_Module *mod;
	Dwfl_Line *line;
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Addr bias = 0, a = vaddr;
	int n, i;

	memset(si, 0, sizeof(*si));
	if (!dso_dwfl(d))
		return false;
	mod = dwfl_addrmodule(d->dw, vaddr);
	if (!mod)
		return false;
	line = dwfl_module_getsrc(mod, a);
	if (line) {
		int l = 0;
		const char *f = dwfl_lineinfo(line, &a, &l, NULL, NULL, NULL);

		if (f) {
			snprintf(si->file, sizeof(si->file), "%s", base_name(f));
			si->line = l;
		}
	}
	cu = dwfl_module_addrdie(mod, vaddr, &bias);
	if (cu)
		n = dwarf_getscopes(cu, vaddr - bias, &scopes);
	else
		n = 0;
	/*
	 * Innermost first. getscopes() follows an inlined instance into its
	 * abstract definition, not into the code it was inlined into, so
	 * walk out through the instance's parents with getscopes_die().
	 */
	for (i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			break;
	}
	if (i < n) {
		Dwarf_Die cur = scopes[i];

		for (;;) {
			Dwarf_Die *chain = NULL;
			const char *name = die_name(&cur);
			int m, j;

			snprintf(si->frames[si->nr_frames++], sizeof(si->frames[0]),
				 "%s", name ? name : "??");
			if (dwarf_tag(&cur) != DW_TAG_inlined_subroutine ||
			    si->nr_frames == PC_MAX_INLINE)
				break;
			m = dwarf_getscopes_die(&cur, &chain);
			for (j = 1; j < m; j++) {
				int tag = dwarf_tag(&chain[j]);

				if (tag == DW_TAG_inlined_subroutine ||
				    tag == DW_TAG_subprogram)
					break;
			}
			if (j >= m) {
				free(chain);
				break;
			}
			cur = chain[j];
			free(chain);
		}
	}
	free(scopes);
	return si->line || si->nr_frames;
}

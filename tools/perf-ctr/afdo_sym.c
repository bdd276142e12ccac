// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: symbolization with libdw. An address becomes its
 * inline stack: the function it belongs to, the functions inlined into
 * it down to the one holding the instruction, and for each the line
 * (relative lines are computed from DW_AT_decl_line by the writers).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "afdo.h"

struct afdo_fsym {
	uint64_t addr, size;
	const char *name;
};

struct afdo_sym {
	struct afdo_bin *bin;
	Dwarf *dbg;
	struct afdo_fsym *fs;
	size_t nfs;
};

static int cmp_fsym(const void *x, const void *y)
{
	const struct afdo_fsym *p = x, *q = y;

	if (p->addr != q->addr)
		return p->addr < q->addr ? -1 : 1;
	/* prefer the sized, global-looking one first */
	if (p->size != q->size)
		return p->size > q->size ? -1 : 1;
	return 0;
}

static void load_symtab(struct afdo_sym *s, Elf *elf)
{
	Elf_Scn *scn = NULL;
	int pass;

	/* .symtab if there is one, else .dynsym */
	for (pass = 0; pass < 2 && !s->nfs; pass++) {
		scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			size_t i, n;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) ||
			    !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			if (!d)
				continue;
			n = sh.sh_size / sh.sh_entsize;
			s->fs = realloc(s->fs, (s->nfs + n) * sizeof(*s->fs));
			if (!s->fs) {
				s->nfs = 0;
				return;
			}
			for (i = 0; i < n; i++) {
				GElf_Sym sym;
				const char *name;

				if (!gelf_getsym(d, i, &sym) ||
				    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
				    sym.st_shndx == SHN_UNDEF || !sym.st_value)
					continue;
				name = elf_strptr(elf, sh.sh_link, sym.st_name);
				if (!name || !*name)
					continue;
				s->fs[s->nfs].addr = sym.st_value;
				s->fs[s->nfs].size = sym.st_size;
				s->fs[s->nfs].name = name;
				s->nfs++;
			}
		}
	}
	qsort(s->fs, s->nfs, sizeof(*s->fs), cmp_fsym);
}

struct afdo_sym *afdo_sym_open(struct afdo_bin *b, char *err, size_t errlen)
{
	struct afdo_sym *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->bin = b;
	s->dbg = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
	if (!s->dbg) {
		snprintf(err, errlen, "%s: no DWARF debug information (%s): build it with -g",
			 b->path, dwarf_errmsg(-1));
		free(s);
		return NULL;
	}
	load_symtab(s, b->elf);
	return s;
}

void afdo_sym_close(struct afdo_sym *s)
{
	if (!s)
		return;
	dwarf_end(s->dbg);
	free(s->fs);
	free(s);
}

const char *afdo_sym_func(struct afdo_sym *s, uint64_t addr, uint64_t *entry)
{
	size_t lo = 0, hi = s->nfs;

	/* last symbol at or below ADDR */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->fs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0) {
		const struct afdo_fsym *f = &s->fs[lo - 1];

		/* several symbols may share an address: take the first */
		while (lo > 1 && s->fs[lo - 2].addr == f->addr)
			f = &s->fs[--lo - 1];
		if (f->size && addr - f->addr >= f->size)
			return NULL;
		*entry = f->addr;
		return f->name;
	}
	return NULL;
}

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *n = NULL;

	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(d, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n;
}

static int die_udata(Dwarf_Die *d, unsigned int at)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr(d, at, &a) || dwarf_formudata(&a, &w))
		return 0;
	return (int)w;
}

int afdo_sym_frames(struct afdo_sym *s, uint64_t addr, struct afdo_frame *f,
		    int max)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Line *ln;
	int line = 0, n, i, k = 0, nf = 0, idx[AFDO_MAX_INLINE];
	unsigned int discr = 0;

	if (!dwarf_addrdie(s->dbg, addr, &cu))
		return 0;
	ln = dwarf_getsrc_die(&cu, addr);
	if (ln) {
		dwarf_lineno(ln, &line);
		dwarf_linediscriminator(ln, &discr);
	}
	n = dwarf_getscopes(&cu, addr, &scopes);
	if (n <= 0)
		return 0;
	/* scopes[0] is the innermost; stop at the enclosing subprogram */
	for (i = 0; i < n && k < AFDO_MAX_INLINE; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			idx[k++] = i;
		if (tag == DW_TAG_subprogram)
			break;
	}
	for (i = k - 1; i >= 0 && nf < max; i--) {
		Dwarf_Die *d = &scopes[idx[i]];
		const char *name = die_name(d);

		if (!name)
			break;
		f[nf].name = name;
		f[nf].decl_line = 0;
		dwarf_decl_line(d, &f[nf].decl_line);
		if (i > 0) {
			/* where this frame called the next inner one */
			f[nf].line = die_udata(&scopes[idx[i - 1]], DW_AT_call_line);
			f[nf].discr = 0;
		} else {
			f[nf].line = line;
			f[nf].discr = discr;
		}
		nf++;
	}
	free(scopes);
	return nf;
}

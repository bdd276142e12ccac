// SPDX-License-Identifier: GPL-2.0
/*
 * perf-ctr aggregate: the profiled binary, read with libelf. Its program
 * headers relocate runtime addresses; its executable sections give the
 * bytes from which RISC-V instruction lengths are decoded.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "afdo.h"
#include "symbols.h"

static int cmp_fsym(const void *x, const void *y)
{
	const struct afdo_fsym *p = x, *q = y;

	if (p->addr != q->addr)
		return p->addr < q->addr ? -1 : 1;
	if (p->size != q->size)		/* the sized one first */
		return p->size > q->size ? -1 : 1;
	return strcmp(p->name, q->name);
}

/*
 * STT_FUNC symbols of .symtab (of the debug file when there is one), else
 * of .dynsym, sorted by address.
 */
static void load_symtab(struct afdo_bin *b, Elf *elf)
{
	int pass;

	for (pass = 0; pass < 3 && !b->nfs; pass++) {
		Elf *src = pass == 0 ? b->dbg_elf : elf;
		Elf_Scn *scn = NULL;

		if (!src)
			continue;
		while ((scn = elf_nextscn(src, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			size_t i, n;
			struct afdo_fsym *v;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass == 2 ? SHT_DYNSYM : SHT_SYMTAB) ||
			    !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			if (!d)
				continue;
			n = sh.sh_size / sh.sh_entsize;
			v = realloc(b->fs, (b->nfs + n + 1) * sizeof(*v));
			if (!v)
				return;
			b->fs = v;
			for (i = 0; i < n; i++) {
				GElf_Sym sym;
				const char *name;

				if (!gelf_getsym(d, (int)i, &sym) ||
				    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
				    sym.st_shndx == SHN_UNDEF || !sym.st_value)
					continue;
				name = elf_strptr(src, sh.sh_link, sym.st_name);
				if (!name || !*name)
					continue;
				b->fs[b->nfs].addr = sym.st_value;
				b->fs[b->nfs].size = sym.st_size;
				b->fs[b->nfs].name = name;
				b->nfs++;
			}
		}
	}
	if (b->fs)
		qsort(b->fs, b->nfs, sizeof(*b->fs), cmp_fsym);
}

const struct afdo_fsym *afdo_fsym_at(const struct afdo_bin *b, uint64_t addr)
{
	uint64_t entry;
	const char *name = afdo_func_at(b, addr, &entry);
	size_t lo = 0, hi = b->nfs;

	if (!name)
		return NULL;
	while (lo < hi) {		/* the first symbol at ENTRY: the sized one */
		size_t mid = (lo + hi) / 2;

		if (b->fs[mid].addr < entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->nfs ? &b->fs[lo] : NULL;
}

const char *afdo_func_at(const struct afdo_bin *b, uint64_t addr, uint64_t *entry)
{
	size_t lo = 0, hi = b->nfs;
	const struct afdo_fsym *f;

	while (lo < hi) {		/* first symbol above ADDR */
		size_t mid = (lo + hi) / 2;

		if (b->fs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	f = &b->fs[lo - 1];
	while (f > b->fs && f[-1].addr == f->addr)	/* aliases: the first */
		f--;
	if (f->size && addr - f->addr >= f->size)
		return NULL;
	*entry = f->addr;
	return f->name;
}

/* Open the debug file PATH for B; -1 with ERR if it is not one. */
static int open_debug(struct afdo_bin *b, const char *path, char *err,
		      size_t errlen)
{
	b->dbg_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (b->dbg_fd < 0) {
		snprintf(err, errlen, "%s: %m", path);
		return -1;
	}
	b->dbg_elf = elf_begin(b->dbg_fd, ELF_C_READ_MMAP, NULL);
	if (!b->dbg_elf || elf_kind(b->dbg_elf) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		return -1;
	}
	b->dbg_path = strdup(path);
	return b->dbg_path ? 0 : -1;
}

int afdo_bin_open(struct afdo_bin *b, const char *path, const char *debug,
		  const char *symfs, char *err, size_t errlen)
{
	char dbg[4096];
	GElf_Ehdr eh;
	size_t nph, i, shstrndx;
	Elf_Scn *scn = NULL;
	Elf *elf;
	bool have_exec = false, have_load = false;

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	b->dbg_fd = -1;
	b->path = path;
	elf_version(EV_CURRENT);
	b->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (b->fd < 0) {
		snprintf(err, errlen, "%s: %m", path);
		return -1;
	}
	elf = elf_begin(b->fd, ELF_C_READ_MMAP, NULL);
	b->elf = elf;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		goto fail;
	}
	if (eh.e_machine != EM_RISCV)
		fprintf(stderr, "perf-ctr aggregate: warning: %s is not a RISC-V binary (e_machine %u)\n",
			path, eh.e_machine);
	b->is64 = gelf_getclass(elf) == ELFCLASS64;
	b->pie = eh.e_type == ET_DYN;
	if (elf_getphdrnum(elf, &nph))
		nph = 0;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!have_load)
			b->first_load = ph.p_vaddr;
		have_load = true;
		if ((ph.p_flags & PF_X) && !have_exec) {
			b->first_exec_page = ph.p_vaddr & ~0xfffULL;
			have_exec = true;
		}
		if (b->nseg < AFDO_MAX_SEGS) {
			struct afdo_seg *s = &b->seg[b->nseg++];

			s->vaddr = ph.p_vaddr;
			s->offset = ph.p_offset;
			s->filesz = ph.p_filesz;
			s->flags = ph.p_flags;
		}
	}
	if (!have_exec) {
		snprintf(err, errlen, "%s: no executable PT_LOAD segment", path);
		goto fail;
	}
	if (elf_getshdrstrndx(elf, &shstrndx))
		shstrndx = 0;
	b->text_lo = UINT64_MAX;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		struct afdo_text *t;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			continue;
		if (b->ntext == AFDO_MAX_TEXT)
			break;
		t = &b->text[b->ntext++];
		t->addr = sh.sh_addr;
		t->size = sh.sh_size;
		t->data = d->d_buf;
		t->name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (t->addr < b->text_lo)
			b->text_lo = t->addr;
		if (t->addr + t->size > b->text_hi)
			b->text_hi = t->addr + t->size;
	}
	if (!b->ntext) {
		snprintf(err, errlen, "%s: no executable section with contents", path);
		goto fail;
	}
	b->build_id_size = pc_elf_build_id(elf, b->build_id);
	if (debug) {
		if (open_debug(b, debug, err, errlen))
			goto fail;
		if (!pc_elf_has_debug(b->dbg_elf)) {
			snprintf(err, errlen, "%s: no DWARF debug information", debug);
			goto fail;
		}
	} else if (!pc_elf_has_debug(elf) &&
		   !pc_find_debug(elf, path, symfs ? symfs : "", dbg, sizeof(dbg))) {
		if (open_debug(b, dbg, err, errlen))
			goto fail;
		if (afdo_verbose)
			fprintf(stderr, "perf-ctr aggregate: debug information of %s from %s\n",
				path, dbg);
	}
	load_symtab(b, elf);
	return 0;
fail:
	afdo_bin_close(b);
	return -1;
}

void afdo_bin_close(struct afdo_bin *b)
{
	if (b->dbg_elf)
		elf_end(b->dbg_elf);
	b->dbg_elf = NULL;
	if (b->dbg_fd >= 0)
		close(b->dbg_fd);
	b->dbg_fd = -1;
	free(b->dbg_path);
	b->dbg_path = NULL;
	free(b->fs);
	b->fs = NULL;
	b->nfs = 0;
	if (b->elf)
		elf_end(b->elf);
	b->elf = NULL;
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

unsigned int afdo_insn(const struct afdo_bin *b, uint64_t addr, uint32_t *insn)
{
	const struct afdo_text *t = afdo_text_at(b, addr);
	uint64_t off;
	uint32_t lo;

	if (!t)
		return 0;
	off = addr - t->addr;
	if (off + 2 > t->size)
		return 0;
	lo = t->data[off] | (uint32_t)t->data[off + 1] << 8;
	if ((lo & 3) != 3) {		/* compressed: 16 bits */
		*insn = lo;
		return 2;
	}
	if ((lo & 0x1c) == 0x1c)	/* 48 bits and longer: reserved */
		return 0;
	if (off + 4 > t->size)
		return 0;
	*insn = lo | (uint32_t)t->data[off + 2] << 16 |
		(uint32_t)t->data[off + 3] << 24;
	return 4;
}

/* A call writes the return address to ra (x1) or t0 (x5). */
enum afdo_call afdo_call_kind(const struct afdo_bin *b, uint64_t addr)
{
	uint32_t i;
	unsigned int len = afdo_insn(b, addr, &i), rd;

	if (len == 4) {
		rd = (i >> 7) & 0x1f;
		if ((i & 0x7f) == 0x6f && (rd == 1 || rd == 5))
			return AFDO_CALL;		/* jal */
		if ((i & 0x707f) == 0x67 && (rd == 1 || rd == 5))
			return AFDO_ICALL;		/* jalr */
	} else if (len == 2) {
		if ((i & 0xf07f) == 0x9002 && ((i >> 7) & 0x1f))
			return AFDO_ICALL;		/* c.jalr */
		if (!b->is64 && (i & 0xe003) == 0x2001)
			return AFDO_CALL;		/* c.jal (RV32) */
	}
	return AFDO_NOT_CALL;
}

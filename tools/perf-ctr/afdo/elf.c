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

const struct pc_sym *afdo_fsym_at(const struct afdo_bin *b, uint64_t addr)
{
	return pc_dso_sym(b->dso, addr);
}

const char *afdo_func_at(const struct afdo_bin *b, uint64_t addr, uint64_t *entry)
{
	const struct pc_sym *f = pc_dso_sym(b->dso, addr);

	if (!f)
		return NULL;
	*entry = f->start;
	return f->name;
}

int afdo_bin_open(struct afdo_bin *b, const char *path, const char *debug,
		  char *err, size_t errlen)
{
	GElf_Ehdr eh;
	size_t nph, i, shstrndx;
	Elf_Scn *scn = NULL;
	Elf *elf;
	bool have_exec = false, have_load = false;

	memset(b, 0, sizeof(*b));
	b->path = path;
	if (access(path, R_OK)) {
		snprintf(err, errlen, "%s: %m", path);
		return -1;
	}
	/* the ELF, its symbols and its debug file, as every command sees them */
	b->dso = pc_dso_open(path, debug);
	if (!b->dso) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	elf = b->elf = b->dso->elf;
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
	b->dbg_elf = b->dso->dbg_elf;
	b->dbg_path = b->dso->dbg_path;
	if (debug && (!b->dbg_elf || !pc_elf_has_debug(b->dbg_elf))) {
		snprintf(err, errlen, "%s: no DWARF debug information", debug);
		goto fail;
	}
	if (b->dbg_path && afdo_verbose)
		fprintf(stderr, "perf-ctr aggregate: debug information of %s from %s\n",
			path, b->dbg_path);
	return 0;
fail:
	afdo_bin_close(b);
	return -1;
}

void afdo_bin_close(struct afdo_bin *b)
{
	if (b->dso)
		pc_dso_free(b->dso);
	b->dso = NULL;
	b->elf = NULL;
	b->dbg_elf = NULL;
	b->dbg_path = NULL;
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

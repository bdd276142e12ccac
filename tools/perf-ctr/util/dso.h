/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-ctr: one model of a binary (dso.c), as perf has its dso: the
 * files a recording maps and the binary aggregate profiles are all
 * pc_dso. A DSO owns what is known of its ELF file: its loaded segments
 * (file offset <-> link-time address), its executable sections and the
 * RISC-V instructions in them, its build id, its symbols, its DWARF
 * (its own, or its separate debug file's) and its pseudo probes (probe.h).
 */
#ifndef PERF_CTR_DSO_H
#define PERF_CTR_DSO_H

#include <stdbool.h>
#include <stdint.h>

#include "perf-ctr.h"
#include "riscv-insn.h"

#define PC_MAX_SEGS	32
#define PC_MAX_TEXT	32

struct pc_sym {
	uint64_t start, end;	/* link-time addresses */
	char *name;
	int global;
	bool sized;		/* the symbol table gave it a size */
	bool func;		/* STT_FUNC, not a label of assembly */
};

/* A PT_LOAD segment. */
struct pc_seg {
	uint64_t vaddr, offset, filesz, memsz;
	uint32_t flags;		/* PF_X, PF_W, PF_R */
};

/* An executable section with contents. */
struct pc_text {
	uint64_t addr, size;
	const uint8_t *data;
};

struct pc_dwarf;

struct pc_dso {
	struct pc_dso *next;
	bool loaded;
	bool as_is;		/* name is a host path, not under --symfs */
	bool et_dyn, rv64;
	unsigned int machine;	/* e_machine; 0 when no ELF was found */
	int fd;
	void *elf;		/* Elf * */
	struct pc_seg segs[PC_MAX_SEGS];
	unsigned int nr_segs;
	uint64_t first_load;	/* p_vaddr of the first PT_LOAD */
	uint64_t first_exec_page;	/* of the first PF_X PT_LOAD, 4 KiB aligned */
	bool has_exec;		/* there is a PF_X PT_LOAD */
	struct pc_text text[PC_MAX_TEXT];
	unsigned int nr_text;
	uint64_t text_lo, text_hi;	/* bounds of all of them */
	/* The GNU build id of the file itself. */
	uint8_t elf_build_id[20], elf_build_id_size;
	/* The build id the recording gives the file (MMAP2, HEADER_BUILD_ID). */
	uint8_t build_id[20], build_id_size;
	bool build_id_feature;	/* HEADER_BUILD_ID's: an MMAP2's replaces it */
	/*
	 * A Linux kernel image (it has linux_banner): the link-time address
	 * of _text (else _stext), which perf's kernel map gives the running
	 * address of as its pgoff. ktext_sym: 0 neither, 1 _stext, 2 _text.
	 */
	bool linux_banner;
	/* built with LLVM's flow-sensitive discriminators (FS-AFDO) */
	bool llvm_fs_discr;
	uint8_t ktext_sym;
	uint64_t ktext;
	struct pc_sym *syms;	/* sorted by start, one per address */
	size_t nr_syms;
	char *dbg_path;		/* of dbg_elf */
	void *dbg_elf;		/* Elf * of its separate debug file, or NULL */
	int dbg_fd;
	struct pc_dwarf *dwarf;	/* opened at the first lookup */
	bool dwarf_tried;
	char *dwarf_err;	/* why there is none */
	struct pc_probes *probes;	/* decoded at the first lookup (probe.h) */
	bool probes_tried;
	char *probes_err;	/* why there are none */
	int mark;		/* for the command's own use */
	char name[];
};

struct pc_dso *pc_dso_new(const char *name);
/*
 * A DSO for the file at PATH as it is (not under --symfs), loaded: its
 * DWARF and full symbols from DEBUG when given, else from itself, else
 * from its separate debug file. NULL, or no ->elf when it is no ELF.
 */
struct pc_dso *pc_dso_open(const char *path, const char *debug);
/* Is D a Linux kernel image, relocatable by perf's kernel map? */
static inline bool pc_dso_is_kernel(const struct pc_dso *d)
{
	return d->linux_banner && d->ktext_sym && !d->et_dyn;
}

/* Open D's file (under --symfs) and read its headers and symbols, once. */
void pc_dso_load(struct pc_dso *d);
void pc_dso_free(struct pc_dso *d);

/*
 * The one relocation rule: the link-time address of file offset OFF,
 * through the PT_LOAD segment that holds it. False when none does (or D
 * is no ELF known here).
 */
bool pc_dso_vaddr(struct pc_dso *d, uint64_t off, uint64_t *vaddr);
/* The PT_LOAD segment that holds file offset OFF, or NULL. */
const struct pc_seg *pc_dso_seg(struct pc_dso *d, uint64_t off);
const struct pc_sym *pc_dso_sym(struct pc_dso *d, uint64_t vaddr);

/* The executable section holding link-time address ADDR, or NULL. */
static inline const struct pc_text *pc_dso_text_at(const struct pc_dso *d,
						   uint64_t addr)
{
	unsigned int i;

	if (addr < d->text_lo || addr >= d->text_hi)
		return NULL;
	for (i = 0; i < d->nr_text; i++)
		if (addr - d->text[i].addr < d->text[i].size)
			return &d->text[i];
	return NULL;
}

/*
 * The RISC-V instruction at ADDR, from D's executable sections: its
 * length, 0 when ADDR is in none or holds a reserved encoding.
 */
unsigned int pc_dso_insn(const struct pc_dso *d, uint64_t addr,
			 struct pc_rv_insn *in);

/*
 * The instructions that start in [LO, HI], walked by their lengths from
 * LO (HI the address of the last one): 0 when LO and HI are not in one of
 * D's executable sections, or HI < LO.
 */
uint64_t pc_dso_count_insns(const struct pc_dso *d, uint64_t lo, uint64_t hi);

/*
 * The contents of D's own section NAME (*SIZE bytes), or NULL when it has
 * none with contents.
 */
const void *pc_dso_section(struct pc_dso *d, const char *name, size_t *size);

/* D's DWARF (its own, or its debug file's), NULL when it has none. */
struct pc_dwarf *pc_dso_dwarf(struct pc_dso *d, char *err, size_t errlen);

/* Does the ELF (an Elf *) hold DWARF? */
bool pc_elf_has_debug(void *elf);

#define PC_MAX_INLINE 8

struct pc_srcinfo {
	char file[256];
	int line;
	/* frames[0] is the innermost (inlined) function, the last its host. */
	char frames[PC_MAX_INLINE][128];
	int nr_frames;
};

/* Source of link-time address VADDR in D; false if there is no DWARF for it. */
bool pc_dso_srcinfo(struct pc_dso *d, uint64_t vaddr, struct pc_srcinfo *si);

#endif

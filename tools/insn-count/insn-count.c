// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count: a QEMU TCG plugin that counts how many times each
 * instruction of one program runs, exactly. make autofdo measures the
 * profiles sampled from CTR records against it.
 *
 *   -plugin insn-count.so,bin=PROGRAM,out=COUNTS
 *
 * PROGRAM is a static, non-PIE ELF file that the guest runs: its
 * executable segments are at their link-time addresses in every process
 * that runs it. Other programs may be mapped at the same addresses (a
 * static busybox is), so an address alone does not say whose instruction
 * it is: a guest page counts when it holds PROGRAM's bytes for that
 * address, compared once per physical page, the first time code is
 * translated from it. At exit, COUNTS gets one "ADDRESS COUNT" line (hex,
 * decimal) for each of PROGRAM's instructions that ran, in address order.
 *
 * Each instruction's counter is a slot of one scoreboard entry, at
 * (address - lo) / 2 (RISC-V instructions are 2 or 4 bytes long), added
 * to by an inline operation: no call out of the translated code. An
 * instruction that traps and is run again (a page fault) counts each
 * time it starts.
 */
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define PAGE		4096ULL
/* The largest text taken: 64 MiB, 256 MiB of counters a hart. */
#define MAX_RANGE	(64ULL << 20)

enum page_owner { PAGE_OURS = 1, PAGE_OTHER };

static char *out;
static uint8_t *elf;		/* PROGRAM's file */
static size_t elf_size;
static Elf64_Phdr *text;	/* its executable PT_LOADs */
static unsigned int nr_text;
static uint64_t lo, hi;		/* from the lowest to the highest */
static GHashTable *pages;	/* guest physical page -> enum page_owner */
static GByteArray *page_buf;
static struct qemu_plugin_scoreboard *counts;

static qemu_plugin_u64 slot(uint64_t vaddr)
{
	qemu_plugin_u64 e = {
		.score = counts,
		.offset = (vaddr - lo) / 2 * sizeof(uint64_t),
	};

	return e;
}

/* Do the PAGE bytes at BUF hold what PROGRAM maps at page VA? */
static bool same_as_file(uint64_t va, const uint8_t *buf)
{
	unsigned int i;

	for (i = 0; i < nr_text; i++) {
		const Elf64_Phdr *ph = &text[i];
		uint64_t off, n;

		if (va + PAGE <= ph->p_vaddr || va >= ph->p_vaddr + ph->p_memsz)
			continue;
		/* p_vaddr and p_offset are congruent modulo the page size */
		off = va - (ph->p_vaddr - ph->p_offset);
		n = off < elf_size ? MIN(PAGE, elf_size - off) : 0;
		if (n && memcmp(buf, elf + off, n))
			return false;
		for (; n < PAGE; n++)	/* past the end of the file: zeros */
			if (buf[n])
				return false;
		return true;
	}
	return false;
}

/* Is the code at VA, in the translating hart's address space, PROGRAM's? */
static bool ours(uint64_t va)
{
	uint64_t pa, page = va & ~(PAGE - 1);
	gpointer v;
	bool same;

	if (!qemu_plugin_translate_vaddr(va, &pa))
		return false;
	pa &= ~(PAGE - 1);
	v = g_hash_table_lookup(pages, GSIZE_TO_POINTER(pa));
	if (v)
		return GPOINTER_TO_INT(v) == PAGE_OURS;
	same = qemu_plugin_read_memory_vaddr(page, page_buf, PAGE) &&
	       page_buf->len >= PAGE && same_as_file(page, page_buf->data);
	g_hash_table_insert(pages, GSIZE_TO_POINTER(pa),
			    GINT_TO_POINTER(same ? PAGE_OURS : PAGE_OTHER));
	return same;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);

		if (va >= lo && va < hi && ours(va))
			qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
				insn, QEMU_PLUGIN_INLINE_ADD_U64, slot(va), 1);
	}
}

static void write_counts(qemu_plugin_id_t id, void *data)
{
	FILE *f = fopen(out, "w");
	uint64_t va;

	if (!f) {
		fprintf(stderr, "insn-count: cannot write %s\n", out);
		return;
	}
	for (va = lo; va < hi; va += 2) {
		uint64_t n = qemu_plugin_u64_sum(slot(va));

		if (n)
			fprintf(f, "%" PRIx64 " %" PRIu64 "\n", va, n);
	}
	if (fclose(f))
		fprintf(stderr, "insn-count: cannot write %s\n", out);
}

/* PROGRAM's executable segments, and the range they span. */
static bool read_program(const char *path)
{
	const Elf64_Ehdr *eh;
	unsigned int i;
	gsize size;
	gchar *data;

	if (!g_file_get_contents(path, &data, &size, NULL)) {
		fprintf(stderr, "insn-count: cannot read %s\n", path);
		return false;
	}
	elf = (uint8_t *)data;
	elf_size = size;
	eh = (const Elf64_Ehdr *)elf;
	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_type != ET_EXEC ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff > size || (size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum) {
		fprintf(stderr, "insn-count: %s is not an ELF64 executable (a static, non-PIE program)\n",
			path);
		return false;
	}
	text = g_new0(Elf64_Phdr, eh->e_phnum);
	for (i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, elf + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !ph.p_memsz ||
		    ph.p_vaddr % PAGE != ph.p_offset % PAGE)
			continue;
		if (!nr_text || ph.p_vaddr < lo)
			lo = ph.p_vaddr & ~1ULL;
		if (!nr_text || ph.p_vaddr + ph.p_memsz > hi)
			hi = ph.p_vaddr + ph.p_memsz;
		text[nr_text++] = ph;
	}
	if (!nr_text || hi - lo > MAX_RANGE) {
		fprintf(stderr, "insn-count: %s has no executable segment, or more than %llu MiB of them\n",
			path, MAX_RANGE >> 20);
		return false;
	}
	return true;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *bin = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "bin=", 4) && argv[i][4]) {
			bin = argv[i] + 4;
		} else if (!strncmp(argv[i], "out=", 4) && argv[i][4]) {
			out = g_strdup(argv[i] + 4);
		} else {
			fprintf(stderr, "insn-count: unknown argument '%s' (bin=PROGRAM,out=FILE)\n",
				argv[i]);
			return -1;
		}
	}
	if (!bin || !out) {
		fprintf(stderr, "insn-count: needs bin=PROGRAM,out=FILE\n");
		return -1;
	}
	if (!read_program(bin))
		return -1;
	pages = g_hash_table_new(g_direct_hash, g_direct_equal);
	page_buf = g_byte_array_sized_new(PAGE);
	counts = qemu_plugin_scoreboard_new((hi - lo + 1) / 2 * sizeof(uint64_t));
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, write_counts, NULL);
	return 0;
}
